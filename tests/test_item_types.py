"""The item types beyond choice: ordering, matching, yes/no series, fill-in and drop-downs in
an exhibit, on the question page. What the page shows before an answer (nothing of the
answer), the result part by part, partial credit, and bad input that records nothing."""

import re
from decimal import Decimal

import pytest
from django.core.cache import cache
from django.db import connection

from progress.practice.models import Attempt
from progress.practice.pending import QUESTION_BATCH, PendingWork
from questions.grading import (
    AnswerKey,
    KeyPart,
    Response,
    grade,
    normal_text,
    parse_number,
)
from questions.models import Kind, Part, Scoring
from tests import items
from tests.items import served_form

pytestmark = pytest.mark.django_db


def post(client, question, data, htmx=False):
    headers = {"HX-Request": "true"} if htmx else {}
    return client.post(question.get_absolute_url(), data, headers=headers)


# Grading, without a page. ----------------------------------------------------------------


def test_an_ordering_is_right_only_in_its_order_and_partial_credit_counts_places():
    key = AnswerKey(kind="ordering", correct=("a", "b", "c"), options=("c", "a", "x", "b"))
    right = grade(key, Response(values=(("a", "1"), ("b", "2"), ("c", "3"))))
    assert right.is_correct
    assert right.score == 1
    swapped = grade(key, Response(values=(("a", "1"), ("c", "2"), ("b", "3"))))
    assert not swapped.is_correct
    assert swapped.score == 0
    partial = AnswerKey(**{**key.__dict__, "scoring": "partial"})
    assert grade(partial, Response(values=(("a", "1"), ("c", "2"), ("b", "3")))).score == 1 / 3
    # A step that does not belong, put in the order, is wrong even with the rest right.
    with_decoy = grade(key, Response(values=(("a", "1"), ("b", "2"), ("c", "3"), ("x", "3"))))
    assert not with_decoy.is_correct
    assert [r.correct for r in with_decoy.parts] == [True, True, False, True]


def test_text_blanks_follow_their_case_and_space_rules():
    loose = KeyPart("p", accepted=("Cloud Storage",))
    assert grade_blank(loose, "  cloud   storage ") is True
    assert (
        grade_blank(KeyPart("p", accepted=("Cloud Storage",), match_case=True), "cloud storage")
        is False
    )
    assert grade_blank(KeyPart("p", accepted=("10.0.0.0/8",), ignore_spaces=True), "10.0.0.0 / 8")
    assert grade_blank(loose, "") is False
    full_width = "\uff23\uff4c\uff4f\uff55\uff44"
    assert normal_text(full_width, match_case=False, ignore_spaces=False) == "cloud"


def grade_blank(part: KeyPart, text: str) -> bool:
    key = AnswerKey(kind="fillin", parts=(part,))
    return grade(key, Response(values=((part.key, text),))).is_correct


def test_numbers_take_a_tolerance_and_the_listed_units_only():
    part = KeyPart("n", number=Decimal(40), tolerance=Decimal(2), units=("ms",))
    assert grade_blank(part, "41.5")
    assert grade_blank(part, "38 ms")
    assert grade_blank(part, "4e1")
    assert not grade_blank(part, "43")
    assert parse_number("40 s", ["ms"]) is None
    assert parse_number("forty") is None
    assert parse_number("1,5") is None


def test_a_common_wrong_answer_gets_its_feedback():
    part = KeyPart("p", accepted=("us-central1",), feedback=(("US-EAST1", "Wrong coast."),))
    result = grade(AnswerKey(kind="fillin", parts=(part,)), Response(values=(("p", "us-east1"),)))
    assert result.parts[0].feedback == "Wrong coast."


def test_select_all_with_partial_credit_takes_wrong_ticks_away():
    key = AnswerKey(kind="multiple", scoring="partial", correct=("a", "b"), options=("a", "b", "c"))
    assert grade(key, Response(choices=("a",))).score == 0.5
    assert grade(key, Response(choices=("a", "c"))).score == 0
    assert grade(key, Response(choices=("a", "b"))).score == 1


def test_responses_survive_their_stored_form():
    response = Response(choices=("k1",), values=(("p1", "a=b c"),))
    assert Response.from_keys(response.keys()) == response


