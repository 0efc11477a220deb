"""Is the pass likelihood calibrated? A simulated exam, learners whose true abilities are
known, the learner model fitted on some of them, and a mock exam sat by the others after they
practised. Plain Python, no Django (`manage.py simulate_readiness` is a thin wrapper).

The true model (a Rasch model with a topic level):

    P(correct) = sigmoid(ability + topic offset - topic difficulty - question difficulty)

- question difficulty ~ N(0, 1), topic difficulty ~ N(0, 0.5^2), drawn once per exam;
- a learner's overall ability is their stage of preparation, spread evenly from a beginner to
  someone ready: ability ~ Uniform(-1, 3). On this exam's questions that is an expected
  score from about 31% (a beginner, a little above guessing among four options) through 50%
  (ability 0) and 70% (ability 1, the pass mark) to about 91% (ability 3). Each learner has
  stronger and weaker topics: topic offsets ~ N(0, 0.5^2), independent.
- Nobody learns during the simulation (the abilities stay put), and the model is not told
  any of this: it is fitted on the training learners' answers alone.
- With `Population.partial_share` above 0, that share of each topic's questions gives
  partial credit: such a question has 2 to 4 parts (`parts`), each part its own difficulty
  around the question's (spread `part_sd`), each part right with the Rasch probability of its
  difficulty, independently given the abilities; the answer's score is the share of its parts
  right, and a mock exam counts it so (a half-right answer is half a mark). The learner model
  knows none of this either: it predicts an expected score from the same one-logit form, so
  the run measures whether it stays calibrated on questions it was not built for.

The population was chosen from these descriptions before any run and has not been changed
after looking at the scores. How sharp a pass likelihood can be depends on how many learners
sit near the pass mark, so the result also reports the Brier score of an oracle that knows
each learner's true abilities and every question's difficulty (the floor for this population:
what is left is the luck of the draw in the mock exam itself).

Steps, for a seed:

1. A training population (`train_learners`, each answering 60 to 200 practice questions of
   random topics, each question drawn at random from its topic) is fitted with
   `fitting.fit`.
2. Each test learner practises a random number of answers (30 to 200; every topic gets at
   least MIN_TOPIC_ANSWERS of them, the rest go to random topics, in random order), which
   update a fresh learner state with `learn_item=False`: a test learner's answers do not
   move the questions, so the test learners are independent of each other and the order in
   which they are simulated does not matter (the site learns the questions too; here that
   would only let the earlier test learners sharpen the later ones' questions). Then
   `forecast_exam` forecasts a mock exam; the questions a topic gives to it are split by
   largest remainder of the blueprint weights.
3. The learner sits one mock exam drawn from the true model: each topic's questions drawn at
   random without replacement, those the learner has not practised first.

Metrics: the Brier score and the ECE (10 equal-width bins, `evaluation.ece`) of the pass
likelihood against passed; coverage, the share of learners whose mock score lies within the
forecast's 80% range (inclusive); the mean pass likelihood against the pass rate. And of the
model's prediction of each test learner's practice answers (made just before the answer, from
the earlier ones): the ECE and AUC (`evaluation.auc`: a partly right answer counts as that
share of a right one), over every answer and apart for the questions with partial credit and
the others.

Measured (2,000 test and 400 training learners, seed 0): on a 90-question mock exam, Brier
0.048 (oracle 0.037), ECE 0.015, coverage 0.790, mean pass likelihood 0.403 against a pass
rate of 0.404; on a 65-question one, Brier 0.062 (oracle 0.046), ECE 0.014, coverage 0.795.
On the 65-question exam the Brier score cannot reach 0.05 whatever the forecast: a Bayes
forecast computed from the same practice answers with the true difficulties and the true
population (a check run outside this module) scored 0.062, as the model now does. What is
left is how little 30 to 200 answers say about a learner near the pass mark, and the luck of
a shorter exam's draw.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal

from progress.engine import evaluation, fitting
from progress.engine.forecast import (
    MIN_TOPIC_ANSWERS,
    ExamForecast,
    TopicPlan,
    forecast_exam,
    largest_remainder,
)
from progress.engine.learner_model import (
    Answer,
    ItemState,
    LearnerState,
    LearnerTopicState,
    ModelParams,
    ReadinessModel,
    TopicParams,
    sigmoid,
)

# Below this many test learners the metrics say little (a bin of the ECE holds a handful).
MIN_LEARNERS = 50
MIN_TRAIN_LEARNERS = 50


@dataclass(frozen=True)
class ExamShape:
    """The exam: blueprint weights of its topics (percent of the questions), published
    questions per topic, questions in a mock exam, and the pass mark (percent)."""

    weights: tuple[int, ...] = (10, 15, 15, 20, 20, 20)
    items_per_topic: int = 80
    # The length of a Security+ or CCNA exam; 65 is an AWS associate exam (docs/readiness.md
    # has the figures of both).
    questions: int = 90
    pass_percent: float = 70.0

    def check(self) -> None:
        """Raises ValueError on a shape that cannot be simulated."""
        if not self.weights or any(w < 0 for w in self.weights) or sum(self.weights) <= 0:
            raise ValueError("the blueprint needs at least one topic and positive weights.")
        if self.questions < 1:
            raise ValueError(f"a mock exam needs at least one question, not {self.questions}.")
        if self.items_per_topic < 1:
            raise ValueError("each topic needs at least one published question.")
        if not 0.0 <= self.pass_percent <= 100.0:
            raise ValueError(f"the pass mark is a percent, not {self.pass_percent}.")
        if max(split_questions(self.weights, self.questions)) > self.items_per_topic:
            raise ValueError("a topic gives more questions to the mock than it has published.")


@dataclass(frozen=True)
class Population:
    """The true model's spreads (see the module docstring)."""

    ability_low: float = -1.0
    ability_high: float = 3.0
    topic_offset_sd: float = 0.5
    topic_difficulty_sd: float = 0.5
    item_difficulty_sd: float = 1.0
    # Practice answers of a training learner, and of a test learner (before the mock).
    train_answers: tuple[int, int] = (60, 200)
    test_answers: tuple[int, int] = (30, 200)
    # The share of each topic's questions that give partial credit, their parts (fewest,
    # most) and the spread of a part's difficulty around its question's (module docstring).
    partial_share: float = 0.0
    parts: tuple[int, int] = (2, 4)
    part_sd: float = 0.5

    def check(self) -> None:
        """Raises ValueError on a population that cannot be simulated."""
        if not 0.0 <= self.partial_share <= 1.0:
            raise ValueError(f"the share of partial-credit questions is 0 to 1, not "
                             f"{self.partial_share}.")  # fmt: skip
        if not 2 <= self.parts[0] <= self.parts[1]:
            raise ValueError("a question with partial credit needs at least 2 parts.")


