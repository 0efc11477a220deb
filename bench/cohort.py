"""Benchmark of the instructor's cohort page against the cohort's size, and of the item analysis.

    .venv/bin/python bench/cohort.py [--attempts 1000000] [--learners 500] [--requests 20]

Builds two throwaway SQLite databases with the same generated bank (300 questions, five
weighted topics, a mock-exam shape): one with a cohort of 5 learners and their answers only,
the other with `--attempts` answers by enough learners (500 answers each; 2,000 by default),
`--learners` of them in the cohort. Every learner gives the same number of answers, so a
learner of either cohort costs the same; only their number differs. Both get their readiness
state from `rebuild_readiness` and their daily totals from the attempts, as a real site would.

Then the cohort page of an instructor is requested in-process through Django's test client,
the two databases taking turns for three rounds. The very first request of each is timed on
its own (cold: the per-learner figures are computed and stored then); the later ones are the
warm figures. It prints the cold times, the median warm time of each cohort, the ratio
(target: at most 3), the query count of a warm request, and the time `compute_item_statistics`
takes over every attempt of the large database (target: under 60 s). It only prints; it never
fails on time. The machine is shared and noisy: read the ratio, not the absolute figures.

Last, a busy day: every learner of the large cohort answers two more questions through the
answer path, which enqueues (coalesced) one refresh of the exam's figures. The first visit
after it is timed twice: with the worker not run (the page recomputes every learner), and
after the worker (`db_worker --batch`) has run (the page reads fresh figures).
"""

import argparse
import json
import random
import re
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from django_parts import (
    attempt_insert_sql,
    question_options,
    run_child,
    scored,
    setup_django,
    whole_number,
)

BANK_QUESTIONS = 300
PER_LEARNER = 500  # answers per learner in the large database (fewer learners otherwise)
SMALL_COHORT = 5
ROUNDS = 3
WARM_UP = 3  # requests before the timed ones, after the cold one
COHORT_NAME = "Benchmark cohort"


