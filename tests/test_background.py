"""Background work through the real task backend and its worker: answers enqueue one batch of
the questions' difficulties however many they are, which enqueues one refresh per exam, at
most one every 2 minutes; the worker stores the cohort figures, the item statistics and the
option shares within 2 minutes of the answers and, after enough answers, a refit; the sweep,
the password-reset mail, the weekly digest and its opt-out; the pages say how fresh their
figures are; the admin lists the tasks."""

import time
from datetime import timedelta
from functools import partial
from itertools import pairwise

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from progress.cohorts import tasks
from progress.cohorts.models import (
    Cohort,
    ItemStatistic,
    ItemStatisticsMark,
    Membership,
    WorkerBeat,
)
from progress.cohorts.tasks import REFRESH_EVERY
from progress.practice.models import Attempt
from progress.practice.pending import QUESTION_BATCH, REFIT, PendingWork, exam_key
from progress.practice.tasks import BATCH_EVERY
from progress.readiness.models import ExamAbility, ExamReadiness, QuestionReadiness
from questions.models import Question
from tests.factories import (
    InstructorFactory,
    StaffFactory,
    UserFactory,
    answer_topic,
    record_answer,
    storage_and_serving_exam,
)
from tests.item_analysis_page import cards, figures
from tests.threads import run_at_once
from tests.worker import Clock, due_at, queued, run_worker

# The worker commits: these tests run outside a test transaction (and so do the answers'
# on-commit enqueues).
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def exam():
    return storage_and_serving_exam()


@pytest.fixture
def clock(monkeypatch):
    return Clock(monkeypatch)


@pytest.fixture
def instructor():
    return InstructorFactory(username="teacher", email="teacher@example.com")


@pytest.fixture
def cohort(exam, instructor):
    cohort = Cohort.objects.create(name="Spring class", exam=exam)
    cohort.instructors.add(instructor)
    return cohort


def join(cohort, *learners):
    for learner in learners:
        Membership.objects.create(cohort=cohort, learner=learner)


def pending_answers(key):
    row = PendingWork.objects.filter(work=key).first()
    return row.answers if row else None


def finished(task_name):
    """The results of a task (its function's name), whichever room's tasks module holds it."""
    return DBTaskResult.objects.filter(task_path__endswith=f".tasks.{task_name}")


# --- Coalescing and the cohort figures ---------------------------------------------------------


def test_many_answers_enqueue_one_refresh_and_the_worker_stores_the_figures(cohort, exam, clock):
    learners = [UserFactory() for _ in range(3)]
    join(cohort, *learners)
    storage, serving = exam.topics.order_by("position")
    for learner in learners:
        answer_topic(learner, storage, 4, right=True)

    # Twelve answers, one pending batch of the questions' difficulties.
    assert len(queued("update_question_difficulties")) == 1
    assert pending_answers(QUESTION_BATCH) == 0  # open; the answers do not count in it
    assert not ExamReadiness.objects.exists()

    run_worker()  # the batch, then the exam's refresh it enqueued
    assert (finished("update_question_difficulties").get().return_value) == 12
    assert pending_answers(QUESTION_BATCH) is None
    assert pending_answers(exam_key(exam.pk)) is None
    figures = ExamReadiness.objects.filter(exam=exam)
    assert sorted(figures.values_list("learner_id", "answers")) == sorted(
        (learner.pk, 4) for learner in learners
    )
    result = finished("refresh_exam_figures").get()
    assert (result.status, result.return_value) == ("SUCCESSFUL", 3)
    # The answers count towards the refit.
    assert pending_answers(REFIT) == 12

    # An answer after the batch opens the next one, whose refresh of the exam waits until 2
    # minutes after the last.
    answer_topic(learners[0], serving, 2, right=False)
    assert len(queued("update_question_difficulties")) == 1
    run_worker()
    assert ExamReadiness.objects.get(exam=exam, learner=learners[0]).answers == 4
    clock.forward(minutes=2)
    run_worker()
    mine = ExamReadiness.objects.get(exam=exam, learner=learners[0])
    assert mine.answers == ExamAbility.objects.get(exam=exam, learner=learners[0]).answers == 6