@dataclass(frozen=True)
class LearnerOutcome:
    """One test learner: the forecast figures, and the mock exam they then sat."""

    pass_probability: float
    low_percent: float
    high_percent: float
    expected_percent: float
    score_percent: float
    passed: bool
    oracle_pass_probability: float


@dataclass
class SimulationResult:
    learners: int
    train_learners: int
    brier: float
    ece: float
    coverage: float
    pass_rate: float
    mean_pass_probability: float
    # The Brier score of a forecast from the true abilities and difficulties: the floor.
    oracle_brier: float
    mean_score_percent: float
    mean_expected_percent: float
    fit_seconds: float
    forecast_ms: float  # mean time of one forecast_exam call
    seconds: float
    fit_report: fitting.FitReport
    outcomes: list[LearnerOutcome] = field(default_factory=list, repr=False)
    # The model's predictions of the test learners' practice answers: every answer, and
    # apart those to the questions with partial credit and to the others (None: none).
    answers: evaluation.Scores | None = None
    partial_answers: evaluation.Scores | None = None
    other_answers: evaluation.Scores | None = None
    partial_share: float = 0.0

    def as_dict(self) -> dict[str, float | int | None]:
        data: dict[str, float | int | None] = {
            "learners": self.learners,
            "brier": round(self.brier, 6),
            "ece": round(self.ece, 6),
            "coverage": round(self.coverage, 6),
            "pass_rate": round(self.pass_rate, 6),
            "mean_pass_probability": round(self.mean_pass_probability, 6),
            "oracle_brier": round(self.oracle_brier, 6),
            "partial_share": self.partial_share,
        }
        for name, scores in (
            ("answer", self.answers),
            ("partial_answer", self.partial_answers),
            ("other_answer", self.other_answers),
        ):
            if scores is not None:
                figures = scores.as_dict()
                data[f"{name}_ece"] = figures["ece"]
                data[f"{name}_auc"] = figures["auc"]
        return data

    def table(self) -> list[str]:
        """A small human-readable summary (the JSON line is printed apart)."""
        rows = [
            ("learners", f"{self.learners:,} test, {self.train_learners:,} to fit on"),
            (
                "Brier",
                f"{self.brier:.4f}  (oracle with the true abilities {self.oracle_brier:.4f})",
            ),
            ("ECE", f"{self.ece:.4f}"),
            ("coverage", f"{self.coverage:.3f} of mock scores within the 80% range"),
            (
                "pass rate",
                f"{self.pass_rate:.3f} passed; mean pass likelihood "
                f"{self.mean_pass_probability:.3f}",
            ),
            (
                "score",
                f"mean mock score {self.mean_score_percent:.1f}%; mean expected "
                f"{self.mean_expected_percent:.1f}%",
            ),
            ("fit", self.fit_report.forecast_kept()),
            (
                "time",
                f"{self.seconds:.1f} s (fit {self.fit_seconds:.1f} s, "
                f"{self.forecast_ms:.1f} ms a forecast)",
            ),
        ]
        for label, scores in (
            ("answers", self.answers),
            ("partial credit", self.partial_answers),
            ("all or nothing", self.other_answers),
        ):
            if scores is not None:
                figures = f"ECE {scores.ece:.4f}, AUC {scores.auc:.4f} over {scores.n:,}"
                rows.append((label, f"{figures} practice answers predicted"))
        width = max(len(label) for label, _ in rows)
        return [f"{label:<{width}}  {text}" for label, text in rows]


