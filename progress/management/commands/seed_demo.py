import secrets
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from progress.accounts.models import User, instructors_group
from progress.cohorts.models import Cohort, Membership
from questions.bank_checks import BankError
from questions.bank_import import import_document
from questions.formats.courseiva import read_document
from questions.models import Exam

DEMO_BANK = Path(settings.BASE_DIR) / "questions" / "demo" / "demo-bank.json"


class Command(BaseCommand):
    help = (
        "Load the demo question bank and, with DEBUG on, the demo users learner, instructor "
        "and admin (new random passwords, printed), the instructor following the learner in "
        "a demo cohort."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--if-empty",
            action="store_true",
            help="Do nothing when the bank already has an exam (used by `make run`).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["if_empty"] and Exam.objects.exists():
            self.stdout.write("The bank already has content: demo data not loaded.")
            return
        try:
            summary = import_document(read_document(DEMO_BANK))
        except BankError as error:  # the shipped bank is tested; this guards local edits
            raise CommandError(f"The demo bank {DEMO_BANK} is invalid:\n{error}") from None
        for line in summary.lines():
            self.stdout.write(line)
        if not settings.DEBUG:
            self.stdout.write("DEBUG is off: demo users are not created on a production site.")
            return
        self._create_users()

    @transaction.atomic
    def _create_users(self) -> None:
        instructors = instructors_group()
        lines = []
        users = {}
        for username, staff in (("learner", False), ("instructor", False), ("admin", True)):
            password = secrets.token_urlsafe(9)
            user, _ = User.objects.get_or_create(
                username=username, defaults={"email": f"{username}@example.com"}
            )
            user.is_staff = user.is_superuser = staff
            user.set_password(password)
            user.save()
            if username == "instructor":
                user.groups.add(instructors)
            users[username] = user
            lines.append(f"  {username:<11} {password}")
        # A cohort, so that the instructor's pages have someone to show.
        exam = Exam.objects.order_by("position", "code").first()
        if exam is not None:
            cohort = Cohort.objects.filter(name="Demo class", exam=exam).first()
            if cohort is None:
                cohort = Cohort.objects.create(name="Demo class", exam=exam)
            cohort.instructors.add(users["instructor"])
            Membership.objects.get_or_create(cohort=cohort, learner=users["learner"])
        self.stdout.write(self.style.SUCCESS("Demo users (username, password):"))
        for line in lines:
            self.stdout.write(line)
        self.stdout.write(
            "The instructor follows the learner in the cohort Demo class (/instructor/)."
        )
