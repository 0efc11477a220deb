"""Readiness: the learner model's state, stored. The model (progress.engine) is plain Python;
its state lives in these rows: a learner's overall ability and profile, one row per learner and
topic, one per question, and the parameters in use. Every recorded answer updates them in its
own transaction (`LearnerReadiness.objects.lock`, then `apply`); `rebuild` recomputes them all
from the attempts. Pages only read them, and the figures computed from them per exam
(ExamReadiness)."""

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import models
from django.db.models import F
from django.utils import timezone

from progress.accounts.models import User
from progress.engine import learner_model
from questions.models import Exam, Question, Topic

# Below this many answers by this many learners, the site's attempts are too few to fit the
# model's weights on: the starting parameters are used.
MIN_FIT_LEARNERS = 10
MIN_FIT_ANSWERS = 200


def starting_params() -> learner_model.ModelParams:
    """The parameters before the site has attempts to fit on: an Elo / Rasch model with
    uncertainty (Glicko-like), with priors from the item-response literature rather than from
    any data set: abilities and question difficulties spread by about one logit, topic offsets
    by about 0.7, a little drift so that learners can learn, and a typical practice accuracy
    of about 62% (bias 0.5). No history weights: `rebuild_readiness` fits them once the site
    has enough attempts."""
    return learner_model.ModelParams(
        bias=0.5,
        ability_variance=1.0,
        topic_variance=0.5,
        profile_variance=0.0,
        ability_drift=0.003,
        topic_drift=0.003,
        item_variance=1.0,
    )


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


@dataclass(frozen=True)
class ModelInUse:
    fit_id: int | None
    model: learner_model.ReadinessModel
    last_attempt_id: int
    fitted_items: frozenset[str]

    def learns_from(self, attempt_id: int, question_id: int | None) -> bool:
        """Whether this answer still moves the question's difficulty (see ReadinessFit)."""
        if question_id is None:
            return False
        return attempt_id > self.last_attempt_id or str(question_id) not in self.fitted_items

    def new_item(self) -> learner_model.ItemState:
        return learner_model.ItemState(0.0, self.model.params.item_variance, 0)

    def starting_item(self, question_id: int) -> learner_model.ItemState:
        """A question's state before its first answer: as fitted, or a new average one."""
        fitted = self.model.params.items.get(str(question_id))
        return learner_model.ItemState.from_dict(fitted.to_dict()) if fitted else self.new_item()


_MODELS: dict[tuple[int, datetime] | None, ModelInUse] = {}


def current_model() -> ModelInUse:
    """The model in use. One query; the parsed parameters are kept per process, keyed by the
    fit's id and creation time (SQLite may give a deleted fit's id to the next one). Nobody
    changes them: callers pass their own ItemState copies to the model."""
    newest = ReadinessFit.objects.order_by("-pk").values_list("pk", "created_at").first()
    in_use = _MODELS.get(newest)
    if in_use is None:
        if newest is None:
            in_use = ModelInUse(
                None, learner_model.ReadinessModel(starting_params()), 0, frozenset()
            )
        else:
            fit = ReadinessFit.objects.get(pk=newest[0])
            params = learner_model.ModelParams.from_json(json.dumps(fit.params))
            in_use = ModelInUse(
                fit.pk, learner_model.ReadinessModel(params), fit.last_attempt_id,
                frozenset(params.items),
            )  # fmt: skip
        _MODELS[newest] = in_use
    return in_use


# One answer for the model: (attempt id, question id or None, topic id, correct).
ModelAnswer = tuple[int, int | None, int | None, bool]


def replay_answers(
    in_use: ModelInUse,
    learner: learner_model.LearnerState,
    items: dict[int, learner_model.ItemState],
    answers: Sequence[ModelAnswer],
) -> None:
    """Apply answers in order to a learner's state and the questions' states (both changed in
    place): the same steps for an answer recorded now and for one replayed by a rebuild."""
    model = in_use.model
    for attempt_id, question_id, topic_id, correct in answers:
        item = items.get(question_id) if question_id is not None else None
        learn = item is not None and in_use.learns_from(attempt_id, question_id)
        model.update(
            learner,
            str(topic_id),
            str(question_id),
            correct,
            item=item if item is not None else in_use.new_item(),
            learn_item=learn,
        )


