"""Moodle XML's question types beyond choice, read into ours: the files are Moodle's own
fixtures and amc2moodle's sample bank (tests/data/foreign/README.md), and files written here
for what they lack."""

import re
from decimal import Decimal

import pytest
from django.core.management import call_command

from questions.markup import render_markdown
from questions.models import Question
from tests import items
from tests.factories import ExamFactory, TopicFactory
from tests.foreign_files import FIXTURES, run, write

pytestmark = pytest.mark.django_db


@pytest.fixture
def exam():
    exam = ExamFactory(slug="moodle-types")
    TopicFactory(exam=exam, slug="general", title="General", weight=100)
    return exam


def shown(markdown: str) -> str:
    """The HTML a learner's page gets, runs of spaces one."""
    return re.sub(r"\s+", " ", str(render_markdown(markdown))).replace("> <", "><").strip()


def test_amc2moodle_stems_survive_an_export_and_an_import(capsys, exam, tmp_path):
    """amc2moodle's Markdown question has level-1 and level-2 headings, which our pages keep
    for themselves: they become level 3 rather than bare text that an HTML round trip then
    wraps in a paragraph. Its HTML table has a caption, which the allow-list drops: its text
    stands before the table from the first import on, not inside it."""
    run(capsys, FIXTURES / "amc2moodle-moodle-bank-exemple.xml", "--exam", exam.slug)
    choices = ["single", "multiple"]
    originals = list(Question.objects.filter(topic__exam=exam, kind__in=choices))
    markdown = next(q for q in originals if q.stem.startswith("Go to your editor preferences"))
    assert "<h3>Main title</h3>" in shown(markdown.stem)
    assert "<h3>Basic text formatting</h3>" in shown(markdown.stem)
    bank = tmp_path / "bank.xml"
    call_command("export_bank", "--format", "moodle-xml", "-o", str(bank), "--exam", exam.slug)
    target = ExamFactory(slug="round-trip")
    run(capsys, bank, "--exam", target.slug)
    copies = list(Question.objects.filter(topic__exam=target, kind__in=choices))
    # The two calculated multiple choices among them, each one instance of its numbers.
    assert len(copies) == len(originals) == 7
    for original, copy in zip(originals, copies, strict=True):
        assert shown(copy.stem) == shown(original.stem)


def test_moodles_cloze_of_choices_and_a_short_answer_is_an_exhibit_of_mixed_gaps(
    capsys, exam, client
):
    """Moodle's fixture mixes four MULTICHOICE parts with a SHORTANSWER one: reported as
    unsupported before, now drop-downs with a gap typed in, each in its place."""
    path = FIXTURES / "moodle-sample_questions_with_old_image_tag.xml"
    lines, result = run(capsys, path, "--exam", exam.slug)
    assert result["skipped"] == []
    cloze = Question.objects.get(kind="dropdown")
    assert cloze.scoring == "partial"
    assert cloze.stem == "Complete each gap: choose the right word, or type the answer."
    assert "San Francisco: [[1]]" in cloze.exhibit
    assert "The capital of France is [[5]]." in cloze.exhibit
    gaps = list(cloze.parts.all())
    assert [gap.options.count() for gap in gaps] == [2, 2, 2, 2, 0]
    paris = gaps[4]
    assert (paris.accepted_texts, paris.number, paris.match_case) == (["Paris"], None, False)
    assert "Marseille" in " ".join(lines)  # its 50% is reported, not carried
    right = [o.text for o in cloze.options.filter(is_correct=True)]
    assert right == ["California", "Arizona", "California", "Arizona"]
    cloze.status = "published"  # imports land in review
    cloze.save()
    page = items.page_of(cloze)
    text = client.get(cloze.get_absolute_url()).text
    assert 'aria-label="Blank 5: Gap 5"' in text
    assert "Paris" not in text
    response = client.post(cloze.get_absolute_url(), items.right_post(page))
    assert "✓</span> Correct" in response.text


