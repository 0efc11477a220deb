"""Curating every item type in the admin: the add page asks for the type first, each type's
page shows its own rows, a curator fills them in and saves, every rule refuses a bad save
with its sentence at the top of the form and saves nothing, an edit reaches the public page,
and the pages' query counts do not grow with the parts. Case studies too."""

import re
from decimal import Decimal
from typing import cast

import pytest
from django.urls import reverse

from questions.models import CaseStudy, Option, Part, Question, Rationale
from tests import items
from tests.admin_forms import (
    ADD,
    add,
    add_form,
    every_error,
    fill,
    form_of,
    form_of_case_study,
    row_counts,
    why,
    with_rows,
)
from tests.factories import QuestionFactory, StaffFactory, TopicFactory

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:questions_question_changelist")
CASE_STUDIES = reverse("admin:questions_casestudy_changelist")


@pytest.fixture
def curator(client):
    client.force_login(StaffFactory())
    return client


def saved(response, kind: str) -> Question:
    assert response.status_code == 302, every_error(response)
    return Question.objects.get(uid=f"{kind}-0001")


def errors_at_top(response) -> str:
    """The text between the form's error note and its first field set."""
    text = response.content.decode()
    start = text.find('class="errornote"')
    return text[start : text.find("<fieldset", start)] if start >= 0 else ""


# The add page asks for the type first -------------------------------------------------------


def test_adding_a_question_starts_with_its_type(curator):
    page = curator.get(ADD)
    assert page.status_code == 200
    assert "choose its type" in page.text
    for label in ("Single answer", "Ordering (build list)", "Matching", "Yes/no series",
                  "Fill-in (text or number)", "Drop-downs in an exhibit"):  # fmt: skip
        assert label in page.text
    assert 'href="?kind=matching"' in page.text


@pytest.mark.parametrize(
    ("kind", "shown", "not_shown"),
    [
        ("single", ["options-0-is_correct", "options-0-why"], ["id_scoring", "options-0-order",
                                                               "parts-TOTAL_FORMS"]),
        ("multiple", ["options-0-is_correct", "id_scoring"], ["parts-TOTAL_FORMS"]),
        ("ordering", ["options-0-order", "options-0-why", "id_scoring"],
         ["options-0-is_correct", "parts-TOTAL_FORMS", "id_reuse_answers"]),
        ("matching", ["options-0-text", "parts-0-pool_answer", "parts-0-why",
                      "id_reuse_answers"], ["options-0-is_correct", "options-0-why"]),
        ("yesno", ["parts-0-is_yes", "parts-0-why"], ["options-TOTAL_FORMS", "parts-0-number"]),
        ("fillin", ["parts-0-accepted", "parts-0-number", "parts-0-tolerance", "parts-0-units",
                    "parts-0-feedback", "parts-0-match_case", "parts-0-ignore_spaces"],
         ["options-TOTAL_FORMS", "parts-0-is_yes"]),
        ("dropdown", ["parts-0-prompt", "options-0-gap", "options-0-is_correct", "id_exhibit"],
         ["parts-0-position", "parts-0-pool_answer"]),
    ],
)  # fmt: skip
def test_each_type_shows_its_own_rows_and_fields(curator, kind, shown, not_shown):
    text = curator.get(ADD, {"kind": kind}).text
    for name in shown:
        assert name in text, name
    for name in not_shown:
        assert name not in text, name


def test_the_drop_down_page_explains_the_exhibits_markers(curator):
    text = curator.get(ADD, {"kind": "dropdown"}).text
    assert "Write [[1]] where the first gap's drop-down goes" in text
    assert "[[1]] is the first gap below. A gap just added is listed by its number." in text
    assert '<option value="3">[[3]]</option>' in text


# Each type, created as a curator fills the form ----------------------------------------------


def ordering_form(curator, topic) -> dict[str, object]:
    data = add_form(curator, "ordering", topic, scoring="partial")
    return with_rows(
        data, "options",
        {"text": "Create the bucket", "order": "1", **why("it must exist first")},
        {"text": "Upload the object", "order": "2", **why("it needs the bucket")},
        {"text": "Set the lifecycle rule", "order": "3", **why("it acts on objects")},
        {"text": "Delete the bucket", "order": "", **why("it undoes the task")},
    )  # fmt: skip


