"""`manage.py import_bank` with Moodle XML files: Moodle's own fixtures
(tests/data/foreign/README.md) and hostile files made here; and `export_bank --format
moodle-xml` read back by the import."""

import html
import json
import re
from pathlib import Path

import pytest
from django.core.management import call_command

from questions.bank.formats import foreign, moodle_xml
from questions.markup import render_markdown
from questions.models import Exam, Option, Question, QuestionMedia, Topic
from tests.factories import ExamFactory, TopicFactory
from tests.foreign_files import FIXTURES, refused, run, write

pytestmark = pytest.mark.django_db

SAMPLE_BANK = Path(__file__).parent / "data" / "sample-bank.json"


@pytest.fixture
def exam():
    exam = ExamFactory(slug="moodle-basics")
    TopicFactory(exam=exam, slug="general", title="General", weight=100)
    return exam


def seen(markdown: str) -> str:
    """What a learner reads: the rendered HTML's text, spaces collapsed."""
    text = html.unescape(re.sub(r"<[^>]+>", " ", str(render_markdown(markdown))))
    return " ".join(text.split())


def options_of(question: Question) -> list[tuple[str, bool, str]]:
    return [
        (seen(option.text), option.is_correct, seen(option.rationale.why))
        for option in question.options.select_related("rationale")
    ]


def quiz(*questions: str) -> str:
    return '<?xml version="1.0" encoding="UTF-8"?>\n<quiz>\n' + "\n".join(questions) + "\n</quiz>\n"


def multichoice(name: str, answers: str, single: str = "true") -> str:
    return (
        f'<question type="multichoice"><name><text>{name}</text></name>'
        '<questiontext format="html"><text>Which?</text></questiontext>'
        f"<single>{single}</single>{answers}</question>"
    )


# Real files ---------------------------------------------------------------------------------


def test_moodle_nested_categories_become_topics_and_the_essay_is_skipped(capsys, exam):
    path = FIXTURES / "moodle-nested_categories_with_questions.xml"
    _, result = run(capsys, path, "--exam", exam.slug)
    assert result["format"] == "moodle-xml"
    assert (result["imported"], result["errors"]) == (4, [])
    assert result["topics_created"] == ["Iota", "Kappa", "Lambda", "Mu"]
    [skipped] = result["skipped"]
    assert skipped["where"].endswith("moodle-nested_categories_with_questions.xml:55")
    assert skipped["type"] == "essay"
    assert "“Kappa Essay Question”" in skipped["reason"]
    question = Question.objects.get(topic__slug="lambda")
    assert seen(question.stem) == "Testing Lambda Question"
    assert question.kind == "single"
    assert options_of(question) == [("True", True, ""), ("False", False, "")]
    assert question.uid.startswith("lambda-question-")


def test_moodle_multichoice_keeps_feedback_stores_images_and_marks_other_files(capsys, exam):
    lines, result = run(capsys, FIXTURES / "moodle-multichoice-excerpt.xml", "--exam", exam.slug)
    assert (result["imported"], result["skipped"], result["errors"]) == (1, [], [])
    question = Question.objects.get()
    assert question.topic.title == "Multichoice"
    assert "[file: bonjour.mp3]" in seen(question.stem)
    assert "@@PLUGINFILE@@" not in question.stem
    assert options_of(question) == [
        ("English", False, "Sorry, listen again."),
        ("French", True, "Yes, well done!"),
        ("German", False, "Sorry, listen again."),
        ("Danish", False, "Sorry, listen again."),
    ]
    # The four flags are the same (truncated) JPEG bytes: stored once, each keeps its alt.
    [image] = QuestionMedia.objects.all()
    texts = [option.text for option in question.options.all()]
    assert all(f'<img src="{image.url}"' in text for text in texts)
    assert 'alt="French flag"' in str(render_markdown(texts[1]))
    assert any("bonjour.mp3" in line and "not imported" in line for line in lines)
    assert not any("flag-france.jpg" in line for line in lines)


def test_moodle_select_all_with_uneven_and_negative_grades(capsys, exam):
    path = FIXTURES / "moodle-error_invalid_grades.xml"
    lines, result = run(capsys, path, "--exam", exam.slug)
    assert result["imported"] == 1
    question = Question.objects.get()
    # Moodle adds up the fractions of the options chosen: partial credit. Its unequal
    # weights (33 and 33.33333) are noted: ours are equal shares.
    assert (question.kind, question.scoring) == ("multiple", "partial")
    assert any("unequal weights (33%, 33.3333%, 33.3333%)" in line for line in lines)
    # Moodle refuses a grade of 33 (not one of its fractions); what the author meant is clear:
    # the positive ones are the primes.
    assert [(text, correct) for text, correct, _ in options_of(question)] == [
        ("1", False),
        ("2", True),
        ("3", True),
        ("4", False),
        ("5", True),
    ]
    assert "style" not in "".join(text for text, _, _ in options_of(question))
    # Moodle's default "Your answer is correct." says nothing a curator would miss.
    assert not [line for line in lines if "feedback is not imported" in line]


