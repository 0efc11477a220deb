"""HTTP benchmark of the public pages, against the production-like server (`make serve`).

    .venv/bin/python bench/http_pages.py [--questions 5000] [--seconds 5] [--repeat 3]
        [--database-url postgres://...] [--cache-url redis://...] [--port N] [--workers 3]

Seeds a throwaway SQLite database (or the database of --database-url, emptied first: give it
one of its own) with a generated bank, starts `make serve` on a free loopback port (or
--port; DEBUG off, gunicorn with --workers processes, no access log), and loads it with wrk
(Debian's package; installed with apt when missing and we are root) at 16 and 64
connections. For /healthz, the catalog, a topic page, question pages and the answer POST it
prints requests per second and p50/p99 latency, each with its ratio to /healthz measured in
the same run at the same concurrency: each page runs --repeat times, each time just after a
run of /healthz, and the table shows the medians and the range of the ratios. The signed-in
quiz answer POST and the mock-exam save run one learner per connection (a learner answers
one question at a time; one learner on every connection would measure their own rows'
locks). The server keeps its database connections (CONN_MAX_AGE=60, as in the README's
production set-up) and caches per process unless --cache-url names a Redis database
(emptied first). The machine is shared and noisy: read the ratios, not the absolute
figures. It only prints; it never fails on time.
"""

import argparse
import http.cookiejar
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import Any

PROJECT_ROOT = Path(__file__).resolve().parent.parent
BENCH_DIR = Path(__file__).resolve().parent
ROTATE = 100  # question pages cycled through, so that no single cached entry is measured
QUIZZES = 3  # one for the warm-up and one per connection count (16, 64)
QUIZ_LENGTH = 400  # more items than a learner answers in a run: each request records one


@dataclass
class Target:
    name: str
    path: str
    script: str = ""  # a wrk Lua script: rotating URLs or a POST
    per_learner: bool = False  # one learner per connection: as many wrk threads


@dataclass
class Figures:
    rps: float
    p50_ms: float
    p99_ms: float
    errors: int


def ensure_wrk() -> str:
    found = shutil.which("wrk")
    if found:
        return found
    if os.geteuid() == 0 and shutil.which("apt-get"):
        print("Installing wrk (Debian package)")
        apt = shutil.which("apt-get") or "apt-get"
        subprocess.run([apt, "install", "-y", "-qq", "wrk"], check=False, stdout=subprocess.DEVNULL)
        found = shutil.which("wrk")
    if not found:
        sys.exit("wrk is not installed: apt-get install wrk")
    return found


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def seed(env: dict[str, str], questions: int) -> None:
    """Migrate the throwaway database and import a generated bank, in a child process: the
    measuring process stays free of Django."""
    subprocess.run(
        [sys.executable, __file__, "--child", "seed", "--questions", str(questions)],
        env=env,
        cwd=PROJECT_ROOT,
        check=True,
    )


def child(action: str, questions: int, learners: int) -> None:
    """The parts that need Django, run in the server's environment."""
    sys.path[:0] = [str(PROJECT_ROOT), str(BENCH_DIR)]
    import django

    django.setup()
    from django.core.management import call_command
    from django.urls import reverse

    from questions.models import Question, Topic

    if action == "seed":
        from import_bank import make_document

        from questions.bank.document_import import import_document
        from questions.models import PageChange

        call_command("migrate", verbosity=0)
        call_command("flush", interactive=False, verbosity=0)  # a database given to us
        print("seeded:", "; ".join(import_document(make_document(questions)).lines()))
        # The import's change rows tell processes that were running then to drop their pages;
        # the server starts after it, with empty caches. Left in place, the rows of the last
        # seconds before it starts are read again at its first poll (the poll's overlap),
        # which would drop every cached page in the middle of a measured run.
        PageChange.objects.all().delete()
        return
    if action == "learner":
        print(json.dumps(make_learners(learners, QUIZZES)))
        return
    topic = Topic.objects.select_related("exam").order_by("position").first()
    assert topic is not None
    print(reverse("topic_detail", args=[topic.exam.slug, topic.slug]))
    for question in Question.objects.published().order_by("position")[:ROTATE]:
        print(question.get_absolute_url())