def matching_form(curator, topic) -> dict[str, object]:
    data = add_form(curator, "matching", topic)
    with_rows(
        data, "options",
        {"text": "Cloud Storage"}, {"text": "BigQuery"}, {"text": "Pub/Sub"},
        {"text": "Memorystore"},  # a distractor
    )  # fmt: skip
    return with_rows(
        data, "parts",
        {"position": "0", "prompt": "Objects", "pool_answer": "1", **why("it stores blobs")},
        {"position": "1", "prompt": "Analytics", "pool_answer": "2", **why("it runs SQL")},
        {"position": "2", "prompt": "Events", "pool_answer": "3", **why("it queues")},
    )  # fmt: skip


def yes_no_form(curator, topic) -> dict[str, object]:
    data = add_form(curator, "yesno", topic)
    return with_rows(
        data, "parts",
        {"position": "0", "prompt": "The bucket is public.", "is_yes": "true", **why("a")},
        {"position": "1", "prompt": "Objects are versioned.", "is_yes": "false", **why("b")},
    )  # fmt: skip


def fill_in_form(curator, topic) -> dict[str, object]:
    data = add_form(curator, "fillin", topic)
    return with_rows(
        data, "parts",
        {"position": "0", "prompt": "Region", "accepted": "us-central1\nIowa",
         "ignore_spaces": True, "tolerance": "",
         "feedback": '[{"answer": "us-east1", "feedback": "That one is in South Carolina."}]',
         **why("the data stays in Iowa")},
        {"position": "1", "prompt": "Latency", "number": "40", "tolerance": "2",
         "units": "ms ,milliseconds", "feedback": '[{"answer": "400", "feedback": "Too slow."}]',
         **why("the link is short")},
    )  # fmt: skip


def dropdown_form(curator, topic) -> dict[str, object]:
    data = add_form(
        curator, "dropdown", topic, exhibit="```\nstorage_class: [[1]]\nlocation: [[2]]\n```"
    )
    with_rows(
        data, "parts",
        {"prompt": "Storage class", **why("it is read once a year")},
        {"prompt": "Location", **why("the users are in Europe")},
    )  # fmt: skip
    return with_rows(
        data, "options",
        {"gap": "1", "position": "0", "text": "ARCHIVE", "is_correct": True},
        {"gap": "1", "position": "1", "text": "STANDARD"},
        {"gap": "2", "position": "2", "text": "EU", "is_correct": True},
        {"gap": "2", "position": "3", "text": "US"},
    )  # fmt: skip


FORMS = {
    "ordering": ordering_form,
    "matching": matching_form,
    "yesno": yes_no_form,
    "fillin": fill_in_form,
    "dropdown": dropdown_form,
}


def answered_right(client, question: Question) -> bool:
    page = items.page_of(question)
    response = client.post(question.get_absolute_url(), items.right_post(page))
    assert response.status_code == 200, response.text
    return "✓</span> Correct" in response.text


def test_a_curator_creates_an_ordering_with_a_step_that_does_not_belong(curator, client):
    question = saved(add(curator, "ordering", ordering_form(curator, TopicFactory())), "ordering")
    steps = list(question.options.select_related("rationale").order_by("position"))
    assert [(s.text, s.order, s.position) for s in steps] == [
        ("Create the bucket", 1, 0), ("Upload the object", 2, 1),
        ("Set the lifecycle rule", 3, 2), ("Delete the bucket", None, 3),
    ]  # fmt: skip
    assert steps[3].rationale.why == "Because it undoes the task."
    assert (question.kind, question.scoring) == ("ordering", "partial")
    assert answered_right(client, question)


def test_a_curator_creates_a_matching_whose_prompts_name_new_answers_of_the_pool(curator, client):
    question = saved(add(curator, "matching", matching_form(curator, TopicFactory())), "matching")
    prompts = list(question.parts.select_related("answer"))
    assert [(p.prompt, p.answer.text) for p in prompts] == [
        ("Objects", "Cloud Storage"), ("Analytics", "BigQuery"), ("Events", "Pub/Sub"),
    ]  # fmt: skip
    assert prompts[1].why == "Because it runs SQL."
    assert question.options.count() == 4
    assert Rationale.objects.filter(option__question=question).count() == 4
    assert answered_right(client, question)


def test_a_matching_may_let_one_answer_fit_several_prompts(curator, client):
    data = fill(
        matching_form(curator, TopicFactory()), reuse_answers=True, parts__2__pool_answer="1"
    )
    question = saved(add(curator, "matching", data), "matching")
    assert question.reuse_answers
    assert [p.answer.text for p in question.parts.select_related("answer")] == [
        "Cloud Storage", "BigQuery", "Cloud Storage",
    ]  # fmt: skip
    assert answered_right(client, question)


