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
            + reads[i] . trace[u]             (what the learner's last answers left, decayed)
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
  (the n-gram features of Schmucker et al., JEDM 2022), which see streaks; and the topic
  gap, log(1 + answers on other topics since the learner's last answer on this one), a
  recency without clocks (the public logs have no timestamps): a topic taken up again after a
  while goes a little worse than the same topic answered right after itself (on ASSISTments
  2009 it lifted AUC by about 0.0006 and lowered log-loss by 0.0007). Like the streak terms
  below it says how the very next answer goes, so a prediction for no question in particular
  takes its mean instead. Recency-weighted
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
  readiness forecast, it chooses 0; on Statics 1, on ASSISTments 0.25 or 0.5). On a log too
  small for that choice to be reliable (`fitting.FitConfig.tune_context_from`) the factor is
  0.5, the value chosen leaving each log out in turn.
- The total pattern and the context terms (the streak terms) say how the very next answer
  goes after the last few. A prediction for no question in particular (topic readiness, and
  the forecast's question met fresh on an exam, not right after those answers) uses instead
  their mean over the topic's training answers (`ModelParams.context_means`), so a learner's
  latest streak does not move their readiness beyond what the abilities took from it. The
  probability at that mean is not the mean probability, so the logit of a question met fresh
  is then scaled as the fit calibrated it on the training learners' first answers
  (`ModelParams.fresh_slope`, `fresh_intercept`; `progress.engine.fresh`).
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
  (on ASSISTments 2009, 8 dimensions gave AUC 0.803, 16 0.813, 32 0.817, 48 0.820 and 64
  0.819; on Statics 16 gave 0.8356, 32 0.8365 and 48 0.8356). It was chosen on the training
  learners held out of the fit, whose log-loss fell with every size on ASSISTments and was
  flat on Statics, and on the cost: 48 is the largest whose fit on ASSISTments stays within a
  minute of CPU (docs/readiness.md, "Measured"). The learner's prior variance is set apart
  for each half of the dimensions, so the fit can switch the second half off where it does
  not help.
- The trace is what the learner's last few answers left behind, question by question: each
  question has two small vectors (TRACE_SIZE numbers), the mark a right answer to it leaves
  and the mark a wrong one leaves, and a third, what it reads: the learner's trace is the sum
  of the marks of their answers, each halved at every answer since (TRACE_DECAY), and a
  question's logit adds its reads times the trace. It is a low-rank question-by-question
  transfer, as the attention of self-attentive knowledge tracing (Pandey & Karypis, EDM 2019)
  and the recurrent state of deep knowledge tracing (Piech et al., NeurIPS 2015) let one
  answer speak to a particular later question rather than to its whole topic: a step of a
  worked problem depends on how the steps before it went, wherever their topics are, which
  the context terms (the last answer, the topic's last three) see only in part. It is not
  filtered (no variance): its vectors are fitted like the profiles, the marks by a step back
  through each learner's later answers (`fitting._step_marks`). It enters scaled by a factor
  (0 to 1) chosen on the held-out learners with the filter's settings, like the questions'
  context weights: on simulated learners, whose answers leave no such trace, it fits mostly
  noise, and the factor still came out at 0.25, letting a little through (docs/readiness.md
  measures what it costs there); on a log too small to fit it (under
  `fitting.FitConfig.trace_from` answers) it is off. Like the streak terms it says how
  the very next answers go, so a prediction for no question in particular takes its mean
  instead. On OLI Statics it raised AUC from 0.8384-0.8386 to 0.8394-0.8405 (seeds 0 to 2;
  docs/readiness.md, "The trace of the last answers").
- Weights, difficulties and question profiles are fitted on past learners' answers, and the
  filter's settings and the Platt scaling chosen on learners held out of that fit, then fitted
  again on every learner with those choices, by `progress.engine.fitting` (its docstring
  says how). Nothing is set by hand for a particular
  data set.
- The model shipped merges two such fits from different random starts
  (`progress.engine.ensemble`): its linear terms are their average, and the profile and the
  trace hold a block per fit side by side, so a learner's profile has 2 x PROFILE_SIZE
  dimensions and the trace 2 x TRACE_SIZE numbers (`ModelParams.profile_priors` gives each
  dimension its fit's prior). Averaging two fits raised AUC on every log measured.

A prediction or an update costs a fixed number of dictionary look-ups and arithmetic
operations (the profile has PROFILE_SIZE dimensions, the patterns PATTERN_LENGTH answers, the
context N_CONTEXT signs, the trace TRACE_SIZE numbers): O(1) per answer, and a learner's
stored state does not grow with the answers (only with the questions answered, through their
counts).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from operator import mul
from typing import Any, NamedTuple


class Answer(NamedTuple):
    """One answer of a learner; a learner's answers are listed in the order answered. `score`
    is 1 for a right answer, 0 for a wrong one and a share between for a partly right answer
    to a question with partial credit (True and False count as 1 and 0)."""

    item_id: str
    topic_id: str
    score: float


FEATURES = (
    "topic_wins",  # log(1 + earlier right answers on the question's topic)
    "topic_fails",  # log(1 + earlier wrong answers on the topic)
    "total_wins",  # log(1 + earlier right answers, all topics)
    "total_fails",
    "item_wins",  # log(1 + earlier right answers to this very question)
    "item_fails",
    # log(1 + answers on other topics since the learner's last answer on this one), 0 before
    # the topic's first answer: how long ago, in answers, the topic was practised.
    "topic_gap",
)
# History features that, like the streak terms, say how the very next answer goes rather than
# what the learner knows: 0 for a prediction for no question in particular, which takes their
# mean instead (`ModelParams.context_means`).
STREAK_FEATURES = frozenset({"topic_gap"})
# Features added since parameters were first stored: parameters saved without them weigh them
# 0, and so predict as when they were fitted (see `ModelParams.from_json`).
_ADDED_FEATURES = frozenset({"topic_gap"})
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
PROFILE_SIZE = 48

# The trace (see the module's docstring): its size, and the share of it an answer keeps of
# the one before: with 0.5 the last three answers or so weigh. Tried on Statics only
# (docs/readiness.md, "The trace of the last answers"): 16 numbers, a memory of 0.9 an
# answer, or half the numbers at 0.8, did no better once the other logs had their say.
TRACE_SIZE = 8
TRACE_DECAY = 0.5

# z-score of the 10th and 90th percentiles: an 80% range.
Z80 = 1.2815515655446004

_LOG1P = [math.log1p(n) for n in range(4096)]


def _phi(count: float) -> float:
    # Counts are whole numbers but for partly right answers, which add shares (`observe`).
    return _LOG1P[count] if type(count) is int and count < 4096 else math.log1p(count)


# A partly right answer's share of a mark, on a grid of 2^-20 (`share`): sums of such shares
# are exact in floating point, so a learner's count on a question is the same to the last bit
# whether the site sums the scores in SQL, in no set order, or a rebuild adds them one by one.
SCORE_GRID = 1 << 20


def share(score: float) -> float:
    """A score (0 to 1) on the grid of SCORE_GRID: what the site stores (Attempt.score) and
    what the counts add. 0 and 1 stay as they are; 1/3 moves by less than 1e-6."""
    return round(min(max(float(score), 0.0), 1.0) * SCORE_GRID) / SCORE_GRID


def _added(count: float, part: float) -> float:
    """A count plus an answer's part of it (1 or 0, or a partly right answer's share or its
    rest): whole counts stay ints (`_phi` looks them up in a table), shares add exactly."""
    if type(count) is int and (part == 0 or part == 1):
        return count + int(part)
    return count + part


def profile_prior(variance: float, extra_variance: float) -> list[float]:
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
    # Right and wrong answers; a partly right answer adds its score to the first and the
    # rest to the second (see `observe`), so these are whole numbers only without those.
    wins: float = 0
    fails: float = 0
    # The last answers as a pattern code (see N_PATTERNS).
    last: int = 1
    # On a topic: the learner's answers in all topics (the overall wins + fails) just after
    # the latest answer on this one, for the topic gap (see FEATURES; `observe_answer`).
    seen_at: float = 0
    # Question id -> [right, wrong] answers of this learner to it (on a topic; empty overall).
    items: dict[str, list[float]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "ability": self.ability,
            "variance": self.variance,
            "wins": self.wins,
            "fails": self.fails,
            "last": self.last,
            "items": {item: list(counts) for item, counts in self.items.items()},
        }
        if self.seen_at:  # never on the overall state: its bytes are kept for the topics
            data["seen_at"] = self.seen_at
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LearnerTopicState:
        # A state saved by an earlier version may carry "recent" (decayed counts): unused now.
        # One saved before the topic gap lacks "seen_at": 0 reads as "not since the learner's
        # first answer", the longest gap, until `rebuild_readiness` recomputes it.
        return cls(
            ability=float(data["ability"]),
            variance=float(data["variance"]),
            wins=_count(data["wins"]),
            fails=_count(data["fails"]),
            last=int(data["last"]),
            seen_at=_count(data.get("seen_at", 0)),
            items={item: [_count(c) for c in counts] for item, counts in data["items"].items()},
        )

    def observe(self, item_id: str | None, score: float) -> None:
        """Count an answer (`ReadinessModel.update` moves the ability: it knows the surprise).
        A partly right answer (0 < score < 1) counts as that share of a right answer and the
        rest of a wrong one, as the filter's step takes it (its surprise is score - p); in
        the pattern of the last answers, which has a bit per answer, it is right when at
        least half right."""
        right = share(score)
        self.wins = _added(self.wins, right)
        self.fails = _added(self.fails, 1.0 - right)
        last = (self.last << 1) | (1 if right >= 0.5 else 0)
        self.last = last if last < N_PATTERNS else (last & (N_PATTERNS // 2 - 1)) | N_PATTERNS // 2
        if item_id is not None:
            counts = self.items.get(item_id)
            if counts is None:
                counts = self.items[item_id] = [0, 0]
            counts[0] = _added(counts[0], right)
            counts[1] = _added(counts[1], 1.0 - right)


def _count(value: float) -> float:
    """A stored count: an int when whole (the common case, which `_phi` looks up in a
    table), else the float a partly right answer left."""
    number = float(value)
    return int(number) if number.is_integer() else number


@dataclass(slots=True)
class LearnerState:
    """A learner: the overall state and profile (one stored row), and a state per topic
    answered (a row each)."""

    overall: LearnerTopicState
    profile: list[float]
    profile_variance: list[float]
    topics: dict[str, LearnerTopicState] = field(default_factory=dict)
    # The trace of the last answers (TRACE_SIZE numbers; empty: all zeros, as before the
    # first answer to a question that leaves a mark).
    trace: list[float] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "overall": self.overall.to_dict(),
            "profile": list(self.profile),
            "profile_variance": list(self.profile_variance),
            "topics": {topic: state.to_dict() for topic, state in self.topics.items()},
            "trace": list(self.trace),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> LearnerState:
        return cls(
            overall=LearnerTopicState.from_dict(data["overall"]),
            profile=[float(v) for v in data["profile"]],
            profile_variance=[float(v) for v in data["profile_variance"]],
            topics={t: LearnerTopicState.from_dict(s) for t, s in data["topics"].items()},
            # A state saved before the trace has none: zeros, until `rebuild_readiness`.
            trace=[float(v) for v in data.get("trace", [])],
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
    # Question id -> its trace weights (see the module's docstring): what it reads of the
    # trace, then the mark a right answer to it leaves, then a wrong one's, TRACE_SIZE
    # numbers each. Fitted only, like the context weights.
    item_trace: dict[str, list[float]] = field(default_factory=dict)
    # The filter: prior variances of the overall ability, of a topic offset and of each
    # profile dimension (the first half of them; `extra_profile_variance` for the second
    # half); process noise added to the two abilities' variances per answer.
    ability_variance: float = 0.2
    topic_variance: float = 0.2
    profile_variance: float = 0.0
    extra_profile_variance: float = 0.0
    ability_drift: float = 0.0
    topic_drift: float = 0.0
    # The prior variance of each profile dimension, when they are not the two halves above:
    # a model merged from several fits (`progress.engine.ensemble`) keeps each fit's own. Its
    # length is the learner's profile's; empty: `profile_prior` of the two settings above.
    profile_priors: list[float] = field(default_factory=list)
    # Prior variance of a new question's difficulty (the spread of the fitted ones).
    item_variance: float = 1.0
    # Platt scaling of the logit, fitted on held-out learners.
    slope: float = 1.0
    intercept: float = 0.0
    # Factors on the overall ability's and the topic offsets' variances where the forecast
    # integrates over them (`progress.engine.forecast`), calibrated a stretch of answers ahead
    # on the training learners (`progress.engine.spread`); 1: the filter's own.
    forecast_overall_scale: float = 1.0
    forecast_topic_scale: float = 1.0
    # The scaling of a question met fresh (its calibrated logit, the streak terms at their
    # mean), fitted to the model's own predictions of the training learners' first answers
    # (`progress.engine.fresh`); 1 and 0: none.
    fresh_slope: float = 1.0
    fresh_intercept: float = 0.0

    def learner_profile_prior(self) -> list[float]:
        """The prior variance of each dimension of a learner's profile."""
        if self.profile_priors:
            return list(self.profile_priors)
        return profile_prior(self.profile_variance, self.extra_profile_variance)

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
                "item_trace": self.item_trace,
                "ability_variance": self.ability_variance,
                "topic_variance": self.topic_variance,
                "profile_variance": self.profile_variance,
                "extra_profile_variance": self.extra_profile_variance,
                "profile_priors": self.profile_priors,
                "ability_drift": self.ability_drift,
                "topic_drift": self.topic_drift,
                "item_variance": self.item_variance,
                "slope": self.slope,
                "intercept": self.intercept,
                "forecast_overall_scale": self.forecast_overall_scale,
                "forecast_topic_scale": self.forecast_topic_scale,
                "fresh_slope": self.fresh_slope,
                "fresh_intercept": self.fresh_intercept,
            }
        )

    @classmethod
    def from_json(cls, text: str) -> ModelParams:
        """Parameters saved by this version or by an earlier one (which lacked the total
        patterns, the context weights and the extra profile dimensions: they count as 0, and
        its shorter patterns are extended by `_padded_patterns`), or by one with the
        recency-weighted counts (their weights are left out, so such parameters predict a
        little differently from when they were fitted, until the next refit). Parameters
        saved before the topic gap (`_ADDED_FEATURES`) weigh it 0: they predict as when they
        were fitted."""
        data = json.loads(text)
        names = list(data["features"])
        if set(names) - _RETIRED_FEATURES != set(FEATURES) - (_ADDED_FEATURES - set(names)):
            raise ValueError("these parameters were fitted with another feature set.")
        stored = dict.fromkeys(_ADDED_FEATURES, 0.0)
        stored.update(zip(names, data["weights"], strict=True))

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
            item_trace={i: [float(w) for w in v] for i, v in data.get("item_trace", {}).items()},
            ability_variance=float(data["ability_variance"]),
            topic_variance=float(data["topic_variance"]),
            profile_variance=float(data["profile_variance"]),
            extra_profile_variance=float(data.get("extra_profile_variance", 0.0)),
            profile_priors=[float(v) for v in data.get("profile_priors", [])],
            ability_drift=float(data["ability_drift"]),
            topic_drift=float(data["topic_drift"]),
            item_variance=float(data["item_variance"]),
            slope=float(data["slope"]),
            intercept=float(data["intercept"]),
            # Saved before the spread was calibrated: the filter's own variances.
            forecast_overall_scale=float(data.get("forecast_overall_scale", 1.0)),
            forecast_topic_scale=float(data.get("forecast_topic_scale", 1.0)),
            # Saved before a fresh question was calibrated: the mean streak terms alone.
            fresh_slope=float(data.get("fresh_slope", 1.0)),
            fresh_intercept=float(data.get("fresh_intercept", 0.0)),
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
    # The topic gap: for no question in particular (STREAK_FEATURES), 0.
    seen = item_id is not None and (topic.wins or topic.fails)
    return [
        _phi(topic.wins),
        _phi(topic.fails),
        _phi(overall.wins),
        _phi(overall.fails),
        _phi(counts[0]) if counts else 0.0,
        _phi(counts[1]) if counts else 0.0,
        _phi(overall.wins + overall.fails - topic.seen_at) if seen else 0.0,
    ]


def observe_answer(
    overall: LearnerTopicState, topic: LearnerTopicState, item_id: str | None, score: float
) -> None:
    """Count an answer on the topic and overall, and mark when the topic was last answered
    (for the topic gap): the model's update and the fitter's replays both count through here."""
    topic.observe(item_id, score)
    overall.observe(None, score)
    topic.seen_at = overall.wins + overall.fails


def context(overall: LearnerTopicState, topic: LearnerTopicState) -> tuple[float, ...]:
    """The CONTEXT of the next answer on the topic, before it is counted."""
    return (_SIGNS[overall.last][0], *_SIGNS[topic.last])


def logit_sum(
    bias: float = 0.0,
    topic_difficulty: float = 0.0,
    item_difficulty: float = 0.0,
    win_weight: float = 0.0,
    fail_weight: float = 0.0,
    weights: Sequence[float] = (),
    history: Sequence[float] = (0.0, 0.0),
    pattern_weight: float = 0.0,
    streak_weight: float = 0.0,
    topic_context: Sequence[float] = (),
    item_context: Sequence[float] = (),
    context_scale: float = 1.0,
    answer_context: Sequence[float] = (),
    ability: float = 0.0,
    topic_ability: float = 0.0,
    learner_profile: Sequence[float] = (),
    item_profile: Sequence[float] = (),
    item_reads: Sequence[float] = (),
    learner_trace: Sequence[float] = (),
    trace_scale: float = 1.0,
) -> float:
    """The logit of the module docstring, before the Platt scaling: the one place it is
    summed, for the model and for the fitter's replays. `history` is the answer's FEATURES,
    `streak_weight` the total pattern's weight (or, for no particular question, the mean of
    the streak terms), `answer_context` its CONTEXT; a term left out counts as 0. The trace
    term reads the first TRACE_SIZE of `item_reads` (a question's stored trace weights, the
    marks after them, may be given whole: `map` stops at the shorter).

    The fitter calls it once per answer in its hot loop: positional arguments and no
    branches keep that call at about 0.3% of a fit's instructions. The order of the sum is
    part of the contract: the logits the site stored were summed in this order, and a
    replay must give them again to the last bit."""
    logit = (
        bias
        - topic_difficulty
        - item_difficulty
        + win_weight * history[0]
        + fail_weight * history[1]
        + sum(map(mul, weights, history))
        + pattern_weight
        + streak_weight
        + sum(map(mul, topic_context, answer_context))
        + ability
        + topic_ability
    )
    logit += context_scale * sum(map(mul, item_context, answer_context))
    logit += sum(map(mul, learner_profile, item_profile))
    return logit + trace_scale * sum(map(mul, item_reads, learner_trace))


def leave_trace(trace: list[float], weights: Sequence[float] | None, score: float) -> list[float]:
    """The trace after an answer to a question with these trace weights (None: it leaves no
    mark, and the trace only decays). The weights are three equal parts (reads, right
    marks, wrong marks): TRACE_SIZE numbers each for one fit, more for a model merged from
    several (`progress.engine.ensemble`). A trace stored under parameters of another size
    is cut or padded with zeros to theirs, until `rebuild_readiness` recomputes it."""
    if weights is None:
        return [TRACE_DECAY * value for value in trace]
    size = len(weights) // 3
    if len(trace) != size:
        trace = (trace + [0.0] * size)[:size]
    return marked(trace, weights[size : 2 * size], weights[2 * size :], float(score))


def marked(
    trace: Sequence[float], right: Sequence[float], wrong: Sequence[float], y: float
) -> list[float]:
    """The trace decayed, plus the mark an answer of score y leaves: y of the right answer's
    mark, the rest of the wrong one's. The fitter's training pass inlines the same sum, in
    the same order (a replay must give the model's logits to the last bit)."""
    rest = 1.0 - y
    return [
        TRACE_DECAY * value + y * mark + rest * other
        for value, mark, other in zip(trace, right, wrong, strict=True)
    ]


_AVERAGE_TOPIC = TopicParams()
_AVERAGE_ITEM = ItemState()


class ReadinessModel:
    """The fitted parameters (with the question states) and the operations on a learner's
    state, which the caller keeps (in the database: a row per learner and topic)."""

    def __init__(self, params: ModelParams) -> None:
        self.params = params

    def new_learner(self) -> LearnerState:
        params = self.params
        prior = self.params.learner_profile_prior()
        return LearnerState(
            overall=LearnerTopicState(0.0, params.ability_variance),
            profile=[0.0] * len(prior),
            profile_variance=prior,
        )

    def new_topic_state(self) -> LearnerTopicState:
        return LearnerTopicState(0.0, self.params.topic_variance)

    def _widen(self, learner: LearnerState) -> None:
        """Give a learner stored with fewer profile dimensions the missing ones, at their
        prior (states saved before PROFILE_SIZE grew, or under a fit of one model where one
        merged from several now stands)."""
        prior = self.params.learner_profile_prior()
        n = len(learner.profile)
        learner.profile.extend([0.0] * (len(prior) - n))
        learner.profile_variance.extend(prior[n:])

    def topic_state(self, learner: LearnerState, topic_id: str) -> LearnerTopicState:
        state = learner.topics.get(topic_id)
        if state is None:
            state = learner.topics[topic_id] = self.new_topic_state()
        return state

    def calibrate(self, logit: float) -> float:
        return sigmoid(self.params.slope * logit + self.params.intercept)

    def calibrated_logit(self, logit: float) -> float:
        """The logit on the calibrated scale (Platt-scaled), whose sigmoid `calibrate` is."""
        return self.params.slope * logit + self.params.intercept

    def fresh_logit(self, calibrated: float) -> float:
        """The calibrated logit of a question met fresh, from `calibrated`, that of its logit
        with the streak terms at their mean (`_logit` without a question), scaled as the fit
        calibrated it (`ModelParams.fresh_slope` and `fresh_intercept`, `progress.engine.fresh`:
        the probability at the mean of those terms is not the mean probability)."""
        return self.params.fresh_intercept + self.params.fresh_slope * calibrated

    def _logit(
        self,
        learner: LearnerState,
        topic: LearnerTopicState,
        topic_id: str,
        item: ItemState,
        item_id: str | None,
    ) -> float:
        """The logit of the module docstring, summed by `logit_sum` as in the fitter's replays.

        Without a question (`item_id` None: topic readiness, and the forecast of a question
        met fresh) the streak terms, the total pattern and the context, are replaced by their
        mean on the topic's training answers: they say how the learner's very next answer
        goes after the last few, a short-term effect rather than what the learner knows, and
        a question met later, on an exam, does not follow those answers."""
        params = self.params
        overall = learner.overall
        topic_params = params.topics.get(topic_id, _AVERAGE_TOPIC)
        topic_context: Sequence[float] = ()
        item_context: Sequence[float] = ()
        answer_context: Sequence[float] = ()
        item_reads: Sequence[float] = ()
        if item_id is None:
            streak_weight = params.context_means.get(topic_id, 0.0)
        else:
            streak_weight = params.total_pattern_weights[overall.last]
            topic_context = topic_params.context_weights
            item_context = params.item_context.get(item_id, ())
            answer_context = context(overall, topic)
            item_reads = params.item_trace.get(item_id, ())
        return logit_sum(
            params.bias,
            topic_params.difficulty,
            item.difficulty,
            topic_params.win_weight,
            topic_params.fail_weight,
            params.weights,
            features(overall, topic, item_id),
            params.pattern_weights[topic.last],
            streak_weight,
            topic_context,
            item_context,
            1.0,  # the stored question context weights are scaled already
            answer_context,
            overall.ability,
            topic.ability,
            learner.profile,
            item.profile,
            item_reads,
            learner.trace,
        )

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
        params = self.params
        if item is None:
            item = params.items.get(item_id, _AVERAGE_ITEM) if item_id is not None else None
        topic = learner.topics.get(topic_id) or self.new_topic_state()
        logit = self._logit(learner, topic, topic_id, item or _AVERAGE_ITEM, item_id)
        variance = learner.overall.variance + topic.variance
        if item is not None:
            variance += item.variance if item is not _AVERAGE_ITEM else params.item_variance
            prior = learner.profile_variance
            if len(prior) < len(item.profile):  # a learner stored with fewer dimensions
                prior = prior + self.params.learner_profile_prior()[len(prior) :]
            variance += sum(v * w * w for v, w in zip(prior, item.profile, strict=False))
        spread = Z80 * math.sqrt(variance)
        ends = (logit, logit - spread, logit + spread)
        if item_id is None:  # met fresh: its own scaling on top of the model's
            probability, low, high = (
                sigmoid(self.fresh_logit(self.calibrated_logit(z))) for z in ends
            )
        else:
            probability, low, high = (self.calibrate(z) for z in ends)
        return Prediction(
            probability=probability, low=low, high=high, logit=logit, variance=variance
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
        score: float,
        *,
        item: ItemState | None = None,
        learn_item: bool = True,
    ) -> float:
        """Record an answer (its score: 1 right, 0 wrong, a share for a partly right answer);
        returns the calibrated P(correct) predicted just before it, which for a question with
        partial credit is its expected score. With
        learn_item, the question's difficulty moves too (an Elo step scaled by its variance),
        and an unknown question gets a state in the parameters; off in evaluation, where one
        test learner must not teach another."""
        params = self.params
        if item is None:
            item = params.items.get(item_id)
            if item is None:
                item = ItemState(0.0, params.item_variance, 0)
                if learn_item:
                    params.items[item_id] = item
        logit = self.update_learner(learner, topic_id, item_id, score, item=item)
        if learn_item:
            _item_step(item, _probability(logit), score)
        return self.calibrate(logit)

    def replay(self, learners: Iterable[Sequence[Answer]]) -> tuple[list[float], list[float]]:
        """Each learner's answers in order, from a new learner: the logit (before the Platt
        scaling) of every answer as predicted from the earlier ones only, and the scores.
        The questions are read, never changed: one learner's answers never reach another's
        predictions (held-out and test learners are replayed this way)."""
        logits: list[float] = []
        scores: list[float] = []
        new_item = ItemState(0.0, self.params.item_variance, 0)
        items = self.params.items
        for answers in learners:
            learner = self.new_learner()
            for item_id, topic_id, score in answers:
                item = items.get(item_id, new_item)
                logits.append(self.update_learner(learner, topic_id, item_id, score, item=item))
                scores.append(float(score))
        return logits, scores

    def update_learner(
        self, learner: LearnerState, topic_id: str, item_id: str, score: float, *, item: ItemState
    ) -> float:
        """The learner's half of `update`: the question's state is read, not changed. Returns
        the logit of the answer as predicted just before it; `learn_item` takes the question's
        half later, from that logit with the question's difficulty added back.

        A partly right answer is a fractional outcome: the surprise is score - p, so a
        half-right answer moves the abilities half way between where a right and a wrong one
        would (the step's size, from p(1 - p), does not depend on the outcome). That is the
        log-loss with a fractional target, which the fit minimises too."""
        params = self.params
        topic = self.topic_state(learner, topic_id)
        overall = learner.overall
        logit = self._logit(learner, topic, topic_id, item, item_id)
        probability = _probability(logit)
        outcome = float(score)
        # The filter step, as in `fitting._train_epoch`.
        answer_information = probability * (1.0 - probability)
        item_profile = item.profile
        if len(learner.profile) < len(item_profile):
            self._widen(learner)
        profile_variance = learner.profile_variance
        profile_spread = (
            sum(
                profile_variance[k] * item_profile[k] * item_profile[k]
                for k in range(len(item_profile))
            )
            if item_profile
            else 0.0
        )
        overall_variance, topic_variance = overall.variance, topic.variance
        denominator = 1.0 + answer_information * (
            overall_variance + topic_variance + profile_spread
        )
        surprise = (outcome - probability) / denominator
        overall.ability += overall_variance * surprise
        topic.ability += topic_variance * surprise
        overall.variance = (
            overall_variance
            - overall_variance * overall_variance * answer_information / denominator
            + params.ability_drift
        )
        topic.variance = (
            topic_variance
            - topic_variance * topic_variance * answer_information / denominator
            + params.topic_drift
        )
        if item_profile:
            learner_profile = learner.profile
            for k in range(len(item_profile)):
                gain = profile_variance[k] * item_profile[k]
                learner_profile[k] += gain * surprise
                profile_variance[k] -= gain * gain * answer_information / denominator
        observe_answer(overall, topic, item_id, score)
        learner.trace = leave_trace(learner.trace, params.item_trace.get(item_id), score)
        return logit


def _probability(logit: float) -> float:
    return 1.0 / (1.0 + math.exp(-logit)) if logit > -30.0 else 1e-13


def _item_step(item: ItemState, probability: float, score: float) -> None:
    outcome = float(score)  # a partly right answer moves the difficulty by its share
    answer_information = probability * (1.0 - probability)
    variance = item.variance
    item.difficulty -= variance * (outcome - probability) / (1.0 + variance * answer_information)
    item.variance = variance / (1.0 + variance * answer_information)
    item.answers += 1


def learn_item(item: ItemState, learner_logit: float, score: float) -> None:
    """The question's half of `update`, done later (in order, answer after answer): the
    learner's logit without the question's difficulty (`update_learner`'s logit plus the
    difficulty it was computed with) meets the question's difficulty as it stands now."""
    _item_step(item, _probability(learner_logit - item.difficulty), score)
