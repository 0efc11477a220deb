"""What an instructor sees of a cohort: one row per learner (readiness per topic, pass
likelihood, recent activity, mock exams, who is at risk), the class's readiness per topic, and
the CSV of the table. Everything is read from stored figures (ExamReadiness, LearnerDay,
MockExam) in a fixed number of queries, whatever the number of learners and attempts."""

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from django.db.models import Count, ExpressionWrapper, F, FloatField, Max, Q, Sum
from django.utils import timezone

from progress.models import Cohort, ExamReadiness, LearnerDay, Membership, MockExam, User
from progress.standing import exam_readiness
from questions.models import Topic

# A learner with no answer for this many days is flagged.
INACTIVE_DAYS = 7
# Within this many days of the cohort's target date, a pass likelihood below LOW_PASS (or none
# yet) is flagged.
NEAR_TARGET_DAYS = 28
LOW_PASS = 0.5
# Readiness bands of the heatmap: below 50%, 50-70%, 70% and over (each cell shows its number).
BANDS = ((50.0, "low", "below 50%"), (70.0, "mid", "50 to 69%"), (101.0, "high", "70% or more"))


def band(percent: float | None) -> str:
    if percent is None:
        return "none"
    return next(name for limit, name, _ in BANDS if percent < limit)


@dataclass(frozen=True)
class Cell:
    topic: Topic
    percent: float | None  # None: the learner has not answered this topic
    low: float | None
    high: float | None
    answers: int

    @property
    def band(self) -> str:
        return band(self.percent)


@dataclass
class LearnerRow:
    learner: User
    joined_on: date
    figures: ExamReadiness | None  # None: no answer yet
    cells: list[Cell]
    answers_7_days: int
    last_active: date | None
    mocks: int
    best_mock: float | None
    risks: list[str] = field(default_factory=list)

    @property
    def at_risk(self) -> bool:
        return bool(self.risks)

    @property
    def pass_probability(self) -> float | None:
        return self.figures.pass_probability if self.figures else None

    @property
    def missing_answers(self) -> int:
        """Answers still needed before the pass likelihood can be shown."""
        if self.figures is None:
            return 0
        return sum(int(needed) for _, needed in self.figures.missing)


def learner_rows(cohort: Cohort, today: date | None = None) -> list[LearnerRow]:
    """The cohort's learners with their figures, at-risk learners first (then by name).
    Queries: the memberships, the exam's topics, the activity and the mock exams (one each),
    and those of `exam_readiness`."""
    today = today or timezone.localdate()
    members = list(
        Membership.objects.filter(cohort=cohort)
        .select_related("learner")
        .order_by("learner__username")
    )
    ids = [m.learner_id for m in members]
    topics = list(cohort.exam.topics.order_by("position", "slug"))
    figures = exam_readiness(ids, cohort.exam)
    activity: dict[int, dict[str, Any]] = {
        row["learner_id"]: dict(row)
        for row in LearnerDay.objects.filter(learner_id__in=ids)
        .values("learner_id")
        .annotate(
            last=Max("day", filter=Q(answers__gt=0)),
            week=Sum("answers", filter=Q(day__gt=today - timedelta(days=7))),
        )
    }
    percent = ExpressionWrapper(100.0 * F("right_count") / F("question_count"), FloatField())
    mocks: dict[int, dict[str, Any]] = {
        row["learner_id"]: dict(row)
        for row in MockExam.objects.filter(
            learner_id__in=ids, exam=cohort.exam, submitted_at__isnull=False, question_count__gt=0
        )
        .values("learner_id")
        .annotate(n=Count("pk"), best=Max(percent))
    }
    rows = []
    for member in members:
        mine = figures.get(member.learner_id)
        cells = []
        for topic in topics:
            value = mine.topics.get(str(topic.pk)) if mine else None
            answered = bool(value and value[3])
            cells.append(
                Cell(
                    topic=topic,
                    percent=float(value[0]) if value and answered else None,
                    low=float(value[1]) if value and answered else None,
                    high=float(value[2]) if value and answered else None,
                    answers=int(value[3]) if value else 0,
                )
            )
        active: dict[str, Any] = activity.get(member.learner_id, {})
        mock: dict[str, Any] = mocks.get(member.learner_id, {})
        row = LearnerRow(
            learner=member.learner,
            joined_on=timezone.localdate(member.joined_at),
            figures=mine,
            cells=cells,
            answers_7_days=int(active.get("week") or 0),
            last_active=active.get("last"),
            mocks=int(mock.get("n") or 0),
            best_mock=mock.get("best"),
        )
        row.risks = risks(row, cohort.target_date, today)
        rows.append(row)
    rows.sort(key=lambda r: not r.at_risk)  # stable: at risk first, each group by name
    return rows