def test_a_curator_creates_a_yes_no_series(curator, client):
    question = saved(add(curator, "yesno", yes_no_form(curator, TopicFactory())), "yesno")
    assert [(p.prompt, p.is_yes) for p in question.parts.all()] == [
        ("The bucket is public.", True), ("Objects are versioned.", False),
    ]  # fmt: skip
    assert not question.options.exists()
    assert answered_right(client, question)


def test_a_curator_creates_a_fill_in_with_a_text_and_a_number_blank(curator, client):
    question = saved(add(curator, "fillin", fill_in_form(curator, TopicFactory())), "fillin")
    text, number = question.parts.all()
    assert (text.accepted_texts, text.ignore_spaces, text.number) == (
        ["us-central1", "Iowa"], True, None,
    )  # fmt: skip
    assert text.feedback == [{"answer": "us-east1", "feedback": "That one is in South Carolina."}]
    assert (number.number, number.tolerance, number.unit_list) == (
        Decimal(40), Decimal(2), ["ms", "milliseconds"],
    )  # fmt: skip
    assert answered_right(client, question)


def test_a_curator_creates_drop_downs_whose_choices_name_new_gaps(curator, client):
    question = saved(add(curator, "dropdown", dropdown_form(curator, TopicFactory())), "dropdown")
    gaps = list(question.parts.all())
    assert [g.prompt for g in gaps] == ["Storage class", "Location"]
    assert [(o.text, o.part_id, o.is_correct) for o in question.options.all()] == [
        ("ARCHIVE", gaps[0].pk, True), ("STANDARD", gaps[0].pk, False),
        ("EU", gaps[1].pk, True), ("US", gaps[1].pk, False),
    ]  # fmt: skip
    assert answered_right(client, question)


def mixed_dropdown_form(curator, topic) -> dict[str, object]:
    """Gap 1 a drop-down; gap 2 typed text; gap 3 a number typed."""
    data = add_form(
        curator, "dropdown", topic,
        exhibit="```\nstorage_class: [[1]]\nregion: [[2]]\nlatency: [[3]]\n```",
    )  # fmt: skip
    with_rows(
        data, "parts",
        {"prompt": "Storage class", "tolerance": "", **why("it is read once a year")},
        {"prompt": "Region", "accepted": "us-central1\nIowa", "tolerance": "",
         "feedback": '[{"answer": "us-east1", "feedback": "That one is in South Carolina."}]',
         **why("the data stays in Iowa")},
        {"prompt": "Latency", "number": "40", "tolerance": "2", "units": "ms",
         **why("the link is short")},
    )  # fmt: skip
    return with_rows(
        data, "options",
        {"gap": "1", "position": "0", "text": "ARCHIVE", "is_correct": True},
        {"gap": "1", "position": "1", "text": "STANDARD"},
    )  # fmt: skip


def test_a_curator_creates_an_exhibit_with_a_drop_down_and_typed_gaps(curator, client):
    data = mixed_dropdown_form(curator, TopicFactory())
    question = saved(add(curator, "dropdown", data), "dropdown")
    gaps = list(question.parts.all())
    assert [(g.prompt, g.accepted_texts, g.number) for g in gaps] == [
        ("Storage class", [], None),
        ("Region", ["us-central1", "Iowa"], None),
        ("Latency", [], Decimal(40)),
    ]
    assert gaps[2].tolerance == 2
    assert gaps[2].unit_list == ["ms"]
    assert [o.part_id for o in question.options.all()] == [gaps[0].pk, gaps[0].pk]
    assert answered_right(client, question)


@pytest.mark.parametrize(("spoil", "sentence"), [
    (lambda d: fill(d, parts__1__accepted=""),
     "Gap 2 needs choices, or an accepted answer or a number to type."),
    (lambda d: fill(d, parts__2__accepted="forty"),
     "Gap 3 takes either accepted texts or a number, not both."),
    (lambda d: fill(d, parts__0__accepted="ARCHIVE"),
     "Gap 1 takes either choices or a typed answer (accepted texts or a number), not both."),
    (lambda d: fill(d, options__1__gap="2"),
     "Gap 1 needs at least 2 choices (it has 1)."),
    (lambda d: fill(d, options__0__is_correct=False),
     "Gap 1 needs exactly one correct choice."),
])  # fmt: skip
def test_a_mixed_exhibits_gap_rules_refuse_the_save(curator, spoil, sentence):
    from django.utils.html import escape

    data = spoil(mixed_dropdown_form(curator, TopicFactory()))
    before = row_counts()
    response = add(curator, "dropdown", data)
    assert response.status_code == 200
    assert escape(sentence) in errors_at_top(response), every_error(response)
    assert row_counts() == before


