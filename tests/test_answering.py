"""Answering a question: the result, the same partial with and without htmx, bad input, and
how an edit reaches the page."""

import json
import re
from unittest import mock

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from questions.bank.document_import import import_document
from questions.models import Question, Rationale
from tests.banks import make_bank
from tests.factories import QuestionFactory, StaffFactory
from tests.unanswered import assert_nothing_revealed

pytestmark = pytest.mark.django_db


def keys_of(question: Question) -> tuple[list[str], list[str]]:
    options = list(question.options.order_by("position", "id"))
    return [o.key for o in options if o.is_correct], [o.key for o in options if not o.is_correct]


@pytest.fixture
def single():
    question = QuestionFactory(
        explanation="Because **MFA** stops replayed passwords.", options=[False, True, False]
    )
    Rationale.objects.filter(option__question=question, option__is_correct=True).update(
        tempting_because="", right_when=""
    )
    return question


@pytest.fixture
def multiple():
    return QuestionFactory(kind="multiple", options=[True, False, True, False])


def answer(client, question, choices, htmx=False, **kwargs):
    headers = {"HX-Request": "true"} if htmx else {}
    return client.post(question.get_absolute_url(), {"choice": choices}, headers=headers, **kwargs)


def test_right_answer_shows_the_full_breakdown(client, single):
    right, _ = keys_of(single)
    response = answer(client, single, right[0])
    assert response.status_code == 200
    text = response.text
    assert "✓</span> Correct" in text
    assert "Because <strong>MFA</strong> stops replayed passwords." in text
    for option in single.options.select_related("rationale"):
        assert option.text in text
        assert option.rationale.why in text
        if option.rationale.tempting_because:
            assert "Why learners pick it" in text
            assert option.rationale.tempting_because in text
            assert option.rationale.right_when in text
    assert text.count("Correct answer</span>") == 1
    assert "Your choice: right" in text
    # The verdict names the right answer, then the breakdown says why, option by option.
    correct = single.options.get(is_correct=True)
    letter = "ABC"[list(single.options.order_by("position")).index(correct)]
    assert re.search(
        rf"Correct answer:</strong>\s*<span class=\"answer-name\">{letter}\. {correct.text}</span>",
        text,
    )
    assert text.count("Why this is correct") == 1
    assert text.count("Why it\u2019s wrong here") == 2
    assert text.index("Correct answer:") < text.index("Explanation") < text.index("Why this is")
    assert ">Check answer</button>" not in text  # the form gave way to the result


def test_wrong_answer_marks_the_choice_and_the_correct_option(client, single):
    _, wrong = keys_of(single)
    text = answer(client, single, wrong[0]).text
    assert "✗</span> Not quite" in text
    assert "Your choice: wrong" in text
    assert "Correct answer</span>" in text
    # Marked by words and icons, not colour alone.
    assert text.index("Your choice: wrong") < text.index("Correct answer</span>")


def test_multiple_answer_reports_right_wrong_and_missed(client, multiple):
    right, wrong = keys_of(multiple)
    text = answer(client, multiple, [right[0], wrong[0]]).text
    assert "Not quite" in text
    assert "You chose 1 of the 2 correct options and 1 wrong one; you missed 1." in text
    assert text.count("Your choice: right") == 1
    assert text.count("Your choice: wrong") == 1
    assert text.count("You missed this one") == 1


def test_multiple_answer_all_right(client, multiple):
    right, _ = keys_of(multiple)
    text = answer(client, multiple, right).text
    assert "✓</span> Correct" in text
    assert "You chose 2 of the 2 correct options." in text


def test_related_questions_references_and_review_date_are_shown(client, single):
    target = QuestionFactory(stem="Where do **keys** live?")
    hidden = QuestionFactory(stem="A draft neighbour", status="draft")
    single.related_links.create(to_question=target, position=0)
    single.related_links.create(to_question=hidden, position=1)
    Question.objects.filter(pk=single.pk).update(
        reviewed_on="2026-03-04",
        references=[{"title": "NIST SP 800-63B", "url": "https://pages.nist.gov/800-63-3/"}],
    )
    right, _ = keys_of(single)
    text = answer(client, single, right).text
    related = text.index("Related to this question")
    assert text.index(f'href="{target.get_absolute_url()}">Where do keys live?</a>') > related
    assert "A draft neighbour" not in text
    assert 'Last reviewed <time datetime="2026-03-04">March 2026</time>' in text
    # References stay under "Go deeper".
    assert text.index("Go deeper") < text.index('href="https://pages.nist.gov/800-63-3/"')


