"""The study plan (progress.engine.plan), the learning gain it projects with
(progress.engine.learning_gain), and the plan simulation (progress.engine.plan_simulation,
`simulate_readiness --plan`)."""

import json
import math
import random
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from progress.engine import learning_gain, plan_simulation
from progress.engine import plan as plan_module
from progress.engine.learner_model import (
    ItemState,
    LearnerState,
    LearnerTopicState,
    ModelParams,
    ReadinessModel,
)
from progress.engine.plan import FITTED_GAIN, LearningGain, PlanTopic, plan_days, plan_study

KT = Path(__file__).resolve().parents[2] / "shared" / "data" / "kt"

# A gain for hand-checkable plans: a right answer teaches more than a wrong one, both teach.
GAIN = LearningGain(win=0.3, fail=0.1, spread=0.2)


def model() -> ReadinessModel:
    # No history weights, no Platt scaling: a topic's P(correct) is sigmoid(its ability).
    return ReadinessModel(ModelParams(ability_variance=0.05, topic_variance=0.05))


def learner(abilities: dict[str, float], answers: int = 20) -> LearnerState:
    """A learner whose topic abilities are known well, each topic answered `answers` times."""
    topics = {
        topic: LearnerTopicState(
            ability=ability,
            variance=0.02,
            wins=round(answers * (1 / (1 + math.exp(-ability)))),
            fails=answers - round(answers * (1 / (1 + math.exp(-ability)))),
        )
        for topic, ability in abilities.items()
    }
    overall = LearnerTopicState(ability=0.0, variance=0.02)
    return LearnerState(
        overall=overall, profile=[0.0] * 8, profile_variance=[0.0] * 8, topics=topics
    )


def topic(topic_id: str, drawn: int, available: int = 100) -> PlanTopic:
    items = [(f"{topic_id}/q{k}", ItemState(difficulty=0.0, variance=0.0)) for k in range(40)]
    return PlanTopic(topic_id=topic_id, drawn=drawn, items=items, available=available)


def test_the_weak_topic_with_many_exam_questions_gets_most_practice():
    plan = plan_study(
        model(),
        learner({"weak": 0.0, "strong": 2.5}),
        [topic("weak", 40), topic("strong", 20)],
        pass_percent=70.0,
        days=10,
        per_day=20,
        gain=GAIN,
    )
    assert plan.topic_totals["weak"] > plan.topic_totals["strong"]
    # 50% on 40 questions against 92% on 20: the weak topic gets the first answers.
    assert plan.days[0].practice["weak"] == 20
    assert sum(plan.topic_totals.values()) == 10 * 20


def test_days_and_the_daily_budget_are_respected():
    topics = [topic("a", 30), topic("b", 30), topic("c", 30)]
    plan = plan_study(
        model(),
        learner({"a": 0.5, "b": 1.0, "c": 1.5}),
        topics,
        70.0,
        days=7,
        per_day=13,
        gain=GAIN,
    )
    assert [day.day for day in plan.days] == list(range(7))
    assert all(day.total == 13 for day in plan.days)
    assert sum(plan.topic_totals.values()) == 7 * 13
    # Diminishing returns spread the practice: every topic gets some over a week.
    assert all(plan.topic_totals[t] > 0 for t in ("a", "b", "c"))


def test_reviews_due_take_the_budget_first_and_carry_over():
    topics = [topic("weak", 40), topic("strong", 20)]
    state = learner({"weak": 0.0, "strong": 2.5})
    plan = plan_study(
        model(), state, topics, 70.0, days=3, per_day=10, reviews_due={0: {"strong": 4}}, gain=GAIN
    )
    assert plan.days[0].reviews == {"strong": 4}
    assert plan.days[0].practice == {"weak": 6}
    assert plan.days[0].total == 10
    # More due than fits: the rest stays due the next day; overdue ones (day -2) are due today.
    plan = plan_study(
        model(),
        state,
        topics,
        70.0,
        days=3,
        per_day=10,
        reviews_due={-2: {"weak": 3}, 0: {"strong": 9}, 1: {"strong": 2}, 5: {"weak": 50}},
        gain=GAIN,
    )
    assert plan.days[0].reviews == {"weak": 3, "strong": 7}
    assert plan.days[0].practice == {}
    assert plan.days[1].reviews == {"strong": 4}
    assert plan.days[1].practice == {"weak": 6}
    assert plan.days[2].reviews == {}
    assert plan.topic_totals["strong"] == 11
    # Reviews count as answers on their topic in the projection.
    none = plan_study(model(), state, topics, 70.0, days=3, per_day=10, gain=GAIN)
    assert plan.pass_on_exam_day != none.pass_on_exam_day


