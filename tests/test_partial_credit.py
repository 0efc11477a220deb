"""Partial credit in the learner model, its fit, its evaluation and its simulation: a partly
right answer is a fractional outcome (its score), and the model stays calibrated on it."""

import json
import math
import random
from io import StringIO

import pytest
from django.core.management import call_command

from progress.engine import evaluation, fitting, learner_model, simulation
from progress.engine.learner_model import Answer, ItemState, ReadinessModel
from tests.readiness_store import hand_model


def moved(score: float, **changes) -> tuple[learner_model.LearnerState, float]:
    """A new learner after one answer of this score to question q; and the readiness on t."""
    model = hand_model(**changes)
    learner = model.new_learner()
    model.update(learner, "t", "q", score, learn_item=False)
    return learner, model.topic_readiness(learner, "t").probability


def test_a_half_right_answer_moves_readiness_half_way():
    # The filter's step is variance x (score - p) / s: at p = 0.5 a right answer adds
    # 1.0 x 0.5 / 1.375 = 4/11 to the overall ability, a wrong one takes 4/11 off, and a
    # half-right one leaves it where it was; the variance shrinks alike for all three.
    patterns = [0.0] * learner_model.N_PATTERNS
    right, right_readiness = moved(1.0, pattern_weights=patterns)
    wrong, wrong_readiness = moved(0.0, pattern_weights=patterns)
    half, half_readiness = moved(0.5, pattern_weights=patterns)
    assert right.overall.ability == pytest.approx(4 / 11)
    assert wrong.overall.ability == pytest.approx(-4 / 11)
    assert half.overall.ability == pytest.approx(0.0)
    assert half.topics["t"].ability == pytest.approx(
        (right.topics["t"].ability + wrong.topics["t"].ability) / 2
    )
    assert half.overall.variance == pytest.approx(right.overall.variance)
    # A quarter-right answer goes a quarter of the way from wrong to right.
    quarter, _ = moved(0.25, pattern_weights=patterns)
    assert quarter.overall.ability == pytest.approx(-4 / 11 + 0.25 * 8 / 11)
    # Readiness: half way between in the logit, so within a point of half way in percent.
    assert wrong_readiness < half_readiness < right_readiness
    midpoint = (right_readiness + wrong_readiness) / 2
    assert abs(half_readiness - midpoint) < 0.01


def test_a_partly_right_answer_counts_its_share_as_right_and_the_rest_as_wrong():
    state = learner_model.LearnerTopicState(0.0, 1.0)
    state.observe("q", 0.5)
    assert (state.wins, state.fails) == (0.5, 0.5)
    assert state.items == {"q": [0.5, 0.5]}
    assert state.last == 0b11  # at least half right: right in the pattern of last answers
    state.observe("q", 1 / 3)
    assert state.last == 0b110  # under half right: wrong there
    third = learner_model.share(1 / 3)
    assert abs(third - 1 / 3) < 1e-6
    assert state.items["q"] == [0.5 + third, 1.5 - third]
    state.observe("q", True)
    state.observe("q", False)
    assert state.items["q"] == [1.5 + third, 2.5 - third]
    # Whole counts stay ints, and a count of shares that adds up to whole reads back as one.
    whole = learner_model.LearnerTopicState(0.0, 1.0)
    for score in (0.5, 0.5, True):
        whole.observe("q", score)
    back = learner_model.LearnerTopicState.from_dict(json.loads(json.dumps(whole.to_dict())))
    assert back.wins == 2
    assert type(back.wins) is int
    assert back.fails == 1
    assert type(back.fails) is int
    again = learner_model.LearnerTopicState.from_dict(json.loads(json.dumps(state.to_dict())))
    assert again == state


def test_the_counts_do_not_depend_on_the_order_the_shares_are_added_in():
    # The site sums a learner's scores on a question in SQL (in any order); the rebuild adds
    # them one by one: both must give the same count to the last bit.
    rng = random.Random(4)
    for _ in range(200):
        scores = [
            learner_model.share(rng.choice((0, 1, 1 / 3, 2 / 3, 0.25, 0.5, 0.2, 1 / 7)))
            for _ in range(12)
        ]
        state = learner_model.LearnerTopicState(0.0, 1.0)
        for score in scores:
            state.observe("q", score)
        shuffled = scores[:]
        rng.shuffle(shuffled)
        right, wrong = state.items["q"]
        assert right == sum(shuffled) == math.fsum(shuffled)
        assert wrong == len(scores) - right


def partial_log(rng: random.Random, *, learners: int, answers: int) -> evaluation.Log:
    """Learners of varied ability on 5 topics of 8 questions; every third question has three
    parts and gives a third of a mark for each."""
    difficulty = {f"i{k}": rng.gauss(0, 1) for k in range(40)}
    log: evaluation.Log = {}
    for learner in range(learners):
        ability = rng.gauss(0, 1)
        sequence = []
        for _ in range(answers):
            number = rng.randrange(40)
            p = learner_model.sigmoid(ability - difficulty[f"i{number}"])
            if number % 3 == 0:
                score: float = sum(rng.random() < p for _ in range(3)) / 3
            else:
                score = rng.random() < p
            sequence.append(Answer(f"i{number}", f"s{number // 8}", score))
        log[f"u{learner}"] = sequence
    return log


