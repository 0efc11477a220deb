"""Cohorts: a class preparing for one exam, its instructors and its learners (memberships), and
the item statistics of the exam's questions, stored for everyone and per cohort, with how far
they go per exam (ItemStatisticsMark). And the task workers' heartbeats, which the sweep of
this room's tasks reads (progress.cohorts.tasks)."""

import secrets
from datetime import datetime, timedelta

from django.db import models
from django.db.models import (
    Q,
)
from django.urls import reverse
from django.utils import timezone

from progress.accounts.models import User
from progress.codes import new_code
from progress.mocks.allowances import Allowance, most_generous
from questions.models import Exam, Question


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
    # The class's figures as the last weekly digest gave them ({"on": ISO date, "pass": mean
    # pass likelihood or null, "at_risk": n}): the next digest's trend is measured from them.
    digest_figures = models.JSONField(default=dict, blank=True)

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


class TimeAllowanceQuerySet(models.QuerySet["TimeAllowance"]):
    def allowance_of(self, learner_id: int, exam_id: int) -> Allowance:
        """The most generous extra time granted to the learner on the exam: by a cohort of
        that exam they are in, to the whole cohort or to them. One query."""
        grants = self.filter(
            Q(learner_id=learner_id) | Q(learner__isnull=True),
            cohort__exam_id=exam_id,
            cohort__memberships__learner_id=learner_id,
        ).values_list("allowance", flat=True)
        return most_generous(grants)


