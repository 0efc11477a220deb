"""Knowledge-tracing logs: reading them, splitting them by learner, replaying them through the
readiness model, and scoring the predictions. Plain Python, no Django, so the evaluation can run
and be tested alone (the `evaluate_readiness` command is a thin wrapper).

The log format is the one of the knowledge-tracing literature (see data/kt/README.md in the
shared folder): a tab-separated file with the header `user_id item_id timestamp correct skill_id`,
one answer a row, each learner's rows in the order they were answered. A skill is a topic here.
`correct` is 0 or 1, or a score between for a partly right answer to a question with partial
credit; the metrics take such a score as a fractional outcome (see `auc`).
"""

from __future__ import annotations

import csv
import math
import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from progress.engine import fitting, fresh
from progress.engine.learner_model import Answer, ReadinessModel

COLUMNS = ("user_id", "item_id", "timestamp", "correct", "skill_id")

# Learner id -> that learner's answers in order. A dict keeps the order of first appearance.
Log = dict[str, list[Answer]]


class LogError(ValueError):
    """A log that cannot be read: the message says which file, which line, and why."""


def read_log(path: str | Path) -> Log:
    """Read a log file; rows of a learner keep their file order (the order they answered in),
    and learners may be interleaved. Raises LogError on a missing file, a header without the
    five columns, a short row, or a `correct` that is not a number from 0 to 1."""
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
        score = _score(correct)
        if score is None:
            raise LogError(
                f"{name}: line {number}: correct is {correct!r}, expected 0 or 1 (or a score "
                "between for a partly right answer)."
            )
        user = row[user_at].strip()
        answer = Answer(row[item_at].strip(), row[skill_at].strip(), score)
        sequence = log.get(user)
        if sequence is None:
            log[user] = [answer]
        else:
            sequence.append(answer)
    if not log:
        raise LogError(f"{name}: no answers after the header.")
    return log


def _score(text: str) -> float | None:
    """A log's `correct`: "1" and "0" as True and False (the logs of choice questions), else
    a number from 0 to 1; None for anything else."""
    if text in ("0", "1"):
        return text == "1"
    try:
        value = float(text)
    except ValueError:
        return None
    return value if 0.0 <= value <= 1.0 else None


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


def auc(predictions: Sequence[float], outcomes: Sequence[float]) -> float:
    """Area under the ROC curve as the Mann-Whitney rank statistic, tied predictions sharing
    their average rank (a tie between a right and a wrong answer counts one half). NaN when
    only one outcome occurs.

    A partly right answer (an outcome y between 0 and 1) counts as y of a right answer and
    1 - y of a wrong one: the share of pairs, weighted so, in which the answer more right
    was predicted higher (an answer is not paired with itself). With outcomes of 0 and 1
    only, this is the usual AUC."""
    if any(0.0 < outcome < 1.0 for outcome in outcomes):
        return _weighted_auc(predictions, outcomes)
    positives = sum(1 for outcome in outcomes if outcome)
    negatives = len(outcomes) - positives
    if positives == 0 or negatives == 0:
        return math.nan
    rank_sum = _ranked_sum(predictions, outcomes)
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


def _ranked_sum(predictions: Sequence[float], weights: Sequence[float]) -> float:
    """The sum of each weight times its prediction's average rank (ranks start at 1; tied
    predictions share the mean of their ranks)."""
    order = sorted(range(len(predictions)), key=predictions.__getitem__)
    total = 0.0
    start = 0
    while start < len(order):
        end = start
        value = predictions[order[start]]
        while end + 1 < len(order) and predictions[order[end + 1]] == value:
            end += 1
        average_rank = (start + end) / 2 + 1
        total += average_rank * sum(float(weights[order[k]]) for k in range(start, end + 1))
        start = end + 1
    return total


def _weighted_auc(predictions: Sequence[float], outcomes: Sequence[float]) -> float:
    """`auc` with fractional outcomes: sum over pairs i != j of y_i (1 - y_j) H(p_i - p_j)
    (H: 1 above, 1/2 tied) over sum of y_i (1 - y_j). With average ranks r_i, the sum over
    every j of H(p_i - p_j) is r_i - 1/2 and the pairs of two positive weights give half of
    (sum y)^2, so the numerator over all pairs is sum y_i (r_i - 1/2) - (sum y)^2 / 2, less
    the self-pairs' y_i (1 - y_i) / 2."""
    positives = sum(outcomes)
    negatives = len(outcomes) - positives
    selves = sum(y * (1.0 - y) for y in outcomes)
    pairs = positives * negatives - selves
    if pairs <= 1e-12:
        return math.nan
    weighted = _ranked_sum(predictions, outcomes) - positives / 2
    return (weighted - positives * positives / 2 - selves / 2) / pairs


def rmse(predictions: Sequence[float], outcomes: Sequence[float]) -> float:
    total = sum((p - y) ** 2 for p, y in zip(predictions, outcomes, strict=True))
    return math.sqrt(total / len(predictions))


