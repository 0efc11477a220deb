"""What the benchmarks that measure Django in-process share: the Django parts run in child
processes (one throwaway database each, named by DATABASE_URL before Django starts), attempts
inserted in bulk, and argument parsing."""

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parent.parent
BENCH_DIR = Path(__file__).resolve().parent


def setup_django(database_url: str) -> None:
    # The settings module reads DATABASE_URL when it is imported, so this must come first.
    os.environ["DATABASE_URL"] = database_url
    os.environ["DJANGO_SETTINGS_MODULE"] = "courseiva.settings"
    os.environ.setdefault("DEBUG", "1")
    sys.path[:0] = [str(PROJECT_ROOT), str(BENCH_DIR)]
    import django

    django.setup()


def run_child(script: str, database_url: str, *args: str) -> dict[str, Any]:
    """Run `script --child DATABASE_URL ARGS...` against that database; the JSON object its
    last line prints. Exits with the child's error output when it fails."""
    env = {**os.environ, "DATABASE_URL": database_url, "DEBUG": "1"}
    out = subprocess.run(  # the exit code is checked below
        [sys.executable, script, "--child", database_url, *args],
        env=env,
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
    )
    if out.returncode:
        sys.exit(f"the benchmark's Django part failed:\n{out.stderr}")
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def whole_number(minimum: int) -> Callable[[str], int]:
    """An argparse type: a whole number (commas and underscores allowed) of at least minimum."""

    def parse(text: str) -> int:
        try:
            value = int(text.replace(",", "").replace("_", ""))
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{value} is less than {minimum}")
        return value

    return parse


def attempt_insert_sql() -> str:
    """An INSERT of one attempt for cursor.executemany, far faster than the ORM for a million:
    (learner, question, uid, exam, topic, chosen JSON, correct, score, time spent in
    microseconds, answered at), from a quiz, without a nonce. `scored` gives rows their
    score."""
    from progress.practice.models import Attempt

    return (
        f"INSERT INTO {Attempt._meta.db_table} (learner_id, question_id, question_uid, exam_id, "  # noqa: S608
        "topic_id, chosen, is_correct, score, time_spent, source, serve_nonce, answered_at) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, 'quiz', '', %s)"
    )


def scored(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Rows of (learner, question, uid, exam, topic, chosen, correct, time spent, answered
    at) with the score after `correct`, as an all-or-nothing answer scores."""
    return [(*row[:7], 1.0 if row[6] else 0.0, *row[7:]) for row in rows]


def question_options() -> dict[int, list[tuple[str, str, bool]]]:
    """Each question's options (key, text, correct), in their order: what the benchmarks'
    generated answers choose from."""
    from questions.models import Option

    options: dict[int, list[tuple[str, str, bool]]] = {}
    for question_id, key, text, correct in Option.objects.order_by(
        "question_id", "position"
    ).values_list("question_id", "key", "text", "is_correct"):
        options.setdefault(question_id, []).append((key, text, correct))
    return options
