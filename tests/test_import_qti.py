"""`manage.py import_bank` with QTI 2.1 / 3.0 items and content packages: QTIWorks' and
Citolab's samples (tests/data/foreign/README.md), and hostile files made here."""

import io
import json
import stat
import zipfile
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from questions.bank import foreign_import
from questions.bank.formats import foreign, qti, qti_package
from questions.models import Question, QuestionMedia, Topic
from tests.foreign_files import (
    FIXTURES,
    QTI3,
    QTI21,
    exam_of_one_topic,
    manifest,
    options_of,
    package,
    refused,
    run,
    seen,
    write,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def exam():
    return exam_of_one_topic("web-basics")


def item(identifier: str, body: str, *, correct: str = "A", extra: str = "") -> str:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<qti-assessment-item xmlns="{QTI3}" identifier="{identifier}" title="T {identifier}">
  <qti-response-declaration identifier="RESPONSE" cardinality="single" base-type="identifier">
    <qti-correct-response><qti-value>{correct}</qti-value></qti-correct-response>
  </qti-response-declaration>
  <qti-item-body>{body}</qti-item-body>{extra}
</qti-assessment-item>"""


CHOICE = """<qti-choice-interaction response-identifier="RESPONSE" max-choices="1">
  <qti-prompt>Is it?</qti-prompt>
  <qti-simple-choice identifier="A">Yes</qti-simple-choice>
  <qti-simple-choice identifier="B">No</qti-simple-choice>
</qti-choice-interaction>"""


# Real files ---------------------------------------------------------------------------------


def test_qtiworks_single_choice_item_with_its_image_as_placeholder(capsys, exam):
    lines, result = run(capsys, FIXTURES / "qtiworks-choice.xml", "--exam", exam.slug)
    assert result["format"] == "qti"
    assert (result["imported"], result["errors"], result["skipped"]) == (1, [], [])
    question = Question.objects.get()
    assert question.kind == "single"
    assert "What does it say?" in seen(question.stem)
    assert "[image: images/sign.png]" in seen(question.stem)
    assert options_of(question) == [
        ("You must stay with your luggage at all times.", True, ""),
        ("Do not let someone else look after your luggage.", False, ""),
        ("Remember your luggage when you leave.", False, ""),
    ]
    # An item file read alone has no files beside it: the image stays a placeholder.
    assert any("image images/sign.png not imported" in line for line in lines)
    assert question.topic.slug == "imported"


@pytest.mark.parametrize("name", ["qtiworks-choice_multiple.xml", "cito-choice_multiple.xml"])
def test_multiple_response_item_in_qti_2_1_and_3_0(capsys, exam, name):
    _, result = run(capsys, FIXTURES / name, "--exam", exam.slug)
    assert result["imported"] == 1
    question = Question.objects.get()
    assert question.kind == "multiple"
    # Both map the response: the mapping adds up what is chosen, partial credit.
    assert question.scoring == "partial"
    assert seen(question.stem) == "Which of the following elements are used to form water?"
    assert [text for text, correct, _ in options_of(question) if correct] == [
        "Hydrogen",
        "Oxygen",
    ]


@pytest.mark.parametrize("name", ["qtiworks-text_entry.xml", "cito-text_entry.xml"])
def test_text_entry_item_is_a_fill_in(capsys, exam, name):
    lines, result = run(capsys, FIXTURES / name, "--exam", exam.slug)
    assert (result["imported"], result["skipped"]) == (1, [])
    question = Question.objects.get()
    assert (question.kind, question.scoring) == ("fillin", "all")
    assert "Now is the winter of our discontent" in seen(question.stem)
    assert "_____" in seen(question.stem)
    blank = question.parts.get()
    # The mapping gives "York" the full mark and "york" half: only "York" is accepted.
    assert (blank.accepted_texts, blank.match_case) == (["York"], True)
    assert any("partial credit for 'york' is not carried" in line for line in lines)


def test_qti3_modal_feedback_becomes_the_explanation_and_empty_ones_are_ignored(capsys, exam):
    run(capsys, FIXTURES / "cito-QUE_1_1.xml", "--exam", exam.slug)
    question = Question.objects.get()
    explanation = "Het juiste antwoord is: Richting het westen"
    assert seen(question.explanation).split() == explanation.split()
    assert [correct for _, correct, _ in options_of(question)] == [False, False, False, True]


def test_qtiworks_package_sections_become_topics_in_test_order(capsys, exam):
    path = FIXTURES / "qtiworks-WebDeveloperTest1.zip"
    lines, result = run(capsys, path, "--exam", exam.slug)
    assert (result["imported"], result["errors"], result["skipped"]) == (9, [], [])
    assert result["topics_created"] == ["Electronics and Computer Science"]
    texts = [seen(q.exhibit or q.stem) for q in Question.objects.order_by("position")]
    assert [text.split()[:2] for text in texts] == [["Question", str(n)] for n in range(1, 10)]
    # Question 8's two inline choices: drop-downs in its passage, the empty "choose" line gone.
    passage = Question.objects.get(kind="dropdown")
    assert passage.scoring == "partial"
    assert passage.exhibit.count("[[1]]") == passage.exhibit.count("[[2]]") == 1
    first, second = passage.parts.all()
    assert [(o.text, o.is_correct) for o in first.options.all()] == [
        ("in upper case", False), ("in lower case", True)
    ]  # fmt: skip
    assert [o.is_correct for o in second.options.all()] == [False, True, False]
    assert {q.topic.title for q in Question.objects.all()} == {"Electronics and Computer Science"}
    # The image beside the items is stored and shown from our URL. Named .jpg, it is a GIF:
    # its bytes say so, and it is stored and served as one.
    [image] = QuestionMedia.objects.all()
    assert (image.original_name, image.content_type) == ("directory.jpg", "image/gif")
    assert image.url.endswith(".gif")
    assert any(f'<img src="{image.url}"' in q.stem for q in Question.objects.all())
    # Six items share the identifier "choice": they stay six, and a second import updates.
    assert any("'choice' is used by 6 items" in line for line in lines)
    _, again = run(capsys, path, "--exam", exam.slug)
    assert (again["imported"], again["unchanged"]) == (0, 9)
    assert Question.objects.count() == 9


def test_qtiworks_zip_slip_package_is_refused(capsys, exam):
    _, result = refused(capsys, FIXTURES / "qtiworks-ZipSlip.zip", "--exam", exam.slug)
    [error] = result["errors"]
    assert "path out of it (../etc/)" in error["message"]
    assert not Question.objects.exists()


# Made here ----------------------------------------------------------------------------------


def test_inline_feedback_is_the_rationale_and_several_modal_feedbacks_join(capsys, exam, tmp_path):
    body = """<p>Is <code>ping</code> ICMP?</p>
<qti-choice-interaction response-identifier="RESPONSE" max-choices="1">
  <qti-prompt>Pick one.</qti-prompt>
  <qti-simple-choice identifier="A">Yes<qti-feedback-inline outcome-identifier="FEEDBACK"
    identifier="A" show-hide="show">Echo request.</qti-feedback-inline></qti-simple-choice>
  <qti-simple-choice identifier="B">No<qti-feedback-inline outcome-identifier="FEEDBACK"
    identifier="B" show-hide="show">It is.</qti-feedback-inline></qti-simple-choice>
</qti-choice-interaction>"""
    extra = """<qti-modal-feedback outcome-identifier="F" identifier="x" show-hide="show"
 title="Explanation"><qti-content-body><p>ICMP type 8.</p></qti-content-body>
</qti-modal-feedback><qti-modal-feedback outcome-identifier="F" identifier="y" show-hide="show"
 title="Common exam trap"><qti-content-body><p>Not UDP.</p></qti-content-body>
</qti-modal-feedback>"""
    path = write(tmp_path, "ping.xml", item("ping", body, extra=extra))
    run(capsys, path, "--exam", exam.slug)
    question = Question.objects.get()
    assert seen(question.stem).split() == ["Is", "ping", "ICMP?", "Pick", "one."]
    assert options_of(question) == [("Yes", True, "Echo request."), ("No", False, "It is.")]
    assert seen(question.explanation).split() == (
        ["Explanation", "ICMP", "type", "8.", "Common", "exam", "trap", "Not", "UDP."]
    )


def test_untitled_feedbacks_stay_paragraphs_of_their_own(capsys, exam, tmp_path):
    # Modal feedback written as bare text, without a title: each its own paragraph in the
    # explanation, not one run of words ("...8.Not UDP.").
    extra = """<qti-modal-feedback outcome-identifier="F" identifier="x" show-hide="show"
 >ICMP type 8.</qti-modal-feedback><qti-modal-feedback outcome-identifier="F"
 identifier="y" show-hide="show">Not <em>UDP</em>.</qti-modal-feedback>"""
    path = write(tmp_path, "ping.xml", item("ping", CHOICE, extra=extra))
    run(capsys, path, "--exam", exam.slug)
    explanation = Question.objects.get().explanation
    assert explanation.strip() == "<p>ICMP type 8.</p><p>Not <em>UDP</em>.</p>"


def test_true_false_is_a_two_choice_question(capsys, exam, tmp_path):
    path = write(tmp_path, "tf.xml", item("tf", CHOICE, correct="B"))
    run(capsys, path, "--exam", exam.slug)
    assert [correct for _, correct, _ in options_of(Question.objects.get())] == [False, True]


@pytest.mark.parametrize(
    ("body", "correct", "message"),
    [
        (CHOICE, "", "has no correct response"),
        (CHOICE, "C", "names 'C', which is no choice (choices: A, B)"),
    ],
)
def test_invalid_choice_item_is_an_error_with_its_place(
    capsys, exam, tmp_path, body, correct, message
):
    text = item("bad", body, correct=correct)
    if not correct:
        text = text.replace(
            "<qti-correct-response><qti-value></qti-value></qti-correct-response>", ""
        )
    path = write(tmp_path, "bad.xml", text)
    _, result = refused(capsys, path, "--exam", exam.slug)
    [error] = result["errors"]
    assert error["where"].endswith("bad.xml:1")
    assert error["message"].startswith("item 'bad' (T bad): ")
    assert message in error["message"]


@pytest.mark.parametrize(
    ("interaction", "kind"),
    [
        ('<qti-extended-text-interaction response-identifier="RESPONSE"/>', "extended text"),
        ('<qti-hotspot-interaction response-identifier="RESPONSE"/>', "hotspot"),
        ('<qti-select-point-interaction response-identifier="RESPONSE"/>', "select point"),
        ('<qti-upload-interaction response-identifier="RESPONSE"/>', "upload"),
        ('<qti-drawing-interaction response-identifier="RESPONSE"/>', "drawing"),
        ('<qti-media-interaction response-identifier="RESPONSE"/>', "media"),
        # Several interactions of other kinds are a case study (test_import_qti_several.py).
        ("<p>Read this.</p>", "no interaction"),
    ],
)  # fmt: skip
def test_other_items_are_skipped_never_half_imported(capsys, exam, tmp_path, interaction, kind):
    path = write(tmp_path, "other.xml", item("other", interaction))
    _, result = run(capsys, path, "--exam", exam.slug)
    assert [entry["type"] for entry in result["skipped"]] == [kind]
    assert not Question.objects.exists()


ENTITY_BOMB = """<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<assessmentItem xmlns="http://www.imsglobal.org/xsd/imsqti_v2p1"
 identifier="x">&lol3;</assessmentItem>
"""
EXTERNAL_ENTITY = """<?xml version="1.0"?>
<!DOCTYPE item [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<assessmentItem xmlns="http://www.imsglobal.org/xsd/imsqti_v2p1"
 identifier="x">&secret;</assessmentItem>
"""


@pytest.mark.parametrize("text", [ENTITY_BOMB, EXTERNAL_ENTITY])
def test_entities_are_refused_not_expanded(capsys, exam, tmp_path, text):
    path = write(tmp_path, "evil.xml", text)
    _, result = refused(capsys, path, "--exam", exam.slug)
    [error] = result["errors"]
    assert "refused: the XML declares entities" in error["message"]
    assert "root:" not in json.dumps(result)


def test_entity_bomb_inside_a_package_is_refused(capsys, exam, tmp_path):
    raw = package({"imsmanifest.xml": manifest("a.xml"), "a.xml": ENTITY_BOMB})
    _, result = refused(capsys, write(tmp_path, "p.zip", raw), "--exam", exam.slug)
    assert "a.xml: refused: the XML declares entities" in result["errors"][0]["message"]


def _zip_with(name: str, *, mode: int = 0o100644) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("imsmanifest.xml", manifest("a.xml"))
        info = zipfile.ZipInfo(name)
        info.external_attr = mode << 16
        archive.writestr(info, "x")
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (_zip_with("../../etc/cron.d/x"), "a path out of it (../../etc/cron.d/x)"),
        (_zip_with("/etc/passwd"), "an absolute path (/etc/passwd)"),
        (_zip_with("C:/Windows/x"), "an absolute path (C:/Windows/x)"),
        (_zip_with("link", mode=stat.S_IFLNK | 0o777), "a symbolic link (link)"),
        (b"PK\x03\x04 not really a zip", "not a readable zip archive"),
    ],
)
def test_unsafe_packages_are_refused_with_a_clear_message(capsys, exam, tmp_path, raw, message):
    _, result = refused(capsys, write(tmp_path, "p.zip", raw), "--exam", exam.slug)
    [error] = result["errors"]
    assert message in error["message"]
    assert not Question.objects.exists()


def test_too_many_files_are_refused(capsys, exam, tmp_path, monkeypatch):
    monkeypatch.setattr(qti_package, "MAX_PACKAGE_FILES", 3)
    raw = package({"imsmanifest.xml": manifest(), **{f"f{n}.txt": "" for n in range(3)}})
    _, result = refused(capsys, write(tmp_path, "p.zip", raw), "--exam", exam.slug)
    assert "the package has 4 files; packages are read up to 3" in result["errors"][0]["message"]


def test_zip_bomb_is_refused_before_it_is_inflated(capsys, exam, tmp_path):
    # 300 MB of zeros deflate to about 300 kB: refused from the headers' sizes.
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("imsmanifest.xml", manifest("a.xml"))
        with archive.open("a.xml", "w", force_zip64=True) as stream:
            chunk = bytes(1024 * 1024)
            for _ in range(300):
                stream.write(chunk)
    raw = buffer.getvalue()
    assert len(raw) < 1_000_000
    _, result = refused(capsys, write(tmp_path, "bomb.zip", raw), "--exam", exam.slug)
    assert "unpacks to 315 MB; packages are read up to 256 MB" in result["errors"][0]["message"]


def test_package_without_manifest_or_with_missing_item(capsys, exam, tmp_path):
    raw = package({"a.xml": item("a", CHOICE)})
    _, result = refused(capsys, write(tmp_path, "p.zip", raw), "--exam", exam.slug)
    assert "no imsmanifest.xml" in result["errors"][0]["message"]
    raw = package({"imsmanifest.xml": manifest("a.xml", "gone.xml"), "a.xml": item("a", CHOICE)})
    _, result = refused(capsys, write(tmp_path, "q.zip", raw), "--exam", exam.slug)
    assert result["errors"] == [
        {"where": f"{tmp_path / 'q.zip'}:2", "message": "gone.xml: listed but not in the package"}
    ]


def test_nested_sections_and_item_paths_relative_to_the_test(capsys, exam, tmp_path):
    test = f"""<qti-assessment-test xmlns="{QTI3}" identifier="t" title="T">
<qti-test-part identifier="p" navigation-mode="linear" submission-mode="individual">
<qti-assessment-section identifier="s1" title="Networking" visible="true">
  <qti-assessment-section identifier="s2" title="Routing  basics" visible="true">
    <qti-assessment-item-ref identifier="r2" href="../items/b.xml"/>
  </qti-assessment-section>
  <qti-assessment-item-ref identifier="r1" href="../items/a.xml"/>
</qti-assessment-section></qti-test-part></qti-assessment-test>"""
    raw = package(
        {
            "imsmanifest.xml": manifest("items/a.xml", "items/b.xml", test="tests/t.xml"),
            "tests/t.xml": test,
            "items/a.xml": item("a", CHOICE),
            "items/b.xml": item("b", CHOICE),
        }
    )
    _, result = run(capsys, write(tmp_path, "p.zip", raw), "--exam", exam.slug)
    assert result["topics_created"] == ["Routing basics", "Networking"]
    assert [(q.topic.title) for q in Question.objects.order_by("position")] == [
        "Routing basics",
        "Networking",
    ]


def test_dry_run_writes_nothing(capsys, exam):
    _, result = run(
        capsys, FIXTURES / "qtiworks-WebDeveloperTest1.zip", "--exam", exam.slug, "--dry-run"
    )
    assert (result["imported"], result["dry_run"]) == (9, True)
    assert not Question.objects.exists()
    assert not Topic.objects.filter(title="Electronics and Computer Science").exists()


def test_format_is_detected_and_can_be_forced(exam):
    raw = (FIXTURES / "cito-choice.xml").read_bytes()
    assert foreign.detect_format(raw.decode()) == "qti"
    assert foreign_import.read_source("x", raw).bank.format == "qti"
    zipped = (FIXTURES / "qtiworks-WebDeveloperTest1.zip").read_bytes()
    assert foreign_import.read_source("x", zipped, "qti").bank.questions
    assert foreign_import.read_source("x", zipped).bank.format == "qti"


def test_a_test_file_alone_says_to_import_the_package(capsys, exam, tmp_path):
    test = f'<qti-assessment-test xmlns="{QTI3}" identifier="t" title="T"/>'
    _, result = refused(capsys, write(tmp_path, "t.xml", test), "--exam", exam.slug)
    assert "import the content package (zip)" in result["errors"][0]["message"]


def test_exit_status_without_exam(exam):
    with pytest.raises(CommandError, match="--exam"):
        call_command("import_bank", str(FIXTURES / "qtiworks-choice.xml"))


# QTI 3.0 export and the round trip -----------------------------------------------------------


def test_export_qti3_then_import_gives_the_same_questions(capsys, tmp_path):
    from tests.factories import ExamFactory

    call_command("import_bank", str(Path(__file__).parent / "data" / "sample-bank.json"))
    capsys.readouterr()
    source = list(
        Question.objects.filter(topic__exam__slug="cloud-ml-engineer").order_by("position")
    )
    package_path = tmp_path / "bank.zip"
    call_command(
        "export_bank", "--format", "qti3", "-o", str(package_path), "--exam", "cloud-ml-engineer"
    )
    with zipfile.ZipFile(package_path) as archive:
        names = archive.namelist()
        item_xml = archive.read(f"items/{source[0].uid}.xml").decode()
    assert "imsmanifest.xml" in names
    assert "tests/cloud-ml-engineer.xml" in names
    assert "<qti-feedback-inline" in item_xml
    assert "<qti-modal-feedback" in item_xml

    fresh = ExamFactory(slug="fresh")
    _, result = run(capsys, package_path, "--exam", "fresh")
    assert (result["imported"], result["errors"], result["skipped"]) == (len(source), [], [])
    copied = list(Question.objects.filter(topic__exam=fresh).order_by("position"))
    assert [q.topic.title for q in copied] == [q.topic.title for q in source]
    for original, copy in zip(source, copied, strict=True):
        assert seen(copy.stem).split() == seen(original.stem).split()
        assert copy.kind == original.kind
        assert [(" ".join(t.split()), c) for t, c, _ in options_of(copy)] == [
            (" ".join(t.split()), c) for t, c, _ in options_of(original)
        ]
        assert [seen(why).split() for _, _, why in options_of(copy)] == [
            seen(why).split() for _, _, why in options_of(original)
        ]
        expected = seen(original.explanation).split()
        if original.trap:
            expected = [
                "Explanation",
                *expected,
                "Common",
                "exam",
                "trap",
                *seen(original.trap).split(),
            ]
        assert seen(copy.explanation).split() == expected

    _, again = run(capsys, package_path, "--exam", "fresh")
    assert (again["imported"], again["updated"], again["unchanged"]) == (0, 0, len(source))
    assert Question.objects.filter(topic__exam=fresh).count() == len(source)


def test_export_qti3_needs_an_output_file():
    with pytest.raises(CommandError, match="writes a zip: give -o"):
        call_command("export_bank", "--format", "qti3")


def test_rationale_of_paragraphs_is_a_feedback_block_and_comes_back(capsys, tmp_path):
    """QTI 3 allows only inline content in qti-feedback-inline: a rationale of paragraphs or
    a list goes in a qti-feedback-block of its choice, and is read back as its rationale."""
    from tests.factories import ExamFactory

    call_command("import_bank", str(Path(__file__).parent / "data" / "sample-bank.json"))
    capsys.readouterr()
    question = Question.objects.filter(topic__exam__slug="cloud-ml-engineer").first()
    first, second, *_ = question.options.select_related("rationale")
    first.rationale.why = "First paragraph with `code`.\n\nSecond paragraph, **bold**."
    first.rationale.save()
    second.rationale.why = "Because:\n\n- one\n- two"
    second.rationale.save()
    package_path = tmp_path / "bank.zip"
    call_command(
        "export_bank", "--format", "qti3", "-o", str(package_path), "--exam", "cloud-ml-engineer"
    )
    with zipfile.ZipFile(package_path) as archive:
        root = qti.parse_xml(archive.read(f"items/{question.uid}.xml"), "item")
    inline = {"a", "b", "br", "code", "em", "i", "img", "span", "strong", "sub", "sup"}
    for feedback in root.iter(f"{{{QTI3}}}qti-feedback-inline"):
        assert {child.tag.rpartition("}")[2] for child in feedback.iter()} - inline == {
            "qti-feedback-inline"
        }
    choices = root.findall(f".//{{{QTI3}}}qti-simple-choice")
    blocks = [choice.find(f"{{{QTI3}}}qti-feedback-block") for choice in choices]
    assert [block is not None for block in blocks] == [True, True] + [False] * (len(choices) - 2)
    assert blocks[0].get("identifier") == "A"
    assert blocks[0].find(f"{{{QTI3}}}qti-content-body/{{{QTI3}}}p") is not None

    fresh = ExamFactory(slug="fresh")
    run(capsys, package_path, "--exam", "fresh")
    copy = Question.objects.get(topic__exam=fresh, position=question.position)
    assert [seen(why).split() for _, _, why in options_of(copy)] == [
        seen(why).split() for _, _, why in options_of(question)
    ]
    assert seen(copy.options.first().rationale.why).split("\n") == [
        "First paragraph with code.",
        "Second paragraph, bold.",
    ]
    assert "paragraph" not in copy.explanation


def test_feedback_block_of_a_choice_is_its_rationale_not_the_explanation(capsys, exam, tmp_path):
    body = """<qti-choice-interaction response-identifier="RESPONSE" max-choices="1">
  <qti-prompt>Is ping ICMP?</qti-prompt>
  <qti-simple-choice identifier="A">Yes<qti-feedback-block outcome-identifier="FEEDBACK"
    identifier="A" show-hide="show"><qti-content-body><p>Echo request.</p><p>Type 8.</p>
    </qti-content-body></qti-feedback-block></qti-simple-choice>
  <qti-simple-choice identifier="B">No</qti-simple-choice>
</qti-choice-interaction>
<qti-feedback-block outcome-identifier="F" identifier="x" show-hide="show">
  <qti-content-body><p>ICMP.</p></qti-content-body></qti-feedback-block>"""
    run(capsys, write(tmp_path, "ping.xml", item("ping", body)), "--exam", exam.slug)
    question = Question.objects.get()
    assert [(text, correct) for text, correct, _ in options_of(question)] == [
        ("Yes", True),
        ("No", False),
    ]
    assert [seen(why).split() for _, _, why in options_of(question)] == [
        ["Echo", "request.", "Type", "8."],
        [],
    ]
    assert seen(question.explanation).split() == ["ICMP."]


@pytest.mark.parametrize(
    "raw",
    [
        # Parsed by defusedxml, not the fast path: a DTD without entities, and UTF-16.
        item("dtd", CHOICE).replace("?>\n", "?>\n<!DOCTYPE qti-assessment-item>\n", 1),
        item("utf16", CHOICE).replace('encoding="UTF-8"', 'encoding="UTF-16"').encode("utf-16"),
    ],
)
def test_items_with_a_dtd_or_in_utf_16_are_read_as_before(raw):
    root = qti.parse_xml(raw, "f")
    [question] = qti_package.read_package(
        package({"imsmanifest.xml": manifest("a.xml"), "a.xml": raw})
    ).questions
    assert qti.name_of(root) == "assessmentItem"
    assert [option.text for option in question.options] == ["Yes", "No"]


def section_ref_package(*, section: str, extra: dict[str, str] | None = None) -> bytes:
    test = f"""<qti-assessment-test xmlns="{QTI3}" identifier="t" title="T">
<qti-test-part identifier="p" navigation-mode="linear" submission-mode="individual">
<qti-assessment-section identifier="s0" title="Networking" visible="true">
  <qti-assessment-item-ref identifier="r1" href="../items/a.xml"/>
  <qti-assessment-section-ref identifier="s1" href="../sections/routing.xml"/>
</qti-assessment-section></qti-test-part></qti-assessment-test>"""
    return package(
        {
            "imsmanifest.xml": manifest(test="tests/t.xml"),
            "tests/t.xml": test,
            "sections/routing.xml": section,
            "items/a.xml": item("a", CHOICE),
            "items/b.xml": item("b", CHOICE),
            "items/c.xml": item("c", CHOICE),
            **(extra or {}),
        }
    )


def test_section_refs_are_read_from_their_files_relative_to_them():
    # The section refers to itself too: read once, never in a loop.
    routing = f"""<qti-assessment-section xmlns="{QTI3}" identifier="s1" title="Routing  basics"
 visible="true"><qti-assessment-item-ref identifier="r2" href="../items/b.xml"/>
<qti-assessment-section-ref identifier="s2" href="more/static.xml"/>
<qti-assessment-section-ref identifier="s1" href="routing.xml"/></qti-assessment-section>"""
    static = f"""<assessmentSection xmlns="{QTI21}" identifier="s3" title="Static routes"
 visible="true"><assessmentItemRef identifier="r3" href="../../items/c.xml"/>
</assessmentSection>"""
    bank = qti_package.read_package(
        section_ref_package(section=routing, extra={"sections/more/static.xml": static})
    )
    assert (bank.errors, bank.skipped) == ([], [])
    assert [(q.identifier, q.category) for q in bank.questions] == [
        ("a", ("Networking",)),
        ("b", ("Networking", "Routing basics")),
        ("c", ("Networking", "Routing basics", "Static routes")),
    ]


@pytest.mark.parametrize(
    ("section", "message"),
    [
        (item("x", CHOICE), "sections/routing.xml: not a QTI assessment section"),
        ("<nope", "sections/routing.xml: not well-formed XML"),
    ],
)
def test_a_section_ref_to_no_section_is_an_error(section, message):
    bank = qti_package.read_package(section_ref_package(section=section))
    assert [error.message.split(" (")[0] for error in bank.errors] == [message]
    assert bank.questions == []


def test_a_section_ref_to_a_missing_file_is_an_error():
    raw = section_ref_package(section="")
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        files = {name: archive.read(name) for name in archive.namelist()}
    del files["sections/routing.xml"]
    bank = qti_package.read_package(package(files))
    assert [error.message for error in bank.errors] == [
        "tests/t.xml: its section sections/routing.xml is not in the package"
    ]


# Nesting: the item's content is read recursively, and was a RecursionError from about 500
# levels; every depth past the limit is now the same listed error. -------------------------


@pytest.mark.parametrize("depth", [101, 1_500, 100_000])
def test_an_item_nested_too_deep_is_an_error_at_any_depth(capsys, exam, tmp_path, depth):
    body = "<div>" * depth + "Deep?" + "</div>" * depth + CHOICE
    _, result = refused(capsys, write(tmp_path, "deep.xml", item("d", body)), "--exam", exam.slug)
    [error] = result["errors"]
    assert error["message"] == (
        "the file: nested more than 100 levels deep: refused (a bank needs about ten)"
    )
    assert not Question.objects.exists()


def test_in_a_package_the_deep_item_is_an_error_and_the_others_import(capsys, exam, tmp_path):
    deep = item("d", "<div>" * 1_500 + "</div>" * 1_500 + CHOICE)
    raw = package(
        {"imsmanifest.xml": manifest("a.xml", "d.xml"), "a.xml": item("a", CHOICE), "d.xml": deep}
    )
    _, result = refused(capsys, write(tmp_path, "p.zip", raw), "--exam", exam.slug)
    assert [error["message"] for error in result["errors"]] == [
        "d.xml: nested more than 100 levels deep: refused (a bank needs about ten)"
    ]
    _, result = run(capsys, write(tmp_path, "p.zip", raw), "--exam", exam.slug, "--skip-invalid")
    assert result["imported"] == 1


def test_sections_nested_file_in_file_too_deep_are_an_error():
    # Each section file refers to the next: every file is shallow, the chain is not.
    files = {
        f"sections/s{n}.xml": f'<qti-assessment-section xmlns="{QTI3}" identifier="s{n}" '
        f'title="S{n}" visible="true"><qti-assessment-section-ref identifier="s{n + 1}" '
        f'href="s{n + 1}.xml"/></qti-assessment-section>'
        for n in range(1, 1_000)
    }
    bank = qti_package.read_package(
        section_ref_package(section=files.pop("sections/s1.xml"), extra=files)
    )
    # The test's own section is the first level, s1 the second: s100 is the 101st.
    assert [error.message for error in bank.errors] == [
        "sections/s100.xml: its sections are nested more than 100 levels deep: refused "
        "(a bank needs about ten)"
    ]
    assert bank.questions == []