def test_the_fast_training_replay_agrees_with_the_public_model_on_partial_scores():
    # As tests/test_readiness.py checks for right and wrong answers: the fitter's inlined
    # replay of a fractional outcome is the model's.
    rng = random.Random(3)
    log = partial_log(rng, learners=30, answers=25)
    items: dict[str, int] = {}
    topics: dict[str, int] = {}
    blocks = fitting._encode(list(log.values()), items, topics)
    assert any(0 < row[-1] < 1 for rows in blocks for row in rows)
    config = fitting.FitConfig()
    weights = fitting._Weights(len(items), len(topics), config, rng)
    weights.set_priors(blocks, config)
    filt = fitting._Filter(0.4, 0.2, 0.3, 0.01, 0.003)
    fitting._train(weights, blocks, config, filt, rng)
    logits, outcomes = fitting._filtered_logits(
        weights, fitting._base_logits(weights, blocks), filt
    )
    model = ReadinessModel(fitting._params(weights, items, topics, filt, 1.0, 0.0))
    replayed, scores = evaluation.replay(model, log)
    assert replayed == pytest.approx([learner_model.sigmoid(z) for z in logits], abs=1e-12)
    assert scores == outcomes


def test_the_fit_minimises_the_log_loss_of_a_fractional_target():
    # The fitter's log-loss is the evaluation's, for right, wrong and partly right answers,
    # and the same as before for right and wrong ones.
    logits = [0.3, -1.2, 2.0, 0.0, -0.4]
    outcomes = [1.0, 0.0, 0.5, 1 / 3, 0.75]
    probabilities = [learner_model.sigmoid(z) for z in logits]
    assert fitting._logloss(logits, outcomes) == pytest.approx(
        evaluation.logloss(probabilities, outcomes), abs=1e-12
    )
    by_hand = -(0.5 * math.log(probabilities[2]) + 0.5 * math.log(1 - probabilities[2]))
    assert fitting._logloss([2.0], [0.5]) == pytest.approx(by_hand)
    # A fractional target's loss is least at p = y: the Platt scaling fits it.
    _slope, intercept = fitting._platt([-1.0, 1.0, -1.0, 1.0], [0.25] * 4)
    assert learner_model.sigmoid(intercept) == pytest.approx(0.25, abs=1e-6)


def test_auc_counts_a_partly_right_answer_as_that_share_of_a_right_one():
    # Two answers predicted 0.9 and 0.1, scored 1 and 0.5: the pair counts y_i (1 - y_j):
    # (0.9, 1) over (0.1, 0.5) weighs 1 x 0.5 and is ordered right; (0.1, 0.5) over (0.9, 1)
    # weighs 0.5 x 0 = 0. So the AUC is 1.
    assert evaluation.auc([0.9, 0.1], [1.0, 0.5]) == pytest.approx(1.0)
    assert evaluation.auc([0.1, 0.9], [1.0, 0.5]) == pytest.approx(0.0)
    # Three answers 0.2, 0.5, 0.8 scored 0, 0.5, 1: pairs (i, j) weighted y_i (1 - y_j):
    # (0.5 over 0.2) 0.5 x 1 ordered, (0.8 over 0.2) 1 x 1, (0.8 over 0.5) 1 x 0.5, and the
    # reversed pairs (0.2 over .) weigh 0, (0.5 over 0.8) 0.5 x 0 = 0: AUC 1.
    assert evaluation.auc([0.2, 0.5, 0.8], [0.0, 0.5, 1.0]) == pytest.approx(1.0)
    # Reversed, 0.
    assert evaluation.auc([0.8, 0.5, 0.2], [0.0, 0.5, 1.0]) == pytest.approx(0.0)
    # Ties count half.
    assert evaluation.auc([0.5, 0.5], [1.0, 0.5]) == pytest.approx(0.5)
    # With 0 and 1 only it is the usual AUC, and a weighted pair by brute force agrees.
    rng = random.Random(2)
    predictions = [rng.random() for _ in range(40)]
    outcomes = [rng.choice((0.0, 0.25, 0.5, 1.0)) for _ in range(40)]
    numerator = denominator = 0.0
    for i, (p, y) in enumerate(zip(predictions, outcomes, strict=True)):
        for j, (q, z) in enumerate(zip(predictions, outcomes, strict=True)):
            if i != j:
                weight = y * (1 - z)
                numerator += weight * (1.0 if p > q else 0.5 if p == q else 0.0)
                denominator += weight
    assert evaluation.auc(predictions, outcomes) == pytest.approx(numerator / denominator)