def quiz(*questions: str) -> str:
    return '<?xml version="1.0" encoding="UTF-8"?>\n<quiz>\n' + "\n".join(questions) + "\n</quiz>\n"


def question(kind: str, name: str, body: str, text: str = "Which?") -> str:
    return (
        f'<question type="{kind}"><name><text>{name}</text></name>'
        f'<questiontext format="html"><text><![CDATA[{text}]]></text></questiontext>'
        f"{body}</question>"
    )


EVERY_TYPE = quiz(
    '<question type="category"><category><text>$course$/top/Networks</text></category></question>',
    '<question type="description"><name><text>Branch office</text></name>'
    '<questiontext format="html"><text><![CDATA[<p>The branch has <b>one</b> router.'
    "<script>alert(1)</script></p>]]></text></questiontext></question>",
    question(
        "matching",
        "Ports",
        '<subquestion format="html"><text>DNS</text><answer><text>53</text></answer></subquestion>'
        '<subquestion format="html"><text>HTTPS</text><answer><text>443</text></answer>'
        "</subquestion>"
        '<subquestion format="html"><text></text><answer><text>80</text></answer></subquestion>',
        "Match each protocol with its port.",
    ),
    question(
        "ordering",
        "DHCP",
        "<gradingtype>ALL_OR_NOTHING</gradingtype>"
        '<answer fraction="1"><text>Discover</text></answer>'
        '<answer fraction="2"><text>Offer</text></answer>'
        '<answer fraction="3"><text>Request</text><feedback><text>Broadcast.</text></feedback>'
        "</answer>",
        "Order the steps.",
    ),
    question(
        "kprime",
        "Statements",
        "<scoringmethod><text>subpoints</text></scoringmethod>"
        + "".join(
            f'<row number="{n}"><optiontext format="html"><text>Statement {n}</text></optiontext>'
            f'<feedbacktext format="html"><text>Because {n}.</text></feedbacktext></row>'
            for n in (1, 2, 3, 4)
        )
        + '<column number="1"><responsetext><text>True</text></responsetext></column>'
        + '<column number="2"><responsetext><text>False</text></responsetext></column>'
        + "".join(
            f'<weight rownumber="{n}" columnnumber="1"><value>{1 if n % 2 else 0}.000</value>'
            f'</weight><weight rownumber="{n}" columnnumber="2"><value>{0 if n % 2 else 1}.000'
            "</value></weight>"
            for n in (1, 2, 3, 4)
        ),
        "Judge each statement.",
    ),
    '<question type="category"><category><text>$course$/top/Numbers</text></category></question>',
    question(
        "numerical",
        "Latency",
        '<answer fraction="100"><text>40</text><tolerance>2</tolerance>'
        "<feedback><text>Right.</text></feedback></answer>"
        '<answer fraction="0"><text>400</text><tolerance>0</tolerance>'
        "<feedback><text><![CDATA[<p>Ten times <b>too</b> slow.</p>]]></text></feedback>"
        "</answer>"
        "<units><unit><multiplier>1</multiplier><unit_name>ms</unit_name></unit>"
        "<unit><multiplier>0.001</multiplier><unit_name>s</unit_name></unit></units>",
        "The round trip?",
    ),
    question(
        "shortanswer",
        "Region",
        "<usecase>1</usecase>"
        '<answer fraction="100"><text>us-central1</text><feedback><text>Yes.</text></feedback>'
        "</answer>"
        '<answer fraction="100"><text>Iowa</text></answer>'
        '<answer fraction="0"><text>us-east1</text><feedback><text>South Carolina.</text>'
        "</feedback></answer>",
        "Which region?",
    ),
    question(
        "gapselect",
        "Tomb",
        "<selectoption><text>entombed</text><group>1</group></selectoption>"
        "<selectoption><text>Grant</text><group>2</group></selectoption>"
        "<selectoption><text>buried</text><group>1</group></selectoption>"
        "<selectoption><text>nobody</text><group>2</group></selectoption>",
        "<p>[[2]] is [[1]] in Grant's tomb.</p>",
    ),
    question(
        "ddwtos",
        "Colours",
        "<dragbox><text>red</text><group>1</group></dragbox>"
        "<dragbox><text>blue</text><group>1</group></dragbox>",
        "Roses are [[1]], violets are [[2]].",
    ),
    question(
        "multianswer",
        "Cities",
        "",
        "San Francisco: {1:MULTICHOICE:=California#OK~Arizona#Wrong}, "
        "Tucson: {1:MC:California~%100%Arizona}",
    ),
    question(
        "multianswer",
        "Capital",
        "",
        "The capital of France is {1:SHORTANSWER:%100%Paris#Yes~%50%Marseille~*#No} and "
        "pi is {2:NUMERICAL:=3.14:0.01~%0%3#Too rough}.",
    ),
    question(
        "multianswer",
        "Several",
        "",
        "Pick {1:MULTIRESPONSE:~%50%a~%50%b~%-100%c}.",
    ),
)


