"""The cohorts room's background work, run by the worker (`manage.py db_worker`), enqueued by
the answers' batches (see `progress.practice.pending`) and by the schedule (`progress.tasks`).
Nothing here runs in a request.

- An exam's cohort figures (ExamReadiness of its cohorts' learners): after a batch of the
  questions' difficulties (progress.practice.tasks), coalesced to one pending refresh per
  exam; each refresh also counts its answers towards the item statistics and the refit, and
  enqueues them once enough have come; after a refit, every cohort exam's.
- The item statistics: after ITEM_STATISTICS_EVERY new answers, and nightly.
- The sweep: refreshes and batches whose enqueue was lost, tasks a lost worker left running.
- The queue's housekeeping: finished tasks' results pruned.
- The instructors' weekly digest, Monday morning.
"""

import logging
from datetime import timedelta

from django.core.management import call_command
from django.tasks import task
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from progress.cohorts.digest import send_weekly_digests
from progress.cohorts.item_statistics import compute_item_statistics
from progress.cohorts.models import Cohort, Membership
from progress.practice.models import Attempt
from progress.practice.pending import ITEM_STATISTICS, REFIT, PendingWork, exam_key
from progress.practice.tasks import refit_learner_model, update_question_difficulties
from progress.readiness.batches import last_boundary
from progress.readiness.standing import refresh_exam_readiness
from questions.models import Exam

logger = logging.getLogger(__name__)

# New answers (site-wide) after which the item statistics are recomputed: they read every
# attempt, so not after each batch of answers.
ITEM_STATISTICS_EVERY = 2000
# New answers after which the learner model is fitted again and the state rebuilt from every
# attempt (the heaviest job there is).
REFIT_EVERY = 20_000
# An exam's refresh waiting this long was lost (or the worker is behind): the sweep enqueues
# it again.
SWEEP_AFTER = timedelta(minutes=5)
# A task still marked running this long after it started has lost its worker (killed, or its
# database gone mid-task, so that it could not record the end): the sweep marks it failed, so
# that the admin's list of tasks shows no ghost. A task that does finish after all records its
# end over the mark.
TASK_LOST_AFTER = timedelta(hours=2)


class TaskLost(Exception):
    """Recorded for a task whose worker stopped before it could record how the task ended."""


def _crossed(totals: tuple[int, int], every: int) -> bool:
    before, after = totals
    return before < every <= after


@task
def refresh_exam_figures(exam_id: int) -> int:
    """Recompute the stored figures of the exam's cohort learners who answered since theirs
    were stored; count the answers towards the item statistics and the refit, and enqueue
    those once enough have come. Returns how many learners were recomputed."""
    answers = PendingWork.objects.take(exam_key(exam_id))
    exam = Exam.objects.filter(pk=exam_id).first()
    if exam is None:
        return 0
    learners = Membership.objects.filter(cohort__exam=exam).values("learner_id")
    refreshed = refresh_exam_readiness(learners, exam)
    if answers:
        totals = PendingWork.objects.note({ITEM_STATISTICS: answers, REFIT: answers})
        if _crossed(totals[ITEM_STATISTICS], ITEM_STATISTICS_EVERY):
            refresh_item_statistics.enqueue()
        if _crossed(totals[REFIT], REFIT_EVERY):
            refit_learner_model.enqueue()
    logger.info("Refreshed the figures of %d learners on %s.", refreshed, exam.code)
    return refreshed


@task
def refresh_item_statistics() -> int:
    """Recompute the item analysis of every question; returns the rows written."""
    PendingWork.objects.take(ITEM_STATISTICS)
    return compute_item_statistics()


def refresh_cohort_exams() -> None:
    """Enqueue the refresh of every cohort exam's figures: after a refit, which made them
    all stale (handed to progress.practice.tasks at start-up)."""
    for exam_id in Cohort.objects.values_list("exam_id", flat=True).distinct().order_by():
        refresh_exam_figures.enqueue(exam_id)


@task
def sweep_pending_refreshes() -> int:
    """Enqueue again the exam refreshes that have waited too long (an enqueue lost between an
    answer's commit and the queue), and a batch of the questions' difficulties when answers
    wait for one (lost the same way, or left by a batch that failed); mark failed the tasks
    a lost worker left running (TASK_LOST_AFTER). Returns how many it enqueued."""
    close_lost_tasks()
    exams = PendingWork.objects.stale_exams(timezone.now() - SWEEP_AFTER)
    for exam_id in exams:
        refresh_exam_figures.enqueue(exam_id)
    if Attempt.objects.filter(pk__gt=last_boundary()).exists():
        update_question_difficulties.enqueue()
        return len(exams) + 1
    return len(exams)


def close_lost_tasks() -> int:
    """Mark failed, with TaskLost, the tasks marked running for over TASK_LOST_AFTER. Returns
    how many."""
    lost = DBTaskResult.objects.running().filter(started_at__lt=timezone.now() - TASK_LOST_AFTER)
    closed = 0
    for result in lost:
        result.set_failed(
            TaskLost(
                f"Still marked running {TASK_LOST_AFTER.total_seconds() / 3600:g} hours after it "
                "started: its worker stopped "
                "(killed, or its database went away) before it could record the end. "
                "The worker's log says more."
            )
        )
        closed += 1
    if closed:
        logger.warning("Marked %d task(s) left running by a lost worker as failed", closed)
    return closed


@task
def send_digests() -> int:
    """The instructors' weekly digest; returns the e-mails sent."""
    return send_weekly_digests()


@task
def prune_finished_tasks() -> None:
    """Delete the queue's results of tasks finished over two weeks ago (failed ones after
    four, to leave time to look at them), so that its table does not grow without end."""
    call_command(
        "prune_db_task_results", queue_name="*", min_age_days=14, failed_min_age_days=28,
        verbosity=0,
    )  # fmt: skip
