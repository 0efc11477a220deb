"""The index of the learner side's background tasks, which the scheduler (`manage.py
crontask`) imports for the `progress` app: each room keeps its own, imported here once."""

import progress.accounts.tasks
import progress.cohorts.tasks  # noqa: F401
