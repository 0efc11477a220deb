"""The study plan of a learner's goal with what the practice room knows (the reviews falling
due, the questions already answered), and today's part of it as questions to practise."""

import random

from django.utils import timezone

from progress.accounts.models import User
from progress.practice.models import Attempt, ReviewCard
from progress.readiness.models import StudyGoal
from progress.readiness.planning import GoalPlan, plan_goal
from progress.readiness.standing import ExamStanding, ranked_questions, standings
from questions.models import Question


def goal_of(learner: User, exam_slug: str) -> StudyGoal | None:
    return (
        StudyGoal.objects.filter(learner=learner, exam__slug=exam_slug)
        .select_related("exam")
        .first()
    )


def plan_of(learner: User, goal: StudyGoal) -> tuple[ExamStanding, GoalPlan]:
    """The learner's standing on the goal's exam and the plan from today. The queries of
    `standings` and two more (the reviews due, the questions answered per topic)."""
    exam = goal.exam
    today = timezone.localdate()
    days = max(0, (goal.target_date - today).days)
    standing = standings(learner, [exam])[0]
    planned = plan_goal(
        goal,
        standing,
        ReviewCard.objects.due_by_day(learner, exam, days),
        Attempt.objects.answered_per_topic(learner, exam),
        today,
    )
    return standing, planned


def todays_questions(
    learner: User, standing: ExamStanding, planned: GoalPlan, rng: random.Random
) -> list[int]:
    """Today's questions of the plan: the reviews due today, soonest due first, as many per topic as
    the plan fits in; then per topic the plan's count of questions never met, those the model
    predicts right about 75% of the time first (once a topic has none left, the best of those
    met). Interleaved, which helps tell the topics apart on the exam. Two queries."""
    day = planned.today
    if day is None:
        return []
    exam = planned.goal.exam
    chosen: list[int] = []
    reviews_left = dict(day.reviews)
    for question_id, topic_id in (
        ReviewCard.objects.due_within(learner, 1)
        .filter(question__topic__exam=exam)
        .order_by("due")
        .values_list("question_id", "question__topic_id")
    ):
        if reviews_left.get(str(topic_id), 0) > 0:
            reviews_left[str(topic_id)] -= 1
            chosen.append(question_id)
    counts = Attempt.objects.question_counts(
        learner.pk, Question.objects.published().filter(topic__exam=exam).values("pk")
    )
    taken = set(chosen)
    for topic_id, ranked in ranked_questions(standing, counts, rng).items():
        wanted = day.practice.get(str(topic_id), 0)
        fresh = [q for q in ranked if q not in counts and q not in taken]
        again = [q for q in ranked if q in counts and q not in taken]
        chosen.extend((fresh + again)[:wanted])
    rng.shuffle(chosen)
    return chosen