def risks(row: LearnerRow, target: date | None, today: date) -> list[str]:
    """Why the learner needs attention, in words (empty: on track)."""
    reasons = []
    if row.last_active is None:
        reasons.append("no answers yet")
    elif (today - row.last_active).days >= INACTIVE_DAYS:
        reasons.append(f"inactive for {(today - row.last_active).days} days")
    if target is not None and 0 <= (target - today).days <= NEAR_TARGET_DAYS:
        days = (target - today).days
        likelihood = row.pass_probability
        if likelihood is None:
            reasons.append(f"no pass likelihood yet, {days} days before the exam")
        elif likelihood < LOW_PASS:
            reasons.append(
                f"pass likelihood {round(100 * likelihood)}%, {days} days before the exam"
            )
    return reasons


# Columns the table can be sorted by: key -> (label, value of a row; None sorts last).
SORTS: dict[str, Any] = {
    "name": ("Learner", lambda r: r.learner.get_username().lower()),
    "pass": ("Pass likelihood", lambda r: r.pass_probability),
    "week": ("Answers, last 7 days", lambda r: r.answers_7_days),
    "active": ("Last active", lambda r: r.last_active),
    "mocks": ("Mock exams", lambda r: r.mocks),
    "best": ("Best mock score", lambda r: r.best_mock),
}


def sort_rows(rows: list[LearnerRow], key: str, descending: bool) -> list[LearnerRow]:
    """At-risk learners stay first; within each group, by the column (`topic-<id>` for a
    topic's readiness), blanks last whichever the direction. Unknown keys: unchanged."""
    if key.startswith("topic-") and key[6:].isdigit():
        topic_id = int(key[6:])

        def value(row: LearnerRow) -> Any:
            cell = next((c for c in row.cells if c.topic.pk == topic_id), None)
            return cell.percent if cell else None

    elif key in SORTS:
        value = SORTS[key][1]
    else:
        return rows
    known = [r for r in rows if value(r) is not None]
    blank = [r for r in rows if value(r) is None]
    known.sort(key=value, reverse=descending)
    ordered = known + blank
    return sorted(ordered, key=lambda r: not r.at_risk)


@dataclass(frozen=True)
class TopicSpread:
    """The class's readiness on one topic: learners who answered it, and how they spread."""

    topic: Topic
    values: list[float]
    not_started: int

    @property
    def count(self) -> int:
        return len(self.values)

    @property
    def mean(self) -> float | None:
        return statistics.fmean(self.values) if self.values else None

    @property
    def quartiles(self) -> tuple[float, float, float] | None:
        """Lower quartile, median, upper quartile (inclusive method)."""
        if not self.values:
            return None
        if len(self.values) == 1:
            return (self.values[0],) * 3
        q1, q2, q3 = statistics.quantiles(self.values, n=4, method="inclusive")
        return q1, q2, q3

    @property
    def lowest(self) -> float | None:
        return min(self.values) if self.values else None

    @property
    def highest(self) -> float | None:
        return max(self.values) if self.values else None

    def histogram(self) -> list[int]:
        """Learners per tenth: 0-9%, 10-19%, ..., 90-100%."""
        counts = [0] * 10
        for value in self.values:
            counts[min(int(value // 10), 9)] += 1
        return counts

    @property
    def below(self) -> int:
        """Learners below 50%."""
        return sum(1 for value in self.values if value < 50)


def topic_spreads(rows: Sequence[LearnerRow]) -> list[TopicSpread]:
    """Per topic of the exam, weakest (lowest mean) first; topics nobody answered last."""
    if not rows:
        return []
    spreads = []
    for index, cell in enumerate(rows[0].cells):
        values = [r.cells[index].percent for r in rows if r.cells[index].percent is not None]
        spreads.append(
            TopicSpread(
                topic=cell.topic,
                values=[v for v in values if v is not None],
                not_started=len(rows) - len(values),
            )
        )
    return sorted(spreads, key=lambda s: (s.mean is None, s.mean or 0.0))


def csv_rows(rows: Sequence[LearnerRow]) -> list[list[str]]:
    """The cohort table as CSV rows, a header first: the figures as numbers (percent), blank
    where there is none."""

    def number(value: float | None) -> str:
        return "" if value is None else f"{value:.0f}"

    topics = [cell.topic for cell in rows[0].cells] if rows else []
    header = [
        "learner", "at risk", "why", "pass likelihood %", "expected score %",
        "score range low %", "score range high %",
        *(f"{topic.title} readiness %" for topic in topics),
        "answers last 7 days", "last active", "mock exams", "best mock %", "joined",
    ]  # fmt: skip
    out = [header]
    for row in rows:
        f = row.figures
        out.append(
            [
                row.learner.get_username(),
                "yes" if row.at_risk else "no",
                "; ".join(row.risks),
                number(100 * f.pass_probability if f and f.pass_probability is not None else None),
                number(f.expected_percent if f else None),
                number(f.low_percent if f else None),
                number(f.high_percent if f else None),
                *(number(cell.percent) for cell in row.cells),
                str(row.answers_7_days),
                row.last_active.isoformat() if row.last_active else "",
                str(row.mocks),
                number(row.best_mock),
                row.joined_on.isoformat(),
            ]
        )
    return out
