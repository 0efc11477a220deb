"""Readiness: the learner model's state, stored. The model (progress.engine) is plain Python;
its state lives in these rows: a learner's overall ability and profile on each exam, one row
per learner and topic, one per question, and the parameters in use. Every recorded answer
updates the learner's rows in its own transaction (`ExamAbility.objects.lock`, then `apply`
and `save`); the questions' rows move in batches (`batches`); `rebuild` recomputes them all
from the attempts. Pages only read them, and the figures computed from them per exam
(ExamReadiness)."""

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import connection, models
from django.utils import timezone

from courseiva.lib.sql import Statement, read_value, table, update, upsert
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

# The advisory lock of the batches of the questions' difficulties (see batches.py): any number
# the site uses for nothing else, here "QBATCH" in ASCII.
QUESTION_BATCH_LOCK = 0x514241544348


def current_model() -> ModelInUse:
    """The model in use. One query (`model_of` says which fit that is)."""
    return model_of(ReadinessFit.objects.order_by("-pk").values_list("pk", "created_at").first())


def model_of(newest: tuple[int, datetime] | None) -> ModelInUse:
    """The model of the newest fit (its id and creation time; None: no fit yet). The parsed
    parameters are kept per process, keyed by both (SQLite may give a deleted fit's id to the
    next one): a query only when a new fit has been stored. Nobody changes them: callers pass
    their own ItemState copies to the model."""
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


# One answer for the model: (attempt id, question id or None, topic id, exam id, correct).
ModelAnswer = tuple[int, int | None, int | None, int | None, bool]

# An answer that moved readiness, as ExamAbility keeps it: (attempt id, topic id, question id,
# right, the points by which it moved the topic's readiness).
Mover = tuple[int, int, int | None, bool, float]
# The answers kept per learner and exam: enough to say what moved readiness since a visit.
MOVERS_KEPT = 40

# What an answer leaves for the batched update of its question's difficulty (see
# progress.readiness.batches): (attempt id, question id, right, the learner's logit without
# the question's difficulty).
ItemAnswer = tuple[int, int, bool, float]


def replay_answers(
    in_use: ModelInUse,
    learner: learner_model.LearnerState,
    items: Mapping[int, learner_model.ItemState],
    answers: Sequence[ModelAnswer],
    *,
    measure: bool = True,
    item_answers: list[ItemAnswer] | None = None,
) -> list[Mover]:
    """Apply answers in order to a learner's state on one exam (changed in place), reading the
    questions' states without changing them: their difficulties move later, in batches (see
    progress.readiness.batches), from what each answer appends to `item_answers`. The same
    steps for an answer recorded now and for one replayed by a rebuild. Returns what each
    answer did to its topic's readiness (a typical question of the topic, in percentage
    points), for the explanations; with `measure` False (a rebuild's answers older than the
    ones kept) nothing is measured, which halves the cost."""
    model = in_use.model
    moved: list[Mover] = []
    for attempt_id, question_id, topic_id, _, correct in answers:
        item = items.get(question_id) if question_id is not None else None
        if measure:
            before = model.topic_readiness(learner, str(topic_id)).probability
        logit = model.update_learner(
            learner,
            str(topic_id),
            str(question_id),
            correct,
            item=item if item is not None else in_use.new_item(),
        )
        if item is not None and question_id is not None and item_answers is not None:
            item_answers.append((attempt_id, question_id, correct, logit + item.difficulty))
        if measure:
            after = model.topic_readiness(learner, str(topic_id)).probability
            moved.append(
                (attempt_id, int(topic_id or 0), question_id, correct, 100 * (after - before))
            )
    return moved


class ExamAbilityQuerySet(models.QuerySet["ExamAbility"]):
    def lock(
        self, learner_id: int, exam_ids: Iterable[int | None], new_attempts: int = 0
    ) -> "ReadinessUpdate":
        """Start updating the learner's state on these exams, in the caller's transaction,
        BEFORE the attempts are inserted. One statement: it makes the learner's rows of the
        exams that lack one and locks them all, in exam order (two answers of one learner to
        an exam queue there, so that the id order of a learner's attempts is the order of
        their updates, which a rebuild replays), and returns their state and which fit is in
        use (the parsed parameters are kept per process: see `model_of`). On PostgreSQL it
        first takes the shared side of the lock that the batched update of the questions'
        difficulties takes alone (QUESTION_BATCH_LOCK, see batches.py): learners never wait for
        each other there, and no batch can start between this answer's reading of the
        questions' states and its commit. SQLite runs one writing transaction at a time.

        On PostgreSQL, answers to one exam also get the ids of their `new_attempts` attempts
        from the table's sequence (`attempt_ids`), taken once the row is locked, so that the
        attempts can be inserted with the other writes (see recording.record_answers)."""
        exams = sorted({exam_id for exam_id in exam_ids if exam_id is not None})
        if not exams:
            return ReadinessUpdate(current_model(), learner_id, {})
        allocate = new_attempts if connection.vendor == "postgresql" and len(exams) == 1 else 0
        rows, newest = _lock_abilities(learner_id, exams, allocate)
        attempt_ids = list(rows[0][5] or []) if allocate else []
        abilities = {}
        # JSON columns come back as text on SQLite (and with Django's psycopg set-up).
        state_field = ExamAbility._meta.get_field("state")
        movers_field = ExamAbility._meta.get_field("movers")
        for pk, exam_id, state, answers, movers, *_ in rows:
            ability = ExamAbility(
                pk=pk, learner_id=learner_id, exam_id=exam_id, state=read_value(state_field, state),
                answers=answers, movers=read_value(movers_field, movers),
            )  # fmt: skip
            abilities[exam_id] = ability
        return ReadinessUpdate(model_of(newest), learner_id, abilities, attempt_ids)


