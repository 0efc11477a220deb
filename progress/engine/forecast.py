"""The pass likelihood and the per-topic readiness shown to a learner, from the learner model
(`learner_model`). Plain Python, no Django: the readiness room builds the plans and calls it.

What is predicted is a mock exam of a given shape: each topic gives `drawn` questions, drawn at
random from its published questions, and the learner passes with at least `pass_percent` of
all the questions right. Every question is treated as one the learner meets fresh (the real
exam has other questions), so no feature of the learner's history with a particular question
enters its prediction; the topic and overall history features do.

Method:

1. For each published question the model gives a calibrated logit m (Platt-scaled; see
   `ReadinessModel.calibrate`), and sigmoid(m) is its predictive P(correct): the probability
   averaged over what the model does not know about the learner. Averaging over each
   question separately would treat the questions as independent, but they are not: a learner
   who is stronger than the model thinks is stronger on all of them. So the outcome of a
   question is modelled as sigmoid(x) with x normal: mean mu, and spread
   sigma^2 = slope^2 * (variance of the overall ability + variance of the topic offset), the
   learner's uncertainty as the filter tracks it, carried to the calibrated scale by the Platt
   slope, each variance times the factor the fit calibrated for it a stretch of answers ahead
   (`ModelParams.forecast_overall_scale` and `forecast_topic_scale`, `progress.engine.spread`:
   the filter's settings are chosen for the next answer, not for a score weeks off). The
   overall ability is shared by all the topics of the exam; each topic's offset is its own.
   The question is met fresh (the streak terms at their mean, `ReadinessModel._logit`), and
   its calibrated logit is scaled as the fit calibrated such a question on the training
   learners' first answers (`ModelParams.fresh_slope` and `fresh_intercept`,
   `progress.engine.fresh`): the probability at the mean of those terms is not their mean
   probability.
   The mean is stretched so that the marginal stays the calibrated probability:
   E[sigmoid(x)] ~ sigmoid(mu / sqrt(1 + pi sigma^2 / 8)) (the probit approximation of the
   logistic-normal integral), so mu = m * sqrt(1 + pi sigma^2 / 8).
2. Given the abilities, a question drawn at random from a topic is right with the mean of
   the topic's probabilities, so the topic's count right out of `drawn` is binomial with that
   mean (drawing without replacement would make it a little narrower; the difference is
   small when a topic has several times more questions than it gives to an exam).
3. The abilities are integrated out by Gauss-Hermite quadrature: OVERALL_NODES nodes for the
   overall ability (more for a very unsure learner on a long exam, see `_overall_nodes`)
   and, at each of them, TOPIC_NODES nodes for each topic's offset. At an overall node, each
   topic's count distribution is a mix over its offset nodes, and the topics are
   independent, so the distribution of the exam's total count (0..N) is their convolution
   (a Poisson-binomial over topics, exact). The totals at the overall nodes are mixed with
   the quadrature weights. Checked against 30 and 20 nodes without bins: P(pass)
   within 0.001, the range within 0.1 of a point.
4. P(pass) = P(total >= ceil(pass_percent / 100 * N)), and the expected score is the mean of
   the total (within 0.1 of a point of the mean calibrated probability while the ability
   variances add up to less than about 2, the difference being the probit approximation's;
   half a point at 3). The 80% range of the score is the 10th and 90th percentiles of the
   total, each count spread evenly over [c - 1/2, c + 1/2] (a continuity correction), so
   the range moves smoothly rather than in whole questions and holds about 80% of the
   scores on average (taking the counts where the CDF crosses 0.1 and 0.9 would hold more).
5. A topic's questions are summarised before the quadrature: up to EXACT_ITEMS questions
   are used one by one; more are put in bins BIN_WIDTH wide on the stretched logit, each bin
   standing for its questions at their mean logit (an error of a few parts in 10,000 on a
   probability). One pass over the questions, then the cost depends on the number of bins
   (about 30 for a bank spread like N(0, 1)), not on the size of the bank.

For the study plan's exam-day projection, `forecast_exam` also takes learning to come
(`TopicLearning`): a topic's shift is added to mu after the stretch, as the learner's true
logit moves, and its variance to the spread of the topic's offset (see forecast_exam).

Left out: the learner-profile term of the model (its variance is small after a few dozen
answers and it is spread over the questions, not shared by a topic) and the uncertainty of
each question's difficulty (independent from question to question, so over a topic's questions
it mostly averages out). The calibrated probabilities themselves include both terms' means.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from itertools import repeat
from operator import add, mul

from progress.engine.learner_model import Z80, ItemState, LearnerState, ReadinessModel

# Answers a topic needs before the pass likelihood is shown.
MIN_TOPIC_ANSWERS = 5

# Quadrature nodes. The overall ability moves every question of the exam together, so it
# sets the shape of the score distribution and gets more nodes; a topic offset moves only
# its topic's share of the questions. OVERALL_NODES is the least: a very unsure learner on a
# long exam gets more (see `_overall_nodes`), up to MAX_OVERALL_NODES.
OVERALL_NODES = 9
MAX_OVERALL_NODES = 32
TOPIC_NODES = 5

# The summary of a topic's questions (see the module docstring, point 5).
EXACT_ITEMS = 32
BIN_WIDTH = 0.25

# A spread below this (on the calibrated logit scale, as a variance) is no spread: one node.
_NO_SPREAD = 1e-12
# Logits and shifts are kept within these, so exp() never overflows (it does past 709);
# sigmoid(30) is 1 - 1e-13.
_LOGIT_LIMIT = 30.0
_POINT_LIMIT = 300.0
# An item state for the topic's base logit: no difficulty, no profile.
_BLANK_ITEM = ItemState(difficulty=0.0, variance=0.0, answers=0, profile=[])


@dataclass(frozen=True)
class TopicPlan:
    """One topic of the exam: how many questions it gives to a mock exam (already split by
    blueprint weight), and its published questions, each with its stored state, or None for
    a question with no state yet (an average new question)."""

    topic_id: str
    drawn: int
    items: Sequence[tuple[str, ItemState | None]]


@dataclass(frozen=True)
class TopicLearning:
    """Learning projected on a topic by some later date (the study plan's), on the calibrated
    logit scale: what the learner's logit on every question of the topic rises by (`shift`),
    and the variance that the projection adds to the topic's offset (`variance`: the luck of
    the answers that teach it). See `forecast_exam`."""

    shift: float
    variance: float = 0.0


@dataclass(frozen=True)
class TopicForecast:
    """Expected percent correct (0-100) on the topic's published questions, with its 80% range
    from the uncertainty of the learner's abilities, and the learner's answers on the topic."""

    topic_id: str
    percent: float
    low: float
    high: float
    answers: int


@dataclass(frozen=True)
class ExamForecast:
    """P(score on a mock exam of this shape >= pass mark), the expected score and its 80%
    predictive range (percent), the plan's topics, and the topics still short of answers."""

    pass_probability: float
    expected_percent: float
    low_percent: float
    high_percent: float
    pass_percent: float
    questions: int
    topics: list[TopicForecast]
    missing: list[tuple[str, int]]