def split_questions(weights: Sequence[int], questions: int) -> list[int]:
    """Questions per topic of a mock exam, as the site splits them (largest remainder)."""
    return largest_remainder(questions, [Decimal(w) for w in weights])


@dataclass(frozen=True)
class _Exam:
    topics: list[str]
    topic_difficulty: list[float]
    items: list[list[str]]  # per topic, its question ids
    difficulty: dict[str, float]  # question id -> its difficulty within the topic
    drawn: list[int]
    # A question with partial credit -> its parts' difficulties relative to its own.
    parts: dict[str, list[float]] = field(default_factory=dict)


@dataclass
class _Learner:
    ability: float
    offsets: list[float]


def _make_exam(
    shape: ExamShape, population: Population, rng: random.Random, parts_rng: random.Random
) -> _Exam:
    """The exam; its questions with partial credit and their parts come from `parts_rng`, so
    that the rest of the exam is the same whatever their share."""
    topics = [f"topic-{k + 1}" for k in range(len(shape.weights))]
    items = [[f"{t}/q{j + 1}" for j in range(shape.items_per_topic)] for t in topics]
    parts: dict[str, list[float]] = {}
    if population.partial_share > 0.0:
        fewest, most = population.parts
        for ids in items:
            count = round(population.partial_share * len(ids))
            for item in parts_rng.sample(ids, count):
                parts[item] = [
                    parts_rng.gauss(0.0, population.part_sd)
                    for _ in range(parts_rng.randint(fewest, most))
                ]
    return _Exam(
        topics=topics,
        topic_difficulty=[rng.gauss(0.0, population.topic_difficulty_sd) for _ in topics],
        items=items,
        difficulty={
            item: rng.gauss(0.0, population.item_difficulty_sd) for ids in items for item in ids
        },
        drawn=split_questions(shape.weights, shape.questions),
        parts=parts,
    )