# The page before an answer. --------------------------------------------------------------


def test_every_type_renders_inputs_that_work_without_javascript(client):
    for question in items.every_type():
        text = client.get(question.get_absolute_url()).text
        page = items.page_of(question)
        if question.kind == Kind.ORDERING:
            assert text.count("<select") == len(page.options)
        elif question.kind == Kind.YES_NO:
            assert text.count('type="radio"') == 2 * len(page.parts)
        elif question.kind == Kind.FILL_IN:
            assert 'type="text"' in text
            assert 'inputmode="decimal"' in text
        else:
            assert text.count("<select") == len(page.parts)
        assert "Check answer" in text


def test_nothing_of_the_answer_reaches_the_page_before_answering(client):
    for question in items.every_type():
        text = client.get(question.get_absolute_url()).text
        for part in Part.objects.filter(question=question):
            for secret in (part.why, part.tempting_because, part.right_when, *part.accepted_texts):
                assert secret not in text, f"{question.kind}: {secret!r} leaked"
            if part.number is not None:
                assert not re.search(rf"\b{int(part.number)}\b", text)
        for option in question.options.select_related("rationale"):
            assert option.rationale.why not in text
        assert not re.search(r"selected|checked", text), question.kind
        assert question.explanation not in text


def test_ordering_steps_arrive_shuffled_with_keys_that_say_nothing(client):
    question = items.ordering(steps=5)
    text = client.get(question.get_absolute_url()).text
    shown = re.findall(r"Step (\d)", text)
    assert sorted(shown) == ["1", "2", "3", "4", "5"]
    assert shown != ["1", "2", "3", "4", "5"]
    names = re.findall(r'name="place-([^"]+)"', text)
    stored = {o.key: o for o in question.options.all()}
    assert set(names) == set(stored)
    assert not any(str(o.pk) in names or str(o.order) in names for o in stored.values())


def test_a_matching_pool_arrives_shuffled(client):
    question = items.matching(prompts=4, distractors=2)
    text = client.get(question.get_absolute_url()).text
    first_select = text[text.index("<select") : text.index("</select>")]
    shown = re.findall(r">(Answer \d|Decoy \d)<", first_select)
    assert len(shown) == 6
    assert shown != ["Answer 1", "Answer 2", "Answer 3", "Answer 4", "Decoy 1", "Decoy 2"]


def test_drop_downs_sit_in_the_exhibit_where_it_marks_them(client):
    question = items.dropdown(gaps=2)
    text = client.get(question.get_absolute_url()).text
    assert "[[1]]" not in text
    assert "[[2]]" not in text
    assert re.search(r"setting_1: <select[^>]*aria-label=\"Drop-down 1: Setting 1\"", text)


def test_a_mixed_exhibit_shows_each_gap_in_place_as_a_select_or_a_labelled_input(client):
    question = items.mixed_dropdown()
    text = client.get(question.get_absolute_url()).text
    assert re.search(r"storage: <select[^>]*aria-label=\"Drop-down 1: Storage class\"", text)
    assert re.search(r'region: <input[^>]*type="text"[^>]*aria-label="Blank 2: Region"', text)
    assert re.search(
        r'latency: <input[^>]*inputmode="decimal"[^>]*aria-label="Blank 3: Latency"', text
    )
    assert "(unit: ms)" in text
    assert text.count("<select") == 1
    assert "Choose or type the right value in each gap of the exhibit." in text


def test_nothing_of_a_mixed_exhibits_answer_reaches_the_page_before_answering(client):
    question = items.mixed_dropdown()
    text = client.get(question.get_absolute_url()).text
    for secret in ("us-central1", "Iowa", "South Carolina", "Why Right 1 goes there."):
        assert secret not in text
    for part in Part.objects.filter(question=question):
        assert part.why not in text
    assert not re.search(r"\b40\b", text)
    assert not re.search(r"selected|checked", text)