def signed_in_learner(username: str, email: str) -> tuple[Any, str]:
    """A new learner and the key of a session signed in as them, made directly: no password,
    whose hashing would cost seconds a learner, and no sign-in request."""
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY

    from progress.accounts.models import User
    from progress.accounts.sessions import SessionStore

    learner = User.objects.create_user(username, email)
    session = SessionStore()
    session[SESSION_KEY] = str(learner.pk)
    session[BACKEND_SESSION_KEY] = "progress.accounts.backends.UsernameOrEmailBackend"
    session[HASH_SESSION_KEY] = learner.get_session_auth_hash()
    session.create()
    assert session.session_key is not None
    return learner, session.session_key


def make_learners(count: int, quizzes: int) -> list[dict[str, object]]:
    """`count` signed-in learners (sessions made directly), each with `quizzes` quizzes over
    the whole bank (each item with the key of its correct option: every request of a quiz run
    answers a new item, so that each one records an attempt) and a mock exam in progress.
    One learner per connection: a learner answers one question at a time, and the rows of
    their own state are theirs to lock."""
    from progress.mocks.models import MockExam
    from progress.practice.models import Quiz
    from questions.models import Exam, Option

    exam = Exam.objects.get()
    correct = dict(Option.objects.filter(is_correct=True).values_list("question_id", "key"))
    learners: list[dict[str, object]] = []
    for n in range(count):
        learner, session_key = signed_in_learner(f"bench-learner-{n}", f"bench{n}@example.com")
        runs = []
        for _ in range(quizzes):
            quiz = Quiz.objects.start(
                learner=learner, exam=exam, topic=None, selection="any", length=QUIZ_LENGTH
            )
            assert quiz is not None
            items = quiz.items.order_by("position").values_list("position", "question_id")
            runs.append([quiz.code, [[pos + 1, correct[qid]] for pos, qid in items]])
        mock = MockExam.objects.start(learner=learner, exam=exam)
        first = mock.items.get(position=0)
        learners.append(
            {
                "session": session_key,
                "quizzes": runs,
                "mock": [mock.code, correct[first.question_id or 0]],
            }
        )
    return learners


def start_server(env: dict[str, str], target: str = "serve") -> subprocess.Popen[bytes]:
    """`make serve` (or another make target: `worker`) in the background, quiet."""
    return subprocess.Popen(
        ["make", "--no-print-directory", target],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # so that the whole gunicorn tree can be stopped at the end
    )


def flush_redis(url: str) -> None:
    """Empty the Redis database the run's cache uses, so that no page of an earlier run (or
    of another database) is read."""
    import redis

    try:
        redis.Redis.from_url(url, socket_timeout=5).flushdb()
    except redis.RedisError as error:
        sys.exit(f"{url}: {error} (start redis-server, or pass --redis-url none)")


