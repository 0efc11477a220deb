"""Readiness's tables: the learner model's state, stored. The model (progress.engine) is plain
Python; its state lives in these rows: a learner's overall ability and profile on each exam,
one row per learner and topic, one per question, and the parameters in use. Every recorded
answer updates the learner's rows in its own transaction (`update`); the questions' rows
move in batches (`batches`); `rebuild` recomputes them all from the attempts. Pages only read
them, and the figures computed from them per exam (ExamReadiness)."""

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from django.db import models
from django.utils import timezone

from progress.accounts.models import User
from progress.engine import learner_model
from questions.models import Exam, Question, Topic

# Below this many answers by this many learners, the site's attempts are too few to fit the
# model's weights on: the starting parameters are used.
MIN_FIT_LEARNERS = 10
MIN_FIT_ANSWERS = 200


class ReadinessFit(models.Model):
    """A set of the model's parameters; the newest row is the one in use (no row: the
    starting parameters). The questions it fitted start from their fitted difficulty; the
    attempts up to `last_attempt_id` taught them already, so replaying those attempts does not
    move them again."""

    params = models.JSONField()  # ModelParams.to_json(), parsed
    created_at = models.DateTimeField(default=timezone.now)
    learners = models.PositiveIntegerField(default=0)
    answers = models.PositiveIntegerField(default=0)
    last_attempt_id = models.BigIntegerField(default=0)
    summary = models.TextField(blank=True)

    def __str__(self) -> str:
        return f"Readiness fit {self.pk} of {self.created_at:%Y-%m-%d}: {self.summary}"


class Mover(NamedTuple):
    """An answer that moved readiness, as ExamAbility keeps it (a JSON list, in this order)."""

    attempt_id: int
    topic_id: int
    question_id: int | None  # None: a question deleted since
    # 1 right, 0 wrong, a share for a partly right answer (rows kept before partial credit
    # hold true or false, which read as 1 and 0).
    score: float
    points: float  # by how many percentage points it moved the topic's readiness


# The answers kept per learner and exam: enough to say what moved readiness since a visit.
MOVERS_KEPT = 40


class ExamAbility(models.Model):
    """A learner's overall ability on one exam (with its variance and history counts) and
    profile: readiness on an exam moves only with answers to that exam's questions. It also
    keeps the answers that last moved the learner's readiness most (`movers`), so that the
    learner's page can say what changed since a visit without reading the attempts."""

    learner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="+")
    exam = models.ForeignKey(Exam, on_delete=models.CASCADE, related_name="+")
    # {"overall": LearnerTopicState.to_dict(), "profile": [...], "profile_variance": [...],
    #  "trace": [...]}
    state = models.JSONField(default=dict)
    answers = models.PositiveIntegerField(default=0)
    # The last MOVERS_KEPT answers, oldest first, each a Mover as a list.
    movers = models.JSONField(default=list)
    updated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            # Its index also serves "this learner's states on these exams", and it is the
            # conflict target of the update's lock (readiness.lock_query).
            models.UniqueConstraint(fields=["learner", "exam"], name="exam_ability_once"),
        ]

    def __str__(self) -> str:
        return f"Ability of {self.learner_id} on {self.exam_id} ({self.answers} answers)"

    def learner_state(
        self, model: learner_model.ReadinessModel, topics: Sequence["TopicReadiness"]
    ) -> learner_model.LearnerState:
        """The model's state of this learner on this exam, with the given topics (the caller
        gives this exam's; the others start afresh)."""
        if self.state:
            state = learner_model.LearnerState.from_dict({**self.state, "topics": {}})
        else:
            state = model.new_learner()
        for row in topics:
            state.topics[str(row.topic_id)] = learner_model.LearnerTopicState.from_dict(row.state)
        return state

    def absorb(self, state: learner_model.LearnerState, moved: Sequence[Mover], count: int) -> None:
        """Take the state after `count` more answers, and what they moved (not saved)."""
        self.state = state_of(state)
        self.answers += count
        self.movers = [*self.movers, *(list(m) for m in moved)][-MOVERS_KEPT:]


