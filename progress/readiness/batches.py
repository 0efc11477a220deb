"""The questions' difficulties, moved in batches by the worker rather than by each answer.

Every learner answering a question used to lock the question's row to move its difficulty;
now an answer only reads the question's state and keeps, on its attempt, the learner's logit
without the question's difficulty (`learner_model.learn_item` takes it from there). The
worker applies the answers recorded since the last batch, in attempt order, to the questions
(`apply_question_batch`), in one transaction that also records the batch (QuestionBatch, the
boundary a rebuild replays). A crash before it commits leaves everything for the next batch;
a batch that finds nothing new does nothing, so running it twice is harmless.

Why the boundaries are exact: on PostgreSQL the batch takes QUESTION_BATCH_LOCK alone, and
every answer takes its shared side before it reads the questions' states (see
`progress.readiness.update.lock`). Learners never wait for each other on it. Once the batch
holds it, no answer is in flight: when it reads the attempts no attempt with a smaller id can
still commit, and every answer after the boundary reads the states the batch left. SQLite
runs one writing transaction at a time (IMMEDIATE), which gives the same.

Why answers do not wait for it. Answers that come while the batch holds the lock wait, so it
holds it for a few short statements only. The batch reads the answers and computes the new
states first, without the lock; then it takes the lock at a moment when no answer is in
flight (asking for it while answers hold the shared side would make every later answer queue
behind the request: `advisory_lock`'s patience), and under it only reads the answers that
committed since its first read, applies them after the others and writes. When the first read
turns out to be stale (another batch or a rebuild came first, or an answer with a smaller id
committed after it), the batch starts again under the lock. The worker also runs batches at
most every BATCH_EVERY (the answers' enqueue, progress.practice.tasks), so that a class
answering at once is not stopped every few milliseconds."""

from collections import Counter
from collections.abc import Iterable, Iterator, MutableMapping
from typing import NamedTuple, Protocol

from django.db import transaction
from django.db.models import Max

from courseiva.lib.sql import advisory_lock, relaxed_commit
from progress.engine import learner_model
from progress.readiness.in_use import ModelInUse, current_model
from progress.readiness.lock_query import QUESTION_BATCH_LOCK
from progress.readiness.models import QuestionBatch, QuestionReadiness
from progress.readiness.update import ItemAnswer
from questions.models import Question


class BatchAnswer(NamedTuple):
    """An answer as the batch reads it from a BatchLog."""

    attempt_id: int
    question_id: int
    exam_id: int
    score: float  # a partly right answer moves the difficulty by its share (learn_item)
    learner_logit: float  # the learner's logit without the question's difficulty


class BatchLog(Protocol):
    """Where the batch reads the answers from (the attempts: `Attempt.objects`)."""

    def batch_answers_after(self, attempt_id: int, *, few: bool = False) -> Iterator[BatchAnswer]:
        """The answers to a question with a topic after this attempt, in id order; `few`:
        read in one go, there are only a few."""
        ...

    def batch_answer_count(self, after: int, up_to: int) -> int:
        """How many of those answers have ids in (after, up_to]."""
        ...


# How long a batch (or a rebuild) tries for a moment when no answer is in flight before it
# waits for the lock like any request (see `advisory_lock`). Under a steady load of answers a
# moment comes within a few tries; only a site never quiet for ten seconds makes answers wait.
LOCK_PATIENCE = 10.0
# Taken by a batch for its whole run (shared: batches may run side by side) and by a
# rebuild's final transaction alone, so that a batch never computes from states that a
# rebuild replaces under it. Answers never take it. "REBUILD" in ASCII.
REBUILD_LOCK = 0x52454255494C44


def lock_out_answers() -> None:
    """Take the batch lock (QUESTION_BATCH_LOCK) alone, until the transaction ends (see the
    module's docstring), at a moment when no answer holds it; nothing on SQLite, whose
    transactions already run one at a time."""
    advisory_lock(QUESTION_BATCH_LOCK, patience=LOCK_PATIENCE)


def lock_out_batches() -> None:
    """Wait for the batches running to end and keep new ones from starting until the
    transaction ends: a rebuild's final transaction, before `lock_out_answers`."""
    advisory_lock(REBUILD_LOCK)