def test_moodle_old_image_field_and_cloze(capsys, exam):
    path = FIXTURES / "moodle-sample_questions_with_old_image_tag.xml"
    _, result = run(capsys, path, "--exam", exam.slug)
    # The cloze mixes drop-downs and a typed answer: tests/test_import_moodle_xml_types.py.
    assert result["imported"] == 2
    assert result["skipped"] == []
    question = Question.objects.get(kind="single")
    assert seen(question.stem).endswith("Moodle 1.9")
    [image] = QuestionMedia.objects.all()
    assert f"![moodle.png]({image.url})" in question.stem
    assert [(text, correct) for text, correct, _ in options_of(question)] == [
        ("wrong answer", False),
        ("another wrong answer", False),
        ("right answer", True),
    ]


def test_moodle_entities_in_text_are_decoded(capsys, exam):
    run(capsys, FIXTURES / "moodle-html_chars_in_idnumbers.xml", "--exam", exam.slug)
    assert Topic.objects.filter(exam=exam, title="Alpha").exists()
    assert seen(Question.objects.get().stem) == "Testing Alpha Question"


# Mapping, made here -------------------------------------------------------------------------


def test_multiple_answers_general_feedback_and_formats(capsys, exam, tmp_path):
    answers = (
        '<answer fraction="50"><text>&lt;b&gt;A&lt;/b&gt;</text>'
        '<feedback format="plain_text"><text>A is *half*</text></feedback></answer>'
        '<answer fraction="50" format="markdown"><text>**B**</text></answer>'
        '<answer fraction="-100" format="plain_text"><text>&lt;C&gt;</text></answer>'
    )
    text = quiz(
        '<question type="category"><category><text>$course$/top/Net//Sec/Routing</text>'
        "</category></question>",
        multichoice("Pick two", answers, single="false").replace(
            "<single>",
            '<generalfeedback format="moodle_auto_format"><text>Line one\nline two</text>'
            "</generalfeedback><single>",
        ),
    )
    _, result = run(capsys, write(tmp_path, "q.xml", text), "--exam", exam.slug)
    assert result["topics_created"] == ["Routing"]
    question = Question.objects.get()
    assert question.kind == "multiple"
    assert options_of(question) == [("A", True, "A is *half*"), ("B", True, ""), ("<C>", False, "")]
    assert "<b>A</b>" in str(render_markdown(question.options.first().text))
    assert "<br" in str(render_markdown(question.explanation))


def test_single_answer_partial_credit_is_a_note_and_the_option_wrong(capsys, exam, tmp_path):
    answers = (
        '<answer fraction="100"><text>Right</text></answer>'
        '<answer fraction="50"><text>Half</text></answer>'
        '<answer fraction="0"><text>Wrong</text></answer>'
    )
    lines, _ = run(
        capsys, write(tmp_path, "q.xml", quiz(multichoice("P", answers))), "--exam", exam.slug
    )
    assert [correct for _, correct, _ in options_of(Question.objects.get())] == [True, False, False]
    assert any("partial credit (50%) for 'Half'" in line for line in lines)


def test_per_result_feedback_is_reported_not_shown_to_everyone(capsys, exam, tmp_path):
    answers = (
        '<answer fraction="100"><text>Right</text><feedback><text>Yes</text></feedback></answer>'
        '<answer fraction="0"><text>Wrong</text><feedback><text>No</text></feedback></answer>'
    )
    combined = (
        "<correctfeedback><text>Well done!</text></correctfeedback>"
        "<partiallycorrectfeedback><text></text></partiallycorrectfeedback>"
        "<incorrectfeedback><text>Read chapter 3.</text></incorrectfeedback>"
    )
    xml = quiz(multichoice("Combined", answers + combined), multichoice("Plain", answers))
    lines, result = run(capsys, write(tmp_path, "q.xml", xml), "--exam", exam.slug)
    assert result["imported"] == 2
    assert result["errors"] == []
    noted = [line for line in lines if "feedback is not imported" in line]
    assert len(noted) == 1
    assert "Combined" in noted[0]
    assert "right-answer, wrong-answer feedback" in noted[0]
    assert not Question.objects.filter(explanation__contains="Well done").exists()
    assert [why for _, _, why in options_of(Question.objects.order_by("position")[0])] == [
        "Yes",
        "No",
    ]