class TimeAllowance(models.Model):
    """Extra time in mock exams, granted by a cohort's instructor to the whole cohort
    (learner empty) or to one of its learners. Leaving the cohort ends it."""

    cohort = models.ForeignKey(Cohort, on_delete=models.CASCADE, related_name="allowances")
    learner = models.ForeignKey(
        User, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    allowance = models.CharField(max_length=10, choices=Allowance.choices)
    granted_by = models.ForeignKey(
        User, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    granted_at = models.DateTimeField(default=timezone.now)

    objects = TimeAllowanceQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["cohort", "learner"], name="allowance_once_per_learner"
            ),
            models.UniqueConstraint(
                fields=["cohort"],
                condition=Q(learner__isnull=True),
                name="allowance_once_per_cohort",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_allowance_display()} in {self.cohort_id}"

    @classmethod
    def grant(cls, cohort: Cohort, learner: User | None, allowance: str, by: User) -> None:
        """Set the cohort's (or one learner's) allowance; standard time removes it."""
        cls.objects.filter(cohort=cohort, learner=learner).delete()
        if allowance != Allowance.STANDARD:
            cls.objects.create(cohort=cohort, learner=learner, allowance=allowance, granted_by=by)


# Below this many learners, a question's figures are shown but not flagged: too few to judge.
MIN_FLAG_LEARNERS = 10


class ItemStatistic(models.Model):
    """A question's statistics over the attempts of everyone (cohort empty) or of one cohort's
    learners, as the worker last left them (pages read these, never the attempts; see
    progress.cohorts.item_statistics). Facility and discrimination are over each learner's
    first answer to the question, as in a test: facility is the mean score (the share right,
    a partly right answer counting its share); discrimination is the correlation of that
    score with the learner's mean score on the exam's other questions (the "rest of the
    test" of Moodle's quiz statistics). For a question made of parts, `part_right` counts the
    first answers that got each part right: its facility per part."""

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="statistics")
    cohort = models.ForeignKey(
        Cohort, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    attempts = models.PositiveIntegerField(default=0)  # every answer, repeats included
    learners = models.PositiveIntegerField(default=0)  # learners with a first answer
    right = models.PositiveIntegerField(default=0)  # of them, those fully right at it
    marks = models.FloatField(default=0.0)  # their scores summed: a partly right one its share
    facility = models.FloatField(null=True)  # 0..1: marks / learners
    discrimination = models.FloatField(null=True)  # -1..1; None when it cannot be computed
    # Option key -> how many answers chose it (an answer may choose several).
    option_counts = models.JSONField(default=dict)
    # Part key (a step's key for an ordering) -> first answers that got that part right.
    part_right = models.JSONField(default=dict)
    median_seconds = models.FloatField(null=True)
    flags = models.JSONField(default=list)  # [[code, reason], ...]
    flagged = models.BooleanField(default=False)  # any flag: what "flags first" sorts on
    # The running sums of the discrimination's correlation ({"n": ..., "sx": ..., ...}): an
    # exam's refresh adds what its new answers change to them (cohorts.item_refresh).
    moments = models.JSONField(default=dict)
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


class ItemStatisticsMarkQuerySet(models.QuerySet["ItemStatisticsMark"]):
    def begin(self, exam: Exam, *, not_within: timedelta) -> bool:
        """Record that a refresh of the exam begins now, in the caller's transaction; False
        (nothing recorded) when one began less than `not_within` ago. Locks the exam's mark
        (made if missing) until the caller's transaction ends. Two queries."""
        mark, _ = self.select_for_update().get_or_create(exam=exam)
        now = timezone.now()
        if mark.started_at is not None and now - mark.started_at < not_within:
            return False
        mark.started_at = now
        mark.save(update_fields=["started_at"])
        return True

    def last_start(self, exam_id: int) -> datetime | None:
        """When the exam's last refresh began (None: never). One query."""
        return self.filter(exam_id=exam_id).values_list("started_at", flat=True).first()


class ItemStatisticsMark(models.Model):
    """How far an exam's item statistics go: its attempts counted (up to an id), the learners
    counted in each of its cohorts' figures, and when its last refresh began. The exam's
    refresh counts only what changed since (cohorts.item_refresh); the full recompute
    (compute_item_statistics) sets every exam's mark to what it counted."""

    exam = models.OneToOneField(Exam, on_delete=models.CASCADE, primary_key=True, related_name="+")
    # The exam's attempts up to this id are in its figures. None: nothing of the exam is
    # counted yet, whatever rows there are (those of a recompute from before the marks).
    last_attempt_id = models.BigIntegerField(null=True)
    # {cohort id: [learner id, ...]}: the members whose answers the cohorts' figures count.
    members = models.JSONField(default=dict)
    # When the last refresh began: the next waits until REFRESH_EVERY after it (cohorts.tasks).
    started_at = models.DateTimeField(null=True)

    objects = ItemStatisticsMarkQuerySet.as_manager()

    def __str__(self) -> str:
        return f"Item statistics of {self.exam_id} up to attempt {self.last_attempt_id}"


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


class WorkerBeatQuerySet(models.QuerySet["WorkerBeat"]):
    def beat(self, worker_id: str) -> None:
        """Record that the worker is alive now. One query, two the first time."""
        now = timezone.now()
        if not self.filter(worker_id=worker_id).update(beat_at=now):
            self.create(worker_id=worker_id, started_at=now, beat_at=now)

    def last_beats(self) -> dict[str, datetime]:
        """Each worker's last beat. One query: read apart, the workers and the live ones
        could disagree about a worker whose first beat came between the two."""
        return dict(self.values_list("worker_id", "beat_at"))


class WorkerBeat(models.Model):
    """A task worker's heartbeat: its id (the one each task it claims records in
    `worker_ids`) and when it last said it is alive, every few seconds from a thread of its
    own, also while a long task runs (progress/management/commands/db_worker.py). A running
    task whose worker has gone silent lost it: the sweep marks it failed, and removes the
    rows of workers silent for a day."""

    worker_id = models.CharField(max_length=64, primary_key=True)
    started_at = models.DateTimeField()
    beat_at = models.DateTimeField()

    objects = WorkerBeatQuerySet.as_manager()

    def __str__(self) -> str:
        return f"Worker {self.worker_id}, last heard {self.beat_at:%Y-%m-%d %H:%M:%S}"
