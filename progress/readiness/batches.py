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
`progress.readiness.update.lock`). Learners never wait for each other on it; the batch waits for
the answers in flight to commit, and answers arriving meanwhile wait for the batch. So when a
batch reads the attempts, no attempt with a smaller id can still commit, and every answer
after the boundary read the states the batch left. SQLite runs one writing transaction at a
time (IMMEDIATE), which gives the same."""

from collections import Counter
from collections.abc import Iterable, Iterator, MutableMapping
from typing import NamedTuple, Protocol

from django.db import transaction
from django.db.models import Max

from courseiva.lib.sql import advisory_lock
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
    correct: bool
    learner_logit: float  # the learner's logit without the question's difficulty


class BatchLog(Protocol):
    """Where the batch reads the answers from (the attempts: `Attempt.objects`)."""

    def batch_answers_after(self, attempt_id: int) -> Iterator[BatchAnswer]:
        """The answers to a question with a topic after this attempt, in id order."""
        ...


def lock_out_answers() -> None:
    """Take the batch lock (QUESTION_BATCH_LOCK) alone, until the transaction ends (see the
    module's docstring); nothing on SQLite, whose transactions already run one at a time."""
    advisory_lock(QUESTION_BATCH_LOCK)


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
    for attempt_id, question_id, correct, logit in answers:
        item = items.get(question_id)
        if item is None:
            item = items[question_id] = in_use.starting_item(question_id)
        if in_use.learns_from(attempt_id, question_id):
            learner_model.learn_item(item, logit, correct)


def apply_question_batch(log: BatchLog) -> Counter[int]:
    """Apply the answers recorded since the last batch to their questions' difficulties and
    record the batch; returns the answers applied per exam (empty: nothing new). Its own
    transaction. Queries: the lock, the last boundary, the answers, the fit in use, the
    questions' states, the questions still there, the upsert, the batch's row."""
    with transaction.atomic():
        lock_out_answers()
        answers = list(log.batch_answers_after(last_boundary()))
        if not answers:
            return Counter()
        in_use = current_model()
        ids = sorted({answer.question_id for answer in answers})
        items = {
            row.question_id: row.item_state()
            for row in QuestionReadiness.objects.filter(question_id__in=ids)
        }
        learn_items(
            in_use,
            items,
            (ItemAnswer(a.attempt_id, a.question_id, a.correct, a.learner_logit) for a in answers),
        )
        # A question deleted since its answers has no row to keep.
        existing = set(Question.objects.filter(pk__in=ids).values_list("pk", flat=True))
        QuestionReadiness.objects.bulk_create(
            [QuestionReadiness.from_state(q, item) for q, item in items.items() if q in existing],
            update_conflicts=True,
            unique_fields=["question"],
            update_fields=["difficulty", "variance", "answers", "profile"],
        )
        QuestionBatch.objects.create(last_attempt_id=answers[-1].attempt_id, answers=len(answers))
    return Counter(answer.exam_id for answer in answers)