def wait_ready(base: str, server: subprocess.Popen[bytes], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            sys.exit("`make serve` exited before it answered: run it by hand to see why")
        try:
            with urllib.request.urlopen(base + "/readyz", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    sys.exit(f"the server did not become ready within {timeout:.0f} s")


def run_child(env: dict[str, str], action: str, *extra: str) -> str:
    """Run one of this script's Django parts (`--child ACTION`) in the server's environment;
    its standard output."""
    return subprocess.run(
        [sys.executable, __file__, "--child", action, *extra],
        env=env,
        cwd=PROJECT_ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def sample_paths(env: dict[str, str]) -> tuple[str, list[str]]:
    """A topic page and ROTATE published question paths, read from the seeded database."""
    out = run_child(env, "sample").split()
    return out[0], out[1:]


def learner_quizzes(env: dict[str, str], count: int) -> list[dict[str, Any]]:
    return list(json.loads(run_child(env, "learner", "--learners", str(count))))


def learner_form(base: str, session: str, path: str) -> tuple[str, str]:
    """Open `path` as the signed-in learner, the way a browser would: (the form's CSRF token,
    the CSRF cookie)."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    request = urllib.request.Request(base + path, headers={"Cookie": f"sessionid={session}"})
    html = opener.open(request).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    csrf = next((c.value for c in jar if c.name == "csrftoken"), None)
    if not token or not csrf:
        sys.exit(f"could not open {path} as the learner: the benchmark would be wrong")
    return token.group(1), csrf


def per_learner_lua(rows: list[tuple[str, list[tuple[str, str]]]], htmx: bool = False) -> str:
    """A wrk script for one connection per thread (run wrk with as many threads as
    connections), thread n being learner n of `rows`: (its Cookie header, the (path, body)
    of each POST it sends in turn, starting again at the end). `htmx`: sent as the page's
    htmx form sends them (HX-Request), to which the site answers with the changed part."""
    learners = []
    for cookie, posts in rows:
        paths = ", ".join(f'"{path}"' for path, _ in posts)
        bodies = ", ".join(f'"{body}"' for _, body in posts)
        learners.append(f'{{cookie = "{cookie}", paths = {{{paths}}}, bodies = {{{bodies}}}}}')
    return (
        f"local learners = {{{', '.join(learners)}}}\n"
        "counter = 0\n"
        "function setup(thread) counter = counter + 1; thread:set('who', counter) end\n"
        "local me, i\n"
        "function init(args) me = learners[who]; i = 0 end\n"
        'wrk.method = "POST"\n'
        'wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"\n'
        + ('wrk.headers["HX-Request"] = "true"\n' if htmx else "")
        + "request = function()\n"
        "  i = i % #me.paths + 1\n"
        '  wrk.headers["Cookie"] = me.cookie\n'
        "  return wrk.format(nil, me.paths[i], nil, me.bodies[i])\nend\n"
    )


def learner_cookie(base: str, learner: dict[str, Any], path: str) -> tuple[str, str]:
    """(the Cookie header, the form's CSRF token) of `learner` on the form at `path`."""
    token, csrf = learner_form(base, learner["session"], path)
    return f"sessionid={learner['session']}; csrftoken={csrf}", token


def quiz_post_script(base: str, learners: list[dict[str, Any]], quiz: int) -> str:
    """Each learner answers the items of their quiz number `quiz` in turn."""
    rows = []
    for learner in learners:
        code, items = learner["quizzes"][quiz]
        cookie, token = learner_cookie(base, learner, f"/progress/quizzes/{code}/1/")
        posts = [
            (
                f"/progress/quizzes/{code}/{number}/",
                urllib.parse.urlencode({"csrfmiddlewaretoken": token, "choice": key}),
            )
            for number, key in items
        ]
        rows.append((cookie, posts))
    return per_learner_lua(rows)


def mock_save_script(base: str, learners: list[dict[str, Any]]) -> str:
    """Each learner saves the answer to question 1 of their mock exam, again and again
    (saving is idempotent: the answer can change until submission)."""
    rows = []
    for learner in learners:
        code, key = learner["mock"]
        cookie, token = learner_cookie(base, learner, f"/progress/mocks/{code}/1/")
        body = urllib.parse.urlencode({"csrfmiddlewaretoken": token, "choice": key, "go": "1"})
        rows.append((cookie, [(f"/progress/mocks/{code}/1/", body)]))
    return per_learner_lua(rows)


def answer_request(base: str, path: str) -> tuple[str, str]:
    """GET the question as a browser would, then build the POST of its first option: the
    body and the Cookie header. Checks that the POST really answers (200, a result)."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    html = opener.open(base + path).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    choice = re.search(r'name="choice" value="([^"]+)"', html)
    if not token or not choice:
        sys.exit(f"could not find the answer form on {path}")
    body = urllib.parse.urlencode(
        {"csrfmiddlewaretoken": token.group(1), "choice": choice.group(1)}
    )
    cookie = "; ".join(f"{c.name}={c.value}" for c in jar)
    check = urllib.request.Request(
        base + path, data=body.encode(), headers={"Cookie": cookie}, method="POST"
    )
    with opener.open(check) as response:
        if response.status != 200 or 'id="result"' not in response.read().decode():
            sys.exit("the answer POST did not return a result: the benchmark would be wrong")
    return body, cookie


def lua_rotate(paths: list[str]) -> str:
    items = ", ".join(f'"{p}"' for p in paths)
    return (
        f"local paths = {{{items}}}\nlocal i = 0\n"
        "request = function()\n  i = i % #paths + 1\n"
        "  return wrk.format('GET', paths[i])\nend\n"
    )


def lua_post(body: str, cookie: str) -> str:
    return (
        'wrk.method = "POST"\n'
        f'wrk.body = "{body}"\n'
        'wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"\n'
        f'wrk.headers["Cookie"] = "{cookie}"\n'
    )


def to_ms(value: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+)(us|ms|s)", value).groups()  # type: ignore[union-attr]
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def run_wrk(
    wrk: str,
    base: str,
    target: Target,
    connections: int,
    seconds: int,
    workdir: Path,
    threads: int = 2,
) -> Figures:
    command = [
        wrk,
        f"-t{threads}",
        f"-c{connections}",
        f"-d{seconds}s",
        "--latency",
        "--timeout",
        "10s",
    ]
    if target.script:
        script = workdir / f"{re.sub(r'\\W+', '-', target.name)}.lua"
        script.write_text(target.script)
        command += ["-s", str(script)]
    out = subprocess.run(
        [*command, base + target.path], capture_output=True, text=True, check=True
    ).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]
    p50 = to_ms(re.search(r"\s50%\s+(\S+)", out).group(1))  # type: ignore[union-attr]
    p99 = to_ms(re.search(r"\s99%\s+(\S+)", out).group(1))  # type: ignore[union-attr]
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    socket_errors = re.search(r"Socket errors: (.*)", out)
    count = int(errors.group(1)) if errors else 0
    if socket_errors:
        print(f"   note: {target.name} at {connections}: socket errors {socket_errors.group(1)}")
    return Figures(rps, p50, p99, count)


def print_row(name: str, connections: int, pairs: list[tuple[Figures, Figures]]) -> None:
    """One line of the table: the medians of the target's runs, and of its ratios to the
    /healthz run just before each (with their range)."""
    runs = [figures for _, figures in pairs]
    # /healthz itself can time out whole on a saturated machine: no ratio then.
    ratios = [figures.rps / base.rps for base, figures in pairs if base.rps]
    errors = sum(figures.errors for figures in runs)
    spread = (
        f"{min(ratios):.2f}-{max(ratios):.2f}"
        if min(ratios, default=1) < max(ratios, default=1)
        else ""
    )
    print(
        f"{name:<32}{connections:>6}{median(f.rps for f in runs):>10,.0f}"
        f"{median(f.p50_ms for f in runs):>9.2f}{median(f.p99_ms for f in runs):>9.2f}"
        f"{median(ratios) if ratios else float('nan'):>11.2f}{spread:>13}"
        + (f"  ({errors} non-2xx!)" if errors else "")
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=5000, help="bank size (default 5000)")
    parser.add_argument("--seconds", type=int, default=5, help="wrk duration per run")
    parser.add_argument("--connections", type=int, nargs="+", default=[16, 64])
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="runs of each page, each after its own /healthz run (default 3; medians shown)",
    )
    parser.add_argument(
        "--database-url", help="a database to empty and use (default: a throwaway SQLite file)"
    )
    parser.add_argument("--port", type=int, help="the server's port (default: a free one)")
    parser.add_argument(
        "--workers", type=int, default=3, help="gunicorn processes (default 3, make serve's)"
    )
    parser.add_argument(
        "--cache-url",
        default="locmem://",
        help="the site's CACHE_URL (default per process; production shares redis://...)",
    )
    parser.add_argument("--child", choices=["seed", "sample", "learner"], help=argparse.SUPPRESS)
    parser.add_argument("--learners", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.questions, args.learners)
        return 0
    if args.questions < ROTATE or args.seconds < 1 or args.repeat < 1:
        parser.error(f"--questions must be at least {ROTATE}, --seconds and --repeat at least 1")
    wrk = ensure_wrk()
    with tempfile.TemporaryDirectory(prefix="courseiva-http-") as tmp:
        workdir = Path(tmp)
        port = args.port or free_port()
        base = f"http://127.0.0.1:{port}"
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "courseiva.settings",
            "DATABASE_URL": args.database_url or f"sqlite:///{workdir / 'bench.sqlite3'}",
            "DEBUG": "0",
            "SECRET_KEY": secrets.token_urlsafe(50),
            "ALLOWED_HOSTS": "127.0.0.1",
            "SESSION_COOKIE_SECURE": "0",
            "CSRF_COOKIE_SECURE": "0",
            "PORT": str(port),
            "HOST": "127.0.0.1",
            "ACCESS_LOG": "",
            "LOG_LEVEL": "WARNING",
            "UNSAFE_MAIL_TO_CONSOLE": "1",  # a throwaway site that sends no mail
            # Kept connections, as the README's production set-up has them: a connection
            # opened per request would be measured instead of the page.
            "CONN_MAX_AGE": "60",
            "CACHE_URL": args.cache_url,
            "WEB_CONCURRENCY": str(args.workers),
        }
        if args.cache_url.startswith("redis"):
            flush_redis(args.cache_url)  # no page of an earlier run's bank is read
        print(
            f"HTTP benchmark: {args.questions:,} questions, wrk {args.seconds} s per run, "
            f"connections {args.connections}, {args.workers} workers, {os.cpu_count()} CPUs, "
            f"{env['DATABASE_URL'].split(':', 1)[0]}"
        )
        seed(env, args.questions)
        server = start_server(env)
        try:
            wait_ready(base, server)
            topic_path, question_paths = sample_paths(env)
            body, cookie = answer_request(base, question_paths[0])
            targets = [
                Target("/healthz", "/healthz"),
                Target("catalog /", "/"),
                Target("topic page", topic_path),
                Target(
                    f"question page ({len(question_paths)} rotating)",
                    question_paths[0],
                    lua_rotate(question_paths),
                ),
                Target("answer POST", question_paths[0], lua_post(body, cookie)),
            ]
            learners = learner_quizzes(env, max([8, *args.connections]))

            def quiz_target(quiz: int) -> Target:
                script = quiz_post_script(base, learners, quiz)
                return Target("quiz answer POST (signed in)", "/", script, per_learner=True)

            quiz_targets = [quiz_target(quiz) for quiz in range(QUIZZES)]
            run_wrk(wrk, base, quiz_targets[0], 8, 2, workdir, threads=8)
            targets.append(
                Target(
                    "save a mock-exam answer",
                    "/",
                    mock_save_script(base, learners),
                    per_learner=True,
                )
            )
            # Warm every process's cache and Python, as a server in service would be.
            for target in targets:
                run_wrk(wrk, base, target, 8, 4, workdir, threads=8 if target.per_learner else 2)
            print(
                f"\n{'endpoint':<32}{'conns':>6}{'req/s':>10}{'p50 ms':>9}{'p99 ms':>9}"
                f"{'x healthz':>11}{'range':>13}"
            )
            for run, connections in enumerate(args.connections):
                health, healthz = targets[0], []
                rows = []
                for target in [*targets[1:], quiz_targets[1 + run % (QUIZZES - 1)]]:
                    threads = connections if target.per_learner else 2
                    pairs = []
                    # /healthz just before each run of the target: the machine's speed drifts
                    # over minutes, and each ratio is taken at one moment.
                    for _ in range(args.repeat):
                        base_figures = run_wrk(
                            wrk, base, health, connections, args.seconds, workdir
                        )
                        figures = run_wrk(
                            wrk, base, target, connections, args.seconds, workdir, threads=threads
                        )
                        healthz.append(base_figures)
                        pairs.append((base_figures, figures))
                    rows.append((target, pairs))
                print_row(health.name, connections, [(figures, figures) for figures in healthz])
                for target, pairs in rows:
                    print_row(target.name, connections, pairs)
            print(
                "\nTargets: question page >= 0.5 x healthz, answer POST >= 0.3 x healthz, "
                "catalog and topic page >= 0.3 x healthz, saving a mock-exam answer >= 0.2."
            )
            print(
                "The quiz answer POST records an attempt on every request (a new item each); it"
                " and the mock save run one learner per connection."
            )
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
