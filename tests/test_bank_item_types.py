"""Version 2 of the bank format: every item type and case studies imported, refused with the
rule's sentence and the question's uid when they break a rule (writing nothing), kept stable
on re-import, exported and imported back whole; their markup cleaned on the page."""

import json
import re
from collections.abc import Callable
from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from questions.bank.checks import BankError, check_documents
from questions.bank.document_import import import_document, planned_questions
from questions.bank.foreign_import import import_upload
from questions.bank.formats.courseiva import export_document
from questions.models import CaseStudy, Exam, Kind, Option, Part, Question, Rationale, Scoring
from tests import items
from tests.banks import clone, item_bank, make_bank, mixed_bank, write

pytestmark = pytest.mark.django_db

Edit = Callable[[dict[str, Any]], None]


def rows() -> dict[str, int]:
    return {
        model.__name__: model.objects.count()
        for model in (Exam, Question, Option, Rationale, Part, CaseStudy)
    }


def question_of(bank: dict[str, Any], uid: str) -> dict[str, Any]:
    return next(q for q in bank["exams"][0]["questions"] if q["uid"] == uid)


def export() -> dict[str, Any]:
    out = StringIO()
    call_command("export_bank", stdout=out)
    return json.loads(out.getvalue())


# Each type imports, and answers on its page. -------------------------------------------


def test_every_type_imports_with_its_parts_and_rationales():
    import_document(item_bank())
    ordering = Question.objects.get(uid="item-01")
    assert ordering.kind == Kind.ORDERING
    assert ordering.case_study is not None
    assert ordering.case_study.scenario == "Acme runs **three** sites."
    steps = list(ordering.options.select_related("rationale"))
    assert [(s.text, s.order) for s in steps] == [("Step 1", 1), ("Step 2", 2), ("Step 3", 3)]
    assert steps[1].rationale.tempting_because == "Learners get step 2 wrong this way."

    subset = Question.objects.get(uid="item-02")
    assert subset.scoring == Scoring.PARTIAL
    assert [s.order for s in subset.options.all()] == [3, None, 1, None, 2]

    matching = Question.objects.get(uid="item-03")
    pool = list(matching.options.all())
    prompts = list(matching.parts.select_related("answer"))
    assert [p.answer.text for p in prompts if p.answer] == ["Answer B", "Answer A"]
    assert pool[2].text == "A distractor"
    assert prompts[0].why == "Why prompt 1 is so."

    yes_no = Question.objects.get(uid="item-04")
    assert [p.is_yes for p in yes_no.parts.all()] == [True, False]

    fill_in = Question.objects.get(uid="item-05")
    region, latency = fill_in.parts.all()
    assert region.accepted_texts == ["us-central1", "Iowa"]
    assert (region.match_case, region.ignore_spaces) == (True, True)
    assert region.feedback == [{"answer": "us-east1", "feedback": "That is South Carolina."}]
    assert (latency.number, latency.tolerance) == (40, 2.5)
    assert latency.unit_list == ["ms", "milliseconds"]

    dropdown = Question.objects.get(uid="item-06")
    assert dropdown.exhibit.startswith("```\nnetwork [[1]]")
    gaps = list(dropdown.parts.all())
    choices = list(dropdown.options.select_related("rationale"))
    assert [c.part_id for c in choices] == [gaps[0].pk] * 2 + [gaps[1].pk] * 3
    assert [c.is_correct for c in choices] == [True, False, True, False, False]
    assert choices[4].rationale.why == "No such area here."
    assert gaps[1].why == "Why gap 2 is so."


def test_each_imported_type_is_right_on_its_page_with_the_right_answer(client):
    import_document(item_bank())
    for number in range(1, 7):
        question = Question.objects.get(uid=f"item-{number:02d}")
        page = items.page_of(question)
        response = client.post(question.get_absolute_url(), items.right_post(page))
        assert response.status_code == 200, question.kind
        assert "✓</span> Correct" in response.text, question.kind


def test_a_case_study_is_shown_beside_its_questions(client):
    import_document(item_bank())
    text = client.get(Question.objects.get(uid="item-03").get_absolute_url()).text
    assert "Case study: Acme Corp" in text
    assert "<strong>three</strong>" in text


