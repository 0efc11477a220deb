"""A recorded answer's update of the learner's readiness: the lock of the learner's rows
(`lock`, one statement: lock_query.py), then the update in memory (`ReadinessUpdate.apply`,
no query) and its writes (`ReadinessUpdate.statements`), sent by the answer's writer with its
other writes. `replay_answers` is the same steps for an answer recorded now and for one a
rebuild replays."""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from django.db import connection, models
from django.utils import timezone

from courseiva.lib.sql import Statement, read_value, update, upsert
from progress.engine import learner_model
from progress.readiness.in_use import ModelInUse, current_model, model_of
from progress.readiness.lock_query import lock_abilities
from progress.readiness.models import ExamAbility, Mover, TopicReadiness


class ModelAnswer(NamedTuple):
    """One answer for the model, in the order answered."""

    question_id: int | None  # None: a question deleted since
    topic_id: int | None
    exam_id: int | None
    # 1 right, 0 wrong, a share for a partly right answer (Attempt.score): the model takes
    # it as a fractional outcome (learner_model.ReadinessModel.update_learner).
    score: float


class Effect(NamedTuple):
    """What replaying one answer did (see `replay_answers`)."""

    # The learner's logit without the question's difficulty: what the question's batched
    # update starts from (see progress.readiness.batches). None without a question state.
    learner_logit: float | None
    # By how many percentage points it moved its topic's readiness; None when not measured.
    points: float | None


class ItemAnswer(NamedTuple):
    """What an answer leaves for the batched update of its question's difficulty (see
    progress.readiness.batches)."""

    attempt_id: int
    question_id: int
    score: float
    learner_logit: float


def replay_answers(
    in_use: ModelInUse,
    learner: learner_model.LearnerState,
    items: Mapping[int, learner_model.ItemState],
    answers: Sequence[ModelAnswer],
    *,
    measure: bool = True,
) -> list[Effect]:
    """Apply answers in order to a learner's state on one exam (changed in place), reading the
    questions' states without changing them: their difficulties move later, in batches (see
    progress.readiness.batches), from each answer's `learner_logit`. The same steps for an
    answer recorded now and for one replayed by a rebuild. Returns what each answer did, in
    the order of `answers`: with `measure`, how far it moved its topic's readiness (a typical
    question of the topic, in percentage points), for the explanations; with `measure` False
    (a rebuild's answers older than the ones kept) nothing is measured, which halves the
    cost."""
    model = in_use.model
    effects: list[Effect] = []
    for question_id, topic_id, _, score in answers:
        item = items.get(question_id) if question_id is not None else None
        if measure:
            before = model.topic_readiness(learner, str(topic_id)).probability
        logit = model.update_learner(
            learner,
            str(topic_id),
            str(question_id),
            score,
            item=item if item is not None else in_use.new_item(),
        )
        learner_logit = logit + item.difficulty if item is not None else None
        points = None
        if measure:
            after = model.topic_readiness(learner, str(topic_id)).probability
            points = 100 * (after - before)
        effects.append(Effect(learner_logit, points))
    return effects


