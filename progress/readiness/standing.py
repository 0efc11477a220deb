"""Where a learner stands: readiness per topic and the pass likelihood per exam, read from the
stored state of the learner model (never from the attempts). The numbers come from
`progress.engine.forecast`; this module fetches what it needs in a fixed number of queries."""

import random
from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.db.models import Exists, OuterRef, QuerySet
from django.utils import timezone
from django.utils.safestring import SafeString

from progress.accounts.models import User
from progress.charts import readiness_chart
from progress.engine import forecast as forecasting
from progress.engine import learner_model
from progress.engine.forecast import largest_remainder
from progress.readiness.in_use import ModelInUse, current_model
from progress.readiness.models import ExamAbility, ExamReadiness, TopicReadiness
from questions.models import Exam, Question, Topic


@dataclass(frozen=True)
class TopicStanding:
    topic: Topic
    readiness: forecasting.TopicForecast
    drawn: int  # questions it gives to a mock exam

    @property
    def needed(self) -> int:
        """Answers still needed before the pass likelihood counts this topic as known."""
        return max(0, forecasting.MIN_TOPIC_ANSWERS - self.readiness.answers) if self.drawn else 0


@dataclass
class ExamStanding:
    exam: Exam
    topics: list[TopicStanding]  # weakest first
    forecast: forecasting.ExamForecast | None  # None without a mock-exam shape
    missing: list[TopicStanding] = field(default_factory=list)  # topics short of answers
    # What the numbers were computed from, for the adaptive quiz: the plans in blueprint order
    # and the learner's state.
    plans: list[forecasting.TopicPlan] = field(default_factory=list, repr=False)
    learner: "_Learner | None" = field(default=None, repr=False)
    # What the explanations read: the learner's state on the exam (with the answers that
    # moved it) and their rows per topic (answers, last answer, difficulty answered).
    ability: "ExamAbility | None" = field(default=None, repr=False)
    topic_rows: dict[int, TopicReadiness] = field(default_factory=dict, repr=False)

    @property
    def pass_shown(self) -> bool:
        return self.forecast is not None and not self.missing and self.forecast.questions > 0

    def chart(self) -> SafeString:
        """Readiness per topic, weakest first, as an SVG chart against the pass mark."""
        pass_percent = float(self.exam.mock_pass_percent or 0) or None
        return readiness_chart(
            [
                (t.topic.title, t.readiness.percent, t.readiness.low, t.readiness.high)
                for t in self.topics
            ],
            pass_percent,
            chart_id=f"readiness-{self.exam.slug}",
        )

    def topic(self, topic_id: int) -> TopicStanding | None:
        return next((t for t in self.topics if t.topic.pk == topic_id), None)

    def figures(self) -> dict[str, float] | None:
        """The forecast as a mock exam keeps it from its start (MockExam.forecast_before);
        None while it is not shown."""
        if not self.pass_shown or self.forecast is None:
            return None
        f = self.forecast
        return {
            "pass_probability": round(f.pass_probability, 4),
            "expected_percent": round(f.expected_percent, 2),
            "low_percent": round(f.low_percent, 2),
            "high_percent": round(f.high_percent, 2),
            "answers": self.ability.answers if self.ability is not None else 0,
        }

    def snapshot(
        self, learner_id: int, fit_id: int | None, answers: int, when: datetime
    ) -> ExamReadiness:
        """These figures as a row to store (see ExamReadiness)."""
        shown = self.forecast if self.pass_shown else None
        return ExamReadiness(
            learner_id=learner_id,
            exam=self.exam,
            fit_id=fit_id,
            answers=answers,
            pass_probability=shown.pass_probability if shown else None,
            expected_percent=shown.expected_percent if shown else None,
            low_percent=shown.low_percent if shown else None,
            high_percent=shown.high_percent if shown else None,
            topics={
                str(t.topic.pk): [
                    round(t.readiness.percent, 2),
                    round(t.readiness.low, 2),
                    round(t.readiness.high, 2),
                    t.readiness.answers,
                ]
                for t in self.topics
            },
            missing=[[t.topic.pk, t.needed] for t in self.missing],
            computed_at=when,
        )


@dataclass(frozen=True)
class _Learner:
    in_use: ModelInUse
    state: learner_model.LearnerState


def _learner_states(
    learner: User, rows: Sequence[TopicReadiness], exams: Sequence[Exam]
) -> dict[int, tuple[_Learner, ExamAbility]]:
    """The learner's state on each exam, with that exam's topics; an exam never answered
    starts afresh. Two queries: the fit in use, the learner's states on the exams."""
    in_use = current_model()
    abilities = {a.exam_id: a for a in ExamAbility.objects.filter(learner=learner, exam__in=exams)}
    rows_of: dict[int, list[TopicReadiness]] = defaultdict(list)
    for row in rows:
        rows_of[row.topic.exam_id].append(row)
    states = {}
    for exam in exams:
        ability = abilities.get(exam.pk) or ExamAbility(learner=learner, exam=exam)
        who = _Learner(in_use, ability.learner_state(in_use.model, rows_of[exam.pk]))
        states[exam.pk] = (who, ability)
    return states