def test_the_preview_lists_each_part_with_what_is_right():
    bank = item_bank()
    planned = {p.uid: p for p in planned_questions(bank, {})}
    assert [(o.text, o.correct) for o in planned["item-02"].options][:2] == [
        ("1. Step 1", True),
        ("2. Step 2", True),
    ]
    assert ("A distractor (fits no prompt)", False) in [
        (o.text, o.correct) for o in planned["item-03"].options
    ]
    assert planned["item-05"].options[1].text == "Latency: 40 ± 2.5 ms"


def test_a_mixed_exhibit_imports_its_typed_gaps_and_answers_right(client):
    import_document(mixed_bank())
    question = Question.objects.get(uid="item-07")
    storage, region, latency = question.parts.all()
    assert [o.part_id for o in question.options.all()] == [storage.pk, storage.pk]
    assert (region.accepted_texts, region.ignore_spaces) == (["us-central1", "Iowa"], True)
    assert region.feedback == [{"answer": "us-east1", "feedback": "That is South Carolina."}]
    assert (latency.number, latency.tolerance, latency.unit_list) == (40, 2.5, ["ms"])
    assert latency.why == "Why the latency is so."
    page = items.page_of(question)
    response = client.post(question.get_absolute_url(), items.right_post(page))
    assert "✓</span> Correct" in response.text
    planned = {p.uid: p for p in planned_questions(mixed_bank(), {})}
    assert [(o.text, o.correct) for o in planned["item-07"].options] == [
        ("[[1]] Storage class: ARCHIVE", True),
        ("[[1]] Storage class: STANDARD", False),
        ("[[2]] Region: us-central1 / Iowa", True),
        ("[[3]] Latency: 40 ± 2.5 ms", True),
    ]


def test_a_mixed_exhibit_exports_and_imports_back_unchanged(tmp_path):
    bank = mixed_bank()
    import_document(bank)
    exported = export()
    assert exported == bank
    assert "choices" not in question_of(exported, "item-07")["gaps"][1]
    Question.objects.all().delete()
    Exam.objects.all().delete()
    call_command("import_bank", str(write(tmp_path, exported)))
    assert export() == bank


def mixed_edit(change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    bank = mixed_bank()
    change(question_of(bank, "item-07")["gaps"])
    return bank


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            lambda gaps: gaps[1].pop("accepted"),
            "gaps: gap 2 needs choices, or an accepted answer or a number to type",
        ),
        (
            lambda gaps: gaps[0].update(accepted=["ARCHIVE"]),
            "gaps: gap 1 takes either choices or a typed answer",
        ),
        (
            lambda gaps: gaps[2].update(match_case=True),
            "gaps[2].match_case: case and spaces rules are for accepted texts",
        ),
        (
            lambda gaps: gaps[1]["feedback"][0].update(answer="Iowa"),
            "gaps[1].feedback[0].answer: 'Iowa' is accepted",
        ),
    ],
)
def test_a_typed_gap_breaking_a_blanks_rule_is_refused(tmp_path, capsys, change, expected):
    with pytest.raises(CommandError, match="Nothing imported"):
        call_command("import_bank", str(write(tmp_path, mixed_edit(change))))
    err = capsys.readouterr().err
    assert expected in err, err
    assert not Question.objects.exists()


# A version-1 file imports as it always did. ---------------------------------------------


def test_a_version_1_file_of_choice_questions_imports_unchanged():
    bank = make_bank(5)
    assert bank["version"] == 1
    import_document(bank)
    question = Question.objects.get(uid="gen-00004")
    assert (question.kind, question.scoring, question.exhibit) == ("multiple", "all", "")
    assert question.case_study is None
    assert not Part.objects.exists()
    assert [(o.is_correct, o.order, o.part_id) for o in question.options.all()] == [
        (True, None, None),
        (True, None, None),
        (False, None, None),
        (False, None, None),
    ]


