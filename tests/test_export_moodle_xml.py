"""`export_bank --format moodle-xml`: every item type as the Moodle question type that holds
it, with the answer key, scoring and rationales a teacher's Moodle needs."""

import base64
import html
import re
from typing import Any
from xml.etree.ElementTree import Element

import pytest
from defusedxml.ElementTree import fromstring
from django.core.management import call_command

from questions.markup import render_markdown
from questions.media import images as media
from questions.models import CaseStudy, Kind, Option, Part, Question, Scoring
from tests import items
from tests.factories import ExamFactory
from tests.foreign_files import run
from tests.images import png

pytestmark = pytest.mark.django_db


def export(tmp_path: Any) -> Element:
    path = tmp_path / "bank.xml"
    call_command("export_bank", "--format", "moodle-xml", "-o", str(path))
    return fromstring(path.read_bytes())


def question_of(quiz: Element, question: Question) -> Element:
    [element] = [q for q in quiz.iter("question") if q.findtext("name/text") == question.uid]
    return element


def text_of(element: Element, path: str) -> str:
    return element.findtext(f"{path}/text") or ""


def test_ordering_is_qtype_ordering_with_the_steps_in_their_order(tmp_path):
    question = items.ordering(steps=3)
    question.options.filter(order=1).update(position=9)  # entered out of order
    partial = items.ordering(question.topic, steps=2, scoring=Scoring.PARTIAL)
    quiz = export(tmp_path)
    element = question_of(quiz, question)
    assert element.get("type") == "ordering"
    answers = element.findall("answer")
    assert [(a.findtext("text"), a.get("fraction")) for a in answers] == [
        ("Step 1", "1"),
        ("Step 2", "2"),
        ("Step 3", "3"),
    ]
    assert "Why Step 2 goes there." in text_of(answers[1], "feedback")
    assert "Tempting because: Learners put Step 2 first." in text_of(answers[1], "feedback")
    assert element.findtext("gradingtype") == "ALL_OR_NOTHING"
    assert element.findtext("selecttype") == "ALL"
    assert question_of(quiz, partial).findtext("gradingtype") == "ABSOLUTE_POSITION"


def test_ordering_with_steps_that_do_not_belong_is_a_matching_to_places(tmp_path):
    question = items.ordering(steps=2, extra=1)
    element = question_of(export(tmp_path), question)
    assert element.get("type") == "matching"
    pairs = [
        (text_of(sub, "."), sub.findtext("answer/text")) for sub in element.findall("subquestion")
    ]
    assert pairs == [
        ("<p>Step 1</p>", "Place 1"),
        ("<p>Step 2</p>", "Place 2"),
        ("<p>Distractor 1</p>", "Not in the order"),
    ]
    assert "Distractor 1 → Not in the order." in text_of(element, "generalfeedback")
    assert "Why Distractor 1 goes there." in text_of(element, "generalfeedback")


def test_matching_keeps_distractors_reuse_and_the_rationales(tmp_path):
    question = items.matching(prompts=3, distractors=2, reuse_answers=True)
    first = question.options.get(position=0)
    Part.objects.filter(question=question, position=2).update(answer=first)
    element = question_of(export(tmp_path), question)
    assert element.get("type") == "matching"
    pairs = [
        (text_of(sub, "."), sub.findtext("answer/text")) for sub in element.findall("subquestion")
    ]
    assert pairs == [
        ("<p>Prompt 1</p>", "Answer 1"),
        ("<p>Prompt 2</p>", "Answer 2"),
        ("<p>Prompt 3</p>", "Answer 1"),  # one answer for two prompts
        ("", "Answer 3"),  # no prompt takes it any more: a distractor
        ("", "Decoy 1"),
        ("", "Decoy 2"),
    ]
    general = text_of(element, "generalfeedback")
    assert general.startswith("<p>Because the root cause is fixed there.</p>")
    assert "<strong>Prompt 3 → Answer 1.</strong> Part 3 is so because of the scenario." in general
    assert "Decoy 2 (fits no prompt)." in general


