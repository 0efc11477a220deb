"""The pieces of the topology drill (scripts/topology_test.py): the services it starts on
loopback, a browser as far as the drill needs one, and the load it puts on the site."""

import http.client
import http.cookiejar
import os
import re
import shutil
import signal
import socket
import string
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
MAKE = shutil.which("make") or "make"
QUIZ_LENGTH = "10"


class DrillError(Exception):
    """A check failed: the message says which and how."""


def say(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


# Packages and ports -----------------------------------------------------------------------


def ensure_packages() -> None:
    """Debian's redis-server and nginx, installed with apt when missing and we are root (as
    scripts/ensure-chromium does for the browser)."""
    missing = [
        pkg
        for pkg, binary in (("redis-server", "redis-server"), ("nginx", "nginx"))
        if not find_binary(binary)
    ]
    if not missing:
        return
    apt = shutil.which("apt-get")
    if os.geteuid() != 0 or apt is None:
        sys.exit(f"missing {', '.join(missing)}: sudo apt-get install {' '.join(missing)}")
    say(f"Installing {', '.join(missing)} (apt-get)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run([apt, "update", "-qq"], check=False, env=env, stdout=subprocess.DEVNULL)
    subprocess.run(
        [apt, "install", "-y", "-qq", *missing], check=True, env=env, stdout=subprocess.DEVNULL
    )


def find_binary(name: str) -> str | None:
    return shutil.which(name) or next(
        (str(p) for p in (Path("/usr/sbin") / name, Path("/usr/bin") / name) if p.exists()), None
    )


def postgres_bindir() -> Path:
    """The newest Debian PostgreSQL's binaries (initdb is not on PATH there)."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    if found:
        return found[-1].parent
    initdb = shutil.which("initdb")
    if initdb:
        return Path(initdb).parent
    sys.exit("PostgreSQL's initdb is missing: apt-get install postgresql")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Ports:
    postgres: int
    redis: int
    node1: int
    node2: int
    proxy: int

    @classmethod
    def pick(cls, base: int | None) -> "Ports":
        if base is None:
            return cls(*(free_port() for _ in range(5)))
        return cls(base, base + 1, base + 2, base + 3, base + 4)


# The services -------------------------------------------------------------------------------


class Postgres:
    """A private cluster in its own directory; run as the postgres user when we are root
    (initdb refuses root)."""

    def __init__(self, workdir: Path, port: int) -> None:
        self.bindir = postgres_bindir()
        self.port = port
        self.as_user: list[str] = []
        if os.geteuid() == 0:
            runuser = shutil.which("runuser") or "/usr/sbin/runuser"
            self.as_user = [runuser, "-u", "postgres", "--"]
        # Its own directory under the system's temp dir: the postgres user must reach it.
        self.home = Path(tempfile.mkdtemp(prefix="courseiva-topology-pg-"))
        if self.as_user:
            shutil.chown(self.home, "postgres", "postgres")
        self.data = self.home / "data"
        self.log = workdir / "postgres.log"

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self.as_user, *args], check=check, capture_output=True, text=True, cwd=self.home
        )

    def init(self) -> None:
        self._run(
            str(self.bindir / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "postgres",
            "--auth=trust",
            "--no-sync",
            "-E",
            "UTF8",
        )

    def start(self) -> None:
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''"
        result = self._run(
            str(self.bindir / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.home / "server.log"),
            "-o",
            options,
            "-w",
            "start",
            check=False,
        )
        if result.returncode != 0:
            raise DrillError(f"PostgreSQL did not start: {result.stderr or result.stdout}")

    def crash(self) -> None:
        """Stop as a crash would: no checkpoint, the next start replays the WAL."""
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")

    def stop(self) -> None:
        self._run(
            str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "fast", "stop", check=False
        )

    def createdb(self, name: str) -> None:
        self._run(
            str(self.bindir / "createdb"),
            "-h",
            "127.0.0.1",
            "-p",
            str(self.port),
            "-U",
            "postgres",
            name,
        )

    def cleanup(self) -> None:
        with suppress(OSError):
            self.log.write_text((self.home / "server.log").read_text())
        shutil.rmtree(self.home, ignore_errors=True)


class Process:
    """A child in its own session, so that the whole tree (make, gunicorn and its workers) can
    be stopped at once; its output goes to a log file."""

    def __init__(self, name: str, command: list[str], env: dict[str, str], log: Path) -> None:
        self.name, self.command, self.env, self.log = name, command, env, log
        self.popen: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.popen = subprocess.Popen(
                self.command,
                cwd=ROOT,
                env=self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    @property
    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 20) -> None:
        if self.popen is None:
            return
        with suppress(ProcessLookupError):
            os.killpg(self.popen.pid, sig)
        try:
            self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            with suppress(ProcessLookupError):
                os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait(10)
        # Anything of the group still running (a worker the parent left behind).
        with suppress(ProcessLookupError):
            os.killpg(self.popen.pid, signal.SIGKILL)

    def tail(self, lines: int = 15) -> str:
        with suppress(OSError):
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])
        return ""


def wait_until(check: Callable[[], bool], what: str, timeout: float = 120) -> float:
    """Poll `check` until it holds; the seconds it took."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if check():
            return time.monotonic() - started
        time.sleep(0.2)
    raise DrillError(f"{what} within {timeout:.0f} s")


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:  # noqa: S310 - loopback
            return bool(response.status == 200)
    except (OSError, urllib.error.HTTPError):
        return False


def nginx_config(workdir: Path, ports: Ports) -> Path:
    """The repository's nginx snippet, rendered as the nginx image renders it, inside a main
    configuration that keeps every file of nginx's in the temporary directory."""
    snippet = string.Template((ROOT / "deploy" / "nginx.conf.template").read_text())
    rendered = workdir / "courseiva.conf"
    rendered.write_text(
        snippet.safe_substitute(
            WEB_1=f"127.0.0.1:{ports.node1}",
            WEB_2=f"127.0.0.1:{ports.node2}",
            PROXY_LISTEN=f"127.0.0.1:{ports.proxy}",
        )
    )
    main = workdir / "nginx.conf"
    temp = workdir / "nginx-temp"
    temp.mkdir()
    main.write_text(
        f"daemon off;\nworker_processes 1;\npid {workdir / 'nginx.pid'};\n"
        f"error_log {workdir / 'nginx-error.log'} warn;\n"
        "events { worker_connections 512; }\n"
        "http {\n"
        '  log_format timed \'$remote_addr [$time_local] "$request" $status '
        "$request_time $upstream_addr';\n"
        f"  access_log {workdir / 'nginx-access.log'} timed;\n"
        + "".join(
            f"  {kind}_temp_path {temp / kind};\n"
            for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
        )
        + f"  include {rendered};\n}}\n"
    )
    return main


# A browser, as far as the drill needs one --------------------------------------------------


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


@dataclass
class Reply:
    status: int
    text: str
    location: str = ""

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 400


TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


class Browser:
    """One learner's or admin's browser: cookies (shared by every port of 127.0.0.1, as a
    browser's are), the last CSRF token seen, no automatic redirects."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.jar), NoRedirect()
        )
        self.token = ""

    def request(
        self, path: str, data: dict[str, Any] | None = None, base: str | None = None
    ) -> Reply:
        url = (base or self.base) + path
        body = None
        if data is not None:
            body = urllib.parse.urlencode({"csrfmiddlewaretoken": self.token, **data}, doseq=True)
        request = urllib.request.Request(url, data=body.encode() if body else None)  # noqa: S310 - loopback
        try:
            with self.opener.open(request, timeout=30) as response:
                reply = Reply(response.status, response.read().decode(errors="replace"))
        except urllib.error.HTTPError as error:
            reply = Reply(
                error.code, error.read().decode(errors="replace"), error.headers.get("Location", "")
            )
        except (OSError, http.client.HTTPException) as error:
            # Refused, reset, or a body cut short by a node killed after its headers went out
            # (IncompleteRead: no proxy can mend that one): what a browser shows as a failed
            # page, which the learner loads again.
            reply = Reply(0, str(error))
        found = TOKEN.search(reply.text)
        if found:
            self.token = found.group(1)
        return reply

    def sign_in(self, username: str, password: str, base: str | None = None) -> None:
        self.request("/accounts/login/", base=base)
        reply = self.request(
            "/accounts/login/", {"username": username, "password": password}, base=base
        )
        if reply.status != 302:
            raise DrillError(f"{username} could not sign in: {reply.status}")


class FormFields(HTMLParser):
    """What a browser would post from the form with id `form_id`: every named input, textarea
    and select, checkboxes and radios only when checked, without the inlines' empty
    templates (their names hold __prefix__)."""

    def __init__(self, form_id: str) -> None:
        super().__init__(convert_charrefs=True)
        self.form_id = form_id
        self.inside = False
        self.fields: list[tuple[str, str]] = []
        self._textarea: str | None = None
        self._text: list[str] = []
        self._select: str | None = None
        self._options: list[tuple[str, bool]] = []
        self._multiple = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {key: value or "" for key, value in attrs}
        if tag == "form":
            self.inside = a.get("id") == self.form_id
        if not self.inside or "disabled" in a:
            return
        name = a.get("name", "")
        if tag == "input" and name and "__prefix__" not in name:
            kind = a.get("type", "text")
            if kind in {"checkbox", "radio"}:
                if "checked" in a:
                    self.fields.append((name, a.get("value", "on")))
            elif kind not in {"submit", "button", "file", "image", "reset"}:
                self.fields.append((name, a.get("value", "")))
        elif tag == "textarea" and name and "__prefix__" not in name:
            self._textarea, self._text = name, []
        elif tag == "select" and name and "__prefix__" not in name:
            self._select, self._options, self._multiple = name, [], "multiple" in a
        elif tag == "option" and self._select is not None:
            self._options.append((a.get("value", ""), "selected" in a))

    def handle_data(self, data: str) -> None:
        if self._textarea is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.inside = False
        elif tag == "textarea" and self._textarea is not None:
            # A browser drops the newline that follows <textarea>.
            self.fields.append((self._textarea, "".join(self._text).removeprefix("\n")))
            self._textarea = None
        elif tag == "select" and self._select is not None:
            chosen = [value for value, selected in self._options if selected]
            if not chosen and not self._multiple and self._options:
                chosen = [self._options[0][0]]
            self.fields += [(self._select, value) for value in chosen]
            self._select = None


# The names of a question's answer inputs: an option of a choice question, then each type's
# parts (questions/pages/forms.py).
ANSWER_PREFIXES = ("choice", "place-", "match-", "yesno-", "gap-", "blank-")


class AnswerInputs(HTMLParser):
    """The answer inputs of a question page's form (class answer-form), in page order: each
    name's choices (radio, checkbox and option values but the empty "Choose…"), and what the
    page shows as given (checked, selected, typed)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.inside = False
        self.choices: dict[str, list[str]] = {}
        self.shown: dict[str, str] = {}
        self._select = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {key: value or "" for key, value in attrs}
        if tag == "form":
            self.inside = "answer-form" in a.get("class", "").split()
        name = a.get("name", "")
        if not self.inside:
            return
        if tag in ("input", "select") and name.startswith(ANSWER_PREFIXES):
            self.choices.setdefault(name, [])
            if tag == "select":
                self._select = name
            elif a.get("type") in ("radio", "checkbox"):
                self.choices[name].append(a.get("value", "on"))
                if "checked" in a:
                    self.shown[name] = a.get("value", "on")
            elif a.get("value"):
                self.shown[name] = a["value"]
        elif tag == "option" and self._select and a.get("value"):
            self.choices[self._select].append(a["value"])
            if "selected" in a:
                self.shown[self._select] = a["value"]

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.inside = False
        elif tag == "select":
            self._select = ""


def answer_of(page: str) -> dict[str, str]:
    """An answer to the question `page` shows, of whatever type, right or wrong, that its
    form accepts: the first option; the steps in the order shown; the pool's answers in
    turn; Yes; every drop-down's first choice; 1 in every blank. Empty when the page shows no
    question."""
    inputs = AnswerInputs()
    inputs.feed(page)
    answer, placed, matched = {}, 0, 0
    for name, choices in inputs.choices.items():
        if name.startswith("blank-"):
            answer[name] = "1"
        elif name.startswith("place-"):
            # Every place gets a step; steps past the places stay out of the order.
            answer[name] = choices[placed] if placed < len(choices) else ""
            placed += 1
        elif name.startswith("match-") and choices:
            # Each answer of the pool once, as long as the pool lasts.
            answer[name] = choices[matched % len(choices)]
            matched += 1
        elif choices:
            answer[name] = choices[0]
    return answer


def shown_answer(page: str) -> dict[str, str]:
    """The answer `page` shows as given (a saved mock answer)."""
    inputs = AnswerInputs()
    inputs.feed(page)
    return inputs.shown


def seconds_left(page: str) -> int:
    found = re.search(r'data-seconds-left="(\d+)"', page)
    if not found:
        raise DrillError("the mock exam page shows no timer")
    return int(found.group(1))


# The load ------------------------------------------------------------------------------------


@dataclass
class Outcome:
    started: float
    ended: float
    status: int
    kind: str  # "answer", "page", "resume", "start"
    quiz: str = ""
    number: int = 0


@dataclass
class Load:
    """Learners answering quizzes through the proxy as fast as it replies, each answer
    preceded by the question's page, until stopped; every request's outcome is kept."""

    browsers: list[Browser]
    exam: str
    public_path: str
    outcomes: list[Outcome] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    threads: list[threading.Thread] = field(default_factory=list)

    def _keep(self, started: float, reply: Reply, kind: str, quiz: str = "", n: int = 0) -> None:
        with self.lock:
            self.outcomes.append(Outcome(started, time.monotonic(), reply.status, kind, quiz, n))

    def _learner(self, browser: Browser) -> None:
        quiz = ""
        while not self.stop.is_set():
            started = time.monotonic()
            if not quiz:
                reply = browser.request(
                    "/progress/quizzes/start/",
                    {"exam": self.exam, "topic": "", "length": QUIZ_LENGTH, "selection": "any"},
                )
                self._keep(started, reply, "start")
                found = re.search(r"/progress/quizzes/([\w-]+)/1/$", reply.location)
                if not found:
                    time.sleep(0.1)
                    continue
                quiz = found.group(1)
                continue
            reply = browser.request(f"/progress/quizzes/{quiz}/")
            self._keep(started, reply, "resume", quiz)
            if reply.status != 302:
                time.sleep(0.1)
                continue
            if "/summary/" in reply.location:
                quiz = ""
                continue
            number = int(reply.location.rstrip("/").rsplit("/", 1)[1])
            started = time.monotonic()
            page = browser.request(reply.location)
            self._keep(started, page, "page", quiz, number)
            given = answer_of(page.text)
            if page.status != 200 or not given:
                time.sleep(0.1)
                continue
            started = time.monotonic()
            answer = browser.request(reply.location, given)
            self._keep(started, answer, "answer", quiz, number)
            started = time.monotonic()
            self._keep(started, browser.request(self.public_path), "public")

    def start(self) -> None:
        for browser in self.browsers:
            thread = threading.Thread(target=self._learner, args=(browser,), daemon=True)
            thread.start()
            self.threads.append(thread)

    def finish(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(60)

    def answered_ok(self) -> int:
        with self.lock:
            return sum(1 for o in self.outcomes if o.kind == "answer" and o.status == 200)


def form_data(pairs: list[tuple[str, str]]) -> dict[str, list[str]]:
    """Form pairs with repeated names (a multiple select) as urlencode(doseq=True) takes them."""
    merged: dict[str, list[str]] = {}
    for name, value in pairs:
        merged.setdefault(name, []).append(value)
    return merged


def redis_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(16).startswith(b"+PONG")
    except OSError:
        return False
