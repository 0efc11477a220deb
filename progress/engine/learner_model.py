"""The learner model behind readiness: P(correct) for a learner on a question, updated in O(1)
after each answer. Plain Python, no Django: it is fitted, tested and benchmarked alone.

On the logit scale, for learner u answering question i of topic s:

    logit = bias - difficulty[s] - difficulty[i]                            (Rasch / 1PL IRT)
            + win_weight[s] * log(1 + wins on s) + fail_weight[s] * log(1 + fails on s)  (PFA)
            + weights . history features  +  pattern_weight[last answers on s]
            + total_pattern_weight[last answers in all topics]
            + (context_weights[s] + scale * context_weights[i]) . context  (question x recent)
            + ability[u] + ability[u, s]                     (Elo-like, tracked with variances)
            + profile[u] . profile[i]                       (a low-rank learner x question term)
    P(correct) = sigmoid(slope * logit + intercept)                          (Platt scaling)

Why each part, and where it comes from (no code was copied; these are the ideas):

- Question and topic difficulties are the Rasch model's. Pelanek (Computers & Education 2016)
  shows Elo estimates them online; here they are fitted on past answers, and afterwards a new
  answer moves a question's difficulty by a step that shrinks with its uncertainty.
- The history features are those of the "Best-LR" logistic regression of Gervet, Koedinger,
  Schneider & Mitchell (JEDM 2020), which matches deep knowledge tracing on public logs:
  log(1 + count) of the learner's earlier right and wrong answers on the topic (with per-topic
  weights, as in Pavlik, Cen & Koedinger's PFA, 2009), on this very question (a question seen
  before is easier, or, when it was got wrong, harder), and in total. Added to them: the last
  one to four answers on the topic, and apart the last one to four in all topics, as patterns
  (the n-gram features of Schmucker et al., JEDM 2022), which see streaks. Recency-weighted
  counts (right and wrong answers decayed at 0.5, 0.8 and 0.95 an answer, as in R-PFA) were
  in the model and were taken out: on the public logs they changed AUC by 0.0001, and
  on simulated learners their fitted weights (negative on recent right answers, likely
  tempering the filter's large early steps in the replay) pulled a strong learner's readiness
  down and a weak one's up after a long history, compressing the day-0 estimates of the study
  plan's simulation (docs/readiness.md, "The plan, simulated").
- The context weights let each question weigh the recent answers its own way: its topic's and
  its own weight on whether the learner's previous answer (any topic) was right or wrong, and
  on each of the last three answers on its topic. Schmucker et al. find that such recent
  outcomes carry much of the signal; by question, they capture that a step which follows
  another in a worked problem depends on how that one went, while others do not (on the OLI
  Statics log this lifted AUC by about 0.004). The question's own weights are an interaction
  fitted from few answers, so their prior is ten times tighter than its difficulty's, and
  they enter scaled by a factor (0 to 1) chosen on the held-out learners with the filter's
  settings: an empirical-Bayes shrinkage, which switches them off where questions do not
  differ (on simulated Rasch learners, where they only fitted noise and degraded the
  readiness forecast, it chooses 0; on Statics 1, on ASSISTments 0.5).
- The total pattern and the context terms (the streak terms) say how the very next answer
  goes after the last few. A prediction for no question in particular (topic readiness, and
  the forecast's question met fresh on an exam, not right after those answers) uses instead
  their mean over the topic's training answers (`ModelParams.context_means`), so a learner's
  latest streak does not move their readiness beyond what the abilities took from it.
- The abilities are random effects followed by an assumed-density filter (the Laplace / Kalman
  step of Glickman's Glicko and of TrueSkill): each has a mean and a variance; an answer moves
  the mean by variance x surprise and shrinks the variance, so the step size follows
  1 / (1/prior + sum of p(1 - p)). This is the "uncertainty function" learning rate that
  Pelanek recommends over a constant Elo K, derived rather than guessed, and the variance is
  the uncertainty readiness reports. A little process noise is added after every answer, so
  the step never reaches zero (learners learn). The topic ability is an offset from the
  overall ability with a prior centred on 0: a topic answered little is shrunk to the learner's
  overall level (a hierarchical model).
- The profile term is multidimensional IRT / a factorisation machine (Vie & Kashima's knowledge
  tracing machines, AAAI 2019) with the learner's side filtered online like the abilities: each
  question has a small vector fitted on past answers, each learner a vector, with variances,
  that the filter moves after each answer. It lets what a learner did on some questions inform
  other questions that past learners found to go together, across topics. Its size matters
  (on ASSISTments 2009, 16 dimensions gave AUC 0.812 where 8 gave 0.803); the learner's prior
  variance is set apart for each half of the dimensions, so the fit can switch the second
  half off where it does not help.
- Weights, difficulties and question profiles are fitted by AdaGrad over replays of the
  training learners, the filter running exactly as it does at prediction time. The number of
  passes, the filter's prior variances and process noise, and the Platt scaling are chosen on
  training learners held out of that fit (the filter's settings on a sample of them, for
  time). Nothing is set by hand for a particular data set.

A prediction or an update costs a fixed number of dictionary look-ups and arithmetic
operations (the profile has PROFILE_SIZE dimensions, the patterns PATTERN_LENGTH answers, the
context N_CONTEXT signs): O(1) per answer, and a learner's stored state does not grow with the
answers (only with the questions answered, through their counts).
"""

from __future__ import annotations

import copy
import json
import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import mul
from typing import Any

# (item_id, topic_id, correct): one answer of a learner, in the order answered.
Answer = tuple[str, str, bool]

FEATURES = (
    "topic_wins",  # log(1 + earlier right answers on the question's topic)
    "topic_fails",  # log(1 + earlier wrong answers on the topic)
    "total_wins",  # log(1 + earlier right answers, all topics)
    "total_fails",
    "item_wins",  # log(1 + earlier right answers to this very question)
    "item_fails",
)
# Features of earlier versions, no longer used: parameters saved with them still load (see
# `ModelParams.from_json`).
_RETIRED_FEATURES = frozenset(
    f"{scope}_recent_{kind}_{decay}"
    for scope in ("topic", "total")
    for decay in (0.5, 0.8, 0.95)
    for kind in ("wins", "fails")
)
N_FEATURES = len(FEATURES)

