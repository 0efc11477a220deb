from collections import Counter
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from questions.lint.bank import LintError, accept, bank_flags
from questions.lint.flags import CODES
from questions.models import Exam


class Command(BaseCommand):
    help = (
        "Check a bank for item-writing flaws (questions.lint.flags): each flag names its "
        "question and its reason. Flags a curator accepted are listed apart, with the note. "
        "--accept marks one accepted."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("exams", nargs="*", metavar="EXAM", help="exam slugs (default: all)")
        parser.add_argument(
            "--accept",
            nargs=2,
            metavar=("UID", "FLAG"),
            help="accept a flag of a question (the exam's slug for longest-cue); "
            "FLAG as listed, e.g. negative-stem or near-duplicate:pmle-0012",
        )
        parser.add_argument("--note", default="", help="why the accepted flag is fine")
        parser.add_argument(
            "--strict", action="store_true", help="exit with status 1 when any flag is open"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["accept"]:
            uid, key = options["accept"]
            if not options["note"].strip():
                raise CommandError("--accept needs --note: say why the flag is fine")
            try:
                accept(uid, key, options["note"])
            except LintError as error:
                raise CommandError(str(error)) from error
            self.stdout.write(f"Accepted {key} on {uid}.")
            return
        slugs: list[str] = options["exams"]
        exams = list(Exam.objects.filter(slug__in=slugs))
        missing = sorted(set(slugs) - {exam.slug for exam in exams})
        if missing:
            raise CommandError(f"no such exam: {', '.join(missing)}")
        flags = bank_flags(exams)
        open_flags = [flag for flag in flags if not flag.accepted]
        for flag in open_flags:
            self.stdout.write(f"{flag.uid}  {flag.key}: {flag.reason}")
        accepted = [flag for flag in flags if flag.accepted]
        if accepted:
            self.stdout.write(f"\nAccepted ({len(accepted)}):")
            for flag in accepted:
                self.stdout.write(f"{flag.uid}  {flag.key}: {flag.reason}. Note: {flag.accepted}")
        counts = Counter(flag.code for flag in open_flags)
        accepted_counts = Counter(flag.code for flag in accepted)
        self.stdout.write(f"\n{'flag':<18}{'open':>6}{'accepted':>10}")
        for code in CODES:
            if counts[code] or accepted_counts[code]:
                self.stdout.write(f"{code:<18}{counts[code]:>6}{accepted_counts[code]:>10}")
        self.stdout.write(f"{len(open_flags)} open, {len(accepted)} accepted.")
        if options["strict"] and open_flags:
            raise CommandError(f"{len(open_flags)} open flag(s)", returncode=1)
