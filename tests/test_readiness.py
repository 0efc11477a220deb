"""The readiness learner model (progress.engine.learner_model) and its fitter
(progress.engine.fitting), the log replay and metrics (progress.engine.evaluation); the
command that runs them on logs, `evaluate_readiness`, is tested in test_evaluate_readiness.py."""

import copy
import dataclasses
import json
import math
import random
import time
from typing import Any

import pytest

from progress.engine import evaluation, fitting, learner_model
from progress.engine.learner_model import (
    FEATURES,
    PROFILE_SIZE,
    Answer,
    ItemState,
    LearnerState,
    ModelParams,
    ReadinessModel,
    TopicParams,
)
from tests.kt_logs import HEADER, synthetic_log
from tests.readiness_store import hand_model

# --- The model, by hand ---------------------------------------------------------------------


def test_one_update_by_hand():
    model = hand_model()
    learner = model.new_learner()

    # A new learner: no history, so every feature is 0 and the pattern is "none" (code 1).
    # logit = bias - topic difficulty - question difficulty = 0 - 0.5 + 0.5 = 0, p = 0.5.
    # Logit variance = overall 1.0 + topic 0.5 + question 0.5 = 2.0.
    before = model.predict(learner, "t", "q")
    assert before.logit == pytest.approx(0.0)
    assert before.probability == pytest.approx(0.5)
    assert before.variance == pytest.approx(2.0)
    spread = learner_model.Z80 * math.sqrt(2.0)
    assert before.low == pytest.approx(1 / (1 + math.exp(spread)))
    assert before.high == pytest.approx(1 / (1 + math.exp(-spread)))

    # A right answer. h = p(1 - p) = 0.25; s = 1 + h (1.0 + 0.5) = 1.375;
    # r = (1 - 0.5) / s = 4/11.
    # overall ability += 1.0 * 4/11 = 4/11;  topic offset += 0.5 * 4/11 = 2/11
    # overall variance = 1 - 1 * 0.25 / 1.375 + drift 0.1 = 9/11 + 0.1
    # topic variance = 0.5 - 0.25 * 0.25 / 1.375 = 5/11
    # question (an Elo step scaled by its variance 0.5): difficulty -= 0.5 * 0.5 / (1 + 0.5 *
    # 0.25) = 2/9, so -0.5 - 2/9 = -13/18; its variance 0.5 / 1.125 = 4/9.
    assert model.update(learner, "t", "q", True) == pytest.approx(0.5)
    topic = learner.topics["t"]
    assert learner.overall.ability == pytest.approx(4 / 11)
    assert topic.ability == pytest.approx(2 / 11)
    assert learner.overall.variance == pytest.approx(9 / 11 + 0.1)
    assert topic.variance == pytest.approx(5 / 11)
    item = model.params.items["q"]
    assert item.difficulty == pytest.approx(-13 / 18)
    assert item.variance == pytest.approx(4 / 9)
    assert item.answers == 11
    assert (topic.wins, topic.fails, learner.overall.wins) == (1, 0, 1)
    assert topic.last == 0b11
    assert topic.items == {"q": [1, 0]}

    # The same question again: -0.5 + 13/18 + 1 * log(1 + 1) + pattern 0.25 + 4/11 + 2/11.
    after = model.predict(learner, "t", "q")
    assert after.logit == pytest.approx(-0.5 + 13 / 18 + math.log(2) + 0.25 + 6 / 11)
    assert after.variance == pytest.approx((9 / 11 + 0.1) + 5 / 11 + 4 / 9)
    assert after.probability > before.probability


def test_profile_update_by_hand():
    profile = [2.0] + [0.0] * (PROFILE_SIZE - 1)
    model = hand_model(
        profile_variance=0.5,
        ability_drift=0.0,
        items={"q": ItemState(difficulty=-0.5, variance=0.5, answers=10, profile=profile)},
    )
    learner = model.new_learner()
    # logit 0 (the learner's profile starts at 0), p = 0.5, h = 0.25; the profile adds
    # 0.5 * 2^2 = 2 to the variance: s = 1 + 0.25 (1.0 + 0.5 + 2.0) = 1.875, r = 0.5 / s = 4/15.
    model.update(learner, "t", "q", True, learn_item=False)
    assert learner.profile[0] == pytest.approx(0.5 * 2.0 * 4 / 15)
    assert learner.profile_variance[0] == pytest.approx(0.5 - (0.5 * 2.0) ** 2 * 0.25 / 1.875)
    assert learner.profile[1:] == [0.0] * (PROFILE_SIZE - 1)
    assert learner.overall.ability == pytest.approx(4 / 15)
    # learn_item=False leaves the question alone.
    assert model.params.items["q"].difficulty == -0.5


