"""Benchmark: importing a large question bank, on SQLite and (optionally) PostgreSQL.

Run from the project root:

    DEBUG=1 .venv/bin/python bench/import_bank.py [--questions N]
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres DEBUG=1 \
        .venv/bin/python bench/import_bank.py

It generates a reproducible bank (random.Random(0)) of N questions with four options each and
times `questions.bank.document_import.import_document` twice: into an empty database, then the
same document again (the idempotent re-import, where nothing changes). Then a bank of version 2
of the format, N questions of the types beyond choice in turn (ordering with decoys, matching
with a distractor, yes/no, fill-in texts and numbers, drop-downs in an exhibit), a case study
per 20 of them, twice too. Then the first bank as a
GIFT file (a $CATEGORY per topic, names, feedback) goes through `questions.bank.foreign_import`
into an exam, twice; then a GIFT file of every GIFT type in turn (choice, matching, numerical,
short answer, missing word), twice; and the first bank as a QTI 3.0 content package (our own
export: a section per topic, an item per question), twice. It only prints; it never fails on
time. Each import is given in wall-clock seconds and in the CPU seconds of the process: on a
machine shared with other work, the CPU time is the steadier figure to compare runs with. The
imports run without Django's recording of each statement's SQL, as in production
(`counted_queries`).

Django's settings can be configured once per process, so each database is measured in a
child process of this script (`--backend sqlite` / `--backend postgres`); the parent prints a
header and, when both ran, how PostgreSQL compares with SQLite on this machine.

- SQLite: a fresh database file in a temporary directory, deleted afterwards.
- PostgreSQL: only when DATABASE_URL names a PostgreSQL server when the script starts. A
  throwaway database `courseiva_bench_<pid>` is created on that server, migrated, measured and
  dropped; the database named in the URL is only used to issue CREATE/DROP DATABASE.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

PROJECT_ROOT = Path(__file__).resolve().parent.parent
OPTIONS_PER_QUESTION = 4
TARGET_SECONDS = 10  # what an import of 10,000 questions should stay under, for the reader
GIFT_TARGET_SECONDS = 20  # the same for a GIFT file of 10,000 questions, on SQLite
QTI_TARGET_SECONDS = 20  # the same for a QTI package of 10,000 questions, on SQLite
SMALL_BANK = 10  # questions in the bank whose query count is printed for comparison

# Pools the generator draws from. The words only need to give realistic text lengths and
# some variety; they are not meant to read well.
# fmt: off
WORDS = (
    "cluster", "node", "service", "request", "latency", "throughput", "replica", "region", "zone",
    "bucket", "object", "policy", "role", "account", "credential", "token", "endpoint", "gateway",
    "queue", "topic", "subscription", "event", "pipeline", "model", "training", "dataset",
    "feature", "label", "batch", "stream", "schema", "table", "index", "query", "partition",
    "shard", "cache", "memory", "disk", "network", "subnet", "firewall", "route", "balancer",
    "instance", "container", "image", "registry", "deployment", "rollout", "canary", "version",
    "config", "secret", "key", "audit", "log", "metric", "alert", "dashboard", "budget", "quota",
    "limit", "cost", "performance", "availability", "durability", "consistency", "retry",
    "timeout", "backoff", "failover", "backup", "snapshot", "restore", "migration", "encryption",
    "compliance", "identity", "permission", "scaling", "autoscaler", "workload", "serverless",
    "function", "trigger", "the", "a", "an", "of", "for", "with", "on", "in", "to", "from", "by",
    "each", "every", "their", "its", "this", "that", "which", "when",
)
CODE_WORDS = ("max_replicas", "retry_policy", "min_instances", "--dry-run", "ttl", "kms_key")
TOPICS = (
    ("designing-solutions", "Designing solutions", 24),
    ("data-pipelines", "Building data pipelines", 22),
    ("security-identity", "Security and identity", 20),
    ("operations-monitoring", "Operations and monitoring", 18),
    ("cost-optimisation", "Cost optimisation", 16),
)
TAGS = (
    "networking", "storage", "iam", "encryption", "monitoring", "logging", "scaling", "batch",
    "streaming", "ml", "serverless", "containers", "databases", "caching", "cost", "backup",
    "compliance", "migration",
)
# fmt: on


# Generating the bank ----------------------------------------------------------------------


def prose(rng: random.Random, target: int) -> str:
    """Sentences of 8 to 16 words totalling about `target` characters (give or take a fifth)."""
    goal = int(target * rng.uniform(0.8, 1.2))
    words: list[str] = []
    size = 0
    sentence_left = 0
    while size < goal:
        if sentence_left == 0:
            if words and goal - size < 30:
                break  # rather than a stub of a sentence
            sentence_left = rng.randint(8, 16)
            if words:
                words[-1] += "."
            word = rng.choice(WORDS).capitalize()
        elif rng.random() < 0.02:
            # Some inline code, as real stems and rationales have.
            word = f"`{rng.choice(CODE_WORDS)}`"
        else:
            word = rng.choice(WORDS)
        words.append(word)
        size += len(word) + 1
        sentence_left -= 1
    return " ".join(words) + "."


def phrase(rng: random.Random) -> str:
    """An option's text: a short clause of about 40 to 80 characters."""
    return " ".join(rng.choices(WORDS, k=rng.randint(6, 11))).capitalize()


