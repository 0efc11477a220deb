"""A question met fresh, calibrated: the scaling of the readiness's logit. Plain Python, no
Django.

The readiness and the forecast predict questions met fresh, on an exam, not right after the
learner's last few answers. The model's streak terms (the total pattern, the topic's and the
question's context weights, the topic gap and the trace) say how the very next answer goes
after those, so for a question met fresh `ReadinessModel._logit` puts their mean over the
topic's training answers (`ModelParams.context_means`) in their place. That gives the mean
logit, not the mean probability, and the terms are not independent of the rest of the logit:
a learner on a run of right answers is also one the abilities rate high. On the OLI Statics
log, whose steps follow each other within a problem, the terms spread by 0.93 of a logit and
go with the rest of the logit (correlation 0.41), and on the test learners' first answers to
questions the readiness of a question met fresh averaged 81.4% where the model's own
predictions of the same answers averaged 77.3% and the answers were 77.3% right (ECE 0.047):
the readiness promised learners more than the model expected of them. Averaging the
probability over how the terms spread on each topic, taken as independent of the rest, closed
only half of it (78.7% on the training learners' first answers, against 76.6%).

So the fit calibrates the fresh logit as the Platt scaling calibrates the model's
(`estimate`): a slope and an intercept on the calibrated logit of the question met fresh,
fitted so that its probability matches the model's own calibrated prediction of the same
answer, over every training learner's first answer to each question (a question met fresh has
no history with the learner, as on those answers). The targets are the model's predictions,
not the outcomes: those are already calibrated on held-out learners, where the outcomes of
the training answers were fitted (fitted on the outcomes, the scaling held Statics' training
learners to ECE 0.003 but its test learners to 0.013; on the predictions, 0.013 and 0.007).
Where the terms do not matter (simulated learners, whose answers follow no streak) the
scaling comes out near slope 1 and intercept 0, and changes nothing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from progress.engine.learner_model import (
    Answer,
    ItemState,
    LearnerState,
    ReadinessModel,
    sigmoid,
)

__all__ = ["MIN_ANSWERS", "FreshScaling", "estimate", "first_answers"]

# Fewer first answers than this say too little to fit two numbers on: the scaling stays 1, 0.
MIN_ANSWERS = 200
# Newton's method on the two numbers stops here: when a step moves them by less than the
# tolerance, or after the rounds (the log-loss is convex and the start is near; on the logs
# it takes 4 to 5 rounds).
_TOLERANCE = 1e-9
_ROUNDS = 50


@dataclass(frozen=True, slots=True)
class FreshScaling:
    """The scaling of a fresh question's calibrated logit (slope 1 and intercept 0: none), and
    the first answers it was fitted on."""

    slope: float = 1.0
    intercept: float = 0.0
    answers: int = 0


def first_answers(
    model: ReadinessModel, sequences: Iterable[Sequence[Answer]]
) -> Iterator[tuple[LearnerState, str, str, ItemState, float]]:
    """Each learner replayed through `model` (the questions unchanged), stopping just before
    their first answer to each question: the learner's state then, the topic and question
    ids, the question's state and the answer's score. The state is the replay's own and
    moves on."""
    params = model.params
    new_item = ItemState(0.0, params.item_variance, 0)
    for answers in sequences:
        learner = model.new_learner()
        seen: set[str] = set()
        for item_id, topic_id, score in answers:
            item = params.items.get(item_id, new_item)
            if item_id not in seen:
                seen.add(item_id)
                yield learner, topic_id, item_id, item, score
            model.update_learner(learner, topic_id, item_id, score, item=item)


def estimate(model: ReadinessModel, sequences: Sequence[Sequence[Answer]]) -> FreshScaling:
    """The scaling of the module docstring, from every learner's first answer to each
    question (`first_answers`). The result is the same for the same model and sequences."""
    fresh: list[float] = []
    targets: list[float] = []
    for learner, topic_id, item_id, item, _score in first_answers(model, sequences):
        topic = model.topic_state(learner, topic_id)
        fresh.append(model.calibrated_logit(model._logit(learner, topic, topic_id, item, None)))
        # The question's own history is empty on a first answer: its id adds only the context.
        in_context = model._logit(learner, topic, topic_id, item, item_id)
        targets.append(model.calibrate(in_context))
    if len(fresh) < MIN_ANSWERS:
        return FreshScaling(answers=len(fresh))
    slope, intercept = _logistic(fresh, targets)
    return FreshScaling(slope=slope, intercept=intercept, answers=len(fresh))


def _logistic(logits: Sequence[float], targets: Sequence[float]) -> tuple[float, float]:
    """The slope and intercept minimising the log-loss of sigmoid(intercept + slope x logit)
    against the targets (probabilities), by Newton's method from 1 and 0."""
    slope, intercept = 1.0, 0.0
    for _ in range(_ROUNDS):
        g_slope = g_intercept = h_ss = h_si = h_ii = 0.0
        for z, target in zip(logits, targets, strict=True):
            q = sigmoid(intercept + slope * z)
            error, weight = q - target, q * (1.0 - q)
            g_intercept += error
            g_slope += error * z
            h_ii += weight
            h_si += weight * z
            h_ss += weight * z * z
        determinant = h_ii * h_ss - h_si * h_si
        if determinant <= 0.0 or not math.isfinite(determinant):
            break  # every logit alike: nothing to fit a slope on
        step_intercept = (h_ss * g_intercept - h_si * g_slope) / determinant
        step_slope = (h_ii * g_slope - h_si * g_intercept) / determinant
        intercept -= step_intercept
        slope -= step_slope
        if abs(step_intercept) + abs(step_slope) < _TOLERANCE:
            break
    return slope, intercept
