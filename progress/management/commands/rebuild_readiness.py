"""`manage.py rebuild_readiness`: recompute the learner model's state from the attempts."""

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from progress.management.progress_line import progress_line
from progress.practice.models import Attempt
from progress.readiness.rebuild import rebuild_readiness


class Command(BaseCommand):
    help = (
        "Rebuild every learner's and question's readiness state from the attempts, after an "
        "upgrade of the model or to recover. First fits the model's parameters on the site's "
        "attempts when there are enough (--no-fit keeps the parameters in use). Answers given "
        "while it runs are counted; they wait for its last step."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--no-fit",
            action="store_true",
            help="Replay with the parameters in use instead of fitting new ones first.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.perf_counter()
        total = Attempt.objects.count()
        verbose = options["verbosity"] > 0

        progress = progress_line(self.stderr, "replayed", total, verbose)
        if verbose and not options["no_fit"]:
            self.stderr.write(f"Fitting the model on {total:,} answers…")
        report = rebuild_readiness(Attempt.objects, fit=not options["no_fit"], progress=progress)
        if verbose:
            self.stderr.write("")
        if report.fit is not None:
            self.stdout.write(f"New parameters: {report.fit.summary} ({report.fit_seconds:.1f} s).")
        elif report.fit_skipped:
            self.stdout.write(f"No new parameters: {report.fit_skipped}")
        self.stdout.write(
            f"Rebuilt the readiness of {report.learners:,} learners and {report.questions:,} "
            f"questions from {report.answers:,} answers in {time.perf_counter() - started:.1f} s."
        )