def v1_with(edit: Edit) -> dict[str, Any]:
    bank = make_bank(2)
    edit(bank)
    return bank


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            lambda b: b["exams"][0]["questions"].append(
                {**item_bank()["exams"][0]["questions"][2], "topic": "topic-a"}
            ),
            "exams[0].questions[2].kind: questions of type 'ordering' are new in version 2 of "
            'the format: this file says "version": 1 (question item-01)',
        ),
        (
            lambda b: b["exams"][0].update(case_studies=[]),
            'exams[0].case_studies: new in version 2 of the format: this file says "version": 1',
        ),
        (
            lambda b: b["exams"][0]["questions"][1].update(scoring="partial"),
            "exams[0].questions[1].scoring: new in version 2",
        ),
    ],
    ids=["new type", "case studies", "scoring"],
)
def test_a_version_1_file_with_what_version_2_added_is_refused(edit, expected):
    bank = v1_with(edit)
    (problems,) = check_documents([bank])
    assert any(expected in str(problem) for problem in problems), problems


# Each rule broken: refused with its sentence and the question's uid, nothing written. ----


def edit_question(uid: str, change: Callable[[dict[str, Any]], None]) -> Edit:
    def edit(bank: dict[str, Any]) -> None:
        change(question_of(bank, uid))

    return edit


def set_fields(uid: str, **values: Any) -> Edit:
    return edit_question(uid, lambda q: q.update(values))


def at(uid: str, path: str, **values: Any) -> Edit:
    """Update the object at `path` ("steps.0", "blanks.1") of question `uid`."""

    def change(question: dict[str, Any]) -> None:
        node: Any = question
        for step in path.split("."):
            node = node[int(step)] if step.isdigit() else node[step]
        node.update(values)

    return edit_question(uid, change)


def drop(uid: str, path: str, index: int) -> Edit:
    def change(question: dict[str, Any]) -> None:
        node: Any = question
        for step in path.split("."):
            node = node[int(step)] if step.isdigit() else node[step]
        del node[index]

    return edit_question(uid, change)