def test_streak_terms_by_hand():
    totals = [0.0] * learner_model.N_PATTERNS
    totals[0b11] = 0.3  # the last answer in all topics: right
    model = hand_model(
        total_pattern_weights=totals,
        topics={"t": TopicParams(0.5, 0.0, 0.0, [0.2, 0.1, 0.0, 0.0])},
        item_context={"q": [0.05, 0.0, 0.0, 0.0]},
        context_means={"t": 0.07},
    )
    learner = model.new_learner()
    # No answer yet: every sign of the context is 0 and the total pattern is "none yet" (0),
    # so the first update is that of test_one_update_by_hand.
    assert model.update(learner, "t", "q", True, learn_item=False) == pytest.approx(0.5)
    topic = learner.topics["t"]
    abilities = learner.overall.ability + topic.ability
    assert abilities == pytest.approx(4 / 11 + 2 / 11)
    # Now the previous answer (any topic) and the last on t were right: context (1, 1, 0, 0).
    # On q: -0.5 + 0.5 + log 2 (item_wins) + 0.25 (pattern) + 0.3 (total pattern)
    # + 0.2 + 0.1 (the topic's context weights) + 0.05 (the question's own) + abilities.
    expected = math.log(2) + 0.25 + 0.3 + 0.3 + 0.05 + abilities
    assert model.predict(learner, "t", "q").logit == pytest.approx(expected)
    # The next update starts from that prediction.
    before = model.update(learner, "t", "q", False, learn_item=False)
    assert before == pytest.approx(learner_model.sigmoid(expected))
    # With no question, the streak terms give way to their mean on the topic, 0.07: -0.5
    # (the topic's difficulty) + 0 (the pattern "right, wrong") + 0.07 + abilities.
    abilities = learner.overall.ability + learner.topics["t"].ability
    assert model.topic_readiness(learner, "t").logit == pytest.approx(-0.5 + 0.07 + abilities)


def test_a_topic_left_for_a_while_counts_the_answers_since():
    # A weight of -0.5 on the topic gap: log(1 + answers on other topics since the learner's
    # last answer on this one).
    weights = [0.0] * len(FEATURES)
    weights[FEATURES.index("topic_gap")] = -0.5
    model = hand_model(weights=weights, topics={"t": TopicParams(), "u": TopicParams()})
    learner = model.new_learner()
    # Before the topic's first answer the gap is 0: nothing to have forgotten.
    assert model.predict(learner, "t", "q").logit == pytest.approx(0.5)
    model.update(learner, "t", "q", True, learn_item=False)
    right_after = model.predict(learner, "t", "q").logit
    ability = learner.overall.ability
    for _ in range(3):
        model.update(learner, "u", "other", True, learn_item=False)
    # Three answers elsewhere since: 0.5 log(4) lower, less what they raised the ability.
    later = model.predict(learner, "t", "q").logit
    moved = learner.overall.ability - ability
    assert later - right_after == pytest.approx(-0.5 * math.log(4) + moved)
    history = learner_model.features(learner.overall, learner.topics["t"], "q")
    assert history[FEATURES.index("topic_gap")] == pytest.approx(math.log(4))
    # The count survives the stored state, and answering the topic resets it.
    stored = LearnerState.from_dict(learner.to_dict())
    assert learner_model.features(stored.overall, stored.topics["t"], "q") == history
    model.update(learner, "t", "q", True, learn_item=False)
    reset = learner_model.features(learner.overall, learner.topics["t"], "q")
    assert reset[FEATURES.index("topic_gap")] == 0.0