def make_question(rng: random.Random, uid: str, topic: str, related: list[str]) -> dict[str, Any]:
    # About a quarter are "select all that apply", with two or three correct options; the
    # rest have exactly one, as the format's rules require.
    kind = "multiple" if rng.random() < 0.25 else "single"
    correct_count = rng.randint(2, 3) if kind == "multiple" else 1
    correct = set(rng.sample(range(OPTIONS_PER_QUESTION), correct_count))
    options = []
    for position in range(OPTIONS_PER_QUESTION):
        option: dict[str, Any] = {
            "text": phrase(rng),
            "correct": position in correct,
            "rationale": prose(rng, 150),
            "tempting_because": prose(rng, 100),
        }
        if position not in correct and rng.random() < 0.3:
            option["right_when"] = prose(rng, 100)
        options.append(option)
    question: dict[str, Any] = {
        "uid": uid,
        "topic": topic,
        "kind": kind,
        "stem": prose(rng, 300)
        + (
            " Which options apply? Select all that apply."
            if kind == "multiple"
            else " Which option should you choose?"
        ),
        "explanation": prose(rng, 300),
        "difficulty": rng.choice(["easy", "medium", "hard"]),
        "status": rng.choices(["published", "review", "draft"], weights=[85, 10, 5])[0],
        "author": rng.choice(["A. Curator", "B. Reviewer", "C. Author"]),
        "tags": rng.sample(TAGS, rng.randint(0, 3)),
        "options": options,
    }
    if rng.random() < 0.4:
        question["trap"] = prose(rng, 120)
    if rng.random() < 0.5:
        question["reviewed_on"] = f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    if rng.random() < 0.3:
        question["references"] = [
            {"title": "Product documentation", "url": f"https://docs.example.com/{uid}"}
        ]
    if related:
        question["related"] = related
    return question


def make_document(questions: int) -> dict[str, Any]:
    """One exam, five weighted topics, `questions` questions; the same bank on every run."""
    rng = random.Random(0)
    uids = [f"bench-{n:05d}" for n in range(questions)]
    slugs = [slug for slug, _, _ in TOPICS]
    weights = [weight for _, _, weight in TOPICS]
    items = []
    for n, uid in enumerate(uids):
        related: list[str] = []
        if questions > 1 and rng.random() < 0.3:
            # One to three other questions, anywhere in the bank (forward links included).
            picks = rng.sample(range(questions), min(questions, 4))
            related = [uids[pick] for pick in picks if pick != n][: rng.randint(1, 3)]
        topic = rng.choices(slugs, weights=weights)[0]
        items.append(make_question(rng, uid, topic, related))
    return {
        "format": "courseiva-bank",
        "version": 1,
        "exams": [
            {
                "slug": "bench-exam",
                "code": "BENCH",
                "title": "Benchmark certification",
                "vendor": "Example Cloud",
                "description": prose(rng, 400),
                "mock_exam": {"question_count": 50, "duration_minutes": 120, "pass_percent": 70},
                "topics": [
                    {"slug": slug, "title": title, "weight": weight}
                    for slug, title, weight in TOPICS
                ],
                "questions": items,
            }
        ],
    }


