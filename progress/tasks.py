"""The schedule: when each periodic task of the site runs. The scheduler (`manage.py
crontask`) imports this module for the `progress` app; the tasks themselves live in their
rooms (progress/<room>/tasks.py, questions/media/tasks.py), and the worker (`manage.py db_worker`)
runs them wherever they are enqueued from."""

from crontask import cron

from progress.accounts.tasks import prune_limit_counts
from progress.cohorts.tasks import (
    prune_finished_tasks,
    refresh_item_statistics,
    send_digests,
    sweep_pending_refreshes,
)
from questions.media.tasks import remove_unused_question_media

cron("*/5 * * * *")(sweep_pending_refreshes)
cron("30 2 * * *")(refresh_item_statistics)
cron("15 3 * * Sun")(prune_finished_tasks)
cron("40 3 * * *")(remove_unused_question_media)
cron("0 7 * * Mon")(send_digests)
cron("20 * * * *")(prune_limit_counts)