def test_parameters_and_states_saved_before_the_topic_gap_still_load():
    model = hand_model()
    data = json.loads(model.params.to_json())
    at = data["features"].index("topic_gap")
    del data["features"][at], data["weights"][at]
    old = ModelParams.from_json(json.dumps(data))
    assert old.weights == model.params.weights  # the gap weighs 0, as it did
    # A topic state without the mark reads as not answered since the first answer.
    learner = model.new_learner()
    for topic in ("t", "u", "u"):
        model.update(learner, topic, "q", True, learn_item=False)
    state = learner.topics["t"].to_dict()
    del state["seen_at"]
    loaded = learner_model.LearnerTopicState.from_dict(state)
    assert loaded.seen_at == 0
    gap = learner_model.features(learner.overall, loaded, "q")[FEATURES.index("topic_gap")]
    assert gap == pytest.approx(math.log(4))


def test_parameters_saved_before_the_streak_terms_still_load():
    model = hand_model()
    data = json.loads(model.params.to_json())
    for key in ("total_pattern_weights", "item_context", "context_means"):
        del data[key]
    data["pattern_weights"] = data["pattern_weights"][:16]  # three answers, then
    data["pattern_weights"][0b1011] = 0.4  # wrong, right, right
    data["topics"] = {"t": data["topics"]["t"][:3]}
    old = ModelParams.from_json(json.dumps(data))
    assert old.context_means == {}
    assert old.topics["t"].context_weights == [0.0] * learner_model.N_CONTEXT
    # A pattern of four answers gets the weight of its last three.
    assert old.pattern_weights[0b11011] == old.pattern_weights[0b10011] == 0.4
    learner = ReadinessModel(old).new_learner()
    assert ReadinessModel(old).topic_readiness(learner, "t").logit == pytest.approx(-0.5)


def test_parameters_and_states_saved_with_the_recency_counts_still_load():
    model = hand_model()
    data = json.loads(model.params.to_json())
    # The layout of the version with recency-weighted counts: twelve more features, after
    # the six kept, each with a weight; a learner's topic state had their decayed counts.
    retired = [
        f"{scope}_recent_{kind}_{decay}"
        for scope in ("topic", "total")
        for decay in (0.5, 0.8, 0.95)
        for kind in ("wins", "fails")
    ]
    data["features"] = [*data["features"], *retired]
    data["weights"] = [*data["weights"], *[0.3] * len(retired)]
    old = ModelParams.from_json(json.dumps(data))
    assert old.weights == model.params.weights
    state = learner_model.LearnerTopicState(0.2, 0.1, wins=3).to_dict()
    loaded = learner_model.LearnerTopicState.from_dict({**state, "recent": [1.0] * 6})
    assert (loaded.ability, loaded.variance, loaded.wins) == (0.2, 0.1, 3)
    # Another feature set altogether is refused.
    data["features"] = [*data["features"][:-1], "something_else"]
    with pytest.raises(ValueError, match="another feature set"):
        ModelParams.from_json(json.dumps(data))


def test_a_wrong_answer_lowers_the_topic_and_unknown_ids_fall_back():
    model = hand_model()
    learner = model.new_learner()
    start = model.topic_readiness(learner, "t").probability
    model.update(learner, "t", "q", False)
    after = model.topic_readiness(learner, "t")
    assert after.probability < start
    assert after.low < after.probability < after.high
    # A topic and a question never seen: an average topic and question, nothing stored.
    prediction = model.predict(learner, "new topic", "new question")
    assert 0.0 < prediction.probability < 1.0
    model.update(learner, "new topic", "new question", True, learn_item=False)
    assert "new question" not in model.params.items
    model.update(learner, "new topic", "new question", True)
    assert model.params.items["new question"].answers == 1


def test_states_and_parameters_round_trip_through_json():
    model = hand_model(
        items={"q": ItemState(-0.5, 0.5, 10, [0.3] * PROFILE_SIZE)}, profile_variance=0.2
    )
    learner = model.new_learner()
    for correct in (True, False, True):
        model.update(learner, "t", "q", correct)
    copy = ReadinessModel(ModelParams.from_json(model.params.to_json()))
    stored = LearnerState.from_dict(json.loads(json.dumps(learner.to_dict())))
    assert copy.predict(stored, "t", "q") == model.predict(learner, "t", "q")
    assert copy.params == model.params


