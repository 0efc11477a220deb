"""Does following the study plan pay, and is its exam-day projection honest? Simulated learners
with known abilities who learn as they practise. Plain Python, no Django
(`manage.py simulate_readiness --plan` is a thin wrapper).

The true model is the one of `simulation` (a Rasch model with a topic level, the same exam
shape and difficulties) with learning added: a learner's logit on a topic rises with their
practice on it as the fitted `LearningGain` says, k * (win * log(1 + w) + fail * log(1 + f))
for w right and f wrong answers on the topic so far, k being how fast this learner learns
(drawn once per learner, normal with mean 1 and the gain's fitted spread, floored at 0). The
learners learn with the gain fitted on real logs, not with one chosen to flatter the plan.

Steps, for a seed:

1. Training learners (`train_learners`, 60 to 200 answers on random topics, learning as they
   go) are fitted with `learner_model.fit`, as the site's model is fitted on its learners.
2. Each test learner has a history before day 0 (`history` answers on random topics, each
   topic at least MIN_TOPIC_ANSWERS times), learning as they go, which updates their model
   state. Then the learner is copied into two twins with the same abilities, history and
   random streams:
   - the plan twin, each day, recomputes the plan from its model state (as the site does on
     each visit) and answers what its first day says, the model state updated by each answer;
   - the even twin answers the same number of questions a day, topic after topic in turn.
   Both take unanswered questions first, and the k-th answer of both is decided by the same
   uniform draw, so the twins differ only by what they practise.
3. On the exam date both sit one mock exam under the true model: per topic the same order of
   questions (those not practised first) and the same uniform draw per question slot.

The day-0 projection of the plan (`pass_on_exam_day` and its 80% range) is scored against the
plan twin's exam: Brier, ECE (10 bins, `evaluation.ece`) and the share of scores in the range.
The gain of the plan is the mean of the paired differences of passing (plan minus even), with
a 95% normal interval from their standard deviation.

Defaults, chosen before looking at the results: a 90-question mock (Security+, CCNA), 20
questions a day for 30 days, 200 published questions a topic (a real bank's size; at 600
answers in 30 days a topic's questions are not used up), a history of 100 to 300 answers
(a learner who sets a date has practised for a while; fewer answers tell the model too
little for a sharp day-0 projection), and the population of `simulation` shifted down by
half a logit, ability ~ Uniform(-1.5, 2.5): the learners have a month of learning ahead, and
without the shift most would pass whatever they did.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from dataclasses import dataclass, field

from progress.engine import evaluation, learner_model
from progress.engine.forecast import MIN_TOPIC_ANSWERS
from progress.engine.learner_model import Answer, LearnerState, ReadinessModel, sigmoid
from progress.engine.learning_gain import FITTED_GAIN, LearningGain
from progress.engine.plan import PlanTopic, plan_study
from progress.engine.simulation import split_questions

MIN_LEARNERS = 20
MIN_TRAIN_LEARNERS = 50


@dataclass(frozen=True)
class PlanSimulationConfig:
    learners: int = 600
    train_learners: int = 300
    days: int = 30
    per_day: int = 20
    questions: int = 90
    pass_percent: float = 70.0
    weights: tuple[int, ...] = (10, 15, 15, 20, 20, 20)
    items_per_topic: int = 200
    ability_low: float = -1.5
    ability_high: float = 2.5
    topic_offset_sd: float = 0.5
    topic_difficulty_sd: float = 0.5
    item_difficulty_sd: float = 1.0
    history: tuple[int, int] = (100, 300)
    train_answers: tuple[int, int] = (60, 200)

    def check(self) -> None:
        """Raises ValueError on settings that cannot be simulated, saying which."""
        if self.learners < MIN_LEARNERS:
            raise ValueError(f"at least {MIN_LEARNERS} learners are needed, not {self.learners}.")
        if self.train_learners < MIN_TRAIN_LEARNERS:
            raise ValueError(
                f"at least {MIN_TRAIN_LEARNERS} training learners are needed, "
                f"not {self.train_learners}."
            )
        if self.days < 1:
            raise ValueError(f"the exam must be at least one day away, not {self.days}.")
        if self.per_day < 1:
            raise ValueError(f"at least one question a day, not {self.per_day}.")
        if self.questions < 1:
            raise ValueError(f"a mock exam needs at least one question, not {self.questions}.")
        if not 0.0 <= self.pass_percent <= 100.0:
            raise ValueError(f"the pass mark is a percent, not {self.pass_percent}.")
        if max(split_questions(self.weights, self.questions)) > self.items_per_topic:
            raise ValueError("a topic gives more questions to the mock than it has published.")


@dataclass(frozen=True)
class TwinOutcome:
    """One learner: the day-0 plan's figures, and both twins' mock exams (percent)."""

    pass_now: float
    projected: float
    low_percent: float
    high_percent: float
    expected_percent: float
    plan_score: float
    plan_passed: bool
    even_score: float
    even_passed: bool


@dataclass
class PlanSimulationResult:
    config: PlanSimulationConfig
    gain: LearningGain
    plan_pass_rate: float
    even_pass_rate: float
    plan_gain_ci95: tuple[float, float]
    projection_brier: float
    projection_ece: float
    range_coverage: float
    mean_projection: float
    mean_pass_now: float
    plan_mean_score: float
    even_mean_score: float
    mean_expected_percent: float
    plan_ms: float
    seconds: float
    outcomes: list[TwinOutcome] = field(default_factory=list, repr=False)

    def as_dict(self) -> dict[str, object]:
        return {
            "learners": self.config.learners,
            "days": self.config.days,
            "per_day": self.config.per_day,
            "questions": self.config.questions,
            "plan_pass_rate": round(self.plan_pass_rate, 6),
            "even_pass_rate": round(self.even_pass_rate, 6),
            "plan_gain_ci95": [round(v, 6) for v in self.plan_gain_ci95],
            "projection_brier": round(self.projection_brier, 6),
            "projection_ece": round(self.projection_ece, 6),
            "range_coverage": round(self.range_coverage, 6),
            "mean_projection": round(self.mean_projection, 6),
            "mean_pass_now": round(self.mean_pass_now, 6),
            "gain": {
                "win": round(self.gain.win, 6),
                "fail": round(self.gain.fail, 6),
                "spread": round(self.gain.spread, 6),
            },
        }

    def table(self) -> list[str]:
        c = self.config
        low, high = self.plan_gain_ci95
        rows = [
            (
                "learners",
                f"{c.learners:,} pairs, {c.train_learners:,} to fit on; {c.days} days of "
                f"{c.per_day} questions, {c.questions}-question mock, pass {c.pass_percent:g}%",
            ),
            (
                "gain",
                f"win {self.gain.win:.4f}, fail {self.gain.fail:.4f}, "
                f"spread {self.gain.spread:.4f}",
            ),
            (
                "pass rate",
                f"plan {self.plan_pass_rate:.3f}, even {self.even_pass_rate:.3f}; difference "
                f"{self.plan_pass_rate - self.even_pass_rate:+.3f} (95% CI {low:+.3f} to "
                f"{high:+.3f})",
            ),
            (
                "mock score",
                f"plan {self.plan_mean_score:.1f}%, even {self.even_mean_score:.1f}%; "
                f"projected on day 0 {self.mean_expected_percent:.1f}%",
            ),
            (
                "projection",
                f"Brier {self.projection_brier:.4f}, ECE {self.projection_ece:.4f}; mean "
                f"{self.mean_projection:.3f} against {self.plan_pass_rate:.3f} passed "
                f"(pass likelihood on day 0 {self.mean_pass_now:.3f})",
            ),
            ("range", f"{self.range_coverage:.3f} of plan scores within the day-0 80% range"),
            ("time", f"{self.seconds:.1f} s ({self.plan_ms:.1f} ms a plan)"),
        ]
        width = max(len(label) for label, _ in rows)
        return [f"{label:<{width}}  {text}" for label, text in rows]


@dataclass(frozen=True)
class _Exam:
    topics: list[str]
    topic_difficulty: list[float]
    items: list[list[str]]
    difficulty: dict[str, float]
    drawn: list[int]


class _Learner:
    """A true learner: abilities, learning multiplier, and right/wrong answers per topic."""

    __slots__ = ("ability", "counts", "k", "offsets")

    def __init__(self, ability: float, offsets: list[float], k: float) -> None:
        self.ability = ability
        self.offsets = offsets
        self.k = k
        self.counts = [[0, 0] for _ in offsets]

    def copy(self) -> _Learner:
        twin = _Learner(self.ability, list(self.offsets), self.k)
        twin.counts = [list(c) for c in self.counts]
        return twin

    def probability(self, exam: _Exam, topic: int, item: str, gain: LearningGain) -> float:
        wins, fails = self.counts[topic]
        return sigmoid(
            self.ability
            + self.offsets[topic]
            + self.k * gain.shift(wins, fails)
            - exam.topic_difficulty[topic]
            - exam.difficulty[item]
        )

    def answer(self, exam: _Exam, topic: int, item: str, gain: LearningGain, u: float) -> bool:
        """Answer with the uniform draw u, then learn from it."""
        correct = u < self.probability(exam, topic, item, gain)
        self.counts[topic][0 if correct else 1] += 1
        return correct


def _make_exam(config: PlanSimulationConfig, rng: random.Random) -> _Exam:
    topics = [f"topic-{k + 1}" for k in range(len(config.weights))]
    items = [[f"{t}/q{j + 1}" for j in range(config.items_per_topic)] for t in topics]
    return _Exam(
        topics=topics,
        topic_difficulty=[rng.gauss(0.0, config.topic_difficulty_sd) for _ in topics],
        items=items,
        difficulty={
            item: rng.gauss(0.0, config.item_difficulty_sd) for ids in items for item in ids
        },
        drawn=split_questions(config.weights, config.questions),
    )


def _make_learner(
    exam: _Exam, config: PlanSimulationConfig, gain: LearningGain, rng: random.Random
) -> _Learner:
    return _Learner(
        ability=rng.uniform(config.ability_low, config.ability_high),
        offsets=[rng.gauss(0.0, config.topic_offset_sd) for _ in exam.topics],
        k=max(rng.gauss(1.0, gain.spread), 0.0),
    )


class _Twin:
    """A learner practising: the true learner, the model's state of them, the questions they
    have answered, and their stream of uniform draws and of question choices."""

    def __init__(self, learner: _Learner, state: LearnerState, seen: list[set[str]]) -> None:
        self.learner = learner
        self.state = state
        self.seen = seen

    def practise(
        self,
        exam: _Exam,
        model: ReadinessModel,
        gain: LearningGain,
        topic: int,
        draws: random.Random,
    ) -> None:
        # Two draws per answer whatever happens, so both twins' streams stay in step.
        pick, u = draws.random(), draws.random()
        items = exam.items[topic]
        seen = self.seen[topic]
        fresh = len(items) - len(seen)
        if fresh > 0:
            # The j-th unanswered question in bank order, j from the draw: random, and the
            # same for both twins while their answered sets agree.
            j = int(pick * fresh)
            item = next(i for i in items if i not in seen and (j := j - 1) < 0)
        else:
            item = items[int(pick * len(items))]
        correct = self.learner.answer(exam, topic, item, gain, u)
        model.update(self.state, exam.topics[topic], item, correct, learn_item=False)
        seen.add(item)


def _mock(exam: _Exam, twin: _Twin, gain: LearningGain, seed: str) -> int:
    """Right answers in a mock exam: per topic, its questions in a fixed random order, those
    not practised first, and one fixed uniform draw per slot (the same for both twins)."""
    rng = random.Random(seed)  # noqa: S311 - a reproducible simulation
    right = 0
    for topic, drawn in enumerate(exam.drawn):
        order = list(exam.items[topic])
        rng.shuffle(order)
        draws = [rng.random() for _ in range(drawn)]
        seen = twin.seen[topic]
        chosen = ([i for i in order if i not in seen] + [i for i in order if i in seen])[:drawn]
        for item, u in zip(chosen, draws, strict=True):
            right += u < twin.learner.probability(exam, topic, item, gain)
    return right


def _training(
    exam: _Exam, config: PlanSimulationConfig, gain: LearningGain, rng: random.Random
) -> list[list[Answer]]:
    low, high = config.train_answers
    sequences = []
    for _ in range(config.train_learners):
        learner = _make_learner(exam, config, gain, rng)
        answers: list[Answer] = []
        for _ in range(rng.randint(low, high)):
            topic = rng.randrange(len(exam.topics))
            item = rng.choice(exam.items[topic])
            correct = learner.answer(exam, topic, item, gain, rng.random())
            answers.append((item, exam.topics[topic], correct))
        sequences.append(answers)
    return sequences


def simulate_plan(
    config: PlanSimulationConfig | None = None,
    *,
    seed: int = 0,
    gain: LearningGain = FITTED_GAIN,
) -> PlanSimulationResult:
    """Run the simulation of the module docstring. Deterministic for a seed and a gain.
    Raises ValueError on settings that cannot be simulated."""
    started = time.perf_counter()
    config = config or PlanSimulationConfig()
    config.check()
    exam = _make_exam(config, random.Random(f"{seed}/exam"))  # noqa: S311
    sequences = _training(exam, config, gain, random.Random(f"{seed}/train"))  # noqa: S311
    model, _report = learner_model.fit(sequences, seed=seed)
    n_topics = len(exam.topics)
    topics_items = [
        [(item, model.params.items.get(item)) for item in items] for items in exam.items
    ]
    outcomes: list[TwinOutcome] = []
    plan_seconds = 0.0
    plans = 0
    need = math.ceil(config.pass_percent / 100.0 * config.questions - 1e-9)
    for n in range(config.learners):
        rng = random.Random(f"{seed}/learner/{n}")  # noqa: S311
        learner = _make_learner(exam, config, gain, rng)
        base = _Twin(learner, model.new_learner(), [set() for _ in exam.topics])
        low, high = config.history
        history = [t for t in range(n_topics) for _ in range(MIN_TOPIC_ANSWERS)]
        history += [rng.randrange(n_topics) for _ in range(rng.randint(low, high) - len(history))]
        rng.shuffle(history)
        for topic in history:
            base.practise(exam, model, gain, topic, rng)
        twins = []
        for _ in range(2):
            state = LearnerState.from_dict(base.state.to_dict())
            twins.append(_Twin(learner.copy(), state, [set(s) for s in base.seen]))
        plan_twin, even_twin = twins
        plan_draws = random.Random(f"{seed}/learner/{n}/practice")  # noqa: S311
        even_draws = random.Random(f"{seed}/learner/{n}/practice")  # noqa: S311
        first = None
        turn = 0
        for day in range(config.days):
            plan_topics = [
                PlanTopic(
                    exam.topics[t],
                    exam.drawn[t],
                    topics_items[t],
                    available=config.items_per_topic - len(plan_twin.seen[t]),
                )
                for t in range(n_topics)
            ]
            before = time.perf_counter()
            plan = plan_study(
                model,
                plan_twin.state,
                plan_topics,
                config.pass_percent,
                config.days - day,
                config.per_day,
                gain=gain,
            )
            plan_seconds += time.perf_counter() - before
            plans += 1
            if first is None:
                first = plan
            for t in range(n_topics):
                for _ in range(plan.days[0].practice.get(exam.topics[t], 0)):
                    plan_twin.practise(exam, model, gain, t, plan_draws)
            for _ in range(config.per_day):
                even_twin.practise(exam, model, gain, turn % n_topics, even_draws)
                turn += 1
        assert first is not None
        plan_right = _mock(exam, plan_twin, gain, f"{seed}/learner/{n}/mock")
        even_right = _mock(exam, even_twin, gain, f"{seed}/learner/{n}/mock")
        outcomes.append(
            TwinOutcome(
                pass_now=first.pass_now,
                projected=first.pass_on_exam_day,
                low_percent=first.low_percent,
                high_percent=first.high_percent,
                expected_percent=first.expected_percent,
                plan_score=100.0 * plan_right / config.questions,
                plan_passed=plan_right >= need,
                even_score=100.0 * even_right / config.questions,
                even_passed=even_right >= need,
            )
        )
    return _result(config, gain, outcomes, plan_seconds, plans, started)


def _result(
    config: PlanSimulationConfig,
    gain: LearningGain,
    outcomes: list[TwinOutcome],
    plan_seconds: float,
    plans: int,
    started: float,
) -> PlanSimulationResult:
    n = len(outcomes)
    differences = [float(o.plan_passed) - float(o.even_passed) for o in outcomes]
    mean_difference = sum(differences) / n
    half = 1.96 * statistics.pstdev(differences) / math.sqrt(n)
    projected = [o.projected for o in outcomes]
    passed = [o.plan_passed for o in outcomes]
    covered = sum(
        1 for o in outcomes if o.low_percent - 1e-9 <= o.plan_score <= o.high_percent + 1e-9
    )
    return PlanSimulationResult(
        config=config,
        gain=gain,
        plan_pass_rate=sum(passed) / n,
        even_pass_rate=sum(o.even_passed for o in outcomes) / n,
        plan_gain_ci95=(mean_difference - half, mean_difference + half),
        projection_brier=sum((p - y) ** 2 for p, y in zip(projected, passed, strict=True)) / n,
        projection_ece=evaluation.ece(projected, passed),
        range_coverage=covered / n,
        mean_projection=sum(projected) / n,
        mean_pass_now=sum(o.pass_now for o in outcomes) / n,
        plan_mean_score=sum(o.plan_score for o in outcomes) / n,
        even_mean_score=sum(o.even_score for o in outcomes) / n,
        mean_expected_percent=sum(o.expected_percent for o in outcomes) / n,
        plan_ms=1000.0 * plan_seconds / max(plans, 1),
        seconds=time.perf_counter() - started,
        outcomes=outcomes,
    )
