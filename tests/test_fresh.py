"""A question met fresh, calibrated (progress.engine.fresh): the readiness and the forecast
promise what the model itself expects of a learner's first answer to a question."""

import json
import random

from progress.engine import fitting, fresh
from progress.engine.evaluation import ece
from progress.engine.forecast import TopicPlan, forecast_exam
from progress.engine.learner_model import (
    N_PATTERNS,
    Answer,
    ItemState,
    ModelParams,
    ReadinessModel,
)

TOPICS = ("t0", "t1", "t2")
ITEMS_PER_TOPIC = 80


def model_with_streaks(weight: float) -> ReadinessModel:
    """A Rasch filter over known questions whose total pattern (the last answers in every
    topic) moves the next answer by up to about `weight` logits either way, its context means
    those of `learners` (as the fit would have set them)."""
    rng = random.Random("questions")
    items = {
        f"{t}-{k}": ItemState(rng.gauss(-1.0, 1.0), 0.0, 100)
        for t in TOPICS
        for k in range(ITEMS_PER_TOPIC)
    }
    patterns = random.Random("patterns")
    params = ModelParams(
        items=items,
        ability_variance=1.0,
        topic_variance=0.2,
        total_pattern_weights=[patterns.uniform(-weight, weight) for _ in range(N_PATTERNS)],
    )
    model = ReadinessModel(params)
    # The mean of the streak term over the answers, per topic, from a first draw of learners.
    sums: dict[str, list[float]] = {t: [0.0, 0.0] for t in TOPICS}
    learners(model, 200, seed=-1, means=sums)
    params.context_means = {t: total / count for t, (total, count) in sums.items()}
    return model


def learners(model, count, *, seed, answers=60, means=None):
    """Learners answering as the model predicts them, with the pattern of their last answers
    (each answer drawn from the model's own prediction of it), on random questions."""
    rng = random.Random(seed)
    params = model.params
    sequences = []
    for _ in range(count):
        learner = model.new_learner()
        history = []
        for _ in range(answers):
            topic = rng.choice(TOPICS)
            item_id = f"{topic}-{rng.randrange(ITEMS_PER_TOPIC)}"
            if means is not None:
                means[topic][0] += params.total_pattern_weights[learner.overall.last]
                means[topic][1] += 1
            right = rng.random() < model.predict(learner, topic, item_id).probability
            model.update_learner(learner, topic, item_id, right, item=params.items[item_id])
            history.append(Answer(item_id, topic, right))
        sequences.append(history)
    return sequences


def first_answers(model, sequences):
    """Each learner's first answer to each question: the readiness of the question met fresh
    just before it, the model's prediction of it in its context, and the outcome."""
    rows = []
    for answers in sequences:
        learner = model.new_learner()
        seen = set()
        for item_id, topic_id, score in answers:
            item = model.params.items[item_id]
            if item_id not in seen:
                seen.add(item_id)
                rows.append(
                    (
                        model.predict(learner, topic_id, None, item=item).probability,
                        model.predict(learner, topic_id, item_id).probability,
                        float(score),
                    )
                )
            model.update_learner(learner, topic_id, item_id, score, item=item)
    return rows


def mean(values):
    values = list(values)
    return sum(values) / len(values)


def test_a_fresh_question_is_promised_what_the_model_expects_of_it():
    model = model_with_streaks(2.0)
    training = learners(model, 300, seed=0)
    unseen = learners(model, 300, seed=1)

    before = first_answers(model, unseen)
    # The probability at the mean streak is above the mean probability over the streaks.
    assert mean(r[0] for r in before) > mean(r[1] for r in before) + 0.02

    scaling = fresh.estimate(model, training)
    model.params.fresh_slope, model.params.fresh_intercept = scaling.slope, scaling.intercept
    after = first_answers(model, unseen)
    # On learners it was not fitted on, the readiness now matches the model's own expectation
    # and the answers, and is calibrated where it was not.
    assert abs(mean(r[0] for r in after) - mean(r[1] for r in after)) < 0.005
    assert abs(mean(r[0] for r in after) - mean(r[2] for r in after)) < 0.015
    outcomes = [r[2] for r in after]
    assert ece([r[0] for r in after], outcomes) < 0.5 * ece([r[0] for r in before], outcomes)
    assert scaling.answers == len(first_answers(model, training))