@dataclass(frozen=True, slots=True)
class _Summary:
    """A topic ready for the quadrature: its points' shares and exp(-mu) (mu: the stretched
    calibrated logit), and the spread of its offset on the calibrated scale (slope x
    standard deviation)."""

    drawn: int
    shares: list[float]
    exps: list[float]
    offset_spread: float


@cache
def gauss_hermite(n: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Nodes and weights of n-point Gauss-Hermite quadrature for a standard normal variable:
    E[f(Z)] ~ sum of weight * f(node), exact for polynomials of degree up to 2n - 1. The
    nodes are the roots of the probabilists' Hermite polynomial He_n, bracketed by a scan for
    sign changes and polished by Newton's method. Cached: computed once per n."""
    if n < 1:
        raise ValueError(f"quadrature needs at least one node, not {n}.")

    def hermite(x: float) -> tuple[float, float]:
        """He_n(x) and He_(n-1)(x), by the recurrence He_(k+1) = x He_k - k He_(k-1)."""
        before, now = 0.0, 1.0
        for k in range(n):
            before, now = now, x * now - k * before
        return now, before

    # All roots lie within sqrt(4n + 2); neighbouring roots are more than 0.1 apart for the
    # n used here, so a scan in steps of 0.01 brackets each one alone.
    limit = math.sqrt(4 * n + 2)
    steps = int(2 * limit / 0.01) + 1
    roots: list[float] = []
    x0 = -limit
    f0 = hermite(x0)[0]
    for step in range(1, steps + 1):
        x1 = -limit + step * 0.01
        f1 = hermite(x1)[0]
        if f0 == 0.0:
            roots.append(x0)
        elif f0 * f1 < 0.0:
            a, b = x0, x1
            for _ in range(40):  # bisection to within 1e-14, then Newton for the last bits
                mid = 0.5 * (a + b)
                if hermite(mid)[0] * hermite(a)[0] <= 0.0:
                    b = mid
                else:
                    a = mid
            x = 0.5 * (a + b)
            for _ in range(3):
                value, previous = hermite(x)
                if previous == 0.0:
                    break
                x -= value / (n * previous)  # He_n' = n He_(n-1)
            roots.append(x)
        x0, f0 = x1, f1
    if n % 2 == 1:
        roots[n // 2] = 0.0  # the middle root is 0 exactly
    if len(roots) != n:
        raise ArithmeticError(f"found {len(roots)} roots of He_{n}, expected {n}.")
    # w_i = (n - 1)! / (n He_(n-1)(x_i)^2) for the standard normal density.
    factorial = math.factorial(n - 1)
    weights = [factorial / (n * hermite(x)[1] ** 2) for x in roots]
    total = sum(weights)
    return tuple(roots), tuple(w / total for w in weights)


def _nodes(spread: float, n: int) -> list[tuple[float, float]]:
    """(shift, weight) for a normal with standard deviation `spread`; one node when none."""
    if spread * spread < _NO_SPREAD:
        return [(0.0, 1.0)]
    nodes, weights = gauss_hermite(n)
    return [(spread * x, w) for x, w in zip(nodes, weights, strict=True)]


def _overall_nodes(spread: float, questions: int) -> int:
    """Nodes enough for the overall ability. Given the abilities, the total count of N
    questions has a spread of at least 2 / sqrt(N) on the logit scale (at p = 1/2); the
    middle nodes of n-point quadrature are about spread x pi / sqrt(n) apart. Mixing
    distributions that far apart gives a lumpy score distribution once the gap passes about
    three times that spread (checked against 30 nodes: P(pass) within 0.001 up to there), so
    n >= (spread x pi x sqrt(N) / 6)^2."""
    needed = math.ceil((spread * math.pi * math.sqrt(questions) / 6.0) ** 2)
    return min(max(needed, OVERALL_NODES), MAX_OVERALL_NODES)


def _mean_probability(shares: list[float], exps: list[float], shift: float) -> float:
    """sum of share * sigmoid(mu + shift) over a topic's points, given exp(-mu) for each: the
    mean P(correct) of its questions. One exp() in all, then a multiply and a divide a point."""
    es = math.exp(-min(max(shift, -_POINT_LIMIT), _POINT_LIMIT))
    return sum([s / (1.0 + e * es) for s, e in zip(shares, exps, strict=True)])


def _binomial(n: int, p: float) -> list[float]:
    """P(k right out of n) for k = 0..n, each right with probability p. Costs n steps."""
    if p <= 0.0:
        return [1.0] + [0.0] * n
    if p >= 1.0:
        return [0.0] * n + [1.0]
    flip = p > 0.5  # compute with p <= 1/2: the first term (1 - p)^n >= 2^-n, far from 0
    if flip:
        p = 1.0 - p
    q = 1.0 - p
    first = q**n
    if first > 1e-280:
        ratio = p / q
        term = first
        pmf = [first]
        for k in range(n):
            term *= ratio * (n - k) / (k + 1)
            pmf.append(term)
    else:  # more than about 900 questions: the terms from logs, so nothing underflows early
        lp, lq, ln = math.log(p), math.log(q), math.lgamma(n + 1)
        pmf = [
            math.exp(ln - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * lp + (n - k) * lq)
            for k in range(n + 1)
        ]
    if flip:
        pmf.reverse()
    return pmf


def _convolve(a: list[float], b: list[float]) -> list[float]:
    """The distribution of the sum of two independent counts. Costs len(a) x len(b)."""
    if len(b) > len(a):
        a, b = b, a
    out = [0.0] * (len(a) + len(b) - 1)
    width = len(a)
    for k, bk in enumerate(b):
        if bk:
            out[k : k + width] = map(add, out[k : k + width], map(mul, a, repeat(bk)))
    return out


def _summarise(
    model: ReadinessModel,
    learner: LearnerState,
    plan: TopicPlan,
    learning: TopicLearning | None = None,
    overall_extra: float = 0.0,
) -> tuple[TopicForecast, _Summary]:
    """The topic's readiness, and its questions summarised for the quadrature. One pass over
    the questions, with a dictionary look-up and an exp() each. With `learning`, the topic as
    it will be: see `forecast_exam` (`overall_extra` is the variance it adds overall)."""
    p = model.params
    topic = learner.topics.get(plan.topic_id) or model.new_topic_state()
    # The logit of the topic's average question; a question's own terms are added below. No
    # item id: no history with the question, as on a fresh one.
    base = model._logit(learner, topic, plan.topic_id, _BLANK_ITEM, None)
    slope, intercept = p.slope, p.intercept
    overall_variance = p.forecast_overall_scale * max(learner.overall.variance, 0.0)
    topic_variance = p.forecast_topic_scale * max(topic.variance, 0.0)
    sigma2 = slope * slope * (overall_variance + topic_variance)
    stretch = math.sqrt(1.0 + math.pi * sigma2 / 8.0)
    shift, extra = (learning.shift, max(learning.variance, 0.0)) if learning else (0.0, 0.0)
    overall_extra = max(overall_extra, 0.0)
    projected = learning is not None or overall_extra > 0.0

    logits: list[float] = []
    if plan.items:
        profile = learner.profile
        for _item_id, state in plan.items:
            z = base
            if state is not None:  # None: an average new question, difficulty 0, no profile
                z -= state.difficulty
                if state.profile:
                    z += sum(map(mul, profile, state.profile))
            logits.append(slope * z + intercept)
    else:
        logits.append(slope * base + intercept)  # no questions yet: an average one
    # Each question is met fresh: the fit's scaling of such a question's logit
    # (`ReadinessModel.fresh_logit`, inlined: one pass over the bank).
    if p.fresh_slope != 1.0 or p.fresh_intercept != 0.0:
        logits = [p.fresh_intercept + p.fresh_slope * m for m in logits]

    if min(logits) < -_LOGIT_LIMIT or max(logits) > _LOGIT_LIMIT:
        logits = [min(max(m, -_LOGIT_LIMIT), _LOGIT_LIMIT) for m in logits]
    exp = math.exp
    n = len(logits)
    if not projected:
        mean = sum([1.0 / (1.0 + exp(-m)) for m in logits]) / n
    else:
        # The marginal of sigmoid(stretch x m + shift + noise), the noise of variance sigma2
        # + what the projection adds (the probit approximation again).
        widened = math.sqrt(1.0 + math.pi * (sigma2 + extra + overall_extra) / 8.0)
        marginals = [(stretch * m + shift) / widened for m in logits]
        mean = sum([1.0 / (1.0 + exp(-max(z, -_POINT_LIMIT))) for z in marginals]) / n
    if n <= EXACT_ITEMS:
        points, shares = [stretch * m for m in logits], [1.0 / n] * n
    else:
        bins: dict[int, list[float]] = {}
        scale = stretch / BIN_WIDTH
        for m in logits:
            key = math.floor(m * scale)
            cell = bins.get(key)
            if cell is None:
                bins[key] = [1.0, m]
            else:
                cell[0] += 1.0
                cell[1] += m
        points = [stretch * total / count for count, total in bins.values()]
        shares = [count / n for count, _total in bins.values()]

    if shift:
        points = [mu + shift for mu in points]
    spread = Z80 * math.sqrt(sigma2 + extra + overall_extra)
    exps = [math.exp(-min(max(mu, -_POINT_LIMIT), _POINT_LIMIT)) for mu in points]
    ends = sorted(
        (_mean_probability(shares, exps, -spread), _mean_probability(shares, exps, spread))
    )
    readiness = TopicForecast(
        topic_id=plan.topic_id,
        percent=100.0 * mean,
        # The summary is approximate: keep the range around the exact mean.
        low=100.0 * min(ends[0], mean),
        high=100.0 * max(ends[1], mean),
        answers=round(topic.wins + topic.fails),  # a partly right answer's shares add to 1
    )
    summary = _Summary(
        drawn=plan.drawn,
        shares=shares,
        exps=exps,
        offset_spread=math.sqrt(slope * slope * topic_variance + extra),
    )
    return readiness, summary


def forecast_topic(model: ReadinessModel, learner: LearnerState, plan: TopicPlan) -> TopicForecast:
    """Expected percent correct on the topic's published questions (each met fresh), with the
    80% range that the uncertainty of the learner's abilities gives it: the mean probability
    at the 10th and 90th percentiles of the abilities (it rises with them, so those are its
    own percentiles). `drawn` is not used. Does not change the learner. Costs one pass over
    the questions."""
    return _summarise(model, learner, plan)[0]


def _quantile(distribution: list[float], q: float) -> float:
    """The q-quantile of a count, each count c spread evenly over [c - 1/2, c + 1/2]."""
    below = 0.0
    for count, mass in enumerate(distribution):
        if mass > 0.0 and below + mass >= q:
            return count - 0.5 + (q - below) / mass
        below += mass
    return len(distribution) - 0.5


def forecast_exam(
    model: ReadinessModel,
    learner: LearnerState,
    plans: Sequence[TopicPlan],
    pass_percent: float,
    *,
    min_answers: int = MIN_TOPIC_ANSWERS,
    learning: Mapping[str, TopicLearning] | None = None,
    learning_rate_variance: float = 0.0,
) -> ExamForecast:
    """The learner's chance of passing a mock exam of this shape, the expected score and its
    80% predictive range (see the module docstring for the method), with each topic's
    readiness in plan order. `missing` lists the topics that give questions to the exam and
    have fewer than `min_answers` answers, with the answers still needed; the figures are
    computed all the same, and the caller should not show the pass likelihood until it is
    empty. With no question drawn (N = 0) there is no exam to pass: pass_probability is 0
    and the percents are 0.

    With `learning` (the study plan's projection), the exam is forecast as it will be after
    that learning: a topic's shift is added to the logit of each of its questions inside the
    integral over the abilities, after the stretch (the learner's true logit rises by the
    shift wherever it stands; stretching the shift with the mean would overstate it by the
    stretch factor), its variance is added to the topic offset's, and
    `learning_rate_variance` to the overall ability's (how fast this learner learns moves
    every topic together). The stretch itself stays the one of today's uncertainty, so the
    marginals today stay the calibrated probabilities.

    Does not change the learner. Costs one pass over the plans' questions, then about
    OVERALL_NODES x TOPIC_NODES x (bins + drawn) steps per topic, plus OVERALL_NODES
    convolutions of the topics' counts (about N^2 / 2 steps each): about 6 ms for 8 topics,
    65 questions and 200 questions a topic on a slow machine.

    Raises ValueError on a negative `drawn`, a topic that gives questions but has none, or
    a pass mark outside 0-100."""
    if not 0.0 <= pass_percent <= 100.0:
        raise ValueError(f"the pass mark is a percent from 0 to 100, not {pass_percent}.")
    p = model.params
    topics: list[TopicForecast] = []
    summaries: list[_Summary] = []
    missing: list[tuple[str, int]] = []
    for plan in plans:
        if plan.drawn < 0:
            raise ValueError(f"topic {plan.topic_id}: drawn is {plan.drawn}, below 0.")
        if plan.drawn > 0 and not plan.items:
            raise ValueError(
                f"topic {plan.topic_id} gives {plan.drawn} questions but has none published."
            )
        readiness, summary = _summarise(
            model,
            learner,
            plan,
            None if learning is None else learning.get(plan.topic_id),
            0.0 if learning is None else learning_rate_variance,
        )
        topics.append(readiness)
        if plan.drawn > 0:
            summaries.append(summary)
            if readiness.answers < min_answers:
                missing.append((plan.topic_id, min_answers - readiness.answers))
    questions = sum(s.drawn for s in summaries)
    if questions == 0:
        return ExamForecast(0.0, 0.0, 0.0, 0.0, pass_percent, 0, topics, missing)

    topic_nodes = [_nodes(s.offset_spread, TOPIC_NODES) for s in summaries]
    overall_spread = math.sqrt(
        p.slope * p.slope * p.forecast_overall_scale * max(learner.overall.variance, 0.0)
        + (max(learning_rate_variance, 0.0) if learning is not None else 0.0)
    )
    mixed = [0.0] * (questions + 1)
    for overall_shift, overall_weight in _nodes(
        overall_spread, _overall_nodes(overall_spread, questions)
    ):
        total = [1.0]
        for summary, nodes in zip(summaries, topic_nodes, strict=True):
            counts = [0.0] * (summary.drawn + 1)
            for topic_shift, weight in nodes:
                mean = _mean_probability(summary.shares, summary.exps, overall_shift + topic_shift)
                pmf = _binomial(summary.drawn, mean)
                counts = list(map(add, counts, map(mul, pmf, repeat(weight))))
            total = _convolve(total, counts)
        mixed = list(map(add, mixed, map(mul, total, repeat(overall_weight))))
    mass = sum(mixed)
    distribution = [m / mass for m in mixed]

    need = math.ceil(pass_percent / 100.0 * questions - 1e-9)
    pass_probability = min(max(sum(distribution[max(need, 0) :]), 0.0), 1.0)
    expected = sum(count * m for count, m in enumerate(distribution))
    low = min(max(_quantile(distribution, 0.1), 0.0), questions)
    high = min(max(_quantile(distribution, 0.9), 0.0), questions)
    scale = 100.0 / questions
    return ExamForecast(
        pass_probability=pass_probability,
        expected_percent=scale * expected,
        low_percent=scale * low,
        high_percent=scale * high,
        pass_percent=pass_percent,
        questions=questions,
        topics=topics,
        missing=missing,
    )


# --- The mock exam's shape ------------------------------------------------------------------


def largest_remainder(total: int, weights: Sequence[Decimal]) -> list[int]:
    """Split `total` in proportion to `weights` so that the parts add up to `total` exactly (a
    mock exam's questions by blueprint weight, on the site and in the simulation alike):
    floor every share, then give the leftover units to the largest fractional parts (ties go
    to the heavier weight, then to the earlier one)."""
    weight_sum = sum(weights, Decimal(0))
    if total <= 0 or weight_sum <= 0:
        return [0] * len(weights)
    shares = [Decimal(total) * weight / weight_sum for weight in weights]
    parts = [int(share) for share in shares]
    leftover = total - sum(parts)
    order = sorted(
        range(len(weights)), key=lambda i: (shares[i] - parts[i], weights[i], -i), reverse=True
    )
    for index in order[:leftover]:
        parts[index] += 1
    return parts
