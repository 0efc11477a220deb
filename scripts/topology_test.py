"""Several app servers, one database: the drill behind `make topology-test`.

    .venv/bin/python scripts/topology_test.py [--port-base 18100]

Starts on loopback, in a temporary directory: a private PostgreSQL cluster (Debian's binaries),
a `redis-server` without persistence, two `make serve` nodes sharing them (CACHE_URL), the
worker (`make worker`) and nginx as the load balancer, rendered from deploy/nginx.conf.template
(redis-server and nginx are installed with apt when missing and we are root). Then, through
the proxy and each node directly, with the demo bank and the demo users of `seed_demo`:

1. an admin's edit to a question shows on both nodes on the next request;
2. a learner whose requests alternate between the nodes keeps their session, quiz and mock
   exam timer;
3. one node killed in the middle of quizzes: every answer recorded once, none twice;
4. PostgreSQL stopped (as a crash: no checkpoint) and started under load: errors only while it
   is down, the recovery time, every answer that got a 2xx recorded, the quiz counters equal
   to their answers and the readiness rebuilt from the answers equal to the stored one;
5. redis-server stopped under load: every page keeps working from the database.

It prints one summary line with the figures and exits non-zero when a check fails. The load is
modest (a few learners answering as fast as the nodes reply) and every loop is bounded in time.
"""

import argparse
import html
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from topology_parts import (
    MAKE,
    QUIZ_LENGTH,
    ROOT,
    Browser,
    DrillError,
    FormFields,
    Load,
    Outcome,
    Ports,
    Postgres,
    Process,
    Reply,
    answer_of,
    answers,
    ensure_packages,
    find_binary,
    form_data,
    nginx_config,
    redis_answers,
    say,
    seconds_left,
    shown_answer,
    wait_until,
)

PYTHON = str(ROOT / ".venv" / "bin" / "python")
# Variables of the developer's shell that must not leak into the nodes' settings.
UNWANTED = {
    "DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "DATABASE_URL", "CSRF_TRUSTED_ORIGINS", "CACHE_URL",
    "CONN_MAX_AGE", "EMAIL_URL", "SITE_URL", "FORCE_SCRIPT_NAME", "SECURE_SSL_REDIRECT",
    "SECURE_HSTS_SECONDS", "SECURE_HSTS_INCLUDE_SUBDOMAINS", "SECURE_HSTS_PRELOAD",
    "DJANGO_ALLOW_ASYNC_UNSAFE", "PYTEST_ADDOPTS", "PORT", "HOST", "WEB_CONCURRENCY",
    "TRUSTED_PROXIES", "FORWARDED_ALLOW_IPS",
}  # fmt: skip
MARKER = "Edited in the topology drill"


# The Django side, run in a child process in the nodes' environment --------------------------


def child(action: str) -> None:
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    if action == "question":
        from questions.models import Exam, Question

        exam = Exam.objects.filter(mock_question_count__isnull=False).order_by("position").first()
        assert exam is not None, "the demo bank has an exam with a mock exam"
        question = Question.objects.published().filter(topic__exam=exam).order_by("uid").first()
        assert question is not None
        print(
            json.dumps({"pk": question.pk, "url": question.get_absolute_url(), "exam": exam.slug})
        )
    elif action == "audit":
        print(json.dumps(audit(json.loads(sys.stdin.read()))))
    elif action == "tasks":
        from django_tasks_db.models import DBTaskResult

        print(
            json.dumps(
                dict(
                    DBTaskResult.objects.values_list("status")
                    .annotate(n=django.db.models.Count("id"))
                    .values_list("status", "n")
                )
            )
        )


