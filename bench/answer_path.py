"""Benchmark of recording an answer, the product's core write, on PostgreSQL.

    .venv/bin/python bench/answer_path.py --database-url postgres://.../courseiva_x [--seconds 8]

THE DATABASE GIVEN IS WIPED (its public schema dropped and made again): give a throwaway one.
So is the Redis database of --redis-url (default redis://127.0.0.1:6379/13).

The server runs as the README's production set-up does: kept database connections
(CONN_MAX_AGE=60) and the cache shared in Redis, with every question page built into it
before the runs, as on a site that has been up for a while (`--redis-url none`: the
per-process cache, where each of the workers builds each page on its first request, and a
run of a few seconds measures mostly those builds).

Two parts, each printing ratios measured in the same run:

1. In-process: `record_attempt` against a bare insert of the attempt (queries, time
   per answer, and the ratio), and the whole signed-in quiz POST through the test client;
   then the signed-in htmx quiz POST of every item type against a single-answer one (the
   issue's target: within 10 %), each type's questions answered right, interleaved.
2. HTTP, against `make serve` (gunicorn, DEBUG off): /healthz, the visitor's question page and
   answer POST, and the signed-in quiz answer POST with 8 and 32 learners answering at once,
   on 4 workers, each quiz row with the task worker stopped and then with `make worker`
   running beside the server, as production runs it (`--no-worker`: stopped only); then, on
   16 workers with the worker running, 32 learners answering the same 5 questions against 32
   answering different questions; and, on 4 workers with the worker running, the htmx answer
   POST of every item type against a single-answer one, 8 learners at once (`--types-only`:
   that alone). Throughout, a sampler reads pg_stat_activity: in what share
   of samples a backend waits on a lock (row, advisory or other), and what the holder ran.

The machine is shared and noisy: read the ratios, not the absolute figures. It only prints.
"""

import argparse
import json
import os
import secrets
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections import Counter
from pathlib import Path
from typing import Any

from http_pages import (
    Target,
    answer_request,
    ensure_wrk,
    flush_redis,
    learner_cookie,
    lua_post,
    lua_rotate,
    per_learner_lua,
    run_wrk,
    signed_in_learner,
    start_server,
    wait_ready,
)

PROJECT_ROOT = Path(__file__).resolve().parent.parent
QUESTIONS = 2000
LEARNERS = 32
ITEMS = 1500  # quiz items per learner and run: more than one learner can answer in a run
SHARED = 5  # the questions every learner answers in the "same questions" run


def free_port(first: int = 18200, last: int = 18299) -> int:
    """A free loopback port in [first, last] (--ports): the machine is shared."""
    import socket

    for port in range(first, last + 1):
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    sys.exit(f"no free port in {first}-{last}")


def child(action: str, args: argparse.Namespace) -> None:
    """The parts that need Django, run in the server's environment (DATABASE_URL set)."""
    sys.path[:0] = [str(PROJECT_ROOT), str(Path(__file__).resolve().parent)]
    import django

    django.setup()
    if action == "seed":
        from django.core.management import call_command
        from import_bank import make_document

        from questions.bank.document_import import import_document
        from questions.models import PageChange

        call_command("migrate", verbosity=0)
        # The in-process part runs with DEBUG off too: it needs the static files' manifest.
        call_command("collectstatic", interactive=False, verbosity=0)
        import_document(make_document(QUESTIONS))
        seed_item_types()
        PageChange.objects.all().delete()  # see http_pages.child
    elif action == "learners":
        print(json.dumps(make_learners(args.shared)))
    elif action == "typed-learners":
        print(json.dumps(make_typed_learners()))
    elif action == "inprocess":
        print(json.dumps(in_process(args.answers)))
    elif action == "warm":
        # Every question page built once into the shared cache, as a site that has been up for
        # a while has them: the runs then measure the answer, not the first visit's build.
        from questions.models import Question
        from questions.pages.snapshot import question_pages

        uids = list(Question.objects.values_list("uid", flat=True))
        for start in range(0, len(uids), 500):
            question_pages(uids[start : start + 500])
    elif action == "refit":
        print(json.dumps(refit_hold()))
    elif action == "sample":
        from questions.models import Question

        paths = [q.get_absolute_url() for q in Question.objects.published().order_by("pk")[:100]]
        print(json.dumps(paths))


