"""The study plan: from today to the exam date, how many questions a day from which topics, and
the pass likelihood the learner can expect on the exam date if they follow it. Plain Python, no
Django: the readiness page recomputes it from the stored learner state on every view.

Method:

1. Today's forecast (`forecast.forecast_exam` on the current learner state) gives the pass
   likelihood now and, per topic, the expected percent correct q_t on its questions. Its
   logit m_t = logit(q_t) is where the topic starts on the calibrated logit scale.
2. Learning is projected with a `LearningGain` fitted on real learner logs (see
   `learning_gain`: Performance Factors Analysis with learner terms). An answer on topic t
   moves the topic's logit by `gain.win * (log(2 + w) - log(1 + w))` when right and by
   `gain.fail * (log(2 + f) - log(1 + f))` when wrong, w and f being the learner's right and
   wrong answers on the topic so far (from the learner state: the plan knows how much each
   topic has been practised, and the gain diminishes with it). The projection uses its
   expectation: right with probability p_t = sigmoid(m_t + shift_t), w and f growing by p_t
   and 1 - p_t (expected counts, fractional). This is mean-field, not a simulation: the
   plan is the same every time it is computed from the same state.
3. Each day, the spaced reviews due take the day's budget first (in topic order; those that
   do not fit stay due the next day), and count as answers on their topics. The rest of the
   budget goes one answer at a time to the topic where one more answer raises the projected
   pass likelihood most. To first order, a change in the expected exam score moves P(pass)
   by the normal density at the projected margin over the score's spread, and that factor
   is the same whichever topic the answer goes to; so the topic chosen is the one with the
   largest drawn_t x (sigmoid(m_t + shift_t + step_t) - sigmoid(m_t + shift_t)): the
   questions it gives to the exam times the rise of its percent correct (ties go to the
   earlier topic; past BATCH_FROM questions a day, a choice takes two or three answers at
   once). That weighs the blueprint (a topic giving many questions), weakness (the
   sigmoid is steepest near 50%) and what the learner has already practised (the log gain
   diminishes). Only the chosen topic's value changes after an answer, so a heap keeps the
   choice at O(log topics) an answer.
4. New practice on a topic is capped by the questions the learner has not answered yet in
   it (`available`). Past that, the plan may still choose the topic, but an answer is then a
   repeated question: it counts as an answer, and teaches REPEAT_WEIGHT of what a new one
   does (a learner who remembers a question learns less from it again; an assumption, the
   logs cannot tell). Reviews teach fully: spacing is their point.
5. The exam-day projection runs `forecast_exam` once with the projected learning
   (`forecast.TopicLearning`): each topic's shift is added to the learner's logit on every
   question inside the forecast's integral over the abilities, where the learner's true
   logit is (the latent x of forecast's point 1). An earlier version moved the stored
   ability instead, so the forecast stretched the shift with the mean (by
   sqrt(1 + pi sigma^2 / 8)) and over-projected the month's learning. The variances are
   widened by what the projection does not know: how fast this learner learns (the gain's
   `spread`, the standard deviation of a learner's multiplier k of the gain) and whether
   each answer will be right (a Bernoulli variance per answer, each topic's own). A fast or
   slow learner is so on every topic: k moves every topic's shift together, so its
   variance goes to the overall ability, which the forecast shares across topics. It goes
   there alone: the topics' deviations from the mean shift, times the same k - 1, add up to
   0 over the exam's questions, so adding them again as independent topic variance (as an
   earlier version did) widened the score range for nothing. The same k has scaled the
   learning already made: the filter takes the abilities as fixed, so it estimates a
   weighted mean of them over the learner's answers, and the model's history weights add the
   typical learner's lag behind where the learning has got to, not this learner's. That lag
   is shift(w, f) minus the filter's own estimate of the learning, from a replay of its steps
   (`_filter_lags`: its prior, its Kalman weights and its drift, the overall ability over
   every topic's answers and each offset over its topic's). So the variance added to the
   overall ability is spread^2 x (drawn-weighted mean of the projected shift + the lag)^2.
   An earlier version took the lag against the plain mean of the shift over the answers
   (about `gain.win` a topic): equal weights and no prior, a lag too large (0.315 logits
   against 0.275 on average over the plan simulation's training learners of seed 0, more
   after long histories, which the topic drift lets the filter follow), which made the
   exam-day ranges too wide. The model's own history features keep today's counts, so
   they do not count the same learning twice. The 80% range of the exam-day score is the
   forecast's, with that learning.

Cost: two forecasts (a few milliseconds each) and, per planned answer, a few exp/log and a
heap operation: 60 days of 50 questions, 8 topics, in about 20 ms (bench/study_plan.py).
`plan_days` gives the days alone, for a caller that needs only what to practise (the plan
simulation replans every day): no forecast_exam at all, each topic's starting percent from
`forecast.forecast_topic` (one pass over its questions, the same figure forecast_exam reports
for the topic), so the days are those of plan_study at a fraction of its cost. The first day
of a plan never depends on the days after it (each answer goes where it raises the
projection most now; only reviews due later can change later days), so asking for one day
is enough to know what to practise today.

The ideas come from Pavlik, Cen & Koedinger (PFA, 2009) for the gain, and from the greedy
allocation of a budget to concave returns (each topic's returns diminish, so picking the best
marginal value one unit at a time is the usual heuristic); no code was copied.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from progress.engine.forecast import TopicLearning, TopicPlan, forecast_exam, forecast_topic
from progress.engine.learner_model import ItemState, LearnerState, ModelParams, ReadinessModel
from progress.engine.learning_gain import (
    FITTED_GAIN,
    LearningGain,
    fit_gain_report,
    fit_learning_gain,
)

__all__ = [
    "FITTED_GAIN",
    "REPEAT_WEIGHT",
    "LearningGain",
    "PlanDay",
    "PlanTopic",
    "StudyPlan",
    "fit_gain_report",
    "fit_learning_gain",
    "plan_days",
    "plan_study",
]

# A repeated question (the topic's unanswered questions used up) counts as this much of an
# opportunity to learn.
REPEAT_WEIGHT = 0.5

# See `plan_study`: past this many questions a day, topics are chosen for a few at a time.
BATCH_FROM = 20

# Probabilities are kept this far from 0 and 1 when turned into logits.
_EDGE = 1e-6


@dataclass(frozen=True)
class PlanTopic:
    """A topic of the exam: its id as the model knows it, the questions it gives to the exam,
    its published questions (as forecast.TopicPlan.items), and how many of them the learner
    has not answered yet."""

    topic_id: str
    drawn: int
    items: Sequence[tuple[str, ItemState | None]]
    available: int


@dataclass(frozen=True)
class PlanDay:
    """One day of the plan (0 = today): new practice per topic, and the spaced reviews due that
    day that fit in the day's budget. Practice past a topic's `available` questions repeats
    questions (see the module docstring, point 4)."""

    day: int
    practice: dict[str, int]
    reviews: dict[str, int]

    @property
    def total(self) -> int:
        return sum(self.practice.values()) + sum(self.reviews.values())


@dataclass(frozen=True)
class StudyPlan:
    """The days from today to the day before the exam, the pass likelihood now and projected
    on the exam date, the projected exam-day score with its 80% range (percent), and each
    topic's planned questions (practice and reviews) over all days."""

    days: list[PlanDay]
    pass_now: float
    pass_on_exam_day: float
    expected_percent: float
    low_percent: float
    high_percent: float
    topic_totals: dict[str, int]


