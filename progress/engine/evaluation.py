"""Knowledge-tracing logs: reading them, splitting them by learner, replaying them through the
readiness model, and scoring the predictions. Plain Python, no Django, so the evaluation can run
and be tested alone (the `evaluate_readiness` command is a thin wrapper).

The log format is the one of the knowledge-tracing literature (see data/kt/README.md in the
shared folder): a tab-separated file with the header `user_id item_id timestamp correct skill_id`,
one answer a row, each learner's rows in the order they were answered. A skill is a topic here.
"""

from __future__ import annotations

import csv
import math
import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from progress.engine import fitting
from progress.engine.learner_model import Answer, ReadinessModel

COLUMNS = ("user_id", "item_id", "timestamp", "correct", "skill_id")

# Learner id -> that learner's answers in order. A dict keeps the order of first appearance.
Log = dict[str, list[Answer]]


class LogError(ValueError):
    """A log that cannot be read: the message says which file, which line, and why."""


def read_log(path: str | Path) -> Log:
    """Read a log file; rows of a learner keep their file order (the order they answered in),
    and learners may be interleaved. Raises LogError on a missing file, a header without the
    five columns, a short row, or a `correct` that is not 0 or 1."""
    path = Path(path)
    try:
        handle = path.open(newline="", encoding="utf-8")
    except OSError as error:
        raise LogError(f"{path}: cannot be read ({error.strerror or error}).") from None
    with handle:
        try:
            return parse_log(handle, name=str(path))
        except UnicodeDecodeError:
            raise LogError(f"{path}: not UTF-8 text.") from None


def parse_log(lines: Iterable[str], *, name: str = "log") -> Log:
    reader = csv.reader(lines, delimiter="\t")
    header = next(reader, None)
    if header is None:
        raise LogError(f"{name}: empty file, expected the header {' '.join(COLUMNS)}.")
    header = [column.strip() for column in header]
    missing = [column for column in COLUMNS if column not in header]
    if missing:
        raise LogError(
            f"{name}: line 1: the header lacks {', '.join(missing)} "
            f"(expected the tab-separated columns {' '.join(COLUMNS)})."
        )
    user_at, item_at, correct_at, skill_at = (
        header.index(column) for column in ("user_id", "item_id", "correct", "skill_id")
    )
    width = max(user_at, item_at, correct_at, skill_at) + 1
    log: Log = {}
    for number, row in enumerate(reader, start=2):
        if not row:
            continue  # a blank line, e.g. at the end
        if len(row) < width:
            raise LogError(f"{name}: line {number}: {len(row)} columns, expected {len(header)}.")
        correct = row[correct_at].strip()
        if correct not in ("0", "1"):
            raise LogError(f"{name}: line {number}: correct is {correct!r}, expected 0 or 1.")
        user = row[user_at].strip()
        answer = Answer(row[item_at].strip(), row[skill_at].strip(), correct == "1")
        sequence = log.get(user)
        if sequence is None:
            log[user] = [answer]
        else:
            sequence.append(answer)
    if not log:
        raise LogError(f"{name}: no answers after the header.")
    return log


def split_learners(log: Log, fraction: float, seed: int) -> tuple[Log, Log]:
    """Split by learner: a fraction of the learners (rounded, at least one on each side when
    there are two or more) with all their answers, and the rest. The same log, fraction and
    seed give the same split."""
    if not 0.0 < fraction < 1.0:
        raise ValueError(f"the fraction of learners must be between 0 and 1, not {fraction}.")
    learners = list(log)
    random.Random(seed).shuffle(learners)  # noqa: S311 - a reproducible split, not a secret
    cut = round(fraction * len(learners))
    if len(learners) >= 2:
        cut = min(max(cut, 1), len(learners) - 1)
    first = set(learners[:cut])
    return (
        {learner: answers for learner, answers in log.items() if learner in first},
        {learner: answers for learner, answers in log.items() if learner not in first},
    )


def count_answers(log: Log) -> int:
    return sum(len(answers) for answers in log.values())


# --- Metrics -------------------------------------------------------------------------------

LOGLOSS_CLIP = 1e-15


def auc(predictions: Sequence[float], outcomes: Sequence[bool]) -> float:
    """Area under the ROC curve as the Mann-Whitney rank statistic, tied predictions sharing
    their average rank (a tie between a right and a wrong answer counts one half). NaN when
    only one outcome occurs."""
    positives = sum(1 for outcome in outcomes if outcome)
    negatives = len(outcomes) - positives
    if positives == 0 or negatives == 0:
        return math.nan
    order = sorted(range(len(predictions)), key=predictions.__getitem__)
    rank_sum = 0.0
    start = 0
    while start < len(order):
        end = start
        value = predictions[order[start]]
        while end + 1 < len(order) and predictions[order[end + 1]] == value:
            end += 1
        average_rank = (start + end) / 2 + 1  # ranks start at 1
        rank_sum += average_rank * sum(1 for k in range(start, end + 1) if outcomes[order[k]])
        start = end + 1
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


def rmse(predictions: Sequence[float], outcomes: Sequence[bool]) -> float:
    total = sum((p - y) ** 2 for p, y in zip(predictions, outcomes, strict=True))
    return math.sqrt(total / len(predictions))


