"""The item analysis of every question (facility, discrimination, option choices, median time,
flags), computed from the attempts for everyone and for each cohort, and stored as
ItemStatistic rows that the pages and the admin read."""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from progress.cohorts.models import ItemStatistic, Membership, item_flags
from progress.practice.models import Attempt
from questions.models import Option, Question
from questions.pages.snapshot import forget_questions


class _Moments:
    """Running sums for a correlation and a mean."""

    __slots__ = ("n", "sx", "sxx", "sxy", "sy", "syy")

    def __init__(self) -> None:
        self.n = 0
        self.sx = self.sy = self.sxx = self.syy = self.sxy = 0.0

    def add(self, x: float, y: float) -> None:
        self.n += 1
        self.sx += x
        self.sy += y
        self.sxx += x * x
        self.syy += y * y
        self.sxy += x * y

    def correlation(self) -> float | None:
        if self.n < 2:
            return None
        vx = self.sxx - self.sx * self.sx / self.n
        vy = self.syy - self.sy * self.sy / self.n
        if vx <= 1e-12 or vy <= 1e-12:
            return None  # everyone right (or wrong), or every rest score alike
        return (self.sxy - self.sx * self.sy / self.n) / (vx * vy) ** 0.5


@dataclass
class _ItemTally:
    attempts: int = 0
    options: dict[str, int] = field(default_factory=dict)
    seconds: list[float] = field(default_factory=list)
    firsts: int = 0
    right: int = 0
    moments: _Moments = field(default_factory=_Moments)
    # Option key -> learners whose first answer chose it (what the question page shows).
    first_options: dict[str, int] = field(default_factory=dict)


def compute_item_statistics(progress: Callable[[int], None] | None = None) -> int:
    """Recompute every question's statistics, for everyone and for each cohort (its learners'
    attempts on its exam), from the attempts: one pass over them in learner order, then one
    transaction that replaces the stored figures. Returns the number of rows written."""
    cohorts_of: dict[int, list[tuple[int, int]]] = {}  # learner -> [(cohort, exam)]
    for cohort_id, exam_id, learner_id in Membership.objects.values_list(
        "cohort_id", "cohort__exam_id", "learner_id"
    ):
        cohorts_of.setdefault(learner_id, []).append((cohort_id, exam_id))
    tallies: dict[tuple[int | None, int], _ItemTally] = {}
    rows = (
        Attempt.objects.filter(question__isnull=False)
        .order_by("learner_id", "pk")
        .values_list("learner_id", "question_id", "exam_id", "is_correct", "chosen", "time_spent")
        .iterator(chunk_size=10_000)
    )
    done = 0
    learner: list[tuple[int, int | None, bool, Any, timedelta | None]] = []
    current: int | None = None

    def flush(learner_id: int | None) -> None:
        if learner_id is None:
            return
        scopes_by_exam: dict[int | None, list[int | None]] = {}
        for cohort_id, cohort_exam in cohorts_of.get(learner_id, []):
            scopes_by_exam.setdefault(cohort_exam, []).append(cohort_id)
        # First answers per question, and the learner's score per exam over them.
        first: dict[int, bool] = {}
        first_keys: dict[int, set[str]] = {}
        exam_of: dict[int, int | None] = {}
        for question_id, exam_id, correct, chosen, spent in learner:
            scopes: list[int | None] = [None, *scopes_by_exam.get(exam_id, [])]
            for scope in scopes:
                tally = tallies.get((scope, question_id))
                if tally is None:
                    tally = tallies[(scope, question_id)] = _ItemTally()
                tally.attempts += 1
                for choice in chosen or []:
                    key = str(choice.get("key", ""))
                    tally.options[key] = tally.options.get(key, 0) + 1
                if spent is not None:
                    tally.seconds.append(spent.total_seconds())
            if question_id not in first:
                first[question_id] = correct
                first_keys[question_id] = {str(c.get("key", "")) for c in chosen or []}
                exam_of[question_id] = exam_id
        totals: dict[int | None, list[int]] = {}
        for question_id, correct in first.items():
            total = totals.setdefault(exam_of[question_id], [0, 0])
            total[0] += int(correct)
            total[1] += 1
        for question_id, correct in first.items():
            exam_id = exam_of[question_id]
            right, count = totals[exam_id]
            rest = (right - int(correct)) / (count - 1) if count > 1 else None
            for scope in [None, *scopes_by_exam.get(exam_id, [])]:
                tally = tallies[(scope, question_id)]
                tally.firsts += 1
                tally.right += int(correct)
                if rest is not None:
                    tally.moments.add(float(correct), rest)
            overall = tallies[(None, question_id)]
            for key in first_keys[question_id]:
                overall.first_options[key] = overall.first_options.get(key, 0) + 1

    for learner_id, question_id, exam_id, correct, chosen, spent in rows:
        if learner_id != current:
            flush(current)
            current, learner = learner_id, []
        learner.append((question_id, exam_id, correct, chosen, spent))
        done += 1
        if progress is not None and done % 100_000 == 0:
            progress(done)
    flush(current)
    now = timezone.now()
    statistics = []
    for (scope, question_id), tally in tallies.items():
        facility = tally.right / tally.firsts if tally.firsts else None
        discrimination = tally.moments.correlation()
        seconds = sorted(tally.seconds)
        median = None
        if seconds:
            middle = len(seconds) // 2
            median = (
                seconds[middle] if len(seconds) % 2 else (seconds[middle - 1] + seconds[middle]) / 2
            )
        flags = item_flags(tally.firsts, facility, discrimination)
        statistics.append(
            ItemStatistic(
                question_id=question_id, cohort_id=scope, attempts=tally.attempts,
                learners=tally.firsts, facility=facility, discrimination=discrimination,
                option_counts=tally.options, median_seconds=median,
                flags=flags, flagged=bool(flags), computed_at=now,
            )
        )  # fmt: skip
    with transaction.atomic():
        ItemStatistic.objects.all().delete()
        ItemStatistic.objects.bulk_create(statistics, batch_size=2000)
        store_answer_shares({q: t for (scope, q), t in tallies.items() if scope is None})
    if progress is not None:
        progress(done)
    return len(statistics)


def store_answer_shares(overall: dict[int, _ItemTally]) -> None:
    """Store on the questions and their options how many learners' first answers chose each
    option (what a question page shows after an answer), and drop the cached pages of the
    questions whose figures changed. Two reads, the writes of what changed, and the cache's."""
    uids, changed_questions = {}, []
    for pk, uid, answered in Question.objects.values_list("pk", "uid", "answered_by"):
        uids[pk] = uid
        firsts = overall[pk].firsts if pk in overall else 0
        if firsts != answered:
            changed_questions.append(Question(pk=pk, answered_by=firsts))
    changed_options = []
    touched = {question.pk for question in changed_questions}
    for pk, question_id, key, chosen_by in Option.objects.values_list(
        "pk", "question_id", "key", "chosen_by"
    ):
        tally = overall.get(question_id)
        count = tally.first_options.get(key, 0) if tally else 0
        if count != chosen_by:
            changed_options.append(Option(pk=pk, chosen_by=count))
            touched.add(question_id)
    Question.objects.bulk_update(changed_questions, ["answered_by"], batch_size=2000)
    Option.objects.bulk_update(changed_options, ["chosen_by"], batch_size=2000)
    forget_questions(uids[pk] for pk in touched)