def test_the_fast_training_replay_agrees_with_the_public_model():
    # fit() replays learners with inlined arithmetic; the fitted parameters must give the same
    # predictions through ReadinessModel, or the held-out choices would not hold for it.
    rng = random.Random(3)
    log = synthetic_log(rng, learners=30, answers=25)
    sequences = list(log.values())
    items, topics = {}, {}
    blocks = fitting._encode(sequences, items, topics)
    config = fitting.FitConfig()
    weights = fitting._Weights(len(items), len(topics), config, rng)
    weights.set_priors(blocks, config)
    filt = fitting._Filter(0.4, 0.2, 0.3, 0.01, 0.003)
    fitting._train(weights, blocks, config, filt, rng)
    logits, _ = fitting._filtered_logits(weights, fitting._base_logits(weights, blocks), filt)
    model = ReadinessModel(fitting._params(weights, items, topics, filt, 1.0, 0.0))
    replayed, _ = evaluation.replay(model, log)
    assert replayed == pytest.approx([learner_model.sigmoid(z) for z in logits], abs=1e-12)


def random_weights(
    rng: random.Random,
) -> tuple[
    evaluation.Log, dict[str, int], dict[str, int], list[list[fitting._Row]], fitting._Weights
]:
    """A log whose questions repeat (their counts enter the logit) on four topics, encoded,
    and fitted weights with every term random."""
    log = {
        f"u{learner}": [
            Answer(f"i{k}", f"s{k % 4}", rng.random() < 0.6)
            for k in (rng.randrange(15) for _ in range(rng.randint(1, 40)))
        ]
        for learner in range(12)
    }
    items: dict[str, int] = {}
    topics: dict[str, int] = {}
    blocks = fitting._encode(list(log.values()), items, topics)
    config = fitting.FitConfig()
    weights = fitting._Weights(len(items), len(topics), config, rng)
    weights.set_priors(blocks, config)

    def noise(values: list) -> list:
        return [noise(v) if isinstance(v, list) else rng.gauss(0.0, 0.7) for v in values]

    weights.bias = rng.gauss(0.0, 0.7)
    for name in (
        "weights",
        "patterns",
        "total_patterns",
        "topic_difficulty",
        "topic_wins",
        "topic_fails",
        "item_difficulty",
        "topic_context",
        "item_context",
        "profiles",
        "trace_reads",
        "trace_marks",
    ):
        setattr(weights, name, noise(getattr(weights, name)))
    return log, items, topics, blocks, weights