def test_no_practice_for_a_topic_outside_the_exam_and_repeats_are_worth_less():
    state = learner({"weak": 0.0, "strong": 2.5, "gone": -1.0})
    topics = [topic("weak", 40), topic("strong", 20), topic("gone", 0)]
    plan = plan_study(model(), state, topics, 70.0, days=10, per_day=20, gain=GAIN)
    assert plan.topic_totals["gone"] == 0
    # Two topics alike: with only 5 unanswered questions left in one, it gets fewer answers,
    # since past them an answer repeats a question and counts as half an opportunity.
    state = learner({"a": 0.8, "b": 0.8})
    alike = plan_study(model(), state, [topic("a", 30), topic("b", 30)], 70.0, 10, 20, gain=GAIN)
    capped = [topic("a", 30, available=5), topic("b", 30)]
    fewer = plan_study(model(), state, capped, 70.0, days=10, per_day=20, gain=GAIN)
    assert alike.days[0].practice == {"a": 10, "b": 10}
    assert fewer.days[0].practice == {"a": 5, "b": 15}
    # Later a repeats catch up (b's returns diminish and a lags behind), worth less all along.
    assert fewer.pass_on_exam_day < alike.pass_on_exam_day


def test_the_projection_rises_with_more_days():
    state = learner({"a": 0.3, "b": 0.8, "c": 1.2})
    topics = [topic("a", 30), topic("b", 30), topic("c", 30)]
    plans = [
        plan_study(model(), state, topics, 70.0, days=days, per_day=20, gain=GAIN)
        for days in (0, 3, 10, 30)
    ]
    assert plans[0].days == []
    assert plans[0].pass_on_exam_day == plans[0].pass_now
    assert all(p.pass_now == plans[0].pass_now for p in plans)
    projected = [p.pass_on_exam_day for p in plans]
    assert projected == sorted(projected)
    assert projected[-1] > projected[0] + 0.2
    expected = [p.expected_percent for p in plans]
    assert expected == sorted(expected)
    for p in plans:
        assert 0.0 <= p.low_percent <= p.expected_percent <= p.high_percent <= 100.0
    # The learner state is read, never changed.
    assert state.topics["a"].ability == 0.3


def test_the_plan_is_deterministic_and_ties_go_to_the_earlier_topic():
    state = learner({"a": 1.0, "b": 1.0})
    topics = [topic("a", 20), topic("b", 20)]
    first = plan_study(model(), state, topics, 70.0, days=2, per_day=3, gain=GAIN)
    again = plan_study(model(), state, topics, 70.0, days=2, per_day=3, gain=GAIN)
    assert first == again
    assert first.days[0].practice == {"a": 2, "b": 1}


def test_with_the_fitted_gain_practice_pays():
    state = learner({"a": 0.3, "b": 0.8, "c": 1.2})
    topics = [topic("a", 30), topic("b", 30), topic("c", 30)]
    plan = plan_study(model(), state, topics, 70.0, days=30, per_day=20)
    assert plan.pass_on_exam_day > plan.pass_now


