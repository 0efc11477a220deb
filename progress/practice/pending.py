"""Work that answers make for the worker, coalesced: one row per piece of work (an exam's
cohort figures, the item statistics, a refit of the learner model) counts the answers that
arrived since the worker last did it. The answer that opens an exam's row enqueues its
refresh when its transaction commits; the answers after it only count, until the worker takes
the row. The tasks themselves read every room, so they live with the cohorts
(`progress.cohorts.tasks`) and the exam's refresh is handed in here at start-up
(`progress/apps.py`).

Races: the count is one upsert (INSERT ... ON CONFLICT DO UPDATE ... RETURNING) on a unique
key, so of two answers at once exactly one sees the row opened (on PostgreSQL the second
waits for the first's row; SQLite queues writers). The worker takes a row (locks and deletes
it) before it reads what to refresh: an answer that counted itself in the row holds its lock
until it commits, so its data is visible to the refresh that follows; an answer after the
delete opens a new row and enqueues again. A refresh whose enqueue was lost (a crash between
commit and enqueue) leaves its row open; the schedule's sweep enqueues it again."""

from collections.abc import Mapping
from datetime import datetime
from functools import partial
from typing import Any

from django.db import connection, models, transaction
from django.tasks import Task
from django.utils import timezone

# The keys of the rows.
ITEM_STATISTICS = "item-statistics"
REFIT = "refit"


def exam_key(exam_id: int) -> str:
    return f"exam:{exam_id}"


class PendingWorkQuerySet(models.QuerySet["PendingWork"]):
    def note(self, counts: Mapping[str, int]) -> dict[str, tuple[int, int]]:
        """Add answers to the rows of these keys, opening those missing; returns, per key,
        the answers counted (before, after). One query, however many keys."""
        if not counts:
            return {}
        table = connection.ops.quote_name(PendingWork._meta.db_table)
        work, answers = (connection.ops.quote_name(c) for c in ("work", "answers"))
        now = timezone.now()
        params: list[Any] = []
        for key, count in sorted(counts.items()):  # one lock order for every writer
            params += [key, count, now]
        values = ", ".join(["(%s, %s, %s)"] * len(counts))
        sql = (
            f"INSERT INTO {table} ({work}, {answers}, opened_at) VALUES {values} "  # noqa: S608
            f"ON CONFLICT ({work}) DO UPDATE SET {answers} = {table}.{answers} + "
            f"excluded.{answers} RETURNING {work}, {answers}"
        )
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
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
        """Count new answers (per exam id) in the caller's transaction, and enqueue the
        refresh of each exam whose row they open once it commits. One query; the enqueue
        (one insert) only for the answer that opens the row."""
        opened = self.note({exam_key(exam_id): n for exam_id, n in exam_counts.items()})
        task = _exam_refresh.get("task")
        if task is None:
            return
        for exam_id in exam_counts:
            before, _ = opened.get(exam_key(exam_id), (1, 1))
            if before == 0:
                # Robust: a failed enqueue must not fail the answer; the sweep finds the row.
                transaction.on_commit(partial(task.enqueue, exam_id), robust=True)

    def stale_exams(self, opened_before: datetime) -> list[int]:
        """Exams whose refresh has waited since before this time: lost or slow."""
        keys = self.filter(work__startswith="exam:", opened_at__lt=opened_before)
        return [int(key.split(":", 1)[1]) for key in keys.values_list("work", flat=True)]


# The task that refreshes an exam's figures (taking the exam's id), handed in at start-up.
_exam_refresh: dict[str, Task[Any, Any]] = {}


def on_exam_answers(task: Task[Any, Any]) -> None:
    """Enqueue `task` with the exam's id when answers open an exam's row."""
    _exam_refresh["task"] = task


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
