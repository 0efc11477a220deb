"""What an instructor sees of a cohort: one row per learner (readiness per topic, pass
likelihood, recent activity, mock exams, who is at risk), the class's readiness per topic, and
the CSV of the table. Everything is read from stored figures (ExamReadiness, LearnerDay,
MockExam) in a fixed number of queries, whatever the number of learners and attempts; the
table sorts every learner on a one-line summary each, and builds in full only the page shown."""

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from django.core.paginator import Paginator
from django.db.models import Count, ExpressionWrapper, F, FloatField, Max, OuterRef, Subquery, Sum
from django.utils import timezone

from progress.accounts.models import User
from progress.cohorts.models import Cohort, Membership
from progress.mocks.models import MockExam
from progress.practice.models import LearnerDay
from progress.readiness.models import ExamReadiness
from progress.readiness.standing import refresh_exam_readiness
from questions.models import Topic

# A learner with no answer for this many days is flagged.
INACTIVE_DAYS = 7
# Within this many days of the cohort's target date, a pass likelihood below LOW_PASS (or none
# yet) is flagged.
NEAR_TARGET_DAYS = 28
LOW_PASS = 0.5
# Readiness bands of the heatmap: below 50%, 50-70%, 70% and over (each cell shows its number).
BANDS = ((50.0, "low", "below 50%"), (70.0, "mid", "50 to 69%"), (101.0, "high", "70% or more"))


# An en dash: a blank cell, and between the ends of a range.
DASH = "\u2013"


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

    # The figures as shown, formatted here rather than by template filters: a page has a
    # few hundred of them, and the filters cost most of its time.
    @property
    def text(self) -> str:
        return DASH if self.percent is None else f"{self.percent:.0f}%"


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
    def pass_text(self) -> str:
        p = self.pass_probability
        return "" if p is None else f"{100 * p:.0f}%"

    @property
    def range_text(self) -> str:
        f = self.figures
        if f is None or f.low_percent is None or f.high_percent is None:
            return ""
        return f"{f.low_percent:.0f}{DASH}{f.high_percent:.0f}%"

    @property
    def best_text(self) -> str:
        return DASH if self.best_mock is None else f"{self.best_mock:.0f}%"

    @property
    def missing_answers(self) -> int:
        """Answers still needed before the pass likelihood can be shown."""
        if self.figures is None:
            return 0
        return sum(int(needed) for _, needed in self.figures.missing)


# Learners shown on one page of the cohort table (at-risk learners first).
PAGE_SIZE = 50


@dataclass(frozen=True)
class _Summary:
    """What sorting and the at-risk rules need of a learner: one row of one query."""

    learner_id: int
    username: str
    pass_probability: float | None
    last_active: date | None
    answers_7_days: int
    mocks: int
    best_mock: float | None
    computed_at: datetime | None  # when the learner's stored figures were computed


def _summaries(cohort: Cohort, today: date) -> list[_Summary]:
    """Every member's sortable figures, computed by the database in one query (subqueries
    served by the per-learner indexes of each table)."""
    learner = OuterRef("learner_id")
    figures = ExamReadiness.objects.filter(learner=learner, exam=cohort.exam)
    days = LearnerDay.objects.filter(learner=learner, answers__gt=0)
    week = (
        LearnerDay.objects.filter(learner=learner, day__gt=today - timedelta(days=7))
        .order_by()
        .values("learner")
        .annotate(total=Sum("answers"))
        .values("total")
    )
    mocks = (
        MockExam.objects.submitted()
        .filter(learner=learner, exam=cohort.exam, question_count__gt=F("withdrawn_count"))
        .order_by()
    )
    # Out of the questions counted: those withdrawn during the sitting are not (MockExam.percent).
    counted = F("question_count") - F("withdrawn_count")
    percent = ExpressionWrapper(100.0 * F("marks") / counted, FloatField())  # partial credit
    rows = (
        Membership.objects.filter(cohort=cohort)
        .annotate(
            pass_probability=Subquery(figures.values("pass_probability")[:1]),
            last_active=Subquery(days.order_by("-day").values("day")[:1]),
            week=Subquery(week[:1]),
            mock_count=Subquery(
                mocks.values("learner").annotate(n=Count("pk")).values("n")[:1]
            ),
            best=Subquery(mocks.values("learner").annotate(b=Max(percent)).values("b")[:1]),
            computed_at=Subquery(figures.values("computed_at")[:1]),
        )
        .values_list(
            "learner_id", "learner__username", "pass_probability", "last_active", "week",
            "mock_count", "best", "computed_at",
        )
        .order_by("learner__username")
    )  # fmt: skip
    return [
        _Summary(
            learner_id=learner_id, username=username, pass_probability=pass_probability,
            last_active=last_active,
            answers_7_days=int(week_total or 0), mocks=int(mock_count or 0), best_mock=best,
            computed_at=computed_at,
        )
        for learner_id, username, pass_probability, last_active, week_total, mock_count, best,
        computed_at in rows
    ]  # fmt: skip


@dataclass
class CohortTable:
    rows: list[LearnerRow]  # the page's rows, in order
    topics: list[Topic]  # the exam's, in blueprint order: the heatmap's columns
    page: Any  # a Paginator page of the ordered learners
    learners: int
    at_risk: int
    # When the newest of the learners' figures was computed (by the worker, or by this page
    # for learners it had not reached yet); None before any.
    updated_at: datetime | None = None


