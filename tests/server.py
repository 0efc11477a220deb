"""The site served as `make serve` serves it (gunicorn, several worker processes, DEBUG off,
static files collected, the per-process cache of the README's defaults) against the test
database, for the tests of what must hold across processes. What the tests write must be
committed for the server to see it (`django_db(transaction=True)`)."""

import http.client
import os
import socket
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from django.db import connection

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def database_url() -> str:
    """The URL of the database the tests run on (the test database)."""
    database = connection.settings_dict
    if connection.vendor == "sqlite":
        return f"sqlite:///{database['NAME']}"
    user = urllib.parse.quote(database["USER"] or "")
    password = urllib.parse.quote(database["PASSWORD"] or "")
    credentials = f"{user}:{password}@" if password else f"{user}@" if user else ""
    host = database["HOST"] or "127.0.0.1"
    return f"postgres://{credentials}{host}:{database['PORT'] or 5432}/{database['NAME']}"


@dataclass
class Server:
    port: int
    csrf_token: str = ""

    def post(self, path: str, fields: dict[str, str]) -> int:
        """POSTs a form as a browser that holds the CSRF cookie; the status (redirects are not
        followed). A new connection each time, as many visitors make."""
        body = urllib.parse.urlencode({**fields, "csrfmiddlewaretoken": self.csrf_token})
        headers = {
            "Content-Type": "application/x-www-form-urlencoded",
            "Cookie": f"csrftoken={self.csrf_token}",
        }
        return self._request("POST", path, body, headers)

    def get(self, path: str) -> int:
        return self._request("GET", path, None, {})

    def _request(self, method: str, path: str, body: str | None, headers: dict[str, str]) -> int:
        client = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            client.request(method, path, body, headers)
            response = client.getresponse()
            response.read()
            if not self.csrf_token:
                cookie = response.getheader("Set-Cookie") or ""
                if cookie.startswith("csrftoken="):
                    self.csrf_token = cookie.split(";")[0].split("=", 1)[1]
            return response.status
        finally:
            client.close()


def _environment() -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DEBUG", "CACHE_URL", "EMAIL_URL", "DJANGO_SETTINGS_MODULE"}
    }
    env.update(
        DEBUG="0",
        SECRET_KEY="a-production-secret-key-for-the-served-tests-0123456789",
        ALLOWED_HOSTS="127.0.0.1",
        UNSAFE_MAIL_TO_CONSOLE="1",  # the tests' worker sends the mail, not the server
        DATABASE_URL=database_url(),
        LOG_LEVEL="WARNING",
    )
    return env


@contextmanager
def served(workers: int = 3, form_page: str = "/healthz") -> Iterator[Server]:
    """The site on a free loopback port with `workers` processes, ready; stopped after.
    `form_page` is fetched first for the CSRF cookie the server's forms need."""
    env = _environment()
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
        cwd=ROOT, env=env, check=True, timeout=120,
    )  # fmt: skip
    port = free_port()
    process = subprocess.Popen(  # noqa: S603 - gunicorn of our own virtualenv
        [sys.executable, "-m", "gunicorn", "courseiva.wsgi", "--bind", f"127.0.0.1:{port}",
         "--workers", str(workers)],
        cwd=ROOT, env=env,
    )  # fmt: skip
    try:
        server = Server(port)
        deadline = time.monotonic() + 60
        while True:
            if process.poll() is not None:
                raise RuntimeError("the server stopped before it answered")
            try:
                if server.get("/healthz") == 200:
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise
            time.sleep(0.2)
        server.get(form_page)
        yield server
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
