"""Images in questions: accepted by content, stored once, served safely, shown by Markdown,
imported from Moodle XML and QTI, exported and removed when unused."""

import base64
import io
import json
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.urls import reverse

from questions.markup import render_markdown
from questions.media import images as media
from questions.models import CaseStudy, Question, QuestionMedia
from tests import items
from tests.factories import ExamFactory, QuestionFactory, TopicFactory
from tests.images import png

pytestmark = pytest.mark.django_db


# Accepting and storing ------------------------------------------------------------------


def test_storing_the_same_bytes_twice_keeps_one_file_and_row():
    first = media.store(media.check_image(png()), "diagram.png")
    second = media.store(media.check_image(png()), "other-name.png")
    assert first.pk == second.pk
    assert QuestionMedia.objects.count() == 1
    assert first.storage_name == f"q/{first.sha256}.png"
    assert (first.content_type, first.size, first.original_name) == (
        "image/png",
        len(png()),
        "diagram.png",
    )
    assert default_storage.exists(first.storage_name)
    assert media.read_bytes(first) == png()
    assert first.markdown == f"![diagram](/media/q/{first.sha256}.png)"


@pytest.mark.parametrize(
    ("data", "extension"),
    [
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", "jpg"),
        (b"GIF89a\x01\x00\x01\x00", "gif"),
        (b"RIFF\x10\x00\x00\x00WEBPVP8 ", "webp"),
    ],
)
def test_the_type_comes_from_the_bytes(data, extension):
    assert media.check_image(data, "picture.png").extension == extension


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"<html><script>alert(1)</script></html>", "not a PNG, JPEG, GIF or WebP"),
        (b"MZ\x90\x00 an executable named picture.png", "not a PNG, JPEG, GIF or WebP"),
        (
            b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg">'
            b"<script>alert(1)</script></svg>",
            "SVG is not accepted",
        ),
        (b'<svg xmlns="http://www.w3.org/2000/svg"><rect/></svg>', "SVG is not accepted"),
    ],
)
def test_non_images_and_svg_are_refused_whatever_their_name(data, reason):
    with pytest.raises(media.MediaError, match=reason):
        media.check_image(data, "picture.png")


def test_an_oversized_image_is_refused(settings):
    settings.QUESTION_MEDIA_MAX_BYTES = 100
    with pytest.raises(media.MediaError, match="images are accepted up to"):
        media.check_image(png(64, 64, seed=7) + b"\x00" * 100, "big.png")


# Serving --------------------------------------------------------------------------------


def test_an_image_is_served_with_its_type_inline_unsniffed_and_cached_for_long(client):
    stored = media.store(media.check_image(png()), "d.png")
    response = client.get(stored.url)
    assert response.status_code == 200
    assert response["Content-Type"] == "image/png"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Content-Disposition"].startswith("inline")
    assert "sandbox" in response["Content-Security-Policy"]
    assert "immutable" in response["Cache-Control"]
    assert b"".join(response.streaming_content) == png()


@pytest.mark.parametrize(
    "name",
    [
        "0" * 64 + ".png",  # well formed, not stored
        "not-a-hash.png",
        "0" * 64 + ".svg",
    ],
)
def test_unknown_images_are_404(client, name):
    assert client.get(f"/media/q/{name}").status_code == 404


def test_a_known_hash_with_another_extension_is_404(client):
    stored = media.store(media.check_image(png()), "d.png")
    assert client.get(f"/media/q/{stored.sha256}.gif").status_code == 404


def test_serving_costs_one_query(client, django_assert_num_queries):
    stored = media.store(media.check_image(png()), "d.png")
    with django_assert_num_queries(1):
        assert client.get(stored.url).status_code == 200
    assert reverse("question_media", args=[stored.file_name]) == stored.url


# Markdown -------------------------------------------------------------------------------


def test_markdown_shows_our_image_with_its_alt_text():
    url = "/media/q/" + "a" * 64 + ".png"
    html = render_markdown(f"See the exhibit:\n\n![Network diagram]({url})")
    assert f'src="{url}"' in html
    assert 'alt="Network diagram"' in html