def cohort_table(
    cohort: Cohort,
    *,
    sort: str = "",
    descending: bool = False,
    page_number: Any = None,
    page_size: int | None = PAGE_SIZE,
    today: date | None = None,
) -> CohortTable:
    """The cohort's learners, at-risk learners first, then by the column asked for (or by
    name), one page of them built in full. A fixed number of queries whatever the number of
    learners: those of `refresh_exam_readiness`, the summaries, the page's learners and
    figures, the exam's topics (and the figures of all for a topic's sort). The worker keeps
    the figures fresh after answers (`progress.cohorts.tasks`); those of learners it has not
    reached yet are recomputed here."""
    today = today or timezone.localdate()
    refresh_exam_readiness(
        Membership.objects.filter(cohort=cohort).values("learner_id"), cohort.exam
    )
    summaries = _summaries(cohort, today)
    risk_of = {s.learner_id: risks(s, cohort.target_date, today) for s in summaries}
    ordered = _order(cohort, summaries, sort, descending)
    ordered.sort(key=lambda s: not risk_of[s.learner_id])  # stable: at risk first
    page = Paginator(ordered, page_size or max(len(ordered), 1)).get_page(page_number)
    shown: list[_Summary] = list(page.object_list)
    ids = [s.learner_id for s in shown]
    members = {
        m.learner_id: m
        for m in Membership.objects.filter(cohort=cohort, learner_id__in=ids).select_related(
            "learner"
        )
    }
    figures = {
        f.learner_id: f for f in ExamReadiness.objects.filter(exam=cohort.exam, learner_id__in=ids)
    }
    topics = list(cohort.exam.topics.order_by("position", "slug"))
    rows = [
        _row(summary, members[summary.learner_id], figures.get(summary.learner_id), topics)
        for summary in shown
    ]
    for row in rows:
        row.risks = risk_of[row.learner.pk]
    return CohortTable(
        rows=rows,
        topics=topics,
        page=page,
        learners=len(summaries),
        at_risk=sum(1 for reasons in risk_of.values() if reasons),
        updated_at=max((s.computed_at for s in summaries if s.computed_at), default=None),
    )


def _row(
    summary: _Summary, member: Membership, mine: ExamReadiness | None, topics: list[Topic]
) -> LearnerRow:
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
    return LearnerRow(
        learner=member.learner,
        joined_on=timezone.localdate(member.joined_at),
        figures=mine,
        cells=cells,
        answers_7_days=summary.answers_7_days,
        last_active=summary.last_active,
        mocks=summary.mocks,
        best_mock=summary.best_mock,
    )


def _order(cohort: Cohort, summaries: list[_Summary], key: str, descending: bool) -> list[_Summary]:
    """By the column (`topic-<id>` for a topic's readiness: one more query), blanks last
    whichever the direction; by name for an unknown key."""
    if key.startswith("topic-") and key[6:].isdigit():
        topic_key = key[6:]
        values: dict[int, float | None] = {}
        for learner_id, topics in ExamReadiness.objects.filter(
            exam=cohort.exam, learner_id__in=[s.learner_id for s in summaries]
        ).values_list("learner_id", "topics"):
            value = topics.get(topic_key)
            values[learner_id] = float(value[0]) if value and value[3] else None

        def value_of(s: _Summary) -> Any:
            return values.get(s.learner_id)

    elif key in SORTS:
        value_of = SORTS[key][1]
    else:
        return list(summaries)
    known = [s for s in summaries if value_of(s) is not None]
    blank = [s for s in summaries if value_of(s) is None]
    known.sort(key=value_of, reverse=descending)
    return known + blank


def risks(row: _Summary, target: date | None, today: date) -> list[str]:
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
    "name": ("Learner", lambda r: r.username.lower()),
    "pass": ("Pass likelihood", lambda r: r.pass_probability),
    "week": ("Answers, last 7 days", lambda r: r.answers_7_days),
    "active": ("Last active", lambda r: r.last_active),
    "mocks": ("Mock exams", lambda r: r.mocks),
    "best": ("Best mock score", lambda r: r.best_mock),
}


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


# A cell starting with one of these is a formula to a spreadsheet: a username such as
# "=HYPERLINK(...)" would run when the instructor opens the file.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(text: str) -> str:
    """Text as a spreadsheet shows it, never as a formula: a leading quote, which spreadsheets
    take as "this is text" (OWASP's advice for CSV injection)."""
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text


def csv_rows(rows: Sequence[LearnerRow]) -> list[list[str]]:
    """The cohort table as CSV rows, a header first: the figures as numbers (percent), blank
    where there is none. Text cells (names, reasons, topic titles) are made spreadsheet-safe."""

    def number(value: float | None) -> str:
        return "" if value is None else f"{value:.0f}"

    topics = [cell.topic for cell in rows[0].cells] if rows else []
    header = [
        "learner", "at risk", "why", "pass likelihood %", "expected score %",
        "score range low %", "score range high %",
        *(spreadsheet_safe(f"{topic.title} readiness %") for topic in topics),
        "answers last 7 days", "last active", "mock exams", "best mock %", "joined",
    ]  # fmt: skip
    out = [header]
    for row in rows:
        f = row.figures
        out.append(
            [
                spreadsheet_safe(row.learner.get_username()),
                "yes" if row.at_risk else "no",
                spreadsheet_safe("; ".join(row.risks)),
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