def test_skipped_types_are_reported_with_type_and_place(capsys, exam, tmp_path):
    """What no machine can mark here: each with its type and a reason."""
    kinds = ["essay", "description", "ddmarker", "ddimageortext", "random", "whatever"]
    text = quiz(
        *(
            f'<question type="{kind}"><name><text>Q {kind}</text></name></question>'
            for kind in kinds
        )
    )
    _, result = run(capsys, write(tmp_path, "q.xml", text), "--exam", exam.slug)
    assert [(item["type"], item["reason"]) for item in result["skipped"]] == [
        ("essay", "question 1 “Q essay”: an essay is marked by a person: no machine can grade it"),
        ("description", "question 2 “Q description”: a description with no question after it "
         "in its category: not a question, and no scenario"),
        ("ddmarker", "question 3 “Q ddmarker”: it is answered on an image's regions, "
         "which no question type here has"),
        ("ddimageortext", "question 4 “Q ddimageortext”: it is answered on an image's regions, "
         "which no question type here has"),
        ("random", "question 5 “Q random”: not a question: Moodle draws one from a category"),
        ("whatever", "question 6 “Q whatever”: whatever questions have no place in "
         "Courseiva's bank"),
    ]  # fmt: skip
    assert result["imported"] == 0


def test_a_multichoice_without_a_right_answer_is_an_error_then_skip_invalid(capsys, exam, tmp_path):
    text = quiz(
        multichoice("Good", '<answer fraction="100"><text>a</text></answer>'
                    '<answer fraction="0"><text>b</text></answer>'),
        multichoice("Bad", '<answer fraction="0"><text>a</text></answer>'
                    '<answer fraction="0"><text>b</text></answer>'),
    )  # fmt: skip
    path = write(tmp_path, "q.xml", text)
    _, result = refused(capsys, path, "--exam", exam.slug)
    [error] = result["errors"]
    assert error["where"].endswith("q.xml:4")
    assert "question 2 “Bad”: no right answer" in error["message"]
    assert not Question.objects.exists()
    _, result = run(capsys, path, "--exam", exam.slug, "--skip-invalid")
    assert result["imported"] == 1


def test_dry_run_writes_nothing(capsys, exam):
    path = FIXTURES / "moodle-nested_categories_with_questions.xml"
    _, result = run(capsys, path, "--exam", exam.slug, "--dry-run")
    assert (result["imported"], result["dry_run"]) == (4, True)
    assert not Question.objects.exists()
    assert not Topic.objects.filter(slug="iota").exists()


def test_detection_and_explicit_format(capsys, exam, tmp_path):
    text = (FIXTURES / "moodle-html_chars_in_idnumbers.xml").read_text()
    assert foreign.detect_format(text) == "moodle-xml"
    path = write(tmp_path, "bank.txt", text)
    _, result = run(capsys, path, "--exam", exam.slug, "--format", "moodle-xml")
    assert result["imported"] == 1


# Hostile files ------------------------------------------------------------------------------

BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE quiz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<quiz><question type="multichoice"><name><text>&lol9;</text></name></question></quiz>
"""

EXTERNAL_ENTITY = """<?xml version="1.0"?>
<!DOCTYPE quiz [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<quiz><question type="truefalse"><questiontext><text>&secret;</text></questiontext>
<answer fraction="100"><text>true</text></answer><answer fraction="0"><text>false</text></answer>
</question></quiz>
"""


def test_an_entity_bomb_is_refused_never_expanded(capsys, exam, tmp_path):
    _, result = refused(capsys, write(tmp_path, "bomb.xml", BILLION_LAUGHS), "--exam", exam.slug)
    [error] = result["errors"]
    assert "declares an entity 'lol': refused, never expanded" in error["message"]
    assert not Question.objects.exists()


def test_an_external_entity_is_refused_never_read(capsys, exam, tmp_path):
    path = write(tmp_path, "xxe.xml", EXTERNAL_ENTITY)
    _, result = refused(capsys, path, "--exam", exam.slug, "--format", "moodle-xml")
    [error] = result["errors"]
    assert "external entity 'secret' (file:///etc/passwd): refused, never read" in error["message"]
    assert "root:" not in json.dumps(result)
    assert not Question.objects.exists()


def test_broken_xml_is_an_error_with_its_line(capsys, exam, tmp_path):
    text = "<quiz>\n<question type='truefalse'>\n<name><text>x</name>\n</question>\n</quiz>\n"
    path = write(tmp_path, "broken.xml", text)
    _, result = refused(capsys, path, "--exam", exam.slug)
    [error] = result["errors"]
    assert error["where"].endswith("broken.xml:3")
    assert error["message"].startswith("not well-formed XML: mismatched tag")


def test_a_file_over_the_size_limit_is_refused_unread(capsys, exam, tmp_path, monkeypatch):
    monkeypatch.setattr(foreign, "MAX_FILE_BYTES", 1000)
    monkeypatch.setattr("questions.bank.foreign_import.MAX_FILE_BYTES", 1000)
    monkeypatch.setattr(moodle_xml, "MAX_FILE_BYTES", 1000)
    text = quiz(*[multichoice(f"Q{n}", '<answer fraction="100"><text>a</text></answer>')
                  for n in range(20)])  # fmt: skip
    _, result = refused(capsys, write(tmp_path, "huge.xml", text), "--exam", exam.slug)
    assert "foreign banks are read up to" in result["errors"][0]["message"]
    assert moodle_xml.read(text).errors[0].message.startswith("the file is over")


def test_wrong_encoding_is_refused(capsys, exam, tmp_path):
    # Bytes that are neither UTF-8 nor Windows-1252 text (0x81 is undefined there).
    raw = quiz(multichoice("Q", '<answer fraction="100"><text>a</text></answer>')).encode()
    path = write(tmp_path, "bad.xml", raw.replace(b"Which?", b"Which\x81?"))
    _, result = refused(capsys, path, "--exam", exam.slug, "--format", "moodle-xml")
    assert "is not UTF-8" in result["errors"][0]["message"]
    # UTF-16 with a BOM is read, whatever the XML declaration says.
    utf16 = (FIXTURES / "moodle-html_chars_in_idnumbers.xml").read_text().encode("utf-16")
    _, result = run(capsys, write(tmp_path, "utf16.xml", utf16), "--exam", exam.slug)
    assert result["imported"] == 1


def test_re_import_updates_and_never_duplicates(capsys, exam):
    path = FIXTURES / "moodle-nested_categories_with_questions.xml"
    run(capsys, path, "--exam", exam.slug)
    uids = set(Question.objects.values_list("uid", flat=True))
    _, result = run(capsys, path, "--exam", exam.slug)
    assert (result["imported"], result["updated"], result["unchanged"]) == (0, 0, 4)
    assert set(Question.objects.values_list("uid", flat=True)) == uids
    assert Option.objects.count() == 8


# Export and round trip ----------------------------------------------------------------------


def test_export_moodle_xml_reads_back_as_the_same_questions(capsys, tmp_path):
    call_command("import_bank", str(SAMPLE_BANK))
    source = Exam.objects.get(slug="cloud-ml-engineer")
    bank = tmp_path / "bank.xml"
    call_command("export_bank", "--format", "moodle-xml", "-o", str(bank), "--exam", source.slug)
    capsys.readouterr()
    text = bank.read_text()
    assert foreign.detect_format(text) == "moodle-xml"
    assert "<text>$course$/top/CMLE/" in text
    target = ExamFactory(slug="round-trip")
    _, result = run(capsys, bank, "--exam", target.slug)
    originals = list(Question.objects.filter(topic__exam=source).order_by("position"))
    assert (result["imported"], result["skipped"], result["errors"]) == (len(originals), [], [])
    copies = list(Question.objects.filter(topic__exam=target).order_by("position"))
    for original, copy in zip(originals, copies, strict=True):
        assert seen(copy.stem) == seen(original.stem)
        assert copy.kind == original.kind
        assert copy.topic.title == original.topic.title
        assert seen(original.explanation) in seen(copy.explanation)
        if original.trap:
            assert f"Common exam trap {seen(original.trap)}" in seen(copy.explanation)
        for mine, theirs in zip(
            original.options.select_related("rationale"),
            copy.options.select_related("rationale"),
            strict=True,
        ):
            assert seen(theirs.text) == seen(mine.text)
            assert theirs.is_correct == mine.is_correct
            assert seen(theirs.rationale.why).startswith(seen(mine.rationale.why))
    # A second import of the same file updates nothing and duplicates nothing.
    _, result = run(capsys, bank, "--exam", target.slug)
    assert (result["imported"], result["updated"], result["unchanged"]) == (0, 0, len(originals))
    assert Question.objects.filter(topic__exam=target).count() == len(originals)


def test_export_json_stays_the_default(capsys, tmp_path):
    call_command("import_bank", str(SAMPLE_BANK))
    capsys.readouterr()
    call_command("export_bank")
    assert json.loads(capsys.readouterr().out)["format"] == "courseiva-bank"


@pytest.mark.parametrize("depth", [101, 100_000])
def test_a_file_nested_too_deep_is_refused_at_any_depth(capsys, exam, tmp_path, depth):
    text = quiz(multichoice("Deep", '<answer fraction="100"><text>a</text></answer>')).replace(
        "<quiz>", "<quiz>" + "<x>" * depth + "</x>" * depth
    )
    _, result = refused(capsys, write(tmp_path, "deep.xml", text), "--exam", exam.slug)
    assert [error["message"] for error in result["errors"]] == [
        "the file is nested more than 100 levels deep: refused (a bank needs about ten)"
    ]
    assert not Question.objects.exists()