def shape(attempts: int, cohort: int) -> tuple[int, int]:
    """(learners, answers per learner) of the large database: PER_LEARNER answers each, or
    fewer each when the cohort alone needs more learners than that."""
    learners = max(cohort, -(-attempts // PER_LEARNER))  # rounded up
    return learners, attempts // learners


def seed(learners: int, answers: int, cohort_size: int) -> dict[str, Any]:
    """Migrate, import the bank, insert `answers` attempts for each of `learners` learners,
    rebuild the readiness state and the daily totals from them, then make an instructor and
    a cohort of the first `cohort_size` learners."""
    from django.contrib.auth.models import Group
    from django.core.management import call_command
    from django.db import connection, transaction
    from import_bank import make_document

    from progress.accounts.models import INSTRUCTORS_GROUP, User
    from progress.cohorts.models import Cohort, Membership
    from progress.practice.models import Attempt, LearnerDay
    from progress.readiness.rebuild import rebuild_readiness
    from questions.bank.document_import import import_document
    from questions.models import Question

    call_command("migrate", verbosity=0)
    import_document(make_document(BANK_QUESTIONS))
    exam_id = Question.objects.values_list("topic__exam_id", flat=True).first()
    assert exam_id is not None, "the generated bank has questions"
    options = question_options()
    rng = random.Random(0)
    # Each question's chosen answers as they are stored (the option texts as shown), and how
    # much easier or harder than average it is, so that the figures have some spread.
    bank = []
    for pk, uid, topic_id in Question.objects.published().values_list("pk", "uid", "topic_id"):
        mine = options[pk]
        right = json.dumps([{"key": k, "text": t, "correct": c} for k, t, c in mine if c])
        wrong = [json.dumps([{"key": k, "text": t, "correct": False}]) for k, t, c in mine if not c]
        bank.append((pk, uid, topic_id, right, wrong, rng.uniform(-0.25, 0.25)))
    User.objects.bulk_create(
        # "!" is Django's mark of an unusable password: these learners never sign in.
        User(username=f"learner-{n:05d}", email=f"learner-{n}@example.com", password="!")  # noqa: S106
        for n in range(learners)
    )
    learner_ids = list(User.objects.order_by("username").values_list("pk", flat=True))
    start = datetime.now(UTC) - timedelta(days=60)
    sql = attempt_insert_sql()

    def rows(learner_id: int) -> list[tuple[Any, ...]]:
        skill = rng.uniform(0.4, 0.9)
        out = []
        for k in range(answers):
            pk, uid, topic_id, right, wrong, easier = rng.choice(bank)
            correct = rng.random() < skill + easier
            chosen = right if correct else rng.choice(wrong)
            when = start + timedelta(minutes=k * 60 * 24 * 60 / max(answers, 1))
            spent = rng.randint(15, 180) * 1_000_000  # microseconds, as SQLite stores them
            out.append((learner_id, pk, uid, exam_id, topic_id, chosen, correct, spent, when))
        return out

    started = time.perf_counter()
    with transaction.atomic(), connection.cursor() as cursor:
        for learner_id in learner_ids:
            cursor.executemany(sql, scored(rows(learner_id)))
    inserted = time.perf_counter() - started
    started = time.perf_counter()
    rebuild_readiness(Attempt.objects, fit=False)
    rebuilt = time.perf_counter() - started
    LearnerDay.objects.rebuild()
    instructor = User.objects.create_user("bench-instructor", "teach@example.com", "x" * 20)
    instructor.groups.add(Group.objects.get(name=INSTRUCTORS_GROUP))
    cohort = Cohort.objects.create(name=COHORT_NAME, exam_id=exam_id)
    cohort.instructors.add(instructor)
    Membership.objects.bulk_create(
        Membership(cohort=cohort, learner_id=learner_id) for learner_id in learner_ids[:cohort_size]
    )
    return {
        "attempts": Attempt.objects.count(),
        "learners": learners,
        "members": Membership.objects.filter(cohort=cohort).count(),
        "insert_seconds": inserted,
        "rebuild_seconds": rebuilt,
    }


def measure(requests: int) -> dict[str, Any]:
    """The first request of this process (cold when no request ran on this database before),
    then `requests` more after a warm-up, and the queries of one more."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from progress.accounts.models import User
    from progress.cohorts.models import Cohort, Membership
    from progress.readiness.models import ExamReadiness

    cohort = Cohort.objects.get(name=COHORT_NAME)
    members = Membership.objects.filter(cohort=cohort).count()
    url = reverse("cohort_detail", args=[cohort.code])
    client = Client(HTTP_HOST="localhost")  # a host that the development settings allow
    client.force_login(User.objects.get(username="bench-instructor"))

    def get() -> float:
        started = time.perf_counter()
        response = client.get(url)
        elapsed = time.perf_counter() - started
        assert response.status_code == 200, response.status_code
        return elapsed

    stored_before = ExamReadiness.objects.filter(exam=cohort.exam).count()
    first = get()
    stored_after = ExamReadiness.objects.filter(exam=cohort.exam).count()
    # Every member with an answer has their figures stored now; the page shows the first
    # PAGE_SIZE of them (every member is sorted, a page is built).
    from progress.cohorts.table import PAGE_SIZE

    page = client.get(url).content.decode()
    shown = len(set(re.findall(r"learner-\d{5}", page)))
    assert shown == min(members, PAGE_SIZE), f"{shown} rows shown for {members} members"
    for _ in range(WARM_UP):
        get()
    times = [get() for _ in range(requests)]
    with CaptureQueriesContext(connection) as queries:
        get()
    return {
        "first_ms": 1000 * first,
        "cold": stored_before == 0,
        "stored": stored_after,
        "median_ms": 1000 * statistics.median(times),
        "queries": len(queries),
    }


def busy_day(worker: bool) -> dict[str, Any]:
    """Every member of the cohort answers two more questions through the answer path (as
    after a busy day); then, when `worker`, the task worker runs until its queue is empty (as
    `make worker` would have meanwhile); then the cohort page's first visit is timed."""
    from django.core.management import call_command
    from django.db import transaction
    from django.test import Client
    from django.urls import reverse
    from django.utils import timezone
    from django_tasks_db.models import DBTaskResult

    from progress.accounts.models import User
    from progress.cohorts.models import Cohort, Membership
    from progress.practice.models import Attempt
    from progress.practice.recording import insert_answers
    from progress.readiness.models import ExamAbility
    from progress.readiness.standing import refresh_exam_readiness
    from questions.models import Question

    cohort = Cohort.objects.get(name=COHORT_NAME)
    members = Membership.objects.filter(cohort=cohort).values("learner_id")
    # The figures as the warm rounds left them (fresh), so that only the busy day makes them stale.
    refresh_exam_readiness(members, cohort.exam)
    questions = list(
        Question.objects.published().values_list("pk", "uid", "topic_id", "topic__exam_id")
    )
    rng = random.Random(1)
    queued_before = DBTaskResult.objects.count()
    started = time.perf_counter()
    answers = 0
    for learner_id in members.values_list("learner_id", flat=True):
        now = timezone.now()
        attempts = []
        for pk, uid, topic_id, exam_id in rng.sample(questions, 2):
            attempts.append(
                Attempt(
                    learner_id=learner_id, question_id=pk, question_uid=uid, exam_id=exam_id,
                    topic_id=topic_id, chosen=[], is_correct=(right := rng.random() < 0.6),
                    score=float(right), source="page",
                    answered_at=now,
                )
            )  # fmt: skip
        with transaction.atomic():
            insert_answers(learner_id, attempts, counted_at=now)
        answers += len(attempts)
    answered = time.perf_counter() - started
    queued = DBTaskResult.objects.count() - queued_before
    worker_seconds = 0.0
    if worker:
        started = time.perf_counter()
        call_command(
            "db_worker", batch=True, reload=False, startup_delay=False, interval=0, verbosity=0
        )
        worker_seconds = time.perf_counter() - started
    client = Client(HTTP_HOST="localhost")
    client.force_login(User.objects.get(username="bench-instructor"))
    url = reverse("cohort_detail", args=[cohort.code])
    stale = ExamAbility.objects.filter(exam=cohort.exam).count() - refreshed_count(cohort)
    started = time.perf_counter()
    response = client.get(url)
    first = time.perf_counter() - started
    assert response.status_code == 200, response.status_code
    # The same page again: what the first visit cost beyond a warm one.
    started = time.perf_counter()
    client.get(url)
    second = time.perf_counter() - started
    return {
        "stale": stale,
        "second_ms": 1000 * second,
        "answers": answers,
        "answer_ms": 1000 * answered / answers,
        "queued": queued,
        "worker_seconds": worker_seconds,
        "first_ms": 1000 * first,
    }


def refreshed_count(cohort: Any) -> int:
    """The cohort learners whose stored figures match their latest answer."""
    from django.db.models import F, OuterRef, Subquery

    from progress.readiness.models import ExamAbility, ExamReadiness

    answers = ExamAbility.objects.filter(learner=OuterRef("learner_id"), exam=cohort.exam).values(
        "answers"
    )[:1]
    return (
        ExamReadiness.objects.filter(exam=cohort.exam)
        .annotate(now=Subquery(answers))
        .filter(answers=F("now"))
        .count()
    )


def item_statistics() -> dict[str, Any]:
    from progress.cohorts.item_statistics import compute_item_statistics
    from progress.cohorts.models import ItemStatistic
    from progress.practice.models import Attempt

    answers = Attempt.objects.count()
    started = time.perf_counter()
    written = compute_item_statistics()
    seconds = time.perf_counter() - started
    flagged = ItemStatistic.objects.filter(flagged=True).count()
    return {"answers": answers, "rows": written, "flagged": flagged, "seconds": seconds}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--attempts", type=whole_number(1000), default=1_000_000, metavar="N")
    parser.add_argument("--learners", type=whole_number(SMALL_COHORT), default=500, metavar="N")
    parser.add_argument("--requests", type=whole_number(1), default=20, metavar="N")
    # Internal: how the parent runs a Django part against one database.
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--seed", nargs=3, type=int, help=argparse.SUPPRESS)
    parser.add_argument("--items", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--busy-day", type=int, choices=[0, 1], help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        setup_django(args.child)
        if args.seed:
            result = seed(*args.seed)
        elif args.items:
            result = item_statistics()
        elif args.busy_day is not None:
            result = busy_day(worker=bool(args.busy_day))
        else:
            result = measure(args.requests)
        print(json.dumps(result))
        return 0

    learners, answers = shape(args.attempts, args.learners)
    if answers < 1:
        parser.error(f"--attempts {args.attempts} gives no answer to {learners} learners")
    print(
        f"Courseiva cohort page benchmark: a cohort of {SMALL_COHORT} against one of "
        f"{args.learners:,} learners, {answers} answers each ({BANK_QUESTIONS} questions); "
        f"{learners * answers:,} attempts in the large database"
    )
    with tempfile.TemporaryDirectory(prefix="courseiva-cohort-") as folder:
        urls = {
            SMALL_COHORT: f"sqlite:///{Path(folder) / 'small.sqlite3'}",
            args.learners: f"sqlite:///{Path(folder) / 'large.sqlite3'}",
        }
        shapes = {SMALL_COHORT: (SMALL_COHORT, answers), args.learners: (learners, answers)}
        for size, url in urls.items():
            total, each = shapes[size]
            seeded = run_child(__file__, url, "--seed", str(total), str(each), str(size))
            print(
                f"  {seeded['attempts']:>9,} attempts by {seeded['learners']:,} learners, "
                f"{seeded['members']:,} in the cohort: inserted in "
                f"{seeded['insert_seconds']:.1f} s, readiness rebuilt in "
                f"{seeded['rebuild_seconds']:.1f} s"
            )
        firsts: dict[int, float] = {}
        stored: dict[int, int] = {}
        medians: dict[int, list[float]] = {size: [] for size in urls}
        queries: dict[int, int] = {}
        for round_number in range(ROUNDS):  # the two take turns, so that a noisy spell hits both
            for size, url in urls.items():
                figures = run_child(__file__, url, "--requests", str(args.requests))
                if round_number == 0:
                    assert figures["cold"], "the first request found no stored figures"
                    firsts[size], stored[size] = figures["first_ms"], figures["stored"]
                medians[size].append(figures["median_ms"])
                queries[size] = figures["queries"]
        # A busy day: every learner of the large cohort answers; the first visit after it,
        # with the worker not run (the page recomputes them all), then with the worker run.
        busy = {
            worker: run_child(__file__, urls[args.learners], "--busy-day", str(worker))
            for worker in (0, 1)
        }
        items = run_child(__file__, urls[args.learners], "--items")
    small, large = (statistics.median(medians[size]) for size in urls)
    print()
    print(f"{'learners':>9}  {'cold ms':>9}  {'warm ms':>9}  {'queries':>7}")
    for size in urls:
        print(
            f"{size:>9,}  {firsts[size]:>9.1f}  {statistics.median(medians[size]):>9.2f}  "
            f"{queries[size]:>7}"
        )
    print(
        "  cold: the first request, which computes and stores each learner's figures "
        f"({stored[SMALL_COHORT]:,} and {stored[args.learners]:,} rows); warm: the median of "
        f"{ROUNDS} rounds of {args.requests} requests"
    )
    print(
        f"ratio warm ({args.learners:,}) / warm ({SMALL_COHORT}): {large / small:.2f} "
        "(target at most 3)"
    )
    stale, fresh = busy[0], busy[1]
    print(
        f"after a busy day ({stale['answers']:,} answers by the {args.learners:,} learners, "
        f"{stale['answer_ms']:.1f} ms each on the answer path; {stale['queued']} task "
        f"queued for them):\n  first visit without the worker {stale['first_ms']:.1f} ms "
        f"({stale['stale']} learners stale; the next visit {stale['second_ms']:.1f} ms)\n"
        f"  first visit after the worker ran ({fresh['worker_seconds']:.1f} s) "
        f"{fresh['first_ms']:.1f} ms ({fresh['stale']} stale; the next visit "
        f"{fresh['second_ms']:.1f} ms)\n"
        f"  ratio without / after the worker: {stale['first_ms'] / fresh['first_ms']:.1f}"
    )
    print(
        f"compute_item_statistics over {items['answers']:,} attempts: {items['seconds']:.1f} s "
        f"(target under 60 s), {items['rows']:,} rows, {items['flagged']:,} flagged"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