def standings(learner: User, exams: Sequence[Exam] | None = None) -> list[ExamStanding]:
    """Readiness on each exam given, or on each exam the learner has practised (in the order
    of their codes). Five queries whatever the number of answers, topics and exams: the
    learner's topics, the fit in use, the learner's states on the exams, the exams' topics,
    the exams' published questions with their difficulties."""
    topic_rows = TopicReadiness.objects.filter(learner=learner).select_related("topic__exam")
    if exams is not None:
        topic_rows = topic_rows.filter(topic__exam__in=exams)
    rows = list(topic_rows)
    if exams is None:
        exams = sorted({r.topic.exam for r in rows}, key=lambda exam: (exam.code, exam.pk))
    if not exams:
        return []
    states = _learner_states(learner, rows, exams)
    topics_of, items_of = _exam_questions(exams)
    result = []
    for exam in exams:
        who, ability = states[exam.pk]
        standing = _standing(exam, topics_of[exam.pk], items_of, who)
        standing.ability = ability
        standing.topic_rows = {r.topic_id: r for r in rows if r.topic.exam_id == exam.pk}
        result.append(standing)
    return result


_Items = dict[int, list[tuple[str, learner_model.ItemState | None]]]


def _exam_questions(exams: Sequence[Exam]) -> tuple[dict[int, list[Topic]], _Items]:
    """The exams' topics in blueprint order, and each topic's published questions with their
    stored states. Two queries."""
    topics_of: dict[int, list[Topic]] = defaultdict(list)
    for topic in Topic.objects.filter(exam__in=exams).order_by("position", "slug"):
        topics_of[topic.exam_id].append(topic)
    items_of: _Items = defaultdict(list)
    questions = (
        Question.objects.published()
        .filter(topic__exam__in=exams)
        .values_list(
            "pk", "topic_id", "readiness__difficulty", "readiness__variance",
            "readiness__answers", "readiness__profile",
        )
        .order_by("pk")
    )  # fmt: skip
    for pk, topic_id, difficulty, variance, answers, profile in questions:
        item = None
        if difficulty is not None:
            item = learner_model.ItemState(difficulty, variance, answers, list(profile or []))
        items_of[topic_id].append((str(pk), item))
    return topics_of, items_of


def refresh_exam_readiness(learner_ids: "QuerySet[Any]", exam: Exam) -> int:
    """Recompute and store the figures on the exam (ExamReadiness) of those of these learners
    (a query of learner ids) whose figures are older than their latest answer to the exam or
    the fit in use; learners who never answered it get none. Returns how many were
    recomputed. Two queries when all are fresh (the fit in use, the stale learners' rows,
    found by the database); four more when some are not (their topics, the exam's topics and
    questions, one write), whatever the number of learners."""
    in_use = current_model()
    fresh = ExamReadiness.objects.filter(
        learner=OuterRef("learner_id"), exam=exam, answers=OuterRef("answers")
    )
    fresh = (
        fresh.filter(fit_id__isnull=True)
        if in_use.fit_id is None
        else fresh.filter(fit_id=in_use.fit_id)
    )
    rows = {
        r.learner_id: r
        for r in ExamAbility.objects.filter(learner_id__in=learner_ids, exam=exam).exclude(
            Exists(fresh)
        )
    }
    stale = list(rows)
    if not stale:
        return 0
    topic_rows: dict[int, list[TopicReadiness]] = defaultdict(list)
    for topic_row in TopicReadiness.objects.filter(learner_id__in=stale, topic__exam=exam):
        topic_rows[topic_row.learner_id].append(topic_row)
    topics_of, items_of = _exam_questions([exam])
    now = timezone.now()
    figures = []
    for learner_id in stale:
        row = rows[learner_id]
        who = _Learner(in_use, row.learner_state(in_use.model, topic_rows[learner_id]))
        standing = _standing(exam, topics_of[exam.pk], items_of, who)
        figures.append(standing.snapshot(learner_id, in_use.fit_id, row.answers, now))
    ExamReadiness.objects.bulk_create(
        figures,
        update_conflicts=True,
        unique_fields=["exam", "learner"],
        update_fields=[
            "fit_id", "answers", "pass_probability", "expected_percent", "low_percent",
            "high_percent", "topics", "missing", "computed_at",
        ],
    )  # fmt: skip
    return len(figures)


