"""The pass likelihood and topic readiness (progress.engine.forecast), the calibration simulation
(progress.engine.simulation) and `manage.py simulate_readiness`."""

import json
import math
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from progress.engine import forecast, simulation
from progress.engine.forecast import ExamForecast, TopicPlan, forecast_exam, forecast_topic
from progress.engine.learner_model import (
    FEATURES,
    ItemState,
    LearnerTopicState,
    ModelParams,
    ReadinessModel,
    sigmoid,
)


def flat_model(**changes) -> ReadinessModel:
    """Every weight and the bias 0, no Platt scaling (slope 1, intercept 0), no uncertainty
    for a new learner or topic: the logit of a question is just minus its difficulty (plus
    the learner's abilities)."""
    params = ModelParams(ability_variance=0.0, topic_variance=0.0, profile_variance=0.0)
    for name, value in changes.items():
        setattr(params, name, value)
    return ReadinessModel(params)


def learner_with(model, answers, *, overall=0.0, overall_variance=0.0, topic_variance=0.0):
    """A learner with the given number of answers (all right) on each topic; abilities at
    `overall` and 0 offsets, with the given variances."""
    learner = model.new_learner()
    learner.overall.ability = overall
    learner.overall.variance = overall_variance
    for topic_id, count in answers.items():
        learner.topics[topic_id] = LearnerTopicState(0.0, topic_variance, wins=count)
    return learner


def questions(prefix, *difficulties):
    return [(f"{prefix}{k}", ItemState(d, 0.0)) for k, d in enumerate(difficulties)]


def binomial_cdf_above(n, p, k):
    return sum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(k, n + 1))


# --- By hand ---------------------------------------------------------------------------------


def test_two_topics_at_one_half_by_hand():
    # p = 1/2 on every question, no uncertainty: the total of 4 questions is Binomial(4, 1/2).
    # A 75% pass mark needs 3 of 4: P = (4 + 1) / 16.
    model = flat_model()
    learner = learner_with(model, {"a": 5, "b": 5})
    plans = [TopicPlan("a", 2, questions("a", 0.0, 0.0)), TopicPlan("b", 2, questions("b", 0.0))]
    result = forecast_exam(model, learner, plans, 75.0)

    assert result.pass_probability == pytest.approx(5 / 16, abs=1e-12)
    assert result.questions == 4
    assert result.expected_percent == pytest.approx(50.0)
    assert result.missing == []
    assert [t.topic_id for t in result.topics] == ["a", "b"]
    assert [t.percent for t in result.topics] == pytest.approx([50.0, 50.0])
    # Percentiles with each count spread over [c - 1/2, c + 1/2]: the CDF is 1/16 below
    # count 1, whose mass is 4/16, so the 10th percentile is 1 - 1/2 + (0.1 - 1/16) / (4/16)
    # = 0.65 questions of 4; the 90th is 4 - 0.65 by symmetry.
    assert result.low_percent == pytest.approx(100 * 0.65 / 4)
    assert result.high_percent == pytest.approx(100 * 3.35 / 4)


def test_poisson_binomial_over_topics_by_hand():
    # Topic a: p = 3/4 (difficulty -ln 3), 2 questions drawn; topic b: p = 0.4 (difficulty
    # ln 1.5), 1 drawn. 60% of 3 needs 2 right:
    # P(a = 2) + P(a = 1) P(b = 1) = 9/16 + (6/16)(0.4) = 0.7125.
    model = flat_model()
    learner = learner_with(model, {"a": 5, "b": 5})
    plans = [
        TopicPlan("a", 2, questions("a", -math.log(3), -math.log(3), -math.log(3))),
        TopicPlan("b", 1, questions("b", math.log(1.5))),
    ]
    result = forecast_exam(model, learner, plans, 60.0)

    assert result.pass_probability == pytest.approx(0.7125, abs=1e-12)
    assert result.expected_percent == pytest.approx(100 * (2 * 0.75 + 0.4) / 3)
    assert [t.percent for t in result.topics] == pytest.approx([75.0, 40.0])


