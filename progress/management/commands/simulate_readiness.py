"""`manage.py simulate_readiness`: is the pass likelihood calibrated, on a simulated exam? With
`--plan`: does following the study plan pay, and is its exam-day projection honest?

The simulations live in progress.engine.simulation and progress.engine.plan_simulation (no
Django, no database is touched); this command runs one and prints the result.
"""

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from progress.engine import learning_gain, plan_simulation, simulation
from progress.engine.evaluation import LogError

DEFAULT_QUESTIONS = simulation.ExamShape().questions
PLAN = plan_simulation.PlanSimulationConfig()


class Command(BaseCommand):
    help = (
        "Simulate learners with known abilities on a six-topic exam: fit the readiness model "
        "on some, let the others practise, forecast their mock exam, then let them sit one "
        "under the true model. Prints a table and, last, one JSON line with learners, brier, "
        "ece, coverage, pass_rate, mean_pass_probability and oracle_brier (the Brier score of a "
        "forecast that knows the true abilities: the floor for the exam's length), and the ECE "
        "and AUC of the model's predictions of the practice answers (answer_ece, answer_auc; "
        "--partial-share adds questions with partial credit). With --plan: "
        "learners who learn as they practise on a Security+-shaped exam (weights 12/22/18/28/20), "
        "twins following the study plan or answering the same number of questions in every "
        "topic, and the plan's day-0 projection against the exam; the JSON line has "
        "plan_pass_rate and even_pass_rate (the mocks sat), plan_gain and plan_gain_ci95 (the "
        "paired difference of the twins' chances of passing under the true model, as "
        "plan_gain_basis says), "
        "mock_gain_ci95, projection_brier, oracle_brier (the floor: a projection that knows the "
        "true abilities and learning rate), projection_ece and range_coverage."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--learners",
            type=int,
            default=None,
            help=f"Test learners (default 2000, at least {simulation.MIN_LEARNERS}; with --plan, "
            f"pairs of twins, default {PLAN.learners}, at least {plan_simulation.MIN_LEARNERS}).",
        )
        parser.add_argument(
            "--train-learners",
            type=int,
            default=None,
            help="Learners to fit the model on (default 400, at least "
            f"{simulation.MIN_TRAIN_LEARNERS}; with --plan, default {PLAN.train_learners}).",
        )
        parser.add_argument(
            "--questions",
            type=int,
            default=DEFAULT_QUESTIONS,
            help=f"Questions in the mock exam (default {DEFAULT_QUESTIONS}, the size of a "
            "Security+ or CCNA exam; 65 is an AWS associate exam).",
        )
        parser.add_argument("--seed", type=int, default=0, help="Seed (default 0).")
        parser.add_argument(
            "--partial-share",
            type=float,
            default=0.0,
            help="The share of each topic's questions that give partial credit (0 to 1, "
            "default 0): 2 to 4 parts each, the score the share of parts right. The JSON line "
            "then also has the ECE and AUC of the model's predictions of the practice answers "
            "to them (partial_answer_ece, partial_answer_auc) and to the others "
            "(other_answer_ece, other_answer_auc), beside every answer's (answer_ece, "
            "answer_auc).",
        )
        parser.add_argument(
            "--plan",
            action="store_true",
            help="Simulate the study plan against even practice (see above).",
        )
        parser.add_argument(
            "--days",
            type=int,
            default=PLAN.days,
            help=f"With --plan: days from the start to the exam (default {PLAN.days}).",
        )
        parser.add_argument(
            "--per-day",
            type=int,
            default=PLAN.per_day,
            help=f"With --plan: questions a day (default {PLAN.per_day}).",
        )
        parser.add_argument(
            "--gain-logs",
            nargs="+",
            metavar="PATH",
            help="With --plan: refit the learning gain on these learner logs (tab-separated, "
            "as in the shared data/kt folder) instead of using the fitted constant.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["plan"]:
            self.handle_plan(options)
            return
        learners: int = 2000 if options["learners"] is None else options["learners"]
        train_learners: int = (
            400 if options["train_learners"] is None else options["train_learners"]
        )
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
                population=simulation.Population(partial_share=options["partial_share"]),
            )
        except ValueError as error:
            raise CommandError(str(error)) from None
        for line in result.table():
            self.stdout.write(line)
        self.stdout.write(json.dumps(result.as_dict()))

    def handle_plan(self, options: dict[str, Any]) -> None:
        gain = learning_gain.FITTED_GAIN
        if options["gain_logs"]:
            try:
                fit = learning_gain.fit_gain_report(learning_gain.read_logs(options["gain_logs"]))
            except (LogError, ValueError) as error:
                raise CommandError(f"--gain-logs: {error}") from None
            gain = fit.gain
            self.stdout.write(f"gain fitted on the logs: {fit.summary()}")
        config = plan_simulation.PlanSimulationConfig(
            learners=PLAN.learners if options["learners"] is None else options["learners"],
            train_learners=PLAN.train_learners
            if options["train_learners"] is None
            else options["train_learners"],
            days=options["days"],
            per_day=options["per_day"],
            questions=options["questions"],
        )
        try:
            result = plan_simulation.simulate_plan(config, seed=options["seed"], gain=gain)
        except ValueError as error:
            raise CommandError(str(error)) from None
        for line in result.table():
            self.stdout.write(line)
        self.stdout.write(json.dumps(result.as_dict()))