class _Projection:
    """A topic's projected course: its logit now (calibrated), the shift learned so far, the
    expected right and wrong answers, the Bernoulli variance of the shift, and what is left
    of its unanswered questions. `value` caches what the next `answer` needs."""

    __slots__ = ("_next", "drawn", "fails", "logit", "new_left", "shift", "variance", "wins")

    def __init__(self, drawn: int, logit: float, wins: float, fails: float, available: int) -> None:
        self.drawn = drawn
        self.logit = logit
        self.wins = float(wins)
        self.fails = float(fails)
        self.shift = 0.0
        self.variance = 0.0
        self.new_left = available
        self._next: tuple[float, float, float] | None = None  # (p, up, down)

    def _quantities(self, gain: LearningGain) -> tuple[float, float, float]:
        """P(correct) now, and what a right and a wrong answer would add to the logit."""
        if self._next is not None:
            return self._next
        z = self.logit + self.shift
        p = 1.0 / (1.0 + math.exp(-z)) if z > -30.0 else 1e-13
        # log(2 + w) - log(1 + w), one log instead of two.
        up = gain.win * math.log1p(1.0 / (1.0 + self.wins))
        down = gain.fail * math.log1p(1.0 / (1.0 + self.fails))
        self._next = (p, up, down)
        return self._next

    def answer(self, gain: LearningGain, weight: float) -> None:
        """One more answer, in expectation, teaching `weight` of a new question's gain."""
        p, up, down = self._quantities(gain)
        self.shift += weight * (p * up + (1.0 - p) * down)
        self.variance += weight * weight * p * (1.0 - p) * (up - down) ** 2
        self.wins += p
        self.fails += 1.0 - p
        self._next = None

    def value(self, gain: LearningGain) -> float:
        """The rise of drawn x P(correct) from one more practice answer."""
        weight = 1.0 if self.new_left > 0 else REPEAT_WEIGHT
        p, up, down = self._quantities(gain)
        z = self.logit + self.shift + weight * (p * up + (1.0 - p) * down)
        after = 1.0 / (1.0 + math.exp(-z)) if z > -30.0 else 1e-13
        return self.drawn * (after - p)


