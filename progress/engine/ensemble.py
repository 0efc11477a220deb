"""Several fits of the learner model merged into one model of the same form. Plain Python, no
Django, like the model.

A fit starts its question profiles and trace weights at random, and two fits that differ
only in that start predict a little differently: averaging their logits scored higher than
either alone on every log measured (OLI Statics 0.8404-0.8414 over five seeds against
0.8393-0.8405; docs/readiness.md, "Two fits merged"). Averaged as two models, that would mean
two learner states to store and two updates per answer, with every reader of the state (the
explanations, the forecast, the study plan) taking the average. Merged, it is one model that
the site runs as before:

- every term that is linear in what was fitted (the bias, the history and pattern weights,
  the topics' and questions' difficulties and context weights, the streak terms' means) is
  the average of the fits' terms, each taken at its fit's Platt slope (so that the fits
  weigh as their calibrated logits do) and the Platt intercepts folded into the bias;
- the question profiles are the fits' placed side by side, each scaled by its weight: the
  learner's profile then has a block per fit, whose prior variance is the fit's divided by
  that weight, so that an answer moves each block as far as that fit's filter would move its
  learner's profile;
- the traces likewise: each fit's marks side by side, what a question reads scaled;
- the abilities are one filter, whose prior variances and process noise are the fits',
  carried to the merged scale by the Platt slopes.

The filter then runs once, on the merged logit, not once per fit: on Statics (seeds 0 and
100) the merged model scored AUC 0.8414 against 0.8414 for the two models averaged, with ECE
0.0071 against 0.0066. The fitter (`fitting.fit`) fits a fresh Platt scaling for the merged
model on the held-out learners.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from progress.engine.learner_model import (
    N_CONTEXT,
    N_FEATURES,
    N_PATTERNS,
    ItemState,
    ModelParams,
    TopicParams,
)


def merge(fits: Sequence[ModelParams]) -> ModelParams:
    """One model predicting the mean of the fits' calibrated logits (nearly: the filter runs
    once, see the module's docstring), with Platt slope 1 and intercept 0; the caller fits
    the merged model's own scaling. One fit is returned as it is."""
    if len(fits) == 1:
        return fits[0]
    count = len(fits)
    shares = [fit.slope / count for fit in fits]

    def vector(value: Callable[[ModelParams], Sequence[float]], size: int) -> list[float]:
        return [_weighted(shares, [value(fit)[k] for fit in fits]) for k in range(size)]

    def squared(value: Callable[[ModelParams], float]) -> float:
        # A variance on the merged scale: the fits' at their Platt slopes, averaged.
        return sum(fit.slope * fit.slope * value(fit) for fit in fits) / count

    merged = ModelParams(
        bias=_weighted(shares, [fit.bias for fit in fits])
        + sum(fit.intercept for fit in fits) / count,
        weights=vector(lambda fit: fit.weights, N_FEATURES),
        pattern_weights=vector(lambda fit: fit.pattern_weights, N_PATTERNS),
        total_pattern_weights=vector(lambda fit: fit.total_pattern_weights, N_PATTERNS),
        ability_variance=squared(lambda fit: fit.ability_variance),
        topic_variance=squared(lambda fit: fit.topic_variance),
        ability_drift=squared(lambda fit: fit.ability_drift),
        topic_drift=squared(lambda fit: fit.topic_drift),
        item_variance=squared(lambda fit: fit.item_variance),
    )
    average_topic = TopicParams()
    for topic_id in sorted(set().union(*(fit.topics for fit in fits))):
        parts = [fit.topics.get(topic_id, average_topic) for fit in fits]
        merged.topics[topic_id] = TopicParams(
            _weighted(shares, [p.difficulty for p in parts]),
            _weighted(shares, [p.win_weight for p in parts]),
            _weighted(shares, [p.fail_weight for p in parts]),
            [_weighted(shares, [p.context_weights[k] for p in parts]) for k in range(N_CONTEXT)],
        )
        merged.context_means[topic_id] = _weighted(
            shares, [fit.context_means.get(topic_id, 0.0) for fit in fits]
        )
    # A fit's profile block: as many dimensions as its questions' profiles (none when its
    # filter switched the profiles off, or when its Platt slope, fitted on a few held-out
    # learners, gives it no share of the mean).
    sizes = [
        max((len(item.profile) for item in fit.items.values()), default=0) if share > 0 else 0
        for share, fit in zip(shares, fits, strict=True)
    ]
    for share, fit, size in zip(shares, fits, sizes, strict=True):
        if size:
            prior = _profile_prior(fit, size)
            merged.profile_priors += [variance / share for variance in prior]
    trace_sizes = [
        max((len(weights) for weights in fit.item_trace.values()), default=0) // 3 for fit in fits
    ]
    for item_id in sorted(set().union(*(fit.items for fit in fits))):
        states = [fit.items.get(item_id) for fit in fits]
        profile: list[float] = []
        for share, state, size in zip(shares, states, sizes, strict=True):
            if size:
                own = state.profile if state is not None and state.profile else [0.0] * size
                profile += [share * weight for weight in own]
        merged.items[item_id] = ItemState(
            difficulty=_weighted(shares, [s.difficulty if s else 0.0 for s in states]),
            variance=sum(
                fit.slope * fit.slope * (s.variance if s else fit.item_variance)
                for fit, s in zip(fits, states, strict=True)
            )
            / count,
            answers=max(s.answers if s else 0 for s in states),
            profile=profile if any(profile) else [],
        )
        contexts = [fit.item_context.get(item_id, [0.0] * N_CONTEXT) for fit in fits]
        merged.item_context[item_id] = [
            _weighted(shares, [c[k] for c in contexts]) for k in range(N_CONTEXT)
        ]
        trace = _trace(item_id, fits, shares, trace_sizes)
        if trace:
            merged.item_trace[item_id] = trace
    return merged


def _weighted(shares: Sequence[float], values: Sequence[float]) -> float:
    return sum(share * value for share, value in zip(shares, values, strict=True))


def _profile_prior(fit: ModelParams, size: int) -> list[float]:
    return (fit.learner_profile_prior() + [0.0] * size)[:size]


def _trace(
    item_id: str, fits: Sequence[ModelParams], shares: Sequence[float], sizes: Sequence[int]
) -> list[float]:
    """The question's merged trace weights: what it reads of each fit's block (scaled by the
    fit's share), then the marks a right answer leaves in each block, then a wrong one's.
    Empty when no fit has trace weights for it (it leaves no mark)."""
    if not any(item_id in fit.item_trace for fit in fits):
        return []
    reads: list[float] = []
    right: list[float] = []
    wrong: list[float] = []
    for share, fit, size in zip(shares, fits, sizes, strict=True):
        if not size:
            continue
        weights = fit.item_trace.get(item_id) or [0.0] * (3 * size)
        reads += [share * weight for weight in weights[:size]]
        right += weights[size : 2 * size]
        wrong += weights[2 * size :]
    return reads + right + wrong