def state_of(state: learner_model.LearnerState) -> dict[str, Any]:
    """What an ExamAbility row stores of the model's state: the topics have their own rows."""
    data = state.to_dict()
    del data["topics"]
    return data


class TopicReadiness(models.Model):
    """A learner on one topic: the ability offset from the overall one, its variance, and
    the counts of right and wrong answers the model reads. `ability`, `variance` and
    `answers` repeat what `state` holds, so that pages can filter and sort on them."""

    learner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="topic_readiness")
    topic = models.ForeignKey(Topic, on_delete=models.CASCADE, related_name="+")
    state = models.JSONField()  # LearnerTopicState.to_dict()
    answers = models.PositiveIntegerField(default=0)
    ability = models.FloatField(default=0.0)
    variance = models.FloatField(default=0.0)
    # The difficulties (logit, relative to the topic) of the questions answered, summed as they
    # stood then: their mean says whether readiness rests on hard or easy questions.
    difficulty_sum = models.FloatField(default=0.0)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            # Its index also serves "this learner's topics" (the dashboard).
            models.UniqueConstraint(fields=["learner", "topic"], name="topic_readiness_once"),
        ]

    def __str__(self) -> str:
        return f"Readiness of {self.learner_id} on topic {self.topic_id}"

    @property
    def mean_difficulty(self) -> float:
        return self.difficulty_sum / self.answers if self.answers else 0.0

    @classmethod
    def from_state(
        cls,
        learner_id: int,
        topic_id: int,
        state: learner_model.LearnerTopicState,
        when: datetime,
        difficulty_sum: float = 0.0,
    ) -> "TopicReadiness":
        # The per-question counts are not stored: they grow with every question answered,
        # and the attempts hold them (see Attempt.objects.question_counts).
        return cls(
            learner_id=learner_id,
            topic_id=topic_id,
            state={**state.to_dict(), "items": {}},
            answers=round(state.wins + state.fails),  # shares of partly right answers add to 1
            ability=state.ability,
            variance=state.variance,
            difficulty_sum=difficulty_sum,
            updated_at=when,
        )


class QuestionReadiness(models.Model):
    """A question's difficulty for the model (logit, relative to its topic), the variance of
    that estimate, the answers it has had, and its profile (empty: none)."""

    question = models.OneToOneField(
        Question, on_delete=models.CASCADE, primary_key=True, related_name="readiness"
    )
    difficulty = models.FloatField(default=0.0)
    variance = models.FloatField(default=1.0)
    answers = models.PositiveIntegerField(default=0)
    profile = models.JSONField(default=list)

    def __str__(self) -> str:
        return f"Difficulty of {self.question_id}: {self.difficulty:+.2f}"

    def item_state(self) -> learner_model.ItemState:
        return learner_model.ItemState(
            difficulty=self.difficulty,
            variance=self.variance,
            answers=self.answers,
            profile=[float(v) for v in self.profile],
        )

    @classmethod
    def from_state(cls, question_id: int, item: learner_model.ItemState) -> "QuestionReadiness":
        return cls(
            question_id=question_id,
            difficulty=item.difficulty,
            variance=item.variance,
            answers=item.answers,
            profile=list(item.profile),
        )


class ExamReadiness(models.Model):
    """Where a learner stands on an exam, as computed from their stored state after their
    latest answer: what a cohort page shows for each of its learners without computing a
    forecast per learner. Written by whoever computes it (the learner's page, a cohort page)
    and fresh while `answers` equals the learner's answer count under the same fit."""

    learner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="+")
    exam = models.ForeignKey(Exam, on_delete=models.CASCADE, related_name="+")
    fit_id = models.IntegerField(null=True)
    answers = models.PositiveIntegerField(default=0)
    # None while a topic still needs answers (see `missing`) or the exam has no mock shape.
    pass_probability = models.FloatField(null=True)
    expected_percent = models.FloatField(null=True)
    low_percent = models.FloatField(null=True)
    high_percent = models.FloatField(null=True)
    # {topic id: [percent, low, high, answers]} and [[topic id, answers still needed], ...]
    topics = models.JSONField(default=dict)
    missing = models.JSONField(default=list)
    computed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            # Its index also serves "this exam's figures for these learners" (cohort pages).
            models.UniqueConstraint(fields=["exam", "learner"], name="exam_readiness_once"),
        ]

    def __str__(self) -> str:
        return f"{self.learner_id} on {self.exam_id}: {self.pass_probability}"


