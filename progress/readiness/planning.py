"""The study plan of a learner's goal, from stored state: the learner's standing on the exam
(their state and the exam's questions, see `standing`), the reviews falling due and the
questions already answered (the practice room reads those and passes them in). The plan
itself is `progress.engine.plan`; this module dates its days and names its topics."""

from dataclasses import dataclass
from datetime import date, timedelta

from progress.engine import plan as planning
from progress.readiness.models import StudyGoal
from progress.readiness.standing import ExamStanding
from questions.models import Topic


@dataclass(frozen=True)
class DayRow:
    """One day of the plan as the page shows it: the topics it practises, in blueprint order,
    each with its new questions and its reviews."""

    when: date
    total: int
    named: list[tuple[Topic, tuple[int, int]]]  # (topic, (practice, reviews)), those planned


@dataclass(frozen=True)
class GoalPlan:
    goal: StudyGoal
    plan: planning.StudyPlan
    topics: list[Topic]  # blueprint order
    days: list[DayRow]

    @property
    def today(self) -> planning.PlanDay | None:
        return self.plan.days[0] if self.plan.days else None

    def topic_totals(self) -> list[tuple[Topic, int]]:
        """Plan questions per topic over all the days, most first."""
        totals = [(t, self.plan.topic_totals.get(str(t.pk), 0)) for t in self.topics]
        return sorted(totals, key=lambda pair: (-pair[1], pair[0].position))


def plan_goal(
    goal: StudyGoal,
    standing: ExamStanding,
    reviews_due: dict[int, dict[str, int]],
    answered: dict[int, int],
    today: date,
) -> GoalPlan:
    """The plan from `today` to the goal's exam date. `answered` holds the different questions
    answered per topic id, `reviews_due` the reviews due per day offset and topic id."""
    who = standing.learner
    assert who is not None, "a standing made by `standings` carries the learner's state"
    topics = _blueprint_order(standing)
    plan_topics = [
        planning.PlanTopic(
            topic_id=p.topic_id,
            drawn=p.drawn,
            items=p.items,
            available=max(0, len(p.items) - answered.get(int(p.topic_id), 0)),
        )
        for p in standing.plans
    ]
    days = max(0, (goal.target_date - today).days)
    plan = planning.plan_study(
        who.in_use.model,
        who.state,
        plan_topics,
        float(goal.exam.mock_pass_percent or 0),
        days,
        goal.daily_questions,
        reviews_due,
    )
    rows = [
        DayRow(
            when=today + timedelta(days=day.day),
            total=day.total,
            named=[
                (t, (day.practice.get(str(t.pk), 0), day.reviews.get(str(t.pk), 0)))
                for t in topics
                if day.practice.get(str(t.pk)) or day.reviews.get(str(t.pk))
            ],
        )
        for day in plan.days
    ]
    return GoalPlan(goal=goal, plan=plan, topics=topics, days=rows)


def _blueprint_order(standing: ExamStanding) -> list[Topic]:
    by_id = {str(t.topic.pk): t.topic for t in standing.topics}
    return [by_id[p.topic_id] for p in standing.plans]
