"""The task worker of the real backend (django-tasks-db's `db_worker`, as `make worker` runs
it), run in the test's process until the queue is empty. The worker commits what it does, so
tests that run it are transactional (`django_db(transaction=True)`)."""

import signal

from django.core.management import call_command
from django.tasks import TaskResultStatus
from django.utils import timezone
from django_tasks_db.models import DBTaskResult


def run_worker(*, wait: bool = True) -> None:
    """With `wait`, the tasks queued to run later (the answers' batch, a few seconds after
    them) run too, as the worker runs them once their time comes."""
    if wait:
        DBTaskResult.objects.filter(
            status=TaskResultStatus.READY, run_after__gt=timezone.now()
        ).update(run_after=timezone.now())
    # The worker installs its own handlers for Ctrl-C; pytest keeps its own.
    signals = [signal.SIGINT, signal.SIGTERM, signal.SIGQUIT]
    handlers = {number: signal.getsignal(number) for number in signals}
    try:
        call_command(
            "db_worker", batch=True, reload=False, startup_delay=False, interval=0, verbosity=0
        )
    finally:
        for number, handler in handlers.items():
            signal.signal(number, handler)


def queued(task_name: str) -> list[DBTaskResult]:
    """The results of a task (its function's name) still waiting for the worker."""
    waiting = DBTaskResult.objects.filter(status=TaskResultStatus.READY)
    return [r for r in waiting if r.task_path.endswith(f".{task_name}")]
