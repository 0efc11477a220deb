"""`manage.py evaluate_readiness`: how well the readiness model predicts answers it has not seen.

The model and the replay live in progress.engine (learner_model, evaluation; no Django); this
command reads the logs, or the site's own attempts, and prints the result.
"""

import json
import time
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from progress.engine import evaluation, fitting
from progress.practice.models import Attempt

# Below this, the site's attempts say nothing useful about the model.
MIN_SITE_LEARNERS = 10
MIN_SITE_ANSWERS = 200


class Command(BaseCommand):
    help = (
        "Replay learner logs through the readiness model: fit on the train learners alone, "
        "then predict each test answer from that learner's earlier answers only. Prints a "
        "table and, last, one JSON line with n, auc, rmse, logloss and ece (and the same for "
        "the answers to questions with partial credit, `partial`, and the others, `other`, "
        "when there are both). Logs are tab-separated with the header `user_id item_id "
        "timestamp correct skill_id`; correct is 0 or 1, or a partly right answer's score. "
        "Without files, the site's own attempts are replayed, split by learner."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--train", type=Path, help="Log of the learners to fit on.")
        parser.add_argument("--test", type=Path, help="Log of the learners to predict.")
        parser.add_argument(
            "--split-learners",
            type=float,
            metavar="FRACTION",
            help="Split the single --train log (or the site's attempts) by learner: this "
            "fraction of the learners to fit on, the rest to predict (default 0.8 for the "
            "site's attempts).",
        )
        parser.add_argument(
            "--seed", type=int, default=0, help="Seed of the split and of the fit (default 0)."
        )
        parser.add_argument(
            "--seeds",
            type=int,
            default=1,
            metavar="N",
            help="Run N times (default 1), with the seeds --seed to --seed + N - 1 (each the "
            "split's, if any, and the fit's), printing each run as it ends, then their mean and "
            "range; the JSON line then holds `mean` and `runs`. A fit's figures move with its "
            "seed: the mean of several is the figure to compare.",
        )
        parser.add_argument(
            "--yardstick",
            action="store_true",
            help="Fit and score the yardstick instead of the model: a plain logistic "
            "regression on the same history features, questions and topics, without the "
            "learner's filtered abilities and profile.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.perf_counter()
        train_path: Path | None = options["train"]
        test_path: Path | None = options["test"]
        fraction: float | None = options["split_learners"]
        seed: int = options["seed"]
        seeds: int = options["seeds"]
        if seeds < 1:
            raise CommandError(f"--seeds is a number of runs, 1 or more, not {seeds}.")
        if fraction is not None and not 0.0 < fraction < 1.0:
            raise CommandError(
                f"--split-learners must be a fraction strictly between 0 and 1, not {fraction}."
            )
        if test_path is not None and train_path is None:
            raise CommandError("--test needs --train: the learners to fit on.")
        if train_path is not None and test_path is not None and fraction is not None:
            raise CommandError(
                "--split-learners splits a single log: give --train alone, or --train and "
                "--test without it."
            )
        if train_path is not None and test_path is None and fraction is None:
            raise CommandError(
                "With --train alone, give --split-learners (e.g. 0.8), or a --test log."
            )

        config = fitting.FitConfig(logistic_only=True) if options["yardstick"] else None
        # Read once: with --seeds only the split (if any) and the fit change from run to run.
        log, test_log, train_name, test_name = self._read(train_path, test_path, fraction)
        runs: list[tuple[int, evaluation.Evaluation]] = []
        for number, run_seed in enumerate(range(seed, seed + seeds), start=1):
            if test_log is None:
                train, test = evaluation.split_learners(log, fraction or 0.8, run_seed)
            else:
                train, test = log, test_log
            if not train or not test:
                raise CommandError(
                    "The split leaves no learner on one side: the log needs two learners or more."
                )
            if seeds > 1:
                # Each run is a whole fit (minutes on a big log): say which one is under way.
                self.stdout.write(f"--- seed {run_seed} ({number} of {seeds})")
                self.stdout.flush()
            result = evaluation.evaluate(train, test, seed=run_seed, config=config)
            runs.append((run_seed, result))
            for line in result.table(train_name, test_name):
                self.stdout.write(line)
            self.stdout.flush()  # a run's figures as it ends, even into a file or a pipe
        data: dict[str, object] = runs[0][1].as_dict()
        if seeds > 1:
            lines, data = evaluation.seeds_summary(runs)
            self.stdout.write(f"--- {seeds} seeds, {seed} to {seed + seeds - 1}")
            for line in lines:
                self.stdout.write(line)
        self.stdout.write(f"total time {time.perf_counter() - started:.1f} s")
        self.stdout.write(json.dumps(data))

    def _read(
        self, train_path: Path | None, test_path: Path | None, fraction: float | None
    ) -> tuple[evaluation.Log, evaluation.Log | None, str, str]:
        """The log to fit on (or to split by learner, with no test log) and the test log, and
        the names of the two sides."""
        try:
            if train_path is None:
                return self._site_log(), None, "site attempts", "site attempts"
            if test_path is None:
                return (
                    evaluation.read_log(train_path),
                    None,
                    f"{train_path.name} ({fraction:g} of the learners)",
                    f"{train_path.name} (the other learners)",
                )
            return (
                evaluation.read_log(train_path),
                evaluation.read_log(test_path),
                train_path.name,
                test_path.name,
            )
        except evaluation.LogError as error:
            raise CommandError(str(error)) from None

    def _site_log(self) -> evaluation.Log:
        """The site's attempts as a log (question uid as the item, topic as the skill), each
        learner's in the order answered."""
        rows = (
            Attempt.objects.order_by("learner_id", "answered_at", "id")
            .values_list("learner_id", "question_uid", "topic_id", "score")
            .iterator(chunk_size=5000)
        )
        log = evaluation.log_from_rows(rows)
        answers = evaluation.count_answers(log)
        if len(log) < MIN_SITE_LEARNERS or answers < MIN_SITE_ANSWERS:
            raise CommandError(
                f"Too few attempts on the site to evaluate the model: {answers} answers by "
                f"{len(log)} learners (at least {MIN_SITE_ANSWERS} answers by "
                f"{MIN_SITE_LEARNERS} learners are needed). Give --train and --test logs."
            )
        return log