def test_every_sum_of_the_logit_agrees_with_the_public_model(monkeypatch):
    # The fitter sums the logit through learner_model.logit_sum, as the model does, except
    # where speed made it split the sum: the held-out replay adds the filtered terms to a
    # base summed once, and the context means sum the streak terms alone. Each is checked
    # against ReadinessModel's logit on random parameters and learner states, and so is
    # the training pass's call (its logits recorded with the learning rate at 0, so that
    # nothing moves but the filter, as in the model's replay).
    rng = random.Random(5)
    for setting in range(6):
        log, items, topics, blocks, weights = random_weights(rng)
        filt = fitting._Filter(
            **{name: rng.choice(grid) for name, grid in fitting._FILTER_GRID.items()}
        )
        if setting == 0:  # the profiles switched off
            filt = fitting._Filter(**{**filt.as_dict(), "profile_variance": 0.0})
            filt = fitting._Filter(**{**filt.as_dict(), "extra_profile_variance": 0.0})
        model = ReadinessModel(fitting._params(weights, items, topics, filt, 1.0, 0.0))
        # The model's logits, and apart its streak terms: the logit for the question less
        # the logit for no question in particular, with the question's own counts weighed
        # 0 and no context means, so that only the streak terms differ.
        streaks_only = ReadinessModel(copy.deepcopy(model.params))
        streaks_only.params.context_means = {}
        for name in ("item_wins", "item_fails"):
            streaks_only.params.weights[FEATURES.index(name)] = 0.0
        expected, streak_sums, streak_counts = [], {}, {}
        for answers in log.values():
            learner, other = model.new_learner(), streaks_only.new_learner()
            for item_id, topic_id, correct in answers:
                item = model.params.items[item_id]
                streak = (
                    streaks_only.predict(other, topic_id, item_id, item=item).logit
                    - streaks_only.predict(other, topic_id, item=item).logit
                )
                streak_sums[topic_id] = streak_sums.get(topic_id, 0.0) + streak
                streak_counts[topic_id] = streak_counts.get(topic_id, 0) + 1
                streaks_only.update_learner(other, topic_id, item_id, correct, item=item)
                expected.append(
                    model.update_learner(learner, topic_id, item_id, correct, item=item)
                )

        held_out, _ = fitting._filtered_logits(weights, fitting._base_logits(weights, blocks), filt)
        assert held_out == pytest.approx(expected, abs=1e-12)

        trained: list[float] = []

        def recorded(*terms: Any, trained: list[float] = trained) -> float:
            logit = learner_model.logit_sum(*terms)
            trained.append(logit)
            return logit

        with monkeypatch.context() as patch:
            patch.setattr(fitting, "logit_sum", recorded)
            still = dataclasses.replace(fitting.FitConfig(), learning_rate=0.0, trace_rate=0.0)
            fitting._train_epoch(weights.copy(), blocks, range(len(blocks)), still, filt)
        assert trained == pytest.approx(expected, abs=1e-12)

        means = fitting._context_means(
            weights, blocks, topics, filt.context_scale, filt.trace_scale
        )
        assert means == pytest.approx(
            {t: streak_sums[t] / streak_counts[t] for t in streak_sums}, abs=1e-12
        )


def test_fit_learns_and_is_deterministic():
    log = synthetic_log(random.Random(1), learners=60, answers=40)
    train, test = evaluation.split_learners(log, 0.75, seed=0)
    first = evaluation.evaluate(train, test)
    assert first.scores.auc > 0.7
    assert first.fit_report.holdout_learners == 9
    again = evaluation.evaluate(train, test)
    assert again.scores == first.scores


def test_the_model_shipped_is_fitted_on_the_held_out_learners_too():
    # The held-out learners choose the passes, the filter and the scaling; then the model is
    # fitted again on every learner. A question only a held-out learner answered is then a
    # fitted question, not an average one: each learner here answers one of their own, which
    # the learner gets wrong and which is hard, besides the shared ones.
    log = synthetic_log(random.Random(5), learners=60, answers=30)
    sequences = [
        [*answers, Answer(f"own-{learner}", "s0", False)]
        for learner, answers in enumerate(log.values())
    ]
    model, report = fitting.fit(sequences)
    assert report.holdout_learners == 12
    assert report.refit_passes == report.epochs >= 1
    own = {item: state for item, state in model.params.items.items() if item.startswith("own")}
    assert len(own) == 60  # the 12 held-out learners' questions included
    assert all(state.answers == 1 and state.difficulty > 0 for state in own.values())
    # Without held-out learners there is nothing to refit with: one fit, on all of them.
    _, small = fitting.fit(sequences[:20])
    assert (small.holdout_learners, small.refit_passes) == (0, 0)


def test_a_small_log_keeps_the_set_context_factor_a_big_one_chooses_it():
    # Below FitConfig.tune_context_from answers the questions' own context weights enter at
    # the factor set for every log; from it on, the fit chooses the factor on its held-out
    # learners. Each question here is answered by learners of every ability in turn, so its
    # own weights on the last answers fit only noise: choosing, the fit switches them off.
    sequences = list(synthetic_log(random.Random(3), learners=80, answers=50).values())
    answers = sum(map(len, sequences))
    config = fitting.FitConfig()
    assert answers < config.tune_context_from
    _, report = fitting.fit(sequences, config=config)
    assert report.filter["context_scale"] == config.context_scale
    assert not report.context_chosen
    chosen = dataclasses.replace(config, context_scale=1.0, tune_context_from=answers)
    _, tuned = fitting.fit(sequences, config=chosen)
    assert tuned.filter["context_scale"] < 1.0
    assert tuned.context_chosen


