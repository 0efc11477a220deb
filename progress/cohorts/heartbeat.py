"""The task worker's heartbeat: a thread of the worker's process that records, every
BEAT_EVERY, that the worker is alive (WorkerBeat), whatever its main thread is doing; a long
refit included. It runs beside django-tasks-db's worker loop without touching it
(progress/management/commands/db_worker.py starts it), so that the sweep can tell a task whose
worker was killed (progress.cohorts.tasks.close_lost_tasks) from one still being worked on."""

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta

from django.db import DatabaseError, close_old_connections, connection

from progress.cohorts.models import WorkerBeat
from progress.cohorts.tasks import close_tasks_of

logger = logging.getLogger(__name__)

# Six beats fit in the silence after which a worker counts as gone (tasks.WORKER_LOST_AFTER):
# a beat may wait out SQLite's 20 s lock timeout behind a long write and fail, and the next
# ones still land in time.
BEAT_EVERY = timedelta(seconds=30)


@contextmanager
def beating(worker_id: str) -> Iterator[None]:
    """Beat for the worker while the block runs. Tasks still marked running under this id at
    the start belonged to a process that had it before (an id given with --worker-id) and
    died: they are marked lost at once. The row stays when the block ends, silent: a task the
    process leaves running however it ends (the reloader's restart kills a task in the
    middle) is then lost like a killed worker's, and the sweep removes the row a day later."""
    close_tasks_of(worker_id)
    WorkerBeat.objects.beat(worker_id)  # before the worker claims anything
    stop = threading.Event()
    thread = threading.Thread(
        target=_beat_until, args=(worker_id, stop), name="worker-heartbeat", daemon=True
    )
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def _beat_until(worker_id: str, stop: threading.Event) -> None:
    try:
        while not stop.wait(BEAT_EVERY.total_seconds()):
            # This thread's own connection: dropped when broken or too old, as a request's.
            close_old_connections()
            try:
                WorkerBeat.objects.beat(worker_id)
            except DatabaseError:
                logger.warning("Worker %s missed a heartbeat", worker_id, exc_info=True)
                connection.close()
    finally:
        connection.close()