# Every rule refuses the save with its sentence, and nothing is saved -------------------------


def keep_rows(prefix: str, data: dict[str, object], *numbers: int) -> dict[str, object]:
    """Keep only the rows `numbers` (renumbered from 0) of an inline's posted rows."""
    kept = []
    for number in numbers:
        head = f"{prefix}-{number}-"
        kept.append(
            {name[len(head) :]: value for name, value in data.items() if name.startswith(head)}
        )
    return with_rows(data, prefix, *kept)


RULES = [
    # (type, what the curator does, the sentence at the top of the form)
    ("ordering", lambda d: keep_rows("options", d, 0),
     "An ordering needs at least 2 steps with a place in the order (this one has 1)."),
    ("ordering", lambda d: fill(d, options__1__order="3", options__2__order=""),
     "The steps' places must be 1, 2, 3, ... each once (these are 1, 3)."),
    ("matching", lambda d: keep_rows("parts", d, 0),
     "A matching needs at least 2 prompts (this one has 1)."),
    ("matching", lambda d: fill(d, parts__1__pool_answer=""),
     "Prompt 2 needs its answer from the pool."),
    ("matching", lambda d: fill(d, parts__1__pool_answer="1"),
     "Two prompts share one answer: allow answers to be used more than once, or give each "
     "prompt its own."),
    ("matching", lambda d: fill(d, parts__2__pool_answer="7"),
     "Prompt 3 needs its answer from the pool."),
    ("matching", lambda d: fill(d, options__2__DELETE=True),
     "Prompt 3 needs its answer from the pool."),
    ("yesno", lambda d: fill(d, parts__1__is_yes="unknown"),
     "Statement 2 needs its answer: yes or no."),
    ("yesno", lambda d: keep_rows("parts", d, 1),
     "A yes/no series needs at least 2 statements (this one has 1)."),
    ("fillin", lambda d: fill(d, parts__0__accepted=""),
     "Blank 1 needs an accepted answer or a number."),
    ("fillin", lambda d: fill(d, parts__1__accepted="forty"),
     "Blank 2 takes either accepted texts or a number, not both."),
    ("dropdown", lambda d: fill(d, exhibit="storage_class: [[1]]"),
     "The exhibit must mark where each gap goes: [[2]] missing."),
    ("dropdown", lambda d: fill(d, exhibit="[[1]] [[2]] [[3]]"),
     "The exhibit marks gaps that do not exist: [[3]]."),
    ("dropdown", lambda d: fill(d, exhibit="[[1]] [[2]] [[2]]"),
     "The exhibit marks a gap more than once."),
    ("dropdown", lambda d: fill(d, options__3__gap="1"),
     "Gap 2 needs at least 2 choices (it has 1)."),
    ("dropdown", lambda d: fill(d, options__1__is_correct=True),
     "Gap 1 needs exactly one correct choice."),
    ("dropdown", lambda d: fill(d, options__3__gap=""),
     "Every choice of a drop-down question belongs to one of its gaps."),
]  # fmt: skip


@pytest.mark.parametrize(("kind", "spoil", "sentence"), RULES)
def test_each_rule_refuses_the_save_with_its_sentence_at_the_top(curator, kind, spoil, sentence):
    from django.utils.html import escape

    data = spoil(FORMS[kind](curator, TopicFactory()))
    before = row_counts()
    response = add(curator, kind, data)
    assert response.status_code == 200
    assert escape(sentence) in errors_at_top(response), every_error(response)
    assert response.content.decode().count(escape(sentence)) == 1  # said once
    assert row_counts() == before