def lock(
    learner_id: int,
    exam_ids: Iterable[int | None],
    *,
    new_attempts: int = 0,
    ids_from: type[models.Model] | None = None,
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
    (`attempt_ids`) from the sequence of the table of `ids_from`, the attempts' model, which
    the caller hands in (readiness reads no table of the practice room), taken once the row
    is locked, so that the attempts can be inserted with the other writes (see
    progress.practice.recording.insert_answers)."""
    exams = sorted({exam_id for exam_id in exam_ids if exam_id is not None})
    if not exams:
        return ReadinessUpdate(current_model(), learner_id, {})
    allocate = new_attempts if connection.vendor == "postgresql" and len(exams) == 1 else 0
    rows, newest = lock_abilities(learner_id, exams, new_ids=allocate, ids_from=ids_from)
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


@dataclass
class ReadinessUpdate:
    """The locked rows of one update (see `lock`), then what `apply` computed from them,
    written by `statements`."""

    in_use: ModelInUse
    learner_id: int
    abilities: dict[int, ExamAbility]
    attempt_ids: list[int] = field(default_factory=list)  # taken by `lock`, PostgreSQL only
    topic_rows: dict[int, TopicReadiness] = field(default_factory=dict)
    # Per exam answered: the learner's state after the answers, and each answer with its
    # place among them and its effect, which become movers once the attempts have ids.
    _changes: dict[int, "_ExamChange"] = field(default_factory=dict)
    _topic_ids: list[int] = field(default_factory=list)
    _topic_states: dict[int, learner_model.LearnerTopicState] = field(default_factory=dict)
    _sums: dict[int, float] = field(default_factory=dict)

    def apply(
        self,
        answers: Sequence[ModelAnswer],
        counts: Mapping[int, Sequence[float]],
        items: Mapping[int, learner_model.ItemState],
        topic_rows: Sequence[TopicReadiness],
    ) -> dict[int, float]:
        """Update the learner's abilities and topics after these answers (in memory:
        `statements` writes them), reading the questions' states in `items` (each question
        answered; the caller gives a new question its starting state). Readiness on an exam
        moves only with answers to that exam's questions: each exam has its own overall
        ability. `counts` holds the learner's [right, wrong] answers to each question before
        these (a partly right one its score and the rest), a feature of a question met
        before; `topic_rows` the learner's rows of the topics answered. Returns, by the
        answer's place in `answers`, the learner's logit without the question's difficulty,
        which the attempt keeps for the batched update of the question. No query."""
        answered = [
            (place, answer)
            for place, answer in enumerate(answers)
            if answer.topic_id is not None and answer.exam_id in self.abilities
        ]
        if not answered:
            return {}
        model = self.in_use.model
        self._topic_ids = sorted({int(answer.topic_id or 0) for _, answer in answered})
        self.topic_rows = {row.topic_id: row for row in topic_rows}
        sums = {row.topic_id: row.difficulty_sum for row in topic_rows}
        logits: dict[int, float] = {}
        for exam_id, ability in self.abilities.items():
            mine = [(place, answer) for place, answer in answered if answer.exam_id == exam_id]
            if not mine:
                continue
            touched = {int(answer.topic_id or 0) for _, answer in mine}
            state = ability.learner_state(model, [r for r in topic_rows if r.topic_id in touched])
            for _, answer in mine:
                if answer.question_id is not None:
                    topic = model.topic_state(state, str(answer.topic_id))
                    topic.items[str(answer.question_id)] = list(
                        counts.get(answer.question_id, [0, 0])
                    )
                    item = items.get(answer.question_id)
                    topic_key = int(answer.topic_id or 0)
                    sums[topic_key] = sums.get(topic_key, 0.0) + (
                        item.difficulty if item is not None else 0.0
                    )
            places, exam_answers = [place for place, _ in mine], [answer for _, answer in mine]
            effects = replay_answers(self.in_use, state, items, exam_answers)
            for place, effect in zip(places, effects, strict=True):
                if effect.learner_logit is not None:
                    logits[place] = effect.learner_logit
            self._changes[exam_id] = _ExamChange(state, places, exam_answers, effects)
            for topic_id in touched:
                self._topic_states[topic_id] = state.topics[str(topic_id)]
        self._sums = sums
        return logits

    def statements(self, attempt_ids: Sequence[int]) -> list[Statement]:
        """The writes of what `apply` computed, given the answers' attempts' ids (in the order
        of its `answers`): one update per exam answered, one upsert of the topics (for
        courseiva.lib.sql.run_together: they touch the learner's own rows, none twice)."""
        if not self._topic_ids:
            return []
        now = timezone.now()
        statements = []
        for exam_id, change in sorted(self._changes.items()):
            ability = self.abilities[exam_id]
            moved = [
                Mover(
                    attempt_ids[place],
                    int(answer.topic_id or 0),
                    answer.question_id,
                    answer.score,
                    effect.points or 0.0,
                )
                for place, answer, effect in zip(
                    change.places, change.answers, change.effects, strict=True
                )
            ]
            ability.absorb(change.state, moved, len(moved))
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


class _ExamChange(NamedTuple):
    """What `apply` computed for one exam, for `statements` to write."""

    state: learner_model.LearnerState  # the learner's, after the answers
    places: list[int]  # the answers' places in apply's `answers`
    answers: list[ModelAnswer]
    effects: list[Effect]


# Written out rather than built by the ORM on every answer: its statement compilation cost
# more than the statements (see progress.practice.recording).
ABILITY_WRITTEN = ("state", "answers", "movers", "updated_at")
TOPIC_WRITTEN = ("state", "answers", "ability", "variance", "difficulty_sum", "updated_at")
