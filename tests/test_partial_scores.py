"""What a partly right answer (a question with partial credit) does to each consumer of the
answers: readiness, the review card, the daily totals, the item statistics with the facility
per part, and the learner's pages that count right answers."""

import io
import random
import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from progress.cohorts.item_refresh import refresh_exam_statistics
from progress.cohorts.item_statistics import compute_item_statistics
from progress.cohorts.models import ItemStatistic, ItemStatisticsMark
from progress.mocks.models import MockExam, MockItem
from progress.practice.answer_query import read_question_side
from progress.practice.models import (
    Attempt,
    LearnerDay,
    Quiz,
    ReviewCard,
    Source,
    review_rating,
)
from progress.practice.recording import record_attempt
from progress.readiness.models import ExamAbility, TopicReadiness
from questions.models import Scoring
from tests import items
from tests.factories import ExamFactory, InstructorFactory, StaffFactory, TopicFactory, UserFactory
from tests.item_analysis_page import cards
from tests.readiness_store import run_batch, snapshot

pytestmark = pytest.mark.django_db


def gaps(topic=None, count=2):
    """A drop-down question of `count` gaps with partial credit: a gap is half the mark."""
    return items.dropdown(topic or TopicFactory(), gaps=count, scoring=Scoring.PARTIAL)


def answer_gaps(learner, question, right, **links):
    """Record an answer with the first `right` gaps right and the others wrong."""
    page = items.page_of(question)
    response = []
    for n, part in enumerate(page.parts):
        wrong = next(key for key, _ in part.choices if key != part.answer.answer)
        response.append(f"{part.key}={part.answer.answer if n < right else wrong}")
    attempt, created = record_attempt(
        learner=learner, page=page, grade=page.grade(response), source="page", **links
    )
    assert created
    return attempt


# --- Readiness -------------------------------------------------------------------------------


def test_a_half_right_answer_moves_readiness_half_way_between_right_and_wrong():
    question = gaps()
    learners = {score: UserFactory() for score in (0, 1, 2)}
    for right, learner in learners.items():
        answer_gaps(learner, question, right)
    ability = {
        right: ExamAbility.objects.get(learner=learner).state["overall"]["ability"]
        for right, learner in learners.items()
    }
    topic = {
        right: TopicReadiness.objects.get(learner=learner).ability
        for right, learner in learners.items()
    }
    assert Attempt.objects.get(learner=learners[1]).score == 0.5
    assert ability[0] < ability[1] < ability[2]
    # A first answer: the step is variance x (score - p), so half right is the midpoint.
    assert ability[1] == pytest.approx((ability[0] + ability[2]) / 2)
    assert topic[1] == pytest.approx((topic[0] + topic[2]) / 2)
    state = TopicReadiness.objects.get(learner=learners[1]).state
    assert (state["wins"], state["fails"]) == (0.5, 0.5)


def test_the_answer_reads_the_learners_marks_on_a_question_as_the_model_counts_them():
    question = items.dropdown(TopicFactory(), gaps=3, scoring=Scoring.PARTIAL)
    learner = UserFactory()
    for right in (1, 2, 3, 0, 2):
        answer_gaps(learner, question, right)
    side = read_question_side(learner.pk, [question.pk])
    assert Attempt.objects.question_counts(learner.pk, [question.pk]) == side.counts
    right, wrong = side.counts[question.pk]
    assert right + wrong == 5
    assert right == pytest.approx(8 / 3, abs=1e-5)


def test_a_rebuild_replays_partly_right_answers_to_the_same_state():
    rng = random.Random(3)
    topic = TopicFactory(exam=ExamFactory())
    questions = [gaps(topic, count=3) for _ in range(4)]
    learners = [UserFactory() for _ in range(3)]
    for _ in range(30):
        answer_gaps(rng.choice(learners), rng.choice(questions), rng.randrange(4))
        if rng.random() < 0.2:
            run_batch()
    run_batch()
    recorded = snapshot()
    call_command("rebuild_readiness", "--no-fit", stdout=io.StringIO(), stderr=io.StringIO())
    assert snapshot() == recorded


# --- Spaced review ---------------------------------------------------------------------------