def test_the_batch_waits_a_few_seconds_so_that_a_class_is_not_stopped_by_each(exam):
    question = exam.topics.first().questions.first()
    before = timezone.now()
    for learner in UserFactory.create_batch(3):
        record_answer(learner, question, True)
    [batch] = queued("update_question_difficulties")
    assert batch.run_after >= before + BATCH_EVERY
    run_worker(wait=False)  # its time has not come: it stays queued, nothing moved
    assert len(queued("update_question_difficulties")) == 1
    assert not QuestionReadiness.objects.exists()
    run_worker()  # once it has
    assert finished("update_question_difficulties").get().return_value == 3


def test_answers_at_the_same_moment_open_one_batch(exam):
    question = exam.topics.first().questions.first()
    learners = [UserFactory() for _ in range(6)]
    errors = run_at_once([partial(record_answer, learner, question, True) for learner in learners])
    assert errors == []
    assert len(queued("update_question_difficulties")) == 1
    run_worker()
    assert finished("update_question_difficulties").get().return_value == 6
    assert finished("refresh_exam_figures").count() == 1


def test_a_batch_whose_enqueue_was_lost_is_swept_up(cohort, exam):
    learner = UserFactory()
    join(cohort, learner)
    answer_topic(learner, exam.topics.first(), 2, right=True)
    # As if the worker had lost the task: the pending row stays, older than the sweep's wait.
    DBTaskResult.objects.all().delete()
    PendingWork.objects.update(opened_at=timezone.now() - tasks.SWEEP_AFTER - timedelta(1))
    tasks.sweep_pending_refreshes.enqueue()
    run_worker()
    assert finished("sweep_pending_refreshes").get().return_value == 1
    assert ExamReadiness.objects.get(learner=learner).answers == 2
    assert pending_answers(exam_key(exam.pk)) is None


def running(task, worker: str | None, started_ago: timedelta) -> str:
    """Enqueue `task` and mark it as claimed by `worker` (None: no id) `started_ago`."""
    result = task.enqueue()
    DBTaskResult.objects.filter(pk=result.id).update(
        status="RUNNING",
        started_at=timezone.now() - started_ago,
        worker_ids=[worker] if worker else [],
    )
    return result.id


def heard_from(worker: str, ago: timedelta) -> None:
    WorkerBeat.objects.create(
        worker_id=worker, started_at=timezone.now() - timedelta(hours=3),
        beat_at=timezone.now() - ago,
    )  # fmt: skip


def test_the_admin_shows_failed_within_minutes_a_task_whose_worker_was_killed(client):
    """A worker killed mid-task leaves its task marked running: once the worker has been
    silent for WORKER_LOST_AFTER, the next sweep marks it failed, however recent the task."""
    heard_from("killed", ago=tasks.WORKER_LOST_AFTER + timedelta(seconds=30))
    lost = running(tasks.refit_learner_model, "killed", started_ago=timedelta(minutes=4))
    tasks.sweep_pending_refreshes.call()
    closed = DBTaskResult.objects.get(pk=lost)
    assert closed.status == "FAILED"
    assert closed.exception_class_path == "progress.cohorts.tasks.TaskLost"
    assert "Its worker killed has not been heard from for over 3 minutes" in closed.traceback
    client.force_login(StaffFactory())
    page = client.get(
        reverse("admin:django_tasks_database_dbtaskresult_changelist") + "?status__exact=FAILED"
    )
    assert "refit_learner_model" in page.text
    assert tasks.close_lost_tasks() == 0


