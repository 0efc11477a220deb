"""Questions a learner got wrong come back on a spaced-repetition schedule (FSRS)."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from progress.practice.models import Quiz, ReviewCard
from questions.pages.snapshot import question_page
from tests.factories import ExamFactory, QuestionFactory, TopicFactory, UserFactory, record_answer

pytestmark = pytest.mark.django_db


def answer(client, question, right):
    option = question.options.filter(is_correct=right).first()
    return client.post(question.get_absolute_url(), {"choice": option.key})


def test_a_wrong_answer_makes_a_card_and_a_right_one_moves_it_on(client, learner):
    question = QuestionFactory()
    answer(client, question, right=True)
    assert not ReviewCard.objects.exists()  # right first time: nothing to review
    answer(client, question, right=False)
    card = ReviewCard.objects.get(learner=learner, question=question)
    first_due = card.due
    assert timezone.now() < first_due <= timezone.now() + timedelta(minutes=11)
    answer(client, question, right=True)
    card.refresh_from_db()
    assert card.reviews == 2
    assert card.due > first_due


def test_cards_are_per_learner(client, learner):
    question = QuestionFactory()
    answer(client, question, right=False)
    other = UserFactory()
    assert not ReviewCard.objects.filter(learner=other).exists()


def test_due_questions_make_a_review_quiz(client, learner):
    exam = ExamFactory()
    topic = TopicFactory(exam=exam)
    due, later, _never_answered = QuestionFactory.create_batch(3, topic=topic)
    for question in (due, later):
        answer(client, question, right=False)
    ReviewCard.objects.filter(question=due).update(due=timezone.now() - timedelta(minutes=1))
    home = client.get(reverse("progress_home")).text
    assert "Review due questions (1)" in home
    client.post(reverse("quiz_start"), {"exam": exam.slug, "length": "all", "selection": "due"})
    quiz = Quiz.objects.get()
    assert list(quiz.items.values_list("question", flat=True)) == [due.pk]
    # Answering it in the quiz reschedules it.
    item = quiz.items.get()
    client.get(reverse("quiz_item", args=[quiz.code, 1]))
    client.post(
        reverse("quiz_item", args=[quiz.code, 1]),
        {"choice": item.question.options.get(is_correct=True).key},
    )
    assert ReviewCard.objects.get(question=due).due > timezone.now()
    assert "Review due questions" not in client.get(reverse("progress_home")).text


def test_schedule_is_a_fixed_number_of_queries(
    learner, django_assert_num_queries, django_assert_max_num_queries
):
    questions = QuestionFactory.create_batch(12)
    now = timezone.now()
    with django_assert_num_queries(2):  # read the cards, one upsert
        ReviewCard.objects.schedule(learner.pk, [(q.pk, False, now) for q in questions[:6]])
    with django_assert_num_queries(2):  # read the cards, one upsert (new cards and moved ones)
        ReviewCard.objects.schedule(
            learner.pk, [(q.pk, n % 2 == 0, now) for n, q in enumerate(questions)]
        )
    assert ReviewCard.objects.filter(learner=learner).count() == 9
    assert question_page(questions[0].uid) is not None


def test_a_new_card_is_named_by_its_question(learner):
    """fsrs names a card by the clock and sleeps a millisecond to keep names unique, inside
    the answer's request; a card here is one per learner and question, named by it."""
    question = QuestionFactory()
    record_answer(learner, question, right=False)
    card = ReviewCard.objects.get(learner=learner, question=question)
    assert card.card["card_id"] == question.pk