Q = "exams[0].questions"
# Each: what breaks the bank, and the line that says so (a question's problems name its uid).
BROKEN: dict[str, tuple[Edit, str]] = {
    "ordering places not 1, 2, 3": (
        at("item-01", "steps.2", place=5),
        f"{Q}[2].steps: the steps' places must be 1, 2, 3, ... each once (these are 1, 2, 5) "
        "(question item-01)",
    ),
    "ordering of one step": (
        set_fields("item-01", steps=[{"text": "Only", "place": 1, "rationale": "Why."}]),
        f"{Q}[2].steps: an ordering needs at least 2 steps with a place in the order "
        "(this one has 1) (question item-01)",
    ),
    "too many steps": (
        set_fields(
            "item-01",
            steps=[{"text": f"S{n}", "place": n, "rationale": "Why."} for n in range(1, 12)],
        ),
        f"{Q}[2].steps: an ordering has at most 10 steps (this one has 11) (question item-01)",
    ),
    "ordering given options": (
        set_fields("item-01", options=make_bank(1)["exams"][0]["questions"][0]["options"]),
        f'{Q}[2].options: an ordering takes "steps", not "options" (question item-01)',
    ),
    "matching answer outside the pool": (
        at("item-03", "prompts.0", answer=9),
        f"{Q}[4].prompts: prompt 1 needs its answer from the pool (question item-03)",
    ),
    "matching answer used twice": (
        at("item-03", "prompts.1", answer=2),
        f"{Q}[4].prompts: two prompts share one answer: allow answers to be used more than "
        "once, or give each prompt its own (question item-03)",
    ),
    "matching of one prompt": (
        drop("item-03", "prompts", 1),
        f"{Q}[4].prompts: a matching needs at least 2 prompts (this one has 1) (question item-03)",
    ),
    "matching pool of one": (
        set_fields("item-03", pool=[{"text": "Alone"}]),
        f"{Q}[4].pool: a matching's pool needs 2 to 12 answers (this one has 1) (question item-03)",
    ),
    "a pool smaller than the prompts": (
        edit_question(
            "item-03",
            lambda q: q.update(
                pool=q["pool"][:2],
                prompts=[*q["prompts"], {"text": "Prompt 3", "answer": 1, "rationale": "."}],
            ),
        ),
        f"{Q}[4].pool: the pool has fewer answers than there are prompts (question item-03)",
    ),
    "thirteen statements": (
        set_fields(
            "item-04",
            statements=[{"text": f"S{n}", "answer": "yes", "rationale": "."} for n in range(13)],
        ),
        f"{Q}[5].statements: a question has at most 12 parts (this one has 13) (question item-04)",
    ),
    "a fill-in without blanks": (
        set_fields("item-05", blanks=[]),
        f"{Q}[6].blanks: a fill-in needs at least one blank (question item-05)",
    ),
    "drop-downs without gaps": (
        set_fields("item-06", gaps=[], exhibit="No gap here."),
        f"{Q}[7].gaps: drop-downs need at least one gap (question item-06)",
    ),
    "an exhibit marking a gap twice": (
        set_fields("item-06", exhibit="[[1]] [[2]] [[1]]"),
        f"{Q}[7].exhibit: the exhibit marks a gap more than once (question item-06)",
    ),
    "reuse outside matching": (
        set_fields("item-04", reuse_answers=True),
        f"{Q}[5].reuse_answers: only a matching question uses its answers again (question item-04)",
    ),
    "yes/no of one statement": (
        drop("item-04", "statements", 1),
        f"{Q}[5].statements: a yes/no series needs at least 2 statements (this one has 1) "
        "(question item-04)",
    ),
    "yes/no answered maybe": (
        at("item-04", "statements.0", answer="maybe"),
        f"{Q}[5].statements[0].answer: 'maybe' is not one of ['yes', 'no'] (question item-04)",
    ),
    "blank without an answer": (
        edit_question("item-05", lambda q: q["blanks"][0].pop("accepted")),
        f"{Q}[6].blanks: blank 1 needs an accepted answer or a number (question item-05)",
    ),
    "blank with texts and a number": (
        at("item-05", "blanks.1", accepted=["forty"]),
        f"{Q}[6].blanks: blank 2 takes either accepted texts or a number, not both "
        "(question item-05)",
    ),
    "text where a number belongs": (
        at("item-05", "blanks.1", number="forty"),
        f"{Q}[6].blanks[1].number: 'forty' is not of type 'number' (question item-05)",
    ),
    "a negative tolerance": (
        at("item-05", "blanks.1", tolerance=-1),
        f"{Q}[6].blanks[1].tolerance: -1 is less than the minimum of 0 (question item-05)",
    ),
    "a number of nine decimals": (
        at("item-05", "blanks.1", number=0.123456789),
        f"{Q}[6].blanks[1].number: use at most 8 decimal places (question item-05)",
    ),
    "a tolerance on a text blank": (
        at("item-05", "blanks.0", tolerance=1),
        f"{Q}[6].blanks[0].tolerance: a tolerance and units are for a number: this blank "
        "takes texts (question item-05)",
    ),
    "feedback on a number that is not one": (
        at("item-05", "blanks.1", feedback=[{"answer": "slow", "feedback": "No."}]),
        f"{Q}[6].blanks[1].feedback[0].answer: 'slow' is not a number in this blank's units: "
        "no answer would get this feedback (question item-05)",
    ),
    "feedback on a right answer": (
        at("item-05", "blanks.0", feedback=[{"answer": "IOWA", "feedback": "?"}], match_case=False),
        f"{Q}[6].blanks[0].feedback[0].answer: 'IOWA' is accepted: feedback here is for wrong "
        "answers (question item-05)",
    ),
    "an accepted text on two lines": (
        at("item-05", "blanks.0", accepted=["us-central1\nIowa"]),
        f"{Q}[6].blanks[0].accepted[0]: 'us-central1\\nIowa' does not match",
    ),
    "a gap of one choice": (
        drop("item-06", "gaps.0.choices", 1),
        f"{Q}[7].gaps: gap 1 needs at least 2 choices (it has 1) (question item-06)",
    ),
    "a gap of two right choices": (
        at("item-06", "gaps.1.choices.1", correct=True),
        f"{Q}[7].gaps: gap 2 needs exactly one correct choice (question item-06)",
    ),
    "a gap the exhibit does not mark": (
        set_fields("item-06", exhibit="```\nnetwork [[1]]\n```"),
        f"{Q}[7].exhibit: the exhibit must mark where each gap goes: [[2]] missing "
        "(question item-06)",
    ),
    "an exhibit marking a gap that is not there": (
        set_fields("item-06", exhibit="[[1]] [[2]] [[3]]"),
        f"{Q}[7].exhibit: the exhibit marks gaps that do not exist: [[3]] (question item-06)",
    ),
    "a single answer with partial credit": (
        set_fields("item-choice-00000", scoring="partial"),
        f"{Q}[0].scoring: a single-answer question is right or wrong: it has no partial credit "
        "(question item-choice-00000)",
    ),
    "a choice question without options": (
        edit_question("item-choice-00000", lambda q: q.pop("options")),
        f"{Q}[0].options: a question needs 2 to 8 options (this one has 0) "
        "(question item-choice-00000)",
    ),
    "an unknown case study": (
        set_fields("item-03", case_study="globex"),
        f"{Q}[4].case_study: no case study 'globex' in this exam (its case studies: acme) "
        "(question item-03)",
    ),
    "a case study slug twice": (
        lambda b: b["exams"][0]["case_studies"].append(
            {"slug": "acme", "title": "Again", "scenario": "Again."}
        ),
        "exams[0].case_studies[1].slug: case study slug 'acme' is used twice in this exam "
        "(also exams[0].case_studies[0])",
    ),
    "a published step without a rationale": (
        at("item-01", "steps.0", rationale=""),
        f"{Q}[2].steps[0].rationale: a published question needs a rationale for every step "
        "(question item-01)",
    ),
    "a published choice without a rationale": (
        at("item-06", "gaps.0.choices.0", rationale=""),
        f"{Q}[7].gaps[0].choices[0].rationale: a published question needs a rationale for "
        "every choice (question item-06)",
    ),
    "a statement without a rationale": (
        edit_question("item-04", lambda q: q["statements"][0].pop("rationale")),
        f"{Q}[5].statements[0]: missing required field 'rationale' (question item-04)",
    ),
}