def test_a_long_task_of_a_worker_still_beating_stays_running():
    heard_from("busy", ago=timedelta(seconds=20))
    refit = running(tasks.refit_learner_model, "busy", started_ago=timedelta(hours=3))
    assert tasks.close_lost_tasks() == 0
    assert DBTaskResult.objects.get(pk=refit).status == "RUNNING"


def test_a_task_of_a_worker_without_a_heartbeat_is_lost_after_two_hours():
    """django-tasks-db's own worker records no heartbeat: only the long wait tells."""
    lost = running(tasks.refit_learner_model, "stock", started_ago=tasks.TASK_LOST_AFTER * 1.1)
    busy = running(tasks.refresh_item_statistics, None, started_ago=timedelta(minutes=30))
    assert tasks.close_lost_tasks() == 1
    closed = DBTaskResult.objects.get(pk=lost)
    assert closed.status == "FAILED"
    assert "Still marked running 2 hours after it started, by a worker that records no " in (
        closed.traceback
    )
    assert DBTaskResult.objects.get(pk=busy).status == "RUNNING"


def test_the_worker_beats_while_a_long_task_runs_and_the_sweep_leaves_it(monkeypatch):
    from progress.cohorts import heartbeat

    monkeypatch.setattr(heartbeat, "BEAT_EVERY", timedelta(seconds=0.05))
    monkeypatch.setattr(tasks, "WORKER_LOST_AFTER", timedelta(seconds=0.5))
    seen = []

    def long_refit(**_: object) -> int:
        # As a refit of minutes would, at this scale: longer than the silence that is lost.
        seen.append(WorkerBeat.objects.get().beat_at)
        time.sleep(1.5)
        seen.append(WorkerBeat.objects.get().beat_at)
        return tasks.close_lost_tasks()  # the sweep, run by another worker meanwhile

    monkeypatch.setattr(tasks, "compute_item_statistics", long_refit)
    tasks.refresh_item_statistics.enqueue()
    run_worker()
    assert finished("refresh_item_statistics").get().return_value == 0  # nothing lost
    assert seen[1] - seen[0] > timedelta(seconds=1)


def test_a_worker_started_again_under_its_id_closes_what_it_left_running():
    heard_from("worker-1", ago=timedelta(seconds=5))
    left = running(tasks.refit_learner_model, "worker-1", started_ago=timedelta(minutes=1))
    run_worker(worker_id="worker-1")  # `make worker` with --worker-id, started again
    closed = DBTaskResult.objects.get(pk=left)
    assert closed.status == "FAILED"
    assert "Its worker worker-1 started again while it ran" in closed.traceback


def test_the_sweep_forgets_workers_silent_for_a_day():
    heard_from("gone", ago=timedelta(days=1, minutes=1))
    heard_from("here", ago=timedelta(seconds=1))
    tasks.close_lost_tasks()
    assert list(WorkerBeat.objects.values_list("worker_id", flat=True)) == ["here"]


def test_enough_answers_refit_the_model(cohort, exam, monkeypatch, clock):
    monkeypatch.setattr(tasks, "REFIT_EVERY", 8)
    learner = UserFactory()
    join(cohort, learner)
    storage, serving = exam.topics.order_by("position")
    answer_topic(learner, storage, 4, right=True)
    run_worker()
    assert not finished("refit_learner_model").exists()  # 4 answers: not yet

    answer_topic(learner, serving, 4, right=False)
    clock.forward(minutes=2)
    run_worker()  # the refresh, then what it enqueued
    assert ItemStatistic.objects.filter(cohort=None).count() == 8
    assert ItemStatistic.objects.filter(cohort=cohort).count() == 8
    refit = finished("refit_learner_model").get()
    assert refit.status == "SUCCESSFUL"
    assert "too few to fit on" in refit.return_value  # 8 answers: the parameters stay
    # The rebuild replayed the answers; the figures it made stale are refreshed 2 minutes
    # after the last refresh of the exam.
    assert ExamAbility.objects.get(learner=learner).answers == 8
    [stale] = queued("refresh_exam_figures")
    assert due_at(stale) == ItemStatisticsMark.objects.get(exam=exam).started_at + REFRESH_EVERY
    clock.forward(minutes=2)
    run_worker()
    assert ExamReadiness.objects.get(learner=learner).answers == 8
    assert pending_answers(REFIT) is None