# The last answers on a topic (or in all), up to PATTERN_LENGTH, coded as bits after a leading
# 1: 1 is "none yet", 0b10 "one, wrong", 0b1011 "wrong, right, right" (oldest first). Codes 1 to
# N_PATTERNS - 1. (Four answers: held-out log-loss and test AUC were a little better than with
# three on both public logs, and no better with five.)
PATTERN_LENGTH = 4
N_PATTERNS = 2 << PATTERN_LENGTH

# What each question (and topic) weighs on its own: whether the learner's previous answer, on
# any topic, was right (+1) or wrong (-1; 0 before the first), and the same for each of the last
# three answers on the question's topic.
CONTEXT = ("last_answer", "topic_last_1", "topic_last_2", "topic_last_3")
N_CONTEXT = len(CONTEXT)


def _signs(code: int) -> tuple[float, float, float]:
    """The last three answers of a pattern code, most recent first, as +1 / -1 / 0."""
    return tuple(  # type: ignore[return-value]
        0.0 if code < (2 << k) else (1.0 if code >> k & 1 else -1.0) for k in range(3)
    )


_SIGNS = [_signs(code) for code in range(N_PATTERNS)]

# Dimensions of the learner and question profiles (see the module's docstring for why 16).
PROFILE_SIZE = 16

# z-score of the 10th and 90th percentiles: an 80% range.
Z80 = 1.2815515655446004

_LOG1P = [math.log1p(n) for n in range(4096)]


def _phi(count: int) -> float:
    return _LOG1P[count] if count < 4096 else math.log1p(count)


def _profile_prior(variance: float, extra_variance: float) -> list[float]:
    """The prior variances of a learner's profile: the first half of the dimensions, then the
    second half (its own setting, so that the fit can switch it off)."""
    half = PROFILE_SIZE // 2
    return [variance] * half + [extra_variance] * (PROFILE_SIZE - half)


def sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


# --- State -----------------------------------------------------------------------------------


@dataclass(slots=True)
class ItemState:
    """One question: its difficulty relative to its topic (logit), the variance of that
    estimate, the answers it has had, and its profile vector (empty: all zeros)."""

    difficulty: float = 0.0
    variance: float = 1.0
    answers: int = 0
    profile: list[float] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "difficulty": self.difficulty,
            "variance": self.variance,
            "answers": self.answers,
            "profile": list(self.profile),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ItemState:
        return cls(
            difficulty=float(data["difficulty"]),
            variance=float(data["variance"]),
            answers=int(data["answers"]),
            profile=[float(v) for v in data["profile"]],
        )