@pytest.mark.parametrize(
    "source",
    [
        "![x](https://evil.example/track.png)",
        "![x](//evil.example/track.png)",
        "![x](data:image/png;base64,iVBORw0KGgo=)",
        "![x](javascript:alert(1))",
        '<img src="https://evil.example/x.png">',
        '<img src="/media/q/' + "a" * 64 + '.png" onerror="alert(1)" width="9" style="x">',
        "![x](/media/q/../../etc/passwd)",
        "![x](/static/other.png)",
    ],
)
def test_markdown_strips_every_other_image_and_attribute(source):
    html = str(render_markdown(source)).lower()
    for needle in ("evil", "data:", "javascript:", "onerror", "style", "width", "passwd", "static"):
        assert needle not in html


def test_the_question_page_shows_the_image(client, django_assert_num_queries):
    stored = media.store(media.check_image(png()), "d.png")
    question = QuestionFactory(stem=f"Which port?\n\n![Exhibit 1]({stored.url})")
    response = client.get(question.get_absolute_url())
    assert f'<img alt="Exhibit 1" src="{stored.url}">' in response.content.decode()
    assert client.get(stored.url).status_code == 200


# Import ---------------------------------------------------------------------------------


@pytest.fixture
def exam():
    exam = ExamFactory(slug="media-exam")
    TopicFactory(exam=exam, slug="imported", title="Imported")
    return exam


def run_import(capsys, path: Path, exam_slug: str) -> tuple[list[str], dict]:
    call_command("import_bank", str(path), "--exam", exam_slug)
    lines = capsys.readouterr().out.splitlines()
    return lines, json.loads(lines[-1])


MOODLE = """<?xml version="1.0" encoding="UTF-8"?>
<quiz>
  <question type="multichoice">
    <name><text>Exhibit question</text></name>
    <questiontext format="html">
      <text><![CDATA[<p>Look at the exhibit: <img src="@@PLUGINFILE@@/topology%20v2.png"
        alt="Topology &amp; links" width="300"> and <img src="@@PLUGINFILE@@/evil.svg" alt="s">
        and <img src="@@PLUGINFILE@@/fake.png" alt="f"></p>]]></text>
      <file name="topology v2.png" path="/" encoding="base64">{png}</file>
      <file name="evil.svg" path="/" encoding="base64">{svg}</file>
      <file name="fake.png" path="/" encoding="base64">{fake}</file>
    </questiontext>
    <single>true</single>
    <answer fraction="100" format="html"><text>R1</text></answer>
    <answer fraction="0" format="html"><text>R2</text></answer>
  </question>
</quiz>
"""


def test_moodle_xml_embedded_image_is_stored_and_shown_and_unsafe_files_are_noted(
    capsys, tmp_path, exam, client
):
    svg = b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
    source = MOODLE.format(
        png=base64.encodebytes(png()).decode(),
        svg=base64.b64encode(svg).decode(),
        fake=base64.b64encode(b"<html>not an image</html>").decode(),
    )
    path = tmp_path / "quiz.xml"
    path.write_text(source, encoding="utf-8")
    lines, result = run_import(capsys, path, exam.slug)
    assert (result["imported"], result["errors"]) == (1, [])
    [stored] = QuestionMedia.objects.all()
    assert stored.original_name == "topology v2.png"
    question = Question.objects.get()
    html = str(render_markdown(question.stem))
    assert f'<img src="{stored.url}" alt="Topology &amp; links">' in html
    assert "[image: evil.svg]" in html
    assert "[image: fake.png]" in html
    assert any("evil.svg: SVG is not accepted" in line for line in lines)
    assert any("fake.png: not a PNG" in line for line in lines)
    # Importing the same file again stores nothing new.
    run_import(capsys, path, exam.slug)
    assert QuestionMedia.objects.count() == 1
    question.status = "published"
    question.save()
    assert stored.url in client.get(question.get_absolute_url()).content.decode()


def test_a_dry_run_stores_no_image(capsys, tmp_path, exam):
    source = MOODLE.format(png=base64.b64encode(png()).decode(), svg="", fake="")
    path = tmp_path / "quiz.xml"
    path.write_text(source, encoding="utf-8")
    call_command("import_bank", str(path), "--exam", exam.slug, "--dry-run")
    assert not QuestionMedia.objects.exists()


