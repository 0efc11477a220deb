"""Curating exams in the admin: the blueprint inline and the weight warning."""

from decimal import Decimal

import pytest
from django.urls import reverse

from questions.models import Topic
from tests.admin_forms import exam_post
from tests.factories import ExamFactory, QuestionFactory, StaffFactory, TopicFactory

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:questions_exam_changelist")


@pytest.fixture
def curator(client):
    client.force_login(StaffFactory())
    return client


def test_exam_list_shows_counts_and_flags_bad_weights(curator, django_assert_num_queries):
    good = ExamFactory(code="GOOD")
    topic = TopicFactory(exam=good, weight=Decimal(100))
    QuestionFactory.create_batch(2, topic=topic)
    QuestionFactory(topic=topic, status="draft")
    bad = ExamFactory(code="BAD")
    TopicFactory(exam=bad, weight=Decimal(60))
    response = curator.get(CHANGELIST)
    assert response.status_code == 200
    assert "60% (not 100)" in response.text
    assert "20 questions, 30 min, pass 70%" in response.text
    with django_assert_num_queries(4):
        curator.get(CHANGELIST)
    ExamFactory.create_batch(5)
    with django_assert_num_queries(4):
        curator.get(CHANGELIST)


def test_edit_exam_with_topics_inline_warns_when_weights_do_not_add_up(curator):
    exam = ExamFactory()
    first = TopicFactory(exam=exam, slug="iam", weight=Decimal(100))
    response = curator.post(
        reverse("admin:questions_exam_change", args=[exam.pk]),
        exam_post(
            exam,
            [
                {"id": first.pk, "slug": "iam", "title": "Identity", "weight": "50", "position": 0},
                {"slug": "keys", "title": "Keys", "weight": "30", "position": 1},
            ],
        ),
        follow=True,
    )
    assert response.status_code == 200
    assert "topic weights add up to 80, not 100" in response.text
    assert list(Topic.objects.filter(exam=exam).values_list("slug", "weight")) == [
        ("iam", Decimal(50)),
        ("keys", Decimal(30)),
    ]


def test_edit_exam_with_weights_adding_to_100_gives_no_warning(curator):
    exam = ExamFactory()
    response = curator.post(
        reverse("admin:questions_exam_change", args=[exam.pk]),
        exam_post(
            exam,
            [
                {"slug": "a", "title": "A", "weight": "62.5", "position": 0},
                {"slug": "b", "title": "B", "weight": "37.5", "position": 1},
            ],
        ),
        follow=True,
    )
    assert "not 100" not in response.text
    assert exam.topics.count() == 2


def test_mock_shape_must_be_complete(curator):
    exam = ExamFactory()
    data = exam_post(exam, [{"slug": "a", "title": "A", "weight": "100", "position": 0}])
    data["mock_duration_minutes"] = ""
    response = curator.post(reverse("admin:questions_exam_change", args=[exam.pk]), data)
    assert response.status_code == 200
    assert "minutes and pass percent together, or none of them" in response.text


def test_duplicate_topic_slug_in_one_exam_is_a_form_error(curator):
    exam = ExamFactory()
    data = exam_post(
        exam,
        [
            {"slug": "a", "title": "A", "weight": "50", "position": 0},
            {"slug": "a", "title": "Again", "weight": "50", "position": 1},
        ],
    )
    response = curator.post(reverse("admin:questions_exam_change", args=[exam.pk]), data)
    assert response.status_code == 200
    assert "Please correct the duplicate" in response.text
    assert exam.topics.count() == 0