# --- Fresh within 2 minutes -------------------------------------------------------------------


def refreshes_of(exam):
    """The exam's refreshes enqueued so far (run or not), by when they were due."""
    results = [r for r in finished("refresh_exam_figures") if r.args_kwargs["args"] == [exam.pk]]
    return sorted(results, key=due_at)


def counted(exam):
    """The answers to the exam the item statistics over everyone count."""
    rows = ItemStatistic.objects.filter(cohort=None, question__topic__exam=exam)
    return sum(rows.values_list("attempts", flat=True))


def test_a_class_quiz_shows_in_the_item_analysis_cohort_figures_and_shares_in_2_minutes(
    client, clock, cohort, exam, instructor
):
    quiz = list(Question.objects.filter(topic__exam=exam).order_by("topic__position", "pk"))[:20]
    first = quiz[0]
    # Someone answered a moment ago and the exam was refreshed then: the class's answers wait
    # for the next refresh, the longest wait there is.
    record_answer(UserFactory(), first, True)
    run_worker()
    last = ItemStatisticsMark.objects.get(exam=exam).started_at
    clock.forward(seconds=10)
    learners = [UserFactory() for _ in range(30)]
    join(cohort, *learners)
    for n, learner in enumerate(learners):
        for k, question in enumerate(quiz):
            record_answer(learner, question, (n + k) % 3 != 0)  # two in three right
    assert Attempt.objects.filter(exam=exam).count() == 601
    run_worker()  # the batch of the 600: the exam's refresh is due 2 minutes after the last
    [refresh] = queued("refresh_exam_figures")
    assert due_at(refresh) == last + REFRESH_EVERY
    client.force_login(instructor)
    everyone = reverse("item_analysis", args=[exam.slug])
    assert figures(cards(client.get(everyone).text)[first.uid])["Learners"] == "1 1 answer"

    clock.forward(seconds=(due_at(refresh) - clock.now()).total_seconds())
    run_worker()
    page = client.get(everyone).text
    assert figures(cards(page)[first.uid])["Learners"] == "31 31 answers"
    assert figures(cards(page)[quiz[1].uid])["Learners"] == "30 30 answers"
    assert 'updated <time datetime="' in page
    assert ">just now</time>" in page
    class_page = client.get(everyone, {"cohort": cohort.code}).text
    assert len(cards(class_page)) == 20
    # Learners 1, 2, 4, 5, ... of the 30 were right on the first question: 20 of them.
    assert figures(cards(class_page)[first.uid])["Facility"] == "67%"
    # The cohort's figures, stored by the worker.
    stored = ExamReadiness.objects.filter(exam=exam, learner__in=learners)
    assert sorted(stored.values_list("answers", flat=True)) == [20] * 30
    # The question page's option shares: of 31 learners, 21 chose the key, 10 a wrong option.
    visitor = Client()
    key = first.options.get(is_correct=True).key
    shown = visitor.post(first.get_absolute_url(), {"choice": [key]}).text
    assert "the 31 learners who answered" in shown
    assert "Chosen by 68% of learners" in shown
    assert "Chosen by 32% of learners" in shown


