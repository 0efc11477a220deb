"""Run requests at the same moment from real threads, each with its own database connection,
for the tests of what happens under concurrent writes."""

import threading
from collections.abc import Callable, Sequence

from django.db import connection


def run_at_once(jobs: Sequence[Callable[[], object]], timeout: float = 120) -> list[Exception]:
    """Start every job in a thread of its own, released together; the errors they raised."""
    barrier = threading.Barrier(len(jobs))
    errors: list[Exception] = []

    def run(job: Callable[[], object]) -> None:
        try:
            barrier.wait(timeout=10)
            job()
        except Exception as error:  # collected for the test to assert on
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(job,)) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
    return errors