FIELD_ERRORS = [
    ("ordering", lambda d: fill(d, options__3__order="0"), "options-3-order",
     "A place is 1 or more; leave it empty for a step that does not belong."),
    ("fillin", lambda d: fill(d, parts__1__number="forty"), "parts-1-number",
     "The number must be a number: digits with a point for decimals, e.g. 40 or 2.5."),
    ("fillin", lambda d: fill(d, parts__1__number="4,5"), "parts-1-number",
     "The number must be a number: digits with a point for decimals, e.g. 40 or 2.5."),
    ("fillin", lambda d: fill(d, parts__1__tolerance="-1"), "parts-1-tolerance",
     "The tolerance cannot be negative."),
    ("fillin", lambda d: fill(d, parts__0__tolerance="1"), "parts-0-tolerance",
     "A tolerance goes with a number."),
    ("fillin", lambda d: fill(d, parts__0__units="ms"), "parts-0-units",
     "Units go with a number."),
    ("fillin", lambda d: fill(d, parts__1__units="ms; milliseconds"), "parts-1-units",
     "Separate the units with commas, e.g. “ms, milliseconds”, with none empty."),
    ("fillin", lambda d: fill(d, parts__1__units="ms,,s"), "parts-1-units",
     "Separate the units with commas, e.g. “ms, milliseconds”, with none empty."),
    ("fillin", lambda d: fill(d, parts__1__units="ms, 10"), "parts-1-units",
     "A unit is a word after the number, not a number."),
    ("fillin", lambda d: fill(d, parts__0__feedback="[{'answer': 'x'}]"), "parts-0-feedback",
     'The feedback is not valid JSON: write a list of {"answer": "...", "feedback": "..."} '
     "with double quotes."),
    ("fillin", lambda d: fill(d, parts__0__feedback='[{"answer": "x"}]'), "parts-0-feedback",
     'Feedback is a list of {"answer": "...", "feedback": "..."}.'),
    ("fillin", lambda d: fill(d, parts__1__feedback='[{"answer": "forty", "feedback": "No."}]'),
     "parts-1-feedback", "A number blank's feedback is on wrong numbers: “forty” is not one."),
    ("yesno", lambda d: fill(d, parts__0__why=""), "parts-0-why", "This field is required."),
    ("ordering", lambda d: fill(d, options__0__why=""), "options-0-why",
     "This field is required."),
    ("matching", lambda d: fill(d, parts__0__why=""), "parts-0-why", "This field is required."),
    ("dropdown", lambda d: fill(d, parts__1__why=""), "parts-1-why", "This field is required."),
    ("fillin", lambda d: fill(d, parts__1__why=""), "parts-1-why", "This field is required."),
]  # fmt: skip


@pytest.mark.parametrize(("kind", "spoil", "field", "message"), FIELD_ERRORS)
def test_a_rows_bad_value_is_refused_at_its_field(curator, kind, spoil, field, message):
    from django.utils.html import escape

    data = spoil(FORMS[kind](curator, TopicFactory()))
    before = row_counts()
    response = add(curator, kind, data)
    assert response.status_code == 200
    assert f"{field}: <li>{escape(message)}</li>" in every_error(response), every_error(response)
    assert "Please correct the error" in errors_at_top(response)
    assert row_counts() == before


# Editing a stored question --------------------------------------------------------------------


def change_url(question: Question) -> str:
    return reverse("admin:questions_question_change", args=[question.pk])


def stored_rows(question: Question) -> tuple[list[tuple], list[tuple]]:
    options = [
        (o.pk, o.position, o.text, o.is_correct, o.order, o.part_id, o.rationale.why)
        for o in Option.objects.filter(question=question).select_related("rationale")
    ]
    parts = [
        (p.pk, p.position, p.prompt, p.answer_id, p.is_yes, p.accepted, p.number, p.tolerance,
         p.units, p.feedback, p.match_case, p.ignore_spaces, p.why, p.tempting_because)
        for p in Part.objects.filter(question=question)
    ]  # fmt: skip
    return options, parts


def every_stored_type() -> list[Question]:
    single = cast(Question, QuestionFactory())
    multiple = cast(Question, QuestionFactory(kind="multiple", options=[True, True, False]))
    return [single, multiple, *items.every_type()]


def test_a_stored_question_of_each_type_saves_unchanged(curator):
    for question in every_stored_type():
        before = stored_rows(question)
        data = form_of(curator.get(change_url(question)))
        response = curator.post(change_url(question), data)
        assert response.status_code == 302, (question.kind, every_error(response))
        assert stored_rows(question) == before, question.kind


def test_the_change_page_shows_what_each_row_names(curator):
    matching = items.matching(prompts=2, distractors=1)
    text = curator.get(change_url(matching)).text
    assert '<option value="2" selected>Answer 2: Answer 2</option>' in text
    assert "Answer 3: Decoy 1" in text
    dropdown = items.dropdown(gaps=2)
    text = curator.get(change_url(dropdown)).text
    assert '<option value="2" selected>[[2]] Setting 2</option>' in text
    yes_no = items.yes_no(answers=(True, False))
    data = form_of(curator.get(change_url(yes_no)))
    assert (data["parts-0-is_yes"], data["parts-1-is_yes"]) == ("true", "false")


EDITS = [
    ("ordering", lambda: items.ordering(steps=3), {"options-0-order": "2",
                                                   "options-1-order": "1"}),
    ("matching", lambda: items.matching(prompts=3, distractors=1), {"parts-0-pool_answer": "4"}),
    ("yesno", items.yes_no, {"parts-0-is_yes": "false"}),
    ("fillin", items.fill_in, {"parts-1-number": "80"}),
    ("dropdown", items.dropdown, {"options-0-is_correct": "on",
                                              "options-1-is_correct": False}),
]  # fmt: skip