def make_item_question(rng: random.Random, uid: str, topic: str, kind: str) -> dict[str, Any]:
    """A question of a type beyond choice, each part with its rationale: four steps and a
    decoy, three prompts and a pool of four, four statements, two blanks (texts, a number),
    two drop-down gaps of three choices."""

    def part(**fields: Any) -> dict[str, Any]:
        return {**fields, "rationale": prose(rng, 150), "tempting_because": prose(rng, 100)}

    question: dict[str, Any] = {
        "uid": uid,
        "topic": topic,
        "kind": kind,
        "scoring": rng.choice(["all", "partial"]),
        "stem": prose(rng, 300),
        "explanation": prose(rng, 300),
        "difficulty": rng.choice(["easy", "medium", "hard"]),
        "status": "published",
        "author": rng.choice(["A. Curator", "B. Reviewer", "C. Author"]),
    }
    if kind == "ordering":
        places = [*rng.sample(range(1, 5), 4), None]
        question["steps"] = [
            part(text=phrase(rng), **({"place": place} if place else {})) for place in places
        ]
    elif kind == "matching":
        question["pool"] = [{"text": phrase(rng)} for _ in range(4)]
        answers = rng.sample(range(1, 5), 3)
        question["prompts"] = [part(text=phrase(rng), answer=answer) for answer in answers]
    elif kind == "yesno":
        question["statements"] = [
            part(text=phrase(rng), answer=rng.choice(["yes", "no"])) for _ in range(4)
        ]
    elif kind == "fillin":
        question["blanks"] = [
            part(label=phrase(rng), accepted=[rng.choice(WORDS), rng.choice(CODE_WORDS)]),
            part(
                label=phrase(rng),
                number=rng.randint(1, 500),
                tolerance=rng.choice([0, 0.5, 2]),
                units=["ms", "milliseconds"],
                feedback=[{"answer": "1000", "feedback": prose(rng, 80)}],
            ),
        ]
    else:
        question["exhibit"] = (
            f"```\n{rng.choice(CODE_WORDS)}: [[1]]\n{rng.choice(CODE_WORDS)}: [[2]]\n```"
        )
        question["gaps"] = [
            part(
                label=phrase(rng),
                choices=[
                    {"text": phrase(rng), "correct": n == right, "rationale": prose(rng, 120)}
                    for n in range(3)
                ],
            )
            for right in (rng.randrange(3), rng.randrange(3))
        ]
    return question


ITEM_KINDS = ("ordering", "matching", "yesno", "fillin", "dropdown")


