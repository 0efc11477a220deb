"""The fitter of the learner model (`learner_model`): its weights, difficulties and question
profiles, fitted on past learners' answers. Plain Python, no Django, like the model.

Weights, difficulties and question profiles are fitted by AdaGrad over replays of the training
learners, the filter running exactly as it does at prediction time (`ReadinessModel.update`).
The number of passes, the filter's prior variances and process noise, and the Platt scaling
are chosen on training learners held out of that fit (the filter's settings on a sample of
them, for time, after every pass: the next pass trains under them). So is the factor on the
questions' own context weights, on a log of at least FitConfig.tune_context_from answers; on
a smaller one it is FitConfig.context_scale, where choosing it on a few held-out learners did
worse; and the factor on the trace of the last answers, on a log of at least
FitConfig.trace_from answers (on a smaller one the trace is off). Nothing is set by hand for
a particular data set: the defaults were chosen leaving each log out in turn
(docs/readiness.md). The passes stop when the held-out log-loss stops improving, or after
FitConfig.max_epochs, fewer on a big log (FitConfig.max_replayed_answers): never on the
clock. With those choices made, the model is fitted once more from the start on
every training learner, the held-out ones included, and that fit is the one shipped (`fit`
says why). Two such fits, from different random starts but on the same held-out learners, are
merged into one model of the same form (`progress.engine.ensemble`), with a Platt scaling of
its own fitted on the held-out learners (FitConfig.fits). Last, the variances the forecast
integrates over are calibrated on every training learner's last answers
(`progress.engine.spread`), and the logit of a question met fresh is scaled to the model's
own predictions of first answers (`progress.engine.fresh`): `_calibrate_forecast`.

The replays run over answers encoded once as flat tuples (`_encode`), with the filter's step
inlined rather than calls to `ReadinessModel`: pure Python does about 50,000 answers a second
per pass this way. The logit is summed by the model's own `logit_sum` (the held-out replay
adds the filtered terms to a base summed once per pass, for speed). The replays must predict
exactly as the public model does with the fitted parameters, or the choices made on the
held-out learners would not hold for it; tests/test_readiness.py checks that they do.
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from operator import mul

from progress.engine import ensemble, fresh, spread
from progress.engine.learner_model import (
    FEATURES,
    N_CONTEXT,
    N_FEATURES,
    N_PATTERNS,
    PROFILE_SIZE,
    STREAK_FEATURES,
    TRACE_DECAY,
    TRACE_SIZE,
    Answer,
    ItemState,
    LearnerTopicState,
    ModelParams,
    ReadinessModel,
    TopicParams,
    context,
    features,
    logit_sum,
    marked,
    observe_answer,
    profile_prior,
    sigmoid,
)


@dataclass(frozen=True)
class FitConfig:
    """How to fit. The defaults are general choices, not tuned to a data set; what depends on
    the data is chosen on held-out training learners inside `fit`."""

    max_epochs: int = 6
    # Passes tried after the held-out log-loss last improved, before stopping.
    patience: int = 1
    # A pass improves when it lowers the held-out log-loss by more than this.
    tolerance: float = 1e-5
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
    # Spread of the random start of the question profiles (it breaks their symmetry), and of
    # what the questions read of the trace (its marks start at 0).
    profile_start: float = 0.1
    trace_start: float = 0.1
    # AdaGrad's step size for the marks the answers leave in the trace: smaller than the
    # others, since a mark's gradient sums a learner's next answers (0.01, 0.03 and 0.1 were
    # tried; docs/readiness.md, "The trace of the last answers").
    trace_rate: float = 0.03
    # The trace (see _Filter.trace_scale) is on, its factor chosen on the held-out learners,
    # from `trace_from` answers; on a smaller log it is off (`trace_scale`). From 20,000 to
    # 50,000 answers, where it was on at first, it lost AUC on two subsamples of three
    # (docs/readiness.md, "The trace of the last answers"): 24 numbers a question to fit.
    trace_from: int = 100_000
    trace_scale: float = 0.0
    # Share of the training learners held out to choose the passes, the filter, the scaling.
    holdout: float = 0.2
    min_holdout_learners: int = 5
    # What a fit may cost, counted in answers rather than seconds, so that the same log and
    # seed give the same fit on any machine: beyond max_answers, fit on a random sample of
    # whole learners; and start no pass that would take the answers replayed by the passes
    # past max_replayed_answers. With 16 profile dimensions pure Python replayed 50,000 to
    # 75,000 answers a second, and 48 take about 1.7 times as long; the larger log in data/kt
    # (176,000 answers fitted on) gets its 6 passes, a site's 500,000 sampled answers
    # (400,000 fitted on) 4: about 50 seconds of CPU time either way. The fit shipped, on
    # every learner, replays as many passes again over a quarter more answers, within the
    # same limit (`fit`): a whole fit takes about twice and a quarter that, plus a search of
    # the filter's settings after each pass (some 25 replays of `tune_answers` answers); and
    # a model merged from two fits (`fits`) costs all that twice.
    max_answers: int = 500_000
    max_replayed_answers: int = 1_600_000
    # Held-out answers the filter's settings are searched on (whole learners).
    tune_answers: int = 20_000
    # Passes without held-out learners (too few learners to hold any out).
    default_epochs: int = 3
    # The factor on the questions' own context weights (see _Filter.context_scale): this
    # value, unless the log has at least `tune_context_from` answers, when the fit chooses it
    # on its held-out learners with the filter's settings. Both were chosen leaving each log
    # out in turn (docs/readiness.md, "One setting for every log"): chosen on 10 held-out
    # learners of a 5,700-answer simulated log, the factor lost 0.0025 AUC to this value.
    context_scale: float = 0.5
    tune_context_from: int = 20_000
    # Fits merged into the model shipped (progress.engine.ensemble): each from its own random
    # start, the same held-out learners choosing each one's passes and settings, and the
    # merged model's Platt scaling.
    fits: int = 2
    # The yardstick: a plain logistic regression on the same history features, questions and
    # topics, without the filtered abilities, the profiles and the questions' own context
    # weights (docs/readiness.md compares the model with it).
    logistic_only: bool = False


class Stop(StrEnum):
    """Why the passes stopped."""

    CONVERGED = "converged: the held-out log-loss stopped improving"
    MAX_PASSES = "stopped at the most passes allowed"
    ANSWER_LIMIT = "stopped at the limit on the answers replayed"
    NO_HOLDOUT = "a fixed number of passes: too few learners to hold any out"


@dataclass
class FitReport:
    learners: int = 0
    answers: int = 0
    holdout_learners: int = 0
    epochs: int = 0  # passes kept: the one with the lowest held-out log-loss
    passes: int = 0  # passes made
    stop: Stop = Stop.NO_HOLDOUT
    holdout_logloss: list[float] = field(default_factory=list)
    sampled_answers: int | None = None  # answers fitted on, when the log was sampled
    # Whether the questions' context factor was chosen on the held-out learners (a log of
    # FitConfig.tune_context_from answers or more) rather than set (FitConfig.context_scale).
    context_chosen: bool = False
    # Passes of the fit shipped, on every training learner (the held-out ones included),
    # with the settings they chose; 0 when none were held out (see `fit`).
    refit_passes: int = 0
    filter: dict[str, float] = field(default_factory=dict)
    slope: float = 1.0
    intercept: float = 0.0
    # The factors on the forecast's variances, and how they were measured (`_calibrate_forecast`).
    forecast_spread: spread.SpreadScales = field(default_factory=spread.SpreadScales)
    # The scaling of a question met fresh (`_calibrate_forecast`).
    fresh_scaling: fresh.FreshScaling = field(default_factory=fresh.FreshScaling)
    # The reports of the fits after the first, when several are merged (FitConfig.fits):
    # this one is the first's, but for the merged model's Platt scaling above.
    others: list[FitReport] = field(default_factory=list)

    def merged(self) -> str:
        """What the fits after the first kept, for a summary; empty for a fit of one model."""
        if not self.others:
            return ""
        kept = ", ".join(f"{other.epochs} of {other.passes}" for other in self.others)
        more = "fit" if len(self.others) == 1 else "fits"
        return f"merged with {len(self.others)} more {more} ({kept} passes kept)"

    def forecast_kept(self) -> str:
        """What the fit calibrated for the forecast, for a summary: the factors on its
        variances and the scaling of a question met fresh."""
        scales = self.forecast_spread
        if not scales.learners:
            kept = "forecast spread the filter's own (no history long enough to measure it)"
        else:
            kept = (
                f"forecast spread x{scales.overall:.2f} overall, x{scales.topic:.2f} topics "
                f"(measured {scales.overall_estimate:.2f} +- {scales.overall_error:.2f} and "
                f"{scales.topic_estimate:.2f} +- {scales.topic_error:.2f} on "
                f"{scales.learners:,} learners)"
            )
        return f"{kept}; {self.fresh_kept()}"

    def fresh_kept(self) -> str:
        """The scaling of a question met fresh, for a summary."""
        scaling = self.fresh_scaling
        if not scaling.answers:
            return "fresh questions unscaled (no first answers)"
        return (
            f"fresh questions x{scaling.slope:.3f} {scaling.intercept:+.3f} "
            f"(on {scaling.answers:,} first answers)"
        )

    def passes_kept(self) -> str:
        """The passes each fit kept: "6 of 6", or "6 of 6 + 4 of 6" for two merged."""
        return " + ".join(f"{r.epochs} of {r.passes}" for r in (self, *self.others))


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
    # The factor on the trace term, chosen so too: on simulated learners, whose answers leave
    # no trace, it fits mostly noise and the held-out learners keep it at 0 to 0.25.
    trace_scale: float = 1.0

    def as_dict(self) -> dict[str, float]:
        return {
            "ability_variance": self.ability_variance,
            "topic_variance": self.topic_variance,
            "profile_variance": self.profile_variance,
            "ability_drift": self.ability_drift,
            "topic_drift": self.topic_drift,
            "extra_profile_variance": self.extra_profile_variance,
            "context_scale": self.context_scale,
            "trace_scale": self.trace_scale,
        }


# The yardstick's (FitConfig.logistic_only): no abilities, profiles or question context.
_LOGISTIC = _Filter(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)

# Each setting's candidates for the coordinate search, in increasing order.
_FILTER_GRID = {
    "ability_variance": (0.0, 0.05, 0.1, 0.2, 0.4, 0.8, 1.6),
    "topic_variance": (0.0, 0.05, 0.1, 0.2, 0.4, 0.8, 1.6),
    "profile_variance": (0.0, 0.05, 0.1, 0.2, 0.4, 0.8),
    "ability_drift": (0.0, 0.001, 0.003, 0.01, 0.03),
    "topic_drift": (0.0, 0.001, 0.003, 0.01, 0.03),
    "extra_profile_variance": (0.0, 0.05, 0.1, 0.2, 0.4, 0.8),
    "context_scale": (0.0, 0.25, 0.5, 1.0),
    "trace_scale": (0.0, 0.25, 0.5, 1.0),
}

# One encoded answer: (item index, topic index, features, pattern codes on the topic and in
# all, context, the score: 0 or 1, or a share for a partly right answer).
_Row = tuple[int, int, tuple[float, ...], int, int, tuple[float, ...], float]
# One held-out answer: (logit without the filtered terms, item index, topic index, the score,
# the question's context weights times the context, before the context scale, and the trace
# term, before the trace scale).
_Base = tuple[float, int, int, float, float, float]
# Plain tuples rather than NamedTuples: they never leave this module, and the hot loops unpack
# them per answer, which CPython 3.13 specialises for exact tuples only; as NamedTuples a fit
# took 1.1% more instructions (valgrind, statics' first 30,000 answers).


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
        for item_id, topic_id, score in answers:
            state = states.get(topic_id)
            if state is None:
                state = states[topic_id] = LearnerTopicState(0.0, 0.0)
            item = items.setdefault(item_id, len(items))
            topic = topics.setdefault(topic_id, len(topics))
            history = tuple(features(overall, state, item_id))
            answer_context = context(overall, state)
            outcome = float(score)  # a partly right answer: a fractional target
            rows.append((item, topic, history, state.last, overall.last, answer_context, outcome))
            observe_answer(overall, state, item_id, score)
        blocks.append(rows)
    return blocks


class _Weights:
    """What AdaGrad fits, in flat lists indexed by question and topic number, with AdaGrad's
    sums of squared gradients alongside (started at a tiny value to avoid dividing by 0)."""

    def __init__(
        self,
        n_items: int,
        n_topics: int,
        config: FitConfig,
        random_source: random.Random,
        *,
        trace: bool = True,
    ) -> None:
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
            [random_source.gauss(0.0, config.profile_start) for _ in range(PROFILE_SIZE)]
            for _ in range(n_items)
        ]
        self.g_profiles = [tiny] * n_items
        # The trace: what each question reads of it, and the marks it leaves (right, wrong).
        # None in the yardstick (FitConfig.logistic_only), which has no learner state, nor
        # where it is off from the start (`fit`): no random start drawn, so such a fit is the
        # one it was before the trace.
        self.trace = trace and not config.logistic_only
        size = TRACE_SIZE if self.trace else 0
        self.trace_reads = [
            [random_source.gauss(0.0, config.trace_start) for _ in range(size)]
            for _ in range(n_items)
        ]
        self.g_trace_reads = [tiny] * n_items
        self.trace_marks = [[[0.0] * size, [0.0] * size] for _ in range(n_items)]
        self.g_trace_marks = [[tiny, tiny] for _ in range(n_items)]
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
                setattr(
                    twin, name, [inner[:] if isinstance(inner, list) else inner for inner in value]
                )
        return twin

    def set_priors(self, blocks: Sequence[list[_Row]], config: FitConfig) -> None:
        item_answers = [0] * len(self.item_difficulty)
        topic_answers = [0] * len(self.topic_difficulty)
        for rows in blocks:
            for item, topic, *_ in rows:
                item_answers[item] += 1
                topic_answers[topic] += 1
        self.item_answers = item_answers
        for item, answers in enumerate(item_answers):
            if answers == 0:  # seen only in held-out learners: an average question, no profile
                self.profiles[item] = [0.0] * PROFILE_SIZE
                self.trace_reads[item] = [0.0] * len(self.trace_reads[item])
        self.item_l2 = [config.item_precision / max(answers, 1) for answers in item_answers]
        self.topic_l2 = [config.topic_precision / max(answers, 1) for answers in topic_answers]


def _train_epoch(
    model: _Weights,
    blocks: Sequence[list[_Row]],
    order: Sequence[int],
    config: FitConfig,
    filt: _Filter,
) -> None:
    """One pass of AdaGrad over the learners in `order`, each learner's answers in turn, with
    the abilities and profiles filtered as at prediction time (see ReadinessModel.update)."""
    # The model's lists bound to locals, for speed; `*_grads` are AdaGrad's sums of squared
    # gradients. The feature weights and their sums are new lists after each answer, so they
    # are stored back at the end.
    rate = config.learning_rate
    item_rate = rate * config.item_rate_factor
    weights, weight_grads = model.weights, model.g_weights
    patterns, pattern_grads = model.patterns, model.g_patterns
    total_patterns, total_pattern_grads = model.total_patterns, model.g_total_patterns
    topic_difficulty, topic_wins, topic_fails = (
        model.topic_difficulty,
        model.topic_wins,
        model.topic_fails,
    )
    topic_difficulty_grads, topic_wins_grads, topic_fails_grads = model.g_topic
    item_difficulty, item_difficulty_grads = model.item_difficulty, model.g_item
    information = model.information
    topic_contexts, topic_context_grads = model.topic_context, model.g_topic_context
    item_contexts, item_context_grads = model.item_context, model.g_item_context
    context_shrink = config.context_shrink
    context_scale = filt.context_scale
    profiles, profile_grads = model.profiles, model.g_profiles
    item_l2, topic_l2 = model.item_l2, model.topic_l2
    bias, bias_grads = model.bias, model.g_bias
    ability_prior, topic_prior = filt.ability_variance, filt.topic_variance
    ability_drift, topic_drift = filt.ability_drift, filt.topic_drift
    profile_prior_variance = profile_prior(filt.profile_variance, filt.extra_profile_variance)
    trace_reads, trace_read_grads = model.trace_reads, model.g_trace_reads
    trace_marks, trace_mark_grads = model.trace_marks, model.g_trace_marks
    trace_scale, trace_rate = filt.trace_scale, config.trace_rate
    use_trace = model.trace and trace_scale > 0.0
    sqrt, exp = math.sqrt, math.exp
    for learner in order:
        ability, ability_variance = 0.0, ability_prior
        topic_abilities: dict[int, list[float]] = {}  # topic -> [mean, variance]
        learner_profile = [0.0] * PROFILE_SIZE
        learner_profile_variance = profile_prior_variance
        learner_trace = [0.0] * len(trace_reads[0]) if trace_reads else []
        # Per answer, what the marks' step back needs: the question, the score, the error.
        answered: list[tuple[int, float, float]] = []
        # z, p and y: the answer's logit, its probability and its outcome (its score).
        for item, topic, history, pattern, total_pattern, answer_context, y in blocks[learner]:
            topic_ability = topic_abilities.get(topic)
            if topic_ability is None:
                topic_ability = topic_abilities[topic] = [0.0, topic_prior]
            item_profile = profiles[item]
            topic_context, item_context = topic_contexts[topic], item_contexts[item]
            z = logit_sum(
                bias,
                topic_difficulty[topic],
                item_difficulty[item],
                topic_wins[topic],
                topic_fails[topic],
                weights,
                history,
                patterns[pattern],
                total_patterns[total_pattern],
                topic_context,
                item_context,
                context_scale,
                answer_context,
                ability,
                topic_ability[0],
                learner_profile,
                item_profile,
                trace_reads[item],
                learner_trace,
                trace_scale,
            )
            p = 1.0 / (1.0 + exp(-z)) if z > -30.0 else 1e-13
            error = p - y  # the log-loss's gradient on the logit
            if use_trace:
                # What the question reads of the trace; the marks that made the trace get
                # their step after the learner's last answer, below.
                reads, penalty = trace_reads[item], item_l2[item]
                gradients = [
                    error * trace_scale * mark + penalty * weight
                    for mark, weight in zip(learner_trace, reads, strict=True)
                ]
                trace_read_grads[item] += sum(map(mul, gradients, gradients)) / TRACE_SIZE
                step = rate / sqrt(trace_read_grads[item])
                trace_reads[item] = [
                    weight - step * gradient
                    for weight, gradient in zip(reads, gradients, strict=True)
                ]
                answered.append((item, y, error))
                # The trace the next answer meets (learner_model.marked, inlined).
                right, wrong = trace_marks[item]
                rest = 1.0 - y
                learner_trace = [
                    TRACE_DECAY * value + y * mark + rest * other
                    for value, mark, other in zip(learner_trace, right, wrong, strict=True)
                ]
            # AdaGrad steps on every term of the logit (the abilities are the filter's).
            bias_grads += error * error
            bias -= rate * error / sqrt(bias_grads)
            feature_gradients = [error * feature for feature in history]
            weight_grads = [
                total + gradient * gradient
                for total, gradient in zip(weight_grads, feature_gradients, strict=True)
            ]
            weights = [
                weight - rate * gradient / sqrt(total)
                for weight, gradient, total in zip(
                    weights, feature_gradients, weight_grads, strict=True
                )
            ]
            pattern_grads[pattern] += error * error
            patterns[pattern] -= rate * error / sqrt(pattern_grads[pattern])
            total_pattern_grads[total_pattern] += error * error
            total_patterns[total_pattern] -= rate * error / sqrt(total_pattern_grads[total_pattern])
            penalty = topic_l2[topic]
            gradient = -error + penalty * topic_difficulty[topic]
            topic_difficulty_grads[topic] += gradient * gradient
            topic_difficulty[topic] -= rate * gradient / sqrt(topic_difficulty_grads[topic])
            gradient = feature_gradients[0] + penalty * topic_wins[topic]
            topic_wins_grads[topic] += gradient * gradient
            topic_wins[topic] -= rate * gradient / sqrt(topic_wins_grads[topic])
            gradient = feature_gradients[1] + penalty * topic_fails[topic]
            topic_fails_grads[topic] += gradient * gradient
            topic_fails[topic] -= rate * gradient / sqrt(topic_fails_grads[topic])
            gradients = [
                error * sign + penalty * weight
                for sign, weight in zip(answer_context, topic_context, strict=True)
            ]
            topic_context_grads[topic] = totals = [
                total + gradient * gradient
                for total, gradient in zip(topic_context_grads[topic], gradients, strict=True)
            ]
            topic_contexts[topic] = [
                weight - rate * gradient / sqrt(total)
                for weight, gradient, total in zip(topic_context, gradients, totals, strict=True)
            ]
            penalty = item_l2[item]
            # A question's own context weights are shrunk harder than its difficulty: they
            # are an interaction, fitted from the few of its answers that share a context.
            gradients = [
                error * context_scale * sign + context_shrink * penalty * weight
                for sign, weight in zip(answer_context, item_context, strict=True)
            ]
            item_context_grads[item] += sum(map(mul, gradients, gradients)) / N_CONTEXT
            step = rate / sqrt(item_context_grads[item])
            item_contexts[item] = [
                weight - step * gradient
                for weight, gradient in zip(item_context, gradients, strict=True)
            ]
            gradient = -error + penalty * item_difficulty[item]
            item_difficulty_grads[item] += gradient * gradient
            item_difficulty[item] -= item_rate * gradient / sqrt(item_difficulty_grads[item])
            gradients = [
                error * mine + penalty * theirs
                for mine, theirs in zip(learner_profile, item_profile, strict=True)
            ]
            profile_grads[item] += sum(map(mul, gradients, gradients)) / PROFILE_SIZE
            step = rate / sqrt(profile_grads[item])
            profiles[item] = item_profile = [
                weight - step * gradient
                for weight, gradient in zip(item_profile, gradients, strict=True)
            ]
            # The filter step (ReadinessModel.update_learner), inlined.
            answer_information = p * (1.0 - p)
            information[item] += answer_information
            gains = list(map(mul, learner_profile_variance, item_profile))
            profile_spread = sum(map(mul, gains, item_profile))
            topic_variance = topic_ability[1]
            denominator = 1.0 + answer_information * (
                ability_variance + topic_variance + profile_spread
            )
            surprise = (y - p) / denominator
            ability += ability_variance * surprise
            topic_ability[0] += topic_variance * surprise
            ability_variance = (
                ability_variance
                - ability_variance * ability_variance * answer_information / denominator
                + ability_drift
            )
            topic_ability[1] = (
                topic_variance
                - topic_variance * topic_variance * answer_information / denominator
                + topic_drift
            )
            learner_profile = [
                mean + gain * surprise for mean, gain in zip(learner_profile, gains, strict=True)
            ]
            learner_profile_variance = [
                variance - gain * gain * answer_information / denominator
                for variance, gain in zip(learner_profile_variance, gains, strict=True)
            ]
        if answered:
            _step_marks(
                answered,
                trace_reads,
                trace_marks,
                trace_mark_grads,
                item_l2,
                trace_rate,
                trace_scale,
            )
    model.bias, model.g_bias = bias, bias_grads
    model.weights, model.g_weights = weights, weight_grads


def _step_marks(
    answered: Sequence[tuple[int, float, float]],
    trace_reads: list[list[float]],
    trace_marks: list[list[list[float]]],
    mark_grads: list[list[float]],
    item_l2: Sequence[float],
    rate: float,
    scale: float,
) -> None:
    """AdaGrad's step on the marks a learner's answers left in the trace. A mark entered
    every later answer's logit through the trace, decayed by TRACE_DECAY an answer: its
    gradient is the sum over those answers of their error times what their question reads,
    so the answers are walked back once, that sum carried along (`later`); `scale` is the
    trace's factor."""
    later = [0.0] * TRACE_SIZE
    sqrt = math.sqrt
    for item, y, error in reversed(answered):
        marks, grads, penalty = trace_marks[item], mark_grads[item], item_l2[item]
        for side, weight in ((0, y), (1, 1.0 - y)):  # the right answer's mark, the wrong's
            if weight == 0.0:
                continue
            mark = marks[side]
            gradients = [
                weight * carried + penalty * value
                for carried, value in zip(later, mark, strict=True)
            ]
            grads[side] += sum(map(mul, gradients, gradients)) / TRACE_SIZE
            step = rate / sqrt(grads[side])
            marks[side] = [
                value - step * gradient for value, gradient in zip(mark, gradients, strict=True)
            ]
        later = [
            TRACE_DECAY * carried + error * scale * read
            for carried, read in zip(later, trace_reads[item], strict=True)
        ]