def test_readiness_is_the_mean_probability_of_the_topics_questions():
    # Difficulties 0 and ln 3: probabilities 1/2 and 1/4, mean 3/8; a question drawn at random
    # is right with probability 3/8, so 2 drawn are Binomial(2, 3/8).
    model = flat_model()
    learner = learner_with(model, {"a": 5})
    plan = TopicPlan("a", 2, questions("a", 0.0, math.log(3)))
    readiness = forecast_topic(model, learner, plan)
    assert readiness.percent == pytest.approx(37.5)
    # No uncertainty: the range is the point.
    assert readiness.low == pytest.approx(37.5)
    assert readiness.high == pytest.approx(37.5)
    assert readiness.answers == 5
    result = forecast_exam(model, learner, [plan], 100.0)
    assert result.pass_probability == pytest.approx(0.375**2)


def test_many_questions_of_different_difficulty_by_hand():
    # 300 questions (summarised in bins) at difficulties spread over [-3, 3]: the readiness is
    # the mean of sigmoid(-difficulty) over all of them, and 3 drawn are binomial with it.
    model = flat_model()
    learner = learner_with(model, {"a": 9})
    difficulties = [-3 + 6 * k / 299 for k in range(300)]
    plan = TopicPlan("a", 3, questions("a", *difficulties))
    mean = sum(sigmoid(-d) for d in difficulties) / 300
    result = forecast_exam(model, learner, [plan], 60.0)
    assert result.topics[0].percent == pytest.approx(100 * mean, abs=1e-9)
    assert result.pass_probability == pytest.approx(binomial_cdf_above(3, mean, 2), abs=1e-3)


def test_platt_scaling_and_abilities_enter_the_logit():
    # slope 2, intercept 0.5, overall ability 0.25, topic offset -0.5, difficulty 0.25:
    # calibrated logit = 2 (0.25 - 0.5 - 0.25) + 0.5 = -0.5.
    model = flat_model(slope=2.0, intercept=0.5)
    learner = learner_with(model, {"a": 5}, overall=0.25)
    learner.topics["a"].ability = -0.5
    plan = TopicPlan("a", 1, questions("a", 0.25))
    assert forecast_topic(model, learner, plan).percent == pytest.approx(100 * sigmoid(-0.5))


def test_questions_are_met_fresh_without_their_history():
    # A weight of 2 on earlier right answers to the very question: the model's own
    # prediction for that question rises, but the forecast treats it as new (the real exam
    # has other questions), so it matches a learner without that history.
    weights = [0.0] * len(FEATURES)
    weights[FEATURES.index("item_wins")] = 2.0
    model = flat_model(weights=weights)
    plain = learner_with(model, {"a": 5})
    seen = learner_with(model, {"a": 5})
    seen.topics["a"].items["a0"] = [3, 0]
    plan = TopicPlan("a", 1, questions("a", 0.0))

    assert model.predict(seen, "a", "a0").probability > 0.9
    assert forecast_topic(model, seen, plan).percent == pytest.approx(50.0)
    assert forecast_exam(model, seen, [plan], 100.0) == forecast_exam(model, plain, [plan], 100.0)


def test_a_question_without_state_is_an_average_one():
    model = flat_model()
    learner = learner_with(model, {"a": 5}, overall=1.0)
    plan = TopicPlan("a", 1, [("new", None), ("known", ItemState(1.0, 0.0))])
    # The new one: logit 1 - 0; the known one: 1 - 1 = 0.
    expected = 100 * (sigmoid(1.0) + 0.5) / 2
    assert forecast_topic(model, learner, plan).percent == pytest.approx(expected)


# --- Uncertainty -------------------------------------------------------------------------------


def strong_learner_forecast(overall_variance, topic_variance):
    """8 topics of 200 questions at difficulties N(0, 1)-like quantiles, a learner who gets
    about 80% right, a 70% pass mark, 65 questions."""
    model = flat_model()
    normal = [_normal_quantile((k + 0.5) / 200) for k in range(200)]
    topics = [f"t{k}" for k in range(8)]
    learner = learner_with(
        model,
        dict.fromkeys(topics, 10),
        overall=1.6,
        overall_variance=overall_variance,
        topic_variance=topic_variance,
    )
    drawn = [9, 8, 8, 8, 8, 8, 8, 8]
    plans = [TopicPlan(t, d, questions(t, *normal)) for t, d in zip(topics, drawn, strict=True)]
    return forecast_exam(model, learner, plans, 70.0)


def _normal_quantile(q):
    # Bisection on the normal CDF: enough for a test's difficulties.
    low, high = -10.0, 10.0
    for _ in range(80):
        mid = (low + high) / 2
        if 0.5 * (1 + math.erf(mid / math.sqrt(2))) < q:
            low = mid
        else:
            high = mid
    return (low + high) / 2


