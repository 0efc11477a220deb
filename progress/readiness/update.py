"""A recorded answer's update of the learner's readiness: the lock of the learner's rows
(`lock`, one statement: lock_query.py), then the update in memory (`ReadinessUpdate.apply`,
no query) and its writes (`ReadinessUpdate.statements`), sent by the answer's writer with its
other writes. `replay_answers` is the same steps for an answer recorded now and for one a
rebuild replays."""

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from django.db import connection, models
from django.utils import timezone

from courseiva.lib.sql import Statement, read_value, update, upsert
from progress.engine import learner_model
from progress.readiness.in_use import ModelInUse, current_model, model_of
from progress.readiness.lock_query import lock_abilities
from progress.readiness.models import ExamAbility, Mover, TopicReadiness

# One answer for the model: (attempt id, question id or None, topic id, exam id, correct).
ModelAnswer = tuple[int, int | None, int | None, int | None, bool]

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
        topic_rows: Sequence[TopicReadiness],
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