def test_a_mixed_exhibit_is_graded_gap_by_gap_with_partial_credit(client):
    question = items.mixed_dropdown(scoring=Scoring.PARTIAL)
    page = items.page_of(question)
    right = items.right_post(page)
    text = post(client, question, right).text
    assert "✓</span> Correct" in text
    typed = {**right, f"gap-{page.parts[1].key}": "  IOWA ", f"gap-{page.parts[2].key}": "41 ms"}
    assert "✓</span> Correct" in post(client, question, typed).text
    wrong = {**right, f"gap-{page.parts[1].key}": "us-east1"}
    text = post(client, question, wrong).text
    assert "Partly right: 67%" in text
    assert "That region is in South Carolina." in text
    assert "us-central1 (also accepted: Iowa)" in text  # the right answer, after answering


def test_a_mixed_exhibit_all_or_nothing_wants_every_gap(client):
    question = items.mixed_dropdown()
    page = items.page_of(question)
    data = {**items.right_post(page), f"gap-{page.parts[2].key}": "50"}
    text = post(client, question, data).text
    assert "Not quite" in text
    assert "You got 2 of the 3 parts right" in text


def test_text_in_a_number_gap_is_a_400_that_records_nothing(client, learner):
    client.force_login(learner)
    question = items.mixed_dropdown()
    page = items.page_of(question)
    data = {**items.right_post(page), f"gap-{page.parts[2].key}": "forty"}
    response = post(client, question, data)
    assert response.status_code == 400
    assert "Blank 3: Give a number here" in response.text
    assert not Attempt.objects.exists()


# The result. ---------------------------------------------------------------------------


def test_the_right_answer_of_every_type_is_correct_with_its_part_rationales(client):
    for question in items.every_type():
        page = items.page_of(question)
        response = post(client, question, items.right_post(page))
        assert response.status_code == 200, (question.kind, response.text)
        text = response.text
        assert "✓</span> Correct" in text, question.kind
        for part in Part.objects.filter(question=question):
            assert part.why in text
        assert question.explanation in text


def test_the_verdict_says_which_parts_were_right(client):
    question = items.yes_no(answers=(True, False, True))
    page = items.page_of(question)
    data = items.right_post(page)
    data[f"yesno-{page.parts[1].key}"] = "yes"
    text = post(client, question, data).text
    assert "Not quite" in text
    assert "You got 2 of the 3 parts right" in text
    assert text.count("mark-correct") == 2
    assert text.count("mark-incorrect") == 1


def test_partial_credit_shows_the_share_earned(client):
    question = items.matching(prompts=4, distractors=0, scoring=Scoring.PARTIAL)
    page = items.page_of(question)
    data = items.right_post(page)
    first, second = (f"match-{part.key}" for part in page.parts[:2])
    data[first], data[second] = data[second], data[first]
    text = post(client, question, data).text
    assert "Partly right: 50%" in text
    assert "for 50% of the mark" in text


def test_a_fill_in_shows_the_feedback_for_a_common_wrong_answer(client):
    question = items.fill_in()
    page = items.page_of(question)
    data = items.right_post(page)
    data[f"blank-{page.parts[0].key}"] = "US-East1"
    text = post(client, question, data).text
    assert "That region is in South Carolina." in text
    assert "us-central1" in text  # the right answer, shown now


# Bad input records nothing. -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (lambda data, page: data.pop(next(iter(data))), "Answer this part."),
        (lambda data, page: data.update({"match-nosuchpart": "x"}), "names a part"),
        (
            lambda data, page: data.update({next(iter(data)): ["a", "b"]}),
            "answered twice",
        ),
        (lambda data, page: data.update({next(iter(data)): "not-an-answer"}), "not one of"),
    ],
)
def test_bad_matching_answers_are_a_400_and_record_nothing(client, learner, spoil, message):
    question = items.matching()
    page = items.page_of(question)
    data = items.right_post(page)
    spoil(data, page)
    response = post(client, question, {**data, **served_form(client, question)})
    assert response.status_code == 400
    assert message in response.text
    assert not Attempt.objects.exists()


def test_text_where_a_number_belongs_is_a_400(client, learner):
    question = items.fill_in()
    page = items.page_of(question)
    data = items.right_post(page)
    data[f"blank-{page.parts[1].key}"] = "about forty"
    response = post(client, question, {**data, **served_form(client, question)})
    assert response.status_code == 400
    assert "Give a number here" in response.text
    assert 'value="about forty"' in response.text  # the learner's text is kept
    assert not Attempt.objects.exists()


