"""Sitting a mock exam in the tests as a learner does: an exam big enough to sit, starting
the sitting, an item's page, and the keys that answer an item right or wrong."""

from django.urls import reverse

from progress.mocks.models import MockExam
from tests.factories import ExamFactory, QuestionFactory, TopicFactory


def start(client, exam) -> MockExam:
    response = client.post(reverse("mock_start", args=[exam.slug]))
    assert response.status_code == 302
    return MockExam.objects.latest("started_at")


def item_url(mock, number):
    return reverse("mock_item", args=[mock.code, number])


def keys(item, correct=True):
    return list(item.question.options.filter(is_correct=correct).values_list("key", flat=True))


def bigger_exam(count):
    exam = ExamFactory(mock_question_count=count, mock_duration_minutes=60, mock_pass_percent=70)
    topic = TopicFactory(exam=exam, weight=100)
    QuestionFactory.create_batch(count, topic=topic)
    return exam
