"""The task worker of the real backend (`db_worker`: django-tasks-db's with our heartbeat, as
`make worker` runs it), run in the test's process until no task is due. The worker commits
what it does, so tests that run it are transactional (`django_db(transaction=True)`). A
`Clock` moves Django's time on, for the tasks due later (`run_after`)."""

import signal
from datetime import datetime, timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone
from django_tasks_db.models import DBTaskResult, get_date_max


def run_worker(*, wait: bool = True, **options: str) -> None:
    """With `wait`, the answers' batch of the questions' difficulties, queued a few seconds
    after them (BATCH_EVERY), runs too, as if its time had come; other tasks due later wait for
    the `Clock`."""
    if wait:
        DBTaskResult.objects.filter(
            status="READY",
            run_after__gt=timezone.now(),
            task_path__endswith=".update_question_difficulties",
        ).update(run_after=timezone.now())
    # The worker installs its own handlers for Ctrl-C; pytest keeps its own.
    signals = [signal.SIGINT, signal.SIGTERM, signal.SIGQUIT]
    handlers = {number: signal.getsignal(number) for number in signals}
    try:
        call_command(
            "db_worker",
            batch=True,
            reload=False,
            startup_delay=False,
            interval=0,
            verbosity=0,
            **options,
        )
    finally:
        for number, handler in handlers.items():
            signal.signal(number, handler)


def queued(task_name: str) -> list[DBTaskResult]:
    """The results of a task (its function's name) still waiting for the worker, due or due
    later (run_after), in the order the worker takes them."""
    waiting = DBTaskResult.objects.filter(status="READY")
    return [r for r in waiting if r.task_path.endswith(f".{task_name}")]


class Clock:
    """Django's clock (`timezone.now`, which the queue reads for tasks due later, and the code
    for when things happen), moved on in a test by `forward`."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.offset = timedelta()
        real = timezone.now
        monkeypatch.setattr(timezone, "now", lambda: real() + self.offset)

    def forward(self, **delta: float) -> None:
        self.offset += timedelta(**delta)

    def now(self) -> datetime:
        return timezone.now()


def due_at(result: DBTaskResult) -> datetime:
    """When a queued task was due: its run_after, or when it was enqueued if it had none."""
    return result.enqueued_at if result.run_after == get_date_max() else result.run_after