@pytest.mark.parametrize("name", list(BROKEN))
def test_a_bank_breaking_a_rule_is_refused_with_its_sentence_and_changes_nothing(
    tmp_path, capsys, name
):
    import_document(item_bank())
    before = rows()
    stored = dict(Question.objects.values_list("uid", "updated_at"))
    edit, expected = BROKEN[name]
    bank = item_bank()
    edit(bank)
    with pytest.raises(CommandError, match="Nothing imported"):
        call_command("import_bank", str(write(tmp_path, bank)))
    err = capsys.readouterr().err
    assert expected in err, err
    assert rows() == before
    assert dict(Question.objects.values_list("uid", "updated_at")) == stored


def test_the_import_page_names_the_question_of_each_problem():
    bank = item_bank()
    question_of(bank, "item-03")["prompts"][0]["answer"] = 9
    plan = import_upload("bank.json", json.dumps(bank).encode(), dry_run=True)
    assert plan.errors == [
        {
            "where": "exams[0].questions[4].prompts",
            "message": "prompt 1 needs its answer from the pool (question item-03)",
        }
    ]
    assert not Question.objects.exists()


def test_a_draft_may_leave_its_part_rationales_for_later():
    bank = item_bank()
    question = question_of(bank, "item-04")
    question["status"] = "draft"
    question["statements"][0]["rationale"] = ""
    import_document(bank)
    assert Part.objects.filter(question__uid="item-04", why="").count() == 1


def test_the_sentences_are_the_admins():
    from questions.item_rules import OptionFacts, item_problems

    (sentence,) = item_problems(Kind.ORDERING, [OptionFacts(order=1)], [])
    bank = item_bank()
    question_of(bank, "item-01")["steps"] = [{"text": "Only", "place": 1, "rationale": "."}]
    with pytest.raises(BankError) as refused:
        import_document(bank)
    assert [p.message for p in refused.value.problems] == [sentence]


# Re-import: by uid, the parts' and options' keys kept where their position is. -----------