def test_a_burst_of_answers_enqueues_at_most_one_refresh_per_exam_every_2_minutes(clock, exam):
    other = storage_and_serving_exam()
    questions = list(Question.objects.filter(topic__exam=exam).order_by("pk"))
    learners = [UserFactory() for _ in range(3)]
    answered_at = []
    # An answer to the exam every 30 seconds for 4 minutes, the worker running in between.
    for step in range(9):
        for learner in learners:
            record_answer(learner, questions[step], True)
            answered_at.append(clock.now())
        if step == 1:  # the other exam's first answer, in the middle of the exam's wait
            record_answer(learners[0], other.topics.first().questions.first(), True)
        run_worker()
        # No answer waits more than 2 minutes for the figures; the other exam's, not at all.
        waited = [when for when in answered_at if clock.now() - when >= REFRESH_EVERY]
        assert counted(exam) >= len(waited)
        assert counted(other) == (1 if step >= 1 else 0)
        clock.forward(seconds=30)
    # Refreshes due at 0 minutes, then 2 minutes after each began: at 2, 4, and 6 (not due yet).
    dues = [due_at(result) for result in refreshes_of(exam)]
    assert len(dues) == 4
    assert all(later - earlier >= REFRESH_EVERY for earlier, later in pairwise(dues))
    assert [result.status for result in refreshes_of(exam)][-1] == "READY"
    assert counted(exam) == 24
    clock.forward(minutes=2)
    run_worker()
    assert counted(exam) == 27
    assert len(refreshes_of(exam)) == 4
    assert len(refreshes_of(other)) == 1


# --- Mail ------------------------------------------------------------------------------------


def test_password_reset_mail_is_sent_by_the_worker(client):
    UserFactory(email="alice@example.com")
    client.post(reverse("password_reset"), {"email": "alice@example.com"})
    assert mail.outbox == []
    run_worker()
    assert [m.to for m in mail.outbox] == [["alice@example.com"]]


def digest_cohort(cohort, exam):
    """A cohort three weeks before its exam: one learner who never answered, one ready."""
    cohort.target_date = timezone.localdate() + timedelta(days=21)
    cohort.save()
    idle, ready = UserFactory(username="idle"), UserFactory(username="ready")
    join(cohort, idle, ready)
    for topic in exam.topics.all():
        answer_topic(ready, topic, 8, right=True)
    run_worker()
    mail.outbox.clear()
    return idle, ready


def test_the_weekly_digest_names_who_is_at_risk_and_the_trend(settings, cohort, exam):
    settings.SITE_URL = "https://courseiva.example"
    digest_cohort(cohort, exam)
    InstructorFactory(email="")  # no address: no mail
    UserFactory(email="learner@example.com")  # teaches nothing: no mail

    tasks.send_digests.enqueue()
    run_worker()
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["teacher@example.com"]
    assert message.subject == "Your cohorts this week: 1 learner at risk"
    body = message.body
    assert "Spring class" in body
    assert "2 learners, 1 at risk." in body
    assert "  - idle: no answers yet; no pass likelihood yet, 21 days before the exam" in body
    assert "ready:" not in body
    assert "on average over 1 learners (the first figure of this digest)" in body
    assert f"https://courseiva.example{cohort.get_absolute_url()}" in body
    assert f"https://courseiva.example{reverse('instructor_home')}" in body
    cohort.refresh_from_db()
    assert cohort.digest_figures["at_risk"] == 1
    assert cohort.digest_figures["pass"] > 0.5

    # A week later: measured against the last digest.
    Cohort.objects.filter(pk=cohort.pk).update(
        digest_figures={**cohort.digest_figures, "pass": cohort.digest_figures["pass"] - 0.1}
    )
    mail.outbox.clear()
    tasks.send_digests.enqueue()
    run_worker()
    assert "up 10 points on last week" in mail.outbox[0].body


def test_an_instructor_turns_the_digest_off_and_on(client, settings, cohort, exam, instructor):
    digest_cohort(cohort, exam)
    client.force_login(instructor)
    home = client.get(reverse("instructor_home")).text
    assert 'name="weekly_digest"' in home
    assert "checked" in home
    response = client.post(reverse("digest_settings"), {})  # the box unticked
    assert response["Location"] == reverse("instructor_home")
    instructor.refresh_from_db()
    assert instructor.weekly_digest is False

    tasks.send_digests.enqueue()
    run_worker()
    assert mail.outbox == []

    client.post(reverse("digest_settings"), {"weekly_digest": "on"})
    instructor.refresh_from_db()
    assert instructor.weekly_digest is True


