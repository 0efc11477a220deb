"""The learner's answer history: newest first, filters, pagination, only their own."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from progress.practice.marks import Note
from progress.practice.models import Attempt
from tests.factories import QuestionFactory, TopicFactory, UserFactory

pytestmark = pytest.mark.django_db

HISTORY = reverse("history")


def attempt(learner, question, right=True, minutes_ago=0, chosen_text="An option"):
    return Attempt.objects.create(
        learner=learner, question=question, question_uid=question.uid,
        exam_id=question.topic.exam_id, topic_id=question.topic_id,
        chosen=[{"key": "k", "text": chosen_text, "correct": right}], is_correct=right,
        source="page", answered_at=timezone.now() - timedelta(minutes=minutes_ago),
        time_spent=timedelta(seconds=75),
    )  # fmt: skip


def test_history_lists_own_attempts_newest_first(client, learner):
    old = attempt(learner, QuestionFactory(stem="Old **stem**"), minutes_ago=10)
    new = attempt(learner, QuestionFactory(stem="New stem"), right=False, chosen_text="Pick B")
    attempt(UserFactory(), QuestionFactory(stem="Someone else's stem"))
    response = client.get(HISTORY)
    assert response.status_code == 200
    text = response.text
    assert text.index("New stem") < text.index("Old stem")
    assert "Someone else" not in text
    assert "Your answer: Pick B" in text
    assert "1 min 15 s" in text
    assert f'href="{new.question.get_absolute_url()}"' in text
    assert f'href="{old.question.get_absolute_url()}"' in text


def test_filters_by_exam_topic_and_result(client, learner):
    topic = TopicFactory()
    other_topic = TopicFactory(exam=topic.exam)
    elsewhere = TopicFactory()
    attempt(learner, QuestionFactory(topic=topic, stem="Alpha"), right=True)
    attempt(learner, QuestionFactory(topic=other_topic, stem="Beta"), right=False)
    attempt(learner, QuestionFactory(topic=elsewhere, stem="Gamma"), right=False)

    def shown(**params):
        text = client.get(HISTORY, params).text
        return {word for word in ("Alpha", "Beta", "Gamma") if word in text}

    assert shown() == {"Alpha", "Beta", "Gamma"}
    assert shown(exam=topic.exam.slug) == {"Alpha", "Beta"}
    assert shown(exam=topic.exam.slug, topic=other_topic.slug) == {"Beta"}
    assert shown(result="wrong") == {"Beta", "Gamma"}
    assert shown(result="right") == {"Alpha"}


def test_bad_filters_are_a_400(client, learner):
    attempt(learner, QuestionFactory(stem="Alpha"))
    response = client.get(HISTORY, {"result": "maybe"})
    assert response.status_code == 400
    assert "Alpha" not in response.text
    assert 'role="alert"' in response.text


def test_notes_show_in_the_history_escaped(client, learner):
    question = QuestionFactory()
    attempt(learner, question)
    Note.objects.create(learner=learner, question=question, text="<script>alert(1)</script> mine")
    Note.objects.create(learner=UserFactory(), question=question, text="not mine")
    text = client.get(HISTORY).text
    assert "&lt;script&gt;alert(1)&lt;/script&gt; mine" in text
    assert "not mine" not in text


def test_deleted_questions_stay_in_the_history(client, learner):
    question = QuestionFactory(uid="gone-0001")
    attempt(learner, question)
    question.delete()
    text = client.get(HISTORY).text
    assert "gone-0001" in text
    assert "removed from the bank" in text


def test_pagination_and_flat_query_count(client, learner, django_assert_num_queries):
    topic = TopicFactory()
    questions = QuestionFactory.create_batch(3, topic=topic)
    for minute, question in enumerate(questions):
        attempt(learner, question, minutes_ago=minute)
    with django_assert_num_queries(6) as small:
        client.get(HISTORY)
    more = QuestionFactory.create_batch(27, topic=topic)
    for minute, question in enumerate(more, start=10):
        attempt(learner, question, minutes_ago=minute)
        Note.objects.create(learner=learner, question=question, text="n")
    with django_assert_num_queries(len(small)):
        response = client.get(HISTORY)
    assert "Page 1 of 2" in response.text
    second = client.get(HISTORY, {"page": 2})
    assert second.text.count('class="history-row"') == 5


def test_history_needs_sign_in(client):
    response = client.get(HISTORY)
    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))
