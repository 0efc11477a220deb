"""Cohorts and item analysis; the other models of the learner side live in their rooms, which
Django learns of through the imports below."""

import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.db import models, transaction
from django.db.models import (
    Q,
)
from django.urls import reverse
from django.utils import timezone

import progress.mocks.models
import progress.readiness.models  # noqa: F401
from progress.accounts.models import User
from progress.codes import new_code
from progress.practice.models import Attempt
from questions.models import Exam, Question

# --- Cohorts: instructors following learners preparing for one exam -------------------------


def new_join_code() -> str:
    # Short enough to read out in a classroom, long enough not to be guessed.
    return secrets.token_urlsafe(6)


class CohortQuerySet(models.QuerySet["Cohort"]):
    def for_instructor(self, user: User) -> "CohortQuerySet":
        """The cohorts `user` may see as an instructor: their own; every cohort for an admin."""
        if user.is_superuser:
            return self.all()
        return self.filter(instructors=user)


class Cohort(models.Model):
    """A class preparing for one exam, followed by one or more instructors. Learners join
    with the join code (which an instructor can replace) and may leave."""

    code = models.CharField(max_length=20, unique=True, default=new_code, editable=False)
    name = models.CharField(max_length=120)
    exam = models.ForeignKey(Exam, on_delete=models.CASCADE, related_name="+")
    target_date = models.DateField(
        null=True, blank=True, help_text="The day the class means to sit the real exam."
    )
    join_code = models.CharField(max_length=20, unique=True, default=new_join_code)
    instructors = models.ManyToManyField(User, related_name="teaching")
    learners = models.ManyToManyField(User, through="Membership", related_name="cohorts")
    created_at = models.DateTimeField(default=timezone.now)

    objects = CohortQuerySet.as_manager()

    def __str__(self) -> str:
        return f"{self.name} ({self.exam_id})"

    def get_absolute_url(self) -> str:
        return reverse("cohort_detail", args=[self.code])

    def join_url(self) -> str:
        return reverse("cohort_join", args=[self.join_code])

    def regenerate_join_code(self) -> None:
        """A new join code: the old link stops working; learners who joined stay."""
        self.join_code = new_join_code()
        Cohort.objects.filter(pk=self.pk).update(join_code=self.join_code)


class Membership(models.Model):
    cohort = models.ForeignKey(Cohort, on_delete=models.CASCADE, related_name="memberships")
    learner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="memberships")
    joined_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            # Its index also serves "the learners of this cohort".
            models.UniqueConstraint(fields=["cohort", "learner"], name="membership_once"),
        ]
        indexes = [
            # "Your cohorts" on the learner's page.
            models.Index(fields=["learner"], name="membership_learner"),
        ]

    def __str__(self) -> str:
        return f"{self.learner_id} in {self.cohort_id}"


# --- Item analysis ---------------------------------------------------------------------------

# Below this many learners, a question's figures are shown but not flagged: too few to judge.
MIN_FLAG_LEARNERS = 10


class ItemStatistic(models.Model):
    """A question's statistics over the attempts of everyone (cohort empty) or of one cohort's
    learners, as `compute_item_statistics` last computed them (pages read these, never the
    attempts). Facility and discrimination are over each learner's first answer to the
    question, as in a test: facility is the share right; discrimination is the correlation
    of that answer with the learner's score on the exam's other questions (the "rest of the
    test" of Moodle's quiz statistics)."""

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="statistics")
    cohort = models.ForeignKey(
        Cohort, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    attempts = models.PositiveIntegerField(default=0)  # every answer, repeats included
    learners = models.PositiveIntegerField(default=0)  # learners with a first answer
    facility = models.FloatField(null=True)  # 0..1
    discrimination = models.FloatField(null=True)  # -1..1; None when it cannot be computed
    # Option key -> how many answers chose it (an answer may choose several).
    option_counts = models.JSONField(default=dict)
    median_seconds = models.FloatField(null=True)
    flags = models.JSONField(default=list)  # [[code, reason], ...]
    flagged = models.BooleanField(default=False)  # any flag: what "flags first" sorts on
    computed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            # Its index also serves "this cohort's figures for these questions".
            models.UniqueConstraint(fields=["cohort", "question"], name="item_statistic_once"),
            models.UniqueConstraint(
                fields=["question"],
                condition=Q(cohort__isnull=True),
                name="item_statistic_once_overall",
            ),
        ]

    def __str__(self) -> str:
        return f"Statistics of {self.question_id} ({self.cohort_id or 'everyone'})"

    @property
    def flag_codes(self) -> list[str]:
        return [code for code, _ in self.flags]


def item_flags(
    learners: int, facility: float | None, discrimination: float | None
) -> list[list[str]]:
    """[code, reason] for a question whose figures look wrong; none below MIN_FLAG_LEARNERS."""
    if learners < MIN_FLAG_LEARNERS or facility is None:
        return []
    flags = []
    if discrimination is not None and discrimination < 0:
        flags.append(
            [
                "check-key",
                f"check the key: learners who do well on the rest of the exam get it wrong "
                f"more often (discrimination {discrimination:+.2f})",
            ]
        )
    if facility < 0.10:
        flags.append(["too-hard", f"too hard: {facility:.0%} right (or the key is wrong)"])
    elif facility > 0.95:
        flags.append(["too-easy", f"too easy: {facility:.0%} right"])
    return flags


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
    if progress is not None:
        progress(done)
    return len(statistics)