def keys_of(uid: str) -> tuple[list[str], list[str]]:
    question = Question.objects.get(uid=uid)
    return (
        list(question.options.values_list("key", flat=True)),
        list(question.parts.values_list("key", flat=True)),
    )


def test_reimport_is_idempotent_and_keeps_every_key():
    import_document(item_bank())
    keys = {f"item-{n:02d}": keys_of(f"item-{n:02d}") for n in range(1, 7)}
    before = rows()
    summary = import_document(item_bank())
    assert summary.questions_unchanged == 8
    assert rows() == before
    assert {uid: keys_of(uid) for uid in keys} == keys


def test_an_edited_part_keeps_its_key_and_a_stored_answer_keeps_its_meaning():
    import_document(item_bank())
    question = Question.objects.get(uid="item-03")
    page = items.page_of(question)
    right = page.grade(
        [f"{p.key}={p.answer.answer}" for p in page.parts]  # the learner's stored answer
    )
    assert right.is_correct
    options, parts = keys_of("item-03")
    bank = item_bank()
    matching = question_of(bank, "item-03")
    matching["prompts"][0]["text"] = "Prompt 1, reworded"
    matching["prompts"][1]["rationale"] = "A sharper rationale."
    matching["pool"][2]["text"] = "A better distractor"
    summary = import_document(bank)
    assert summary.outcomes["item-03"] == "updated"
    assert keys_of("item-03") == (options, parts)
    page = items.page_of(question)
    assert page.grade(right.response).is_correct
    assert Part.objects.get(key=parts[1]).why == "A sharper rationale."


def test_a_reimport_with_fewer_parts_removes_the_surplus_and_relinks_answers():
    import_document(item_bank())
    options, parts = keys_of("item-06")
    bank = item_bank()
    dropdown = question_of(bank, "item-06")
    dropdown["gaps"] = dropdown["gaps"][1:]  # the second gap alone, now the first
    dropdown["exhibit"] = "area [[1]]"
    import_document(bank)
    new_options, new_parts = keys_of("item-06")
    assert new_parts == parts[:1]
    assert new_options == options[:3]
    gap = Part.objects.get(key=parts[0])
    assert gap.prompt == "Area"
    assert [o.text for o in gap.options.all()] == ["0", "1", "51"]
    matching = question_of(bank, "item-03")
    matching["prompts"][0]["answer"], matching["prompts"][1]["answer"] = 1, 2
    import_document(bank)
    answers = [p.answer.text for p in Question.objects.get(uid="item-03").parts.all() if p.answer]
    assert answers == ["Answer A", "Answer B"]


def test_a_question_changing_type_loses_its_old_parts():
    import_document(item_bank())
    bank = item_bank()
    question = question_of(bank, "item-04")
    question.pop("statements")
    question.pop("scoring")
    question.update(kind="single", options=make_bank(1)["exams"][0]["questions"][0]["options"])
    import_document(bank)
    changed = Question.objects.get(uid="item-04")
    assert changed.kind == Kind.SINGLE
    assert not changed.parts.exists()
    assert changed.options.count() == 4


# Export writes every type; an export imports back into an empty bank whole. --------------


def test_export_then_import_into_an_empty_bank_gives_the_same_questions(tmp_path):
    bank = item_bank()
    import_document(bank)
    exported = export()
    assert exported == bank
    assert exported["version"] == 2
    Question.objects.all().delete()
    Exam.objects.all().delete()
    assert not Part.objects.exists()
    call_command("import_bank", str(write(tmp_path, exported)))
    assert export() == bank
    case = CaseStudy.objects.get()
    assert [q.uid for q in case.questions.order_by("uid")] == ["item-01", "item-03"]


def test_export_writes_only_what_is_set():
    import_document(item_bank())
    exported = export()["exams"][0]
    ordering = question_of({"exams": [exported]}, "item-02")
    assert ordering["scoring"] == "partial"
    assert "place" not in ordering["steps"][1]
    yes_no = question_of({"exams": [exported]}, "item-04")
    assert set(yes_no) == {
        "uid", "topic", "kind", "scoring", "stem", "explanation", "status", "statements",
    }  # fmt: skip
    choice = question_of({"exams": [exported]}, "item-choice-00000")
    assert not {"scoring", "exhibit", "case_study", "reuse_answers"} & set(choice)


