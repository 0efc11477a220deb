"""Every answer of a signed-in learner is recorded, once, with what was chosen and how long it
took; editing or deleting the question later leaves the record alone."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from progress.practice.models import Attempt, Quiz
from progress.practice.pending import QUESTION_BATCH, PendingWork
from progress.practice.public_pages import serve_token
from progress.practice.recording import record_attempt
from questions.pages.snapshot import question_page
from tests.factories import QuestionFactory, TopicFactory, UserFactory
from tests.items import served_form
from tests.threads import run_at_once

pytestmark = pytest.mark.django_db


def test_an_answer_on_the_public_page_is_recorded(client, learner):
    question = QuestionFactory(options=[False, True, False])
    wrong = question.options.filter(is_correct=False).first()
    form = served_form(client, question)
    response = client.post(question.get_absolute_url(), {"choice": wrong.key, **form})
    assert response.status_code == 200
    attempt = Attempt.objects.get()
    assert attempt.learner == learner
    assert attempt.question == question
    assert attempt.question_uid == question.uid
    assert (attempt.exam_id, attempt.topic_id) == (question.topic.exam_id, question.topic_id)
    assert attempt.chosen == [{"key": wrong.key, "text": wrong.text, "correct": False}]
    assert attempt.is_correct is False
    assert attempt.source == "page"
    assert attempt.quiz_item is None
    assert timedelta(0) <= attempt.time_spent < timedelta(seconds=30)


def test_anonymous_answers_are_not_recorded_and_invite_to_sign_up(client):
    question = QuestionFactory()
    response = client.post(question.get_absolute_url(), {"choice": question.options.first().key})
    assert response.status_code == 200
    assert not Attempt.objects.exists()
    assert "Sign up" in response.text
    assert "keep your progress" in response.text


def test_a_double_submit_of_one_served_page_records_once(client, learner):
    question = QuestionFactory()
    form = served_form(client, question)
    key = question.options.get(is_correct=True).key
    client.post(question.get_absolute_url(), {"choice": key, **form})
    second = client.post(question.get_absolute_url(), {"choice": key, **form})
    assert second.status_code == 200
    assert "already sent this answer" in second.text
    assert Attempt.objects.count() == 1
    # Loading the page again is a new attempt.
    client.post(question.get_absolute_url(), {"choice": key, **served_form(client, question)})
    assert Attempt.objects.count() == 2


def test_a_forged_or_foreign_token_records_untimed(client, learner):
    question, other = QuestionFactory(), QuestionFactory()
    key = question.options.get(is_correct=True).key
    page = question_page(other.uid)
    for token in ("forged", serve_token(page)):
        client.post(question.get_absolute_url(), {"choice": key, "served": token})
    assert list(Attempt.objects.values_list("time_spent", "serve_nonce")) == [(None, "")] * 2


def test_attempts_survive_edits_and_deletion_of_the_question(client, learner):
    question = QuestionFactory()
    chosen = question.options.get(is_correct=True)
    client.post(
        question.get_absolute_url(), {"choice": chosen.key, **served_form(client, question)}
    )
    question.options.update(text="Rewritten")
    question.stem = "Rewritten stem"
    question.save()
    attempt = Attempt.objects.get()
    assert attempt.chosen[0]["text"] == chosen.text
    question.delete()
    attempt.refresh_from_db()
    assert attempt.question is None
    assert attempt.question_uid == chosen.question.uid
    assert attempt.chosen[0]["text"] == chosen.text


def test_a_learner_cannot_record_for_someone_else(client, learner):
    other = UserFactory()
    question = QuestionFactory()
    key = question.options.first().key
    client.post(question.get_absolute_url(), {"choice": key, "learner": other.pk})
    assert set(Attempt.objects.values_list("learner", flat=True)) == {learner.pk}


def test_answer_post_of_a_signed_in_learner_has_a_fixed_query_count(
    client, learner, django_assert_num_queries
):
    question = QuestionFactory()
    key = question.options.get(is_correct=True).key
    # A batch of the questions' difficulties is pending already (the first answer after a
    # batch opens the next one, one more query: tests/test_question_batches.py).
    PendingWork.objects.create(work=QUESTION_BATCH)
    for _ in range(2):
        form = served_form(client, question)
        # session with user, savepoint, the learner's exam row (upsert and lock: a first answer
        # to an exam costs nothing more), the question's side (its state, the learner's card,
        # topic row and earlier answers, the pending batch: one read), the writes (the insert,
        # the exam row, the topic's upsert, the day's upsert: a right answer first time makes
        # no review card; one statement on PostgreSQL), release, the panel
        writes = 1 if connection.vendor == "postgresql" else 4
        with django_assert_num_queries(6 + writes):
            client.post(question.get_absolute_url(), {"choice": key, **form})


# Concurrency: real threads, real connections. -----------------------------------------------


def post_in_threads(count, make_request):
    return run_at_once([make_request] * count, timeout=60)


@pytest.mark.django_db(transaction=True)
def test_concurrent_posts_of_the_same_quiz_answer_record_one_attempt():
    learner = UserFactory()
    topic = TopicFactory()
    QuestionFactory.create_batch(3, topic=topic)
    quiz = Quiz.objects.start(
        learner=learner, exam=topic.exam, topic=topic, selection="any", length=None
    )
    item = quiz.items.select_related("question").get(position=0)
    key = item.question.options.get(is_correct=True).key
    url = reverse("quiz_item", args=[quiz.code, 1])
    statuses = []

    def post():
        client = Client()
        client.force_login(learner)
        statuses.append(client.post(url, {"choice": key}).status_code)

    errors = post_in_threads(6, post)
    assert errors == []
    assert statuses == [200] * 6
    assert Attempt.objects.filter(quiz_item=item).count() == 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_posts_of_one_served_page_record_one_attempt():
    learner = UserFactory()
    question = QuestionFactory()
    key = question.options.get(is_correct=True).key
    token = serve_token(question_page(question.uid))
    statuses = []

    def post():
        client = Client()
        client.force_login(learner)
        statuses.append(
            client.post(question.get_absolute_url(), {"choice": key, "served": token}).status_code
        )

    errors = post_in_threads(6, post)
    assert errors == []
    assert statuses == [200] * 6
    assert Attempt.objects.count() == 1


def test_time_spent_beyond_two_hours_is_not_a_measurement(learner):
    question = QuestionFactory()
    page = question_page(question.uid)
    attempt, created = record_attempt(
        learner=learner, page=page, grade=page.grade([]), source="page",
        served_at=timezone.now() - timedelta(hours=3),
    )  # fmt: skip
    assert created
    assert attempt.time_spent is None