class LearnerReadinessQuerySet(models.QuerySet["LearnerReadiness"]):
    def lock(self, learner_id: int, question_ids: Iterable[int | None]) -> "ReadinessUpdate":
        """Start updating the learner's state after answers to these questions, in the
        caller's transaction, BEFORE the attempts are inserted: the learner's row is locked
        first (two answers of one learner queue there), then the questions' rows in id order
        (two learners answering one question queue there; one order everywhere, so no
        deadlock). Taking the locks before the attempts get their ids makes the id order the
        order of the updates, which is what a rebuild replays. Five queries: the fit in use,
        the learner's row (insert if missing, lock), the questions' rows (the same)."""
        in_use = current_model()
        LearnerReadiness.objects.bulk_create(
            [LearnerReadiness(learner_id=learner_id)], ignore_conflicts=True
        )
        row = self.select_for_update().get(learner_id=learner_id)
        ids = sorted({qid for qid in question_ids if qid is not None})
        QuestionReadiness.objects.bulk_create(
            [QuestionReadiness.from_state(q, in_use.starting_item(q)) for q in ids],
            ignore_conflicts=True,
        )
        items = list(
            QuestionReadiness.objects.select_for_update()
            .filter(question_id__in=ids)
            .order_by("question_id")
        )
        return ReadinessUpdate(in_use, row, items)


@dataclass
class ReadinessUpdate:
    """The locked rows of one update (see LearnerReadinessQuerySet.lock)."""

    in_use: ModelInUse
    row: "LearnerReadiness"
    item_rows: list["QuestionReadiness"]

    def apply(self, answers: Sequence[ModelAnswer], counts: Mapping[int, Sequence[int]]) -> None:
        """Update the learner's abilities and topics and the questions' difficulties after
        these answers (those of questions given to `lock`). `counts` holds the learner's
        [right, wrong] answers to each of these questions before them, a feature of a question
        met before: the caller reads them from the attempts after `lock` (which queues the
        learner's other answers) and before inserting these. Four queries whatever their
        number: the topics, then the three writes."""
        answers = [a for a in answers if a[2] is not None]
        if not answers:
            return
        learner_id = self.row.learner_id
        topic_ids = sorted({topic_id for _, _, topic_id, _ in answers if topic_id is not None})
        topics = list(TopicReadiness.objects.filter(learner_id=learner_id, topic_id__in=topic_ids))
        state = self.row.learner_state(self.in_use.model, topics)
        for _, question_id, topic_id, _ in answers:
            if question_id is not None:
                topic = self.in_use.model.topic_state(state, str(topic_id))
                topic.items[str(question_id)] = list(counts.get(question_id, [0, 0]))
        items = {r.question_id: r.item_state() for r in self.item_rows}
        replay_answers(self.in_use, state, items, answers)
        now = timezone.now()
        LearnerReadiness.objects.filter(pk=learner_id).update(
            state=LearnerReadiness.state_of(state),
            answers=F("answers") + len(answers),
            updated_at=now,
        )
        TopicReadiness.objects.bulk_create(
            [
                TopicReadiness.from_state(learner_id, t, state.topics[str(t)], now)
                for t in topic_ids
            ],
            update_conflicts=True,
            unique_fields=["learner", "topic"],
            update_fields=["state", "answers", "ability", "variance", "updated_at"],
        )
        QuestionReadiness.objects.bulk_update(
            [QuestionReadiness.from_state(q, item) for q, item in items.items()],
            ["difficulty", "variance", "answers", "profile"],
        )


class LearnerReadiness(models.Model):
    """A learner's overall ability (with its variance and history counts) and profile."""

    learner = models.OneToOneField(
        User, on_delete=models.CASCADE, primary_key=True, related_name="readiness"
    )
    # {"overall": LearnerTopicState.to_dict(), "profile": [...], "profile_variance": [...]}
    state = models.JSONField(default=dict)
    answers = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(default=timezone.now)

    objects = LearnerReadinessQuerySet.as_manager()

    def __str__(self) -> str:
        return f"Readiness of {self.learner_id} ({self.answers} answers)"

    def learner_state(
        self, model: learner_model.ReadinessModel, topics: Sequence["TopicReadiness"]
    ) -> learner_model.LearnerState:
        """The model's state of this learner, with the topics given (others start afresh)."""
        if self.state:
            state = learner_model.LearnerState.from_dict({**self.state, "topics": {}})
        else:
            state = model.new_learner()
        for row in topics:
            state.topics[str(row.topic_id)] = learner_model.LearnerTopicState.from_dict(row.state)
        return state

    @staticmethod
    def state_of(state: learner_model.LearnerState) -> dict[str, Any]:
        data = state.to_dict()
        del data["topics"]  # each in its own row
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
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            # Its index also serves "this learner's topics" (the dashboard).
            models.UniqueConstraint(fields=["learner", "topic"], name="topic_readiness_once"),
        ]

    def __str__(self) -> str:
        return f"Readiness of {self.learner_id} on topic {self.topic_id}"

    @classmethod
    def from_state(
        cls, learner_id: int, topic_id: int, state: learner_model.LearnerTopicState, when: datetime
    ) -> "TopicReadiness":
        # The per-question counts are not stored: they grow with every question answered,
        # and the attempts hold them (see question_counts).
        return cls(
            learner_id=learner_id,
            topic_id=topic_id,
            state={**state.to_dict(), "items": {}},
            answers=state.wins + state.fails,
            ability=state.ability,
            variance=state.variance,
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