def test_a_partly_right_answer_is_reviewed_hard_or_again():
    assert review_rating(1.0).name == "Good"
    assert review_rating(0.75).name == review_rating(0.5).name == "Hard"
    assert review_rating(0.49).name == review_rating(0.0).name == "Again"
    question = gaps()
    right, half, wrong = UserFactory(), UserFactory(), UserFactory()
    answer_gaps(right, question, 2)
    answer_gaps(half, question, 1)
    answer_gaps(wrong, question, 0)
    assert not ReviewCard.objects.filter(learner=right).exists()  # right first time
    half_card = ReviewCard.objects.get(learner=half)
    wrong_card = ReviewCard.objects.get(learner=wrong)
    # Again: the first learning step (10 minutes); Hard: between it and the next (a day).
    assert half_card.due > wrong_card.due
    assert half_card.reviews == wrong_card.reviews == 1


# --- Daily totals, quizzes, mocks and the learner's pages ---------------------------------------


def test_the_history_and_the_analytics_show_a_partly_right_answer(client):
    learner = UserFactory()
    question = gaps()
    answer_gaps(learner, question, 1)
    answer_gaps(learner, question, 2)
    answer_gaps(learner, question, 0)
    day = LearnerDay.objects.get(learner=learner)
    assert (day.answers, day.right, day.partly_right, day.marks) == (3, 1, 1, 1.5)
    client.force_login(learner)
    history = client.get(reverse("history")).text
    assert "Partly right, 50%" in history
    assert history.count("Wrong</span>") == 1
    partly = client.get(reverse("history"), {"result": "partly"}).text
    assert partly.count("Partly right, 50%") == 1
    assert "Right</span>" not in partly
    assert "Wrong</span>" not in partly
    wrong = client.get(reverse("history"), {"result": "wrong"}).text
    assert "Partly right," not in wrong
    assert wrong.count("Wrong</span>") == 1
    home = client.get(reverse("progress_home")).text
    assert "1 answer; score 50%, each counting its share" in home
    # Rebuilt from the attempts, the days say the same.
    LearnerDay.objects.rebuild(learner.pk)
    rebuilt = LearnerDay.objects.get(learner=learner)
    assert (rebuilt.right, rebuilt.partly_right, rebuilt.marks) == (1, 1, 1.5)


def test_a_quiz_counts_a_partly_right_answer_apart(client):
    learner = UserFactory()
    topic = TopicFactory()
    questions = [gaps(topic), gaps(topic)]
    for question in questions:
        question.status = "published"
        question.save()
    quiz = Quiz.objects.start(
        learner=learner, exam=topic.exam, topic=topic, selection="any", length=None,
        question_ids=[q.pk for q in questions],
    )  # fmt: skip
    assert quiz is not None
    first, second = quiz.items.order_by("position")
    answer_gaps(learner, first.question, 1, quiz_item=first)
    answer_gaps(learner, second.question, 2, quiz_item=second)
    quiz.refresh_from_db()
    assert (quiz.right_count, quiz.partly_right_count, quiz.marks) == (1, 1, 1.5)
    assert quiz.tally().percent == 75
    client.force_login(learner)
    text = client.get(reverse("quiz_summary", args=[quiz.code])).text
    assert "1 partly right (score 75%)" in text
    assert "Partly right, 50%" in text


def test_a_mock_exam_scores_a_partly_right_answer_its_share(client):
    learner = UserFactory()
    topic = TopicFactory()
    questions = [gaps(topic) for _ in range(4)]
    for question in questions:
        question.status = "published"
        question.save()
    exam = topic.exam
    exam.mock_question_count, exam.mock_duration_minutes, exam.mock_pass_percent = 4, 30, 60
    exam.save()
    mock = MockExam.objects.start(learner=learner, exam=exam)
    for item, right in zip(mock.items.order_by("position"), (2, 1, 1, 0), strict=True):
        page = items.page_of(item.question)
        response = []
        for n, part in enumerate(page.parts):
            wrong = next(key for key, _ in part.choices if key != part.answer.answer)
            response.append(f"{part.key}={part.answer.answer if n < right else wrong}")
        MockItem.objects.filter(pk=item.pk).update(chosen_keys=response)
    mock.submit()
    mock.refresh_from_db()
    assert (mock.right_count, mock.partly_right_count, mock.marks) == (1, 2, 2.0)
    assert mock.percent == 50.0
    assert not mock.passed  # 50% of the marks, under the 60% pass mark
    client.force_login(learner)
    text = client.get(reverse("mock_report", args=[mock.code])).text
    assert "2 partly right (each counts its share) (50%)" in text
    assert "1 answered wrong" in text