def audit(answered: list[list[Any]]) -> dict[str, Any]:
    """What the database holds of the quizzes that `answered` lists (quiz code, item number)
    as answered with a 2xx: which of those have no attempt, which items have more than one,
    which quizzes' counters differ from their attempts; and whether a rebuild of the readiness
    state from the attempts gives the stored state."""
    import io

    from django.core.management import call_command
    from django.db.models import Count

    from progress.practice.models import Attempt, Quiz

    codes = sorted({code for code, _ in answered})
    per_item = {
        (code, position): n
        for code, position, n in Attempt.objects.filter(quiz_item__quiz__code__in=codes)
        .values("quiz_item__quiz__code", "quiz_item__position")
        .annotate(n=Count("id"))
        .values_list("quiz_item__quiz__code", "quiz_item__position", "n")
    }
    missing = [[code, n] for code, n in answered if per_item.get((code, n - 1), 0) == 0]
    doubled = [[code, pos + 1] for (code, pos), n in per_item.items() if n > 1]
    counters = [
        code
        for code, answered_count in Quiz.objects.filter(code__in=codes).values_list(
            "code", "answered_count"
        )
        if answered_count != sum(n for (c, _), n in per_item.items() if c == code)
    ]
    from progress.readiness.batches import apply_question_batch

    # Question difficulties move in the worker's batches: apply what is still waiting first,
    # or a batch landing between the two snapshots would tell them apart.
    apply_question_batch(Attempt.objects)
    before = readiness_snapshot()
    call_command("rebuild_readiness", "--no-fit", stdout=io.StringIO(), stderr=io.StringIO())
    after = readiness_snapshot()
    return {
        "attempts": sum(per_item.values()),
        "missing": missing,
        "doubled": doubled,
        "counters": counters,
        "readiness_rows": sum(len(part) for part in after),
        "readiness_equal": before == after,
    }


