"""`manage.py simulate_readiness`: is the pass likelihood calibrated, on a simulated exam?

The simulation lives in progress.engine.simulation (no Django, no database is touched);
this command runs it and prints the result.
"""

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from progress.engine import simulation

DEFAULT_QUESTIONS = simulation.ExamShape().questions


class Command(BaseCommand):
    help = (
        "Simulate learners with known abilities on a six-topic exam: fit the readiness model "
        "on some, let the others practise, forecast their mock exam, then let them sit one "
        "under the true model. Prints a table and, last, one JSON line with learners, brier, "
        "ece, coverage, pass_rate, mean_pass_probability and oracle_brier (the Brier score of a "
        "forecast that knows the true abilities: the floor for the exam's length)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--learners",
            type=int,
            default=2000,
            help=f"Test learners (default 2000, at least {simulation.MIN_LEARNERS}).",
        )
        parser.add_argument(
            "--train-learners",
            type=int,
            default=400,
            help="Learners to fit the model on (default 400, at least "
            f"{simulation.MIN_TRAIN_LEARNERS}).",
        )
        parser.add_argument(
            "--questions",
            type=int,
            default=DEFAULT_QUESTIONS,
            help=f"Questions in the mock exam (default {DEFAULT_QUESTIONS}, the size of a "
            "Security+ or CCNA exam; 65 is an AWS associate exam).",
        )
        parser.add_argument("--seed", type=int, default=0, help="Seed (default 0).")

    def handle(self, *args: Any, **options: Any) -> None:
        learners: int = options["learners"]
        train_learners: int = options["train_learners"]
        if learners < simulation.MIN_LEARNERS:
            raise CommandError(
                f"--learners must be at least {simulation.MIN_LEARNERS}, not {learners}: "
                "fewer say too little about calibration."
            )
        if train_learners < simulation.MIN_TRAIN_LEARNERS:
            raise CommandError(
                f"--train-learners must be at least {simulation.MIN_TRAIN_LEARNERS}, "
                f"not {train_learners}."
            )
        try:
            result = simulation.simulate(
                learners,
                seed=options["seed"],
                train_learners=train_learners,
                shape=simulation.ExamShape(questions=options["questions"]),
            )
        except ValueError as error:
            raise CommandError(str(error)) from None
        for line in result.table():
            self.stdout.write(line)
        self.stdout.write(json.dumps(result.as_dict()))
