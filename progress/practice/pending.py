"""Work that answers make for the worker, coalesced: one row per piece of work (the next batch
of the questions' difficulties, an exam's figures, a refit of the learner model). Answers only
open the batch's row, and only when their read found it closed (`open_batch`, an insert that
does nothing when another answer came first): answers lock no row that every learner shares.
The batch counts its answers into the exams' rows and has an exam's refresh enqueued when it
opens the exam's row (when the refresh is due is the cohorts room's to say: at most one per
exam every 2 minutes); the exams' refreshes count the answers towards the refit. The batch
and the refit are this room's tasks (`tasks.py`); an exam's refresh, and what a refit leaves
to do, are the cohorts room's, handed in here at start-up (`progress/apps.py`), since
practice cannot import the room above it.

Races: an exam's count is one upsert (INSERT ... ON CONFLICT DO UPDATE ... RETURNING) on a
unique key, so of two counts at once exactly one sees the row opened. The worker takes a row
(locks and deletes it) before it does the work: an answer that found the batch's row open
still holds the batch lock's shared side, so the batch waits for it to commit
(progress.readiness.batches); an answer after the delete opens a new row and enqueues again.
Work whose enqueue was lost (a crash between commit and enqueue) leaves its row open, or its
answers after the last batch; the schedule's sweep enqueues it again."""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import partial

from django.db import models, transaction
from django.utils import timezone

from courseiva.lib.sql import fetch_all, upsert_values

# The keys of the rows.
REFIT = "refit"
# The batched update of the questions' difficulties (progress.readiness.batches). Answers do
# not count themselves in it: every learner would lock its row. An answer reads whether it is
# open (in the query that reads the questions' side, see practice.recording) and only when it
# is not opens it, with an upsert that does nothing if another answer came first; the batch
# counts the answers itself and passes them on to the exams' rows.
QUESTION_BATCH = "question-batch"


def exam_key(exam_id: int) -> str:
    return f"exam:{exam_id}"


class PendingWorkQuerySet(models.QuerySet["PendingWork"]):
    def note(self, counts: Mapping[str, int]) -> dict[str, tuple[int, int]]:
        """Add answers to the rows of these keys, opening those missing; returns, per key,
        the answers counted (before, after). One query, however many keys."""
        if not counts:
            return {}
        now = timezone.now()
        # One lock order for every writer: by key.
        rows = fetch_all(
            upsert_values(
                self.model,
                ["work"],
                ["work", "answers", "opened_at"],
                [(key, count, now) for key, count in sorted(counts.items())],
                add=["answers"],
                returning=["work", "answers"],
            )
        )
        return {key: (after - counts[key], after) for key, after in rows}

    def take(self, key: str) -> int:
        """Remove the row of this key (the worker is about to do its work) and return the
        answers it counted, 0 without one. Its own transaction, committed before the work:
        answers that counted themselves in it have committed by then (they held its lock)."""
        with transaction.atomic():
            row = self.select_for_update().filter(work=key).first()
            if row is None:
                return 0
            row.delete()
            return row.answers

    def after_answers(self, exam_counts: Mapping[int, int]) -> None:
        """Count new answers (per exam id) in the caller's transaction, and have the refresh
        of each exam whose row they open enqueued once it commits. One query; the enqueue
        (what the cohorts room hands in) only for the answers that open the row: those after
        wait in it for that refresh, however late the cohorts room makes it."""
        opened = self.note({exam_key(exam_id): n for exam_id, n in exam_counts.items()})
        enqueue = _from_cohorts.exam_refresh
        if enqueue is None:
            return
        for exam_id in exam_counts:
            before, _ = opened.get(exam_key(exam_id), (1, 1))
            if before == 0:
                # Robust: a failed enqueue must not fail the answer; the sweep finds the row.
                transaction.on_commit(partial(enqueue, exam_id), robust=True)

    def open_batch(self) -> bool:
        """Open the row of the next batch of the questions' difficulties; False when it is
        open already (the caller enqueues the batch when this opened it). One query."""
        opened = fetch_all(
            upsert_values(
                self.model,
                ["work"],
                ["work", "answers", "opened_at"],
                [(QUESTION_BATCH, 0, timezone.now())],
                returning=["work"],
            )
        )
        return bool(opened)

    def stale_exams(self, opened_before: datetime) -> list[int]:
        """Exams whose refresh has waited since before this time: lost or slow."""
        keys = self.filter(work__startswith="exam:", opened_at__lt=opened_before)
        return [int(key.split(":", 1)[1]) for key in keys.values_list("work", flat=True)]


@dataclass
class _FromCohorts:
    """What the cohorts room hands in at start-up (progress/apps.py): the work that answers and
    refits leave to it, which practice cannot import."""

    # Enqueues the refresh of the exam of this id (after_answers).
    exam_refresh: Callable[[int], object] | None = None
    after_refit: Callable[[], object] | None = None  # called after each refit (refitted)


_from_cohorts = _FromCohorts()


def on_exam_answers(enqueue: Callable[[int], object]) -> None:
    """Call `enqueue` with the exam's id when answers open an exam's row."""
    _from_cohorts.exam_refresh = enqueue


def on_refit(then: Callable[[], object]) -> None:
    """Call `then` (no arguments) after each refit."""
    _from_cohorts.after_refit = then


def refitted() -> None:
    """A refit is done: what it made stale is the cohorts room's to refresh."""
    if _from_cohorts.after_refit is not None:
        _from_cohorts.after_refit()


class PendingWork(models.Model):
    """A piece of background work waiting for the worker, with the answers that made it due
    (see the module's docstring)."""

    work = models.CharField(max_length=40)
    answers = models.PositiveIntegerField(default=0)
    opened_at = models.DateTimeField(default=timezone.now)

    objects = PendingWorkQuerySet.as_manager()

    class Meta:
        verbose_name_plural = "pending work"
        constraints = [
            # The upsert's conflict target: one row per piece of work.
            models.UniqueConstraint(fields=["work"], name="pending_work_once"),
        ]

    def __str__(self) -> str:
        return f"{self.work}: {self.answers} answers since {self.opened_at:%Y-%m-%d %H:%M}"
