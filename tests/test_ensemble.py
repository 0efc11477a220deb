"""Several fits of the readiness model merged into one (progress.engine.ensemble, called by
progress.engine.fitting.fit): what the merged model predicts and what a learner's state holds."""

import json
import math
import random

import pytest

from progress.engine import ensemble, fitting
from progress.engine.learner_model import (
    N_CONTEXT,
    N_PATTERNS,
    PROFILE_SIZE,
    TRACE_SIZE,
    ItemState,
    LearnerState,
    ModelParams,
    ReadinessModel,
    TopicParams,
)
from tests.kt_logs import synthetic_log


def random_fit(rng: random.Random, *, profile: int, trace: bool) -> ModelParams:
    """A fit's parameters drawn at random: two topics, four questions (one, q3, unknown to
    it), profiles of `profile` dimensions, trace weights when `trace`."""

    def draws(size: int) -> list[float]:
        return [rng.gauss(0, 0.3) for _ in range(size)]

    items = ("q0", "q1", "q2")
    return ModelParams(
        bias=rng.gauss(0, 0.5),
        weights=draws(7),
        pattern_weights=draws(N_PATTERNS),
        total_pattern_weights=draws(N_PATTERNS),
        topics={
            t: TopicParams(rng.gauss(0, 0.5), rng.gauss(0, 0.3), rng.gauss(0, 0.3), draws(4))
            for t in ("a", "b")
        },
        items={
            i: ItemState(rng.gauss(0, 1), 0.1, 5, draws(profile) if profile else []) for i in items
        },
        item_context={i: draws(N_CONTEXT) for i in items},
        context_means={"a": 0.1, "b": -0.2},
        item_trace={i: draws(3 * TRACE_SIZE) for i in items} if trace else {},
        ability_variance=0.4,
        topic_variance=0.2,
        profile_variance=0.1 if profile else 0.0,
        extra_profile_variance=0.05 if profile else 0.0,
        ability_drift=0.001,
        slope=rng.uniform(0.8, 1.2),
        intercept=rng.gauss(0, 0.1),
    )


def calibrated_logit(model: ReadinessModel, topic_id: str, item_id: str | None) -> float:
    p = model.predict(model.new_learner(), topic_id, item_id).probability
    return math.log(p / (1 - p))


def test_a_new_learner_gets_the_mean_of_the_fits_calibrated_logits():
    rng = random.Random(1)
    fits = [random_fit(rng, profile=6, trace=True), random_fit(rng, profile=4, trace=True)]
    merged = ReadinessModel(ensemble.merge(fits))
    assert (merged.params.slope, merged.params.intercept) == (1.0, 0.0)
    for topic_id, item_id in [("a", "q0"), ("b", "q1"), ("a", "q3"), ("b", None)]:
        mean = sum(calibrated_logit(ReadinessModel(f), topic_id, item_id) for f in fits) / 2
        assert calibrated_logit(merged, topic_id, item_id) == pytest.approx(mean, abs=1e-9)


def test_the_learner_carries_a_block_per_fit_and_moves_each_as_its_fit_would():
    rng = random.Random(2)
    first, second = random_fit(rng, profile=6, trace=True), random_fit(rng, profile=4, trace=True)
    merged = ReadinessModel(ensemble.merge([first, second]))
    learner = merged.new_learner()
    assert len(learner.profile) == len(learner.profile_variance) == 10
    merged.update(learner, "a", "q0", True, learn_item=False)
    assert len(learner.trace) == 2 * TRACE_SIZE
    # The first answer's surprise is shared; a block moves in the direction its own fit's
    # learner profile moves, each fit's question profile scaled by its share of the mean.
    alone = ReadinessModel(first)
    own = alone.new_learner()
    alone.update(own, "a", "q0", True, learn_item=False)
    ratios = [m / o for m, o in zip(learner.profile[:6], own.profile[:6], strict=True) if o]
    assert ratios
    assert all(r > 0 for r in ratios)
    assert max(ratios) == pytest.approx(min(ratios))
    # The marks the answer left are each fit's own, side by side.
    marks = [first.item_trace["q0"][TRACE_SIZE : 2 * TRACE_SIZE]]
    marks.append(second.item_trace["q0"][TRACE_SIZE : 2 * TRACE_SIZE])
    assert learner.trace == pytest.approx(marks[0] + marks[1])