def test_every_moodle_type_that_a_machine_grades(capsys, exam, tmp_path):
    path = tmp_path / "types.xml"
    path.write_text(EVERY_TYPE, encoding="utf-8")
    lines, result = run(capsys, path, "--exam", exam.slug)
    assert result["errors"] == []
    assert [(item["type"], item["reason"].split(": ", 1)[1]) for item in result["skipped"]] == [
        ("cloze (embedded answers)", "its MULTIRESPONSE part takes several answers: a gap "
         "here takes one"),
    ]  # fmt: skip
    by_name = {q.uid.rsplit("-", 1)[0]: q for q in Question.objects.filter(topic__exam=exam)}
    ports = by_name["ports"]
    assert (ports.kind, ports.scoring) == ("matching", "partial")
    assert [o.text for o in ports.options.all()] == ["53", "443", "80"]
    assert [(p.prompt, p.answer.text) for p in ports.parts.all()] == [
        ("DNS", "53"), ("HTTPS", "443")
    ]  # fmt: skip
    # The description is the scenario of the questions after it in its category.
    case = ports.case_study
    assert case.title == "Branch office"
    assert case.scenario == "<p>The branch has <b>one</b> router.</p>"
    assert by_name["statements"].case_study == case
    assert by_name["latency"].case_study is None
    dhcp = by_name["dhcp"]
    assert (dhcp.kind, dhcp.scoring) == ("ordering", "all")
    assert [(o.text, o.order, o.rationale.why) for o in dhcp.options.all()] == [
        ("Discover", 1, ""), ("Offer", 2, ""), ("Request", 3, "Broadcast.")
    ]  # fmt: skip
    statements = by_name["statements"]
    assert (statements.kind, statements.scoring) == ("yesno", "partial")
    assert [(p.prompt, p.is_yes, p.why) for p in statements.parts.all()] == [
        ("Statement 1", True, "Because 1."),
        ("Statement 2", False, "Because 2."),
        ("Statement 3", True, "Because 3."),
        ("Statement 4", False, "Because 4."),
    ]
    latency = by_name["latency"]
    blank = latency.parts.get()
    assert (latency.kind, blank.number, blank.tolerance, blank.unit_list, blank.why) == (
        "fillin", 40, 2, ["ms"], "Right."
    )  # fmt: skip
    assert blank.feedback == [{"answer": "400", "feedback": "Ten times too slow."}]
    assert any("the unit 's' (times 0.001) is not carried" in line for line in lines)
    assert latency.topic.title == "Numbers"
    region = by_name["region"].parts.get()
    assert (region.accepted_texts, region.match_case, region.feedback) == (
        ["us-central1", "Iowa"], True, [{"answer": "us-east1", "feedback": "South Carolina."}]
    )  # fmt: skip
    tomb = by_name["tomb"]
    assert (tomb.kind, tomb.scoring) == ("dropdown", "partial")
    assert tomb.exhibit == "<p>[[1]] is [[2]] in Grant's tomb.</p>"
    first, second = tomb.parts.all()
    assert [(o.text, o.is_correct) for o in first.options.all()] == [
        ("Grant", True), ("nobody", False)
    ]  # fmt: skip
    assert [(o.text, o.is_correct) for o in second.options.all()] == [
        ("entombed", True), ("buried", False)
    ]  # fmt: skip
    colours = by_name["colours"]
    assert colours.exhibit == "Roses are [[1]], violets are [[2]]."
    cities = by_name["cities"]
    assert (cities.kind, cities.exhibit) == (
        "dropdown", "San Francisco: [[1]], Tucson: [[2]]"
    )  # fmt: skip
    assert [(o.text, o.is_correct, o.rationale.why) for o in cities.options.all()] == [
        ("California", True, "OK"), ("Arizona", False, "Wrong"),
        ("California", False, ""), ("Arizona", True, ""),
    ]  # fmt: skip
    capital = by_name["capital"]
    assert capital.kind == "fillin"
    assert capital.stem == (
        "The capital of France is &#95;&#95;&#95;&#95;&#95; (1) and pi is "
        "&#95;&#95;&#95;&#95;&#95; (2)."
    )
    paris, pi = capital.parts.all()
    assert (paris.prompt, paris.accepted_texts, paris.why) == ("Blank 1", ["Paris"], "Yes")
    assert (pi.number, pi.tolerance, pi.feedback) == (
        Decimal("3.14"), Decimal("0.01"), [{"answer": "3", "feedback": "Too rough"}]
    )  # fmt: skip
    # Importing again changes nothing.
    _, again = run(capsys, path, "--exam", exam.slug)
    assert (again["imported"], again["updated"]) == (0, 0)


