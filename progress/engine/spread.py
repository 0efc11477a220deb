"""The forecast's spread, calibrated on the training learners: how far the learner's abilities
may really be from the filter's estimate, a stretch of answers ahead. Plain Python, no Django.

The filter's variances (of the overall ability and of each topic's offset) are what the
forecast integrates over (`forecast`). Their settings are chosen by the fit for predicting
the *next* answer on held-out learners, and that criterion does not make them right for a
score some weeks off: on the study plan's simulation, against the simulated learners' truth,
the variance of the overall ability came out claimed about 1.4 times too large, and the
topics' 0.7 to 1.3 times (docs/readiness.md, "The plan, simulated"). So, as the Platt scaling
calibrates the mean, the fit calibrates the spread: one factor on the overall ability's
variance and one on the topics', which the forecast applies (`ModelParams.forecast_*_scale`).

How they are estimated (`estimate`), on the training learners' own answers:

1. Each learner's answers are replayed through the fitted model up to HORIZON answers before
   the end of the history (the plan's learners stand at the end of theirs, and what the
   forecast predicts is how they do after it): the filter's abilities and variances there
   are the estimate and its claimed error.
2. The last answers are predicted with the abilities held where they were (the history
   features, the patterns and the trace move on as the answers come, so the typical
   learning of those answers is in the prediction, not in the residual).
3. A residual r = score - p of such an answer is, to first order, w x (the error of the
   abilities) + the answer's own noise, w = p(1 - p) / stretch (the slope of the forecast's
   marginal, `forecast`). So over two answers of the same learner the product r_i x r_j has
   the expectation w_i w_j (V_overall + V_topic) when the two answers are on one topic and
   w_i w_j V_overall when on two: each answer's own noise, and each question's own error,
   are independent of the other answer's and drop out of the product, where a moment of
   single residuals would have had to model and subtract them. The true variances are taken
   as the claimed ones times a factor (the claims differ from learner to learner and topic to
   topic; the factor is what is off), and the two factors are solved from the sums of those
   products over every learner: pairs across topics give the overall factor, pairs within a
   topic the topic factor with the overall part taken off.
4. Each factor's standard error comes from the spread of the learners' contributions (the
   factor is a ratio of sums over independent learners: the delta method; on ten sets of
   100 simulated learners the errors it gave, 0.47 to 0.83 on average, matched the sets'
   own spread, 0.58 to 0.85). The factor is then shrunk towards 1 on the log scale, by
   PRIOR_LOG_SPREAD^2 / (PRIOR_LOG_SPREAD^2 + relative error^2), so a site with few learners
   keeps the filter's own variances: 1,000 simulated learners of 100 to 300 answers give an
   error near 0.23 and keep 80 to 90% of the estimate's logarithm; 100 give near 0.75 and
   keep about half; a learner with fewer than MIN_ANSWERS answers gives nothing to measure.

The estimate is noisy: a learner's 50 answers carry little about how far off their abilities
are, and the products of pairs are mostly the answers' own luck. It is linear in the error,
so where the variances are large (near 1, a filter with much drift) the factors come out
some 35% too large: the forecast then errs wide, not narrow.

Tried, and not kept (docs/readiness.md): the factors solved from each topic's mean residual
with the answers' noise subtracted (the residuals carried the questions' errors and the
learning, and the factors came out 1.2 to 1.5 where the truth was 0.75); the same products
of residuals from the middle of the histories, or from up to five stretches of 50 answers
each (less noisy, but the topic factor came out 1.2 where the truth was 0.76: the learners
earlier in their histories are not calibrated as at the end); 30, 75 or 100 answers ahead
instead of 50 (the topic factor of one seed of the plan's simulation moved from 0.5 to 1.3).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from progress.engine.learner_model import Answer, ItemState, ReadinessModel, sigmoid

# The answers at the end of each history that are predicted from the state before them.
HORIZON = 50
# A learner with fewer answers is left out; one with fewer than 2 x HORIZON has the second
# half of the history predicted.
MIN_ANSWERS = 10
# The prior spread of each factor around 1, as a standard deviation of its logarithm: a
# factor of 2 either way. The filter's settings are searched on a grid whose steps double,
# and the factors measured against the plan simulation's truth were 0.7 to 1.4.
PRIOR_LOG_SPREAD = math.log(2.0)
# An estimate outside these is taken as these (a factor of 0 would claim a certainty that no
# answer gives; the forecast's stretch needs a finite one).
_LIMITS = (0.1, 10.0)


@dataclass(frozen=True, slots=True)
class SpreadScales:
    """The factors on the overall ability's and the topics' variances (shrunk towards 1),
    with the estimates before the shrinkage and their standard errors, and the learners
    they were measured on (none: both factors 1)."""

    overall: float = 1.0
    topic: float = 1.0
    overall_estimate: float = 1.0
    topic_estimate: float = 1.0
    overall_error: float = math.inf
    topic_error: float = math.inf
    learners: int = 0


@dataclass(frozen=True, slots=True)
class _TopicSums:
    """One learner's predicted answers on one topic: the sums of the residuals, of their
    squares, of p(1 - p) and of its squares, and the topic's claimed variance (on the
    calibrated scale)."""

    residuals: float
    squares: float
    weights: float
    weight_squares: float
    claimed: float


@dataclass(frozen=True, slots=True)
class _Window:
    """A learner's last answers, predicted from the state before them: the overall ability's
    claimed variance there (on the calibrated scale) and the sums of each topic answered."""

    claimed: float
    topics: tuple[_TopicSums, ...]


def _learner_window(model: ReadinessModel, answers: Sequence[Answer]) -> _Window | None:
    """Steps 1 and 2 of the module docstring for one learner (None: too few answers)."""
    n = len(answers)
    if n < MIN_ANSWERS:
        return None
    cut = max(n - HORIZON, n // 2)
    params = model.params
    items = params.items
    new_item = ItemState(0.0, params.item_variance, 0)
    learner = model.new_learner()
    for item_id, topic_id, score in answers[:cut]:
        model.update_learner(learner, topic_id, item_id, score, item=items.get(item_id, new_item))
    overall = learner.overall
    held_overall = (overall.ability, overall.variance)
    held_topics = {t: (s.ability, s.variance) for t, s in learner.topics.items()}
    new_topic = (0.0, params.topic_variance)
    profile, profile_variance = list(learner.profile), list(learner.profile_variance)
    slope, intercept = params.slope, params.intercept
    sums: dict[str, list[float]] = {}
    for item_id, topic_id, score in answers[cut:]:
        logit = model.update_learner(
            learner, topic_id, item_id, score, item=items.get(item_id, new_item)
        )
        # The abilities back where they were: only the history moves on. (In place: the
        # profile was widened, if ever, before the cut.)
        overall.ability, overall.variance = held_overall
        topic = learner.topics[topic_id]
        topic.ability, topic.variance = held_topics.get(topic_id, new_topic)
        learner.profile[:] = profile
        learner.profile_variance[:] = profile_variance
        p = sigmoid(slope * logit + intercept)
        residual, weight = float(score) - p, p * (1.0 - p)
        row = sums.get(topic_id)
        if row is None:
            row = sums[topic_id] = [0.0, 0.0, 0.0, 0.0]
        row[0] += residual
        row[1] += residual * residual
        row[2] += weight
        row[3] += weight * weight
    square = slope * slope
    return _Window(
        claimed=square * held_overall[1],
        topics=tuple(
            _TopicSums(
                residuals=row[0],
                squares=row[1],
                weights=row[2],
                weight_squares=row[3],
                claimed=square * held_topics.get(topic_id, new_topic)[1],
            )
            for topic_id, row in sums.items()
        ),
    )


@dataclass(frozen=True, slots=True)
class _Moments:
    """One learner's sums of residual products (A) and of their expectations per unit of
    factor (D, E, F), for pairs across topics (A_cross = overall x D) and within a topic
    (A_same = overall x E + topic x F)."""

    cross: float
    same: float
    d: float
    e: float
    f: float


def _moments(window: _Window, overall: float, topic: float) -> _Moments:
    """Step 3 for one learner, the slopes w taken at the forecast's stretch under the
    factors given (the stretch depends on the variances it integrates over)."""
    total = squares = same = e = f = spread = spread_squares = 0.0
    for t in window.topics:
        stretch = math.sqrt(1.0 + math.pi * (overall * window.claimed + topic * t.claimed) / 8.0)
        a = t.weights / stretch
        pairs = a * a - t.weight_squares / (stretch * stretch)
        total += t.residuals
        squares += t.residuals * t.residuals
        same += t.residuals * t.residuals - t.squares
        e += window.claimed * pairs
        f += t.claimed * pairs
        spread += a
        spread_squares += a * a
    return _Moments(
        cross=total * total - squares,
        same=same,
        d=window.claimed * (spread * spread - spread_squares),
        e=e,
        f=f,
    )


def _solve(
    learners: Sequence[_Window], overall: float, topic: float
) -> tuple[float, float, float, float]:
    """Both factors from the sums of step 3, with their standard errors (step 4). A factor
    that no pair measures (no learner answered two topics at the end of a history, or none
    twice on one topic) is 1, with an infinite error."""
    moments = [_moments(learner, overall, topic) for learner in learners]
    d = sum(m.d for m in moments)
    e = sum(m.e for m in moments)
    f = sum(m.f for m in moments)
    overall_estimate, overall_error = 1.0, math.inf
    influence = [0.0] * len(moments)
    if d > 0.0:
        overall_estimate = sum(m.cross for m in moments) / d
        influence = [(m.cross - overall_estimate * m.d) / d for m in moments]
        overall_error = math.sqrt(sum(x * x for x in influence))
    if f <= 0.0:
        return overall_estimate, overall_error, 1.0, math.inf
    topic_estimate = (sum(m.same for m in moments) - overall_estimate * e) / f
    topic_error = math.sqrt(
        sum(
            ((m.same - overall_estimate * m.e - topic_estimate * m.f - e * x) / f) ** 2
            for m, x in zip(moments, influence, strict=True)
        )
    )
    return overall_estimate, overall_error, topic_estimate, topic_error


def _shrunk(estimate: float, error: float) -> float:
    """Step 4: the factor shrunk towards 1 on the log scale (a factor of 2 and one of 1/2 are
    as far off), the estimate's error carried there by the delta method."""
    if not math.isfinite(error) or estimate <= 0.0:
        return 1.0
    relative = error / estimate
    keep = PRIOR_LOG_SPREAD**2 / (PRIOR_LOG_SPREAD**2 + relative * relative)
    return min(max(math.exp(keep * math.log(estimate)), _LIMITS[0]), _LIMITS[1])


def estimate(model: ReadinessModel, sequences: Sequence[Sequence[Answer]]) -> SpreadScales:
    """The factors on the forecast's variances (see the module docstring), measured on these
    learners' answer sequences through the fitted `model`, which is read and not changed.
    Costs a replay of the answers (one `update_learner` each). Deterministic."""
    learners = [w for w in (_learner_window(model, answers) for answers in sequences) if w]
    if not learners:
        return SpreadScales()
    overall, topic = 1.0, 1.0
    # The slopes depend on the factors through the stretch (a few percent): a fixed point,
    # which three rounds reach to well within the errors.
    for _round in range(3):
        overall_estimate, overall_error, topic_estimate, topic_error = _solve(
            learners, overall, topic
        )
        overall = min(max(overall_estimate, _LIMITS[0]), _LIMITS[1])
        topic = min(max(topic_estimate, _LIMITS[0]), _LIMITS[1])
    return SpreadScales(
        overall=_shrunk(overall_estimate, overall_error),
        topic=_shrunk(topic_estimate, topic_error),
        overall_estimate=overall_estimate,
        topic_estimate=topic_estimate,
        overall_error=overall_error,
        topic_error=topic_error,
        learners=len(learners),
    )