def test_htmx_gets_the_result_partial_and_the_plain_post_the_whole_page(client, single):
    right, _ = keys_of(single)
    partial = answer(client, single, right, htmx=True)
    page = answer(client, single, right)
    assert partial.status_code == page.status_code == 200
    assert "<html" not in partial.text
    assert "<html" in page.text
    assert partial.text.strip().startswith('<section id="result"')
    # Both render the same partial.
    start = page.text.index('<section id="result"')
    end = page.text.index("</section>", start)
    assert page.text[start:end] in partial.text


# Bad input: 400, the form again with a reason, nothing revealed, nothing graded. ------------


@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
@pytest.mark.parametrize(
    ("make_choices", "message"),
    [
        (lambda right, wrong, other: [], "Choose an answer before checking it."),
        (lambda right, wrong, other: right + wrong[:1], "takes one answer: choose a single option"),
        (lambda right, wrong, other: other[:1], "not one of this question&#x27;s options"),
        (lambda right, wrong, other: ["123"], "not one of this question&#x27;s options"),
        (lambda right, wrong, other: ["<script>"], "not one of this question&#x27;s options"),
    ],
    ids=["nothing", "several", "other-question", "numeric", "garbage"],
)
def test_bad_answers_to_a_single_question(client, single, make_choices, message, htmx):
    other = QuestionFactory()
    right, wrong = keys_of(single)
    response = answer(client, single, make_choices(right, wrong, keys_of(other)[0]), htmx=htmx)
    # A plain post gets a 400 page; htmx gets 422, which base.html's htmx-config swaps in
    # place (with DEBUG on, django-htmx's helper would replace the whole page on a 400).
    assert response.status_code == (422 if htmx else 400)
    assert message in response.text
    assert ">Check answer</button>" in response.text
    assert ("<html" in response.text) is not htmx
    assert_nothing_revealed(response, single)


@pytest.mark.parametrize(
    ("choices", "message"),
    [
        ([], "Choose at least one option before checking your answer."),
        (["nope"], "not one of this question&#x27;s options"),
    ],
)
def test_bad_answers_to_a_multiple_question(client, multiple, choices, message):
    response = answer(client, multiple, choices)
    assert response.status_code == 400
    assert message in response.text
    assert_nothing_revealed(response, multiple)


def test_a_valid_choice_stays_ticked_when_the_form_comes_back(client, multiple):
    right, _ = keys_of(multiple)
    response = answer(client, multiple, [right[0], "bogus"])
    assert response.status_code == 400
    assert f'value="{right[0]}" id="choice-1" checked' in response.text