def test_more_uncertainty_widens_the_ranges_and_keeps_the_expected_score():
    sure = strong_learner_forecast(0.02, 0.02)
    unsure = strong_learner_forecast(0.6, 0.4)

    assert sure.expected_percent > 75
    assert unsure.high_percent - unsure.low_percent > 1.5 * (sure.high_percent - sure.low_percent)
    for a, b in zip(sure.topics, unsure.topics, strict=True):
        assert b.high - b.low > 3 * (a.high - a.low)
        assert b.low <= b.percent <= b.high
    # The expected score is the mean of the calibrated probabilities, whatever the spread
    # (the stretched mean keeps the marginal): a learner does not see it drop for being new.
    assert unsure.expected_percent == pytest.approx(sure.expected_percent, abs=0.5)
    # Above the pass mark, being less sure of the learner pulls the chance toward a coin toss.
    assert sure.pass_probability > unsure.pass_probability > 0.5


def test_the_score_range_holds_80_percent_of_the_distribution():
    # A single topic without uncertainty: the score is Binomial(40, 0.6); between the 10th
    # and 90th percentiles (continuity-corrected) lies 80% of it.
    model = flat_model()
    learner = learner_with(model, {"a": 5})
    plan = TopicPlan("a", 40, questions("a", -math.log(1.5)))
    result = forecast_exam(model, learner, [plan], 70.0)
    pmf = [math.comb(40, k) * 0.6**k * 0.4 ** (40 - k) for k in range(41)]

    def mass_below(x):  # the continuous version of the CDF used by the forecast
        c = math.floor(x + 0.5)
        return sum(pmf[:c]) + pmf[c] * (x + 0.5 - c)

    assert mass_below(result.low_percent * 40 / 100) == pytest.approx(0.1)
    assert mass_below(result.high_percent * 40 / 100) == pytest.approx(0.9)
    assert result.pass_probability == pytest.approx(binomial_cdf_above(40, 0.6, 28))


def test_projected_learning_moves_the_latent_logit_not_the_stretched_mean():
    # One question at difficulty 0, calibrated P = 1/2 today with an overall variance of 1:
    # the latent logit x ~ N(0, 1). Learning of 1 logit moves x to N(1, 1); the expected
    # score is E[sigmoid(x)], by many-point quadrature, less than sigmoid(1) (what a learner
    # known exactly would get). A projected topic variance of 0.5 widens x to N(1, 1.5).
    model = flat_model()
    learner = learner_with(model, {"a": 5}, overall_variance=1.0)
    plan = TopicPlan("a", 1, questions("a", 0.0))

    def expected(mean, variance):
        nodes, weights = forecast.gauss_hermite(60)
        sd = math.sqrt(variance)
        return 100 * sum(w * sigmoid(mean + sd * z) for z, w in zip(nodes, weights, strict=True))

    learned = forecast_exam(
        model, learner, [plan], 50.0, learning={"a": forecast.TopicLearning(1.0)}
    )
    assert learned.expected_percent == pytest.approx(expected(1.0, 1.0), abs=0.05)
    assert learned.expected_percent < 100 * sigmoid(1.0) - 3
    wider = forecast_exam(
        model,
        learner,
        [plan],
        50.0,
        learning={"a": forecast.TopicLearning(1.0, 0.5)},
        learning_rate_variance=0.25,
    )
    assert wider.expected_percent == pytest.approx(expected(1.0, 1.75), abs=0.1)
    # The topic's readiness is the same marginal, by the probit approximation.
    assert wider.topics[0].percent == pytest.approx(wider.expected_percent, abs=0.5)
    # No learning given: today's forecast.
    today = forecast_exam(model, learner, [plan], 50.0)
    assert forecast_exam(model, learner, [plan], 50.0, learning={}) == today
    assert today.expected_percent == pytest.approx(50.0)


def test_quadrature_agrees_with_many_nodes(monkeypatch):
    base = strong_learner_forecast(0.3, 0.3)
    monkeypatch.setattr(forecast, "OVERALL_NODES", 30)
    monkeypatch.setattr(forecast, "TOPIC_NODES", 20)
    monkeypatch.setattr(forecast, "EXACT_ITEMS", 10_000)  # no bins
    fine = strong_learner_forecast(0.3, 0.3)
    assert base.pass_probability == pytest.approx(fine.pass_probability, abs=2e-3)
    assert base.low_percent == pytest.approx(fine.low_percent, abs=0.2)
    assert base.high_percent == pytest.approx(fine.high_percent, abs=0.2)
    assert base.expected_percent == pytest.approx(fine.expected_percent, abs=0.05)


