"""The pages this issue needs to exist: the exam list and a read-only question page."""

import pytest
from django.urls import reverse

from tests.factories import ExamFactory, OptionFactory, QuestionFactory, StaffFactory, TopicFactory

pytestmark = pytest.mark.django_db


def test_home_lists_exams_with_counts(client, django_assert_num_queries):
    topic = TopicFactory(exam__code="CSA", exam__title="Cloud Security Associate")
    QuestionFactory.create_batch(2, topic=topic)
    QuestionFactory(topic=topic, status="draft")
    ExamFactory.create_batch(3)
    with django_assert_num_queries(1):
        response = client.get(reverse("home"))
    assert response.status_code == 200
    assert "Cloud Security Associate" in response.text
    assert "2 published questions in 1 topic" in response.text


def test_question_page_shows_stem_trap_and_options_but_not_the_answer(client):
    question = QuestionFactory(
        stem="Which **service** rotates keys?", trap="Rotation is not re-encryption."
    )
    OptionFactory(
        question=question, position=3, text="Hand-rolled cron", rationale__why="SECRET-WHY"
    )
    response = client.get(question.get_absolute_url())
    assert response.status_code == 200
    assert "Which <strong>service</strong> rotates keys?" in response.text
    assert "Rotation is not re-encryption." in response.text
    assert "Hand-rolled cron" in response.text
    for leak in ("SECRET-WHY", question.explanation, "correct", "is_correct", "Rationale"):
        assert leak not in response.text


def test_drafts_are_404_for_the_public_and_a_preview_for_staff(client):
    question = QuestionFactory(status="draft")
    assert client.get(question.get_absolute_url()).status_code == 404
    client.force_login(StaffFactory())
    response = client.get(question.get_absolute_url())
    assert response.status_code == 200
    assert "Preview: this question is draft" in response.text


def test_unknown_question_is_404(client):
    assert client.get(reverse("question_detail", args=["no-such-question"])).status_code == 404


def test_author_markup_is_sanitised_on_the_page(client):
    question = QuestionFactory(stem="Hi <script>alert('x')</script> [a](javascript:alert(1))")
    response = client.get(question.get_absolute_url())
    assert "<script>alert" not in response.text
    assert "javascript:" not in response.text
