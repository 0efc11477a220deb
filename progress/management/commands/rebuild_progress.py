import sys
from typing import Any

from django.core.management.base import BaseCommand

from progress.accounts.models import User
from progress.practice.models import LearnerDay


class Command(BaseCommand):
    help = (
        "Rebuild the learners' stored progress (daily totals) from their attempts, after an "
        "upgrade or to recover. Safe to run at any time: each learner in one transaction."
    )

    def handle(self, *args: Any, **options: Any) -> None:
        learner_ids = list(
            User.objects.filter(attempts__isnull=False).distinct().values_list("pk", flat=True)
        )
        written = 0
        for number, learner_id in enumerate(learner_ids, start=1):
            written += LearnerDay.objects.rebuild(learner_id)
            if options["verbosity"] and (number % 100 == 0 or number == len(learner_ids)):
                sys.stderr.write(f"… {number} of {len(learner_ids)} learners\n")
        self.stdout.write(f"Rebuilt {written} daily totals for {len(learner_ids)} learners.")