def _lock_abilities(
    learner_id: int, exams: Sequence[int], new_ids: int = 0
) -> tuple[list[tuple[Any, ...]], tuple[int, datetime] | None]:
    """See ExamAbilityQuerySet.lock: (the rows (id, exam id, state, answers, movers, and with
    `new_ids` on PostgreSQL the attempt ids taken), the newest fit's (id, created at) or
    None)."""
    abilities, fits = table(ExamAbility), table(ReadinessFit)
    postgres = connection.vendor == "postgresql"
    empty_object, empty_list = ("'{}'::jsonb", "'[]'::jsonb") if postgres else ("'{}'", "'[]'")
    values = ", ".join(["(%s, %s)"] * len(exams))
    params: list[Any] = [value for exam_id in exams for value in (learner_id, exam_id)]
    # The gate: the shared side of the batch lock, taken before the first row is locked.
    gate = (
        "WITH gate AS MATERIALIZED (SELECT pg_advisory_xact_lock_shared(%s)) " if postgres else ""
    )
    # The attempts' ids, from the attempt table's sequence: read by RETURNING only, so taken
    # once the exam row is locked, in the order the learner's answers update it.
    ids = ""
    if new_ids:
        gate += (
            ", ids AS MATERIALIZED (SELECT array_agg(n.id ORDER BY n.id) AS ids FROM "
            "(SELECT nextval(pg_get_serial_sequence(%s, 'id')) AS id "
            "FROM generate_series(1, %s)) n) "
        )
        ids = ", (SELECT ids FROM ids)"
    # Only quoted names, literals and placeholders go into the text; the values are parameters.
    source = (
        f"SELECT v.l, v.e, {empty_object}, 0, {empty_list}, NULL "  # noqa: S608
        f"FROM gate, (VALUES {values}) AS v(l, e)"
        if postgres
        else f"SELECT v.column1, v.column2, {empty_object}, 0, {empty_list}, NULL "  # noqa: S608
        f"FROM (VALUES {values}) AS v WHERE true"  # WHERE: SQLite's upsert needs it here
    )
    sql = (
        f"{gate}INSERT INTO {abilities} (learner_id, exam_id, state, answers, movers, updated_at) "  # noqa: S608
        f"{source} ON CONFLICT (learner_id, exam_id) DO UPDATE SET answers = {abilities}.answers "
        "RETURNING id, exam_id, state, answers, movers, "
        f"(SELECT id FROM {fits} ORDER BY id DESC LIMIT 1), "
        f"(SELECT created_at FROM {fits} ORDER BY id DESC LIMIT 1){ids}"
    )
    if postgres:
        taking = [table(_attempt_model()), new_ids] if new_ids else []
        params[:0] = [QUESTION_BATCH_LOCK, *taking]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    rows.sort(key=lambda row: row[1])
    newest = None
    if rows and rows[0][5] is not None:
        newest = (rows[0][5], read_value(ReadinessFit._meta.get_field("created_at"), rows[0][6]))
    return [(*row[:5], *row[7:]) for row in rows], newest


def _attempt_model() -> Any:
    """The attempts' model, from the app registry: practice's models import this module."""
    from django.apps import apps

    return apps.get_model("progress", "Attempt")