def test_amc2moodle_numerical_questions(capsys, exam):
    lines, result = run(
        capsys, FIXTURES / "amc2moodle-moodle-bank-exemple.xml", "--exam", exam.slug
    )
    assert [item["type"] for item in result["skipped"]] == ["essay", "description"]
    numbers = {
        q.uid.rsplit("-", 1)[0]: q.parts.get()
        for q in Question.objects.filter(topic__exam=exam, kind="fillin")
    }
    assert (numbers["numint"].number, numbers["numint"].tolerance) == (150, 0)
    assert numbers["numfloat"].number == Decimal("3.14159265")
    assert numbers["num2ans"].feedback == [{"answer": "3", "feedback": "No, this is the real part"}]
    assert any("partial credit (50%) for 1.41421356 ± 0.1 is not carried" in line for line in lines)


EVIL = (
    '<script>alert(1)</script><img src="x" onerror="alert(2)"><a href="javascript:alert(3)">x</a>'
)


def test_script_in_every_new_field_is_cleaned(capsys, exam, tmp_path):
    """Every text of the new types goes through the allow-list (Markdown fields) or loses
    its tags (a wrong answer's feedback, plain text): no script, handler or javascript link
    reaches a page."""
    evil = f"<![CDATA[{EVIL}]]>"
    text = quiz(
        '<question type="description"><name><text>Scene</text></name>'
        f'<questiontext format="html"><text>{evil}Scene</text></questiontext></question>',
        question(
            "matching",
            "M",
            "".join(
                f'<subquestion format="html"><text>{evil}P{n}</text>'
                f"<answer><text>{evil}A{n}</text></answer></subquestion>"
                for n in (1, 2)
            ),
            f"{EVIL}Match",
        ),
        question(
            "ordering",
            "O",
            "".join(
                f'<answer fraction="{n}" format="html"><text>{evil}S{n}</text>'
                f'<feedback format="html"><text>{evil}</text></feedback></answer>'
                for n in (1, 2)
            ),
        ),
        question(
            "kprime",
            "K",
            "".join(
                f'<row number="{n}"><optiontext format="html"><text>{evil}S{n}</text>'
                f'</optiontext><feedbacktext format="html"><text>{evil}F</text></feedbacktext>'
                f'</row><weight rownumber="{n}" columnnumber="1"><value>{n - 1}</value></weight>'
                for n in (1, 2)
            ),
        ),
        question(
            "shortanswer",
            "S",
            '<answer fraction="100"><text>ok</text>'
            f'<feedback format="html"><text>{evil}Yes</text></feedback></answer>'
            '<answer fraction="0"><text>no</text>'
            f'<feedback format="html"><text>{evil}No</text></feedback></answer>',
        ),
        question(
            "gapselect",
            "G",
            f"<selectoption><text>{evil}a</text><group>1</group></selectoption>"
            "<selectoption><text>b</text><group>1</group></selectoption>",
            f"{EVIL} [[1]]",
        ),
        question(
            "multianswer",
            "C",
            "",
            "{1:MC:=<script>alert(4)</script>a#<img src=x onerror=alert(5)>~b}",
        ),
    )
    path = tmp_path / "evil.xml"
    path.write_text(text, encoding="utf-8")
    _, result = run(capsys, path, "--exam", exam.slug)
    assert (result["imported"], result["errors"]) == (6, [])
    pages = [case.scenario for case in exam.case_studies.all()]
    for q in Question.objects.filter(topic__exam=exam).prefetch_related("options", "parts"):
        pages += [q.stem, q.exhibit]
        pages += [option.text for option in q.options.all()]
        pages += [option.rationale.why for option in q.options.select_related("rationale")]
        for part in q.parts.all():
            pages += [part.prompt, part.why]
            assert all("<" not in item["feedback"] for item in part.feedback)
    assert len(pages) > 20
    for page in pages:
        html = str(render_markdown(page)).lower()
        # As text (a drag box is plain text) it may be shown; never as markup.
        assert "<script" not in html
        assert not re.search(r"<[^>]*(onerror|javascript:)", html)