def test_a_fit_without_profiles_or_trace_adds_none():
    rng = random.Random(3)
    merged = ensemble.merge(
        [random_fit(rng, profile=6, trace=True), random_fit(rng, profile=0, trace=False)]
    )
    learner = ReadinessModel(merged).new_learner()
    assert len(learner.profile) == 6
    assert all(len(weights) == 3 * TRACE_SIZE for weights in merged.item_trace.values())


def test_merged_parameters_survive_saving():
    rng = random.Random(4)
    merged = ensemble.merge([random_fit(rng, profile=6, trace=True) for _ in range(2)])
    loaded = ModelParams.from_json(merged.to_json())
    assert loaded.profile_priors == merged.profile_priors
    model, again = ReadinessModel(merged), ReadinessModel(loaded)
    assert again.new_learner().profile_variance == model.new_learner().profile_variance


def test_the_fitter_merges_two_fits_with_a_scaling_of_its_own():
    log = synthetic_log(random.Random(5), learners=60, answers=40)
    sequences = list(log.values())
    model, report = fitting.fit(sequences, seed=0)
    alone, alone_report = fitting.fit(sequences, seed=0, config=fitting.FitConfig(fits=1))
    assert len(report.others) == 1
    assert not alone_report.others
    # The first fit is the one a fit of one model makes; the second starts elsewhere.
    assert report.epochs == alone_report.epochs
    assert report.filter == alone_report.filter
    profiles = len(alone.new_learner().profile)
    assert len(model.new_learner().profile) in {profiles, 2 * profiles}
    # Fitted on the held-out learners for the merged model, not the first fit's.
    assert (report.slope, report.intercept) != (alone_report.slope, alone_report.intercept)
    assert (model.params.slope, model.params.intercept) == (report.slope, report.intercept)
    # Deterministic: the same seed gives the same merged model.
    again, _ = fitting.fit(sequences, seed=0)
    assert json.loads(again.params.to_json()) == json.loads(model.params.to_json())


def test_a_state_stored_under_one_fit_carries_on_under_a_merged_one():
    rng = random.Random(6)
    first = random_fit(rng, profile=PROFILE_SIZE, trace=True)
    alone = ReadinessModel(first)
    learner = alone.new_learner()
    alone.update(learner, "a", "q0", True, learn_item=False)
    stored = LearnerState.from_dict(json.loads(json.dumps(learner.to_dict())))
    merged = ReadinessModel(
        ensemble.merge([first, random_fit(rng, profile=PROFILE_SIZE, trace=True)])
    )
    merged.update(stored, "b", "q1", False, learn_item=False)
    # The profile gets the merged model's dimensions (the new ones at their prior), the
    # trace its numbers; until a rebuild recomputes them, the old values stand in.
    assert len(stored.profile) == len(merged.new_learner().profile) == 2 * PROFILE_SIZE
    assert len(stored.trace) == 2 * TRACE_SIZE
    assert 0.0 < merged.predict(stored, "a", "q2").probability < 1.0


def test_a_fit_whose_scaling_gives_it_no_share_adds_no_profile():
    # A Platt slope of 0 (a fit on a few held-out learners whose predictions said nothing):
    # its block would need an infinite prior; it is left out, and its other terms weigh 0.
    rng = random.Random(7)
    useless = random_fit(rng, profile=6, trace=True)
    useless.slope = 0.0
    kept = random_fit(rng, profile=4, trace=True)
    merged = ReadinessModel(ensemble.merge([kept, useless]))
    assert len(merged.new_learner().profile) == 4
    half = ReadinessModel(ensemble.merge([kept]))
    assert calibrated_logit(merged, "a", "q0") == pytest.approx(
        (calibrated_logit(half, "a", "q0") + useless.intercept) / 2
    )
