"""The forecast's spread calibrated on the training learners (progress.engine.spread), carried
by the parameters and applied by the forecast."""

import json
import math
import random

import pytest

from progress.engine import fitting, spread
from progress.engine.forecast import TopicPlan, forecast_exam
from progress.engine.learner_model import Answer, ItemState, ModelParams, ReadinessModel

TOPICS = ("t0", "t1", "t2", "t3")
ITEMS_PER_TOPIC = 60


def rasch_model(*, ability_drift=0.0, topic_drift=0.0) -> ReadinessModel:
    """A model that is a Rasch filter only (every weight 0, no profile, slope 1) over known
    questions, its priors those of `learners`' population."""
    rng = random.Random("questions")
    items = {
        f"{t}-{k}": ItemState(rng.gauss(0.0, 1.0), 0.0, 100)
        for t in TOPICS
        for k in range(ITEMS_PER_TOPIC)
    }
    return ReadinessModel(
        ModelParams(
            items=items,
            ability_variance=1.0,
            topic_variance=0.3,
            ability_drift=ability_drift,
            topic_drift=topic_drift,
        )
    )


def learners(model, count, *, seed=0, answers=150, walk=0.0, truth=None):
    """Learners of ability N(0, 1) and topic offsets N(0, 0.3) (the model's priors), each
    answering `answers` questions of random topics. With `walk`, the overall ability takes a
    random step of that variance after every answer (learners whom the filter, without drift,
    believes static). `truth`, a list, receives each learner's true logit on each topic
    (before the questions' difficulties) where the estimate stands: at the answer
    `spread.HORIZON` before the end."""
    rng = random.Random(seed)
    sequences = []
    for _ in range(count):
        ability = rng.gauss(0.0, 1.0)
        offsets = {t: rng.gauss(0.0, math.sqrt(0.3)) for t in TOPICS}
        history = []
        for number in range(answers):
            if truth is not None and number == answers - spread.HORIZON:
                truth.append({t: ability + offsets[t] for t in TOPICS})
            topic = rng.choice(TOPICS)
            item = f"{topic}-{rng.randrange(ITEMS_PER_TOPIC)}"
            logit = ability + offsets[topic] - model.params.items[item].difficulty
            right = rng.random() < 1.0 / (1.0 + math.exp(-logit))
            history.append(Answer(item, topic, right))
            if walk:
                ability += rng.gauss(0.0, math.sqrt(walk))
        sequences.append(history)
    return sequences


def test_a_filter_whose_variances_are_right_keeps_them():
    model = rasch_model()
    scales = spread.estimate(model, learners(model, 400))

    assert scales.learners == 400
    # The filter is the Bayes filter of these learners (an approximate one: it claims some
    # 15% more than their error), so the factors are near 1, and right.
    assert scales.overall_estimate == pytest.approx(1.0, abs=2.5 * scales.overall_error)
    assert scales.topic_estimate == pytest.approx(1.0, abs=2.5 * scales.topic_error)
    assert scales.overall_error < 0.3
    assert scales.topic_error < 0.3
    truth = []
    assert true_ratio(model, learners(model, 400, truth=truth), truth, scales) == (
        pytest.approx(1.0, abs=0.15)
    )


def true_ratio(model, sequences, truth, scales):
    """The squared error of the learners' estimated logit on each topic where the estimate
    stands, over what the factors make of the filter's claimed variance there: 1 when the
    factors are right."""
    errors = claimed = 0.0
    for answers, true in zip(sequences, truth, strict=True):
        learner = model.new_learner()
        for item_id, topic_id, score in answers[: len(answers) - spread.HORIZON]:
            model.update(learner, topic_id, item_id, score, learn_item=False)
        for t in TOPICS:
            topic = learner.topics.get(t) or model.new_topic_state()
            errors += (true[t] - learner.overall.ability - topic.ability) ** 2
            claimed += (
                scales.overall_estimate * learner.overall.variance
                + scales.topic_estimate * topic.variance
            )
    return errors / claimed


def test_a_filter_that_claims_too_much_drift_is_narrowed_to_the_truth():
    # Drift the learners do not have: the filter claims an error larger than the truth. (A
    # drift of 0.02 claims variances near 1, where the residuals are no longer linear in
    # the error and the factors come out some 35% above the truth: too wide, not too narrow.)
    model = rasch_model(ability_drift=0.005, topic_drift=0.005)
    truth = []
    sequences = learners(model, 400, truth=truth)
    scales = spread.estimate(model, sequences)

    assert scales.overall_estimate < 0.8
    assert scales.topic_estimate < 0.8
    assert scales.overall < 0.85
    assert scales.topic < 0.85
    # Scaled, the claimed variance is the true error's.
    assert true_ratio(model, sequences, truth, scales) == pytest.approx(1.0, abs=0.15)
    assert true_ratio(model, sequences, truth, spread.SpreadScales()) < 0.7


