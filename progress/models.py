"""The index of the learner side's models, which Django imports for the `progress` app: each
room defines its own, and is imported here once. Import a model from its room, never from
here."""

import progress.accounts.models
import progress.cohorts.models
import progress.mocks.models
import progress.practice.models
import progress.readiness.models  # noqa: F401