def readiness_snapshot() -> list[dict[str, Any]]:
    """Every stored readiness state, comparable (floats rounded past their noise)."""
    from progress.readiness.models import ExamAbility, QuestionReadiness, TopicReadiness

    def rounded(value: Any) -> Any:
        if isinstance(value, float):
            return round(value, 9)
        if isinstance(value, dict):
            return {k: rounded(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [rounded(v) for v in value]
        return value

    return [
        {
            f"{r.learner_id}/{r.exam_id}": rounded([r.state, r.answers, r.movers])
            for r in ExamAbility.objects.all()
        },
        {
            f"{r.learner_id}/{r.topic_id}": rounded(
                [r.state, r.answers, r.ability, r.variance, r.difficulty_sum]
            )
            for r in TopicReadiness.objects.all()
        },
        {
            str(r.question_id): rounded([r.difficulty, r.variance, r.answers, r.profile])
            for r in QuestionReadiness.objects.all()
        },
    ]


# The drill -----------------------------------------------------------------------------------


class Drill:
    def __init__(self, workdir: Path, ports: Ports) -> None:
        self.workdir, self.ports = workdir, ports
        self.proxy = f"http://127.0.0.1:{ports.proxy}"
        self.nodes = [f"http://127.0.0.1:{ports.node1}", f"http://127.0.0.1:{ports.node2}"]
        self.postgres = Postgres(workdir, ports.postgres)
        env = {key: value for key, value in os.environ.items() if key not in UNWANTED}
        self.env = {
            **env,
            "DJANGO_SETTINGS_MODULE": "courseiva.settings",
            "DEBUG": "0",
            "SECRET_KEY": secrets.token_urlsafe(50),
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "DATABASE_URL": f"postgres://postgres@127.0.0.1:{ports.postgres}/courseiva",
            "CACHE_URL": f"redis://127.0.0.1:{ports.redis}/0",
            "CONN_MAX_AGE": "60",
            # A throwaway site that sends no mail, over plain HTTP on loopback.
            "UNSAFE_MAIL_TO_CONSOLE": "1",
            "SESSION_COOKIE_SECURE": "0",
            "CSRF_COOKIE_SECURE": "0",
            # The proxy's address: the nodes take the client's from its X-Forwarded-For.
            "FORWARDED_ALLOW_IPS": "127.0.0.1",
            "TRUSTED_PROXIES": "127.0.0.1",
            "HOST": "127.0.0.1",
            "WEB_CONCURRENCY": "2",
            "LOG_LEVEL": "WARNING",
        }
        self.redis = Process(
            "redis",
            [
                find_binary("redis-server") or "redis-server",
                "--port",
                str(ports.redis),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            self.env,
            workdir / "redis.log",
        )
        self.web = [
            Process(
                f"node{n}",
                [MAKE, "--no-print-directory", "serve"],
                {**self.env, "PORT": str(port)},
                workdir / f"node{n}.log",
            )
            for n, port in ((1, ports.node1), (2, ports.node2))
        ]
        self.worker = Process(
            "worker", [MAKE, "--no-print-directory", "worker"], self.env, workdir / "worker.log"
        )
        self.nginx = Process(
            "nginx",
            [
                find_binary("nginx") or "nginx",
                "-e",
                str(workdir / "nginx-error.log"),
                "-c",
                str(nginx_config(workdir, ports)),
            ],
            self.env,
            workdir / "nginx.log",
        )
        self.figures: list[str] = []
        self.failures: list[str] = []
        self.passed = 0

    # Running it ----------------------------------------------------------------------------

    def check(self, condition: bool, failure: str) -> None:
        if condition:
            self.passed += 1
        else:
            self.failures.append(failure)
            say(f"FAILED: {failure}")

    def child(self, action: str, data: Any = None) -> Any:
        result = subprocess.run(
            [PYTHON, __file__, "--child", action],
            cwd=ROOT,
            env=self.env,
            check=False,
            capture_output=True,
            text=True,
            input=json.dumps(data) if data is not None else None,
        )
        if result.returncode != 0:
            raise DrillError(f"{action} failed: {result.stderr[-2000:]}")
        return json.loads(result.stdout.strip().splitlines()[-1])

    def start_node(self, index: int) -> float:
        node = self.web[index]
        node.start()

        def ready() -> bool:
            if not node.alive:
                raise DrillError(f"{node.name} exited:\n{node.tail()}")
            return answers(self.nodes[index] + "/readyz")

        return wait_until(ready, f"{node.name} did not answer")

    def set_up(self) -> dict[str, str]:
        say(f"PostgreSQL on {self.ports.postgres} ({self.postgres.bindir})")
        self.postgres.init()
        self.postgres.start()
        self.postgres.createdb("courseiva")
        self.redis.start()
        wait_until(lambda: redis_answers(self.ports.redis), "redis-server did not answer", 20)
        say("Migrating and loading the demo bank and users (seed_demo)")
        seed_env = {**self.env, "DEBUG": "1"}  # seed_demo makes the demo users with DEBUG on
        migrate = [PYTHON, "manage.py", "migrate", "--noinput", "-v0"]
        subprocess.run(migrate, cwd=ROOT, env=seed_env, check=True)
        seeded = subprocess.run(
            [PYTHON, "manage.py", "seed_demo", "--learners", "3"],
            cwd=ROOT,
            check=True,
            env=seed_env,
            capture_output=True,
            text=True,
        )
        passwords = dict(
            re.findall(r"^\s+(learner|admin|instructor)\s+(\S+)$", seeded.stdout, re.MULTILINE)
        )
        if {"learner", "admin"} - passwords.keys():
            raise DrillError(f"seed_demo printed no demo users:\n{seeded.stdout}")
        for index in (0, 1):  # one at a time: both run migrate and collectstatic first
            took = self.start_node(index)
            say(f"node{index + 1} (make serve) ready on {self.nodes[index]} in {took:.1f} s")
        self.worker.start()
        self.nginx.start()
        wait_until(lambda: answers(self.proxy + "/readyz"), "nginx did not answer", 20)
        say(f"worker started; nginx on {self.proxy}")
        return passwords

    def tear_down(self) -> None:
        for process in (self.nginx, self.worker, *self.web, self.redis):
            process.stop()
        self.postgres.stop()
        self.postgres.cleanup()

    # The checks ---------------------------------------------------------------------------

    def admin_edit(self, admin: Browser, question: dict[str, Any]) -> None:
        """1. An edit in the admin shows on both nodes on the next request."""
        visitor = Browser(self.proxy)
        for node in self.nodes:  # each node has the page cached before the edit
            self.check(
                visitor.request(question["url"], base=node).status == 200,
                f"the question page did not open on {node}",
            )
        change = f"/admin/questions/question/{question['pk']}/change/"
        form = admin.request(change)
        fields = FormFields("question_form")
        fields.feed(form.text)
        if form.status != 200 or not fields.fields:
            raise DrillError(f"the admin's change form did not open ({form.status})")
        marker = f"{MARKER} {secrets.token_hex(4)}."
        data = [
            (name, value + f"\n\n{marker}" if name == "stem" else value)
            for name, value in fields.fields
        ]
        saved = admin.request(change, {**form_data(data), "_save": "Save"})
        if saved.status != 302:
            errors = re.findall(r'class="errorlist[^"]*"[^>]*>(.*?)</ul>', saved.text, re.S)
            raise DrillError(f"the admin's edit was refused ({saved.status}): {errors[:3]}")
        seen = [
            marker in html.unescape(visitor.request(question["url"], base=node).text)
            for node in self.nodes
        ]
        self.check(all(seen), f"the edit showed on {sum(seen)} of 2 nodes")
        self.figures.append(f"admin edit seen on {sum(seen)}/2 nodes at the next request")

    def alternating_learner(self, learner: Browser, password: str, exam: str) -> None:
        """2. A learner whose requests alternate between the nodes keeps their session, quiz
        and mock timer."""
        a, b = self.nodes
        learner.request("/accounts/login/", base=a)
        signed = learner.request(
            "/accounts/login/", {"username": "learner", "password": password}, base=b
        )
        self.check(signed.status == 302, "sign-in with the form of one node on the other failed")
        home = learner.request("/progress/", base=a)
        self.check(home.status == 200, f"the session was not known to node1 ({home.status})")
        started = learner.request(
            "/progress/quizzes/start/",
            {"exam": exam, "topic": "", "length": QUIZ_LENGTH, "selection": "any"},
            base=b,
        )
        found = re.search(r"/progress/quizzes/([\w-]+)/1/$", started.location)
        if not found:
            raise DrillError(f"the quiz did not start ({started.status})")
        code, results = found.group(1), 0
        for number in range(1, int(QUIZ_LENGTH) + 1):
            page_node, post_node = (a, b) if number % 2 else (b, a)
            path = f"/progress/quizzes/{code}/{number}/"
            given = answer_of(learner.request(path, base=page_node).text)
            if not given:
                break
            reply = learner.request(path, given, base=post_node)
            results += reply.status == 200 and 'id="result"' in reply.text
        self.check(
            results == int(QUIZ_LENGTH),
            f"alternating nodes, {results} of {QUIZ_LENGTH} answers showed a result",
        )
        summary = learner.request(f"/progress/quizzes/{code}/", base=a)
        self.check("/summary/" in summary.location, "the answered quiz did not go to its summary")

        mock = learner.request(f"/progress/mock/{exam}/", {}, base=a)
        resume = learner.request(mock.location, base=b)
        first = learner.request(resume.location, base=a)
        left_a, seen_a = seconds_left(first.text), time.monotonic()
        time.sleep(2.2)
        again = learner.request(resume.location, base=b)
        left_b, seen_b = seconds_left(again.text), time.monotonic()
        # The time left went down by the time between the two pages, give or take how long
        # a busy machine took to answer them: a timer started again would read the full time.
        drift = abs((left_a - left_b) - (seen_b - seen_a))
        self.check(
            left_b < left_a and drift <= 5,
            f"the mock timer read {left_a} s then {left_b} s on the other node",
        )
        given = answer_of(again.text)
        saved = learner.request(resume.location, {**given, "go": "next"}, base=b)
        shown = shown_answer(learner.request(resume.location, base=a).text)
        self.check(
            saved.status == 302 and shown == {k: v for k, v in given.items() if v},
            "a mock answer saved on one node was not shown on the other",
        )
        self.figures.append(
            f"alternating learner kept session, quiz {results}/{QUIZ_LENGTH}, "
            f"mock timer ({left_a}->{left_b} s, drift {drift:.1f} s)"
        )

    def node_killed(self, browsers: list[Browser], exam: str) -> None:
        """3. Node 1 killed in the middle of quizzes: every answer recorded once."""
        lock = threading.Lock()
        answered: list[list[Any]] = []
        resent = [0]
        problems: list[str] = []
        third = threading.Event()

        def send(browser: Browser, path: str, data: dict[str, str] | None = None) -> Reply:
            # What a learner does when a page fails: try again (bounded).
            for _ in range(40):
                reply = browser.request(path, data)
                if reply.status not in {0, 502, 503, 504}:
                    return reply
                with lock:
                    resent[0] += 1
                time.sleep(0.25)
            return reply

        def learner(browser: Browser) -> None:
            started = send(
                browser,
                "/progress/quizzes/start/",
                {"exam": exam, "topic": "", "length": QUIZ_LENGTH, "selection": "any"},
            )
            found = re.search(r"/progress/quizzes/([\w-]+)/1/$", started.location)
            if not found:
                problems.append(f"a quiz did not start: {started.status}")
                return
            for number in range(1, int(QUIZ_LENGTH) + 1):
                path = f"/progress/quizzes/{found.group(1)}/{number}/"
                page = send(browser, path)
                given = answer_of(page.text)
                if not given:
                    problems.append(f"{path} showed no question ({page.status})")
                    continue
                reply = send(browser, path, given)
                if reply.status == 200 and 'id="result"' in reply.text:
                    with lock:
                        answered.append([found.group(1), number])
                        if len(answered) >= len(browsers) * 3:
                            third.set()
                else:
                    problems.append(f"{path} answered {reply.status} without a result")

        threads = [threading.Thread(target=learner, args=(b,), daemon=True) for b in browsers]
        for thread in threads:
            thread.start()
        third.wait(60)
        self.web[0].stop(signal.SIGKILL)
        say(f"node1 killed after {len(answered)} answers")
        for thread in threads:
            thread.join(180)
        expected = len(browsers) * int(QUIZ_LENGTH)
        self.check(
            len(answered) == expected,
            f"{len(answered)} of {expected} answers got a result: {problems[:5]}",
        )
        found = self.child("audit", answered)
        self.check(not found["missing"], f"answers lost: {found['missing']}")
        self.check(not found["doubled"], f"answers counted twice: {found['doubled']}")
        self.check(not found["counters"], f"quiz counters off: {found['counters']}")
        self.figures.append(
            f"node killed mid-quiz: {len(answered) - len(found['missing'])}/{expected} answers "
            f"recorded, {len(found['doubled'])} twice, {resent[0]} requests resent"
        )
        took = self.start_node(0)
        say(f"node1 started again in {took:.1f} s")

    def postgres_restart(self, load: Load) -> None:
        """4. PostgreSQL crashed and started under load."""
        load.start()
        wait_until(lambda: load.answered_ok() >= 10, "the load answered nothing", 60)
        stopped = time.monotonic()
        self.postgres.crash()
        say("PostgreSQL stopped (immediate: as a crash)")
        time.sleep(3)
        starting = time.monotonic()
        self.postgres.start()
        up = time.monotonic()

        def answered_since_up() -> bool:
            with load.lock:
                return any(
                    o.kind == "answer" and o.status == 200 and o.started >= up
                    for o in load.outcomes
                )

        wait_until(answered_since_up, "no answer was recorded after PostgreSQL started", 60)
        recovered = min(
            o.ended
            for o in load.outcomes
            if o.kind == "answer" and o.status == 200 and o.started >= up
        )
        time.sleep(3)
        load.finish()
        errors = [o for o in load.outcomes if not 200 <= o.status < 400]
        outside = [o for o in errors if o.ended < stopped or o.started > recovered]
        self.check(
            not outside,
            f"{len(outside)} errors outside the outage: {sorted({o.status for o in outside})}",
        )
        answered = [
            [o.quiz, o.number] for o in load.outcomes if o.kind == "answer" and o.status == 200
        ]
        found = self.child("audit", answered)
        self.check(not found["missing"], f"2xx answers not recorded: {found['missing']}")
        self.check(not found["doubled"], f"answers counted twice: {found['doubled']}")
        self.check(not found["counters"], f"quiz counters differ from answers: {found['counters']}")
        self.check(found["readiness_equal"], "the readiness rebuilt from the answers differs")
        self.figures.append(
            f"PostgreSQL down {starting - stopped:.1f} s + {up - starting:.1f} s of crash "
            f"recovery: {len(errors)} errors, {len(outside)} outside the outage; first answer "
            f"{recovered - up:.1f} s after it accepted connections; "
            f"{len(answered) - len(found['missing'])}/{len(answered)} 2xx answers recorded, "
            f"{len(found['doubled'])} twice; readiness rebuilt "
            f"{'=' if found['readiness_equal'] else '!='} stored ({found['readiness_rows']} rows)"
        )

    def timed_sign_in(self, password: str) -> tuple[bool, float]:
        """A learner signing in through the proxy and opening their progress page: whether
        it worked, and how long it took."""
        started = time.monotonic()
        fresh = Browser(self.proxy)
        fresh.sign_in("learner", password)
        signed_in = fresh.request("/progress/").status == 200
        return signed_in, time.monotonic() - started

    def redis_stopped(self, load: Load, password: str) -> None:
        """5. redis-server stopped under load: the pages keep working from the database."""
        load.start()
        wait_until(lambda: load.answered_ok() >= 10, "the load answered nothing", 60)
        _, sign_in_before = self.timed_sign_in(password)
        self.redis.stop()
        stopped = time.monotonic()
        say("redis-server stopped")
        time.sleep(1)
        signed_in, sign_in_took = self.timed_sign_in(password)
        time.sleep(3)
        self.redis.start()
        back = time.monotonic()
        wait_until(lambda: redis_answers(self.ports.redis), "redis-server did not start", 20)
        time.sleep(2)
        load.finish()
        during = [o for o in load.outcomes if stopped <= o.started <= back]
        errors = [o for o in load.outcomes if not 200 <= o.status < 400]
        self.check(signed_in, "signing in failed while Redis was down")
        self.check(
            not errors,
            f"{len(errors)} errors with Redis down or back: {sorted({o.status for o in errors})}",
        )
        self.check(len(during) > 0, "no request was made while Redis was down")
        before = [o for o in load.outcomes if o.ended < stopped]
        self.figures.append(
            f"Redis down {back - stopped:.1f} s: {len(during)} requests, "
            f"{sum(1 for o in during if not 200 <= o.status < 400)} errors, median "
            f"{median(during):.2f} s (before: {median(before):.2f} s), a sign-in "
            f"{sign_in_took:.2f} s (before: {sign_in_before:.2f} s)"
        )

    def worker_works(self, learner: Browser) -> None:
        """After both outages the worker still runs what the site queues (a reset mail)."""
        before = self.child("tasks").get("SUCCESSFUL", 0)
        learner.request("/accounts/password_reset/")
        sent = learner.request("/accounts/password_reset/", {"email": "learner@example.com"})
        self.check(sent.status == 302, f"the password reset was refused ({sent.status})")
        took = wait_until(
            lambda: self.child("tasks").get("SUCCESSFUL", 0) > before,
            "the worker ran no task queued after the outages",
            90,
        )
        self.figures.append(f"worker ran a task queued after the outages in {took:.1f} s")

    def run(self) -> None:
        passwords = self.set_up()
        question = self.child("question")
        admin = Browser(self.proxy)
        admin.sign_in("admin", passwords["admin"])
        self.admin_edit(admin, question)
        self.alternating_learner(Browser(self.proxy), passwords["learner"], question["exam"])

        def learners(count: int) -> list[Browser]:
            browsers = [Browser(self.proxy) for _ in range(count)]
            for browser in browsers:
                browser.sign_in("learner", passwords["learner"])
                browser.request("/progress/")
            return browsers

        self.node_killed(learners(4), question["exam"])
        self.postgres_restart(Load(learners(4), question["exam"], question["url"]))
        self.redis_stopped(
            Load(learners(4), question["exam"], question["url"]), passwords["learner"]
        )
        self.worker_works(Browser(self.proxy))


def median(outcomes: list[Outcome]) -> float:
    durations = sorted(o.ended - o.started for o in outcomes)
    return durations[len(durations) // 2] if durations else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port-base", type=int, help="use this port and the next four")
    parser.add_argument("--keep", action="store_true", help="keep the logs' directory")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child)
        return 0
    ensure_packages()
    began = time.monotonic()
    workdir = Path(tempfile.mkdtemp(prefix="courseiva-topology-"))
    drill = Drill(workdir, Ports.pick(args.port_base))
    try:
        drill.run()
    except (DrillError, subprocess.CalledProcessError) as error:
        drill.failures.append(str(error))
        say(f"FAILED: {error}")
    finally:
        drill.tear_down()
    took = time.monotonic() - began
    verdict = "FAILED" if drill.failures else "ok"
    print(
        f"topology {verdict}: 2 nodes + worker + nginx + PostgreSQL + Redis; "
        + "; ".join(drill.figures)
        + f"; {took:.0f} s"
    )
    if drill.failures:
        for log in sorted(workdir.glob("*.log")):
            tail = log.read_text(errors="replace").splitlines()[-15:]
            print(f"--- {log.name}\n" + "\n".join(tail))
    if drill.failures or args.keep:
        print(f"logs: {workdir}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    # The plain closing line that CI and a reader look for.
    print(f"topology: {drill.passed} passed, {len(drill.failures)} failed")
    return 1 if drill.failures else 0


if __name__ == "__main__":
    sys.exit(main())