def test_learners_who_move_more_than_the_filter_believes_are_widened():
    model = rasch_model()
    truth = []
    sequences = learners(model, 400, walk=0.01, truth=truth)
    scales = spread.estimate(model, sequences)

    # Where the estimate stands the error is twice what the filter claims; the answers after
    # it, which the factor is measured on (as a forecast is for a score ahead), move further.
    assert true_ratio(model, sequences, truth, spread.SpreadScales()) > 1.5
    assert scales.overall_estimate > 2.0
    assert scales.overall > 1.5


def test_a_small_site_keeps_the_filters_own_variances():
    # The same misfit as above, on 15 learners: the estimate is unsure, and shrunk towards 1.
    model = rasch_model(ability_drift=0.005, topic_drift=0.005)
    few = spread.estimate(model, learners(model, 15, answers=40))
    many = spread.estimate(model, learners(model, 400))

    assert few.overall_error > 2 * many.overall_error
    assert abs(few.overall - 1.0) < abs(few.overall_estimate - 1.0)
    assert abs(few.overall - 1.0) < abs(many.overall - 1.0)
    # And no learner long enough to measure anything: the filter's variances, as they are.
    assert spread.estimate(model, learners(model, 5, answers=spread.MIN_ANSWERS - 1)) == (
        spread.SpreadScales()
    )


def test_the_estimate_is_deterministic_and_changes_no_question():
    model = rasch_model(ability_drift=0.02)
    before = model.params.to_json()
    sequences = learners(model, 50)

    assert spread.estimate(model, sequences) == spread.estimate(model, sequences)
    assert model.params.to_json() == before


def _unsure_learner_forecast(params):
    model = ReadinessModel(params)
    learner = model.new_learner()
    learner.overall.variance = 0.5
    for t in TOPICS:
        learner.topics[t] = model.new_topic_state()
        learner.topics[t].wins = 10
    plans = [
        TopicPlan(t, 10, [(f"{t}-{k}", ItemState(0.0, 0.0)) for k in range(20)]) for t in TOPICS
    ]
    return forecast_exam(model, learner, plans, 50.0)


def test_the_forecast_applies_the_factors():
    wide = _unsure_learner_forecast(ModelParams(topic_variance=0.3))
    narrow = _unsure_learner_forecast(
        ModelParams(topic_variance=0.3, forecast_overall_scale=0.5, forecast_topic_scale=0.5)
    )
    # Half the variances: the same expected score, a narrower range, narrower topics too.
    assert narrow.expected_percent == pytest.approx(wide.expected_percent, abs=0.2)
    width = wide.high_percent - wide.low_percent
    assert narrow.high_percent - narrow.low_percent < 0.85 * width
    for a, b in zip(narrow.topics, wide.topics, strict=True):
        assert a.high - a.low < b.high - b.low


def test_the_factors_are_saved_and_old_parameters_read_as_one():
    params = ModelParams(forecast_overall_scale=0.7, forecast_topic_scale=1.3)
    again = ModelParams.from_json(params.to_json())
    assert (again.forecast_overall_scale, again.forecast_topic_scale) == (0.7, 1.3)

    saved = json.loads(params.to_json())
    del saved["forecast_overall_scale"], saved["forecast_topic_scale"]
    old = ModelParams.from_json(json.dumps(saved))
    assert (old.forecast_overall_scale, old.forecast_topic_scale) == (1.0, 1.0)


def test_the_fit_calibrates_the_spread_it_ships():
    model = rasch_model()
    sequences = learners(model, 60, answers=80)
    fitted, report = fitting.fit(sequences, seed=0)

    assert report.forecast_spread.learners == 60
    assert fitted.params.forecast_overall_scale == report.forecast_spread.overall
    assert fitted.params.forecast_topic_scale == report.forecast_spread.topic
    assert report.forecast_spread == spread.estimate(fitted, sequences)
    assert f"x{fitted.params.forecast_overall_scale:.2f} overall" in report.forecast_kept()
    assert "on 60 learners" in report.forecast_kept()
    # The yardstick has no abilities to be unsure of.
    _, logistic = fitting.fit(sequences, seed=0, config=fitting.FitConfig(logistic_only=True))
    assert logistic.forecast_spread == spread.SpreadScales()
    assert "the filter's own" in logistic.forecast_kept()
