"""The bank's rules and constraints, enforced by the database and the shared rule functions."""

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError

from questions.models import (
    Exam,
    Question,
    RelatedQuestion,
    option_rule_problems,
    weight_total_problem,
)
from tests.factories import ExamFactory, QuestionFactory, TopicFactory

pytestmark = pytest.mark.django_db


def test_option_rules():
    assert option_rule_problems("single", [True, False]) == []
    assert option_rule_problems("multiple", [True, True, False]) == []
    assert option_rule_problems("single", [True, True]) == [
        "a single-answer question needs exactly one correct option (this one has 2)"
    ]
    assert option_rule_problems("multiple", [False, False]) == [
        "a select-all-that-apply question needs at least one correct option"
    ]
    assert option_rule_problems("single", [True]) == [
        "a question needs 2 to 8 options (this one has 1)"
    ]
    assert (
        "2 to 8 options (this one has 9)" in option_rule_problems("single", [True] + [False] * 8)[0]
    )


def test_weight_rule():
    assert weight_total_problem([Decimal("62.5"), Decimal("37.5")]) is None
    assert weight_total_problem([Decimal(50), Decimal("40.25")]) == (
        "topic weights add up to 90.25, not 100"
    )


def test_topic_slug_is_unique_per_exam_only():
    topic = TopicFactory(slug="iam")
    TopicFactory(slug="iam")  # another exam: fine
    with pytest.raises(IntegrityError):
        TopicFactory(slug="iam", exam=topic.exam)


def test_mock_shape_is_all_or_nothing():
    exam = ExamFactory.build(mock_duration_minutes=None)
    with pytest.raises(ValidationError, match="together, or none of them"):
        exam.full_clean()


def test_a_question_cannot_be_related_to_itself():
    question = QuestionFactory()
    with pytest.raises(IntegrityError):
        RelatedQuestion.objects.create(from_question=question, to_question=question)


def test_tags_and_references_are_validated():
    question = QuestionFactory.build(topic=TopicFactory(), tags=["ok", "Not OK"])
    with pytest.raises(ValidationError, match="lowercase"):
        question.full_clean(exclude=["topic"])
    question.tags = []
    question.references = [{"title": "x", "url": "javascript:alert(1)"}]
    with pytest.raises(ValidationError, match="must start with https://"):
        question.full_clean(exclude=["topic"])


def test_exam_counts_are_annotated_in_one_query(django_assert_num_queries):
    exam = ExamFactory()
    topics = [TopicFactory(exam=exam, weight=Decimal(50)) for _ in range(2)]
    QuestionFactory.create_batch(3, topic=topics[0])
    QuestionFactory(topic=topics[1], status="draft")
    ExamFactory()  # an empty exam counts zero
    with django_assert_num_queries(1):
        rows = {e.slug: e for e in Exam.objects.with_counts()}
    assert (rows[exam.slug].topic_count, rows[exam.slug].published_count) == (2, 3)
    assert rows[exam.slug].weight_total == Decimal(100)
    empty = next(e for slug, e in rows.items() if slug != exam.slug)
    assert (empty.topic_count, empty.published_count, empty.weight_total) == (0, 0, 0)


def test_deleting_a_topic_with_questions_is_refused():
    question = QuestionFactory()
    from django.db.models import ProtectedError

    with pytest.raises(ProtectedError):
        question.topic.delete()
    assert Question.objects.filter(pk=question.pk).exists()