TYPED = 20  # questions of each item type beside the bank's single-answer ones


def seed_item_types() -> None:
    """TYPED questions of each item type in the bank's first topic, built as the tests build
    them (tests/items.py), published, in review order after the bank's own."""
    from questions.models import Topic
    from tests import items

    topic = Topic.objects.order_by("pk").first()
    for _ in range(TYPED):
        items.ordering(topic, steps=5, extra=1)
        items.matching(topic, prompts=4, distractors=1)
        items.yes_no(topic, answers=(True, False, True, False))
        items.fill_in(topic)
        items.dropdown(topic, gaps=3)


def typed_posts(learner: Any, exam: Any, rounds: int) -> dict[str, Any]:
    """The htmx quiz POST of a right answer per item type, as a step per type; single-answer
    questions too, so that both are measured alike."""
    from django.test import Client

    from progress.practice.models import Quiz
    from questions.models import Kind, Question
    from questions.pages.snapshot import question_page
    from tests.items import right_post

    client = Client()
    client.force_login(learner)
    steps = {}
    for kind in (
        Kind.SINGLE,
        Kind.ORDERING,
        Kind.MATCHING,
        Kind.YES_NO,
        Kind.FILL_IN,
        Kind.DROPDOWN,
    ):
        questions = list(Question.objects.published().filter(kind=kind).order_by("pk")[:TYPED])
        quiz = Quiz.objects.start(
            learner=learner, exam=exam, topic=None, selection="any", length=None,
            question_ids=[q.pk for q in questions] * rounds,
        )  # fmt: skip
        assert quiz is not None
        posts = [right_post(page) for q in questions if (page := question_page(q.uid))] * rounds

        steps[kind.value] = _typed_step(client, quiz.code, posts)
    return steps


def htmx_form_post(client: Any, url: str, data: dict[str, Any]) -> Any:
    """The POST htmx sends for the answer form: its fields URL-encoded (htmx's default; the
    test client would otherwise send multipart, whose parsing costs more per field)."""
    body = urllib.parse.urlencode(data, doseq=True)
    return client.post(
        url, body, content_type="application/x-www-form-urlencoded", headers={"HX-Request": "true"}
    )


def _typed_step(client: Any, code: str, posts: list[dict[str, Any]]) -> Any:
    """A step that answers the quiz's next item with its right answer."""
    from django.urls import reverse

    items = iter(range(len(posts)))

    def step(_: int) -> None:
        n = next(items)
        url = reverse("quiz_item", args=[code, n + 1])
        response = htmx_form_post(client, url, posts[n])
        assert response.status_code == 200, response.content[:300]

    return step


def make_learners(shared: bool) -> list[dict[str, Any]]:
    """LEARNERS signed-in learners (sessions made directly), each with a quiz of ITEMS items:
    the same SHARED questions over and over, or questions of their own. Every request answers
    a new item, so that each records an attempt."""
    from progress.practice.models import Quiz
    from questions.models import Exam, Option, Question

    exam = Exam.objects.get()
    ids = list(Question.objects.published().order_by("pk").values_list("pk", flat=True))
    correct = dict(Option.objects.filter(is_correct=True).values_list("question_id", "key"))
    tag = secrets.token_hex(3)
    learners = []
    for n in range(LEARNERS):
        learner, session_key = signed_in_learner(f"bench-{tag}-{n}", f"b{tag}{n}@example.com")
        if shared:
            draw = [ids[k % SHARED] for k in range(ITEMS)]
        else:
            mine = ids[SHARED + n * 50 : SHARED + (n + 1) * 50]
            draw = [mine[k % len(mine)] for k in range(ITEMS)]
        quiz = Quiz.objects.start(
            learner=learner, exam=exam, topic=None, selection="any", length=None,
            question_ids=draw,
        )  # fmt: skip
        assert quiz is not None
        learners.append(
            {"session": session_key, "code": quiz.code, "keys": [correct[q] for q in draw]}
        )
    return learners