def latest_batch() -> tuple[int, int]:
    """(id, last attempt) of the latest batch, (0, 0) before the first: a batch whose first
    read predates a newer one starts again. One query."""
    row = QuestionBatch.objects.order_by("-pk").values_list("pk", "last_attempt_id").first()
    return row or (0, 0)


def last_boundary() -> int:
    """The last attempt applied by a batch (0: none yet). One query."""
    return QuestionBatch.objects.aggregate(last=Max("last_attempt_id"))["last"] or 0


def learn_items(
    in_use: ModelInUse,
    items: MutableMapping[int, learner_model.ItemState],
    answers: Iterable[ItemAnswer],
) -> None:
    """Move the questions' states (changed in place; a question not there yet starts as
    `in_use` says) by these answers, in order: the same steps for the worker's batch and for
    a rebuild's replay of it. A question fitted on the attempts up to the fit's last one does
    not learn from them again."""
    for attempt_id, question_id, score, logit in answers:
        item = items.get(question_id)
        if item is None:
            item = items[question_id] = in_use.starting_item(question_id)
        if in_use.learns_from(attempt_id, question_id):
            learner_model.learn_item(item, logit, score)


def apply_question_batch(log: BatchLog) -> Counter[int]:
    """Apply the answers recorded since the last batch to their questions' difficulties and
    record the batch; returns the answers applied per exam (empty: nothing new). The answers
    are read and applied first without the lock, then under it only what came since (see the
    module's docstring). Under the lock, mostly: the lock, the latest batch, a count and the
    answers since, the upsert, the batch's row."""
    with transaction.atomic():
        advisory_lock(REBUILD_LOCK, shared=True)
        first = latest_batch()
        batch = _Moves(current_model(), list(log.batch_answers_after(first[1])))
        lock_out_answers()
        # A crash may lose the batch once it has committed: the answers then wait for the
        # next one, as after a crash before the commit. The lock is not held for the disk.
        relaxed_commit()
        read_up_to = batch.answers[-1].attempt_id if batch.answers else first[1]
        if latest_batch() != first or (
            log.batch_answer_count(first[1], read_up_to) != len(batch.answers)
        ):
            # Another batch came first, or an answer with a smaller id committed after the
            # read: everything again, under the lock.
            batch = _Moves(current_model(), list(log.batch_answers_after(last_boundary())))
        else:
            batch.add(list(log.batch_answers_after(read_up_to, few=True)))
        if not batch.answers:
            return Counter()
        QuestionReadiness.objects.bulk_create(
            [QuestionReadiness.from_state(q, batch.items[q]) for q in sorted(batch.existing)],
            update_conflicts=True,
            unique_fields=["question"],
            update_fields=["difficulty", "variance", "answers", "profile"],
        )
        QuestionBatch.objects.create(
            last_attempt_id=batch.answers[-1].attempt_id, answers=len(batch.answers)
        )
    return Counter(answer.exam_id for answer in batch.answers)


class _Moves:
    """A batch's answers in id order and the questions' states they moved."""

    def __init__(self, in_use: ModelInUse, answers: list[BatchAnswer]) -> None:
        self.in_use = in_use
        self.answers: list[BatchAnswer] = []
        self.items: dict[int, learner_model.ItemState] = {}
        # The questions still there: one deleted since its answers has no row to keep.
        self.existing: set[int] = set()
        self.add(answers)

    def add(self, answers: list[BatchAnswer]) -> None:
        """Apply these answers, which come after those applied, reading the states of the
        questions met for the first time and whether they are still there. Two queries when
        there are some."""
        new = sorted({a.question_id for a in answers} - self.items.keys())
        if new:
            for row in QuestionReadiness.objects.filter(question_id__in=new):
                self.items[row.question_id] = row.item_state()
            self.existing.update(Question.objects.filter(pk__in=new).values_list("pk", flat=True))
        learn_items(
            self.in_use,
            self.items,
            (ItemAnswer(a.attempt_id, a.question_id, a.score, a.learner_logit) for a in answers),
        )
        self.answers += answers