@pytest.mark.parametrize("export_format", ["moodle-xml", "qti3"])
def test_moodle_and_qti_exports_write_every_type(tmp_path, capsys, export_format):
    import_document(item_bank())
    path = tmp_path / "bank.out"
    call_command("export_bank", "--format", export_format, "-o", str(path))
    err = capsys.readouterr().err
    assert "Left out" not in err
    assert "Wrote 1 exam(s), 8 question(s)" in err


def test_import_and_export_query_counts_do_not_grow_with_the_parts():
    def bank(prefix: str, copies: int) -> dict[str, Any]:
        document = item_bank(prefix)
        document["exams"][0]["slug"] = f"{prefix}-exam"
        questions = document["exams"][0]["questions"]
        for copy in range(1, copies):
            for question in item_bank(f"{prefix}{copy}")["exams"][0]["questions"][2:]:
                questions.append(question)
        return document

    def count(document: dict[str, Any]) -> int:
        with CaptureQueriesContext(connection) as queries:
            import_document(document)
        return len(queries)

    small, large = bank("s", 1), bank("l", 20)
    assert count(small) == count(large)
    for document in (small, large):
        for question in document["exams"][0]["questions"]:
            question["stem"] += " (edited)"
            for part in question.get("statements", []) + question.get("blanks", []):
                part["rationale"] += " Edited."
    assert count(small) == count(large)
    with CaptureQueriesContext(connection) as exported:
        export_document()
    assert len(exported) == 8


# Markup in every new field is cleaned on the page. --------------------------------------

SCRIPT = '<script>alert("x")</script><img src="https://evil.example/x.png" onerror="alert(1)">'


def with_script(bank: dict[str, Any]) -> dict[str, Any]:
    """Every text of the new types and of the case study, with markup that must not run."""
    bank = clone(bank)
    exam = bank["exams"][0]
    exam["case_studies"][0]["scenario"] += SCRIPT
    exam["case_studies"][0]["title"] += SCRIPT
    for question in exam["questions"]:
        question["exhibit"] = question.get("exhibit", "") + SCRIPT
        for name in ("steps", "pool", "prompts", "statements", "blanks", "gaps"):
            for element in question.get(name, []):
                for field in ("text", "label", "rationale", "tempting_because", "right_when"):
                    if field in element:
                        element[field] += SCRIPT
                for choice in element.get("choices", []):
                    for field in ("text", "rationale", "tempting_because", "right_when"):
                        if field in choice:
                            choice[field] += SCRIPT
                for feedback in element.get("feedback", []):
                    feedback["feedback"] += SCRIPT
    return bank


def test_script_in_every_new_field_is_cleaned(client):
    import_document(with_script(mixed_bank()))
    stored = Part.objects.filter(question__uid="item-04").first()
    assert stored is not None
    assert "<script>" in stored.why  # kept as written, cleaned on output
    for number in range(1, 8):
        question = Question.objects.get(uid=f"item-{number:02d}")
        form = client.get(question.get_absolute_url()).text
        page = items.page_of(question)
        data = items.right_post(page)
        # A wrong answer with feedback, to show it too (a blank, a gap typed in).
        if question.kind == Kind.FILL_IN:
            data[f"blank-{page.parts[0].key}"] = "us-east1"
        if number == 7:
            data[f"gap-{page.parts[1].key}"] = "us-east1"
        result = client.post(question.get_absolute_url(), data).text
        for text in (form, result):
            assert not re.search(r"<script>alert|<[^>]*(onerror|evil\.example)", text), number
        assert "Why" in result
        if number == 7:
            assert "That is South Carolina." in result


@pytest.mark.parametrize("export_format", ["moodle-xml", "qti3"])
def test_moodle_and_qti_exports_write_a_mixed_exhibit(tmp_path, capsys, export_format):
    import_document(mixed_bank())
    path = tmp_path / "bank.out"
    call_command("export_bank", "--format", export_format, "-o", str(path))
    err = capsys.readouterr().err
    assert "Left out" not in err
    assert "Wrote 1 exam(s), 9 question(s)" in err