def _base_logits(model: _Weights, blocks: Sequence[list[_Row]]) -> list[list[_Base]]:
    """For held-out learners: each answer's logit without the terms the filter's settings
    change (the abilities, the profiles, the scaled question context), which
    `_filtered_logits` adds; the filter's search replays these answers some 25 times."""
    weights, patterns, total_patterns = model.weights, model.patterns, model.total_patterns
    topic_difficulty, topic_wins, topic_fails = (
        model.topic_difficulty,
        model.topic_wins,
        model.topic_fails,
    )
    item_difficulty = model.item_difficulty
    topic_contexts, item_contexts = model.topic_context, model.item_context
    bias = model.bias
    traces = _traces(model, blocks)
    return [
        [
            (
                logit_sum(
                    bias,
                    topic_difficulty[topic],
                    item_difficulty[item],
                    topic_wins[topic],
                    topic_fails[topic],
                    weights,
                    history,
                    patterns[pattern],
                    total_patterns[total_pattern],
                    topic_context=topic_contexts[topic],
                    answer_context=answer_context,
                ),
                item,
                topic,
                score,
                sum(map(mul, item_contexts[item], answer_context)),
                trace,
            )
            for (item, topic, history, pattern, total_pattern, answer_context, score), trace in zip(
                rows, learner_traces, strict=True
            )
        ]
        for rows, learner_traces in zip(blocks, traces, strict=True)
    ]