def test_gauss_hermite_moments():
    nodes, weights = forecast.gauss_hermite(5)
    # Exact up to degree 9: the moments of a standard normal are 1, 0, 1, 0, 3, 0, 15.
    for power, moment in enumerate([1, 0, 1, 0, 3, 0, 15, 0, 105]):
        total = sum(w * x**power for x, w in zip(nodes, weights, strict=True))
        assert total == pytest.approx(moment, abs=1e-9)


# --- What is shown, and when -------------------------------------------------------------------


def test_missing_lists_topics_short_of_answers():
    model = flat_model()
    learner = learner_with(model, {"a": 7, "c": 0})
    learner.topics["b"] = LearnerTopicState(0.0, 0.0, wins=1, fails=1)
    plans = [
        TopicPlan("a", 3, questions("a", 0.0)),
        TopicPlan("b", 3, questions("b", 0.0)),
        TopicPlan("c", 3, questions("c", 0.0)),
        TopicPlan("d", 3, questions("d", 0.0)),  # never answered: no state at all
        TopicPlan("e", 0, questions("e", 0.0)),  # gives no question to the exam
    ]
    result = forecast_exam(model, learner, plans, 70.0)
    assert result.missing == [("b", 3), ("c", 5), ("d", 5)]
    assert [t.answers for t in result.topics] == [7, 2, 0, 0, 0]
    assert result.questions == 12
    assert forecast_exam(model, learner, plans, 70.0, min_answers=2).missing == [("c", 2), ("d", 2)]


def test_the_forecast_does_not_change_the_learner():
    model = ReadinessModel(ModelParams(profile_variance=0.2))
    learner = model.new_learner()
    for k in range(12):
        model.update(learner, "a", f"a{k % 4}", k % 3 != 0)
    before = learner.to_dict()
    items = dict(model.params.items)
    plans = [TopicPlan("a", 3, [(f"a{k}", model.params.items.get(f"a{k}")) for k in range(6)])]
    plans.append(TopicPlan("b", 2, [("b0", None), ("b1", None)]))
    forecast_exam(model, learner, plans, 70.0)
    forecast_topic(model, learner, plans[1])
    assert learner.to_dict() == before
    assert "b" not in learner.topics
    assert model.params.items == items


def test_edge_cases():
    model = flat_model()
    learner = learner_with(model, {"a": 5})
    half = questions("a", 0.0)
    # No question drawn: no exam to pass.
    empty = forecast_exam(model, learner, [TopicPlan("a", 0, half)], 70.0)
    assert empty == ExamForecast(0.0, 0.0, 0.0, 0.0, 70.0, 0, empty.topics, [])
    assert forecast_exam(model, learner, [], 70.0).questions == 0
    # A topic with no published questions (and so none drawn): an average question's chance.
    learner.overall.ability = 0.7
    bare = forecast_exam(model, learner, [TopicPlan("z", 0, [])], 70.0).topics[0]
    assert bare.percent == pytest.approx(100 * model.topic_readiness(learner, "z").probability)
    assert bare.percent == pytest.approx(100 * sigmoid(0.7))
    learner.overall.ability = 0.0
    # A 100% pass mark needs every question; a 0% mark is always met.
    assert forecast_exam(model, learner, [TopicPlan("a", 4, half)], 100.0).pass_probability == (
        pytest.approx(1 / 16)
    )
    assert forecast_exam(model, learner, [TopicPlan("a", 4, half)], 0.0).pass_probability == (
        pytest.approx(1.0)
    )
    with pytest.raises(ValueError, match="none published"):
        forecast_exam(model, learner, [TopicPlan("a", 2, [])], 70.0)
    with pytest.raises(ValueError, match="below 0"):
        forecast_exam(model, learner, [TopicPlan("a", -1, half)], 70.0)
    with pytest.raises(ValueError, match="pass mark"):
        forecast_exam(model, learner, [TopicPlan("a", 1, half)], 101.0)