def _standing(
    exam: Exam,
    topics: list[Topic],
    items_of: dict[int, list[tuple[str, learner_model.ItemState | None]]],
    who: _Learner,
) -> ExamStanding:
    # The mock exam as this site draws it: split by weight, capped by the questions there are.
    wanted = largest_remainder(exam.mock_question_count or 0, [t.weight for t in topics])
    plans = [
        forecasting.TopicPlan(
            topic_id=str(topic.pk), drawn=min(count, len(items_of[topic.pk])),
            items=items_of[topic.pk],
        )
        for topic, count in zip(topics, wanted, strict=True)
    ]  # fmt: skip
    model = who.in_use.model
    result = None
    if exam.has_mock_shape:
        result = forecasting.forecast_exam(
            model, who.state, plans, float(exam.mock_pass_percent or 0)
        )
        readinesses = result.topics
    else:
        readinesses = [forecasting.forecast_topic(model, who.state, plan) for plan in plans]
    standing_topics = [
        TopicStanding(topic=topic, readiness=r, drawn=plan.drawn)
        for topic, r, plan in zip(topics, readinesses, plans, strict=True)
    ]
    missing = [t for t in standing_topics if t.needed]
    standing_topics.sort(key=lambda t: (t.readiness.percent, t.topic.position))
    return ExamStanding(
        exam=exam, topics=standing_topics, forecast=result, missing=missing, plans=plans,
        learner=who,
    )  # fmt: skip


# The adaptive quiz aims at questions the learner is predicted to get right this often: hard
# enough to learn from, easy enough not to discourage (the 70-80% "desirable difficulty" band
# of adaptive practice systems).
ADAPTIVE_TARGET = 0.75


def ranked_questions(
    standing: ExamStanding,
    counts: Mapping[int, Sequence[float]],
    rng: random.Random,
    topic: Topic | None = None,
) -> dict[int, list[int]]:
    """Each topic's published questions (one topic's, if given), those predicted closest to
    ADAPTIVE_TARGET first, with a little jitter so that two quizzes differ. `counts` holds the
    learner's [right, wrong] answers to the exam's questions, so that the model predicts
    those met before as such. No query."""
    who = standing.learner
    assert who is not None
    model = who.in_use.model
    for plan in standing.plans:
        topic_state = model.topic_state(who.state, plan.topic_id)
        for item_id, _ in plan.items:
            if int(item_id) in counts:
                topic_state.items[item_id] = list(counts[int(item_id)])
    ranked: dict[int, list[int]] = {}
    for plan in standing.plans:
        topic_id = int(plan.topic_id)
        if topic is not None and topic_id != topic.pk:
            continue
        scored = []
        for item_id, item in plan.items:
            qid = int(item_id)
            state = item if item is not None else who.in_use.starting_item(qid)
            p = model.predict(who.state, plan.topic_id, item_id, item=state).probability
            scored.append((abs(p - ADAPTIVE_TARGET) + rng.uniform(0, 0.03), qid))
        ranked[topic_id] = [qid for _, qid in sorted(scored)]
    return ranked


def adaptive_question_ids(
    learner: User,
    exam: Exam,
    topic: Topic | None,
    length: int | None,
    rng: random.Random,
    counts: Mapping[int, Sequence[float]],
    among: Collection[int] | None = None,
) -> list[int]:
    """Question ids for an adaptive quiz: the quiz's places go to the topics in proportion to
    blueprint weight times what is still to learn (100% less readiness), so heavy and weak
    topics get most; within a topic, the questions ranked by `ranked_questions`. A one-topic
    quiz draws from that topic; with `among`, only those questions are drawn (the practice
    builder's other choices). The queries of `standings`."""
    standing = standings(learner, [exam])[0]
    ranked = ranked_questions(standing, counts, rng, topic)
    if among is not None:
        kept = {t: [qid for qid in ids if qid in among] for t, ids in ranked.items()}
        ranked = {t: ids for t, ids in kept.items() if ids}
    readiness_of = {t.topic.pk: t.readiness.percent for t in standing.topics}
    weight_of = {t.topic.pk: float(t.topic.weight) for t in standing.topics}
    available = sum(len(ids) for ids in ranked.values())
    wanted = available if length is None else min(length, available)
    need = {t: max(weight_of[t], 0.01) * max(100.0 - readiness_of[t], 1.0) for t in ranked}
    # Proportional shares by the highest-averages rule, each place to the topic with the most
    # need per place it already has, among those with questions left.
    places = dict.fromkeys(ranked, 0)
    for _ in range(wanted):
        open_topics = [t for t in ranked if places[t] < len(ranked[t])]
        best = max(open_topics, key=lambda t: need[t] / (places[t] + 1))
        places[best] += 1
    chosen = [qid for t, ids in ranked.items() for qid in ids[: places[t]]]
    rng.shuffle(chosen)
    return chosen
