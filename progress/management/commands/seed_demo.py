import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from progress.demo.site import (
    CLASS_SIZE,
    DEMO_COHORT,
    DEMO_GROUP,
    Say,
    build_demo,
    clear_demo_class,
    create_demo_users,
    demo_cohort,
)
from questions.bank.checks import BankError
from questions.bank.document_import import import_document
from questions.bank.formats.courseiva import read_document
from questions.models import Exam

DEMO_BANK = Path(settings.BASE_DIR) / "questions" / "demo" / "demo-bank.json"
# A real exam to practise for (docs/pmle.md): loaded beside the demo's, and practised by the
# demo class and the demo learner too.
PMLE_BANK = Path(settings.BASE_DIR) / "questions" / "demo" / "pmle-bank.json"
PMLE_SLUG = "gcp-pmle"


class Command(BaseCommand):
    help = (
        "Load the demo question bank and, with DEBUG on, the demo users learner, instructor "
        "and admin (new random passwords, printed), and a demo class: simulated learners with "
        "six weeks of practice in the instructor's cohort Demo class, and a history of the "
        "learner's own. The class's accounts cannot sign in and are in the Demo data group."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--if-empty",
            action="store_true",
            help="Do nothing when the bank already has an exam (used by `make run`).",
        )
        parser.add_argument(
            "--seed",
            type=int,
            default=0,
            help="The random seed of the simulated practice (the same seed, the same demo).",
        )
        parser.add_argument(
            "--learners",
            type=int,
            default=CLASS_SIZE,
            help=f"Learners in the demo class (default {CLASS_SIZE}).",
        )
        parser.add_argument(
            "--clear",
            action="store_true",
            help="Remove the demo class's learners and their data, and nothing else.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["clear"]:
            self._clear()
            return
        if options["if_empty"] and Exam.objects.exists():
            self.stdout.write("The bank already has content: demo data not loaded.")
            return
        if options["learners"] < 1:
            raise CommandError("--learners must be at least 1.")
        for path in (DEMO_BANK, PMLE_BANK):
            try:
                summary = import_document(read_document(path))
            except BankError as error:  # the shipped banks are tested; this guards local edits
                raise CommandError(f"The demo bank {path} is invalid:\n{error}") from None
            for line in summary.lines():
                self.stdout.write(line)
        if not settings.DEBUG:
            self.stdout.write("DEBUG is off: demo users are not created on a production site.")
            return
        started = time.perf_counter()
        with transaction.atomic():
            users, passwords = create_demo_users()
            # The first demo exam, and the real one: the class practises both.
            first = Exam.objects.exclude(slug=PMLE_SLUG).order_by("position", "code").first()
            exams = [e for e in (first, Exam.objects.filter(slug=PMLE_SLUG).first()) if e]
            built = None
            if exams:
                cohorts = [
                    (exam, demo_cohort(exam, users["instructor"], users["learner"]))
                    for exam in exams
                ]
                built = build_demo(
                    cohorts, users["learner"], seed=options["seed"],
                    size=options["learners"], say=self._progress(options["verbosity"]),
                )  # fmt: skip
        self.stdout.write(self.style.SUCCESS("Demo users (username, password):"))
        for username, password in passwords:
            self.stdout.write(f"  {username:<11} {password}")
        self.stdout.write(
            f"The instructor follows the learner in the cohort {DEMO_COHORT} (/instructor/)."
        )
        if built is not None:
            self.stdout.write(f"{built.line()} ({time.perf_counter() - started:.1f} s)")

    def _progress(self, verbosity: int) -> Say:
        def say(message: str) -> None:
            if verbosity > 0:
                self.stderr.write(f"… {message}")

        return say

    def _clear(self) -> None:
        deleted = clear_demo_class()
        if not deleted:
            self.stdout.write(f"No demo class to remove (no user in the {DEMO_GROUP} group).")
            return
        names = {
            "User": "learners", "Attempt": "answers", "Quiz": "quizzes",
            "QuizItem": "quiz items", "MockExam": "mock exams", "MockItem": "mock items",
            "ReviewCard": "review cards", "LearnerDay": "daily totals",
            "Bookmark": "bookmarks", "Membership": "memberships",
        }  # fmt: skip
        parts = [
            f"{deleted[model]:,} {label}" for model, label in names.items() if model in deleted
        ]
        rest = sum(n for model, n in deleted.items() if model not in names)
        if rest:
            parts.append(f"{rest:,} other rows (readiness, figures, group links)")
        self.stdout.write(f"Removed the demo class: {', '.join(parts)}.")
