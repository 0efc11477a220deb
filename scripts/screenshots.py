"""`make screenshots`: pictures of the main pages for the README, taken in Debian's Chromium.

    .venv/bin/python scripts/screenshots.py [--out docs/screenshots]

Builds a throwaway SQLite database with the demo bank and the demo users (seed_demo), gives the
demo learner and a few classmates some history through the site's own code paths (answers,
a quiz, a mock exam), serves it with runserver on a free loopback port, and photographs, on a
desktop (1280 x 800) and a phone (390 x 844): a question before and after answering, a quiz
question, a mock exam's report, the learner's progress page and the instructor's cohort page.
"""

import argparse
import io
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Page, ViewportSize

PROJECT_ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip
VIEWPORTS: "dict[str, ViewportSize]" = {
    "desktop": {"width": 1280, "height": 800},
    "phone": {"width": 390, "height": 844},
}
PASSWORD = secrets.token_urlsafe(12)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def build_site(environment: dict[str, str]) -> dict[str, str]:
    """The demo, with history; returns the URLs to photograph. Runs in this process."""
    os.environ.update(environment)
    sys.path.insert(0, str(PROJECT_ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    from progress.accounts.models import User
    from progress.cohorts.models import Cohort
    from progress.mocks.models import MockExam
    from progress.practice.models import Attempt, Quiz
    from questions.models import Exam, Question

    call_command("migrate", verbosity=0)
    call_command("seed_demo", verbosity=0, stdout=io.StringIO())  # its passwords: not needed
    learner = User.objects.get(username="learner")
    instructor = User.objects.get(username="instructor")
    for user in (learner, instructor):
        user.set_password(PASSWORD)
        user.save()
    exam = Exam.objects.order_by("position", "code").first()
    assert exam is not None
    # The demo has the learner's history, a mock sitting and the demo class (seed_demo).
    # A question the learner has not answered, or (the demo learner has met most) any.
    answered = Attempt.objects.filter(learner=learner).values("question_id")
    questions = Question.objects.published().filter(topic__exam=exam).order_by("position")
    fresh = questions.exclude(pk__in=answered).first() or questions.first()
    assert fresh is not None
    mock = MockExam.objects.for_learner(learner).submitted().latest("submitted_at")
    quiz = Quiz.objects.start(learner=learner, exam=exam, topic=None, selection="any", length=10)
    assert quiz is not None
    cohort = Cohort.objects.get(name="Demo class", exam=exam)
    return {
        "question": fresh.get_absolute_url(),
        "quiz": f"/progress/quizzes/{quiz.code}/1/",
        "mock_report": f"/progress/mocks/{mock.code}/report/",
        "progress": "/progress/",
        "plan": f"/progress/plan/{exam.slug}/",
        "cohort": cohort.get_absolute_url(),
    }


def serve(environment: dict[str, str], port: int) -> subprocess.Popen[bytes]:
    server = subprocess.Popen(  # our own manage.py, on loopback
        [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"],
        cwd=PROJECT_ROOT,
        env={**os.environ, **environment},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
            return server
        except OSError:
            time.sleep(0.2)
    server.kill()
    sys.exit("The development server did not start.")


def photograph(base: str, urls: dict[str, str], out: Path, kind: str) -> list[Path]:
    from playwright.sync_api import sync_playwright

    taken = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for device, viewport in VIEWPORTS.items():
            for role in ("learner", "instructor"):
                context = browser.new_context(base_url=base, viewport=viewport)
                page = context.new_page()
                page.goto("/accounts/login/")
                page.get_by_label("Username or e-mail").fill(role)
                page.locator("#id_password").fill(PASSWORD)
                page.get_by_role("button", name="Sign in").click()
                page.wait_for_url(lambda url: "/accounts/login/" not in url)

                def shot(name: str, page: "Page" = page, device: str = device) -> None:
                    if kind == "png":
                        path = out / f"{name}-{device}.png"
                        page.screenshot(path=path, type="png")
                    else:
                        path = out / f"{name}-{device}.jpg"
                        page.screenshot(path=path, type="jpeg", quality=82)
                    taken.append(path)

                if role == "learner":
                    page.goto(urls["question"])
                    shot("question")
                    page.locator("label[for=choice-2]").click()
                    page.get_by_role("button", name="Check answer").click()
                    page.locator("#result").wait_for()
                    page.locator("#result").scroll_into_view_if_needed()
                    shot("question-answered")
                    page.goto(urls["quiz"])
                    shot("quiz")
                    page.goto(urls["mock_report"])
                    shot("mock-report")
                    page.goto(urls["progress"])
                    page.locator("details.why summary").first.click()  # "why" opened
                    shot("progress")
                    page.goto(urls["plan"])
                    shot("plan")
                else:
                    page.goto(urls["cohort"])
                    shot("cohort")
                context.close()
        browser.close()
    return taken


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=PROJECT_ROOT / "docs" / "screenshots")
    parser.add_argument(
        "--format", choices=["jpeg", "png"], default="jpeg", help="jpeg (default) keeps them small"
    )
    options = parser.parse_args()
    if not Path(CHROMIUM).exists():
        sys.exit(f"{CHROMIUM} is missing: run scripts/ensure-chromium (as root) first.")
    options.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        environment = {
            "DEBUG": "1",
            "DATABASE_URL": f"sqlite:///{folder}/screenshots.sqlite3",
            "DJANGO_SETTINGS_MODULE": "courseiva.settings",
        }
        urls = build_site(environment)
        port = free_port()
        server = serve(environment, port)
        try:
            taken = photograph(f"http://127.0.0.1:{port}", urls, options.out, options.format)
        finally:
            server.terminate()
            server.wait(timeout=10)
    for path in taken:
        print(path.relative_to(PROJECT_ROOT) if path.is_relative_to(PROJECT_ROOT) else path)


if __name__ == "__main__":
    main()
