"""Benchmark of an exam's refresh of its item statistics after a class's quiz, against the whole
bank's recompute.

    .venv/bin/python bench/item_refresh.py [--attempts 1000000] [--class-size 30] [--quiz 20]
        [--database-url postgres://.../throwaway]

Builds a throwaway database (SQLite by default; `--database-url` names a PostgreSQL database
to wipe and use instead) with the generated bank of bench/cohort.py (300 questions in one
exam) and `--attempts` answers by learners of 500 answers each (fewer when the class needs
more learners), the first `--class-size` of them in a cohort. Then, in one run:

- the whole bank's item statistics (`compute_item_statistics`), what every 2,000 new answers
  set off before the exams' refreshes;
- the class takes a quiz (`--quiz` questions each), and the exam's refresh counts its answers
  (`refresh_exam_statistics`), with its query count; the figures it leaves are compared with a
  recompute of everything (they must agree);
- the same refresh with nothing new (the next one, when no one answered);
- the exam's refresh from nothing (its mark removed: every attempt of the exam counted again),
  what an exam's first refresh after the upgrade costs, and a refresh that recomputed the
  exam each time would.

It prints the seconds and the ratios to the whole bank's recompute, and the share of a worker
that one refresh every 2 minutes takes. It only prints; it never fails on time. The machine is
shared and noisy: read the ratios, not the absolute figures.
"""

import argparse
import json
import random
import sys
import tempfile
import time
import urllib.parse
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
PER_LEARNER = 500
COHORT_NAME = "Benchmark class"
# How often a busy exam is refreshed at most (progress.cohorts.tasks.REFRESH_EVERY).
REFRESH_SECONDS = 120