def _make_learner(exam: _Exam, population: Population, rng: random.Random) -> _Learner:
    return _Learner(
        ability=rng.uniform(population.ability_low, population.ability_high),
        offsets=[rng.gauss(0.0, population.topic_offset_sd) for _ in exam.topics],
    )


def _logit(exam: _Exam, learner: _Learner, topic: int, item: str) -> float:
    return (
        learner.ability
        + learner.offsets[topic]
        - exam.topic_difficulty[topic]
        - exam.difficulty[item]
    )


def _answer(exam: _Exam, learner: _Learner, topic: int, item: str, rng: random.Random) -> float:
    """The answer's score under the true model: right or wrong, or for a question with
    partial credit the share of its parts right."""
    logit = _logit(exam, learner, topic, item)
    parts = exam.parts.get(item)
    if parts is None:
        return rng.random() < sigmoid(logit)
    return sum(rng.random() < sigmoid(logit - part) for part in parts) / len(parts)


def _expected_score(exam: _Exam, learner: _Learner, topic: int, item: str) -> float:
    logit = _logit(exam, learner, topic, item)
    parts = exam.parts.get(item)
    if parts is None:
        return sigmoid(logit)
    return sum(sigmoid(logit - part) for part in parts) / len(parts)


def _practice(
    exam: _Exam, learner: _Learner, topics: Sequence[int], rng: random.Random
) -> list[tuple[int, str, float]]:
    """Answers to random questions of the given topics, in that order."""
    out = []
    for topic in topics:
        item = rng.choice(exam.items[topic])
        out.append((topic, item, _answer(exam, learner, topic, item, rng)))
    return out


def _training_sequences(
    exam: _Exam, population: Population, learners: int, rng: random.Random
) -> list[list[Answer]]:
    low, high = population.train_answers
    n_topics = len(exam.topics)
    sequences = []
    for _ in range(learners):
        learner = _make_learner(exam, population, rng)
        topics = [rng.randrange(n_topics) for _ in range(rng.randint(low, high))]
        sequences.append(
            [
                Answer(item, exam.topics[topic], score)
                for topic, item, score in _practice(exam, learner, topics, rng)
            ]
        )
    return sequences


def _oracle(exam: _Exam) -> ReadinessModel:
    """The true model as a ReadinessModel: no history weights, the true difficulties with no
    uncertainty, no Platt scaling. With a learner state holding the true abilities (variance
    0), forecast_exam gives the pass likelihood an oracle would."""
    params = ModelParams(
        topics={
            t: TopicParams(difficulty=d)
            for t, d in zip(exam.topics, exam.topic_difficulty, strict=True)
        },
        items={item: ItemState(difficulty=d, variance=0.0) for item, d in exam.difficulty.items()},
        ability_variance=0.0,
        topic_variance=0.0,
        profile_variance=0.0,
        item_variance=0.0,
    )
    return ReadinessModel(params)


def _oracle_state(exam: _Exam, learner: _Learner) -> LearnerState:
    overall = LearnerTopicState(ability=learner.ability, variance=0.0)
    topics = {
        t: LearnerTopicState(ability=offset, variance=0.0, wins=MIN_TOPIC_ANSWERS)
        for t, offset in zip(exam.topics, learner.offsets, strict=True)
    }
    return LearnerState(overall=overall, profile=[], profile_variance=[], topics=topics)


