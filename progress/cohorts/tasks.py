"""The cohorts room's background work, run by the worker (`manage.py db_worker`), enqueued by
the answers' batches (see `progress.practice.pending`) and by the schedule (`progress.tasks`).
Nothing here runs in a request.

- An exam's figures: the stored figures of its cohorts' learners (ExamReadiness), its item
  statistics for everyone and its cohorts, and its questions' option shares, counting only
  what changed (progress.cohorts.item_refresh). After a batch of the questions'
  difficulties (progress.practice.tasks), coalesced to one pending refresh per exam and at
  most one refresh per exam in any REFRESH_EVERY; each refresh also counts its answers
  towards the refit, and enqueues it once enough have come; after a refit, every cohort
  exam's.
- The item statistics of every question recomputed from the attempts, nightly (what the
  refreshes cannot see: deleted accounts and questions).
- The sweep: refreshes and batches whose enqueue was lost, tasks a lost worker left running.
- The queue's housekeeping: finished tasks' results pruned.
- The instructors' weekly digest, Monday morning.
"""

import logging
from datetime import timedelta
from traceback import format_exception
from uuid import UUID

from django.core.management import call_command
from django.db import transaction
from django.tasks import TaskResultStatus, task
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from progress.cohorts.digest import send_weekly_digests
from progress.cohorts.item_refresh import refresh_exam_statistics
from progress.cohorts.item_statistics import compute_item_statistics
from progress.cohorts.models import Cohort, ItemStatisticsMark, Membership, WorkerBeat
from progress.practice.models import Attempt
from progress.practice.pending import REFIT, PendingWork, exam_key
from progress.practice.tasks import refit_learner_model, update_question_difficulties
from progress.readiness.batches import last_boundary
from progress.readiness.standing import refresh_exam_readiness
from questions.models import Exam

logger = logging.getLogger(__name__)

# At most one refresh of an exam's figures in any such span: answers meanwhile wait in the
# exam's pending row for the next, due this long after the last one began. A class's figures
# are so at most this old, and a busy exam costs the worker one refresh per span.
REFRESH_EVERY = timedelta(minutes=2)
# New answers after which the learner model is fitted again and the state rebuilt from every
# attempt (the heaviest job there is).
REFIT_EVERY = 20_000
# An exam's refresh waiting this long was lost (or the worker is behind): the sweep enqueues
# it again.
SWEEP_AFTER = timedelta(minutes=5)
# A running task whose worker has not beaten for this long lost its worker (killed, or its
# database gone mid-task, so that it could not record the end): the sweep marks it failed, so
# that the admin's list of tasks shows no ghost. The worker beats every 30 s from a thread of
# its own, also while a refit runs for minutes (progress.cohorts.heartbeat): a live task is
# never silent this long. With the sweep every 5 minutes, a lost task shows failed within 8.
WORKER_LOST_AFTER = timedelta(minutes=3)
# A task whose worker never beat (django-tasks-db's own `db_worker`, say) is lost only once it
# has been running this long: nothing else tells it from a long task.
TASK_LOST_AFTER = timedelta(hours=2)
# The heartbeat of a worker silent this long is forgotten: its tasks were closed long before.
BEATS_KEPT = timedelta(days=1)


class TaskLost(Exception):
    """Recorded for a task whose worker stopped before it could record how the task ended."""


def _crossed(totals: tuple[int, int], every: int) -> bool:
    before, after = totals
    return before < every <= after


def enqueue_exam_refresh(exam_id: int) -> None:
    """Enqueue the refresh of the exam's figures: at once, or REFRESH_EVERY after the last one
    began when that is later (handed to progress.practice.pending at start-up: an exam's
    pending row calls this when answers open it). One query, then the enqueue."""
    last = ItemStatisticsMark.objects.last_start(exam_id)
    due = last + REFRESH_EVERY if last is not None else None
    if due is not None and due > timezone.now():
        refresh_exam_figures.using(run_after=due).enqueue(exam_id)
    else:
        refresh_exam_figures.enqueue(exam_id)