def test_four_statements_are_kprime_with_their_answers_and_feedback(tmp_path):
    every = items.yes_no(answers=(True, False, False, True))
    partial = items.yes_no(every.topic, answers=(True, True, True, False), scoring="partial")
    quiz = export(tmp_path)
    element = question_of(quiz, every)
    assert element.get("type") == "kprime"
    assert text_of(element, "scoringmethod") == "kprimeonezero"
    assert text_of(question_of(quiz, partial), "scoringmethod") == "subpoints"
    rows = element.findall("row")
    assert [text_of(row, "optiontext") for row in rows] == [f"Statement {n}" for n in range(1, 5)]
    assert "Part 2 is so because" in text_of(rows[1], "feedbacktext")
    assert [text_of(column, "responsetext") for column in element.findall("column")] == [
        "Yes",
        "No",
    ]
    weights = {
        (int(w.get("rownumber", 0)), int(w.get("columnnumber", 0))): float(w.findtext("value") or 0)
        for w in element.findall("weight")
    }
    right = {(row, 1 if yes else 2) for row, yes in enumerate((True, False, False, True), 1)}
    assert {cell for cell, value in weights.items() if value == 1} == right
    assert len(weights) == 8


def test_other_yes_no_series_are_a_matching_offering_yes_and_no(tmp_path):
    question = items.yes_no(answers=(True, True, True))
    element = question_of(export(tmp_path), question)
    assert element.get("type") == "matching"
    pairs = [
        (text_of(sub, "."), sub.findtext("answer/text")) for sub in element.findall("subquestion")
    ]
    # "No" fits no statement, yet must be offered, or every drop-down would say "Yes".
    assert pairs == [(f"<p>Statement {n}</p>", "Yes") for n in (1, 2, 3)] + [("", "No")]
    assert "Statement 2 → Yes." in text_of(element, "generalfeedback")


def test_one_text_blank_is_a_short_answer_with_its_answers_and_case_rule(tmp_path):
    question = items.fill_in()
    question.parts.filter(position=1).delete()
    question.parts.update(match_case=True, accepted="us-central1\nIowa\nany*")
    element = question_of(export(tmp_path), question)
    assert element.get("type") == "shortanswer"
    assert element.findtext("usecase") == "1"
    answers = [(a.findtext("text"), a.get("fraction")) for a in element.findall("answer")]
    assert answers == [
        ("us-central1", "100"),
        ("Iowa", "100"),
        ("any\\*", "100"),  # a star is a star, not Moodle's wildcard
        ("us-east1", "0"),
    ]
    feedbacks = [text_of(a, "feedback") for a in element.findall("answer")]
    assert "Part 1 is so because of the scenario." in feedbacks[0]
    assert feedbacks[3] == "<p>That region is in South Carolina.</p>"


def test_one_number_blank_is_numerical_with_tolerance_and_units(tmp_path):
    question = items.fill_in()
    question.parts.filter(position=0).delete()
    element = question_of(export(tmp_path), question)
    assert element.get("type") == "numerical"
    right, wrong = element.findall("answer")
    assert (right.findtext("text"), right.get("fraction"), right.findtext("tolerance")) == (
        "40",
        "100",
        "2",
    )
    assert "Part 2 is so because" in text_of(right, "feedback")
    assert (wrong.findtext("text"), wrong.get("fraction")) == ("400", "0")
    assert text_of(wrong, "feedback") == "<p>That is ten times too slow.</p>"
    assert [u.findtext("unit_name") for u in element.iter("unit")] == ["ms", "milliseconds"]
    assert {u.findtext("multiplier") for u in element.iter("unit")} == {"1"}
    assert element.findtext("showunits") == "0"  # typed after the number, optional


def test_several_blanks_are_embedded_answers(tmp_path):
    question = items.fill_in()
    element = question_of(export(tmp_path), question)
    assert element.get("type") == "cloze"
    text = text_of(element, "questiontext")
    assert "<p>Region: {1:SHORTANSWER:=us-central1#Part 1 is so" in text
    assert "~=Iowa#" in text
    assert "~%0%us-east1#That region is in South Carolina.}" in text
    assert "<p>Latency: {1:NUMERICAL:=40:2#Part 2 is so" in text
    assert "~%0%400:0#That is ten times too slow.}" in text