def _traces(model: _Weights, blocks: Sequence[list[_Row]]) -> list[list[float]]:
    """Each answer's trace term (what its question reads of the learner's trace), which does
    not depend on the filter's settings."""
    reads, marks = model.trace_reads, model.trace_marks
    terms = []
    for rows in blocks:
        learner_trace = [0.0] * len(reads[0]) if reads else []
        learner_terms = []
        for item, *_, y in rows:
            learner_terms.append(sum(map(mul, reads[item], learner_trace)))
            right, wrong = marks[item]
            learner_trace = marked(learner_trace, right, wrong, y)
        terms.append(learner_terms)
    return terms


def _filtered_logits(
    model: _Weights, bases: Sequence[list[_Base]], filt: _Filter
) -> tuple[list[float], list[float]]:
    """Replay the filter over held-out learners: the logit before each answer, and outcomes."""
    ability_prior, topic_prior = filt.ability_variance, filt.topic_variance
    ability_drift, topic_drift = filt.ability_drift, filt.topic_drift
    profile_prior_variance = profile_prior(filt.profile_variance, filt.extra_profile_variance)
    context_scale, trace_scale = filt.context_scale, filt.trace_scale
    profiles = model.profiles
    use_profiles = max(profile_prior_variance) > 0.0
    exp = math.exp
    logits: list[float] = []
    outcomes: list[float] = []
    for rows in bases:
        ability, ability_variance = 0.0, ability_prior
        topic_abilities: dict[int, list[float]] = {}  # topic -> [mean, variance]
        learner_profile = [0.0] * PROFILE_SIZE
        learner_profile_variance = profile_prior_variance
        # z, p and y: the answer's logit, its probability and its outcome (its score).
        for base, item, topic, y, item_context_term, trace_term in rows:
            topic_ability = topic_abilities.get(topic)
            if topic_ability is None:
                topic_ability = topic_abilities[topic] = [0.0, topic_prior]
            # The rest of `logit_sum`, added here rather than summed again from the row: this
            # replay runs some 25 times in the filter's search, and summing every term each
            # time cost the whole fit 7% more instructions. A test ties these logits to the
            # model's.
            z = (
                base
                + context_scale * item_context_term
                + trace_scale * trace_term
                + ability
                + topic_ability[0]
            )
            item_profile = profiles[item]
            if use_profiles:
                z += sum(map(mul, learner_profile, item_profile))
            logits.append(z)
            outcomes.append(y)
            p = 1.0 / (1.0 + exp(-z)) if z > -30.0 else 1e-13
            answer_information = p * (1.0 - p)
            topic_variance = topic_ability[1]
            if use_profiles:
                gains = list(map(mul, learner_profile_variance, item_profile))
                denominator = 1.0 + answer_information * (
                    ability_variance + topic_variance + sum(map(mul, gains, item_profile))
                )
            else:
                denominator = 1.0 + answer_information * (ability_variance + topic_variance)
            surprise = (y - p) / denominator
            ability += ability_variance * surprise
            topic_ability[0] += topic_variance * surprise
            ability_variance = (
                ability_variance
                - ability_variance * ability_variance * answer_information / denominator
                + ability_drift
            )
            topic_ability[1] = (
                topic_variance
                - topic_variance * topic_variance * answer_information / denominator
                + topic_drift
            )
            if use_profiles:
                learner_profile = [
                    mean + gain * surprise
                    for mean, gain in zip(learner_profile, gains, strict=True)
                ]
                learner_profile_variance = [
                    variance - gain * gain * answer_information / denominator
                    for variance, gain in zip(learner_profile_variance, gains, strict=True)
                ]
    return logits, outcomes