def test_certain_outcomes():
    # Questions far too easy or far too hard: the binomial at p near 0 or 1 stays finite.
    model = flat_model()
    learner = learner_with(model, {"a": 5, "b": 5})
    easy = forecast_exam(model, learner, [TopicPlan("a", 60, questions("a", -40.0))], 70.0)
    hard = forecast_exam(model, learner, [TopicPlan("b", 60, questions("b", 40.0))], 70.0)
    # Every count's mass is spread over [c - 1/2, c + 1/2], so even a certain 60 of 60 has
    # its 10th percentile at 59.6 questions: within a question of the certain score.
    assert easy.pass_probability == pytest.approx(1.0)
    assert 100 * 59 / 60 < easy.low_percent < 100.0
    assert easy.high_percent == pytest.approx(100.0)
    assert hard.pass_probability == pytest.approx(0.0, abs=1e-9)
    assert hard.low_percent == pytest.approx(0.0)
    assert 0.0 < hard.high_percent < 100 / 60


# --- The simulation ----------------------------------------------------------------------------


def test_split_questions_by_largest_remainder():
    assert simulation.split_questions((10, 15, 15, 20, 20, 20), 65) == [6, 10, 10, 13, 13, 13]
    assert simulation.split_questions((1, 1, 1), 4) == [2, 1, 1]
    assert sum(simulation.split_questions((7, 13, 29, 51), 97)) == 97


def test_simulation_is_calibrated():
    # 400 test learners: the ECE of so few has a noise floor near 0.03, so 0.08 is the bound
    # here (0.05 on the default run of 2000). The Brier score cannot reach the 0.05 for
    # this population: an oracle knowing every true ability scores about 0.045 (the luck of
    # the mock's draw), and on the default run a Bayes forecast from the practice answers with
    # the true difficulties scored 0.062 against the model's 0.063. So the floor used here is
    # the oracle's Brier plus 0.035, and 0.09 at most (seeds 0-7 of this run: 0.014 to 0.028
    # above the oracle).
    result = simulation.simulate(
        400, seed=1, train_learners=200, shape=simulation.ExamShape(questions=65)
    )
    assert result.learners == 400
    assert result.brier <= min(result.oracle_brier + 0.035, 0.09)
    assert result.ece <= 0.08
    assert 0.70 <= result.coverage <= 0.90
    assert abs(result.mean_pass_probability - result.pass_rate) <= 0.05


def test_the_default_simulation_meets_the_targets():
    # What `simulate_readiness` runs by default: 2,000 test learners, a 90-question mock. The
    # issue's targets: Brier and ECE at most 0.05, the 80% range holding 75-85% of the scores.
    # (A 65-question mock leaves more to the luck of the draw: Brier 0.063 there, where an
    # oracle scores 0.046 and a Bayes forecast from the same practice 0.062; docs/readiness.md.)
    result = simulation.simulate(2000, seed=0)
    assert result.brier <= 0.05
    assert result.ece <= 0.05
    assert 0.75 <= result.coverage <= 0.85


def test_simulation_rejects_too_few_learners():
    with pytest.raises(ValueError, match="at least 50 test learners"):
        simulation.simulate(10)
    with pytest.raises(ValueError, match="more questions"):
        simulation.simulate(50, shape=simulation.ExamShape(items_per_topic=5))


def test_command_prints_the_table_and_a_json_last_line():
    out = StringIO()
    call_command(
        "simulate_readiness",
        "--learners",
        "50",
        "--train-learners",
        "60",
        "--seed",
        "3",
        "--questions",
        "65",
        stdout=out,
    )
    lines = out.getvalue().strip().splitlines()
    summary = json.loads(lines[-1])
    assert set(summary) == {
        "learners",
        "brier",
        "ece",
        "coverage",
        "pass_rate",
        "mean_pass_probability",
        "oracle_brier",
        "partial_share",
        "answer_ece",
        "answer_auc",
    }
    assert summary["learners"] == 50
    assert any(line.startswith("Brier") for line in lines)
    assert any(line.startswith("fit") and "forecast spread x" in line for line in lines)
    # Deterministic for a seed: the same run without the command gives the same figures.
    assert (
        summary
        == simulation.simulate(
            50, seed=3, train_learners=60, shape=simulation.ExamShape(questions=65)
        ).as_dict()
    )


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--learners", "49"], "at least 50"),
        (["--train-learners", "10"], "at least 50"),
        (["--learners", "50", "--questions", "0"], "at least one question"),
        (["--learners", "50", "--questions", "500"], "more questions"),
    ],
)
def test_command_rejects_bad_arguments(arguments, message):
    with pytest.raises(CommandError, match=message):
        call_command("simulate_readiness", *arguments, stdout=StringIO())