@pytest.mark.parametrize(("kind", "make", "edit"), EDITS)
def test_an_edit_of_a_part_changes_the_pages_answer(
    curator, client, django_capture_on_commit_callbacks, kind, make, edit
):
    question = make()
    old_right = items.right_post(items.page_of(question))  # the page is cached now
    data = form_of(curator.get(change_url(question)))
    for name, value in edit.items():
        if value is False:
            data.pop(name, None)
        else:
            data[name] = value
    with django_capture_on_commit_callbacks(execute=True):
        response = curator.post(change_url(question), data)
    assert response.status_code == 302, every_error(response)
    text = client.post(question.get_absolute_url(), old_right).text
    assert "✓</span> Correct" not in text, kind
    assert answered_right(client, question), kind


def test_removing_an_answer_of_the_pool_leaves_the_prompts_on_theirs(curator):
    question = QuestionFactory(kind="matching", options=[])
    decoy, first, second = (
        Option.objects.create(question=question, position=n, text=text)
        for n, text in enumerate(["Decoy", "First", "Second"])
    )
    for n, answer in enumerate([first, second]):
        Part.objects.create(question=question, position=n, prompt=f"P{n}", answer=answer, why="w")
    data = fill(form_of(curator.get(change_url(question))), options__0__DELETE=True)
    response = curator.post(change_url(question), data)
    assert response.status_code == 302, every_error(response)
    assert [p.answer_id for p in question.parts.all()] == [first.pk, second.pk]
    assert not Option.objects.filter(pk=decoy.pk).exists()


def test_a_new_type_shows_its_rows_to_fill_in_and_saves_nothing_before(curator):
    question = QuestionFactory()
    before = stored_rows(question)
    data = fill(form_of(curator.get(change_url(question))), kind="yesno")
    response = curator.post(change_url(question), data)
    assert response.status_code == 200
    note = "The type is now Yes/no series: fill in its statements below, then save."
    assert note in errors_at_top(response)
    assert stored_rows(question) == before
    question.refresh_from_db()
    assert question.kind == "single"
    # The page now has the statements' rows; filled in, they are saved, the options go.
    data = form_of(response)
    assert "options-TOTAL_FORMS" not in data
    with_rows(
        data, "parts",
        {"position": "0", "prompt": "It is encrypted.", "is_yes": "true", **why("a")},
        {"position": "1", "prompt": "It is public.", "is_yes": "false", **why("b")},
    )  # fmt: skip
    response = curator.post(change_url(question), data)
    assert response.status_code == 302, every_error(response)
    question.refresh_from_db()
    assert question.kind == "yesno"
    assert not question.options.exists()
    assert [p.is_yes for p in question.parts.all()] == [True, False]


def test_choices_become_steps_once_they_have_places(curator):
    question = QuestionFactory(options=[True, False, False])
    data = fill(form_of(curator.get(change_url(question))), kind="ordering")
    response = curator.post(change_url(question), data)
    sentence = "An ordering needs at least 2 steps with a place in the order (this one has 0)."
    assert sentence in errors_at_top(response)
    data = fill(form_of(response), options__0__order="2", options__1__order="1")
    response = curator.post(change_url(question), data)
    assert response.status_code == 302, every_error(response)
    steps = list(question.options.all())
    assert [(s.order, s.is_correct) for s in steps] == [(2, False), (1, False), (None, False)]


def test_drop_down_choices_become_steps_and_survive_their_gaps(curator):
    question = items.dropdown(gaps=2)
    data = fill(form_of(curator.get(change_url(question))), kind="ordering")
    response = curator.post(change_url(question), data)
    assert response.status_code == 200
    data = form_of(response)
    assert "parts-TOTAL_FORMS" not in data
    for n in range(4):
        data[f"options-{n}-order"] = str(n + 1)
    response = curator.post(change_url(question), data)
    assert response.status_code == 302, every_error(response)
    assert not question.parts.exists()
    assert [(o.order, o.part_id) for o in question.options.all()] == [
        (1, None), (2, None), (3, None), (4, None),
    ]  # fmt: skip