@task
def refresh_exam_figures(exam_id: int) -> int:
    """Recompute the stored figures of the exam's cohort learners who answered since theirs
    were stored, and count the answers since the last refresh in the exam's item statistics
    and option shares; count them towards the refit, and enqueue it once enough have come.
    Returns how many learners were recomputed.

    Does nothing when a refresh of the exam began under REFRESH_EVERY ago: every enqueue is
    due REFRESH_EVERY after the last start it saw, so that refresh began after this one was
    enqueued (a duplicate: the sweep's, or a refit's), and saw what this one would."""
    exam = Exam.objects.filter(pk=exam_id).first()
    if exam is None:
        PendingWork.objects.take(exam_key(exam_id))
        return 0
    with transaction.atomic():
        if not ItemStatisticsMark.objects.begin(exam, not_within=REFRESH_EVERY):
            logger.info("A refresh of %s began under %s ago: skipped.", exam.code, REFRESH_EVERY)
            return 0
        answers = PendingWork.objects.take(exam_key(exam_id))
    learners = Membership.objects.filter(cohort__exam=exam).values("learner_id")
    refreshed = refresh_exam_readiness(learners, exam)
    # Up to the last batch: every attempt below its boundary has committed.
    rows = refresh_exam_statistics(exam, up_to=last_boundary())
    if answers:
        totals = PendingWork.objects.note({REFIT: answers})
        if _crossed(totals[REFIT], REFIT_EVERY):
            refit_learner_model.enqueue()
    logger.info(
        "Refreshed the figures of %d learners and %d item statistics on %s.",
        refreshed, rows, exam.code,
    )  # fmt: skip
    return refreshed


@task
def refresh_item_statistics() -> int:
    """Recompute the item analysis of every question from the attempts up to the last batch
    (the exams' refreshes count those after); returns the rows written."""
    return compute_item_statistics(up_to=last_boundary())


def refresh_cohort_exams() -> None:
    """Enqueue the refresh of every cohort exam's figures: after a refit, which made them
    all stale (handed to progress.practice.tasks at start-up)."""
    for exam_id in Cohort.objects.values_list("exam_id", flat=True).distinct().order_by():
        enqueue_exam_refresh(exam_id)


@task
def sweep_pending_refreshes() -> int:
    """Enqueue again the exam refreshes that have waited too long (an enqueue lost between an
    answer's commit and the queue), and a batch of the questions' difficulties when answers
    wait for one (lost the same way, or left by a batch that failed); mark failed the tasks
    a lost worker left running (close_lost_tasks). Returns how many it enqueued."""
    close_lost_tasks()
    exams = PendingWork.objects.stale_exams(timezone.now() - SWEEP_AFTER)
    for exam_id in exams:
        enqueue_exam_refresh(exam_id)
    if Attempt.objects.filter(pk__gt=last_boundary()).exists():
        update_question_difficulties.enqueue()
        return len(exams) + 1
    return len(exams)


def close_lost_tasks() -> int:
    """Mark failed, with TaskLost, the running tasks whose worker has gone silent for over
    WORKER_LOST_AFTER, and those of workers that never beat running for over TASK_LOST_AFTER;
    forget the heartbeats silent for a day. Returns how many tasks. Three queries and one
    per task closed."""
    now = timezone.now()
    beats = WorkerBeat.objects.last_beats()
    closed = 0
    for result in DBTaskResult.objects.running().only("id", "worker_ids", "started_at"):
        worker = result.worker_ids[-1] if result.worker_ids else None
        if worker in beats and beats[worker] < now - WORKER_LOST_AFTER:
            reason = (
                f"Its worker {worker} has not been heard from for over "
                f"{WORKER_LOST_AFTER.total_seconds() / 60:g} minutes"
            )
        elif worker not in beats and result.started_at < now - TASK_LOST_AFTER:
            reason = (
                f"Still marked running {TASK_LOST_AFTER.total_seconds() / 3600:g} hours after "
                "it started, by a worker that records no heartbeat"
            )
        else:
            continue
        closed += _close(result.pk, reason)
    WorkerBeat.objects.filter(beat_at__lt=now - BEATS_KEPT).delete()
    if closed:
        logger.warning("Marked %d task(s) left running by a lost worker as failed", closed)
    return closed


def close_tasks_of(worker_id: str) -> int:
    """Mark failed the tasks still marked running under this worker id: at a worker's start,
    they were its predecessor's under the same id, which died with them. Returns how many."""
    closed = 0
    for result in DBTaskResult.objects.running().only("id", "worker_ids"):
        if result.worker_ids[-1:] == [worker_id]:
            closed += _close(result.pk, f"Its worker {worker_id} started again while it ran")
    return closed


def _close(task_id: UUID, reason: str) -> int:
    """Mark the task failed, if it is still running: one that records its end meanwhile
    keeps it. Returns 1 when it was closed."""
    lost = TaskLost(
        f"{reason}: the worker stopped (killed, or its database went away) before it could "
        "record the end. The worker's log says more."
    )
    return DBTaskResult.objects.filter(pk=task_id, status=TaskResultStatus.RUNNING).update(
        status=TaskResultStatus.FAILED,
        finished_at=timezone.now(),
        exception_class_path=f"{TaskLost.__module__}.{TaskLost.__qualname__}",
        traceback="".join(format_exception(lost)),
        return_value=None,
    )


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