@dataclass(slots=True)
class LearnerTopicState:
    """One learner on one topic, or overall: an ability (mean and variance, on the logit
    scale; on a topic, the offset from the overall ability) and counts of the history."""

    ability: float
    variance: float
    wins: int = 0
    fails: int = 0
    # The last answers as a pattern code (see N_PATTERNS).
    last: int = 1
    # Question id -> [right, wrong] answers of this learner to it (on a topic; empty overall).
    items: dict[str, list[int]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ability": self.ability,
            "variance": self.variance,
            "wins": self.wins,
            "fails": self.fails,
            "last": self.last,
            "items": {item: list(counts) for item, counts in self.items.items()},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LearnerTopicState:
        # A state saved by an earlier version may carry "recent" (decayed counts): unused now.
        return cls(
            ability=float(data["ability"]),
            variance=float(data["variance"]),
            wins=int(data["wins"]),
            fails=int(data["fails"]),
            last=int(data["last"]),
            items={item: [int(c) for c in counts] for item, counts in data["items"].items()},
        )

    def observe(self, item_id: str | None, correct: bool) -> None:
        """Count an answer (`ReadinessModel.update` moves the ability: it knows the surprise)."""
        if correct:
            self.wins += 1
        else:
            self.fails += 1
        last = (self.last << 1) | (1 if correct else 0)
        self.last = last if last < N_PATTERNS else (last & (N_PATTERNS // 2 - 1)) | N_PATTERNS // 2
        if item_id is not None:
            counts = self.items.get(item_id)
            if counts is None:
                counts = self.items[item_id] = [0, 0]
            counts[0 if correct else 1] += 1


@dataclass(slots=True)
class LearnerState:
    """A learner: the overall state and profile (one stored row), and a state per topic
    answered (a row each)."""

    overall: LearnerTopicState
    profile: list[float]
    profile_variance: list[float]
    topics: dict[str, LearnerTopicState] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "overall": self.overall.to_dict(),
            "profile": list(self.profile),
            "profile_variance": list(self.profile_variance),
            "topics": {topic: state.to_dict() for topic, state in self.topics.items()},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LearnerState:
        return cls(
            overall=LearnerTopicState.from_dict(data["overall"]),
            profile=[float(v) for v in data["profile"]],
            profile_variance=[float(v) for v in data["profile_variance"]],
            topics={t: LearnerTopicState.from_dict(s) for t, s in data["topics"].items()},
        )


@dataclass(slots=True)
class TopicParams:
    """Fitted per topic: its difficulty, its PFA weights on log(1 + wins / fails), and its
    weights on the answer's CONTEXT."""

    difficulty: float = 0.0
    win_weight: float = 0.0
    fail_weight: float = 0.0
    context_weights: list[float] = field(default_factory=lambda: [0.0] * N_CONTEXT)


def _padded_patterns(weights: list[float]) -> list[float]:
    """Pattern weights saved when patterns were shorter: a longer pattern gets the weight of
    its most recent part (the codes of the shorter patterns are the same)."""
    weights = list(weights)
    for code in range(len(weights), N_PATTERNS):
        half = 1 << (code.bit_length() - 2)
        weights.append(weights[(code & (half - 1)) | half])
    return weights


@dataclass(slots=True)
class ModelParams:
    """Everything fitted, serialisable to JSON. A topic or question not in it counts as an
    average one (all its terms 0)."""

    bias: float = 0.0
    weights: list[float] = field(default_factory=lambda: [0.0] * N_FEATURES)
    # By the pattern of the last answers on the question's topic, and in all topics.
    pattern_weights: list[float] = field(default_factory=lambda: [0.0] * N_PATTERNS)
    total_pattern_weights: list[float] = field(default_factory=lambda: [0.0] * N_PATTERNS)
    topics: dict[str, TopicParams] = field(default_factory=dict)
    items: dict[str, ItemState] = field(default_factory=dict)
    # Question id -> its own weights on the CONTEXT, added to its topic's. Kept here rather
    # than in ItemState: that is the question's state the site stores and moves with each
    # answer; these are fitted only, like the topics' weights.
    item_context: dict[str, list[float]] = field(default_factory=dict)
    # Topic id -> the mean, over its training answers, of the streak terms (the total pattern
    # and the context terms), which a prediction for no particular question uses in their
    # place (see `ReadinessModel._logit`).
    context_means: dict[str, float] = field(default_factory=dict)
    # The filter: prior variances of the overall ability, of a topic offset and of each
    # profile dimension (the first half of them; `extra_profile_variance` for the second
    # half); process noise added to the two abilities' variances per answer.
    ability_variance: float = 0.2
    topic_variance: float = 0.2
    profile_variance: float = 0.0
    extra_profile_variance: float = 0.0
    ability_drift: float = 0.0
    topic_drift: float = 0.0
    # Prior variance of a new question's difficulty (the spread of the fitted ones).
    item_variance: float = 1.0
    # Platt scaling of the logit, fitted on held-out learners.
    slope: float = 1.0
    intercept: float = 0.0

    def to_json(self) -> str:
        return json.dumps(
            {
                "features": list(FEATURES),
                "bias": self.bias,
                "weights": self.weights,
                "pattern_weights": self.pattern_weights,
                "total_pattern_weights": self.total_pattern_weights,
                "topics": {
                    topic: [p.difficulty, p.win_weight, p.fail_weight, *p.context_weights]
                    for topic, p in self.topics.items()
                },
                "items": {item: state.to_dict() for item, state in self.items.items()},
                "item_context": self.item_context,
                "context_means": self.context_means,
                "ability_variance": self.ability_variance,
                "topic_variance": self.topic_variance,
                "profile_variance": self.profile_variance,
                "extra_profile_variance": self.extra_profile_variance,
                "ability_drift": self.ability_drift,
                "topic_drift": self.topic_drift,
                "item_variance": self.item_variance,
                "slope": self.slope,
                "intercept": self.intercept,
            }
        )

    @classmethod
    def from_json(cls, text: str) -> ModelParams:
        """Parameters saved by this version or by an earlier one (which lacked the total
        patterns, the context weights and the extra profile dimensions: they count as 0, and
        its shorter patterns are extended by `_padded_patterns`), or by one with the
        recency-weighted counts (their weights are left out, so such parameters predict a
        little differently from when they were fitted, until the next refit)."""
        data = json.loads(text)
        names = list(data["features"])
        if set(names) - _RETIRED_FEATURES != set(FEATURES):
            raise ValueError("these parameters were fitted with another feature set.")
        stored = dict(zip(names, data["weights"], strict=True))

        def topic(values: list[float]) -> TopicParams:
            context = [float(w) for w in values[3:]]
            context += [0.0] * (N_CONTEXT - len(context))
            return TopicParams(float(values[0]), float(values[1]), float(values[2]), context)

        return cls(
            bias=float(data["bias"]),
            weights=[float(stored[name]) for name in FEATURES],
            pattern_weights=_padded_patterns([float(w) for w in data["pattern_weights"]]),
            total_pattern_weights=_padded_patterns(
                [float(w) for w in data.get("total_pattern_weights", [0.0] * N_PATTERNS)]
            ),
            topics={t: topic(v) for t, v in data["topics"].items()},
            items={i: ItemState.from_dict(s) for i, s in data["items"].items()},
            item_context={
                i: [float(w) for w in v] for i, v in data.get("item_context", {}).items()
            },
            context_means={t: float(v) for t, v in data.get("context_means", {}).items()},
            ability_variance=float(data["ability_variance"]),
            topic_variance=float(data["topic_variance"]),
            profile_variance=float(data["profile_variance"]),
            extra_profile_variance=float(data.get("extra_profile_variance", 0.0)),
            ability_drift=float(data["ability_drift"]),
            topic_drift=float(data["topic_drift"]),
            item_variance=float(data["item_variance"]),
            slope=float(data["slope"]),
            intercept=float(data["intercept"]),
        )


# --- Prediction and update -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Prediction:
    """P(correct), calibrated, with its 80% range; and the logit it comes from with the
    variance of that logit (from the learner's abilities and profile, plus the question's
    difficulty for a specific question)."""

    probability: float
    low: float
    high: float
    logit: float
    variance: float


def features(
    overall: LearnerTopicState, topic: LearnerTopicState, item_id: str | None
) -> list[float]:
    """The history features in the order of FEATURES, before the answer is counted."""
    counts = topic.items.get(item_id) if item_id is not None else None
    return [
        _phi(topic.wins),
        _phi(topic.fails),
        _phi(overall.wins),
        _phi(overall.fails),
        _phi(counts[0]) if counts else 0.0,
        _phi(counts[1]) if counts else 0.0,
    ]


def context(overall: LearnerTopicState, topic: LearnerTopicState) -> tuple[float, ...]:
    """The CONTEXT of the next answer on the topic, before it is counted."""
    return (_SIGNS[overall.last][0], *_SIGNS[topic.last])


_AVERAGE_TOPIC = TopicParams()
_AVERAGE_ITEM = ItemState()


class ReadinessModel:
    """The fitted parameters (with the question states) and the operations on a learner's
    state, which the caller keeps (in the database: a row per learner and topic)."""

    def __init__(self, params: ModelParams) -> None:
        self.params = params

    def new_learner(self) -> LearnerState:
        p = self.params
        return LearnerState(
            overall=LearnerTopicState(0.0, p.ability_variance),
            profile=[0.0] * PROFILE_SIZE,
            profile_variance=self._profile_prior(),
        )

    def new_topic_state(self) -> LearnerTopicState:
        return LearnerTopicState(0.0, self.params.topic_variance)

    def _widen(self, learner: LearnerState) -> None:
        """Give a learner stored with fewer profile dimensions the missing ones, at their
        prior (states saved before PROFILE_SIZE grew)."""
        n = len(learner.profile)
        learner.profile.extend([0.0] * (PROFILE_SIZE - n))
        learner.profile_variance.extend(self._profile_prior()[n:])

    def _profile_prior(self) -> list[float]:
        return _profile_prior(self.params.profile_variance, self.params.extra_profile_variance)

    def topic_state(self, learner: LearnerState, topic_id: str) -> LearnerTopicState:
        state = learner.topics.get(topic_id)
        if state is None:
            state = learner.topics[topic_id] = self.new_topic_state()
        return state

    def calibrate(self, logit: float) -> float:
        return sigmoid(self.params.slope * logit + self.params.intercept)

    def _logit(
        self,
        learner: LearnerState,
        topic: LearnerTopicState,
        topic_id: str,
        item: ItemState,
        item_id: str | None,
    ) -> float:
        """Written as in `_train_epoch`, term for term, so the two agree to the last bit.

        Without a question (`item_id` None: topic readiness, and the forecast of a question
        met fresh) the streak terms, the total pattern and the context, are replaced by their
        mean on the topic's training answers: they say how the learner's very next answer
        goes after the last few, a short-term effect rather than what the learner knows, and
        a question met later, on an exam, does not follow those answers."""
        p = self.params
        tp = p.topics.get(topic_id, _AVERAGE_TOPIC)
        x = features(learner.overall, topic, item_id)
        own = None
        if item_id is None:
            streak, context_term = p.context_means.get(topic_id, 0.0), 0.0
        else:
            ctx = context(learner.overall, topic)
            own = p.item_context.get(item_id)
            streak = p.total_pattern_weights[learner.overall.last]
            context_term = sum(map(mul, tp.context_weights, ctx))
        z = (
            p.bias
            - tp.difficulty
            - item.difficulty
            + tp.win_weight * x[0]
            + tp.fail_weight * x[1]
            + sum(map(mul, p.weights, x))
            + p.pattern_weights[topic.last]
            + streak
            + context_term
            + learner.overall.ability
            + topic.ability
        )
        if own is not None:
            z += sum(map(mul, own, ctx))
        if item.profile:
            z += sum(map(mul, learner.profile, item.profile))
        return z

    def predict(
        self,
        learner: LearnerState,
        topic_id: str,
        item_id: str | None = None,
        item: ItemState | None = None,
    ) -> Prediction:
        """P(correct) of the learner on a question of the topic, from the answers seen so far,
        with an 80% range. `item` defaults to the fitted state of `item_id`; without either,
        a typical question of the topic that the learner has not answered yet."""
        p = self.params
        if item is None:
            item = p.items.get(item_id, _AVERAGE_ITEM) if item_id is not None else None
        topic = learner.topics.get(topic_id) or self.new_topic_state()
        logit = self._logit(learner, topic, topic_id, item or _AVERAGE_ITEM, item_id)
        variance = learner.overall.variance + topic.variance
        if item is not None:
            variance += item.variance if item is not _AVERAGE_ITEM else p.item_variance
            prior = learner.profile_variance
            if len(prior) < len(item.profile):  # a learner stored with fewer dimensions
                prior = prior + self._profile_prior()[len(prior) :]
            variance += sum(v * w * w for v, w in zip(prior, item.profile, strict=False))
        spread = Z80 * math.sqrt(variance)
        return Prediction(
            probability=self.calibrate(logit),
            low=self.calibrate(logit - spread),
            high=self.calibrate(logit + spread),
            logit=logit,
            variance=variance,
        )

    def topic_readiness(self, learner: LearnerState, topic_id: str) -> Prediction:
        """P(correct) on a typical question of the topic not answered yet; its range is how
        unsure we are of the learner's abilities (not how much the questions differ)."""
        return self.predict(learner, topic_id)

    def update(
        self,
        learner: LearnerState,
        topic_id: str,
        item_id: str,
        correct: bool,
        *,
        item: ItemState | None = None,
        learn_item: bool = True,
    ) -> float:
        """Record an answer; returns the calibrated P(correct) predicted just before it. With
        learn_item, the question's difficulty moves too (an Elo step scaled by its variance),
        and an unknown question gets a state in the parameters; off in evaluation, where one
        test learner must not teach another."""
        p = self.params
        if item is None:
            item = p.items.get(item_id)
            if item is None:
                item = ItemState(0.0, p.item_variance, 0)
                if learn_item:
                    p.items[item_id] = item
        logit = self.update_learner(learner, topic_id, item_id, correct, item=item)
        if learn_item:
            _item_step(item, _probability(logit), correct)
        return self.calibrate(logit)

    def update_learner(
        self, learner: LearnerState, topic_id: str, item_id: str, correct: bool, *, item: ItemState
    ) -> float:
        """The learner's half of `update`: the question's state is read, not changed. Returns
        the logit of the answer as predicted just before it; `learn_item` takes the question's
        half later, from that logit with the question's difficulty added back."""
        p = self.params
        topic = self.topic_state(learner, topic_id)
        overall = learner.overall
        logit = self._logit(learner, topic, topic_id, item, item_id)
        probability = _probability(logit)
        y = 1.0 if correct else 0.0
        # The filter step, as in `_train_epoch`.
        h = probability * (1.0 - probability)
        vi = item.profile
        if len(learner.profile) < len(vi):
            self._widen(learner)
        pv = learner.profile_variance
        spread = sum(pv[k] * vi[k] * vi[k] for k in range(len(vi))) if vi else 0.0
        vu, vs = overall.variance, topic.variance
        s = 1.0 + h * (vu + vs + spread)
        r = (y - probability) / s
        overall.ability += vu * r
        topic.ability += vs * r
        overall.variance = vu - vu * vu * h / s + p.ability_drift
        topic.variance = vs - vs * vs * h / s + p.topic_drift
        if vi:
            u = learner.profile
            for k in range(len(vi)):
                c = pv[k] * vi[k]
                u[k] += c * r
                pv[k] -= c * c * h / s
        topic.observe(item_id, correct)
        overall.observe(None, correct)
        return logit


def _probability(logit: float) -> float:
    return 1.0 / (1.0 + math.exp(-logit)) if logit > -30.0 else 1e-13


def _item_step(item: ItemState, probability: float, correct: bool) -> None:
    y = 1.0 if correct else 0.0
    h = probability * (1.0 - probability)
    v = item.variance
    item.difficulty -= v * (y - probability) / (1.0 + v * h)
    item.variance = v / (1.0 + v * h)
    item.answers += 1


def learn_item(item: ItemState, learner_logit: float, correct: bool) -> None:
    """The question's half of `update`, done later (in order, answer after answer): the
    learner's logit without the question's difficulty (`update_learner`'s logit plus the
    difficulty it was computed with) meets the question's difficulty as it stands now."""
    _item_step(item, _probability(learner_logit - item.difficulty), correct)


# --- Fitting -------------------------------------------------------------------------------


@dataclass(frozen=True)
class FitConfig:
    """How to fit. The defaults are general choices, not tuned to a data set; what depends on
    the data is chosen on held-out training learners inside `fit`."""

    max_epochs: int = 6
    # Passes tried after the held-out log-loss last improved, before stopping.
    patience: int = 1
    learning_rate: float = 0.1  # AdaGrad's step size
    # Question difficulties get larger steps: each has few answers and would take many
    # passes to settle otherwise.
    item_rate_factor: float = 3.0
    # Precisions (1 / variance) of the Gaussian priors, centred on 0, on each question's
    # difficulty and profile, and on each topic's three terms (MAP estimates).
    item_precision: float = 1.0
    topic_precision: float = 1.0
    # ... and, as a multiple of item_precision, on a question's own weights on the CONTEXT.
    context_shrink: float = 10.0
    # Spread of the random start of the question profiles (it breaks their symmetry).
    profile_start: float = 0.1
    # Share of the training learners held out to choose the passes, the filter, the scaling.
    holdout: float = 0.2
    min_holdout_learners: int = 5
    # Beyond this many answers, fit on a random sample of whole learners; and start no pass
    # that would end after time_budget seconds of CPU time. Pure Python does about 50,000
    # answers a second per pass (16 profile dimensions); the larger log in data/kt (176,000
    # answers fitted on) takes about 30 seconds for 6 passes on an idle machine, so the
    # budget keeps a whole evaluation under a minute on a busy one.
    max_answers: int = 500_000
    time_budget: float = 30.0
    # Held-out answers the filter's settings are searched on (whole learners).
    tune_answers: int = 20_000
    # Passes without held-out learners (too few learners to hold any out).
    default_epochs: int = 3


@dataclass
class FitReport:
    learners: int = 0
    answers: int = 0
    holdout_learners: int = 0
    epochs: int = 0
    holdout_logloss: list[float] = field(default_factory=list)
    sampled_answers: int | None = None  # answers fitted on, when the log was sampled
    out_of_time: bool = False  # passes stopped by the time budget
    filter: dict[str, float] = field(default_factory=dict)
    slope: float = 1.0
    intercept: float = 0.0
    seconds: float = 0.0


@dataclass(frozen=True, slots=True)
class _Filter:
    """The filter's settings (see ModelParams); the defaults are where the search starts."""

    ability_variance: float = 0.2
    topic_variance: float = 0.2
    profile_variance: float = 0.2
    ability_drift: float = 0.0
    topic_drift: float = 0.0
    extra_profile_variance: float = 0.2
    # The factor on the questions' own context weights (searched with the filter's settings,
    # since it is chosen on the same held-out log-loss; ModelParams stores the weights scaled).
    context_scale: float = 1.0

    def as_dict(self) -> dict[str, float]:
        return {
            "ability_variance": self.ability_variance,
            "topic_variance": self.topic_variance,
            "profile_variance": self.profile_variance,
            "ability_drift": self.ability_drift,
            "topic_drift": self.topic_drift,
            "extra_profile_variance": self.extra_profile_variance,
            "context_scale": self.context_scale,
        }


# Each setting's candidates for the coordinate search, in increasing order.
_FILTER_GRID = {
    "ability_variance": (0.0, 0.05, 0.1, 0.2, 0.4, 0.8, 1.6),
    "topic_variance": (0.0, 0.05, 0.1, 0.2, 0.4, 0.8, 1.6),
    "profile_variance": (0.0, 0.05, 0.1, 0.2, 0.4, 0.8),
    "ability_drift": (0.0, 0.001, 0.003, 0.01, 0.03),
    "topic_drift": (0.0, 0.001, 0.003, 0.01, 0.03),
    "extra_profile_variance": (0.0, 0.05, 0.1, 0.2, 0.4, 0.8),
    "context_scale": (0.0, 0.25, 0.5, 1.0),
}

# One encoded answer: (item index, topic index, features, pattern codes on the topic and in
# all, context, correct as 0 or 1).
_Row = tuple[int, int, tuple[float, ...], int, int, tuple[float, ...], float]
# One held-out answer: (logit without the filtered terms, item index, topic index, correct).
_Base = tuple[float, int, int, float, float]


def _encode(
    sequences: Sequence[Sequence[Answer]], items: dict[str, int], topics: dict[str, int]
) -> list[list[_Row]]:
    """Replay each learner once to get the features of every answer (they do not depend on
    what is fitted), numbering questions and topics."""
    blocks = []
    for answers in sequences:
        overall = LearnerTopicState(0.0, 0.0)
        states: dict[str, LearnerTopicState] = {}
        rows: list[_Row] = []
        for item_id, topic_id, correct in answers:
            state = states.get(topic_id)
            if state is None:
                state = states[topic_id] = LearnerTopicState(0.0, 0.0)
            i = items.setdefault(item_id, len(items))
            t = topics.setdefault(topic_id, len(topics))
            x = tuple(features(overall, state, item_id))
            ctx = context(overall, state)
            rows.append((i, t, x, state.last, overall.last, ctx, 1.0 if correct else 0.0))
            state.observe(item_id, correct)
            overall.observe(None, correct)
        blocks.append(rows)
    return blocks


class _Weights:
    """What AdaGrad fits, in flat lists indexed by question and topic number, with AdaGrad's
    sums of squared gradients alongside (started at a tiny value to avoid dividing by 0)."""

    def __init__(self, n_items: int, n_topics: int, config: FitConfig, rng: random.Random) -> None:
        tiny = 1e-12
        self.bias = 0.0
        self.g_bias = tiny
        self.weights = [0.0] * N_FEATURES
        self.g_weights = [tiny] * N_FEATURES
        self.patterns = [0.0] * N_PATTERNS
        self.g_patterns = [tiny] * N_PATTERNS
        self.total_patterns = [0.0] * N_PATTERNS
        self.g_total_patterns = [tiny] * N_PATTERNS
        self.topic_difficulty = [0.0] * n_topics
        self.topic_wins = [0.0] * n_topics
        self.topic_fails = [0.0] * n_topics
        self.g_topic = [[tiny] * n_topics for _ in range(3)]
        self.item_difficulty = [0.0] * n_items
        self.g_item = [tiny] * n_items
        self.topic_context = [[0.0] * N_CONTEXT for _ in range(n_topics)]
        self.g_topic_context = [[tiny] * N_CONTEXT for _ in range(n_topics)]
        self.item_context = [[0.0] * N_CONTEXT for _ in range(n_items)]
        self.g_item_context = [tiny] * n_items  # one AdaGrad sum per question, as for profiles
        self.profiles = [
            [rng.gauss(0.0, config.profile_start) for _ in range(PROFILE_SIZE)]
            for _ in range(n_items)
        ]
        self.g_profiles = [tiny] * n_items
        self.information = [0.0] * n_items  # sum of p(1 - p) per question, in the last pass
        # Per answer, a share of each prior's penalty: precision / number of answers.
        self.item_l2 = [0.0] * n_items
        self.topic_l2 = [0.0] * n_topics
        self.item_answers = [0] * n_items

    def copy(self) -> _Weights:
        """A copy to keep (the best pass so far): lists copied one level down, which is all
        they have; much faster than copy.deepcopy."""
        twin = copy.copy(self)
        for name, value in vars(self).items():
            if isinstance(value, list):
                setattr(twin, name, [v[:] if isinstance(v, list) else v for v in value])
        return twin

    def set_priors(self, blocks: Sequence[list[_Row]], config: FitConfig) -> None:
        item_answers = [0] * len(self.item_difficulty)
        topic_answers = [0] * len(self.topic_difficulty)
        for rows in blocks:
            for row in rows:
                item_answers[row[0]] += 1
                topic_answers[row[1]] += 1
        self.item_answers = item_answers
        for i, n in enumerate(item_answers):
            if n == 0:  # seen only in held-out learners: an average question, no profile
                self.profiles[i] = [0.0] * PROFILE_SIZE
        self.item_l2 = [config.item_precision / max(n, 1) for n in item_answers]
        self.topic_l2 = [config.topic_precision / max(n, 1) for n in topic_answers]


def _train_epoch(
    model: _Weights,
    blocks: Sequence[list[_Row]],
    order: Sequence[int],
    config: FitConfig,
    filt: _Filter,
) -> None:
    """One pass of AdaGrad over the learners in `order`, each learner's answers in turn, with
    the abilities and profiles filtered as at prediction time (see ReadinessModel.update)."""
    lr = config.learning_rate
    lri = lr * config.item_rate_factor
    w, gw, pw, gp = model.weights, model.g_weights, model.patterns, model.g_patterns
    qw, gq = model.total_patterns, model.g_total_patterns
    td, tw, tf = model.topic_difficulty, model.topic_wins, model.topic_fails
    gtd, gtw, gtf = model.g_topic
    idf, gi, info = model.item_difficulty, model.g_item, model.information
    tcw, gtc = model.topic_context, model.g_topic_context
    icw, gic = model.item_context, model.g_item_context
    shrink = config.context_shrink
    cs = filt.context_scale
    profiles, g_profiles = model.profiles, model.g_profiles
    item_l2, topic_l2 = model.item_l2, model.topic_l2
    bias, gb = model.bias, model.g_bias
    av, tv, pv0 = filt.ability_variance, filt.topic_variance, filt.profile_variance
    ad, tdr = filt.ability_drift, filt.topic_drift
    prior = _profile_prior(pv0, filt.extra_profile_variance)
    sqrt, exp = math.sqrt, math.exp
    for b in order:
        ability, variance = 0.0, av
        abilities: dict[int, list[float]] = {}
        u = [0.0] * PROFILE_SIZE
        pv = prior
        for i, t, x, c, c2, ctx, y in blocks[b]:
            own = abilities.get(t)
            if own is None:
                own = abilities[t] = [0.0, tv]
            vi = profiles[i]
            tc, ic = tcw[t], icw[i]
            z = (
                bias
                - td[t]
                - idf[i]
                + tw[t] * x[0]
                + tf[t] * x[1]
                + sum(map(mul, w, x))
                + pw[c]
                + qw[c2]
                + sum(map(mul, tc, ctx))
                + ability
                + own[0]
            )
            z += cs * sum(map(mul, ic, ctx))
            z += sum(map(mul, u, vi))
            p = 1.0 / (1.0 + exp(-z)) if z > -30.0 else 1e-13
            g = p - y
            # AdaGrad steps on every term of the logit (the abilities are the filter's).
            gb += g * g
            bias -= lr * g / sqrt(gb)
            gx = [g * xk for xk in x]
            gw = [a + q * q for a, q in zip(gw, gx, strict=True)]
            w = [a - lr * q / sqrt(d) for a, q, d in zip(w, gx, gw, strict=True)]
            gp[c] += g * g
            pw[c] -= lr * g / sqrt(gp[c])
            gq[c2] += g * g
            qw[c2] -= lr * g / sqrt(gq[c2])
            l2 = topic_l2[t]
            grad = -g + l2 * td[t]
            gtd[t] += grad * grad
            td[t] -= lr * grad / sqrt(gtd[t])
            grad = gx[0] + l2 * tw[t]
            gtw[t] += grad * grad
            tw[t] -= lr * grad / sqrt(gtw[t])
            grad = gx[1] + l2 * tf[t]
            gtf[t] += grad * grad
            tf[t] -= lr * grad / sqrt(gtf[t])
            grads = [g * a + l2 * b for a, b in zip(ctx, tc, strict=True)]
            gtc[t] = gsum = [a + q * q for a, q in zip(gtc[t], grads, strict=True)]
            tcw[t] = [a - lr * q / sqrt(d) for a, q, d in zip(tc, grads, gsum, strict=True)]
            l2 = item_l2[i]
            # A question's own context weights are shrunk harder than its difficulty: they
            # are an interaction, fitted from the few of its answers that share a context.
            grads = [g * cs * a + shrink * l2 * b for a, b in zip(ctx, ic, strict=True)]
            gic[i] += sum(map(mul, grads, grads)) / N_CONTEXT
            step = lr / sqrt(gic[i])
            icw[i] = [a - step * q for a, q in zip(ic, grads, strict=True)]
            grad = -g + l2 * idf[i]
            gi[i] += grad * grad
            idf[i] -= lri * grad / sqrt(gi[i])
            grads = [g * a + l2 * b for a, b in zip(u, vi, strict=True)]
            g_profiles[i] += sum(map(mul, grads, grads)) / PROFILE_SIZE
            step = lr / sqrt(g_profiles[i])
            profiles[i] = vi = [a - step * q for a, q in zip(vi, grads, strict=True)]
            # The filter step (ReadinessModel.update), inlined.
            h = p * (1.0 - p)
            info[i] += h
            cv = list(map(mul, pv, vi))
            spread = sum(map(mul, cv, vi))
            vs = own[1]
            s = 1.0 + h * (variance + vs + spread)
            r = (y - p) / s
            ability += variance * r
            own[0] += vs * r
            variance = variance - variance * variance * h / s + ad
            own[1] = vs - vs * vs * h / s + tdr
            u = [a + ck * r for a, ck in zip(u, cv, strict=True)]
            pv = [a - ck * ck * h / s for a, ck in zip(pv, cv, strict=True)]
    model.bias, model.g_bias = bias, gb
    model.weights, model.g_weights = w, gw


def _base_logits(model: _Weights, blocks: Sequence[list[_Row]]) -> list[list[_Base]]:
    """For held-out learners: each answer's logit without the filtered terms."""
    w, pw, qw = model.weights, model.patterns, model.total_patterns
    td, tw, tf = model.topic_difficulty, model.topic_wins, model.topic_fails
    idf = model.item_difficulty
    tcw, icw = model.topic_context, model.item_context
    bias = model.bias
    return [
        [
            (
                bias
                - td[t]
                - idf[i]
                + tw[t] * x[0]
                + tf[t] * x[1]
                + sum(map(mul, w, x))
                + pw[c]
                + qw[c2]
                + sum(map(mul, tcw[t], ctx)),
                i,
                t,
                y,
                sum(map(mul, icw[i], ctx)),
            )
            for i, t, x, c, c2, ctx, y in rows
        ]
        for rows in blocks
    ]


def _filtered_logits(
    model: _Weights, bases: Sequence[list[_Base]], filt: _Filter
) -> tuple[list[float], list[float]]:
    """Replay the filter over held-out learners: the logit before each answer, and outcomes."""
    av, tv, pv0 = filt.ability_variance, filt.topic_variance, filt.profile_variance
    ad, tdr = filt.ability_drift, filt.topic_drift
    prior = _profile_prior(pv0, filt.extra_profile_variance)
    cs = filt.context_scale
    profiles = model.profiles
    use_profiles = max(prior) > 0.0
    exp = math.exp
    logits: list[float] = []
    outcomes: list[float] = []
    for rows in bases:
        ability, variance = 0.0, av
        abilities: dict[int, list[float]] = {}
        u = [0.0] * PROFILE_SIZE
        pv = prior
        for base, i, t, y, q in rows:
            own = abilities.get(t)
            if own is None:
                own = abilities[t] = [0.0, tv]
            z = base + cs * q + ability + own[0]
            vi = profiles[i]
            if use_profiles:
                z += sum(map(mul, u, vi))
            logits.append(z)
            outcomes.append(y)
            p = 1.0 / (1.0 + exp(-z)) if z > -30.0 else 1e-13
            h = p * (1.0 - p)
            vs = own[1]
            if use_profiles:
                cv = list(map(mul, pv, vi))
                s = 1.0 + h * (variance + vs + sum(map(mul, cv, vi)))
            else:
                s = 1.0 + h * (variance + vs)
            r = (y - p) / s
            ability += variance * r
            own[0] += vs * r
            variance = variance - variance * variance * h / s + ad
            own[1] = vs - vs * vs * h / s + tdr
            if use_profiles:
                u = [a + ck * r for a, ck in zip(u, cv, strict=True)]
                pv = [a - ck * ck * h / s for a, ck in zip(pv, cv, strict=True)]
    return logits, outcomes


def _logloss(logits: Sequence[float], outcomes: Sequence[float]) -> float:
    total = 0.0
    log1p, exp = math.log1p, math.exp
    for z, y in zip(logits, outcomes, strict=True):
        m = -z if y else z  # the loss is log(1 + e^m), computed stably
        total += m + log1p(exp(-m)) if m > 0 else log1p(exp(m))
    return total / len(logits)


def _platt(logits: Sequence[float], outcomes: Sequence[float]) -> tuple[float, float]:
    """Newton's method for the slope and intercept of a logistic regression on the logit."""
    a, b = 1.0, 0.0
    for _ in range(25):
        g_a = g_b = h_aa = h_ab = h_bb = 0.0
        for z, y in zip(logits, outcomes, strict=True):
            p = sigmoid(a * z + b)
            d = p - y
            w = p * (1.0 - p)
            g_a += d * z
            g_b += d
            h_aa += w * z * z
            h_ab += w * z
            h_bb += w
        det = h_aa * h_bb - h_ab * h_ab
        if det <= 1e-12:
            break
        step_a = (h_bb * g_a - h_ab * g_b) / det
        step_b = (h_aa * g_b - h_ab * g_a) / det
        a, b = a - step_a, b - step_b
        if abs(step_a) + abs(step_b) < 1e-9:
            break
    return a, b


def _sample(bases: Sequence[list[_Base]], answers: int) -> Sequence[list[_Base]]:
    """The first held-out learners (in random order already) up to about `answers` answers:
    the filter's search replays them some 25 times, and a sample this size ranks its settings
    as the whole does, at a fraction of the time."""
    total = 0
    for k, rows in enumerate(bases):
        total += len(rows)
        if total >= answers:
            return bases[: k + 1]
    return bases


def _tune_filter(model: _Weights, bases: Sequence[list[_Base]], start: _Filter) -> _Filter:
    """Coordinate search of the filter's settings on the held-out learners' log-loss: each in
    turn moves along its grid while that helps; rounds until nothing moves."""

    def loss(filt: _Filter) -> float:
        return _logloss(*_filtered_logits(model, bases, filt))

    best, best_loss = start, loss(start)
    for _round in range(3):
        moved = False
        for name, grid in _FILTER_GRID.items():
            at = grid.index(getattr(best, name))
            for step in (1, -1):
                k = at + step
                while 0 <= k < len(grid):
                    candidate = _Filter(**{**best.as_dict(), name: grid[k]})
                    candidate_loss = loss(candidate)
                    if candidate_loss >= best_loss - 1e-6:
                        break
                    best, best_loss = candidate, candidate_loss
                    k += step
                if getattr(best, name) != grid[at]:
                    moved = True
                    break  # it moved up: no need to try down
        if not moved:
            break
    return best


def _train(
    model: _Weights,
    blocks: Sequence[list[_Row]],
    config: FitConfig,
    filt: _Filter,
    rng: random.Random,
) -> None:
    order = list(range(len(blocks)))
    rng.shuffle(order)
    model.information = [0.0] * len(model.information)
    _train_epoch(model, blocks, order, config, filt)


def fit(
    sequences: Sequence[Sequence[Answer]], *, seed: int = 0, config: FitConfig | None = None
) -> tuple[ReadinessModel, FitReport]:
    """Fit on training learners' answer sequences (each in the order answered). A share of the
    learners is held out; the others are replayed by AdaGrad pass after pass while the
    held-out log-loss improves (the filter settings are tuned on the held-out learners after
    the first pass), and the Platt scaling is fitted on the held-out learners' predictions.
    Deterministic for a given seed."""
    config = config or FitConfig()
    started = time.perf_counter()
    # The budget counts this process's CPU time, not the wall clock: on a busy machine the
    # same log then gets the same passes, so the fit stays reproducible.
    cpu_started = time.process_time()
    rng = random.Random(seed)  # noqa: S311 - a reproducible shuffle, not a secret
    report = FitReport(learners=len(sequences), answers=sum(len(s) for s in sequences))
    if report.answers > config.max_answers:
        # A seeded sample of whole learners, so a big log still fits in the time budget.
        shuffled = list(sequences)
        rng.shuffle(shuffled)
        sequences, total = [], 0
        for answers in shuffled:
            if total + len(answers) > config.max_answers:
                continue
            sequences.append(answers)
            total += len(answers)
        report.sampled_answers = total
    order = list(range(len(sequences)))
    rng.shuffle(order)
    n_holdout = round(config.holdout * len(sequences))
    if n_holdout < config.min_holdout_learners or n_holdout >= len(sequences):
        n_holdout = 0
    held = set(order[:n_holdout])
    items: dict[str, int] = {}
    topics: dict[str, int] = {}
    fit_blocks = _encode([s for k, s in enumerate(sequences) if k not in held], items, topics)
    hold_blocks = _encode([s for k, s in enumerate(sequences) if k in held], items, topics)
    report.holdout_learners = len(hold_blocks)
    all_blocks = fit_blocks + hold_blocks
    model = _Weights(len(items), len(topics), config, rng)
    filt = _Filter()
    slope, intercept = 1.0, 0.0
    if hold_blocks:
        model.set_priors(fit_blocks, config)
        best, best_filt, best_loss = model, filt, math.inf
        for epoch in range(1, config.max_epochs + 1):
            pass_started = time.process_time()
            _train(model, fit_blocks, config, filt, rng)
            bases = _base_logits(model, hold_blocks)
            loss = _logloss(*_filtered_logits(model, bases, filt))
            pass_seconds = time.process_time() - pass_started
            if epoch == 1:
                filt = _tune_filter(model, _sample(bases, config.tune_answers), filt)
                loss = _logloss(*_filtered_logits(model, bases, filt))
            report.holdout_logloss.append(loss)
            if loss < best_loss - 1e-5:
                best, best_filt, best_loss = model.copy(), filt, loss
                report.epochs = epoch
            elif epoch - report.epochs > config.patience:
                break
            # Another pass would pass the time budget (a large log, or a busy machine).
            if time.process_time() - cpu_started + pass_seconds > config.time_budget:
                report.out_of_time = epoch < config.max_epochs
                break
        model, filt = best, best_filt
        slope, intercept = _platt(*_filtered_logits(model, _base_logits(model, hold_blocks), filt))
        # No further pass with the held-out learners included: it gained about 0.002 AUC in
        # trials, but the shared weights moved enough that the scaling fitted before it was
        # off by up to 0.03 in ECE. The model shipped is the one the scaling was fitted for.
    else:
        model.set_priors(all_blocks, config)
        for _epoch in range(config.default_epochs):
            _train(model, all_blocks, config, filt, rng)
        report.epochs = config.default_epochs
    report.filter = filt.as_dict()
    report.slope, report.intercept = slope, intercept
    params = _params(model, items, topics, filt, slope, intercept)
    params.context_means = _context_means(model, all_blocks, topics, filt.context_scale)
    report.seconds = time.perf_counter() - started
    return ReadinessModel(params), report


def _context_means(
    model: _Weights, blocks: Sequence[list[_Row]], topics: dict[str, int], scale: float
) -> dict[str, float]:
    """Per topic, the mean over its training answers of the streak terms: the total pattern's
    weight and the context terms of the topic and of the question (its weights at `scale`)."""
    qw, tcw, icw = model.total_patterns, model.topic_context, model.item_context
    sums = [0.0] * len(tcw)
    counts = [0] * len(tcw)
    for rows in blocks:
        for i, t, _x, _c, c2, ctx, _y in rows:
            sums[t] += qw[c2] + sum(map(mul, tcw[t], ctx)) + scale * sum(map(mul, icw[i], ctx))
            counts[t] += 1
    return {topic_id: sums[t] / counts[t] for topic_id, t in topics.items() if counts[t]}


def _params(
    model: _Weights,
    items: dict[str, int],
    topics: dict[str, int],
    filt: _Filter,
    slope: float,
    intercept: float,
) -> ModelParams:
    difficulties = model.item_difficulty
    trained = [i for i in items.values() if model.item_answers[i]]
    mean = sum(difficulties[i] for i in trained) / max(len(trained), 1)
    spread = sum((difficulties[i] - mean) ** 2 for i in trained) / max(len(trained), 1)
    item_variance = max(spread, 0.01)
    use_profiles = max(filt.profile_variance, filt.extra_profile_variance) > 0.0
    return ModelParams(
        bias=model.bias,
        weights=list(model.weights),
        pattern_weights=list(model.patterns),
        total_pattern_weights=list(model.total_patterns),
        topics={
            topic_id: TopicParams(
                model.topic_difficulty[t],
                model.topic_wins[t],
                model.topic_fails[t],
                list(model.topic_context[t]),
            )
            for topic_id, t in topics.items()
        },
        items={
            item_id: ItemState(
                difficulty=difficulties[i],
                # The Laplace approximation of the difficulty's posterior variance.
                variance=1.0 / (1.0 / item_variance + model.information[i]),
                answers=model.item_answers[i],
                profile=list(model.profiles[i]) if use_profiles else [],
            )
            for item_id, i in items.items()
            if model.item_answers[i]  # the others are average questions: no state needed
        },
        item_context={  # as they enter the logit: scaled (see _Filter.context_scale)
            item_id: [filt.context_scale * w for w in model.item_context[i]]
            for item_id, i in items.items()
            if model.item_answers[i]
        },
        ability_variance=filt.ability_variance,
        topic_variance=filt.topic_variance,
        profile_variance=filt.profile_variance,
        ability_drift=filt.ability_drift,
        topic_drift=filt.topic_drift,
        extra_profile_variance=filt.extra_profile_variance,
        item_variance=item_variance,
        slope=slope,
        intercept=intercept,
    )