def make_item_document(questions: int) -> dict[str, Any]:
    """Version 2: one exam of `questions` questions of the types beyond choice, in turn, and a
    case study per 20 of them; the same bank on every run."""
    rng = random.Random(1)
    slugs = [slug for slug, _, _ in TOPICS]
    cases = [
        {"slug": f"case-{n:04d}", "title": phrase(rng)[:80], "scenario": prose(rng, 1200)}
        for n in range((questions + 19) // 20)
    ]
    items = []
    for n in range(questions):
        question = make_item_question(
            rng, f"bench-item-{n:05d}", rng.choice(slugs), ITEM_KINDS[n % len(ITEM_KINDS)]
        )
        if n % 4 == 0:
            question["case_study"] = cases[n // 20]["slug"]
        items.append(question)
    return {
        "format": "courseiva-bank",
        "version": 2,
        "exams": [
            {
                "slug": "bench-item-exam",
                "code": "ITEMS",
                "title": "Benchmark of every type",
                "topics": [
                    {"slug": slug, "title": title, "weight": weight}
                    for slug, title, weight in TOPICS
                ],
                "case_studies": cases,
                "questions": items,
            }
        ],
    }


def measure_items(backend: str, questions: int) -> None:
    """Time the version-2 bank of every type: into the database, then the same again."""
    from questions.bank.document_import import import_document

    label = f"{backend:<8}"
    document = make_item_document(questions)
    exam = document["exams"][0]
    parts = sum(
        len(q.get(name, []))
        for q in exam["questions"]
        for name in ("prompts", "statements", "blanks", "gaps")
    )
    print(
        f"{label} bank of every type (version 2): {questions:,} questions, {parts:,} parts, "
        f"{len(exam['case_studies']):,} case studies "
        f"({len(json.dumps(document).encode()) / 1e6:.1f} MB as JSON)",
        flush=True,
    )
    for attempt in ("import", "re-import unchanged"):
        with counted_queries() as queries:
            cpu = time.process_time()
            started = time.perf_counter()
            summary = import_document(document)
            seconds = time.perf_counter() - started
            cpu = time.process_time() - cpu
        aim = f"  [target: under {TARGET_SECONDS} s]" if attempt == "import" else ""
        print(
            f"{label} every type {attempt}: {seconds:6.2f} s (CPU {cpu:.2f} s), "
            f"{summary.questions_created:,} created, {summary.questions_unchanged:,} "
            f"unchanged, {queries.count:,} SQL queries{aim}",
            flush=True,
        )


def small_document() -> dict[str, Any]:
    """A tiny bank with its own exam and uids, to compare query counts with the big one. Each
    question links to the one before, so that every kind of write happens here too."""
    document = make_document(SMALL_BANK)
    exam = document["exams"][0]
    exam["slug"], exam["code"] = "bench-small-exam", "SMALL"
    for n, question in enumerate(exam["questions"]):
        question["uid"] = f"bench-small-{n:05d}"
        question["related"] = [f"bench-small-{n - 1:05d}"] if n else []
    return document


def gift_escape(text: str) -> str:
    for char in "\\~=#{}:":
        text = text.replace(char, "\\" + char)
    return text


def make_gift(questions: int) -> str:
    """The same bank as GIFT, as a teacher's Moodle export would have it: a $CATEGORY per
    topic, a name per question, feedback on every answer, general feedback; the
    select-all-that-apply questions with %weights%."""
    exam = make_document(questions)["exams"][0]
    titles = {topic["slug"]: topic["title"] for topic in exam["topics"]}
    by_topic: dict[str, list[dict[str, Any]]] = {}
    for question in exam["questions"]:
        by_topic.setdefault(question["topic"], []).append(question)
    chunks: list[str] = []
    for slug, items in by_topic.items():
        chunks.append(f"$CATEGORY: $course$/top/{titles[slug]}")
        for question in items:
            right = sum(option["correct"] for option in question["options"])
            answers = []
            for option in question["options"]:
                text, why = gift_escape(option["text"]), gift_escape(option["rationale"])
                if question["kind"] == "multiple":
                    weight = f"%{100 / right:g}%" if option["correct"] else "%-100%"
                    answers.append(f"~{weight}{text} #{why}")
                else:
                    answers.append(f"{'=' if option['correct'] else '~'}{text} #{why}")
            chunks.append(
                f"::{question['uid']}::[markdown]{gift_escape(question['stem'])}{{\n"
                + "\n".join(f"    {answer}" for answer in answers)
                + f"\n    ####{gift_escape(question['explanation'])}\n}}"
            )
    return "\n\n".join(chunks) + "\n"


def measure_gift(backend: str, questions: int) -> None:
    """Time a GIFT file of the same bank through the foreign-import pipeline into an exam:
    decoding and parsing, then the import, then the same file again (nothing changes)."""
    raw = make_gift(questions).encode()
    measure_foreign(backend, questions, "GIFT", "file", "bench.gift", raw, GIFT_TARGET_SECONDS)


def make_mixed_gift(questions: int) -> str:
    """A GIFT bank of every type GIFT has, in turn: multiple choice, matching (three pairs and
    a distractor), numerical (a tolerance, a wrong answer with feedback; every other one two
    right numbers whose ranges do not join), short answer (two accepted, a wrong one with
    feedback; every other one a `*` wildcard) and missing word (a drop-down in the sentence),
    a $CATEGORY per 500 questions."""
    chunks: list[str] = []
    for n in range(questions):
        if n % 500 == 0:
            chunks.append(f"$CATEGORY: $course$/top/Mixed {n // 500 + 1}")
        name = f"::mixed-{n:05d}::"
        kind = n % 5
        if kind == 0:
            chunks.append(
                f"{name}Which protocol resolves name {n}?{{=DNS#It resolves names. "
                "~ARP#It resolves addresses. ~NTP#It sets clocks.####DNS resolves names.}"
            )
        elif kind == 1:
            chunks.append(
                f"{name}Match each service {n} with its port.{{=DNS -> 53 =HTTPS -> 443 "
                "=SSH -> 22 = -> 80}"
            )
        elif kind == 2 and n // 5 % 2:
            chunks.append(
                f"{name}Name a port {n} that DNS listens on.{{#=53:0 =853:0#Over TLS. "
                "~%0%80#That is HTTP.}"
            )
        elif kind == 2:
            chunks.append(
                f"{name}How many hosts does a /{24 + n % 6} hold?"
                f"{{#={2 ** (8 - n % 6) - 2}:0#Right. ~%0%{2 ** (8 - n % 6)}#Not the network "
                "and broadcast addresses.}"
            )
        elif kind == 3 and n // 5 % 2:
            chunks.append(f"{name}Which command {n} shows the routing table?{{=show ip rout*}}")
        elif kind == 3:
            chunks.append(
                f"{name}Which command {n} saves the configuration?{{=copy run start"
                "#Yes. =write memory =%0%reload#That loses it.}"
            )
        else:
            chunks.append(
                f"{name}OSPF {n} runs in area {{~1 =0#The backbone. ~2}} on the backbone."
            )
    return "\n\n".join(chunks) + "\n"


def measure_mixed_gift(backend: str, questions: int) -> None:
    """Time a GIFT file of every GIFT type (a fifth each) through the foreign import."""
    raw = make_mixed_gift(questions).encode()
    measure_foreign(
        backend, questions, "GIFT", "mixed-type file", "mixed.gift", raw, GIFT_TARGET_SECONDS
    )


def measure_qti(backend: str, questions: int) -> None:
    """Time a QTI 3.0 package of the same bank (written by our exporter) through the
    foreign-import pipeline: unzipping and parsing every item, then the import, then again."""
    from questions.bank.formats.qti_export import write_package

    raw = write_package(make_document(questions))
    measure_foreign(backend, questions, "QTI", "package", "bench.zip", raw, QTI_TARGET_SECONDS)


def measure_foreign(
    backend: str, questions: int, name: str, noun: str, file_name: str, raw: bytes, target: int
) -> None:
    from django.utils.text import slugify

    from questions.bank.foreign_import import import_foreign, read_source
    from questions.models import Exam

    label = f"{backend:<8}"
    file_format = name.lower()
    slug = slugify(f"bench-{file_format}-{noun}")
    exam = Exam.objects.create(slug=slug, code=name, title=f"{name} {noun} benchmark")
    print(f"{label} {name} {noun}: {questions:,} questions, {len(raw) / 1e6:.1f} MB", flush=True)
    for attempt in ("import", "re-import unchanged"):
        with counted_queries() as queries:
            cpu = time.process_time()
            started = time.perf_counter()
            source = read_source(file_name, raw, file_format)
            parsed = time.perf_counter()
            report = import_foreign([source], exam.slug)
            end = time.perf_counter()
            cpu = time.process_time() - cpu
        aim = f"  [target: under {target} s]" if attempt == "import" else ""
        print(
            f"{label} {name} {noun} {attempt}: {end - started:6.2f} s "
            f"(read {parsed - started:.2f} s, check and write {end - parsed:.2f} s; "
            f"CPU {cpu:.2f} s), {report.imported:,} created, {report.updated:,} updated, "
            f"{report.unchanged:,} unchanged, {len(report.errors)} errors, "
            f"{queries.count:,} SQL queries{aim}",
            flush=True,
        )


# Measuring (in a child process) -----------------------------------------------------------


@dataclass
class Result:
    backend: str
    questions: int
    import_seconds: float
    reimport_seconds: float
    import_queries: int
    reimport_queries: int


class Queries:
    count = 0


@contextmanager
def counted_queries() -> Iterator[Queries]:
    """Count the statements run, without Django's recording of their SQL (what DEBUG, which
    the settings need here without a SECRET_KEY, turns on, as CaptureQueriesContext does).
    The recording renders each statement with its values: on PostgreSQL, for inserts of
    tens of thousands of values, a third of an import's CPU, which production never pays.
    The count is of statements executed: one fewer than the recording's, which also lists
    the transaction's COMMIT."""
    from django.db import connection
    from django.test.utils import override_settings

    queries = Queries()

    def count(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        queries.count += 1
        return execute(sql, params, many, context)

    with override_settings(DEBUG=False), connection.execute_wrapper(count):
        yield queries


def setup_django(database_url: str) -> None:
    # The settings module reads DATABASE_URL when it is imported, so this must come first.
    os.environ["DATABASE_URL"] = database_url
    os.environ["DJANGO_SETTINGS_MODULE"] = "courseiva.settings"
    if str(PROJECT_ROOT) not in sys.path:
        sys.path.insert(0, str(PROJECT_ROOT))
    import django

    django.setup()


class Phases:
    """A progress callback for import_document that notes when each phase starts, so that the
    time of an import can be broken down by phase."""

    def __init__(self) -> None:
        self.marks: list[tuple[str, float]] = []

    def __call__(self, message: str) -> None:
        self.marks.append((message, time.perf_counter()))

    def lines(self, end: float) -> list[str]:
        # The phases are the bank's own progress messages. "Checking" also covers writing
        # the exam rows; the last phase runs until import_document returns, so it includes
        # the commit.
        stops = [start for _, start in self.marks[1:]] + [end]
        return [
            f"{message[0].lower() + message[1:]:<44} {stop - start:6.2f} s"
            for (message, start), stop in zip(self.marks, stops, strict=True)
        ]


def measure(backend: str, questions: int) -> Result:
    """Migrate the (empty) database Django is pointed at, then time the two imports."""
    from django.core.management import call_command

    from questions.bank.document_import import ImportSummary, import_document

    label = f"{backend:<8}"

    def say(text: str) -> None:
        print(f"{label} {text}", flush=True)

    started = time.perf_counter()
    document = make_document(questions)
    exam = document["exams"][0]
    options = sum(len(question["options"]) for question in exam["questions"])
    say(
        f"bank: {questions:,} questions, {options:,} options, 1 exam, {len(exam['topics'])} "
        f"topics ({len(json.dumps(document).encode()) / 1e6:.1f} MB as JSON), generated in "
        f"{time.perf_counter() - started:.2f} s"
    )
    started = time.perf_counter()
    call_command("migrate", verbosity=0)
    say(f"migrate an empty database: {time.perf_counter() - started:.2f} s")

    def timed_import() -> tuple[float, float, int, list[str], ImportSummary]:
        phases = Phases()
        with counted_queries() as queries:
            cpu = time.process_time()
            started = time.perf_counter()
            summary = import_document(document, phases)
            end = time.perf_counter()
            cpu = time.process_time() - cpu
        return end - started, cpu, queries.count, phases.lines(end), summary

    target = f"under {TARGET_SECONDS} s" + ("" if questions == 10_000 else " for 10,000")
    first_head = f"import {questions:,} questions ({options:,} options):"
    again_head = "re-import unchanged:"
    width = max(len(first_head), len(again_head))

    # Into the empty database: every row is created.
    seconds, cpu, queries, phases, summary = timed_import()
    say(
        f"{first_head:<{width}} {seconds:6.2f} s (CPU {cpu:.2f} s), "
        f"{questions / seconds:>7,.0f} questions/s  [target: {target}]"
    )
    for line in phases:
        say(f"    {line}")
    say(f"    {summary.questions_created:,} questions created, {queries:,} SQL queries")
    first = (seconds, queries)

    # The same document again: every row is read and compared, nothing is written.
    seconds, cpu, queries, phases, summary = timed_import()
    say(
        f"{again_head:<{width}} {seconds:6.2f} s (CPU {cpu:.2f} s), "
        f"{questions / seconds:>7,.0f} questions/s"
    )
    for line in phases:
        say(f"    {line}")
    say(
        f"    {summary.questions_unchanged:,} questions unchanged, "
        f"{summary.questions_updated:,} updated, {queries:,} SQL queries"
    )
    if summary.questions_created or summary.questions_updated or summary.options_written:
        say("    WARNING: the re-import wrote rows; importing the same bank should change nothing")
    again = (seconds, queries)

    # A tiny bank for comparison: bulk writes keep the number of queries flat; it grows only
    # where Django splits a statement that would pass the database's parameter limit.
    with counted_queries() as small:
        import_document(small_document())
    say(
        f"SQL queries of a first import: {first[1]:,} for {questions:,} questions, "
        f"{small.count:,} for {SMALL_BANK} questions"
    )
    measure_items(backend, questions)
    measure_gift(backend, questions)
    measure_mixed_gift(backend, questions)
    measure_qti(backend, questions)
    return Result(backend, questions, first[0], again[0], first[1], again[1])


def run_sqlite(questions: int) -> Result:
    with tempfile.TemporaryDirectory(prefix="courseiva-bench-") as directory:
        setup_django(f"sqlite:///{directory}/bench.sqlite3")
        try:
            return measure("sqlite", questions)
        finally:
            # Close before the directory (and the database file in it) is removed.
            from django.db import connections

            connections.close_all()


def run_postgres(questions: int, server_url: str) -> Result:
    import psycopg
    from psycopg import sql

    name = f"courseiva_bench_{os.getpid()}"
    parts = urlsplit(server_url)
    bench_url = urlunsplit(parts._replace(path=f"/{name}"))
    # CREATE/DROP DATABASE cannot run inside a transaction, hence autocommit.
    try:
        with psycopg.connect(server_url, autocommit=True) as admin:
            admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    except psycopg.Error as error:
        sys.exit(f"postgres cannot create a throwaway database with DATABASE_URL: {error}")
    print(f"postgres created database {name} on {parts.hostname or 'localhost'}")
    try:
        setup_django(bench_url)
        return measure("postgres", questions)
    finally:
        # Django's connection must be closed first: PostgreSQL refuses to drop a database
        # that has sessions.
        from django.db import connections

        connections.close_all()
        with psycopg.connect(server_url, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {}").format(sql.Identifier(name)))
        print(f"postgres dropped database {name}")


# The parent process -----------------------------------------------------------------------


def is_postgres(url: str) -> bool:
    return urlsplit(url).scheme in {"postgres", "postgresql", "pgsql"}


def run_child(backend: str, questions: int) -> Result | None:
    """Measure one backend in a child process; its result comes back through a JSON file."""
    with tempfile.TemporaryDirectory(prefix="courseiva-bench-") as directory:
        result_file = Path(directory) / "result.json"
        command = [
            sys.executable,
            str(Path(__file__).resolve()),
            "--backend", backend,
            "--questions", str(questions),
            "--result-file", str(result_file),
        ]  # fmt: skip
        sys.stdout.flush()  # what this process printed comes before the child's output
        completed = subprocess.run(command, check=False, cwd=PROJECT_ROOT)
        if completed.returncode != 0 or not result_file.exists():
            print(f"{backend:<8} FAILED (exit status {completed.returncode})")
            return None
        return Result(**json.loads(result_file.read_text()))


def compare(sqlite: Result, postgres: Result) -> None:
    print()
    print("PostgreSQL time / SQLite time, measured in this run:")
    print(
        f"  import:    {postgres.import_seconds / sqlite.import_seconds:.2f}x "
        f"({postgres.import_seconds:.2f} s vs {sqlite.import_seconds:.2f} s)"
    )
    print(
        f"  re-import: {postgres.reimport_seconds / sqlite.reimport_seconds:.2f}x "
        f"({postgres.reimport_seconds:.2f} s vs {sqlite.reimport_seconds:.2f} s)"
    )


def positive_int(text: str) -> int:
    try:
        value = int(text.replace(",", "").replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not a positive number of questions")
    return value


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Time importing a generated question bank into SQLite and, when "
        "DATABASE_URL names a PostgreSQL server, PostgreSQL (in a throwaway database)."
    )
    parser.add_argument(
        "--questions",
        type=positive_int,
        default=10_000,
        metavar="N",
        help="questions in the generated bank, four options each (default 10,000)",
    )
    # Internal: how the parent starts a child process for one backend.
    parser.add_argument("--backend", choices=["sqlite", "postgres"], help=argparse.SUPPRESS)
    parser.add_argument("--result-file", type=Path, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # The settings refuse to start without a SECRET_KEY unless DEBUG is on; the databases
    # here are throwaway ones, so development settings are the right ones.
    os.environ.setdefault("DEBUG", "1")
    server_url = os.environ.get("DATABASE_URL", "")

    if args.backend:
        if args.backend == "sqlite":
            result = run_sqlite(args.questions)
        elif is_postgres(server_url):
            result = run_postgres(args.questions, server_url)
        else:
            sys.exit("--backend postgres needs DATABASE_URL=postgres://user@host:port/database")
        if args.result_file:
            args.result_file.write_text(json.dumps(asdict(result)))
        return 0

    import django

    print(
        f"Courseiva bank import benchmark: {args.questions:,} questions x "
        f"{OPTIONS_PER_QUESTION} options (Python {sys.version.split()[0]}, "
        f"Django {django.get_version()})"
    )
    if server_url and not is_postgres(server_url):
        print("(DATABASE_URL is not a PostgreSQL URL, so only SQLite is measured)")
    print()
    sqlite = run_child("sqlite", args.questions)
    postgres = None
    if is_postgres(server_url):
        print()
        postgres = run_child("postgres", args.questions)
    if sqlite and postgres:
        compare(sqlite, postgres)
    failed = sqlite is None or (is_postgres(server_url) and postgres is None)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