def test_a_huge_body_is_a_400_with_the_form(client, single):
    payload = {"choice": "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 10)}
    response = client.post(single.get_absolute_url(), payload)
    assert response.status_code == 400
    assert "too large to read" in response.text
    assert ">Check answer</button>" in response.text
    assert_nothing_revealed(response, single)


def test_a_huge_body_caught_by_the_csrf_check_still_shows_the_question(single):
    client = Client(enforce_csrf_checks=True)
    client.get(single.get_absolute_url())  # the CSRF cookie, as a browser would have it
    payload = {"choice": "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 10)}
    response = client.post(single.get_absolute_url(), payload)
    assert response.status_code == 400
    assert "too large to read" in response.text
    assert_nothing_revealed(response, single)


def test_too_many_fields_is_a_400(client, single):
    payload = {f"f{n}": "1" for n in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 5)}
    response = client.post(single.get_absolute_url(), payload)
    assert response.status_code == 400
    assert_nothing_revealed(response, single)


def test_csrf_is_enforced(single):
    client = Client(enforce_csrf_checks=True)
    right, _ = keys_of(single)
    response = client.post(single.get_absolute_url(), {"choice": right})
    assert response.status_code == 403
    page = client.get(single.get_absolute_url())
    token = page.text.split('name="csrfmiddlewaretoken" value="')[1].split('"')[0]
    response = client.post(
        single.get_absolute_url(), {"choice": right, "csrfmiddlewaretoken": token}
    )
    assert response.status_code == 200


def test_other_methods_are_refused(client, single):
    assert client.put(single.get_absolute_url()).status_code == 405
    assert client.delete(single.get_absolute_url()).status_code == 405


def test_answer_post_query_count_is_flat(client, django_assert_num_queries):
    for layout in ([True, False], [True] + [False] * 7):
        question = QuestionFactory(options=layout)
        client.get(question.get_absolute_url())  # fills the cache
        right, _ = keys_of(question)
        with django_assert_num_queries(0):
            assert answer(client, question, right).status_code == 200


# Edits reach the page. ------------------------------------------------------------------------


def test_an_admin_edit_shows_at_once(client, single, django_capture_on_commit_callbacks):
    assert "Old stem" not in client.get(single.get_absolute_url()).text
    staff = Client()
    staff.force_login(StaffFactory())
    from tests.admin_forms import question_post

    options = [
        {"id": o.pk, "text": o.text, "correct": o.is_correct, "why": o.rationale.why}
        for o in single.options.select_related("rationale")
    ]
    url = reverse("admin:questions_question_change", args=[single.pk])
    data = question_post(
        single, topic=single.topic, uid=single.uid, status="published", options=options,
        stem="A **freshly** edited stem",
    )  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        assert staff.post(url, data).status_code == 302
    assert "A <strong>freshly</strong> edited stem" in client.get(single.get_absolute_url()).text


def test_an_edit_reaches_the_result_a_process_kept(
    client, single, django_capture_on_commit_callbacks
):
    """The result's HTML is kept in the process by the page snapshot's version: an edit makes
    a new snapshot, so the next answer shows the new text, not the kept one."""
    from questions.pages.snapshot import forget_questions

    right = single.options.get(is_correct=True).key
    for _ in range(2):  # rendered, then served from what the process kept
        assert "stops replayed passwords" in answer(client, single, right).text
    Question.objects.filter(pk=single.pk).update(explanation="Because a **second factor** helps.")
    with django_capture_on_commit_callbacks(execute=True):
        forget_questions([single.uid])
    text = answer(client, single, right).text
    assert "Because a <strong>second factor</strong> helps." in text
    assert "stops replayed passwords" not in text


def test_recent_html_keeps_the_latest_entries():
    from courseiva.lib.shared_html import RecentHtml

    recent = RecentHtml(2)
    recent.put("a", "A")
    recent.put("b", "B")
    assert recent.get("a") == "A"  # now the latest
    recent.put("c", "C")
    assert (recent.get("a"), recent.get("b"), recent.get("c")) == ("A", None, "C")


def test_an_import_shows_at_once(client, django_capture_on_commit_callbacks):
    bank = make_bank(2)
    import_document(bank)
    url = reverse("question_detail", args=["gen-00000"])
    assert "Rewritten" not in client.get(url).text
    bank["exams"][0]["questions"][0]["stem"] = "Rewritten stem"
    with django_capture_on_commit_callbacks(execute=True):
        import_document(bank)
    assert "Rewritten stem" in client.get(url).text


def test_publishing_from_the_admin_shows_at_once(client, django_capture_on_commit_callbacks):
    draft = QuestionFactory(status="draft")
    assert client.get(draft.get_absolute_url()).status_code == 404
    staff = Client()
    staff.force_login(StaffFactory())
    with django_capture_on_commit_callbacks(execute=True):
        staff.post(
            reverse("admin:questions_question_changelist"),
            {"action": "publish", "_selected_action": [draft.pk]},
        )
    assert client.get(draft.get_absolute_url()).status_code == 200


def test_another_process_edit_shows_after_the_next_poll(client, single):
    """Another server process wrote the question and dropped it from its own cache only; this
    process reads its PageChange row at the next poll."""
    from questions.models import PageChange
    from questions.pages import snapshot as pages

    assert client.get(single.get_absolute_url()).status_code == 200
    Question.objects.filter(pk=single.pk).update(stem="Edited elsewhere")
    PageChange.objects.create(uid=single.uid)
    assert "Edited elsewhere" not in client.get(single.get_absolute_url()).text
    later = pages._Poll.next_at + 1
    with mock.patch("questions.pages.snapshot.time.monotonic", return_value=later):
        assert "Edited elsewhere" in client.get(single.get_absolute_url()).text


def test_the_poll_costs_one_query_per_interval(client, single, django_assert_num_queries):
    from questions.pages import snapshot as pages

    client.get(single.get_absolute_url())
    with django_assert_num_queries(0):
        client.get(single.get_absolute_url())
    with (
        mock.patch("questions.pages.snapshot.time.monotonic", return_value=pages._Poll.next_at + 1),
        django_assert_num_queries(1),
    ):
        client.get(single.get_absolute_url())


def test_the_result_is_valid_json_free_html(client, single):
    # No inline data blobs anywhere: nothing for a script to read before answering.
    text = client.get(single.get_absolute_url()).text
    assert "application/json" not in text
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)


def test_deleting_in_the_admin_removes_the_page_at_once(client, django_capture_on_commit_callbacks):
    question = QuestionFactory()
    assert client.get(question.get_absolute_url()).status_code == 200
    staff = Client()
    staff.force_login(StaffFactory())
    url = reverse("admin:questions_question_delete", args=[question.pk])
    with django_capture_on_commit_callbacks(execute=True):
        assert staff.post(url, {"post": "yes"}).status_code == 302
    assert client.get(question.get_absolute_url()).status_code == 404