def qti_package(files: dict[str, bytes]) -> bytes:
    item = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<assessmentItem xmlns="http://www.imsglobal.org/xsd/imsqti_v2p1" identifier="ex1" '
        'title="Exhibit" adaptive="false" timeDependent="false">'
        '<responseDeclaration identifier="RESPONSE" cardinality="single" baseType="identifier">'
        "<correctResponse><value>A</value></correctResponse></responseDeclaration>"
        '<itemBody><p>Which router? <img src="../img/net.png" alt="The network"/>'
        ' <img src="missing.png" alt="m"/> <img src="https://evil.example/x.png" alt="e"/></p>'
        '<choiceInteraction responseIdentifier="RESPONSE" shuffle="false" maxChoices="1">'
        '<simpleChoice identifier="A">R1</simpleChoice>'
        '<simpleChoice identifier="B">R2</simpleChoice></choiceInteraction></itemBody>'
        "</assessmentItem>"
    )
    manifest = (
        '<manifest xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"><resources>'
        '<resource identifier="r1" type="imsqti_item_xmlv2p1" href="items/ex1.xml"/>'
        "</resources></manifest>"
    )
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("imsmanifest.xml", manifest)
        archive.writestr("items/ex1.xml", item)
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def test_qti_package_image_is_stored_relative_to_its_item(capsys, tmp_path, exam):
    path = tmp_path / "bank.zip"
    path.write_bytes(qti_package({"img/net.png": png(seed=3)}))
    lines, result = run_import(capsys, path, exam.slug)
    assert (result["imported"], result["errors"]) == (1, [])
    [stored] = QuestionMedia.objects.all()
    assert media.read_bytes(stored) == png(seed=3)
    html = str(render_markdown(Question.objects.get().stem))
    assert f'<img src="{stored.url}" alt="The network">' in html
    assert "[image: missing.png]" in html
    assert "[image: https://evil.example/x.png]" in html
    assert any("missing.png: not a file in the package" in line for line in lines)


# Removal --------------------------------------------------------------------------------


def test_unused_images_are_removed_used_and_recent_ones_kept():
    used = media.store(media.check_image(png(seed=1)), "used.png")
    in_option = media.store(media.check_image(png(seed=2)), "option.png")
    unused = media.store(media.check_image(png(seed=3)), "unused.png")
    question = QuestionFactory(stem=f"![a]({used.url})")
    option = question.options.first()
    option.rationale.right_when = f"When it looks like ![b]({in_option.url})"
    option.rationale.save()
    # Just uploaded, not pasted anywhere yet: kept through the grace period.
    assert media.remove_unused_media() == 0
    assert media.remove_unused_media(grace=timedelta(0)) == 1
    assert set(QuestionMedia.objects.values_list("pk", flat=True)) == {used.pk, in_option.pk}
    assert not default_storage.exists(unused.storage_name)
    assert default_storage.exists(used.storage_name)


def test_images_of_exhibits_parts_and_case_studies_are_used():
    shown = [media.store(media.check_image(png(seed=20 + n)), f"{n}.png") for n in range(4)]
    unused = media.store(media.check_image(png(seed=30)), "unused.png")
    dropdown = items.dropdown()
    dropdown.exhibit += f"\n\n![exhibit]({shown[0].url})"
    dropdown.case_study = CaseStudy.objects.create(
        exam=dropdown.topic.exam, slug="acme", title="Acme", scenario=f"![map]({shown[1].url})"
    )
    dropdown.save()
    gap = dropdown.parts.get(position=0)
    gap.prompt = f"![label]({shown[2].url})"
    gap.right_when = f"When it looks like ![c]({shown[3].url})"
    gap.save()
    assert media.remove_unused_media(grace=timedelta(0)) == 1
    assert set(QuestionMedia.objects.values_list("pk", flat=True)) == {s.pk for s in shown}
    assert not default_storage.exists(unused.storage_name)


def test_the_daily_task_removes_unused_images(settings):
    from questions.media.tasks import remove_unused_question_media

    stored = media.store(media.check_image(png()), "old.png")
    QuestionMedia.objects.filter(pk=stored.pk).update(
        created_at=stored.created_at - timedelta(days=2)
    )
    remove_unused_question_media.call()
    assert not QuestionMedia.objects.exists()


# Export and round trips -----------------------------------------------------------------


def question_with_images() -> tuple[Question, QuestionMedia, QuestionMedia]:
    exhibit = media.store(media.check_image(png(seed=10)), "exhibit.png")
    in_option = media.store(media.check_image(png(seed=11)), "option.png")
    question: Question = QuestionFactory.create(
        uid="img-0001", stem=f"Which link is down?\n\n![Exhibit 1]({exhibit.url})"
    )
    option = question.options.all()[0]
    option.text = f"This one: ![Link A]({in_option.url})"
    option.save()
    return question, exhibit, in_option