def _check(topics: Sequence[PlanTopic], pass_percent: float, days: int, per_day: int) -> None:
    if per_day < 1:
        raise ValueError(f"a plan needs at least one question a day, not {per_day}.")
    if days < 0:
        raise ValueError(f"the days until the exam cannot be negative ({days}).")
    if not 0.0 <= pass_percent <= 100.0:
        raise ValueError(f"the pass mark is a percent from 0 to 100, not {pass_percent}.")
    seen: set[str] = set()
    for topic in topics:
        if topic.topic_id in seen:
            raise ValueError(f"topic {topic.topic_id} is listed twice.")
        seen.add(topic.topic_id)
        if topic.drawn < 0:
            raise ValueError(f"topic {topic.topic_id}: drawn is {topic.drawn}, below 0.")
        if topic.available < 0:
            raise ValueError(f"topic {topic.topic_id}: available is {topic.available}, below 0.")


def _logit(probability: float) -> float:
    q = min(max(probability, _EDGE), 1.0 - _EDGE)
    return math.log(q / (1.0 - q))


def plan_study(
    model: ReadinessModel,
    learner: LearnerState,
    topics: Sequence[PlanTopic],
    pass_percent: float,
    days: int,
    per_day: int,
    reviews_due: Mapping[int, Mapping[str, int]] = {},
    gain: LearningGain = FITTED_GAIN,
) -> StudyPlan:
    """The plan and its projection (see the module docstring). `days` is the number of days
    until the exam (0: the exam is today, no days to plan); `per_day` the questions a day;
    `reviews_due` maps a day offset to the reviews due on each topic that day (offsets below
    0 are overdue: due today; at or past the exam, left out). Does not change the learner.

    Raises ValueError on per_day < 1, negative days, a pass mark outside 0-100, a topic
    listed twice or a negative count (and as forecast_exam does on a topic that gives
    questions but has none published)."""
    _check(topics, pass_percent, days, per_day)
    plans = [TopicPlan(t.topic_id, t.drawn, t.items) for t in topics]
    now = forecast_exam(model, learner, plans, pass_percent)
    schedule, totals, projections = _allocate(
        learner, topics, [r.percent for r in now.topics], days, per_day, reviews_due, gain
    )
    if days == 0:
        exam_day = now
    else:
        learning, rate_variance = _projected_learning(
            model.params, learner, topics, projections, gain
        )
        exam_day = forecast_exam(
            model,
            learner,
            plans,
            pass_percent,
            learning=learning,
            learning_rate_variance=rate_variance,
        )
    return StudyPlan(
        days=schedule,
        pass_now=now.pass_probability,
        pass_on_exam_day=exam_day.pass_probability,
        expected_percent=exam_day.expected_percent,
        low_percent=exam_day.low_percent,
        high_percent=exam_day.high_percent,
        topic_totals=totals,
    )


