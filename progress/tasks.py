"""The index of the learner side's background tasks, which the scheduler (`manage.py
crontask`) imports for the `progress` app: each room keeps its own, imported here once."""

from crontask import cron
from django.core.management import call_command
from django.tasks import task

import progress.accounts.tasks
import progress.cohorts.tasks  # noqa: F401


@cron("15 3 * * Sun")
@task
def prune_finished_tasks() -> None:
    """Delete the queue's results of tasks finished over two weeks ago (failed ones after
    four, to leave time to look at them), so that its table does not grow without end."""
    call_command(
        "prune_db_task_results", queue_name="*", min_age_days=14, failed_min_age_days=28,
        verbosity=0,
    )  # fmt: skip