def _logloss(logits: Sequence[float], outcomes: Sequence[float]) -> float:
    """The mean log-loss; a partly right answer's score y is a fractional target, whose loss
    -y log p - (1 - y) log(1 - p) is log(1 + e^z) - y z."""
    total = 0.0
    log1p, exp = math.log1p, math.exp
    for z, y in zip(logits, outcomes, strict=True):  # a logit and its outcome
        if y == 0.0 or y == 1.0:
            margin = -z if y else z  # the loss is log(1 + e^margin), computed stably
        else:
            margin = z  # log(1 + e^z), then less y z
            total -= y * z
        total += margin + log1p(exp(-margin)) if margin > 0 else log1p(exp(margin))
    return total / len(logits)


def _platt(logits: Sequence[float], outcomes: Sequence[float]) -> tuple[float, float]:
    """Newton's method for the slope and intercept of a logistic regression on the logit."""
    slope, intercept = 1.0, 0.0
    for _ in range(25):
        # The log-loss's gradient and Hessian in (slope, intercept).
        grad_slope = grad_intercept = 0.0
        hess_slope = hess_cross = hess_intercept = 0.0
        for z, y in zip(logits, outcomes, strict=True):  # a logit and its outcome
            p = sigmoid(slope * z + intercept)
            error = p - y
            weight = p * (1.0 - p)
            grad_slope += error * z
            grad_intercept += error
            hess_slope += weight * z * z
            hess_cross += weight * z
            hess_intercept += weight
        determinant = hess_slope * hess_intercept - hess_cross * hess_cross
        if determinant <= 1e-12:
            break
        step_slope = (hess_intercept * grad_slope - hess_cross * grad_intercept) / determinant
        step_intercept = (hess_slope * grad_intercept - hess_cross * grad_slope) / determinant
        slope, intercept = slope - step_slope, intercept - step_intercept
        if abs(step_slope) + abs(step_intercept) < 1e-9:
            break
    return slope, intercept