def test_a_log_may_give_a_partly_right_answer_its_score():
    header = "user_id\titem_id\ttimestamp\tcorrect\tskill_id\n"
    log = evaluation.parse_log([header, "u\ti\t0\t0.5\ts\n", "u\tj\t1\t1\ts\n"])
    assert [answer.score for answer in log["u"]] == [0.5, True]
    with pytest.raises(evaluation.LogError, match=r"line 2: correct is '1\.5'"):
        evaluation.parse_log([header, "u\ti\t0\t1.5\ts\n"])


def test_the_evaluation_scores_the_partial_credit_questions_apart():
    log = partial_log(random.Random(5), learners=60, answers=40)
    train, test = evaluation.split_learners(log, 0.75, seed=0)
    result = evaluation.evaluate(train, test)
    partial, other = result.partial_scores, result.other_scores
    assert partial is not None
    assert other is not None
    assert partial.n + other.n == result.scores.n
    assert partial.auc > 0.65
    assert other.auc > 0.65
    line = result.as_dict()
    assert line["partial"]["n"] == partial.n
    assert line["other"]["n"] == other.n
    assert any(text.startswith("partial:") for text in result.table("train", "test"))
    # Without partial credit the JSON line has no sides.
    binary = {u: [a._replace(score=a.score >= 0.5) for a in s] for u, s in log.items()}
    train, test = evaluation.split_learners(binary, 0.75, seed=0)
    assert set(evaluation.evaluate(train, test).as_dict()) == {
        "n",
        "auc",
        "rmse",
        "logloss",
        "ece",
        "fresh",
    }


def test_simulated_learners_stay_calibrated_on_partial_credit_questions():
    # 300 test learners (a small run: the noise floor of an answer's ECE is about 0.005 with
    # some 30,000 answers; the default run's figures are in docs/readiness.md).
    population = simulation.Population(partial_share=0.4)
    result = simulation.simulate(300, seed=2, train_learners=200, population=population)
    assert result.answers is not None
    assert result.partial_answers is not None
    assert result.other_answers is not None
    assert result.answers.ece <= 0.015
    assert result.partial_answers.ece <= 0.02
    assert result.partial_answers.auc > 0.7
    assert abs(result.mean_pass_probability - result.pass_rate) <= 0.05
    # Deterministic for a seed; the exam's other questions do not depend on the share.
    again = simulation.simulate(300, seed=2, train_learners=200, population=population)
    assert again.as_dict() == result.as_dict()


def test_the_simulated_partial_credit_questions_score_their_parts():
    shape = simulation.ExamShape(items_per_topic=10, weights=(50, 50), questions=10)
    population = simulation.Population(partial_share=0.5)
    exam = simulation._make_exam(shape, population, random.Random(1), random.Random(2))
    assert len(exam.parts) == 10  # half of each topic's 10
    assert all(2 <= len(parts) <= 4 for parts in exam.parts.values())
    without = simulation._make_exam(
        shape, simulation.Population(), random.Random(1), random.Random(2)
    )
    assert without.difficulty == exam.difficulty
    assert not without.parts
    learner = simulation._Learner(ability=0.0, offsets=[0.0, 0.0])
    item = next(iter(exam.parts))
    topic = 0 if item.startswith("topic-1/") else 1
    rng = random.Random(0)
    scores = [simulation._answer(exam, learner, topic, item, rng) for _ in range(4000)]
    parts = len(exam.parts[item])
    assert {round(score * parts) for score in scores} <= set(range(parts + 1))
    assert sum(scores) / len(scores) == pytest.approx(
        simulation._expected_score(exam, learner, topic, item), abs=0.02
    )


def test_the_population_is_checked():
    with pytest.raises(ValueError, match="partial-credit questions is 0 to 1"):
        simulation.simulate(50, population=simulation.Population(partial_share=1.5))
    with pytest.raises(ValueError, match="at least 2 parts"):
        simulation.simulate(50, population=simulation.Population(partial_share=0.2, parts=(1, 3)))


def test_the_command_reports_the_answers_with_and_without_partial_credit():
    out = StringIO()
    call_command(
        "simulate_readiness",
        *("--learners", "50", "--train-learners", "60", "--seed", "3", "--questions", "65"),
        *("--partial-share", "0.3"),
        stdout=out,
    )
    lines = out.getvalue().strip().splitlines()
    summary = json.loads(lines[-1])
    assert summary["partial_share"] == 0.3
    for name in ("answer", "partial_answer", "other_answer"):
        assert 0 <= summary[f"{name}_ece"] <= 1
        assert 0.5 < summary[f"{name}_auc"] <= 1
    assert any(line.startswith("partial credit") for line in lines)


def test_an_item_state_with_a_partial_answer_moves_by_its_share():
    # The question's Elo step: difficulty -= v (score - p) / (1 + v p (1 - p)).
    steps = ((1.0, -0.5 - 0.5 * 0.5 / 1.125), (0.5, -0.5), (0.0, -0.5 + 0.25 / 1.125))
    for score, expected in steps:
        item = ItemState(difficulty=-0.5, variance=0.5)
        learner_model.learn_item(item, -0.5, score)  # the learner's logit meets p = 0.5
        assert item.difficulty == pytest.approx(expected)