def logloss(predictions: Sequence[float], outcomes: Sequence[float]) -> float:
    """Mean negative log-likelihood, the predictions clipped to [1e-15, 1 - 1e-15]; a partly
    right answer's score y is a fractional target, -y log p - (1 - y) log(1 - p)."""
    total = 0.0
    for p, y in zip(predictions, outcomes, strict=True):
        p = min(max(p, LOGLOSS_CLIP), 1.0 - LOGLOSS_CLIP)
        if y == 0.0 or y == 1.0:
            total -= math.log(p if y else 1.0 - p)
        else:
            total -= y * math.log(p) + (1.0 - y) * math.log(1.0 - p)
    return total / len(predictions)


def ece(predictions: Sequence[float], outcomes: Sequence[float], bins: int = 10) -> float:
    """Expected calibration error over equal-width bins of the predicted probability: the
    share-weighted mean of |mean outcome - mean prediction| per bin (1.0 falls in the last).
    A partly right answer's outcome is its score: the prediction is its expected score."""
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


def score(predictions: Sequence[float], outcomes: Sequence[float]) -> Scores:
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


def replay(model: ReadinessModel, log: Log) -> tuple[list[float], list[float]]:
    """Predict every answer from that learner's earlier answers only (and the fitted model),
    then reveal it and update the learner. Questions are not updated: a test learner's answers
    never reach another test learner. Returns the predictions and the answers' scores, in the
    log's order (learner after learner)."""
    logits, outcomes = model.replay(log.values())
    return [model.calibrate(logit) for logit in logits], outcomes


@dataclass(frozen=True)
class FreshCheck:
    """The readiness of a question met fresh against the learners' first answers to each
    question: how many, the mean readiness and the share right (0 to 1), and the ECE."""

    n: int
    readiness: float
    right: float
    ece: float

    def as_dict(self) -> dict[str, float | int]:
        return {
            "n": self.n,
            "readiness": round(self.readiness, 6),
            "right": round(self.right, 6),
            "ece": round(self.ece, 6),
        }


def fresh_check(model: ReadinessModel, log: Log) -> FreshCheck | None:
    """What the readiness promises against what happens: before each learner's first answer to
    each question, the probability the model gives that question met fresh (as the readiness
    and the forecast do, `progress.engine.fresh`), set against the answer. Replays as `replay`
    does (`fresh.first_answers`), questions unchanged; None for a log without answers."""
    readiness: list[float] = []
    outcomes: list[float] = []
    for learner, topic_id, _item_id, item, score in fresh.first_answers(model, log.values()):
        readiness.append(model.predict(learner, topic_id, None, item=item).probability)
        outcomes.append(float(score))
    if not readiness:
        return None
    return FreshCheck(
        n=len(readiness),
        readiness=math.fsum(readiness) / len(readiness),
        right=math.fsum(outcomes) / len(outcomes),
        ece=ece(readiness, outcomes),
    )


def partial_items(*logs: Log) -> set[str]:
    """The questions that gave partial credit: those with a partly right answer in a log."""
    return {
        answer.item_id
        for log in logs
        for answers in log.values()
        for answer in answers
        if 0.0 < answer.score < 1.0
    }


def scores_apart(
    log: Log, predictions: Sequence[float], outcomes: Sequence[float], partial: set[str]
) -> tuple[Scores | None, Scores | None]:
    """The scores of the answers to the questions with partial credit, and of the others
    (None for a side with no answers), from `replay`'s predictions of this log."""
    sides: tuple[tuple[list[float], list[float]], ...] = (([], []), ([], []))
    items = (answer.item_id for answers in log.values() for answer in answers)
    for item_id, p, y in zip(items, predictions, outcomes, strict=True):
        side = sides[0] if item_id in partial else sides[1]
        side[0].append(p)
        side[1].append(y)
    with_partial, without = (score(*side) if side[0] else None for side in sides)
    return with_partial, without


def log_from_rows(rows: Iterable[tuple[object, object, object, float]]) -> Log:
    """A log from (learner, question, topic, score) rows already in answering order per
    learner; ids become strings (a missing topic becomes "")."""
    log: Log = {}
    for learner, item, topic, score in rows:
        answer = Answer(str(item), "" if topic is None else str(topic), float(score))
        log.setdefault(str(learner), []).append(answer)
    return log


# The metrics a table prints, by name, and their fields of `Scores`.
METRICS = (("AUC", "auc"), ("RMSE", "rmse"), ("log-loss", "logloss"), ("ECE", "ece"))