def test_drop_downs_are_gapselect_each_gap_its_group(tmp_path):
    question = items.dropdown(gaps=2)
    element = question_of(export(tmp_path), question)
    assert element.get("type") == "gapselect"
    options = [(o.findtext("text"), o.findtext("group")) for o in element.findall("selectoption")]
    assert options == [("Wrong 1", "1"), ("Right 1", "1"), ("Wrong 2", "2"), ("Right 2", "2")]
    # [[k]] is a drop-down of k's group whose right choice is the k-th.
    assert "setting_1: [[2]]\nsetting_2: [[4]]" in text_of(element, "questiontext")
    general = text_of(element, "generalfeedback")
    assert "Gap 2, Setting 2: Right 2.</strong> Part 2 is so because" in general
    assert "Wrong 1.</strong> Why Wrong 1 goes there." in general


def test_an_exhibit_with_typed_gaps_is_a_cloze_that_reads_back(tmp_path, capsys):
    question = items.mixed_dropdown(scoring=Scoring.PARTIAL)
    element = question_of(export(tmp_path), question)
    assert element.get("type") == "cloze"
    text = text_of(element, "questiontext")
    assert "storage: {1:MULTICHOICE:Wrong 1#Why Wrong 1 goes there." in text
    assert "~=Right 1#Why Right 1 goes there." in text
    assert "region: {1:SHORTANSWER:=us-central1#Part 2 is so" in text
    assert "~%0%us-east1#That region is in South Carolina.}" in text
    assert "latency: {1:NUMERICAL:=40:2#Part 3 is so" in text
    assert "Gap 1, Storage class.</strong> Part 1 is so" in text_of(element, "generalfeedback")
    path = tmp_path / "mixed.xml"
    call_command("export_bank", "--format", "moodle-xml", "-o", str(path))
    target = ExamFactory(slug="round-trip")
    _, result = run(capsys, path, "--exam", target.slug)
    assert (result["imported"], result["skipped"], result["errors"]) == (1, [], [])
    back = Question.objects.get(topic__exam=target)
    assert (back.kind, back.scoring) == (Kind.DROPDOWN, Scoring.PARTIAL)
    assert "storage: [[1]] region: [[2]] latency: [[3]]" in seen(back.exhibit)

    def gaps(q: Question) -> list[tuple[Any, ...]]:
        return [
            (
                [(seen(o.text), o.is_correct) for o in part.options.all()],
                part.accepted_texts,
                part.number,
                part.tolerance,
                part.feedback,
            )
            for part in q.parts.all()
        ]

    assert gaps(back) == gaps(question)
    for mine, theirs in zip(question.parts.all()[1:], back.parts.all()[1:], strict=True):
        assert theirs.why.startswith(mine.why)


def test_a_case_study_is_a_description_before_its_questions_last_in_their_topic(tmp_path):
    case = items.case_study(questions=2)
    topic = case.questions.first().topic
    other = items.ordering(topic)
    second = items.case_study(topic, title="Fabrikam's data centre", questions=1)
    quiz = export(tmp_path)
    elements = list(quiz)
    kinds = [(e.get("type"), text_of(e, "name") or text_of(e, "category")) for e in elements]
    first_uids = list(case.questions.values_list("uid", flat=True).order_by("uid"))
    assert kinds == [
        ("category", f"$course$/top/{topic.exam.code}/{topic.title}"),
        ("ordering", other.uid),
        ("description", case.title),
        *[("multichoice", uid) for uid in first_uids],
        ("description", second.title),
        ("multichoice", second.questions.get().uid),
    ]
    description = elements[2]
    assert "Contoso runs a head office" in text_of(description, "questiontext")
    assert "<table>" in text_of(description, "questiontext")
    assert description.findtext("defaultgrade") == "0"
    assert description.findtext("idnumber") == f"case-{case.slug}"