def test_the_yardstick_is_a_logistic_regression_the_model_beats():
    # The yardstick of docs/readiness.md: the same history features fitted alone, with no
    # filtered abilities. On learners whose abilities differ, following each one's ability
    # predicts better. The learners here do not learn: on ones who all learn at the same
    # steady pace the yardstick's counts follow that about as well, and which of the two
    # came out ahead changed with the log's seed.
    log = synthetic_log(random.Random(1), learners=120, answers=40, learning=0.0)
    train, test = evaluation.split_learners(log, 0.75, seed=0)
    yardstick = evaluation.evaluate(train, test, config=fitting.FitConfig(logistic_only=True))
    assert set(yardstick.fit_report.filter.values()) == {0.0}
    model = evaluation.evaluate(train, test)
    assert model.scores.auc > yardstick.scores.auc
    assert model.scores.logloss < yardstick.scores.logloss


def test_the_passes_stop_on_the_held_out_loss_or_on_counts():
    sequences = list(synthetic_log(random.Random(1), learners=60, answers=40).values())
    fitted_answers = 48 * 40  # 12 of the 60 learners are held out

    def fit(**changes) -> fitting.FitReport:
        config = dataclasses.replace(fitting.FitConfig(), **changes)
        return fitting.fit(sequences, config=config)[1]

    # A pass that lowers the held-out log-loss by less than the tolerance does not count:
    # the pass kept is the first, and the patience's one more pass, then stop.
    converged = fit(tolerance=1.0)
    assert (converged.epochs, converged.passes) == (1, 3)
    assert converged.stop is fitting.Stop.CONVERGED
    assert len(converged.holdout_logloss) == 3
    # No tolerance to speak of, and the passes run to the most allowed.
    most = fit(tolerance=-1.0, max_epochs=4)
    assert (most.epochs, most.passes, most.stop) == (4, 4, fitting.Stop.MAX_PASSES)
    # A big log gets fewer passes: as many as the answers replayed allow, at least one.
    limited = fit(tolerance=-1.0, max_replayed_answers=2 * fitted_answers + 1)
    assert (limited.passes, limited.stop) == (2, fitting.Stop.ANSWER_LIMIT)
    assert fit(max_replayed_answers=1).passes == 1
    # Too few learners to hold any out: a fixed number of passes.
    small = fitting.fit(sequences[:20])[1]
    assert (small.holdout_learners, small.passes, small.stop) == (0, 3, fitting.Stop.NO_HOLDOUT)


CLOCKS = ("process_time", "perf_counter", "monotonic", "time", "thread_time")


def test_the_fit_is_the_same_on_a_machine_a_hundred_times_slower(monkeypatch):
    # The passes stop on counts and on the held-out log-loss, never on the time taken: a
    # slow machine (every clock running 100 times faster against the work done) fits the
    # same parameters, pass for pass.
    sequences = list(synthetic_log(random.Random(2), learners=100, answers=60).values())
    model, report = fitting.fit(sequences, seed=4)
    for name in CLOCKS:
        clock = getattr(time, name)
        monkeypatch.setattr(time, name, lambda clock=clock: 100.0 * clock())
    slow_model, slow_report = fitting.fit(sequences, seed=4)
    assert slow_model.params == model.params
    assert slow_report.holdout_logloss == report.holdout_logloss
    assert (slow_report.epochs, slow_report.passes) == (report.epochs, report.passes)


def test_the_fit_reads_no_clock(monkeypatch):
    # What the fit does cannot depend on the time if it never asks: its callers time it.
    def stopped(*args: object) -> float:
        raise AssertionError("the fit read a clock")

    for name in dir(time):
        if name.startswith(("time", "perf_counter", "process_time", "monotonic", "thread_time")):
            monkeypatch.setattr(time, name, stopped)
    monkeypatch.setattr(time, "clock_gettime", stopped)
    monkeypatch.setattr(time, "clock_gettime_ns", stopped)
    sequences = list(synthetic_log(random.Random(1), learners=60, answers=40).values())
    _, report = fitting.fit(sequences)
    assert report.passes >= 1
    _, small = fitting.fit(sequences[:20])  # the branch without held-out learners
    assert small.passes == 3


