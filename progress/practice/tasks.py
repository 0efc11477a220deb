"""The background work that answers make, run by the worker (`manage.py db_worker`): the
questions' difficulties in batches, and refits of the learner model. Both replay the
attempts, this room's table, through readiness's functions (progress.readiness.batches and
.rebuild), which take them as a log. Nothing here runs in a request.

- The batch: after answers, coalesced to one pending batch (`PendingWork`) and run
  BATCH_EVERY after the answer that opened it; it counts its answers into their exams' rows,
  which enqueues the exams' refreshes (the cohorts room's).
- The refit (the `rebuild_readiness` path): after enough new answers, counted by the
  cohorts' refreshes; the figures it makes stale are refreshed by what the cohorts room
  hands in at start-up (`pending.on_refit`)."""

from datetime import timedelta

from django.db import transaction
from django.tasks import task
from django.utils import timezone

from progress.practice.models import Attempt
from progress.practice.pending import QUESTION_BATCH, REFIT, PendingWork, refitted
from progress.readiness.batches import apply_question_batch
from progress.readiness.rebuild import rebuild_readiness

# A batch runs this long after the answer that opened it, so batches come at most this often:
# each stops the answers for a few milliseconds (progress.readiness.batches), and the
# questions' difficulties need not move by the second.
BATCH_EVERY = timedelta(seconds=5)


def enqueue_batch() -> None:
    """Enqueue the next batch of the questions' difficulties, to run BATCH_EVERY from now."""
    update_question_difficulties.using(run_after=timezone.now() + BATCH_EVERY).enqueue()


@task
def update_question_difficulties() -> int:
    """Apply the answers recorded since the last batch to their questions' difficulties, then
    count them in their exams' rows (which enqueues the exams' refreshes). Returns how many
    answers it applied."""
    PendingWork.objects.take(QUESTION_BATCH)
    return run_batch()


def run_batch() -> int:
    """Apply a batch and count its answers in their exams' rows; how many it applied."""
    exam_counts = apply_question_batch(Attempt.objects)
    if exam_counts:
        with transaction.atomic():
            PendingWork.objects.after_answers(exam_counts)
    return sum(exam_counts.values())


@task
def refit_learner_model() -> str:
    """Fit the learner model on the attempts and rebuild the state (as `rebuild_readiness`
    does), then refresh what the new fit made stale (`pending.refitted`)."""
    PendingWork.objects.take(REFIT)
    report = rebuild_readiness(Attempt.objects, fit=True, batch=run_batch)
    refitted()
    if report.fit is not None:
        return report.fit.summary
    return report.fit_skipped