def test_a_viewer_reads_each_types_page_without_changing_it(client):
    from django.contrib.auth.models import Permission

    from tests.factories import UserFactory

    viewer = UserFactory(is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_question"))
    client.force_login(viewer)
    for question in every_stored_type():
        response = client.get(change_url(question))
        assert response.status_code == 200, question.kind
        assert 'name="_save"' not in response.text


# Query counts ---------------------------------------------------------------------------------


def with_blanks(count: int) -> Question:
    question = items.fill_in()
    for n in range(2, count):
        items._part(question, n, prompt=f"Blank {n}", accepted="x")
    return question


SIZES = [
    ("ordering", lambda: items.ordering(steps=2), lambda: items.ordering(steps=8, extra=2)),
    ("matching", lambda: items.matching(prompts=2, distractors=0),
     lambda: items.matching(prompts=9, distractors=3)),
    ("yesno", lambda: items.yes_no(answers=(True, False)),
     lambda: items.yes_no(answers=(True, False) * 6)),
    ("fillin", lambda: with_blanks(2), lambda: with_blanks(10)),
    ("dropdown", lambda: items.dropdown(gaps=1), lambda: items.dropdown(gaps=8)),
]  # fmt: skip


@pytest.mark.parametrize(("kind", "small", "large"), SIZES)
def test_the_change_page_query_count_does_not_grow_with_the_parts(
    curator, django_assert_num_queries, kind, small, large
):
    # The session and user, the question, each list of rows once, the related questions, its
    # topic and exam for the autocomplete, its author, the case studies of its exam: a
    # matching and drop-downs have two lists of rows (their pool and prompts, gaps and
    # choices), whose selects name the other list's rows from its query.
    expected = 9 if kind in ("matching", "dropdown") else 8
    few, many = small(), large()
    curator.get(change_url(few))  # Django's content types, read once per process
    with django_assert_num_queries(expected):
        assert curator.get(change_url(few)).status_code == 200
    with django_assert_num_queries(expected):
        assert curator.get(change_url(many)).status_code == 200


def test_the_add_pages_query_count_does_not_depend_on_the_type(curator, django_assert_num_queries):
    for kind in ("single", "ordering", "matching", "yesno", "fillin", "dropdown"):
        with django_assert_num_queries(2):  # the session and user, the case studies
            assert curator.get(ADD, {"kind": kind}).status_code == 200


# The question list: type and case study -------------------------------------------------------


def case_study(exam, title: str = "Dress4Win") -> CaseStudy:
    slug = title.lower().replace(" ", "-")
    return CaseStudy.objects.create(exam=exam, slug=slug, title=title, scenario="A retailer.")


def listed_uids(response) -> list[str]:
    return re.findall(r'<th class="field-uid"><a href="[^"]+">([^<]+)</a>', response.text)


def test_the_list_shows_and_filters_by_type_and_case_study(curator):
    topic = TopicFactory()
    case = case_study(topic.exam)
    shared = items.yes_no(topic)
    shared.case_study = case
    shared.save()
    items.ordering(topic, uid="ord-1")
    QuestionFactory(topic=topic, uid="single-1")
    response = curator.get(CHANGELIST)
    row = response.text[response.text.index(shared.uid) :][:3000]
    assert "Yes/no series" in row
    assert '<td class="field-case_study_title">Dress4Win</td>' in row
    assert listed_uids(curator.get(CHANGELIST, {"case_study": case.pk})) == [shared.uid]
    assert shared.uid not in listed_uids(curator.get(CHANGELIST, {"case_study": "none"}))
    assert listed_uids(curator.get(CHANGELIST, {"kind__exact": "ordering"})) == ["ord-1"]
    assert listed_uids(curator.get(CHANGELIST, {"case_study": "x"})) == []


def test_the_lists_query_count_does_not_grow_with_case_studies(curator, django_assert_num_queries):
    topic = TopicFactory()
    for n in range(3):
        QuestionFactory(topic=topic, case_study=case_study(topic.exam, f"Case {n}"))
    curator.get(CHANGELIST)  # Django's content types, read once per process
    # The session and user, the count, the page of questions with their topics, exams and case
    # studies, the filters' exams, topics and case studies; the bank checks' exams and what
    # their flags depend on (the flags cached by the first look)
    with django_assert_num_queries(9):
        curator.get(CHANGELIST)
    for n in range(3, 20):
        QuestionFactory(topic=topic, case_study=case_study(topic.exam, f"Case {n}"))
    curator.get(CHANGELIST)  # the bank changed: its flags are linted again, once
    with django_assert_num_queries(9):
        response = curator.get(CHANGELIST)
    assert len(listed_uids(response)) == 20


# Case studies ----------------------------------------------------------------------------------


def test_case_studies_are_listed_per_exam_with_their_questions_count(curator):
    topic = TopicFactory(exam__code="PCA")
    used = case_study(topic.exam, "Mountkirk Games")
    QuestionFactory.create_batch(2, topic=topic, case_study=used)
    other = case_study(TopicFactory(exam__code="ACE").exam, "TerramEarth")
    response = curator.get(CASE_STUDIES)
    assert response.status_code == 200
    row = response.text[response.text.index("Mountkirk Games") :][:1500]
    assert "PCA" in row
    assert '<td class="field-question_count">2</td>' in row
    by_exam = curator.get(CASE_STUDIES, {"exam__id__exact": other.exam_id}).text
    assert "TerramEarth" in by_exam
    assert "Mountkirk Games" not in by_exam
    found = curator.get(CASE_STUDIES, {"q": "mountkirk"}).text
    assert "Mountkirk Games" in found
    assert "TerramEarth" not in found


def test_a_case_studys_page_lists_the_questions_that_use_it(curator):
    topic = TopicFactory()
    case = case_study(topic.exam)
    first = QuestionFactory(topic=topic, case_study=case, uid="dw-1", stem="Which **database**?")
    QuestionFactory(topic=topic, uid="dw-other")
    text = curator.get(reverse("admin:questions_casestudy_change", args=[case.pk])).text
    assert f'<a href="{change_url(first)}">dw-1</a> (Single answer): Which database?' in text
    assert "dw-other" not in text


def test_a_case_study_edit_reaches_its_questions_pages(
    curator, client, django_capture_on_commit_callbacks
):
    topic = TopicFactory()
    case = case_study(topic.exam)
    question = QuestionFactory(topic=topic, case_study=case)
    assert "A retailer." in client.get(question.get_absolute_url()).text
    url = reverse("admin:questions_casestudy_change", args=[case.pk])
    data = fill(
        form_of_case_study(curator, url), scenario="A **fashion** retailer moving to the cloud."
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert curator.post(url, data).status_code == 302
    assert "A <strong>fashion</strong> retailer" in client.get(question.get_absolute_url()).text


def test_a_used_case_study_keeps_its_exam(curator):
    topic = TopicFactory()
    case = case_study(topic.exam)
    QuestionFactory(topic=topic, case_study=case)
    elsewhere = TopicFactory()
    url = reverse("admin:questions_casestudy_change", args=[case.pk])
    data = fill(form_of_case_study(curator, url), exam=str(elsewhere.exam_id))
    response = curator.post(url, data)
    assert response.status_code == 200
    assert "1 question(s) of" in response.text
    case.refresh_from_db()
    assert case.exam_id == topic.exam_id


def test_a_question_takes_only_a_case_study_of_its_exam(curator):
    topic = TopicFactory(exam__code="PCA")
    mine = case_study(topic.exam, "Mountkirk Games")
    theirs = case_study(TopicFactory(exam__code="ACE").exam, "TerramEarth")
    question = QuestionFactory(topic=topic)
    text = curator.get(change_url(question)).text
    assert "Mountkirk Games" in text
    assert "TerramEarth" not in text  # the change page offers its exam's only
    data = fill(form_of(curator.get(ADD, {"kind": "single"})), case_study=str(theirs.pk))
    data.update(
        {"uid": "cs-0001", "topic": str(topic.pk), "stem": "S?", "explanation": "E.",
         "options-0-text": "A", "options-0-is_correct": "on", "options-1-text": "B"}
    )  # fmt: skip
    before = row_counts()
    response = add(curator, "single", data)
    assert response.status_code == 200
    assert (
        "The case study “TerramEarth” belongs to ACE; this question&#x27;s topic is in PCA. "
        "Choose one of PCA, or none." in response.text
    )
    assert row_counts() == before
    data["case_study"] = str(mine.pk)
    assert add(curator, "single", data).status_code == 302
    assert Question.objects.get(uid="cs-0001").case_study == mine


# Publishing -------------------------------------------------------------------------------------


def test_publishing_asks_for_the_rationales_the_page_shows(curator):
    matching = items.matching(status="draft")  # its pool has no rationales: the prompts do
    Rationale.objects.filter(option__question=matching).update(why="")
    yes_no = items.yes_no()
    Question.objects.filter(pk=yes_no.pk).update(status="draft")
    Part.objects.filter(question=yes_no, position=1).update(why="")
    response = curator.post(
        CHANGELIST,
        {"action": "publish", "_selected_action": [matching.pk, yes_no.pk]},
        follow=True,
    )
    assert "Published 1 question(s)." in response.text
    assert "Not published: 1 question(s)" in response.text
    statuses = dict(Question.objects.values_list("kind", "status"))
    assert statuses == {"matching": "published", "yesno": "draft"}