def test_json_export_carries_the_images_and_a_round_trip_keeps_them(tmp_path, capsys):
    _, exhibit, in_option = question_with_images()
    media.store(media.check_image(png(seed=12)), "unused.png")
    call_command("export_bank", "-o", str(tmp_path / "bank.json"))
    document = json.loads((tmp_path / "bank.json").read_text())
    assert [entry["name"] for entry in document["media"]] == sorted(
        [exhibit.file_name, in_option.file_name]
    )
    entry = next(e for e in document["media"] if e["name"] == exhibit.file_name)
    assert base64.b64decode(entry["data"]) == png(seed=10)
    assert entry["content_type"] == "image/png"
    # Into an empty bank: the images come back, and so does the document.
    Question.objects.all().delete()
    for stored in QuestionMedia.objects.all():
        default_storage.delete(stored.storage_name)
    QuestionMedia.objects.all().delete()
    call_command("import_bank", str(tmp_path / "bank.json"))
    capsys.readouterr()
    assert media.read_bytes(QuestionMedia.objects.get(sha256=exhibit.sha256)) == png(seed=10)
    call_command("export_bank", "-o", str(tmp_path / "again.json"))
    assert json.loads((tmp_path / "again.json").read_text()) == document


def test_a_json_bank_whose_media_lie_is_refused_whole(tmp_path, capsys):
    question_with_images()
    call_command("export_bank", "-o", str(tmp_path / "bank.json"))
    document = json.loads((tmp_path / "bank.json").read_text())
    document["media"][0]["data"] = base64.b64encode(b"<svg><script/></svg>").decode()
    document["media"][1]["data"] = base64.b64encode(png(seed=99)).decode()
    (tmp_path / "bank.json").write_text(json.dumps(document))
    from django.core.management import CommandError

    with pytest.raises(CommandError):
        call_command("import_bank", str(tmp_path / "bank.json"))
    output = capsys.readouterr()
    text = output.out + output.err
    assert "media[0].data: SVG is not accepted" in text
    assert "media[1].name: the data's name is" in text


def test_export_without_images_has_no_media_and_the_same_queries(django_assert_num_queries):
    from questions.bank.formats.courseiva import export_document

    QuestionFactory()
    with django_assert_num_queries(8):
        document = export_document()
    assert "media" not in document


@pytest.mark.parametrize("export_format", ["moodle-xml", "qti3"])
def test_moodle_and_qti_exports_carry_the_images_back_into_an_exam(tmp_path, capsys, export_format):
    question, exhibit, in_option = question_with_images()
    suffix = "xml" if export_format == "moodle-xml" else "zip"
    path = tmp_path / f"bank.{suffix}"
    call_command("export_bank", "--format", export_format, "-o", str(path))
    if export_format == "moodle-xml":
        text = path.read_text()
        assert f"@@PLUGINFILE@@/{exhibit.file_name}" in text
        assert "/media/q/" not in text
    else:
        with zipfile.ZipFile(path) as archive:
            assert archive.read(f"media/{exhibit.file_name}") == png(seed=10)
            item = archive.read("items/img-0001.xml").decode()
            manifest = archive.read("imsmanifest.xml").decode()
        assert f'src="../media/{exhibit.file_name}"' in item
        assert f'href="media/{in_option.file_name}"' in manifest
    # Read back into another exam, from empty storage: the same images, the same alt texts.
    for stored in QuestionMedia.objects.all():
        default_storage.delete(stored.storage_name)
    QuestionMedia.objects.all().delete()
    other = ExamFactory(slug="round-trip")
    TopicFactory(exam=other, slug="imported", title="Imported")
    call_command("import_bank", str(path), "--exam", other.slug)
    capsys.readouterr()
    back = Question.objects.exclude(pk=question.pk).get()
    assert media.read_bytes(QuestionMedia.objects.get(sha256=exhibit.sha256)) == png(seed=10)
    stem = str(render_markdown(back.stem))
    assert f'src="{exhibit.url}"' in stem
    assert 'alt="Exhibit 1"' in stem
    option_html = str(render_markdown(back.options.first().text))
    assert f'src="{in_option.url}"' in option_html
    assert 'alt="Link A"' in option_html


# Admin upload ---------------------------------------------------------------------------