def test_plan_days_gives_the_days_of_plan_study_without_the_forecasts():
    state = learner({"a": 0.3, "b": 0.8, "c": 1.2})
    topics = [topic("a", 30), topic("b", 20, available=15), topic("c", 40)]
    reviews = {-1: {"b": 2}, 3: {"c": 5}}
    full = plan_study(model(), state, topics, 70.0, 12, 25, reviews, gain=GAIN)
    assert plan_days(model(), state, topics, 12, 25, reviews, gain=GAIN) == full.days
    # Today's practice does not depend on the days after it: one day is enough to know it.
    assert plan_days(model(), state, topics, 1, 25, reviews, gain=GAIN) == full.days[:1]
    with pytest.raises(ValueError, match="at least one question a day"):
        plan_days(model(), state, topics, 5, 0)


def test_the_learning_rate_uncertainty_is_counted_once():
    # k is shared by the topics: its variance widens the range through the overall ability,
    # and a spread of 0 leaves only the luck of the answers.
    state = learner({"a": 0.3, "b": 0.8, "c": 1.2})
    topics = [topic("a", 30), topic("b", 30), topic("c", 30)]
    sure = LearningGain(win=GAIN.win, fail=GAIN.fail, spread=0.0)
    unsure = LearningGain(win=GAIN.win, fail=GAIN.fail, spread=0.5)
    narrow = plan_study(model(), state, topics, 70.0, 30, 20, gain=sure)
    wide = plan_study(model(), state, topics, 70.0, 30, 20, gain=unsure)
    assert narrow.days == wide.days
    assert wide.high_percent - wide.low_percent > narrow.high_percent - narrow.low_percent


def test_the_learning_already_made_widens_the_range_with_the_learning_rate():
    # A learner with 200 answers a topic has learned, by how much depends on their unknown
    # learning rate, and the filter sees only part of it: with a spread of the rate, the
    # exam-day range is wider even when a single question is left to practise. A learner with
    # no answers has learned nothing yet: the spread hardly changes their range.
    topics = [topic("a", 30), topic("b", 30), topic("c", 30)]
    unsure = LearningGain(win=GAIN.win, fail=GAIN.fail, spread=0.5)
    sure = LearningGain(win=GAIN.win, fail=GAIN.fail, spread=0.0)

    def width(state, gain):
        plan = plan_study(model(), state, topics, 70.0, 1, 1, gain=gain)
        return plan.high_percent - plan.low_percent

    practised = learner({"a": 0.3, "b": 0.8, "c": 1.2}, answers=200)
    fresh = learner({"a": 0.3, "b": 0.8, "c": 1.2}, answers=0)
    assert width(practised, unsure) > width(practised, sure) + 1.0
    assert width(fresh, unsure) == pytest.approx(width(fresh, sure), abs=0.1)


def test_the_lag_added_to_the_range_is_the_one_the_filter_leaves():
    # A learner who learns as the fitted gain says, on three topics answered 80, 40 and 20
    # times (interleaved), fed each answer's expected outcome: the filter (with a prior and a
    # topic drift, as fitted ones have) ends behind the learning by some lag. The plan's
    # replay of the filter finds that lag; the plain mean of the learning over the answers,
    # an earlier version's, overstated it most where a topic had few answers.
    params = ModelParams(ability_variance=0.4, topic_variance=0.1, topic_drift=0.001)
    filter_model = ReadinessModel(params)
    counts = {"a": 80, "b": 40, "c": 20}
    state = filter_model.new_learner()
    item = ItemState(difficulty=0.0, variance=0.0)
    for _, topic_id in sorted((j / n, t) for t, n in counts.items() for j in range(n)):
        done = state.topics.get(topic_id)
        shift = FITTED_GAIN.shift(done.wins, done.fails) if done else 0.0
        score = 1.0 / (1.0 + math.exp(-shift))
        filter_model.update(state, topic_id, f"{topic_id}/q", score, item=item, learn_item=False)
    lags = plan_module._filter_lags(params, state, FITTED_GAIN)
    for topic_id in counts:
        done = state.topics[topic_id]
        learned = FITTED_GAIN.shift(done.wins, done.fails)
        real = learned - state.overall.ability - done.ability
        plain = FITTED_GAIN.win * (math.log1p(done.wins) - math.lgamma(done.wins + 1) / done.wins)
        assert lags[topic_id] == pytest.approx(real, abs=0.03)
        assert abs(lags[topic_id] - real) < abs(plain - real)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"per_day": 0}, "at least one question a day"),
        ({"days": -1}, "cannot be negative"),
        ({"pass_percent": 101.0}, "percent from 0 to 100"),
        ({"pass_percent": -1.0}, "percent from 0 to 100"),
        ({"reviews_due": {0: {"a": -1}}}, "reviews due"),
    ],
)
def test_bad_input_raises(arguments, message):
    call = {"pass_percent": 70.0, "days": 5, "per_day": 10} | arguments
    with pytest.raises(ValueError, match=message):
        plan_study(model(), learner({"a": 0.0}), [topic("a", 10)], gain=GAIN, **call)