@dataclass
class ReadinessUpdate:
    """The locked rows of one update (see ExamAbilityQuerySet.lock), then what `apply`
    computed from them, written by `statements`."""

    in_use: ModelInUse
    learner_id: int
    abilities: dict[int, "ExamAbility"]
    attempt_ids: list[int] = field(default_factory=list)  # taken by `lock`, PostgreSQL only
    topic_rows: dict[int, "TopicReadiness"] = field(default_factory=dict)
    item_answers: list[ItemAnswer] = field(default_factory=list)
    _topic_ids: list[int] = field(default_factory=list)
    _topic_states: dict[int, learner_model.LearnerTopicState] = field(default_factory=dict)
    _sums: dict[int, float] = field(default_factory=dict)
    _answered: set[int] = field(default_factory=set)

    def apply(
        self,
        answers: Sequence[ModelAnswer],
        counts: Mapping[int, Sequence[int]],
        items: Mapping[int, learner_model.ItemState],
        topic_rows: Sequence["TopicReadiness"],
    ) -> dict[int, float]:
        """Update the learner's abilities and topics after these answers (in memory: `save`
        writes them), reading the questions' states in `items` (each question answered; the
        caller gives a new question its starting state). Readiness on an exam moves only with
        answers to that exam's questions: each exam has its own overall ability. `counts`
        holds the learner's [right, wrong] answers to each question before these, a feature of
        a question met before; `topic_rows` the learner's rows of the topics answered. The
        answers' attempt ids are their positions in `answers` until `save` is given the real
        ones (as -1 - position meanwhile). Returns, per position, the learner's logit without
        the question's difficulty, which the attempt keeps for the batched update of the
        question. No query."""
        numbered = [(-n - 1, *a[1:]) for n, a in enumerate(answers)]
        mine_all = [a for a in numbered if a[2] is not None and a[3] in self.abilities]
        if not mine_all:
            return {}
        model = self.in_use.model
        self._topic_ids = sorted({int(a[2] or 0) for a in mine_all})
        self.topic_rows = {row.topic_id: row for row in topic_rows}
        sums = {row.topic_id: row.difficulty_sum for row in topic_rows}
        for exam_id, ability in self.abilities.items():
            mine = [a for a in mine_all if a[3] == exam_id]
            if not mine:
                continue
            touched = {int(topic_id or 0) for _, _, topic_id, _, _ in mine}
            state = ability.learner_state(model, [r for r in topic_rows if r.topic_id in touched])
            for _, question_id, topic_id, _, _ in mine:
                if question_id is not None:
                    topic = model.topic_state(state, str(topic_id))
                    topic.items[str(question_id)] = list(counts.get(question_id, [0, 0]))
                    item = items.get(question_id)
                    sums[int(topic_id or 0)] = sums.get(int(topic_id or 0), 0.0) + (
                        item.difficulty if item is not None else 0.0
                    )
            moved = replay_answers(self.in_use, state, items, mine, item_answers=self.item_answers)
            ability.absorb(state, moved, len(mine))
            self._answered.add(exam_id)
            for topic_id in touched:
                self._topic_states[topic_id] = state.topics[str(topic_id)]
        self._sums = sums
        return {-placeholder - 1: logit for placeholder, _, _, logit in self.item_answers}

    def statements(self, attempt_ids: Sequence[int]) -> list[Statement]:
        """The writes of what `apply` computed, the answers' positions replaced by their
        attempts' ids: one update per exam answered, one upsert of the topics (for
        courseiva.lib.sql.run_together: they touch the learner's own rows, none twice)."""
        if not self._topic_ids:
            return []
        now = timezone.now()
        statements = []
        for exam_id in sorted(self._answered):
            ability = self.abilities[exam_id]
            ability.movers = [
                [attempt_ids[-m[0] - 1], *m[1:]] if m[0] < 0 else m for m in ability.movers
            ]
            ability.updated_at = now
            # Its row is locked (see `lock`): a plain write of the new state.
            statements.append(update(ability, ABILITY_WRITTEN))
        # The topics' rows: made on a first answer to a topic, else overwritten.
        topics = [
            TopicReadiness.from_state(
                self.learner_id, t, self._topic_states[t], now, self._sums.get(t, 0.0)
            )
            for t in self._topic_ids
        ]
        statements.append(upsert(TopicReadiness, ["learner_id", "topic_id"], TOPIC_WRITTEN, topics))
        return statements


# Written out rather than built by the ORM on every answer: its statement compilation cost
# more than the statements (see progress.practice.recording).
ABILITY_WRITTEN = ("state", "answers", "movers", "updated_at")
TOPIC_WRITTEN = ("state", "answers", "ability", "variance", "difficulty_sum", "updated_at")


class ExamAbility(models.Model):
    """A learner's overall ability on one exam (with its variance and history counts) and
    profile: readiness on an exam moves only with answers to that exam's questions. It also
    keeps the answers that last moved the learner's readiness most (`movers`), so that the
    learner's page can say what changed since a visit without reading the attempts."""

    learner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="+")
    exam = models.ForeignKey(Exam, on_delete=models.CASCADE, related_name="+")
    # {"overall": LearnerTopicState.to_dict(), "profile": [...], "profile_variance": [...]}
    state = models.JSONField(default=dict)
    answers = models.PositiveIntegerField(default=0)
    # The last MOVERS_KEPT answers, oldest first: [attempt id, topic id, question id, right,
    # points], see Mover.
    movers = models.JSONField(default=list)
    updated_at = models.DateTimeField(null=True, blank=True)

    objects = ExamAbilityQuerySet.as_manager()

    class Meta:
        constraints = [
            # Its index also serves "this learner's states on these exams", and it is the
            # conflict target of ExamAbilityQuerySet.lock's upsert.
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
            answers=state.wins + state.fails,
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