def seed(attempts: int, class_size: int) -> dict[str, Any]:
    """Migrate, import the bank, insert the attempts (PER_LEARNER per learner, with option
    choices and times, some questions easier than others), and make a cohort of the first
    `class_size` learners."""
    from django.core.management import call_command
    from django.db import connection, transaction
    from import_bank import make_document

    from progress.accounts.models import User
    from progress.cohorts.models import Cohort, Membership
    from progress.practice.models import Attempt
    from questions.bank.document_import import import_document
    from questions.models import Question

    call_command("migrate", verbosity=0)
    import_document(make_document(BANK_QUESTIONS))
    exam_id = Question.objects.values_list("topic__exam_id", flat=True).first()
    assert exam_id is not None, "the generated bank has questions"
    # PER_LEARNER answers each, or fewer each when the class alone needs more learners.
    learners = max(class_size, -(-attempts // PER_LEARNER))
    User.objects.bulk_create(
        # "!" is Django's mark of an unusable password: these learners never sign in.
        User(username=f"learner-{n:05d}", email=f"learner-{n}@example.com", password="!")  # noqa: S106
        for n in range(learners)
    )
    learner_ids = list(User.objects.order_by("username").values_list("pk", flat=True))
    bank = answer_bank()
    rng = random.Random(0)
    start = datetime.now(UTC) - timedelta(days=60)
    sql = attempt_insert_sql()
    started = time.perf_counter()
    with transaction.atomic(), connection.cursor() as cursor:
        for n, learner_id in enumerate(learner_ids):
            count = attempts // learners + (n < attempts % learners)
            skill = rng.uniform(0.4, 0.9)
            cursor.executemany(
                sql,
                scored(
                    [
                        answer_row(
                            rng, bank, learner_id, exam_id, skill, start + timedelta(hours=k)
                        )
                        for k in range(count)
                    ]
                ),
            )
    inserted = time.perf_counter() - started
    cohort = Cohort.objects.create(name=COHORT_NAME, exam_id=exam_id)
    Membership.objects.bulk_create(
        Membership(cohort=cohort, learner_id=learner_id) for learner_id in learner_ids[:class_size]
    )
    if connection.vendor == "postgresql":
        # The planner's figures for the new rows, as autovacuum gathers them on a site.
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    return {
        "attempts": Attempt.objects.count(),
        "learners": learners,
        "members": class_size,
        "insert_seconds": inserted,
    }


def answer_bank() -> list[tuple[Any, ...]]:
    """Per published question: (pk, uid, topic id, the right choice as stored, the wrong ones,
    how much easier or harder than average it is)."""
    from questions.models import Question

    options = question_options()
    rng = random.Random(1)
    bank = []
    for pk, uid, topic_id in (
        Question.objects.published().order_by("pk").values_list("pk", "uid", "topic_id")
    ):
        mine = options[pk]
        right = json.dumps([{"key": k, "text": t, "correct": c} for k, t, c in mine if c])
        wrong = [json.dumps([{"key": k, "text": t, "correct": False}]) for k, t, c in mine if not c]
        bank.append((pk, uid, topic_id, right, wrong, rng.uniform(-0.25, 0.25)))
    return bank


def answer_row(
    rng: random.Random,
    bank: list[tuple[Any, ...]],
    learner_id: int,
    exam_id: int,
    skill: float,
    when: datetime,
    question: tuple[Any, ...] | None = None,
) -> tuple[Any, ...]:
    """One attempt for attempt_insert_sql: a random question of the bank unless given."""
    pk, uid, topic_id, right, wrong, easier = question or rng.choice(bank)
    correct = rng.random() < skill + easier
    chosen = right if correct else rng.choice(wrong)
    from django.db import connection

    spent: Any = rng.randint(15, 180) * 1_000_000  # microseconds, as SQLite stores them
    if connection.vendor == "postgresql":
        spent = timedelta(microseconds=spent)
    return (learner_id, pk, uid, exam_id, topic_id, chosen, correct, spent, when)


def measure(quiz: int) -> dict[str, Any]:
    """The whole bank's recompute; the class's quiz and the exam's refresh after it, checked
    against a recompute; the refresh with nothing new; the refresh from nothing."""
    from django.db import connection, transaction
    from django.test.utils import CaptureQueriesContext

    from progress.cohorts.item_refresh import refresh_exam_statistics
    from progress.cohorts.item_statistics import compute_item_statistics
    from progress.cohorts.models import Cohort, ItemStatistic, ItemStatisticsMark, Membership
    from progress.practice.models import Attempt

    cohort = Cohort.objects.select_related("exam").get(name=COHORT_NAME)
    exam = cohort.exam

    def last() -> int:
        return Attempt.objects.order_by("-pk").values_list("pk", flat=True).first() or 0

    def figures() -> dict[tuple[int, int | None], tuple[Any, ...]]:
        return {
            (row.question_id, row.cohort_id): (
                row.attempts, row.learners, row.right, row.option_counts, row.median_seconds,
                row.flags, row.facility, row.discrimination,
            )
            for row in ItemStatistic.objects.all()
        }  # fmt: skip

    started = time.perf_counter()
    rows = compute_item_statistics()
    whole = time.perf_counter() - started

    # The class takes a quiz: each member answers the same questions.
    rng = random.Random(2)
    bank = answer_bank()
    questions = rng.sample(bank, quiz)
    now = datetime.now(UTC)
    members = list(Membership.objects.filter(cohort=cohort).values_list("learner_id", flat=True))
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.executemany(
            attempt_insert_sql(),
            scored(
                [
                    answer_row(rng, bank, learner_id, exam.pk, 0.7, now, question)
                    for learner_id in members
                    for question in questions
                ]
            ),
        )
    with CaptureQueriesContext(connection) as queries:
        started = time.perf_counter()
        written = refresh_exam_statistics(exam, up_to=last())
        refresh = time.perf_counter() - started
    refreshed = figures()
    compute_item_statistics()
    recomputed = figures()
    # Counts the same; the floats (sums kept and added to, against sums made afresh) within
    # rounding.
    agree = refreshed.keys() == recomputed.keys() and all(
        mine[:6] == theirs[:6]
        and all(
            (x is None and y is None) or (x is not None and y is not None and abs(x - y) < 1e-9)
            for x, y in zip(mine[6:], theirs[6:], strict=True)
        )
        for mine, theirs in ((refreshed[key], recomputed[key]) for key in refreshed)
    )

    started = time.perf_counter()
    refresh_exam_statistics(exam, up_to=last())
    idle = time.perf_counter() - started

    ItemStatisticsMark.objects.filter(exam=exam).update(last_attempt_id=None)
    started = time.perf_counter()
    refresh_exam_statistics(exam, up_to=last())
    afresh = time.perf_counter() - started
    return {
        "whole_seconds": whole,
        "rows": rows,
        "answers": len(members) * quiz,
        "refresh_seconds": refresh,
        "refresh_queries": len(queries),
        "refresh_rows": written,
        "agree": agree,
        "idle_seconds": idle,
        "afresh_seconds": afresh,
        "attempts": Attempt.objects.count(),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--attempts", type=whole_number(1000), default=1_000_000, metavar="N")
    parser.add_argument("--class-size", type=whole_number(2), default=30, metavar="N")
    parser.add_argument("--quiz", type=whole_number(1), default=20, metavar="N")
    parser.add_argument("--database-url", help="a throwaway PostgreSQL database: it is wiped")
    # Internal: how the parent runs a Django part against one database.
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--seed", nargs=2, type=int, help=argparse.SUPPRESS)
    parser.add_argument("--measure", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        setup_django(args.child)
        result = seed(*args.seed) if args.seed else measure(args.measure)
        print(json.dumps(result))
        return 0

    if args.database_url and not args.database_url.startswith("postgres"):
        parser.error("--database-url must name a throwaway PostgreSQL database")
    print(
        f"Courseiva item statistics benchmark: {args.attempts:,} attempts on one exam of "
        f"{BANK_QUESTIONS} questions; a class of {args.class_size} takes a {args.quiz}-question "
        f"quiz ({args.class_size * args.quiz:,} answers)"
    )
    with tempfile.TemporaryDirectory(prefix="courseiva-items-") as folder:
        url = args.database_url or f"sqlite:///{Path(folder) / 'items.sqlite3'}"
        if args.database_url:
            wipe(args.database_url)
        seeded = run_child(__file__, url, "--seed", str(args.attempts), str(args.class_size))
        print(
            f"  {seeded['attempts']:,} attempts by {seeded['learners']:,} learners inserted in "
            f"{seeded['insert_seconds']:.1f} s ({urllib.parse.urlsplit(url).scheme})"
        )
        figures = run_child(__file__, url, "--measure", str(args.quiz))
    whole, refresh = figures["whole_seconds"], figures["refresh_seconds"]
    idle, afresh = figures["idle_seconds"], figures["afresh_seconds"]
    print()
    print(
        f"whole bank recomputed ({figures['rows']:,} rows; what every 2,000 answers set off "
        f"before): {whole:.2f} s"
    )
    print(
        f"the exam's refresh after the class's {figures['answers']:,} answers: {refresh:.3f} s, "
        f"{figures['refresh_queries']} queries, {figures['refresh_rows']:,} rows written; "
        f"ratio to the whole bank {refresh / whole:.3f}"
    )
    print(f"  the same figures as a recompute of every attempt: {figures['agree']}")
    print(f"the next refresh, nothing new: {idle:.3f} s; ratio {idle / whole:.3f}")
    print(
        f"the exam's refresh from nothing (its first after the upgrade: all its "
        f"{figures['attempts']:,} attempts counted): {afresh:.2f} s; ratio {afresh / whole:.2f}"
    )
    print(
        f"one refresh every {REFRESH_SECONDS // 60} minutes takes "
        f"{100 * refresh / REFRESH_SECONDS:.2f}% of a worker "
        f"({100 * afresh / REFRESH_SECONDS:.1f}% if it recomputed the exam, "
        f"{100 * whole / REFRESH_SECONDS:.1f}% for the whole bank)"
    )
    return 0 if figures["agree"] else 1


def wipe(database_url: str) -> None:
    """Drop every table of the throwaway PostgreSQL database (its public schema, made again)."""
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as connection:
        connection.execute("DROP SCHEMA public CASCADE")
        connection.execute("CREATE SCHEMA public")


if __name__ == "__main__":
    sys.exit(main())