TYPE_LEARNERS = 8  # learners answering at once in each item type's HTTP run
KINDS = ("single", "ordering", "matching", "yesno", "fillin", "dropdown")


def make_typed_learners() -> dict[str, list[list[dict[str, Any]]]]:
    """For each item type, three runs' worth (two timed, one to warm up) of TYPE_LEARNERS
    signed-in learners, each with a
    quiz of ITEMS items over TYPED questions of that type and the right answer's fields for
    each item. Single-answer learners draw from TYPED questions too, so that every type meets
    the same sharing of questions between learners."""
    from progress.practice.models import Quiz
    from questions.models import Exam, Question
    from questions.pages.snapshot import question_pages
    from tests.items import right_post

    exam = Exam.objects.get()
    tag = secrets.token_hex(3)
    runs: dict[str, list[list[dict[str, Any]]]] = {}
    for kind in KINDS:
        questions = list(Question.objects.published().filter(kind=kind).order_by("pk")[:TYPED])
        pages = question_pages(q.uid for q in questions)
        fields = [right_post(pages[q.uid]) for q in questions]
        runs[kind] = []
        for run in range(3):
            learners = []
            for n in range(TYPE_LEARNERS):
                name = f"typed-{tag}-{kind}-{run}-{n}"
                learner, session_key = signed_in_learner(name, f"{name}@example.com")
                draw = [(n + k) % len(questions) for k in range(ITEMS)]
                quiz = Quiz.objects.start(
                    learner=learner, exam=exam, topic=None, selection="any", length=None,
                    question_ids=[questions[k].pk for k in draw],
                )  # fmt: skip
                assert quiz is not None
                learners.append(
                    {"session": session_key, "code": quiz.code, "fields": [fields[k] for k in draw]}
                )
            runs[kind].append(learners)
    return runs


