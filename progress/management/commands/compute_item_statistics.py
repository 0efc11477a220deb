"""`manage.py compute_item_statistics`: the item analysis, recomputed in bulk (nightly)."""

import time
from typing import Any

from django.core.management.base import BaseCommand

from progress.cohorts.item_statistics import compute_item_statistics
from progress.management.progress_line import progress_line
from progress.practice.models import Attempt


class Command(BaseCommand):
    help = (
        "Recompute every question's item statistics (attempts, facility, discrimination, "
        "option choices, median time, flags) for everyone and for each cohort, from the "
        "attempts. The item-analysis pages and the admin read what this stores; run it "
        "nightly."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.perf_counter()
        # Answers to questions deleted since are left out of the statistics.
        total = Attempt.objects.filter(question__isnull=False).count()
        verbose = options["verbosity"] > 0

        progress = progress_line(self.stderr, "read", total, verbose)
        written = compute_item_statistics(progress=progress)
        if verbose:
            self.stderr.write("")
        self.stdout.write(
            f"Computed {written:,} item statistics from {total:,} answers in "
            f"{time.perf_counter() - started:.1f} s."
        )