# --- Metrics, by hand -----------------------------------------------------------------------

PREDICTIONS = [0.1, 0.4, 0.4, 0.8]
OUTCOMES = [False, True, False, True]


def test_auc_counts_a_tie_as_half():
    # Right/wrong pairs: (0.4, 0.1) 1, (0.4, 0.4) 1/2, (0.8, 0.1) 1, (0.8, 0.4) 1: 3.5 of 4.
    assert evaluation.auc(PREDICTIONS, OUTCOMES) == pytest.approx(0.875)
    assert evaluation.auc([0.3, 0.3, 0.3], [True, False, True]) == pytest.approx(0.5)
    assert evaluation.auc([0.9, 0.2], [True, False]) == 1.0
    assert math.isnan(evaluation.auc([0.2, 0.7], [True, True]))


def test_rmse_logloss_and_ece_by_hand():
    # Errors 0.1, 0.6, 0.4, 0.2: squares sum to 0.57.
    assert evaluation.rmse(PREDICTIONS, OUTCOMES) == pytest.approx(math.sqrt(0.57 / 4))
    expected = -(math.log(0.9) + math.log(0.4) + math.log(0.6) + math.log(0.8)) / 4
    assert evaluation.logloss(PREDICTIONS, OUTCOMES) == pytest.approx(expected)
    # Bins [0.1, 0.2): |0 - 0.1| for 1 of 4; [0.4, 0.5): |0.5 - 0.4| for 2 of 4;
    # [0.8, 0.9): |1 - 0.8| for 1 of 4.
    assert evaluation.ece(PREDICTIONS, OUTCOMES) == pytest.approx(0.1 / 4 + 0.1 * 2 / 4 + 0.2 / 4)


def test_metric_edges():
    # Log-loss clips a certain wrong prediction to 1e-15 rather than dividing by zero.
    assert evaluation.logloss([0.0], [True]) == pytest.approx(-math.log(1e-15))
    # A prediction of exactly 1 falls in the last bin.
    assert evaluation.ece([1.0, 1.0], [True, False]) == pytest.approx(0.5)
    scores = evaluation.score(PREDICTIONS, OUTCOMES).as_dict()
    assert set(scores) == {"n", "auc", "rmse", "logloss", "ece"}
    assert scores["n"] == 4
    assert evaluation.score([0.5], [True]).as_dict()["auc"] is None


# --- Logs and the split ---------------------------------------------------------------------


def test_split_by_learner_is_disjoint_complete_and_seeded():
    log = {f"u{k}": [("i", "s", k % 2 == 0)] for k in range(10)}
    train, test = evaluation.split_learners(log, 0.8, seed=0)
    assert len(train) == 8
    assert len(test) == 2
    assert not set(train) & set(test)
    assert set(train) | set(test) == set(log)
    assert evaluation.split_learners(log, 0.8, seed=0) == (train, test)
    assert any(evaluation.split_learners(log, 0.8, seed=s)[1] != test for s in range(1, 5))
    with pytest.raises(ValueError, match="between 0 and 1"):
        evaluation.split_learners(log, 1.0, seed=0)


def test_read_a_log_in_any_column_order_with_interleaved_learners():
    text = "skill_id\tcorrect\tuser_id\titem_id\ttimestamp\n"
    text += "s1\t1\tu1\ti1\t0\ns1\t0\tu2\ti1\t0\ns2\t0\tu1\ti2\t0\n\n"
    log = evaluation.parse_log(text.splitlines(keepends=True))
    assert log == {"u1": [("i1", "s1", True), ("i2", "s2", False)], "u2": [("i1", "s1", False)]}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty file"),
        ("user\titem\tcorrect\n1\t2\t1\n", "the header lacks user_id, item_id"),
        (HEADER + "1\t2\t0\tyes\t3\n", "line 2: correct is 'yes'"),
        (HEADER + "1\t2\t0\t1\t3\n1\t2\n", "line 3: 2 columns"),
        (HEADER, "no answers"),
    ],
)
def test_malformed_logs_are_refused_with_the_line(text, message):
    with pytest.raises(evaluation.LogError, match=message):
        evaluation.parse_log(text.splitlines(keepends=True))