def test_admin_upload_stores_the_image_and_shows_its_markdown(client):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.factories import StaffFactory

    staff = StaffFactory(is_superuser=True)
    client.force_login(staff)
    url = reverse("admin:questions_questionmedia_add")
    fake = SimpleUploadedFile("diagram.png", b"<svg><script>alert(1)</script></svg>")
    response = client.post(url, {"upload": fake})
    assert response.status_code == 200
    assert "SVG is not accepted" in response.content.decode()
    assert not QuestionMedia.objects.exists()
    upload = SimpleUploadedFile("Core switch.png", png(seed=5))
    response = client.post(url, {"upload": upload}, follow=True)
    stored = QuestionMedia.objects.get()
    assert stored.original_name == "Core switch.png"
    assert f"![Core switch]({stored.url})" in response.content.decode()
    # The same bytes again: the image already stored.
    client.post(url, {"upload": SimpleUploadedFile("again.png", png(seed=5))})
    assert QuestionMedia.objects.count() == 1
    assert client.get(reverse("admin:questions_questionmedia_changelist")).status_code == 200


# The question's change form ---------------------------------------------------------------


def change_form_post(question: Question, **fields) -> dict:
    from tests.admin_forms import question_post

    options = [
        {"id": o.pk, "text": o.text, "correct": o.is_correct, "why": o.rationale.why}
        for o in question.options.select_related("rationale")
    ]
    return question_post(
        question,
        topic=question.topic,
        uid=question.uid,
        stem=question.stem,
        status=question.status,
        kind=question.kind,
        options=options,
        **fields,
    )


@pytest.fixture
def curator(client):
    from tests.factories import StaffFactory

    client.force_login(StaffFactory(is_superuser=True))
    return client


def stored_files() -> list[str]:
    try:
        return default_storage.listdir("q")[1]
    except FileNotFoundError:
        return []


def test_the_change_form_offers_an_image_upload(curator):
    question = QuestionFactory()
    page = curator.get(reverse("admin:questions_question_change", args=[question.pk]))
    assert page.status_code == 200
    assert 'enctype="multipart/form-data"' in page.text
    assert "Add an image" in page.text
    assert "Image description (alt text)" in page.text


def test_an_image_uploaded_on_the_change_form_is_stored_and_shown_after_the_stem(curator):
    from django.core.files.uploadedfile import SimpleUploadedFile

    question = QuestionFactory(stem="Which link is down?")
    url = reverse("admin:questions_question_change", args=[question.pk])
    data = change_form_post(
        question,
        image=SimpleUploadedFile("Core switch.png", png(seed=7)),
        image_alt="Core [switch]\nand its links",
    )
    response = curator.post(url, data, follow=True)
    assert response.status_code == 200
    assert not (response.context and response.context.get("errors"))
    stored = QuestionMedia.objects.get()
    assert stored.original_name == "Core switch.png"
    assert default_storage.exists(stored.storage_name)
    question.refresh_from_db()
    assert question.stem == f"Which link is down?\n\n![Core switch and its links]({stored.url})"
    rendered = render_markdown(question.stem)
    assert f'<img alt="Core switch and its links" src="{stored.url}">' in rendered
    assert "shown at the end of the stem" in response.text
    # Saving again without a file leaves the stem as it is.
    curator.post(url, change_form_post(question))
    question.refresh_from_db()
    assert question.stem.count(stored.url) == 1


@pytest.mark.parametrize(
    ("data", "error"),
    [
        (b"<svg><script>alert(1)</script></svg>", "SVG is not accepted"),
        (b"<html>not an image</html>", "Not a PNG, JPEG, GIF or WebP image"),
        (png(width=64, height=64), "images are accepted up to 0.0 MB"),
    ],
)
def test_the_change_form_refuses_a_file_that_is_not_an_image_and_saves_nothing(
    curator, settings, data, error
):
    from django.core.files.uploadedfile import SimpleUploadedFile

    settings.QUESTION_MEDIA_MAX_BYTES = 40
    question = QuestionFactory(stem="Which link is down?")
    url = reverse("admin:questions_question_change", args=[question.pk])
    fake = SimpleUploadedFile("diagram.png", data)
    response = curator.post(url, change_form_post(question, image=fake, image_alt="Diagram"))
    assert response.status_code == 200
    assert error in response.text
    assert not QuestionMedia.objects.exists()
    assert stored_files() == []
    question.refresh_from_db()
    assert question.stem == "Which link is down?"