def _oracle_plans(exam: _Exam, oracle: ReadinessModel, learner: _Learner) -> list[TopicPlan]:
    """The oracle's plans for this learner: a question with partial credit as one question
    whose probability is the learner's expected score on it (the forecast counts it as a
    question right with that probability, a little more spread than the score of its parts)."""
    plans = []
    for topic, (t, drawn, items) in enumerate(
        zip(exam.topics, exam.drawn, exam.items, strict=True)
    ):
        states: list[tuple[str, ItemState | None]] = []
        for item in items:
            state = oracle.params.items[item]
            if item in exam.parts:
                expected = min(max(_expected_score(exam, learner, topic, item), 1e-12), 1 - 1e-12)
                logit = _logit(exam, learner, topic, item) + exam.difficulty[item]
                state = ItemState(difficulty=logit - math.log(expected / (1 - expected)),
                                  variance=0.0)  # fmt: skip
            states.append((item, state))
        plans.append(TopicPlan(t, drawn, states))
    return plans


def _mock(
    exam: _Exam, learner: _Learner, practised: set[str], rng: random.Random
) -> tuple[float, int]:
    """Marks (a partly right answer its share) and questions in one mock exam sat under the
    true model."""
    right = 0.0
    for topic, drawn in enumerate(exam.drawn):
        fresh = [item for item in exam.items[topic] if item not in practised]
        seen = [item for item in exam.items[topic] if item in practised]
        rng.shuffle(fresh)
        rng.shuffle(seen)
        for item in (fresh + seen)[:drawn]:
            right += _answer(exam, learner, topic, item, rng)
    return right, sum(exam.drawn)