def test_all_or_nothing_multiple_choice_and_ddmatch(capsys, exam, tmp_path):
    answers = (
        '<answer fraction="100"><text>a</text></answer>'
        '<answer fraction="100"><text>b</text></answer>'
        '<answer fraction="0"><text>c</text></answer>'
    )
    text = quiz(
        question("multichoiceset", "Set", answers),
        question(
            "ddmatch",
            "Drag",
            "".join(
                f'<subquestion format="html"><text>P{n}</text><answer><text>A{n}</text></answer>'
                "</subquestion>"
                for n in (1, 2)
            ),
        ),
    )
    path = tmp_path / "more.xml"
    path.write_text(text, encoding="utf-8")
    _, result = run(capsys, path, "--exam", exam.slug)
    assert (result["imported"], result["skipped"]) == (2, [])
    chosen, dragged = Question.objects.filter(topic__exam=exam).order_by("position")
    assert (chosen.kind, chosen.scoring) == ("multiple", "all")
    assert (dragged.kind, dragged.parts.count()) == ("matching", 2)


def test_moodle_matching_fixture(capsys, exam):
    _, result = run(capsys, FIXTURES / "moodle-match-testquestion.moodle.xml", "--exam", exam.slug)
    assert (result["imported"], result["skipped"], result["errors"]) == (1, [], [])
    question = Question.objects.get(topic__exam=exam)
    assert (question.kind, question.scoring, question.reuse_answers) == (
        "matching",
        "partial",
        True,
    )
    assert (question.stem, question.explanation) == ("Classify the animals.", "General feedback.")
    assert [o.text for o in question.options.all()] == ["amphibian", "mammal", "insect"]
    assert [(p.prompt, p.answer.text) for p in question.parts.all()] == [
        ("frog", "amphibian"), ("cat", "mammal"), ("newt", "amphibian")
    ]  # fmt: skip
    assert question.topic.title == "Test questions"