def test_bad_topics_raise():
    state = learner({"a": 0.0})
    with pytest.raises(ValueError, match="listed twice"):
        plan_study(model(), state, [topic("a", 10), topic("a", 5)], 70.0, 5, 10)
    with pytest.raises(ValueError, match="available"):
        plan_study(model(), state, [topic("a", 10, available=-1)], 70.0, 5, 10)


# --- The learning gain -------------------------------------------------------------------------


def synthetic_logs(
    gain: LearningGain, learners: int, seed: int
) -> list[list[tuple[str, str, bool]]]:
    """Learners answering random items of five skills under the model of learning_gain, with
    the given gain (each learner's multiplier k drawn with the gain's spread)."""
    rng = random.Random(seed)
    skills = [f"s{k}" for k in range(5)]
    easiness = {s: rng.gauss(0.0, 0.5) for s in skills}
    items = {s: {f"{s}/i{j}": rng.gauss(0.0, 0.7) for j in range(30)} for s in skills}
    logs = []
    for _ in range(learners):
        ability = rng.gauss(0.0, 0.8)
        k = max(rng.gauss(1.0, gain.spread), 0.0)
        counts = {s: [0, 0] for s in skills}
        answers = []
        for _ in range(rng.randint(40, 120)):
            s = rng.choice(skills)
            item = rng.choice(list(items[s]))
            wins, fails = counts[s]
            z = easiness[s] + items[s][item] + ability + k * gain.shift(wins, fails) - 0.5
            correct = rng.random() < 1.0 / (1.0 + math.exp(-z))
            counts[s][0 if correct else 1] += 1
            answers.append((item, s, correct))
        logs.append(answers)
    return logs


def test_the_gain_fit_recovers_a_known_gain():
    truth = LearningGain(win=0.35, fail=0.15, spread=0.3)
    fit = learning_gain.fit_gain_report(synthetic_logs(truth, 400, seed=1))
    assert fit.gain.win == pytest.approx(truth.win, abs=0.08)
    assert fit.gain.fail == pytest.approx(truth.fail, abs=0.08)
    assert 0.0 <= fit.gain.spread <= 0.8
    assert fit.win_se < 0.05


def test_the_gain_fit_keeps_learning_non_negative():
    # Logs where wrong answers go with lower later success: the fail gain stays at 0.
    truth = LearningGain(win=0.3, fail=-0.3)
    fit = learning_gain.fit_gain_report(synthetic_logs(truth, 200, seed=2))
    assert fit.gain.fail == 0.0
    assert fit.gain.win > 0.0
    with pytest.raises(ValueError, match="no answers"):
        learning_gain.fit_gain_report([])


@pytest.mark.skipif(not KT.is_dir(), reason="the shared learner logs are not here")
def test_refitting_on_a_slice_of_the_real_logs_gives_about_the_fitted_gain():
    # A fifth of the training learners of each log, pooled as FITTED_GAIN was.
    logs = [str(KT / "assistments09_train.tsv"), str(KT / "statics_train.tsv")]
    sequences = learning_gain.read_logs(logs)[::5]
    gain = learning_gain.fit_learning_gain(sequences)
    assert gain.win == pytest.approx(FITTED_GAIN.win, abs=0.1)
    assert gain.fail == pytest.approx(FITTED_GAIN.fail, abs=0.1)
    assert gain.spread == pytest.approx(FITTED_GAIN.spread, abs=0.25)