class ReadinessVisit(models.Model):
    """What a learner's progress page showed of an exam: the figures at the latest view, and
    the baseline of "what changed since your last visit", the figures as the previous visit
    left them. A visit is a run of views with less than VISIT_GAP between them, so that
    reloading the page does not wipe out what changed since yesterday."""

    learner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="+")
    exam = models.ForeignKey(Exam, on_delete=models.CASCADE, related_name="+")
    seen_at = models.DateTimeField(default=timezone.now)
    pass_probability = models.FloatField(null=True)
    topics = models.JSONField(default=dict)  # {topic id: percent}
    last_attempt_id = models.BigIntegerField(default=0)  # the newest answer counted then
    # The baseline: the same figures at the end of the previous visit (none on a first one).
    since_at = models.DateTimeField(null=True, blank=True)
    since_pass_probability = models.FloatField(null=True)
    since_topics = models.JSONField(default=dict)
    since_attempt_id = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            # Its index also serves "this learner's last visits to these exams".
            models.UniqueConstraint(fields=["learner", "exam"], name="readiness_visit_once"),
        ]

    def __str__(self) -> str:
        return f"Visit of {self.learner_id} to {self.exam_id} at {self.seen_at:%Y-%m-%d %H:%M}"

    def begin(self, now: datetime) -> None:
        """A view VISIT_GAP or more after the last one starts a new visit: what the last one
        showed becomes the baseline (not saved)."""
        if self.pk is not None and now - self.seen_at >= VISIT_GAP:
            self.since_at = self.seen_at
            self.since_pass_probability = self.pass_probability
            self.since_topics = self.topics
            self.since_attempt_id = self.last_attempt_id

    def saw(
        self,
        pass_probability: float | None,
        topics: dict[str, float],
        last_attempt_id: int,
        now: datetime,
    ) -> None:
        """Record a view showing these figures (not saved); `begin` comes first."""
        self.seen_at = now
        self.pass_probability = pass_probability
        self.topics = topics
        self.last_attempt_id = last_attempt_id


# Views closer together than this are one visit (an evening's study, with breaks).
VISIT_GAP = timedelta(hours=6)


class StudyGoalQuerySet(models.QuerySet["StudyGoal"]):
    def upcoming(self, learner: User) -> "StudyGoalQuerySet":
        """The learner's goals whose exam date is today or later, soonest first."""
        return self.filter(learner=learner, target_date__gte=timezone.localdate()).order_by(
            "target_date"
        )


class StudyGoal(models.Model):
    """The exam a learner is preparing for, the day they mean to sit it, and how many questions
    a day they can practise: the first step a new learner takes, and what a study plan is
    built to."""

    learner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="study_goals")
    exam = models.ForeignKey(Exam, on_delete=models.CASCADE, related_name="+")
    target_date = models.DateField()
    daily_questions = models.PositiveSmallIntegerField(default=20)
    updated_at = models.DateTimeField(default=timezone.now)

    objects = StudyGoalQuerySet.as_manager()

    class Meta:
        constraints = [
            # Its index also serves "this learner's goals" (the dashboard, the home page).
            models.UniqueConstraint(fields=["learner", "exam"], name="study_goal_once"),
        ]

    def __str__(self) -> str:
        return f"{self.learner_id}: {self.exam_id} on {self.target_date}"

    @property
    def days_left(self) -> int:
        return (self.target_date - timezone.localdate()).days


class QuestionBatch(models.Model):
    """One batched update of the questions' difficulties (see progress.readiness.batches):
    it applied the answers after the previous batch's last attempt, up to and including
    `last_attempt_id`, in attempt order. The rows are the batch boundaries a rebuild replays:
    between two of them, every answer read the questions' states as the earlier one left
    them."""

    last_attempt_id = models.BigIntegerField(unique=True)
    answers = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "question batches"

    def __str__(self) -> str:
        return f"Question batch up to attempt {self.last_attempt_id} ({self.answers} answers)"