def test_the_change_form_asks_for_alt_text_and_stores_nothing_before_the_question_is_valid(
    curator,
):
    from django.core.files.uploadedfile import SimpleUploadedFile

    question = QuestionFactory(stem="Which link is down?")
    url = reverse("admin:questions_question_change", args=[question.pk])
    image = SimpleUploadedFile("diagram.png", png(seed=8))
    response = curator.post(url, change_form_post(question, image=image, image_alt="  "))
    assert response.status_code == 200
    assert "Describe the image for learners who cannot see it." in response.text
    # A valid image, but an option is in error: the question is not saved, nor the image.
    data = change_form_post(
        question, image=SimpleUploadedFile("diagram.png", png(seed=8)), image_alt="Diagram"
    )
    data["options-0-text"] = ""
    response = curator.post(url, data)
    assert response.status_code == 200
    assert not QuestionMedia.objects.exists()
    assert stored_files() == []
    question.refresh_from_db()
    assert question.stem == "Which link is down?"


# Files without a row ----------------------------------------------------------------------


def age(name: str, days: float) -> None:
    import os
    import time

    path = default_storage.path(name)
    stamp = time.time() - days * 86400
    os.utime(path, (stamp, stamp))


def test_files_no_row_describes_are_removed_once_a_day_old():
    assert media.remove_orphan_files() == 0  # nothing stored yet: no q/ directory
    described = media.store(media.check_image(png(seed=20)), "kept.png")
    old_orphan = media.check_image(png(seed=21))
    new_orphan = media.check_image(png(seed=22))
    for image in (old_orphan, new_orphan):
        default_storage.save(f"q/{image.file_name}", io.BytesIO(image.data))
    default_storage.save("q/notes.txt", io.BytesIO(b"not ours"))
    for name in (described.storage_name, f"q/{old_orphan.file_name}", "q/notes.txt"):
        age(name, 2)
    assert media.remove_orphan_files() == 1
    assert sorted(stored_files()) == sorted(
        [described.file_name, new_orphan.file_name, "notes.txt"]
    )
    assert media.remove_orphan_files(grace=timedelta(0)) == 1
    assert sorted(stored_files()) == sorted([described.file_name, "notes.txt"])


def test_a_file_whose_age_the_storage_cannot_tell_is_kept(monkeypatch):
    orphan = media.check_image(png(seed=23))
    default_storage.save(f"q/{orphan.file_name}", io.BytesIO(orphan.data))

    def unknown(name: str):
        raise NotImplementedError

    monkeypatch.setattr(default_storage, "get_modified_time", unknown)
    assert media.remove_orphan_files(grace=timedelta(0)) == 0
    assert stored_files() == [orphan.file_name]


def test_the_daily_task_removes_files_no_row_describes():
    from questions.media.tasks import remove_unused_question_media

    orphan = media.check_image(png(seed=24))
    default_storage.save(f"q/{orphan.file_name}", io.BytesIO(orphan.data))
    age(f"q/{orphan.file_name}", 2)
    assert remove_unused_question_media.call() == 1
    assert stored_files() == []


def test_a_storage_with_no_files_on_disk_stores_serves_and_removes_images(
    settings, client, tmp_path
):
    """Any storage backend by setting (django-storages' S3 one, say): nothing may need a
    local path. Django's in-memory storage has none, as a bucket has none."""
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {"BACKEND": "django.core.files.storage.InMemoryStorage"},
    }
    used = media.store(media.check_image(png(seed=30)), "used.png")
    unused = media.store(media.check_image(png(seed=31)), "unused.png")
    assert default_storage.exists(used.storage_name)
    assert not (Path(settings.MEDIA_ROOT) / used.storage_name).exists()  # not on disk
    QuestionFactory(stem=f"![Exhibit]({used.url})")
    response = client.get(used.url)
    assert response.status_code == 200
    assert response["X-Content-Type-Options"] == "nosniff"
    assert b"".join(response.streaming_content) == png(seed=30)
    out = tmp_path / "bank.json"
    call_command("export_bank", "-o", str(out))
    shipped = json.loads(out.read_text())["media"]
    assert [item["name"] for item in shipped] == [used.file_name]
    assert media.remove_unused_media(grace=timedelta(0)) == 1
    assert not default_storage.exists(unused.storage_name)
    assert client.get(unused.url).status_code == 404
    assert client.get(used.url).status_code == 200