def _sample(bases: Sequence[list[_Base]], answers: int) -> Sequence[list[_Base]]:
    """The first held-out learners (in random order already) up to about `answers` answers:
    the filter's search replays them some 25 times, and a sample this size ranks its settings
    as the whole does, at a fraction of the time."""
    total = 0
    for count, rows in enumerate(bases, start=1):
        total += len(rows)
        if total >= answers:
            return bases[:count]
    return bases


def _tune_filter(
    model: _Weights, bases: Sequence[list[_Base]], start: _Filter, *, tune_context: bool = True
) -> _Filter:
    """Coordinate search of the filter's settings on the held-out learners' log-loss: each in
    turn moves along its grid while that helps; rounds until nothing moves. The context
    factor stays at its start unless `tune_context`, the trace's unless the model has one."""
    fixed = set() if tune_context else {"context_scale"}
    if not model.trace:
        fixed.add("trace_scale")
    searched = {name: grid for name, grid in _FILTER_GRID.items() if name not in fixed}

    def loss(filt: _Filter) -> float:
        return _logloss(*_filtered_logits(model, bases, filt))

    best, best_loss = start, loss(start)
    for _round in range(3):
        moved = False
        for name, grid in searched.items():
            current = grid.index(getattr(best, name))
            for step in (1, -1):
                index = current + step
                while 0 <= index < len(grid):
                    candidate = _Filter(**{**best.as_dict(), name: grid[index]})
                    candidate_loss = loss(candidate)
                    if candidate_loss >= best_loss - 1e-6:
                        break
                    best, best_loss = candidate, candidate_loss
                    index += step
                if getattr(best, name) != grid[current]:
                    moved = True
                    break  # it moved up: no need to try down
        if not moved:
            break
    return best


