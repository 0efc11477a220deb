"""The trace of the learner's last answers in the readiness model (progress.engine.learner_model,
fitted by progress.engine.fitting): what an answer leaves for the questions after it."""

import dataclasses
import json
import random

import pytest

from progress.engine import evaluation, fitting, learner_model
from progress.engine.learner_model import (
    TRACE_DECAY,
    TRACE_SIZE,
    Answer,
    ItemState,
    LearnerState,
    ModelParams,
    ReadinessModel,
    TopicParams,
)


def traced_model() -> ReadinessModel:
    """Question p leaves a mark (+1 on the trace's first number when right, -1 when wrong);
    question q reads it with 0.5; question r leaves none. No filter, so only the trace moves."""
    zeros = [0.0] * TRACE_SIZE
    reads_first = [0.5, *zeros[1:]]
    mark = [1.0, *zeros[1:]]
    return ReadinessModel(
        ModelParams(
            topics={"t": TopicParams()},
            items={name: ItemState(variance=0.0) for name in ("p", "q", "r")},
            item_trace={
                "p": [*zeros, *mark, *(-v for v in mark)],
                "q": [*reads_first, *zeros, *zeros],
            },
            ability_variance=0.0,
            topic_variance=0.0,
        )
    )


def test_the_trace_by_hand():
    model = traced_model()
    right, wrong = model.new_learner(), model.new_learner()
    model.update(right, "t", "p", True, learn_item=False)
    model.update(wrong, "t", "p", False, learn_item=False)
    # q reads the mark p left: +0.5 after p right, -0.5 after p wrong.
    assert model.predict(right, "t", "q").logit == pytest.approx(0.5)
    assert model.predict(wrong, "t", "q").logit == pytest.approx(-0.5)
    # A partly right answer leaves its share of each mark: 0.25 right is -0.5 in all.
    partly = model.new_learner()
    model.update(partly, "t", "p", 0.25, learn_item=False)
    assert model.predict(partly, "t", "q").logit == pytest.approx(0.5 * (0.25 - 0.75))
    # Each answer after it halves the mark, even one to a question that leaves none.
    model.update(right, "t", "r", True, learn_item=False)
    assert model.predict(right, "t", "q").logit == pytest.approx(0.5 * TRACE_DECAY)
    # A prediction for no question in particular does not read the trace.
    assert model.topic_readiness(right, "t").logit == pytest.approx(0.0)


def test_states_and_parameters_saved_before_the_trace_still_load():
    model = traced_model()
    learner = model.new_learner()
    model.update(learner, "t", "p", True, learn_item=False)
    saved = learner.to_dict()
    assert len(saved["trace"]) == TRACE_SIZE
    del saved["trace"]  # a state stored before the trace
    old = LearnerState.from_dict(saved)
    assert old.trace == []  # zeros: q reads nothing until the next mark
    assert model.predict(old, "t", "q").logit == pytest.approx(0.0)
    model.update(old, "t", "p", False, learn_item=False)
    assert model.predict(old, "t", "q").logit == pytest.approx(-0.5)
    stored = json.loads(model.params.to_json())
    del stored["item_trace"]  # parameters fitted before the trace: no question reads one
    params = ModelParams.from_json(json.dumps(stored))
    assert params.item_trace == {}
    assert ReadinessModel(params).predict(learner, "t", "q").logit == pytest.approx(0.0)


def chained_log(rng: random.Random, learners: int) -> evaluation.Log:
    """Chains of three answers: a question of topic A, one of topic F, then the question of
    topic B that goes with the A one, which goes far better when that A question went right.
    Nothing in the topics' or the questions' context sees it (the answer just before is F's,
    and B's last answers are other chains'); the trace can."""
    log: evaluation.Log = {}
    for learner in range(learners):
        ability = rng.gauss(0.0, 1.0)
        answers = []
        for _ in range(20):
            chain = rng.randrange(8)
            first = rng.random() < learner_model.sigmoid(ability)
            answers.append(Answer(f"a{chain}", "A", first))
            answers.append(Answer(f"f{rng.randrange(8)}", "F", rng.random() < 0.6))
            lift = 2.5 if first else -2.5
            answers.append(Answer(f"b{chain}", "B", rng.random() < learner_model.sigmoid(lift)))
        log[f"u{learner}"] = answers
    return log


def test_the_trace_sharpens_predictions_where_an_answer_speaks_to_a_later_question():
    log = chained_log(random.Random(7), learners=150)
    train, test = evaluation.split_learners(log, 0.75, seed=0)
    config = fitting.FitConfig(tune_context_from=1_000, trace_from=1_000)
    traced = evaluation.evaluate(train, test, config=config)
    assert traced.fit_report.filter["trace_scale"] > 0.0
    # The same fit with the trace left off, as on a log under FitConfig.trace_from answers.
    plain = evaluation.evaluate(train, test, config=dataclasses.replace(config, trace_from=10**9))
    assert plain.fit_report.filter["trace_scale"] == 0.0
    assert plain.fit_report.context_chosen
    assert traced.scores.logloss < plain.scores.logloss - 0.02
    assert traced.scores.auc > plain.scores.auc + 0.01


def test_the_held_out_learners_switch_the_trace_off_where_answers_leave_none():
    # Rasch learners: an answer says nothing about the next question beyond the abilities,
    # so the trace could only fit noise; choosing on the held-out learners, the fit drops it
    # and the learners' states carry none.
    rng = random.Random(3)
    difficulty = {f"i{k}": rng.gauss(0, 1) for k in range(40)}
    sequences = []
    for _ in range(120):
        ability = rng.gauss(0, 1)
        items = [f"i{rng.randrange(40)}" for _ in range(60)]
        sequences.append(
            [
                Answer(
                    i,
                    f"s{int(i[1:]) // 8}",
                    rng.random() < learner_model.sigmoid(ability - difficulty[i]),
                )
                for i in items
            ]
        )
    # One fit: each fit of a merged model makes this choice on its own (tests/test_ensemble.py
    # checks that a fit without the trace adds none to the merge).
    config = fitting.FitConfig(tune_context_from=1_000, trace_from=1_000, fits=1)
    model, report = fitting.fit(sequences, config=config)
    assert report.context_chosen
    assert report.filter["trace_scale"] == 0.0
    assert model.params.item_trace == {}
    learner = model.new_learner()
    for item_id, topic_id, score in sequences[0]:
        model.update(learner, topic_id, item_id, score, learn_item=False)
    assert learner.trace == []