def test_an_ordering_needs_every_place_once(client, learner):
    question = items.ordering(steps=3)
    page = items.page_of(question)
    data = items.right_post(page)
    keys = list(data)
    data[keys[0]] = data[keys[1]]
    response = post(client, question, {**data, **served_form(client, question)})
    assert response.status_code == 400
    assert "holds 2 steps" in response.text
    assert "is still empty" in response.text
    assert not Attempt.objects.exists()


def test_matching_without_reuse_refuses_one_answer_for_two_prompts(client):
    question = items.matching(prompts=3)
    page = items.page_of(question)
    data = items.right_post(page)
    keys = list(data)
    data[keys[1]] = data[keys[0]]
    assert post(client, question, data).status_code == 400
    question.reuse_answers = True
    question.save()
    cache.clear()  # as the edit's commit does (forget_questions)
    assert post(client, question, data).status_code == 200


# Recorded, with the score. ------------------------------------------------------------------


def test_a_signed_in_answer_records_its_score_and_each_parts_verdict(client, learner):
    question = items.ordering(steps=4, scoring=Scoring.PARTIAL)
    page = items.page_of(question)
    data = items.right_post(page)
    keys = [f"place-{o.key}" for o in sorted(page.options, key=lambda o: o.order)]
    data[keys[2]], data[keys[3]] = "4", "3"
    post(client, question, {**data, **served_form(client, question)})
    attempt = Attempt.objects.get()
    assert attempt.score == 0.5
    assert attempt.is_correct is False
    assert sorted(item["correct"] for item in attempt.chosen) == [False, False, True, True]
    assert "Step 1: place 1" in [item["text"] for item in attempt.chosen]


def test_answer_query_count_does_not_grow_with_the_parts(
    client, learner, django_assert_num_queries
):
    PendingWork.objects.create(work=QUESTION_BATCH)
    writes = 1 if connection.vendor == "postgresql" else 4
    for prompts in (2, 8):
        question = items.matching(prompts=prompts, distractors=1)
        form = served_form(client, question)
        data = items.right_post(items.page_of(question))
        # as a choice question's answer (tests/test_attempts.py)
        with django_assert_num_queries(6 + writes):
            assert post(client, question, {**data, **form}).status_code == 200


def test_a_page_of_parts_is_built_with_one_query_more_whatever_their_number(
    client, django_assert_num_queries
):
    for prompts in (2, 8):
        question = items.matching(prompts=prompts)
        with django_assert_num_queries(4):  # question, options, related, parts
            client.get(question.get_absolute_url())
        with django_assert_num_queries(0):
            client.get(question.get_absolute_url())


def test_the_history_says_what_was_given_part_by_part(client, learner):
    from django.urls import reverse

    question = items.matching(prompts=2)
    page = items.page_of(question)
    post(client, question, {**items.right_post(page), **served_form(client, question)})
    text = client.get(reverse("history")).text
    assert "Prompt 1: Answer 1; Prompt 2: Answer 2" in text


def test_a_wrong_drop_down_choice_shows_why_it_does_not_fit(client):
    question = items.dropdown(gaps=2)
    page = items.page_of(question)
    data = items.right_post(page)
    wrong = next(c for c in page.parts[0].choice_views if not c.is_correct)
    data[f"gap-{page.parts[0].key}"] = wrong.key
    text = post(client, question, data).text
    assert "Why your answer does not fit" in text
    assert "Why Wrong 1 goes there." in text
    assert "Why Right 2 goes there." not in text  # a right part needs no excuse


def test_a_choose_k_of_n_result_counts_the_steps_of_the_order_and_the_strays(client):
    question = items.ordering(steps=3, extra=2)
    page = items.page_of(question)
    data = items.right_post(page)
    assert "You put 3 of the 3 steps in their place." in post(client, question, data).text
    stray = next(o for o in page.options if o.order is None)
    first = next(o for o in page.options if o.order == 1)
    data[f"place-{first.key}"], data[f"place-{stray.key}"] = "", "1"
    text = post(client, question, data).text
    assert "You put 2 of the 3 steps in their place, and 1 step that does not belong." in text