def _pass_limit(blocks: Sequence[list[_Row]], most: int, config: FitConfig) -> tuple[int, Stop]:
    """The passes a fit on these answers may make: `most`, or fewer when they would replay
    more than `config.max_replayed_answers` answers in all (never fewer than one); and what
    stops the passes if the held-out log-loss does not stop them first."""
    answers = max(sum(map(len, blocks)), 1)
    allowed = max(config.max_replayed_answers // answers, 1)
    if allowed < most:
        return allowed, Stop.ANSWER_LIMIT
    return most, Stop.MAX_PASSES


def _train(
    model: _Weights,
    blocks: Sequence[list[_Row]],
    config: FitConfig,
    filt: _Filter,
    random_source: random.Random,
) -> None:
    order = list(range(len(blocks)))
    random_source.shuffle(order)
    model.information = [0.0] * len(model.information)
    _train_epoch(model, blocks, order, config, filt)


def fit(
    sequences: Sequence[Sequence[Answer]], *, seed: int = 0, config: FitConfig | None = None
) -> tuple[ReadinessModel, FitReport]:
    """Fit on training learners' answer sequences (each in the order answered). A share of the
    learners is held out; the others are replayed by AdaGrad pass after pass while the
    held-out log-loss improves, up to a number of passes (the filter settings are tuned on
    the held-out learners after every pass), and the Platt scaling is fitted on the
    held-out learners' predictions; then the model is fitted again on every learner with the
    passes and settings so chosen. Two such fits (FitConfig.fits), from different random
    starts on the same held-out learners, are merged into the one returned
    (progress.engine.ensemble), its Platt scaling fitted on the held-out learners' predictions
    by the merge of the two fits that did not see them. Deterministic for a given seed: what
    stops the passes is counted (passes, answers) or computed (the log-loss), never timed, so
    a slow machine fits what a fast one does."""
    config = config or FitConfig()
    random_source = random.Random(seed)  # noqa: S311 - a reproducible shuffle, not a secret
    report = FitReport(learners=len(sequences), answers=sum(map(len, sequences)))
    if report.answers > config.max_answers:
        # A seeded sample of whole learners, so that a big log still fits in a bounded time.
        shuffled = list(sequences)
        random_source.shuffle(shuffled)
        sequences, total = [], 0
        for answers in shuffled:
            if total + len(answers) > config.max_answers:
                continue
            sequences.append(answers)
            total += len(answers)
        report.sampled_answers = total
    order = list(range(len(sequences)))
    random_source.shuffle(order)
    n_holdout = round(config.holdout * len(sequences))
    if n_holdout < config.min_holdout_learners or n_holdout >= len(sequences):
        n_holdout = 0
    held = set(order[:n_holdout])
    items: dict[str, int] = {}
    topics: dict[str, int] = {}
    fit_blocks = _encode(
        [answers for number, answers in enumerate(sequences) if number not in held], items, topics
    )
    hold_blocks = _encode(
        [answers for number, answers in enumerate(sequences) if number in held], items, topics
    )
    report.holdout_learners = len(hold_blocks)
    # The trace starts on where held-out learners will choose its factor, and may switch it
    # off after the first pass (they could not switch on what no pass trained); elsewhere it
    # keeps FitConfig.trace_scale.
    choose_trace = report.answers >= config.trace_from and bool(hold_blocks)
    filt = (
        _LOGISTIC
        if config.logistic_only
        else _Filter(
            context_scale=config.context_scale,
            trace_scale=1.0 if choose_trace else config.trace_scale,
        )
    )
    count = 1 if config.logistic_only else max(config.fits, 1)
    fits = []
    for number in range(count):
        # The first fit draws from the seed's stream, as a fit of one model always did; the
        # others from streams of their own, so that they start elsewhere.
        source = random_source if number == 0 else random.Random(f"{seed}/fit {number}")  # noqa: S311
        own = report if number == 0 else FitReport(report.learners, report.answers)
        own.holdout_learners = report.holdout_learners
        fits.append(
            _fit_one(fit_blocks, hold_blocks, items, topics, config, filt, source, own, count > 1)
        )
        if number:
            report.others.append(own)
    if count == 1:
        return _calibrate_forecast(ReadinessModel(fits[0][1]), sequences, report, config)
    # Merged (progress.engine.ensemble), with a Platt scaling of its own fitted on the
    # held-out learners' predictions by the merge of the fits that did not see them.
    slope, intercept = 1.0, 0.0
    if hold_blocks:
        model = ReadinessModel(ensemble.merge([first for first, _ in fits if first is not None]))
        held_out = [answers for number, answers in enumerate(sequences) if number in held]
        slope, intercept = _platt(*model.replay(held_out))
    merged = ensemble.merge([shipped for _, shipped in fits])
    merged.slope, merged.intercept = slope, intercept
    report.slope, report.intercept = slope, intercept
    return _calibrate_forecast(ReadinessModel(merged), sequences, report, config)


def _calibrate_forecast(
    model: ReadinessModel,
    sequences: Sequence[Sequence[Answer]],
    report: FitReport,
    config: FitConfig,
) -> tuple[ReadinessModel, FitReport]:
    """The model with what its forecast reads calibrated on every training learner: the
    variances it integrates over (`progress.engine.spread`: a residual a stretch of answers
    ahead is not what the fit minimised, and the estimate shrinks to the filter's own
    variances on a site with few learners) and the logit of a question met fresh
    (`progress.engine.fresh`). The fit shipped saw every learner, as the Platt scaling's replay
    did not. The yardstick has no filtered abilities and no forecast, so nothing to
    calibrate."""
    if not config.logistic_only:
        report.forecast_spread = spread.estimate(model, sequences)
        model.params.forecast_overall_scale = report.forecast_spread.overall
        model.params.forecast_topic_scale = report.forecast_spread.topic
        report.fresh_scaling = fresh.estimate(model, sequences)
        model.params.fresh_slope = report.fresh_scaling.slope
        model.params.fresh_intercept = report.fresh_scaling.intercept
    return model, report


def _fit_one(
    fit_blocks: list[list[_Row]],
    hold_blocks: list[list[_Row]],
    items: dict[str, int],
    topics: dict[str, int],
    config: FitConfig,
    filt: _Filter,
    random_source: random.Random,
    report: FitReport,
    keep_first: bool,
) -> tuple[ModelParams | None, ModelParams]:
    """One fit (see `fit`): the parameters shipped, and with `keep_first` those of the fit on
    the learners not held out, with the choices made on the held-out ones (None when none
    were held out), from which a merged model's scaling is fitted."""
    all_blocks = fit_blocks + hold_blocks
    tune_context = report.answers >= config.tune_context_from
    first = None
    model = _Weights(len(items), len(topics), config, random_source, trace=filt.trace_scale > 0)
    slope, intercept = 1.0, 0.0
    if hold_blocks:
        model.set_priors(fit_blocks, config)
        passes, report.stop = _pass_limit(fit_blocks, config.max_epochs, config)
        best, best_filt, best_loss = model, filt, math.inf
        for epoch in range(1, passes + 1):
            _train(model, fit_blocks, config, filt, random_source)
            bases = _base_logits(model, hold_blocks)
            if not config.logistic_only:
                # After every pass, not only the first: the settings that suit the weights
                # change as the profiles grow (on ASSISTments 2009 the profiles' prior
                # variance went from 0.4 after the first pass to 0.8 after the sixth), and the
                # next pass trains under them. It raised AUC on ASSISTments by 0.0035 (seed 0)
                # and on Statics by 0.0007 to 0.0015 (docs/readiness.md, "The filter chosen
                # after every pass"), for a search per pass, a few seconds, and on Statics the
                # passes it now keeps.
                filt = _tune_filter(
                    model, _sample(bases, config.tune_answers), filt, tune_context=tune_context
                )
                report.context_chosen = tune_context
            loss = _logloss(*_filtered_logits(model, bases, filt))
            report.holdout_logloss.append(loss)
            report.passes = epoch
            if loss < best_loss - config.tolerance:
                best, best_filt, best_loss = model.copy(), filt, loss
                report.epochs = epoch
            elif epoch - report.epochs > config.patience:
                report.stop = Stop.CONVERGED
                break
        model, filt = best, best_filt
        slope, intercept = _platt(*_filtered_logits(model, _base_logits(model, hold_blocks), filt))
        if keep_first:
            first = _params(model, items, topics, filt, slope, intercept)
            first.context_means = _context_means(
                model, fit_blocks, topics, filt.context_scale, filt.trace_scale
            )
        # Then the model shipped is fitted afresh on every training learner, the held-out ones
        # included, with what they chose: the passes kept, the filter's settings and the
        # scaling. A fifth more learners gives the questions more answers each: on
        # ASSISTments 2009, where a question has 12 answers on average and many that a test
        # learner meets had none outside the held-out learners, AUC rose from 0.820-0.829 to
        # 0.834-0.840; on Statics by 0.001 (docs/readiness.md). The scaling fitted on the
        # first fit still holds for it: test ECE fell on both logs. (Training the kept fit
        # further with the held-out learners added, tried before, moved the shared weights
        # off the scaling by up to 0.03 in ECE: the passes are counted from a fresh start.)
        model = _Weights(len(items), len(topics), config, random_source, trace=filt.trace_scale > 0)
        model.set_priors(all_blocks, config)
        report.refit_passes = _pass_limit(all_blocks, report.epochs, config)[0]
        for _epoch in range(report.refit_passes):
            _train(model, all_blocks, config, filt, random_source)
    else:
        model.set_priors(all_blocks, config)
        passes, stop = _pass_limit(all_blocks, config.default_epochs, config)
        for _epoch in range(passes):
            _train(model, all_blocks, config, filt, random_source)
        report.epochs = report.passes = passes
        report.stop = Stop.NO_HOLDOUT if stop is Stop.MAX_PASSES else stop
    report.filter = filt.as_dict()
    report.slope, report.intercept = slope, intercept
    params = _params(model, items, topics, filt, slope, intercept)
    params.context_means = _context_means(
        model, all_blocks, topics, filt.context_scale, filt.trace_scale
    )
    return first, params


def _context_means(
    model: _Weights,
    blocks: Sequence[list[_Row]],
    topics: dict[str, int],
    scale: float,
    trace_scale: float,
) -> dict[str, float]:
    """Per topic, the mean over its training answers of the streak terms: the total pattern's
    weight, the context terms of the topic and of the question (its weights at `scale`), the
    topic gap's term and the trace's (at `trace_scale`)."""
    total_patterns = model.total_patterns
    topic_contexts, item_contexts = model.topic_context, model.item_context
    # The history weights with all but the topic gap's at 0: its term alone.
    gap_weights = [
        weight if name in STREAK_FEATURES else 0.0
        for name, weight in zip(FEATURES, model.weights, strict=True)
    ]
    sums = [0.0] * len(topic_contexts)
    counts = [0] * len(topic_contexts)
    for rows, traces in zip(blocks, _traces(model, blocks), strict=True):
        for row, trace in zip(rows, traces, strict=True):
            item, topic, history, _pattern, total_pattern, answer_context, _score = row
            sums[topic] += (
                logit_sum(
                    weights=gap_weights,
                    history=history,
                    streak_weight=total_patterns[total_pattern],
                    topic_context=topic_contexts[topic],
                    item_context=item_contexts[item],
                    context_scale=scale,
                    answer_context=answer_context,
                )
                + trace_scale * trace
            )
            counts[topic] += 1
    return {
        topic_id: sums[topic] / counts[topic] for topic_id, topic in topics.items() if counts[topic]
    }


def _params(
    model: _Weights,
    items: dict[str, int],
    topics: dict[str, int],
    filt: _Filter,
    slope: float,
    intercept: float,
) -> ModelParams:
    difficulties = model.item_difficulty
    trained = [item for item in items.values() if model.item_answers[item]]
    mean = sum(difficulties[item] for item in trained) / max(len(trained), 1)
    fitted = sum((difficulties[item] - mean) ** 2 for item in trained) / max(len(trained), 1)
    item_variance = max(fitted, 0.01)
    use_profiles = max(filt.profile_variance, filt.extra_profile_variance) > 0.0
    return ModelParams(
        bias=model.bias,
        weights=list(model.weights),
        pattern_weights=list(model.patterns),
        total_pattern_weights=list(model.total_patterns),
        topics={
            topic_id: TopicParams(
                model.topic_difficulty[topic],
                model.topic_wins[topic],
                model.topic_fails[topic],
                list(model.topic_context[topic]),
            )
            for topic_id, topic in topics.items()
        },
        items={
            item_id: ItemState(
                difficulty=difficulties[item],
                # The Laplace approximation of the difficulty's posterior variance.
                variance=1.0 / (1.0 / item_variance + model.information[item]),
                answers=model.item_answers[item],
                profile=list(model.profiles[item]) if use_profiles else [],
            )
            for item_id, item in items.items()
            if model.item_answers[item]  # the others are average questions: no state needed
        },
        item_context={  # as they enter the logit: scaled (see _Filter.context_scale)
            item_id: [filt.context_scale * weight for weight in model.item_context[item]]
            for item_id, item in items.items()
            if model.item_answers[item]
        },
        item_trace={  # what it reads scaled, as it enters the logit (see _Filter.trace_scale)
            item_id: [
                *(filt.trace_scale * weight for weight in model.trace_reads[item]),
                *model.trace_marks[item][0],
                *model.trace_marks[item][1],
            ]
            for item_id, item in items.items()
            if model.item_answers[item] and model.trace and filt.trace_scale > 0.0
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