def test_markup_in_every_type_is_sanitised(tmp_path):
    script = "<script>alert(1)</script>"
    questions = items.every_type()
    Question.objects.update(stem=f"Stem {script}", exhibit="")
    items.dropdown(questions[0].topic, stem=script)
    Part.objects.update(prompt=f"Part {script}", why=f"Why {script}")
    Question.objects.filter(kind=Kind.DROPDOWN).update(exhibit="[[1]] [[2]]")
    Option.objects.update(text=f"Option <img src=x onerror=alert(1)> {script}")
    path = tmp_path / "bank.xml"
    call_command("export_bank", "--format", "moodle-xml", "-o", str(path))
    quiz = fromstring(path.read_bytes())
    texts = [element.text or "" for element in quiz.iter()]
    assert not any("<script" in text or "onerror" in text for text in texts)
    assert any("Stem" in text for text in texts)


def test_images_of_parts_and_scenarios_are_embedded(tmp_path):
    in_prompt = media.store(media.check_image(png(seed=31)), "prompt.png")
    in_scenario = media.store(media.check_image(png(seed=32)), "scenario.png")
    question = items.matching()
    Part.objects.filter(question=question, position=0).update(
        prompt=f"Prompt ![Router]({in_prompt.url})"
    )
    case = items.case_study(question.topic)
    CaseStudy.objects.filter(pk=case.pk).update(scenario=f"Look: ![Map]({in_scenario.url})")
    Question.objects.filter(pk=question.pk).update(case_study=case)
    quiz = export(tmp_path)
    first = question_of(quiz, question).find("subquestion")
    assert f'src="@@PLUGINFILE@@/{in_prompt.file_name}"' in text_of(first, ".")
    assert first.find("file").get("name") == in_prompt.file_name
    [description] = [q for q in quiz.iter("question") if q.get("type") == "description"]
    scenario = description.find("questiontext")
    assert f'src="@@PLUGINFILE@@/{in_scenario.file_name}"' in text_of(scenario, ".")
    assert base64.b64decode(scenario.findtext("file")) == png(seed=32)


# Read back into an empty exam ------------------------------------------------------------


