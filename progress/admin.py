"""The admin of the learner side, which Django imports for the `progress` app: each room
registers its own, imported here once."""

import progress.accounts.admin
import progress.cohorts.admin
import progress.practice.admin
import progress.readiness.admin  # noqa: F401