# --- Item analysis ---------------------------------------------------------------------------


def test_facility_is_the_mean_score_and_discrimination_correlates_the_scores():
    topic = TopicFactory(exam=ExamFactory())
    question, other = gaps(topic), gaps(topic)
    # First answers (question, other): (1, 1), (0.5, 0.5), (0.5, 0), (0, 0).
    for on_question, on_other in ((2, 2), (1, 1), (1, 0), (0, 0)):
        learner = UserFactory()
        answer_gaps(learner, question, on_question)
        answer_gaps(learner, other, on_other)
    compute_item_statistics()
    row = ItemStatistic.objects.get(question=question, cohort=None)
    assert row.right == 1
    assert row.marks == 2.0
    assert row.facility == pytest.approx(0.5)
    # The correlation of (1, .5, .5, 0) with the rest scores (1, .5, 0, 0), by hand.
    x, y = [1, 0.5, 0.5, 0], [1, 0.5, 0, 0]
    mx, my = sum(x) / 4, sum(y) / 4
    cov = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    vx = sum((a - mx) ** 2 for a in x)
    vy = sum((b - my) ** 2 for b in y)
    assert row.discrimination == pytest.approx(cov / (vx * vy) ** 0.5)


def test_the_facility_per_part_counts_first_answers_and_a_refresh_agrees():
    topic = TopicFactory(exam=ExamFactory())
    question = gaps(topic, count=3)
    parts = [part.key for part in items.page_of(question).parts]
    for right in (3, 1, 2, 0):
        answer_gaps(UserFactory(), question, right)
    repeat = UserFactory()
    answer_gaps(repeat, question, 0)
    answer_gaps(repeat, question, 3)  # a repeat: not a first answer
    compute_item_statistics()
    row = ItemStatistic.objects.get(question=question, cohort=None)
    assert row.learners == 5
    assert [row.part_right.get(key, 0) for key in parts] == [3, 2, 1]
    recomputed = (row.marks, row.facility, row.part_right)
    ItemStatistic.objects.all().delete()
    ItemStatisticsMark.objects.all().delete()  # counted from nothing, its sums added up
    refresh_exam_statistics(topic.exam, up_to=Attempt.objects.order_by("-pk")[0].pk)
    row = ItemStatistic.objects.get(question=question, cohort=None)
    assert (row.marks, row.facility, row.part_right) == recomputed


def part_shares(card):
    return [int(n) for n in re.findall(r'class="option-share">(\d+)%<span', card)]


@pytest.mark.parametrize("count", [2, 8])
def test_the_item_analysis_shows_the_facility_per_part_in_a_fixed_number_of_queries(
    client, django_assert_num_queries, count
):
    topic = TopicFactory(exam=ExamFactory())
    question = gaps(topic, count=count)
    ordering = items.ordering(topic, steps=count, scoring=Scoring.PARTIAL)
    for right in (count, 1):
        answer_gaps(UserFactory(), question, right)
    for question_ in (question, ordering):
        question_.status = "published"
        question_.save()
    record_answer_in_order(UserFactory(), ordering)
    compute_item_statistics()
    client.force_login(InstructorFactory())
    url = reverse("item_analysis", args=[topic.exam.slug])
    # As for choice questions (tests/test_item_analysis.py), and the parts of the page's
    # questions in one query.
    with django_assert_num_queries(9):
        html = client.get(url).text
    rows = cards(html)
    assert part_shares(rows[question.uid]) == [100] + [50] * (count - 1)
    assert part_shares(rows[ordering.uid]) == [100] * count
    assert "Setting 1" in rows[question.uid]


def record_answer_in_order(learner, question):
    page = items.page_of(question)
    response = [f"{o.key}={o.order}" for o in page.options if o.order is not None]
    record_attempt(learner=learner, page=page, grade=page.grade(response), source=Source.PAGE)


def test_the_admin_question_list_shows_the_facility_per_part(client):
    question = gaps(count=3)
    for right in (3, 2, 1, 1):
        answer_gaps(UserFactory(), question, right)
    compute_item_statistics()
    client.force_login(StaffFactory())
    html = client.get(reverse("admin:questions_question_changelist")).text
    row = next(row for row in html.split("<tr") if f">{question.uid}</a>" in row)
    assert "1: 100% · 2: 50% · 3: 25%" in row
    assert ">58%</td>" in row  # facility: the mean score, (1 + 2/3 + 1/3 + 1/3) / 4