# --- The plan simulation -----------------------------------------------------------------------

SMALL = plan_simulation.PlanSimulationConfig(
    learners=20, train_learners=60, days=4, per_day=10, items_per_topic=100
)


def test_the_plan_simulation_reports_what_it_promises():
    result = plan_simulation.simulate_plan(SMALL, seed=2)
    summary = result.as_dict()
    for key in ("plan_pass_rate", "even_pass_rate", "projection_brier", "projection_ece"):
        assert 0.0 <= summary[key] <= 1.0
    assert 0.0 <= summary["range_coverage"] <= 1.0
    low, high = summary["plan_gain_ci95"]
    assert -1.0 <= low <= high <= 1.0
    assert low <= summary["plan_gain"] <= high
    # Each figure is printed to six places, so their difference may differ in the last one.
    assert summary["plan_gain"] == pytest.approx(
        summary["plan_chance"] - summary["even_chance"], abs=2e-6
    )
    low, high = summary["mock_gain_ci95"]
    assert low <= summary["plan_pass_rate"] - summary["even_pass_rate"] <= high
    # The oracle knows the true abilities: its Brier score is a floor, within 0 to 1.
    assert 0.0 <= summary["oracle_brier"] <= 1.0
    assert len(result.outcomes) == 20
    assert result.plan_ms > 0.0
    # Deterministic for a seed.
    assert plan_simulation.simulate_plan(SMALL, seed=2).as_dict() == summary


def test_the_plan_command_prints_a_table_and_the_json_last():
    out = StringIO()
    arguments = ["--plan", "--learners", "20", "--train-learners", "60", "--days", "3"]
    call_command("simulate_readiness", *arguments, "--per-day", "8", stdout=out)
    lines = out.getvalue().strip().splitlines()
    summary = json.loads(lines[-1])
    assert {
        "plan_pass_rate",
        "even_pass_rate",
        "projection_brier",
        "projection_ece",
        "range_coverage",
        "plan_gain_ci95",
    } <= set(summary)
    assert summary["learners"] == 20
    assert summary["days"] == 3
    # The JSON says which difference its interval is of.
    assert "chances of passing" in summary["plan_gain_basis"]
    assert any(line.startswith("pass rate") for line in lines)
    # What the fit made of the forecast's spread, measured on the 60 training learners.
    assert any(line.startswith("fit") and "on 60 learners" in line for line in lines)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--learners", "5"], "at least 20 learners"),
        (["--train-learners", "10"], "at least 50 training"),
        (["--days", "0"], "at least one day"),
        (["--per-day", "0"], "at least one question a day"),
        (["--questions", "0"], "at least one question"),
        (["--questions", "2000"], "more questions"),
        (["--gain-logs", "/nonexistent/log.tsv"], "--gain-logs"),
    ],
)
def test_the_plan_command_rejects_bad_options(arguments, message):
    with pytest.raises(CommandError, match=message):
        call_command("simulate_readiness", "--plan", *arguments, stdout=StringIO())


def test_the_plan_beats_even_practice_when_a_heavy_topic_is_weak():
    # Three topics, the first giving 60% of the mock and a logit and a half harder than the
    # others; a short history, so practice still moves the learners. Practising the same
    # number of answers in each topic leaves the heavy topic behind; the plan does not.
    config = plan_simulation.PlanSimulationConfig(
        learners=20,
        train_learners=60,
        days=10,
        per_day=20,
        items_per_topic=100,
        weights=(60, 20, 20),
        topic_difficulty=(1.0, -0.5, -0.5),
        history=(15, 30),
    )
    result = plan_simulation.simulate_plan(config, seed=0)
    assert result.plan_chance > result.even_chance + 0.01
    assert result.plan_gain > 0.0
    assert result.plan_mean_score > result.even_mean_score
    with pytest.raises(ValueError, match="one topic difficulty per"):
        plan_simulation.simulate_plan(
            plan_simulation.PlanSimulationConfig(topic_difficulty=(1.0,)), seed=0
        )