@dataclass(frozen=True)
class Evaluation:
    train_learners: int
    train_answers: int
    test_learners: int
    scores: Scores
    fit_seconds: float
    replay_seconds: float
    fit_report: fitting.FitReport
    # Apart, when the test log has both: the answers to questions that gave partial credit
    # (a partly right answer in either log), and the answers to the others.
    partial_scores: Scores | None = None
    other_scores: Scores | None = None
    # The readiness of a question met fresh against the test learners' first answers.
    fresh: FreshCheck | None = None

    def as_dict(self) -> dict[str, object]:
        """The JSON line: the scores of every answer, and of each side apart when there are
        both (`partial`, `other`)."""
        data: dict[str, object] = dict(self.scores.as_dict())
        if self.partial_scores is not None and self.other_scores is not None:
            data["partial"] = self.partial_scores.as_dict()
            data["other"] = self.other_scores.as_dict()
        if self.fresh is not None:
            data["fresh"] = self.fresh.as_dict()
        return data

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
                f"kept{sample}; {report.stop}; {_refit(report)}"
                f"filter {settings}; {report.merged()}{'; ' if report.others else ''}"
                f"Platt slope {report.slope:.3f}, intercept {report.intercept:+.3f}; "
                f"{report.forecast_kept()}",
            ),
            ("time", f"fit {self.fit_seconds:.1f} s, replay {self.replay_seconds:.1f} s"),
        ]
        width = max(len(label) for label, _ in rows)
        lines = [f"{label:<{width}}  {text}" for label, text in rows]
        lines.append("")
        sides = [("value", scores)]
        partial, other = self.partial_scores, self.other_scores
        if partial is not None and other is not None:
            sides += [("partial", partial), ("other", other)]
        lines.append(f"{'metric':<8}" + "".join(f"  {name:>8}" for name, _ in sides))
        for name, metric in METRICS:
            values = "".join(f"  {getattr(side, metric):>8.4f}" for _, side in sides)
            lines.append(f"{name:<8}{values}")
        if partial is not None and other is not None:
            lines.append(
                f"partial: the {partial.n:,} answers to questions with partial credit; "
                f"other: the {other.n:,} others"
            )
        if self.fresh is not None:
            fresh = self.fresh
            lines.append(
                f"fresh: a question met fresh, on the test learners' {fresh.n:,} first answers "
                f"to a question: readiness {100 * fresh.readiness:.1f}%, "
                f"{100 * fresh.right:.1f}% right, ECE {fresh.ece:.4f}"
            )
        return lines


def _refit(report: fitting.FitReport) -> str:
    if not report.refit_passes:
        return ""
    passes = report.refit_passes
    return f"refitted on every train learner in {passes} pass{'' if passes == 1 else 'es'}; "


def evaluate(
    train: Log, test: Log, *, seed: int = 0, config: fitting.FitConfig | None = None
) -> Evaluation:
    """Fit on the train learners alone (hyper-parameters included), then replay the test
    learners, each answer predicted from that learner's earlier answers only."""
    started = time.perf_counter()
    model, report = fitting.fit(list(train.values()), seed=seed, config=config)
    fitted = time.perf_counter()
    predictions, outcomes = replay(model, test)
    done = time.perf_counter()
    partial_scores, other_scores = scores_apart(
        test, predictions, outcomes, partial_items(train, test)
    )
    return Evaluation(
        train_learners=len(train),
        train_answers=count_answers(train),
        test_learners=len(test),
        scores=score(predictions, outcomes),
        fit_seconds=fitted - started,
        replay_seconds=done - fitted,
        fit_report=report,
        partial_scores=partial_scores,
        other_scores=other_scores,
        # The yardstick has no readiness to check.
        fresh=None if config is not None and config.logistic_only else fresh_check(model, test),
    )


def seeds_summary(runs: Sequence[tuple[int, Evaluation]]) -> tuple[list[str], dict[str, object]]:
    """Several runs of the same evaluation with different seeds: a table of each run, their
    mean and their range, and the JSON line (`mean`, `runs`). A fit's figures move with its
    seed (which training learners are held out, the passes' order, the random starts), so one
    run can be a lucky one; the mean of several is the figure to compare."""
    metrics = [metric for _, metric in METRICS]
    header = f"{'seed':<6}" + "".join(f"  {name:>8}" for name, _ in METRICS)
    lines = [header + "       passes kept   fit s"]
    for seed, run in runs:
        report = run.fit_report
        values = "".join(f"  {getattr(run.scores, m):>8.4f}" for m in metrics)
        lines.append(f"{seed:<6}{values}  {report.passes_kept():>17}  {run.fit_seconds:>6.1f}")
    mean = {m: math.fsum(getattr(run.scores, m) for _, run in runs) / len(runs) for m in metrics}
    spread = {
        m: max(getattr(run.scores, m) for _, run in runs)
        - min(getattr(run.scores, m) for _, run in runs)
        for m in metrics
    }
    lines.append(f"{'mean':<6}" + "".join(f"  {mean[m]:>8.4f}" for m in metrics))
    lines.append(f"{'range':<6}" + "".join(f"  {spread[m]:>8.4f}" for m in metrics))
    data: dict[str, object] = {
        "seeds": [seed for seed, _ in runs],
        "mean": {m: round(mean[m], 6) for m in metrics},
        "runs": [{"seed": seed, **run.as_dict()} for seed, run in runs],
    }
    return lines, data