def test_only_instructors_have_digest_settings(client):
    client.force_login(UserFactory())
    assert client.post(reverse("digest_settings"), {}).status_code == 403


# --- Freshness on the pages, the admin ------------------------------------------------------


def test_the_pages_say_how_fresh_their_figures_are(client, cohort, exam, instructor):
    client.force_login(instructor)
    items = reverse("item_analysis", args=[exam.slug])
    for url in (cohort.get_absolute_url(), reverse("cohort_topics", args=[cohort.code])):
        assert "No figures yet: they appear once learners have answered" in client.get(url).text
    empty = client.get(items).text
    assert "they appear once learners have answered, and are refreshed in the background" in empty

    learner = UserFactory()
    join(cohort, learner)
    answer_topic(learner, exam.topics.first(), 3, right=True)
    tasks.refresh_item_statistics.enqueue()
    run_worker()
    ExamReadiness.objects.update(computed_at=timezone.now() - timedelta(minutes=4))
    ItemStatistic.objects.update(computed_at=timezone.now() - timedelta(hours=2))
    for url in (cohort.get_absolute_url(), reverse("cohort_topics", args=[cohort.code])):
        assert "Figures updated <time" in client.get(url).text
        assert "4\xa0minutes ago</time>" in client.get(url).text
    text = client.get(items).text
    assert "2\xa0hours ago</time>" in text
    ExamReadiness.objects.update(computed_at=timezone.now() - timedelta(seconds=20))
    assert "Figures updated <time" in client.get(cohort.get_absolute_url()).text
    assert ">just now</time>" in client.get(cohort.get_absolute_url()).text
    for page in (empty, text):
        assert "manage.py" not in page


def test_the_admin_lists_the_tasks(client, exam):
    record_answer(UserFactory(), exam.topics.first().questions.first(), True)
    client.force_login(StaffFactory())
    response = client.get(reverse("admin:django_tasks_database_dbtaskresult_changelist"))
    assert response.status_code == 200
    assert "update_question_difficulties" in response.text
    response = client.get(
        reverse("admin:django_tasks_database_dbtaskresult_changelist") + "?status__exact=FAILED"
    )
    assert response.status_code == 200


def test_finished_tasks_are_pruned_after_two_weeks_failed_ones_after_four(exam):
    from progress.tasks import prune_finished_tasks

    for _ in range(3):
        tasks.refresh_item_statistics.enqueue()
    run_worker()
    old, older, recent = DBTaskResult.objects.order_by("pk")
    DBTaskResult.objects.filter(pk=old.pk).update(finished_at=timezone.now() - timedelta(days=15))
    DBTaskResult.objects.filter(pk=older.pk).update(
        status="FAILED", finished_at=timezone.now() - timedelta(days=20)
    )
    prune_finished_tasks.call()
    assert set(DBTaskResult.objects.values_list("pk", flat=True)) == {older.pk, recent.pk}


def test_the_schedule_runs_every_periodic_task():
    """The one schedule (progress.tasks, which the scheduler imports) names each periodic task
    of every room, at its time."""
    from crontask import scheduler

    import progress.tasks  # noqa: F401

    jobs = {job.name: job.trigger for job in scheduler.get_jobs()}
    expected = {
        "sweep_pending_refreshes": "minute='*/5'",
        "refresh_item_statistics": "hour='2', minute='30'",
        "prune_finished_tasks": "day_of_week='sun', hour='3', minute='15'",
        "remove_unused_question_media": "hour='3', minute='40'",
        "send_digests": "day_of_week='mon', hour='7', minute='0'",
        "prune_limit_counts": "hour='*', minute='20'",
    }
    assert set(jobs) == set(expected)
    for name, when in expected.items():
        assert when in str(jobs[name]), name