def seen(markdown: str) -> str:
    """What a learner reads of it: the rendered text, spaces made one."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", str(render_markdown(markdown)))).split())


def steps_of(question: Question) -> list[tuple[str, int | None]]:
    return [(seen(o.text), o.order) for o in question.options.order_by("order", "position")]


def pairs_of(question: Question) -> list[tuple[str, str]]:
    return [
        (seen(part.prompt), seen(part.answer.text) if part.answer else "")
        for part in question.parts.select_related("answer")
    ]


def rationales_of(question: Question) -> list[str]:
    if question.kind == Kind.ORDERING:
        rows = question.options.select_related("rationale").order_by("order", "position")
        return [seen(option.rationale.why) for option in rows]
    return [seen(part.why) for part in question.parts.all()]


def test_what_is_exported_reads_back_into_an_empty_exam(tmp_path, capsys):
    ordering, k_of_n, matching, yes_no, fill_in, dropdown = items.every_type()
    topic = ordering.topic
    kprime = items.yes_no(topic, answers=(True, False, False, True), scoring=Scoring.PARTIAL)
    number = items.fill_in(topic)
    number.parts.filter(position=0).delete()
    case = items.case_study(topic, questions=2)
    source = list(Question.objects.order_by("position", "uid"))
    path = tmp_path / "bank.xml"
    call_command("export_bank", "--format", "moodle-xml", "-o", str(path))
    target = ExamFactory(slug="round-trip")
    _, result = run(capsys, path, "--exam", target.slug)
    assert (result["imported"], result["skipped"], result["errors"]) == (len(source), [], [])
    copies = dict(
        zip(
            [q.uid for q in source],
            Question.objects.filter(topic__exam=target).order_by("position"),
            strict=True,
        )
    )
    for original in source:
        copy = copies[original.uid]
        # gapselect has one text: the stem comes back at the head of the exhibit.
        shown = copy.exhibit if original.kind == Kind.DROPDOWN else copy.stem
        assert seen(shown).startswith(seen(original.stem))
        assert seen(copy.explanation).startswith(seen(original.explanation))
        assert copy.topic.title == original.topic.title

    back = copies[ordering.uid]
    assert (back.kind, back.scoring) == (Kind.ORDERING, Scoring.ALL)
    assert steps_of(back) == steps_of(ordering)
    for mine, theirs in zip(rationales_of(ordering), rationales_of(back), strict=True):
        assert theirs.startswith(mine)
    # Choose K of N is written as a matching to places, which the reader knows again.
    back = copies[k_of_n.uid]
    assert back.kind == Kind.ORDERING
    assert steps_of(back) == steps_of(k_of_n)  # the distractors without a place
    back = copies[matching.uid]
    assert back.kind == Kind.MATCHING
    assert pairs_of(back) == pairs_of(matching)
    assert [seen(o.text) for o in back.options.all()] == [
        seen(o.text) for o in matching.options.all()
    ]
    assert back.scoring == Scoring.PARTIAL  # Moodle marks each pair
    # Three statements are written as a matching to Yes and No, known again on reading.
    back = copies[yes_no.uid]
    assert back.kind == Kind.YES_NO
    assert [(seen(p.prompt), p.is_yes) for p in back.parts.all()] == [
        (seen(p.prompt), p.is_yes) for p in yes_no.parts.all()
    ]
    back = copies[kprime.uid]
    assert (back.kind, back.scoring) == (Kind.YES_NO, Scoring.PARTIAL)
    assert [(seen(p.prompt), p.is_yes) for p in back.parts.all()] == [
        (seen(p.prompt), p.is_yes) for p in kprime.parts.all()
    ]
    for mine, theirs in zip(rationales_of(kprime), rationales_of(back), strict=True):
        assert theirs.startswith(mine)
    back = copies[fill_in.uid]
    assert back.kind == Kind.FILL_IN

    def blanks(question: Question) -> list[tuple[Any, ...]]:
        return [
            (p.accepted_texts, p.number, p.tolerance, p.match_case, p.feedback)
            for p in question.parts.all()
        ]

    assert blanks(back) == blanks(fill_in)
    for mine, theirs in zip(rationales_of(fill_in), rationales_of(back), strict=True):
        assert theirs.startswith(mine)
    back = copies[number.uid]
    assert blanks(back) == blanks(number)
    assert back.parts.get().unit_list == ["ms", "milliseconds"]
    back = copies[dropdown.uid]
    assert back.kind == Kind.DROPDOWN

    def gaps(question: Question) -> list[list[tuple[str, bool]]]:
        return [
            [(seen(o.text), o.is_correct) for o in part.options.all()]
            for part in question.parts.all()
        ]

    assert gaps(back) == gaps(dropdown)
    assert "setting_1: [[1]] setting_2: [[2]]" in seen(back.exhibit)
    copied_cases = {copies[q.uid].case_study for q in case.questions.all()}
    [copied_case] = copied_cases
    assert copied_case is not None
    assert copied_case.title == case.title
    assert seen(copied_case.scenario) == seen(case.scenario)
    # Importing the same file again changes nothing and duplicates nothing.
    _, again = run(capsys, path, "--exam", target.slug)
    assert (again["imported"], again["updated"], again["unchanged"]) == (0, 0, len(source))


def test_embedded_answers_escape_what_is_their_syntax_and_read_back(tmp_path, capsys):
    question = items.fill_in()
    question.parts.filter(position=0).update(accepted="a}b#c~d/e\\f\n<x> & *")
    element = question_of(export(tmp_path), question)
    text = text_of(element, "questiontext")
    assert "=a\\}b\\#c\\~d\\/e\\\\f#" in text
    assert "~=&lt;x&gt; &amp; \\*#" in text  # in HTML; a star, not Moodle's wildcard
    question.parts.filter(position=0).update(accepted="a}b#c~d/e\\f")
    path = tmp_path / "syntax.xml"
    call_command("export_bank", "--format", "moodle-xml", "-o", str(path))
    target = ExamFactory(slug="round-trip")
    _, result = run(capsys, path, "--exam", target.slug)
    assert (result["errors"], result["skipped"]) == ([], [])
    back = Question.objects.get(topic__exam=target)
    assert back.parts.first().accepted_texts == ["a}b#c~d/e\\f"]
