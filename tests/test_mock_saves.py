"""A mock exam's saves survive a dropped connection: each is acknowledged, one sent twice is
stored once, one held back cannot overwrite a later answer, and one that reaches the server
after the deadline is refused, saying so, with nothing answered in time lost."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from progress.mocks.models import MockExam, MockItem
from tests.factories import ExamFactory, QuestionFactory, TopicFactory, UserFactory
from tests.mock_exams import bigger_exam, item_url, keys, start

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def exam():
    exam = ExamFactory(mock_question_count=3, mock_duration_minutes=30, mock_pass_percent=70)
    QuestionFactory.create_batch(3, topic=TopicFactory(exam=exam, weight=100))
    return exam


def post(client, mock, number, choice, seq=None, go="next", **headers):
    data = {"choice": choice, "go": go}
    if seq is not None:
        data["seq"] = str(seq)
    return client.post(item_url(mock, number), data, **headers)


def stored(mock, number):
    return MockItem.objects.get(mock=mock, position=number - 1)


def test_the_same_save_sent_twice_is_stored_once(client, learner, exam):
    mock = start(client, exam)
    right = keys(stored(mock, 1))[0]
    first = post(client, mock, 1, right, seq=1_000, **HTMX)
    assert first.status_code == 200
    assert 'data-outcome="saved"' in first.text
    item = stored(mock, 1)
    assert (item.chosen_keys, item.answer_seq) == ([right], 1_000)
    # The connection dropped before the answer came back: the page sends it again.
    again = post(client, mock, 1, right, seq=1_000, **HTMX)
    assert again.status_code == 200
    assert "Question 1 saved at" in again.text  # acknowledged, so the page stops sending it
    assert stored(mock, 1).answered_at == item.answered_at  # and nothing written again
    client.post(reverse("mock_submit", args=[mock.code]))
    assert stored(mock, 1).is_correct
    assert mock.learner.attempts.count() == 1


def test_an_older_save_after_a_newer_one_changes_nothing(client, learner, exam):
    mock = start(client, exam)
    item = stored(mock, 2)
    right, wrong = keys(item)[0], keys(item, correct=False)[0]
    assert post(client, mock, 2, right, seq=2_000, **HTMX).status_code == 200
    # The wrong answer was chosen first, and its save held back until after the right one.
    late = post(client, mock, 2, wrong, seq=1_000, **HTMX)
    assert late.status_code == 200
    assert "Question 2 already had a later answer saved: this one was not kept." in late.text
    # The navigator cell shows the answer stored, not the one sent.
    assert 'aria-label="Question 2: answered"' in late.text
    assert (stored(mock, 2).chosen_keys, stored(mock, 2).answer_seq) == ([right], 2_000)
    # A plain post without a number is newer than both (the server's clock).
    cleared = post(client, mock, 2, [], go="2")
    assert cleared.status_code == 302
    assert stored(mock, 2).chosen_keys == []
    assert stored(mock, 2).answer_seq > 2_000


def test_an_older_plain_post_says_it_was_not_kept(client, learner, exam):
    mock = start(client, exam)
    item = stored(mock, 1)
    post(client, mock, 1, keys(item)[0], seq=5_000, **HTMX)
    response = post(client, mock, 1, keys(item, correct=False)[0], seq=4_000, follow=True)
    assert "Question 1 already had a later answer saved: this one was not kept." in response.text
    assert stored(mock, 1).chosen_keys == keys(item)[:1]


def test_a_plain_post_says_it_was_saved_and_when(client, learner, exam):
    mock = start(client, exam)
    response = post(client, mock, 1, keys(stored(mock, 1))[0], follow=True)
    assert response.redirect_chain[-1][0] == item_url(mock, 2)
    assert re.search(r"Question 1 saved at \d\d:\d\d:\d\d UTC\.", response.text)
    assert 'class="messages" role="status"' in response.text


@pytest.mark.parametrize("seq", ["0", "-5", "1.5", "soon", "9" * 40])
def test_a_bad_save_number_is_refused_and_changes_nothing(client, learner, exam, seq):
    mock = start(client, exam)
    choice = keys(stored(mock, 1))[0]
    plain = post(client, mock, 1, choice, seq=seq)
    assert plain.status_code == 400
    assert "That save&#x27;s number is not a whole number from 1 up." in plain.text
    scripted = post(client, mock, 1, choice, seq=seq, **HTMX)
    assert scripted.status_code == 422
    assert 'data-outcome="refused"' in scripted.text
    assert (stored(mock, 1).chosen_keys, stored(mock, 1).answer_seq) == ([], 0)


def late(mock):
    MockExam.objects.filter(pk=mock.pk).update(deadline=timezone.now() - timedelta(seconds=1))


def test_a_late_save_is_refused_saying_so_and_what_came_in_time_is_kept(client, learner, exam):
    mock = start(client, exam)
    first, second = stored(mock, 1), stored(mock, 2)
    post(client, mock, 1, keys(first)[0], seq=1_000, **HTMX)
    late(mock)
    response = post(client, mock, 2, keys(second)[0], seq=2_000, **HTMX)
    assert response.status_code == 409
    assert 'data-outcome="late"' in response.text
    assert "Time ran out before this answer reached the server: it was not saved." in response.text
    assert reverse("mock_report", args=[mock.code]) in response.text
    assert stored(mock, 2).chosen_keys == []
    mock.refresh_from_db()
    assert mock.submitted_at == mock.deadline
    assert mock.right_count == 1  # the answer given in time counts
    # Sent again (a retry), it is refused again.
    assert post(client, mock, 2, keys(second)[0], seq=2_000, **HTMX).status_code == 409
    assert stored(mock, 2).chosen_keys == []


def test_a_late_save_the_session_does_not_know_is_refused_too(client, learner, exam):
    mock = start(client, exam)
    late(mock)
    session = client.session
    session.pop("mock_sitting", None)  # a new tab of another session: the full path
    session.save()
    response = post(client, mock, 1, keys(stored(mock, 1))[0], seq=1_000, **HTMX)
    assert response.status_code == 409
    assert "Time ran out before this answer reached the server" in response.text


def test_a_save_after_the_submission_says_the_exam_was_submitted(client, learner, exam):
    mock = start(client, exam)
    client.post(reverse("mock_submit", args=[mock.code]))
    response = post(client, mock, 1, keys(stored(mock, 1))[0], seq=1_000, **HTMX)
    assert response.status_code == 409
    assert 'data-outcome="submitted"' in response.text
    assert "The exam was submitted before this answer reached the server" in response.text
    assert stored(mock, 1).chosen_keys == []


def test_another_learners_sitting_takes_no_save(client, learner, exam):
    owner = UserFactory()
    mock = MockExam.objects.start(learner=owner, exam=exam)
    response = post(client, mock, 1, keys(stored(mock, 1))[0], seq=1_000, **HTMX)
    assert response.status_code == 404
    assert stored(mock, 1).answer_seq == 0


def test_saves_cost_a_fixed_number_of_queries(client, learner, django_assert_num_queries):
    for count in (5, 30):
        mock = start(client, bigger_exam(count))
        client.get(item_url(mock, 2))  # the question's page content is cached from here
        key = keys(stored(mock, 2))[0]
        # session with user, the update (with its number): as without one
        with django_assert_num_queries(2):
            post(client, mock, 2, key, seq=1_000)
        with django_assert_num_queries(3):  # and the answered count
            post(client, mock, 2, key, seq=2_000, **HTMX)
        # Sent again: the update finds nothing to do, the item is read, the count
        with django_assert_num_queries(4):
            post(client, mock, 2, key, seq=2_000, **HTMX)
        client.post(reverse("mock_submit", args=[mock.code]))


def test_the_offline_worker_is_served_for_everyone_and_never_kept_stale(
    client, django_assert_num_queries
):
    with django_assert_num_queries(0):  # browsers ask for it again on each page of a sitting
        response = client.get(reverse("mock_offline_worker"))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/javascript")
    assert response["Cache-Control"] == "no-cache"
    assert b"self.registration.scope" in response.content
    assert "worker-src 'self'" in response["Content-Security-Policy"]


def test_a_sitting_page_names_its_worker_and_its_clock(client, learner, exam):
    mock = start(client, exam)
    text = client.get(item_url(mock, 1)).text
    assert f'data-worker-url="{reverse("mock_offline_worker")}"' in text
    assert f'data-scope="{reverse("mock_resume", args=[mock.code])}"' in text
    deadline = int(re.search(r'data-deadline="(\d+)"', text).group(1))
    assert deadline == int(MockExam.objects.get().deadline.timestamp() * 1000)
    assert "js/mock-saves.js" in text


def test_signing_out_clears_what_the_browser_kept(client, learner):
    response = client.post(reverse("logout"))
    assert response.status_code == 302
    assert response["Clear-Site-Data"] == '"cache", "storage"'


@pytest.mark.django_db(transaction=True)
def test_an_older_save_that_waited_for_a_newer_one_changes_nothing():
    """The newer save holds the sitting's row while the older one arrives: the older one
    waits, then must find the newer number on the item, not the one it saw before."""
    import threading

    from django.db import connection, transaction

    from progress.mocks import item_query

    if connection.vendor != "postgresql":
        pytest.skip("row locks are PostgreSQL's; SQLite runs one writer at a time")
    learner = UserFactory()
    exam = ExamFactory(mock_question_count=1, mock_duration_minutes=30)
    QuestionFactory(topic=TopicFactory(exam=exam, weight=100))
    mock = MockExam.objects.start(learner=learner, exam=exam)
    item = mock.items.select_related("question").get()
    right, wrong = keys(item)[0], keys(item, correct=False)[0]
    outcome = {}

    def older():
        try:
            outcome["saved"] = item_query.save_known_answer(
                learner.pk, mock.code, 0, item.question.uid, [wrong], flagged=False, seq=1_000
            )
        finally:
            connection.close()

    with transaction.atomic():
        MockExam.objects.select_for_update().get(pk=mock.pk)  # as the newer save's UPDATE
        MockItem.objects.filter(pk=item.pk).update(chosen_keys=[right], answer_seq=2_000)
        waiting = threading.Thread(target=older)
        waiting.start()
        waiting.join(timeout=1)
        assert waiting.is_alive()  # it waits for the sitting's row
    waiting.join(timeout=30)
    assert outcome == {"saved": None}
    item.refresh_from_db()
    assert (item.chosen_keys, item.answer_seq) == ([right], 2_000)