def test_moodle_select_missing_words_fixture(capsys, exam):
    path = FIXTURES / "moodle-gapselect-testquestion.moodle.xml"
    _, result = run(capsys, path, "--exam", exam.slug)
    assert (result["imported"], result["skipped"], result["errors"]) == (1, [], [])
    question = Question.objects.get(topic__exam=exam)
    assert (question.kind, question.scoring) == ("dropdown", "partial")
    assert question.exhibit == "The [[1]] [[2]] on the [[3]]."
    assert question.explanation == "The cat sat on the mat."
    gaps = list(question.parts.all())
    # One group: each gap offers all five words, its own the right one.
    for gap, right in zip(gaps, ["cat", "sat", "mat"], strict=True):
        assert [o.text for o in gap.options.all()] == ["cat", "sat", "mat", "dog", "table"]
        assert [o.text for o in gap.options.all() if o.is_correct] == [right]


def test_a_matching_to_places_is_an_ordering_and_one_to_yes_and_no_a_series(capsys, exam, tmp_path):
    """How our own export writes what Moodle's types cannot hold, read back as it was."""

    def matching(name: str, pairs: list[tuple[str, str]]) -> str:
        body = "".join(
            f'<subquestion format="html"><text>{left}</text><answer><text>{right}</text>'
            "</answer></subquestion>"
            for left, right in pairs
        )
        return question("matching", name, body)

    text = quiz(
        matching(
            "Steps",
            [("Cable", "Place 1"), ("Erase", "Not in the order"), ("Copy", "Place 2")],
        ),
        matching("Series", [("OSPF", "Yes"), ("RIP", "No"), ("IS-IS", "Yes")]),
        matching("Gap", [("a", "Place 1"), ("b", "Place 3")]),
    )
    path = tmp_path / "back.xml"
    path.write_text(text, encoding="utf-8")
    run(capsys, path, "--exam", exam.slug)
    steps, series, gap = Question.objects.filter(topic__exam=exam).order_by("position")
    assert steps.kind == "ordering"
    assert [(o.text, o.order) for o in steps.options.all()] == [
        ("Cable", 1), ("Erase", None), ("Copy", 2)
    ]  # fmt: skip
    assert series.kind == "yesno"
    assert [(p.prompt, p.is_yes) for p in series.parts.all()] == [
        ("OSPF", True), ("RIP", False), ("IS-IS", True)
    ]  # fmt: skip
    # Places that skip one are no order: a matching, as written.
    assert gap.kind == "matching"


def test_a_backslashed_star_in_a_short_answer_is_a_star_and_a_bare_one_a_wildcard(
    capsys, exam, tmp_path
):
    """Moodle's `*` matches any text; `\\*` is a star, as our export writes one."""
    text = quiz(
        question(
            "shortanswer",
            "Star",
            '<answer fraction="100"><text>C\\*</text></answer>'
            '<answer fraction="0"><text>C\\*\\*</text><feedback><text>One star.</text></feedback>'
            "</answer>",
            "The wildcard of a shell glob, after C?",
        ),
        question("shortanswer", "Wild", '<answer fraction="100"><text>ip*</text></answer>'),
    )
    _, result = run(capsys, write(tmp_path, "stars.xml", text), "--exam", exam.slug)
    assert result["skipped"] == []
    star, wild = Question.objects.filter(topic__exam=exam).order_by("position")
    blank = star.parts.get()
    assert (blank.accepted_texts, blank.wildcards) == (["C*"], False)
    assert blank.feedback == [{"answer": "C**", "feedback": "One star."}]
    blank = wild.parts.get()
    assert (blank.accepted_texts, blank.wildcards) == (["ip*"], True)