def plan_days(
    model: ReadinessModel,
    learner: LearnerState,
    topics: Sequence[PlanTopic],
    days: int,
    per_day: int,
    reviews_due: Mapping[int, Mapping[str, int]] = {},
    gain: LearningGain = FITTED_GAIN,
) -> list[PlanDay]:
    """The days of `plan_study`'s plan alone, without the pass likelihood now or on the exam
    date: for a caller that only needs what to practise (the plan simulation replans every
    day and takes the first). The same days as plan_study's for the same arguments, at a
    fraction of the cost: each topic's starting percent comes from `forecast_topic` (one pass
    over its questions, the figure forecast_exam reports per topic) and no forecast_exam runs.
    Raises ValueError as plan_study does (the pass mark aside)."""
    _check(topics, 0.0, days, per_day)
    starts = [
        forecast_topic(model, learner, TopicPlan(t.topic_id, t.drawn, t.items)).percent
        for t in topics
    ]
    return _allocate(learner, topics, starts, days, per_day, reviews_due, gain)[0]


def _allocate(
    learner: LearnerState,
    topics: Sequence[PlanTopic],
    starts: Sequence[float],
    days: int,
    per_day: int,
    reviews_due: Mapping[int, Mapping[str, int]],
    gain: LearningGain,
) -> tuple[list[PlanDay], dict[str, int], dict[str, _Projection]]:
    """The days of the plan (the module docstring, points 2 to 4) from each topic's expected
    percent correct now (`starts`, in topic order), with the day totals per topic and each
    topic's projected course."""
    projections: dict[str, _Projection] = {}
    for topic, percent in zip(topics, starts, strict=True):
        state = learner.topics.get(topic.topic_id)
        projections[topic.topic_id] = _Projection(
            drawn=topic.drawn,
            logit=_logit(percent / 100.0),
            wins=state.wins if state else 0,
            fails=state.fails if state else 0,
            available=topic.available,
        )
    order = {topic.topic_id: k for k, topic in enumerate(topics)}
    # The heap holds (-value, topic order, topic id), one entry per topic that gives questions
    # to the exam: only the topic just chosen changes value, so it is replaced in place.
    heap = [
        (-projection.value(gain), order[topic_id], topic_id)
        for topic_id, projection in projections.items()
        if projection.drawn > 0
    ]
    heapq.heapify(heap)

    # Answers given to a topic per choice: one up to BATCH_FROM a day, then in small batches
    # (2 at 40 a day, 3 at 50), so a day costs about BATCH_FROM choices however long it is.
    batch = max(1, -(-per_day // BATCH_FROM))
    due: dict[str, int] = {}
    for offset, counts in sorted(reviews_due.items()):
        if offset >= days:
            continue
        for topic_id, count in counts.items():
            if count < 0:
                raise ValueError(f"reviews due on day {offset}, topic {topic_id}: {count}.")
    schedule: list[PlanDay] = []
    totals: dict[str, int] = {topic.topic_id: 0 for topic in topics}
    for day in range(days):
        # Today's reviews: those carried over, plus those due today (overdue ones on day 0).
        for offset, counts in reviews_due.items():
            if offset == day or (day == 0 and offset < 0):
                for topic_id, count in counts.items():
                    if count:
                        due[topic_id] = due.get(topic_id, 0) + count
        budget = per_day
        reviews: dict[str, int] = {}
        # Topics of the exam in their order, then any other topic with reviews, by id.
        for topic_id in sorted(due, key=lambda t: (order.get(t, len(order)), t)):
            if budget == 0:
                break
            taken = min(due[topic_id], budget)
            reviews[topic_id] = taken
            budget -= taken
            due[topic_id] -= taken
            projection = projections.get(topic_id)
            if projection is not None:
                for _ in range(taken):
                    projection.answer(gain, 1.0)
                if projection.drawn > 0:
                    _refresh(heap, topic_id, order[topic_id], projection, gain)
        due = {topic_id: count for topic_id, count in due.items() if count}
        practice: dict[str, int] = {}
        while budget > 0 and heap:
            _, _, topic_id = heap[0]
            projection = projections[topic_id]
            taken = min(batch, budget)
            for _ in range(taken):
                weight = 1.0 if projection.new_left > 0 else REPEAT_WEIGHT
                projection.answer(gain, weight)
                projection.new_left = max(projection.new_left - 1, 0)
            practice[topic_id] = practice.get(topic_id, 0) + taken
            budget -= taken
            heapq.heapreplace(heap, (-projection.value(gain), order[topic_id], topic_id))
        for counts in (practice, reviews):
            for topic_id, count in counts.items():
                totals[topic_id] = totals.get(topic_id, 0) + count
        schedule.append(PlanDay(day=day, practice=practice, reviews=reviews))

    return schedule, totals, projections


def _refresh(
    heap: list[tuple[float, int, str]],
    topic_id: str,
    position: int,
    projection: _Projection,
    gain: LearningGain,
) -> None:
    """Put a topic's new value in the heap (after reviews, which may touch any topic)."""
    for k, entry in enumerate(heap):
        if entry[2] == topic_id:
            heap[k] = (-projection.value(gain), position, topic_id)
            heapq.heapify(heap)
            return


# The history's replay in `_filter_lags` takes a topic's answers in at most this many blocks,
# and finds where the topic started in at most this many Newton steps.
LAG_BLOCKS = 24
LAG_ITERATIONS = 8


def _history_course(
    gain: LearningGain, answers: float, wins: float, blocks: int
) -> list[tuple[float, float]]:
    """A topic's history as the typical learner (k = 1) would have made it: for each block of
    answers, the learning at its middle and the P(correct) there, from the start logit z0 that
    gives the topic's right answers in expectation. The right rate rises as the learner
    learns; taking it at the topic's right share throughout would put the early learning too
    high and the lag too low."""
    size = answers / blocks

    def course(z0: float) -> tuple[float, float, list[tuple[float, float]]]:
        w = f = slope = 0.0
        steps = []
        for _ in range(blocks):
            p = 1.0 / (1.0 + math.exp(-(z0 + gain.shift(w, f))))
            mid_w, mid_f = w + size * p / 2.0, f + size * (1.0 - p) / 2.0
            learned = gain.shift(mid_w, mid_f)
            p = 1.0 / (1.0 + math.exp(-(z0 + learned)))
            steps.append((learned, p))
            w, f = w + size * p, f + size * (1.0 - p)
            slope += size * p * (1.0 - p)
        return w, slope, steps

    # Newton's method on z0 (the expected right answers rise with it, with a slope of about
    # the sum of p(1 - p)), from the logit of the right share less the learning's mean.
    share = min(max(wins / answers, 0.01), 0.99)
    z0 = math.log(share / (1.0 - share)) - gain.shift(share * answers / 2.0, 0.0)
    for _ in range(LAG_ITERATIONS):
        expected, slope, steps = course(z0)
        if abs(expected - wins) < 0.01 or slope <= 0.0:
            break
        z0 = min(max(z0 + (wins - expected) / slope, -10.0), 10.0)
    return steps


def _filter_lags(
    params: ModelParams, learner: LearnerState, gain: LearningGain
) -> dict[str, float]:
    """How far a typical learner's (k = 1) learning on each topic has taken them beyond where
    the filter places them: shift(w, f) minus the filter's estimate of that learning, from a
    replay of the filter's own steps (`ReadinessModel.update`, linearised: an answer's
    surprise is p(1 - p) times the logit the filter misses) on the learning the history has
    made. The filter takes the abilities as fixed, so its estimate is a weighted mean of the
    learning over the answers: the overall ability's over every topic's answers, each topic
    offset's over its own (recent ones weighing more with its drift), both shrunk to the
    prior. The plain mean over the answers (an earlier version) stands for equal weights and
    no prior.

    The order of the answers is not stored: each topic's answers are spread evenly over the
    history, its course as `_history_course` makes it. A step stands for a block of answers
    (at most LAG_BLOCKS a topic): their information adds, as the filter's steps do when the
    answers agree. On a learner fed the expected outcomes of a known learning curve, the
    replay is within 0.02 of a logit of the filter's own lag (tests/test_study_plan.py)."""
    counts = [(t, s.wins, s.fails) for t, s in learner.topics.items() if s.wins + s.fails > 0]
    steps: list[tuple[float, int, float, float, float]] = []  # time, topic, answers, learned, p
    for k, (_t, wins, fails) in enumerate(counts):
        n = wins + fails
        blocks = max(1, min(LAG_BLOCKS, math.ceil(n)))
        for b, (learned, p) in enumerate(_history_course(gain, n, wins, blocks)):
            steps.append(((b + 0.5) / blocks, k, n / blocks, learned, p))
    steps.sort()
    overall_variance = params.ability_variance
    overall = 0.0
    topic_variance = [params.topic_variance] * len(counts)
    topic = [0.0] * len(counts)
    for _time, k, size, learned, p in steps:
        information = size * p * (1.0 - p)
        denominator = 1.0 + information * (overall_variance + topic_variance[k])
        surprise = information * (learned - overall - topic[k]) / denominator
        overall += overall_variance * surprise
        topic[k] += topic_variance[k] * surprise
        overall_variance += size * params.ability_drift - (
            overall_variance * overall_variance * information / denominator
        )
        topic_variance[k] += size * params.topic_drift - (
            topic_variance[k] * topic_variance[k] * information / denominator
        )
    return {
        t: gain.shift(wins, fails) - overall - topic[k] for k, (t, wins, fails) in enumerate(counts)
    }


def _projected_learning(
    params: ModelParams,
    learner: LearnerState,
    topics: Sequence[PlanTopic],
    projections: Mapping[str, _Projection],
    gain: LearningGain,
) -> tuple[dict[str, TopicLearning], float]:
    """The projected learning for `forecast_exam` (the module docstring, point 5): each topic's
    shift and the variance of the luck of its answers, and the variance that the learner's
    unknown learning rate adds to the overall ability."""
    drawn_total = sum(t.drawn for t in topics)
    if drawn_total == 0:
        return {t.topic_id: TopicLearning(0.0) for t in topics}, 0.0
    mean_shift = sum(t.drawn * projections[t.topic_id].shift for t in topics) / drawn_total
    # The learning already made that the filter has not seen (it takes the abilities as
    # fixed; the model's history weights add the typical learner's lag, not this learner's):
    # it scales with the same k.
    lags = _filter_lags(params, learner, gain)
    mean_lag = sum(t.drawn * lags.get(t.topic_id, 0.0) for t in topics) / drawn_total
    learning = {
        t.topic_id: TopicLearning(projections[t.topic_id].shift, projections[t.topic_id].variance)
        for t in topics
    }
    # Only the luck of the answers is the topic's own. The learning rate is one number for
    # all the topics: its whole effect on the score goes through the overall ability (the
    # topics' deviations from the mean shift, times the same k - 1, sum to 0 over the exam's
    # questions, so counting them again per topic would widen the range).
    return learning, (gain.spread * (mean_shift + mean_lag)) ** 2