def simulate(
    learners: int = 2000,
    *,
    seed: int = 0,
    train_learners: int = 400,
    shape: ExamShape | None = None,
    population: Population | None = None,
) -> SimulationResult:
    """Fit on a simulated training population, forecast a mock exam for `learners` test
    learners after their practice, and score the forecasts against one mock exam each, sat
    under the true model (see the module docstring). Deterministic for a seed; the exam and
    the training population do not depend on the number of test learners.

    Costs one `fitting.fit` (a few seconds for 400 learners), then per test learner its
    practice updates and one forecast (a few milliseconds). Raises ValueError on fewer than
    MIN_LEARNERS test or MIN_TRAIN_LEARNERS training learners, or a shape that cannot be
    simulated."""
    started = time.perf_counter()
    shape = shape or ExamShape()
    population = population or Population()
    shape.check()
    population.check()
    if learners < MIN_LEARNERS:
        raise ValueError(f"at least {MIN_LEARNERS} test learners are needed, not {learners}.")
    if train_learners < MIN_TRAIN_LEARNERS:
        raise ValueError(
            f"at least {MIN_TRAIN_LEARNERS} training learners are needed, not {train_learners}."
        )
    # Separate streams, so that e.g. more test learners leave the exam and the fit unchanged.
    exam = _make_exam(
        shape,
        population,
        random.Random(f"{seed}/exam"),  # noqa: S311
        random.Random(f"{seed}/parts"),  # noqa: S311
    )
    sequences = _training_sequences(
        exam,
        population,
        train_learners,
        random.Random(f"{seed}/train"),  # noqa: S311
    )
    model, report = fitting.fit(sequences, seed=seed)
    fit_seconds = time.perf_counter() - started

    oracle = _oracle(exam)
    oracle_plans = [
        TopicPlan(t, drawn, [(item, oracle.params.items[item]) for item in items])
        for t, drawn, items in zip(exam.topics, exam.drawn, exam.items, strict=True)
    ]
    rng = random.Random(f"{seed}/test")  # noqa: S311 - a reproducible simulation
    n_topics = len(exam.topics)
    low, high = population.test_answers
    low = max(low, MIN_TOPIC_ANSWERS * n_topics)
    high = max(high, low)
    # With learn_item=False the questions' states never change: one set of plans serves all.
    plans = [
        TopicPlan(t, drawn, [(item, model.params.items.get(item)) for item in items])
        for t, drawn, items in zip(exam.topics, exam.drawn, exam.items, strict=True)
    ]
    outcomes: list[LearnerOutcome] = []
    forecast_seconds = 0.0
    predicted_answers: list[float] = []
    answer_scores: list[float] = []
    answer_partial: list[bool] = []
    for _ in range(learners):
        learner = _make_learner(exam, population, rng)
        topics = [t for t in range(n_topics) for _ in range(MIN_TOPIC_ANSWERS)]
        topics += [rng.randrange(n_topics) for _ in range(rng.randint(low, high) - len(topics))]
        rng.shuffle(topics)
        state = model.new_learner()
        practised: set[str] = set()
        for t, item, score in _practice(exam, learner, topics, rng):
            predicted_answers.append(
                model.update(state, exam.topics[t], item, score, learn_item=False)
            )
            answer_scores.append(score)
            answer_partial.append(item in exam.parts)
            practised.add(item)
        before = time.perf_counter()
        forecast: ExamForecast = forecast_exam(model, state, plans, shape.pass_percent)
        forecast_seconds += time.perf_counter() - before
        right, questions = _mock(exam, learner, practised, rng)
        truth = forecast_exam(
            oracle,
            _oracle_state(exam, learner),
            _oracle_plans(exam, oracle, learner) if exam.parts else oracle_plans,
            shape.pass_percent,
        )
        # With whole marks, the same as at least ceil(pass mark x questions) right.
        need = shape.pass_percent / 100.0 * questions - 1e-9
        outcomes.append(
            LearnerOutcome(
                pass_probability=forecast.pass_probability,
                low_percent=forecast.low_percent,
                high_percent=forecast.high_percent,
                expected_percent=forecast.expected_percent,
                score_percent=100.0 * right / questions,
                passed=right >= need,
                oracle_pass_probability=truth.pass_probability,
            )
        )

    predicted = [o.pass_probability for o in outcomes]
    passed = [o.passed for o in outcomes]
    n = len(outcomes)
    # A score on the edge of the range counts as inside; 1e-9 absorbs rounding in the percents.
    covered = sum(
        1 for o in outcomes if o.low_percent - 1e-9 <= o.score_percent <= o.high_percent + 1e-9
    )
    return SimulationResult(
        learners=n,
        train_learners=train_learners,
        brier=_brier(predicted, passed),
        ece=evaluation.ece(predicted, passed),
        coverage=covered / n,
        pass_rate=sum(passed) / n,
        mean_pass_probability=sum(predicted) / n,
        oracle_brier=_brier([o.oracle_pass_probability for o in outcomes], passed),
        mean_score_percent=sum(o.score_percent for o in outcomes) / n,
        mean_expected_percent=sum(o.expected_percent for o in outcomes) / n,
        fit_seconds=fit_seconds,
        forecast_ms=1000.0 * forecast_seconds / n,
        seconds=time.perf_counter() - started,
        fit_report=report,
        outcomes=outcomes,
        partial_share=population.partial_share,
        **_answer_scores(predicted_answers, answer_scores, answer_partial),
    )


def _answer_scores(
    predictions: Sequence[float], scores: Sequence[float], partial: Sequence[bool]
) -> dict[str, evaluation.Scores | None]:
    """The scores of the model's predictions of the practice answers: every one, and apart
    those to questions with partial credit and the others, when there are both."""
    if not predictions:
        return {}
    result: dict[str, evaluation.Scores | None] = {"answers": evaluation.score(predictions, scores)}
    if any(partial) and not all(partial):
        for name, side in (("partial_answers", True), ("other_answers", False)):
            picked = [k for k, flag in enumerate(partial) if flag is side]
            result[name] = evaluation.score(
                [predictions[k] for k in picked], [scores[k] for k in picked]
            )
    return result


def _brier(predictions: Sequence[float], outcomes: Sequence[bool]) -> float:
    return sum((p - y) ** 2 for p, y in zip(predictions, outcomes, strict=True)) / len(outcomes)
