"""Benchmark of the learner's dashboard (/progress/) against the number of attempts stored.

    .venv/bin/python bench/dashboard.py [--attempts 1000000] [--small 1000] [--requests 100]

Builds two throwaway SQLite databases with the same generated bank (300 questions, five
weighted topics, a mock-exam shape) and the same measured learner (300 answers over every
topic): one holds `--small` attempts in all, the other `--attempts`, the rest given by other
learners (500 each). Both get their readiness state from `rebuild_readiness` and their daily
totals from the attempts, as a real site would. Then the dashboard of the measured learner is
requested in-process through Django's test client, the two databases taking turns for three
rounds; it prints the median time per request of each, the ratio (target: at most 1.5), the
query count of each, and the time of the rebuild over all attempts. It only prints; it never
fails on time. The machine is shared and noisy: read the ratio, not the absolute figures.
"""

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from django_parts import attempt_insert_sql, run_child, scored, setup_django, whole_number

BANK_QUESTIONS = 300
LEARNER_ANSWERS = 300
PER_OTHER_LEARNER = 500
ROUNDS = 3


def seed(total_attempts: int) -> dict[str, Any]:
    """Migrate, import the bank, insert the attempts (the measured learner's first), then
    rebuild the readiness state and the daily totals from them."""
    from django.core.management import call_command
    from django.db import connection, transaction
    from import_bank import make_document

    from progress.accounts.models import User
    from progress.practice.models import Attempt, LearnerDay
    from progress.readiness.rebuild import rebuild_readiness
    from questions.bank.document_import import import_document
    from questions.models import Question

    call_command("migrate", verbosity=0)
    import_document(make_document(BANK_QUESTIONS))
    questions = list(Question.objects.published().values_list("pk", "uid", "topic_id"))
    exam_id = Question.objects.values_list("topic__exam_id", flat=True).first()
    learner = User.objects.create_user("bench-learner", "bench@example.com", "x" * 20)
    others = -(-max(0, total_attempts - LEARNER_ANSWERS) // PER_OTHER_LEARNER)  # rounded up
    User.objects.bulk_create(
        # "!" is Django's mark of an unusable password: these learners never sign in.
        User(username=f"other-{n}", email=f"other-{n}@example.com", password="!")  # noqa: S106
        for n in range(others)
    )
    other_ids = list(User.objects.exclude(pk=learner.pk).values_list("pk", flat=True))
    rng = random.Random(0)
    start = datetime.now(UTC) - timedelta(days=60)
    sql = attempt_insert_sql()

    def rows(learner_id: int, count: int, skill: float) -> list[tuple[Any, ...]]:
        out = []
        for k in range(count):
            pk, uid, topic_id = rng.choice(questions)
            when = start + timedelta(minutes=k * 60 * 24 * 60 / max(count, 1))
            out.append(
                (
                    learner_id,
                    pk,
                    uid,
                    exam_id,
                    topic_id,
                    "[]",
                    rng.random() < skill,
                    45_000_000,
                    when,
                )
            )
        return out

    started = time.perf_counter()
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.executemany(sql, scored(rows(learner.pk, LEARNER_ANSWERS, 0.7)))
        left = total_attempts - LEARNER_ANSWERS
        for learner_id in other_ids:
            count = min(PER_OTHER_LEARNER, left)
            cursor.executemany(sql, scored(rows(learner_id, count, rng.uniform(0.4, 0.9))))
            left -= count
    inserted = time.perf_counter() - started
    started = time.perf_counter()
    report = rebuild_readiness(Attempt.objects, fit=False)
    rebuilt = time.perf_counter() - started
    LearnerDay.objects.rebuild()
    return {
        "attempts": Attempt.objects.count(),
        "learners": others + 1,
        "insert_seconds": inserted,
        "rebuild_seconds": rebuilt,
        "rebuilt_answers": report.answers,
    }


def measure(requests: int) -> dict[str, Any]:
    """Time `requests` dashboard requests of the measured learner, after a warm-up."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from progress.accounts.models import User

    client = Client(HTTP_HOST="localhost")  # a host that the development settings allow
    client.force_login(User.objects.get(username="bench-learner"))
    for _ in range(10):
        response = client.get("/progress/")
        assert response.status_code == 200
        assert b"likely to pass" in response.content, "the dashboard shows a pass likelihood"
    times = []
    for _ in range(requests):
        started = time.perf_counter()
        client.get("/progress/")
        times.append(time.perf_counter() - started)
    with CaptureQueriesContext(connection) as queries:
        client.get("/progress/")
    return {"median_ms": 1000 * statistics.median(times), "queries": len(queries)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--attempts", type=whole_number(LEARNER_ANSWERS), default=1_000_000, metavar="N"
    )
    parser.add_argument("--small", type=whole_number(LEARNER_ANSWERS), default=1_000, metavar="N")
    parser.add_argument("--requests", type=int, default=100, metavar="N")
    # Internal: how the parent runs a Django part against one database.
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        setup_django(args.child)
        result = seed(args.seed) if args.seed else measure(args.requests)
        print(json.dumps(result))
        return 0

    print(
        f"Courseiva dashboard benchmark: {args.small:,} against {args.attempts:,} attempts "
        f"stored, the same learner measured ({LEARNER_ANSWERS} answers, {BANK_QUESTIONS} "
        "questions)"
    )
    with tempfile.TemporaryDirectory(prefix="courseiva-dashboard-") as folder:
        urls = {
            size: f"sqlite:///{Path(folder) / f'{size}.sqlite3'}"
            for size in (args.small, args.attempts)
        }
        for size, url in urls.items():
            seeded = run_child(__file__, url, "--seed", str(size))
            print(
                f"  {seeded['attempts']:>9,} attempts by {seeded['learners']:,} learners: "
                f"inserted in {seeded['insert_seconds']:.1f} s; rebuild_readiness replayed "
                f"{seeded['rebuilt_answers']:,} answers in {seeded['rebuild_seconds']:.1f} s "
                f"({seeded['rebuilt_answers'] / max(seeded['rebuild_seconds'], 1e-9):,.0f}/s)"
            )
        medians: dict[int, list[float]] = {size: [] for size in urls}
        queries: dict[int, int] = {}
        for _ in range(ROUNDS):  # the two take turns, so that a noisy spell hits both
            for size, url in urls.items():
                figures = run_child(__file__, url, "--requests", str(args.requests))
                medians[size].append(figures["median_ms"])
                queries[size] = figures["queries"]
    small, large = (statistics.median(medians[s]) for s in urls)
    print()
    print(f"{'attempts stored':>16}  {'median ms':>9}  {'queries':>7}")
    for size in urls:
        print(f"{size:>16,}  {statistics.median(medians[size]):>9.2f}  {queries[size]:>7}")
    print(f"ratio (large / small): {large / small:.2f} (target at most 1.5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