def test_without_streaks_a_fresh_question_is_left_as_it_was():
    model = model_with_streaks(0.0)
    scaling = fresh.estimate(model, learners(model, 100, seed=0))
    assert abs(scaling.slope - 1.0) < 1e-6
    assert abs(scaling.intercept) < 1e-6


def test_too_few_first_answers_leave_it_unscaled():
    model = model_with_streaks(2.0)
    few = learners(model, 2, seed=0, answers=30)
    assert fresh.estimate(model, few) == fresh.FreshScaling(answers=len(first_answers(model, few)))


def test_the_forecast_and_the_readiness_apply_the_scaling():
    model = model_with_streaks(2.0)
    (history,) = learners(model, 1, seed=3, answers=40)
    learner = model.new_learner()
    for item_id, topic_id, score in history:
        model.update_learner(learner, topic_id, item_id, score, item=model.params.items[item_id])
    # No doubt about the abilities: the forecast's percent is the mean of the questions'.
    learner.overall.variance = 0.0
    for state in learner.topics.values():
        state.variance = 0.0
    items = [(i, s) for i, s in model.params.items.items() if i.startswith("t0-")][:20]
    plan = TopicPlan("t0", 10, items)

    def percents():
        forecast = forecast_exam(model, learner, [plan], 50.0, min_answers=0)
        each = [model.predict(learner, "t0", None, item=state).probability for _, state in items]
        return forecast.topics[0].percent, 100.0 * mean(each)

    unscaled, unscaled_each = percents()
    model.params.fresh_slope, model.params.fresh_intercept = 0.8, -0.6
    scaled, scaled_each = percents()
    assert abs(scaled - scaled_each) < 1e-6
    assert abs(unscaled - unscaled_each) < 1e-6
    assert abs(scaled - unscaled) > 1.0
    # A question with its own context (the next answer) is the model's, unscaled.
    item_id, _ = items[0]
    in_context = model.predict(learner, "t0", item_id)
    assert in_context.probability == model.calibrate(in_context.logit)


def test_the_scaling_is_saved_and_old_parameters_read_as_none():
    params = ModelParams(fresh_slope=1.25, fresh_intercept=-0.6)
    again = ModelParams.from_json(params.to_json())
    assert (again.fresh_slope, again.fresh_intercept) == (1.25, -0.6)

    saved = json.loads(params.to_json())
    del saved["fresh_slope"], saved["fresh_intercept"]
    old = ModelParams.from_json(json.dumps(saved))
    assert (old.fresh_slope, old.fresh_intercept) == (1.0, 0.0)


def test_the_fit_ships_the_scaling_and_the_yardstick_has_none():
    model = model_with_streaks(2.0)
    sequences = learners(model, 60, seed=0)
    fitted, report = fitting.fit(sequences, seed=0)

    assert report.fresh_scaling == fresh.estimate(fitted, sequences)
    assert report.fresh_scaling.answers > fresh.MIN_ANSWERS
    assert (fitted.params.fresh_slope, fitted.params.fresh_intercept) == (
        report.fresh_scaling.slope,
        report.fresh_scaling.intercept,
    )
    assert f"fresh questions x{fitted.params.fresh_slope:.3f}" in report.forecast_kept()
    _, logistic = fitting.fit(sequences, seed=0, config=fitting.FitConfig(logistic_only=True))
    assert logistic.fresh_scaling == fresh.FreshScaling()
    assert "fresh questions unscaled" in logistic.forecast_kept()