def in_process(answers: int) -> dict[str, Any]:
    """Queries and time of a bare attempt insert, of record_attempt, and of the whole
    quiz POST, per answer, measured in turn in this one process."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from progress.accounts.models import User
    from progress.practice.models import Attempt, Quiz, Source
    from progress.practice.recording import record_attempt
    from questions.models import Exam, Option, Question
    from questions.pages.snapshot import question_page

    exam = Exam.objects.get()
    questions = list(Question.objects.published().order_by("pk")[:200])
    pages = [page for q in questions if (page := question_page(q.uid)) is not None]
    learner = User.objects.create_user(f"inproc-{secrets.token_hex(3)}", "")
    correct = dict(Option.objects.filter(is_correct=True).values_list("question_id", "key"))

    counter = iter(range(10**9))

    def timed(step: Any, count: int) -> tuple[float, float]:
        """(ms per call, statements per call) of `step`: timed without the query log (DEBUG
        off), then a few more calls with it to count their statements."""
        started = time.perf_counter()
        for _ in range(count):
            step(next(counter))
        elapsed = time.perf_counter() - started
        with CaptureQueriesContext(connection) as captured:
            for _ in range(4):
                step(next(counter))
        # The statements sent, not the transaction's BEGIN and COMMIT (which Django logs too).
        statements = [q for q in captured.captured_queries if q["sql"] not in ("BEGIN", "COMMIT")]
        return 1000 * elapsed / count, len(statements) / 4

    def bare(n: int) -> None:
        page = pages[n % len(pages)]
        Attempt.objects.create(
            learner=learner, question_id=page.question_id, question_uid=page.uid,
            exam_id=page.exam_id, topic_id=page.topic_id, chosen=[], is_correct=True,
            source=Source.PAGE,
        )  # fmt: skip

    def record(n: int) -> None:
        page = pages[n % len(pages)]
        grade = page.grade([correct[page.question_id]] if n % 3 else [page.options[0].key])
        record_attempt(learner=learner, page=page, grade=grade, source=Source.PAGE, nonce=f"n{n}")

    # One long quiz: every POST answers the next item.
    quiz = Quiz.objects.start(
        learner=learner, exam=exam, topic=None, selection="any", length=None,
        question_ids=[q.pk for q in questions] * 20,
    )  # fmt: skip
    assert quiz is not None
    keys = [correct[q.pk] for q in questions] * 20
    items = iter(range(len(keys)))
    client = Client()
    client.force_login(learner)

    def post(_: int) -> None:
        n = next(items)
        response = client.post(reverse("quiz_item", args=[quiz.code, n + 1]), {"choice": keys[n]})
        assert response.status_code == 200

    def htmx_post(_: int) -> None:
        n = next(items)
        url = reverse("quiz_item", args=[quiz.code, n + 1])
        response = htmx_form_post(client, url, {"choice": keys[n]})
        assert response.status_code == 200

    steps = {"bare": bare, "record": record, "post": post, "htmx": htmx_post}
    for step in steps.values():  # warm-up: caches, the first exam state
        timed(step, 5)
    rounds: dict[str, list[tuple[float, float]]] = {name: [] for name in steps}
    for _ in range(3):  # interleaved, so that a noisy neighbour hits all of them alike
        for name, step in steps.items():
            rounds[name].append(timed(step, min(answers, 1000)))
    figures = {
        name: [statistics.median(ms for ms, _ in runs), runs[-1][1]]
        for name, runs in rounds.items()
    }
    figures.update(typed_figures(min(answers, 300) * 3, exam, timed))
    return figures


def typed_figures(count: int, exam: Any, timed: Any) -> dict[str, list[float]]:
    """Each item type's htmx answer POST against a single-answer one: `count` posts of each,
    taken in turn one post at a time (single, ordering, ..., single, ordering, ...), each
    type's median post kept. On a shared machine a neighbour's burst then spoils a few posts
    of every type alike, not one type's whole run."""
    from progress.accounts.models import User

    learner = User.objects.create_user(f"inproc-typed-{secrets.token_hex(3)}", "")
    steps = typed_posts(learner, exam, rounds=(count + 20) // TYPED + 2)
    durations: dict[str, list[float]] = {kind: [] for kind in steps}
    for n in range(count + 10):
        for kind, step in steps.items():
            started = time.perf_counter()
            step(n)
            if n >= 10:  # the first posts of each type warm its caches
                durations[kind].append(time.perf_counter() - started)
    return {
        f"type:{kind}": [1000 * statistics.median(runs), timed(steps[kind], 2)[1]]
        for kind, runs in durations.items()
    }


def refit_hold() -> dict[str, float]:
    """A refit as the worker makes it (fit, then the replay of every attempt), on the site the
    runs left: how long it took, and how long its final transaction kept the answers out
    (from the batch lock taken alone to the commit)."""
    from django.db import connection, transaction

    from progress.practice.models import Attempt
    from progress.practice.tasks import run_batch
    from progress.readiness.lock_query import QUESTION_BATCH_LOCK
    from progress.readiness.rebuild import rebuild_readiness

    marks: dict[str, float] = {}

    def watch(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        result = execute(sql, params, many, context)
        alone = "advisory_xact_lock(" in sql and "shared" not in sql
        if alone and params and params[0] == QUESTION_BATCH_LOCK and "locked" not in marks:
            marks["locked"] = time.perf_counter()
            transaction.on_commit(lambda: marks.setdefault("committed", time.perf_counter()))
        return result

    started = time.perf_counter()
    with connection.execute_wrapper(watch):
        report = rebuild_readiness(Attempt.objects, fit=True, batch=run_batch)
    return {
        "seconds": time.perf_counter() - started,
        "held_ms": 1000 * (marks["committed"] - marks["locked"]),
        "answers": report.answers,
        "learners": report.learners,
    }


def run_child(env: dict[str, str], action: str, *extra: str) -> Any:
    out = subprocess.run(
        [sys.executable, __file__, "--child", action, *extra],
        env=env,
        cwd=PROJECT_ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1]) if out.strip() else None


def reset_database(url: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP SCHEMA public CASCADE")
        conn.execute("CREATE SCHEMA public")


def learners_script(base: str, learners: list[dict[str, Any]], htmx: bool = False) -> str:
    """A wrk script for one connection per thread, each thread a learner answering its quiz's
    items in turn (wrk runs with as many threads as connections): the option keys of
    `keys`, or the form fields of `fields` (any item type); `htmx`: as the quiz page's form
    sends them, answered with the result part only."""
    rows = []
    for learner in learners:
        code = learner["code"]
        cookie, token = learner_cookie(base, learner, f"/progress/quizzes/{code}/1/")
        answers = learner.get("fields") or [{"choice": key} for key in learner["keys"]]
        posts = [
            (
                f"/progress/quizzes/{code}/{number}/",
                urllib.parse.urlencode({"csrfmiddlewaretoken": token, **fields}, doseq=True),
            )
            for number, fields in enumerate(answers, start=1)
        ]
        rows.append((cookie, posts))
    return per_learner_lua(rows, htmx=htmx)


class LockSampler:
    """Samples pg_stat_activity every few milliseconds while a run goes on: in how many samples
    some backend of the site waits on a lock, by kind of lock (advisory, tuple, transactionid,
    ...), and what the backends that held the lock were running (their last statement)."""

    def __init__(self, url: str, database: str) -> None:
        self.url, self.database = url, database
        self.samples = 0
        self.with_waits = 0  # samples with at least one backend waiting on a lock
        self.waiting: Counter[str] = Counter()  # backend-samples waiting, by wait_event
        self.blockers: Counter[str] = Counter()  # backend-samples blocked, by the holder's query
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run)

    def __enter__(self) -> "LockSampler":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            while not self._stop.is_set():
                rows = conn.execute(
                    "SELECT wait_event, count(*) FROM pg_stat_activity "
                    "WHERE datname = %s AND wait_event_type = 'Lock' GROUP BY wait_event",
                    [self.database],
                ).fetchall()
                self.samples += 1
                if rows:
                    self.with_waits += 1
                    for event, count in rows:
                        self.waiting[event] += count
                    # Who held it: asked only when someone waits (pg_blocking_pids is dear).
                    for (query,) in conn.execute(
                        "SELECT left(regexp_replace(b.query, '\\s+', ' ', 'g'), 90) "
                        "FROM pg_stat_activity w, unnest(pg_blocking_pids(w.pid)) AS h(pid) "
                        "JOIN pg_stat_activity b ON b.pid = h.pid "
                        "WHERE w.datname = %s AND w.wait_event_type = 'Lock'",
                        [self.database],
                    ).fetchall():
                        self.blockers[query or "?"] += 1
                time.sleep(0.005)

    @property
    def share(self) -> float:
        """The share of samples in which some backend waited on a lock."""
        return self.with_waits / self.samples if self.samples else 0.0

    def summary(self) -> str:
        if not self.samples:
            return "no samples"
        kinds = ", ".join(f"{event} {count}" for event, count in self.waiting.most_common())
        text = f"lock waits in {100 * self.share:.1f}% of {self.samples} samples"
        return text + (f" (backend-samples by lock: {kinds})" if kinds else "")

    def holders(self, top: int = 3) -> list[str]:
        return [f"{count:>6}  {query}" for query, count in self.blockers.most_common(top)]


def serve(env: dict[str, str], workers: int) -> subprocess.Popen[bytes]:
    server = start_server({**env, "WEB_CONCURRENCY": str(workers)})
    wait_ready(env["BASE"], server)
    return server


def start_worker(env: dict[str, str]) -> subprocess.Popen[bytes]:
    """`make worker` (the task worker and the schedule) beside the server, as production runs
    it: the answers' batches, the exams' refreshes, item statistics and refits run meanwhile."""
    return start_server(env, "worker")


def stop(server: subprocess.Popen[bytes]) -> None:
    os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(timeout=60)
    except subprocess.TimeoutExpired:  # sixteen workers on a busy machine can be slow to go
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(timeout=30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", help="a throwaway PostgreSQL database: it is wiped")
    parser.add_argument("--seconds", type=int, default=8, help="wrk duration per run")
    parser.add_argument("--answers", type=int, default=200, help="in-process answers per round")
    parser.add_argument("--skip-http", action="store_true")
    parser.add_argument(
        "--types-only",
        action="store_true",
        help="of the HTTP part, only the item types' answer POST against single-answer ones",
    )
    parser.add_argument(
        "--no-worker",
        action="store_true",
        help="measure with the worker stopped only (by default each quiz row runs twice: "
        "with the worker stopped, then with `make worker` running beside the server)",
    )
    parser.add_argument(
        "--redis-url",
        default="redis://127.0.0.1:6379/13",
        help="the shared cache of the production set-up (README): this Redis database is "
        "emptied; 'none' keeps the per-process cache, every page built once per process",
    )
    parser.add_argument(
        "--ports", type=int, nargs=2, default=[18200, 18299], help="the range to serve on"
    )
    parser.add_argument(
        "--conn-max-age", default="60", help="the site's CONN_MAX_AGE (0: a connection a request)"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--shared", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args)
        return 0
    if not args.database_url or not args.database_url.startswith("postgres"):
        parser.error("--database-url must name a throwaway PostgreSQL database")
    wrk = ensure_wrk()
    database = urllib.parse.urlsplit(args.database_url).path.lstrip("/")
    port = free_port(*args.ports)
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "courseiva.settings",
        "DATABASE_URL": args.database_url,
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1,testserver",
        "SESSION_COOKIE_SECURE": "0",
        "CSRF_COOKIE_SECURE": "0",
        "PORT": str(port),
        "HOST": "127.0.0.1",
        "ACCESS_LOG": "",
        "LOG_LEVEL": "WARNING",
        "UNSAFE_MAIL_TO_CONSOLE": "1",
        "BASE": f"http://127.0.0.1:{port}",
    }
    # The production set-up of the README: kept database connections and a shared cache.
    env["CONN_MAX_AGE"] = args.conn_max_age
    env.pop("CACHE_URL", None)
    if args.redis_url != "none":
        env["CACHE_URL"] = args.redis_url
        flush_redis(args.redis_url)
    base = env["BASE"]
    print(f"Answer-path benchmark on PostgreSQL ({database}), {os.cpu_count()} CPUs")
    reset_database(args.database_url)
    run_child(env, "seed")
    if args.redis_url != "none":
        run_child(env, "warm")

    figures = run_child(env, "inprocess", "--answers", str(args.answers))
    bare_ms, _ = figures["bare"]
    print(f"\n{'in-process, per answer':<32}{'ms':>8}{'queries':>9}{'x bare insert':>15}")
    for name, label in (("bare", "bare insert of the attempt"),
                        ("record", "record_attempt"),
                        ("post", "quiz POST (test client)"),
                        ("htmx", "quiz POST, htmx (test client)")):  # fmt: skip
        ms, queries = figures[name]
        print(f"{label:<32}{ms:>8.2f}{queries:>9.1f}{ms / bare_ms:>15.1f}")
    single_ms, _ = figures["type:single"]
    print(f"\n{'htmx quiz POST, right answer':<32}{'ms':>8}{'queries':>9}{'x single':>15}")
    for name in [n for n in figures if n.startswith("type:")]:
        ms, queries = figures[name]
        print(f"{name.removeprefix('type:'):<32}{ms:>8.2f}{queries:>9.1f}{ms / single_ms:>15.2f}")
    if args.skip_http:
        return 0

    with tempfile.TemporaryDirectory(prefix="courseiva-answer-") as tmp:
        workdir = Path(tmp)
        print(f"\n{'HTTP':<44}{'conns':>6}{'req/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'x healthz':>11}")

        def show(target: Target, connections: int, baseline: float | None) -> float:
            figures = run_wrk(wrk, base, target, connections, args.seconds, workdir)
            flag = f"  ({figures.errors} non-2xx!)" if figures.errors else ""
            ratio = figures.rps / baseline if baseline else 1.0
            print(
                f"{target.name:<44}{connections:>6}{figures.rps:>9,.0f}{figures.p50_ms:>9.1f}"
                f"{figures.p99_ms:>9.1f}{ratio:>11.3f}{flag}"
            )
            return figures.rps

        def quiz_target(name: str, shared: bool, threads: int, htmx: bool = False) -> Target:
            learners = run_child(env, "learners", *(["--shared"] if shared else []))
            return Target(name, "/", learners_script(base, learners[:threads], htmx))

        if args.types_only:
            server = serve(env, 4)
            try:
                typed_http(env, wrk, base, args, workdir)
            finally:
                stop(server)
            return 0
        server = serve(env, 4)
        try:
            paths = run_child(env, "sample")
            body, cookie = answer_request(base, paths[0])
            page = Target("visitor question page", paths[0], lua_rotate(paths))
            visitor_post = Target("visitor answer POST", paths[0], lua_post(body, cookie))
            for target in (Target("/healthz", "/healthz"), page, visitor_post):
                run_wrk(wrk, base, target, 8, 2, workdir)  # warm-up
            run_wrk(wrk, base, quiz_target("warm-up", False, 8), 8, 3, workdir, threads=8)
            healthz = show(Target("/healthz", "/healthz"), 16, None)
            show(page, 16, healthz)
            show(visitor_post, 16, healthz)
            # Without JavaScript the answer comes back as the whole page; the quiz page's own
            # form posts with htmx and gets the result part (and the quiz's header) only. Each
            # row runs with the worker stopped, then (unless --no-worker) with it running.
            columns = ["worker stopped"] + ([] if args.no_worker else ["worker running"])
            print(f"\n{'quiz answer POST':<34}" + "".join(f"{c:<38}" for c in columns))
            heading = "req/s  p99 ms  x healthz  lock waits"
            print(f"{'':<34}" + "".join(f"{heading:<38}" for _ in columns))
            holders: Counter[str] = Counter()
            for htmx in (False, True):
                for learners in (8, 32):
                    how = "htmx" if htmx else "whole page"
                    cells = []
                    for with_worker in (False, True) if not args.no_worker else (False,):
                        target = quiz_target(how, False, learners, htmx)
                        worker = start_worker(env) if with_worker else None
                        try:
                            if worker is not None:
                                time.sleep(3)  # started, and through the backlog's first batch
                            with LockSampler(args.database_url, database) as sampler:
                                figures = run_wrk(
                                    wrk, base, target, learners, args.seconds, workdir,
                                    threads=learners,
                                )  # fmt: skip
                        finally:
                            if worker is not None:
                                stop(worker)
                        if with_worker:
                            holders.update(sampler.blockers)
                        flag = "!" if figures.errors else " "
                        cells.append(
                            f"{figures.rps:>5,.0f}{figures.p99_ms:>8.0f}"
                            f"{figures.rps / healthz:>11.3f}{100 * sampler.share:>11.1f}%{flag}"
                        )
                    label = f"{how}, {learners} learners"
                    print(f"{label:<34}" + "".join(f"{cell:<38}" for cell in cells))
            if holders:
                print("   what the waiting answers waited for, with the worker running "
                      "(backend-samples, the holder's statement):")  # fmt: skip
                for query, count in holders.most_common(5):
                    print(f"   {count:>6}  {query}")
            typed_http(env, wrk, base, args, workdir)
        finally:
            stop(server)

        print(
            "\n16 workers, 32 learners at once"
            + (", the worker running:" if not args.no_worker else ":")
        )
        server = serve(env, 16)
        worker = start_worker(env) if not args.no_worker else None
        try:
            # Same, different, different, same: a machine whose load drifts during the four
            # runs weighs on both alike.
            rates: dict[bool, list[float]] = {True: [], False: []}
            for shared in (True, False, False, True):
                label = f"the same {SHARED} questions" if shared else "different questions"
                target = quiz_target(f"answering {label}", shared, LEARNERS)
                warm = quiz_target("warm-up", shared, LEARNERS)
                run_wrk(wrk, base, warm, LEARNERS, 2, workdir, threads=LEARNERS)
                with LockSampler(args.database_url, database) as sampler:
                    figures = run_wrk(
                        wrk, base, target, LEARNERS, args.seconds, workdir, threads=LEARNERS
                    )
                rates[shared].append(figures.rps)
                print_row(target.name, LEARNERS, figures, None)
                print(f"   {sampler.summary()}")
                for line in sampler.holders():
                    print(f"   {line}")
            same, different = (statistics.mean(rates[key]) for key in (True, False))
            print(f"   same / different questions (mean of two runs each): {same / different:.2f}")
        finally:
            if worker is not None:
                stop(worker)
            stop(server)
    refit = run_child(env, "refit")
    print(
        f"\nA refit on the site the runs left ({refit['answers']:,} answers of "
        f"{refit['learners']:,} learners): {refit['seconds']:.1f} s in all; its final "
        f"transaction kept the answers out for {refit['held_ms']:.0f} ms."
    )
    print(
        "\nTargets, with the worker running: quiz POST >= 0.075 x healthz, p99 <= 200 ms at 32 "
        "learners, lock waits in <= 2% of samples; record <= 8 queries and <= 5 x a bare "
        "insert; same and different questions within 10%; visitor page >= 0.5 and visitor POST "
        ">= 0.3 x healthz; every item type's answer within 10% of a single-answer one."
    )
    return 0


def typed_http(
    env: dict[str, str], wrk: str, base: str, args: argparse.Namespace, workdir: Path
) -> None:
    """The htmx quiz answer POST of every item type against single-answer ones through the
    server, TYPE_LEARNERS learners at once, the worker running beside it (unless --no-worker):
    the types in turn, then again in the reverse order, each type's two rates averaged, so
    that a load that drifts during the runs weighs on every type alike."""
    runs = run_child(env, "typed-learners")
    worker = start_worker(env) if not args.no_worker else None
    rates: dict[str, list[float]] = {kind: [] for kind in KINDS}
    p99: dict[str, list[float]] = {kind: [] for kind in KINDS}
    try:
        # Each type once untimed (its learners' first answers, the worker through the backlog
        # the runs before left), then the timed runs.
        for kind in KINDS:
            script = learners_script(base, runs[kind][2], htmx=True)
            run_wrk(
                wrk, base, Target(kind, "/", script), TYPE_LEARNERS, 2, workdir,
                threads=TYPE_LEARNERS,
            )  # fmt: skip
        for run, order in enumerate((KINDS, tuple(reversed(KINDS)))):
            for kind in order:
                script = learners_script(base, runs[kind][run], htmx=True)
                figures = run_wrk(
                    wrk, base, Target(kind, "/", script), TYPE_LEARNERS, args.seconds, workdir,
                    threads=TYPE_LEARNERS,
                )  # fmt: skip
                if figures.errors:
                    print(f"   {kind}: {figures.errors} non-2xx answers!")
                rates[kind].append(figures.rps)
                p99[kind].append(figures.p99_ms)
    finally:
        if worker is not None:
            stop(worker)
    single = statistics.mean(rates["single"])
    print(
        f"\nhtmx quiz POST by item type, {TYPE_LEARNERS} learners, "
        + ("the worker running" if worker is not None else "the worker stopped")
        + f"\n{'type':<16}{'req/s':>9}{'p99 ms':>9}{'x single':>10}   req/s of each run"
    )
    for kind in KINDS:
        rate = statistics.mean(rates[kind])
        runs = ", ".join(f"{r:,.0f}" for r in rates[kind])
        print(f"{kind:<16}{rate:>9,.0f}{max(p99[kind]):>9.1f}{single / rate:>10.2f}   {runs}")


def print_row(name: str, connections: int, figures: Any, healthz: float | None) -> None:
    flag = f"  ({figures.errors} non-2xx!)" if figures.errors else ""
    ratio = f"{figures.rps / healthz:>11.3f}" if healthz else f"{'':>11}"
    print(
        f"{name:<44}{connections:>6}{figures.rps:>9,.0f}{figures.p50_ms:>9.1f}"
        f"{figures.p99_ms:>9.1f}{ratio}{flag}"
    )


if __name__ == "__main__":
    raise SystemExit(main())