def logloss(predictions: Sequence[float], outcomes: Sequence[bool]) -> float:
    """Mean negative log-likelihood, the predictions clipped to [1e-15, 1 - 1e-15]."""
    total = 0.0
    for p, y in zip(predictions, outcomes, strict=True):
        p = min(max(p, LOGLOSS_CLIP), 1.0 - LOGLOSS_CLIP)
        total -= math.log(p if y else 1.0 - p)
    return total / len(predictions)


def ece(predictions: Sequence[float], outcomes: Sequence[bool], bins: int = 10) -> float:
    """Expected calibration error over equal-width bins of the predicted probability: the
    share-weighted mean of |mean outcome - mean prediction| per bin (1.0 falls in the last)."""
    counts = [0] * bins
    predicted = [0.0] * bins
    observed = [0.0] * bins
    for p, y in zip(predictions, outcomes, strict=True):
        index = min(int(p * bins), bins - 1)
        counts[index] += 1
        predicted[index] += p
        observed[index] += y
    return sum(abs(observed[b] - predicted[b]) for b in range(bins) if counts[b]) / len(predictions)


@dataclass(frozen=True)
class Scores:
    n: int
    auc: float
    rmse: float
    logloss: float
    ece: float

    def as_dict(self) -> dict[str, float | int | None]:
        def number(value: float) -> float | None:
            return None if math.isnan(value) else round(value, 6)

        return {
            "n": self.n,
            "auc": number(self.auc),
            "rmse": number(self.rmse),
            "logloss": number(self.logloss),
            "ece": number(self.ece),
        }


def score(predictions: Sequence[float], outcomes: Sequence[bool]) -> Scores:
    if not predictions:
        raise ValueError("no predictions to score.")
    return Scores(
        n=len(predictions),
        auc=auc(predictions, outcomes),
        rmse=rmse(predictions, outcomes),
        logloss=logloss(predictions, outcomes),
        ece=ece(predictions, outcomes),
    )


# --- Replay --------------------------------------------------------------------------------


def replay(model: ReadinessModel, log: Log) -> tuple[list[float], list[bool]]:
    """Predict every answer from that learner's earlier answers only (and the fitted model),
    then reveal it and update the learner. Questions are not updated: a test learner's answers
    never reach another test learner."""
    predictions: list[float] = []
    outcomes: list[bool] = []
    for answers in log.values():
        learner = model.new_learner()
        for item_id, topic_id, correct in answers:
            predictions.append(model.update(learner, topic_id, item_id, correct, learn_item=False))
            outcomes.append(correct)
    return predictions, outcomes


def log_from_rows(rows: Iterable[tuple[object, object, object, bool]]) -> Log:
    """A log from (learner, question, topic, correct) rows already in answering order per
    learner; ids become strings (a missing topic becomes "")."""
    log: Log = {}
    for learner, item, topic, correct in rows:
        answer = Answer(str(item), "" if topic is None else str(topic), bool(correct))
        log.setdefault(str(learner), []).append(answer)
    return log


@dataclass(frozen=True)
class Evaluation:
    train_learners: int
    train_answers: int
    test_learners: int
    scores: Scores
    fit_seconds: float
    replay_seconds: float
    fit_report: fitting.FitReport

    def table(self, train_name: str, test_name: str) -> list[str]:
        """A small human-readable summary (the JSON line is printed apart)."""
        report, scores = self.fit_report, self.scores
        sample = ""
        if report.sampled_answers is not None:
            sample = f" on a sample of {report.sampled_answers:,} answers"
        settings = ", ".join(f"{name} {value:g}" for name, value in report.filter.items())
        rows = [
            (
                "train",
                f"{train_name}: {self.train_learners:,} learners, "
                f"{self.train_answers:,} answers ({report.holdout_learners:,} learners "
                "held out to tune)",
            ),
            ("test", f"{test_name}: {self.test_learners:,} learners, {scores.n:,} answers"),
            (
                "fitted",
                f"{report.epochs} of {report.passes} pass{'' if report.passes == 1 else 'es'} "
                f"kept{sample}; {report.stop}; "
                f"filter {settings}; "
                f"Platt slope {report.slope:.3f}, intercept {report.intercept:+.3f}",
            ),
            ("time", f"fit {self.fit_seconds:.1f} s, replay {self.replay_seconds:.1f} s"),
        ]
        width = max(len(label) for label, _ in rows)
        lines = [f"{label:<{width}}  {text}" for label, text in rows]
        lines.append("")
        lines.append(f"{'metric':<8}  {'value':>8}")
        for name, value in (
            ("AUC", scores.auc),
            ("RMSE", scores.rmse),
            ("log-loss", scores.logloss),
            ("ECE", scores.ece),
        ):
            lines.append(f"{name:<8}  {value:>8.4f}")
        return lines


def evaluate(train: Log, test: Log, *, seed: int = 0) -> Evaluation:
    """Fit on the train learners alone (hyper-parameters included), then replay the test
    learners, each answer predicted from that learner's earlier answers only."""
    started = time.perf_counter()
    model, report = fitting.fit(list(train.values()), seed=seed)
    fitted = time.perf_counter()
    predictions, outcomes = replay(model, test)
    done = time.perf_counter()
    return Evaluation(
        train_learners=len(train),
        train_answers=count_answers(train),
        test_learners=len(test),
        scores=score(predictions, outcomes),
        fit_seconds=fitted - started,
        replay_seconds=done - fitted,
        fit_report=report,
    )
