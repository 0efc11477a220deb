"""Why each readiness figure is what it is: what it rests on (answers per topic, how recent,
how hard the questions answered were, the latest mock exam), what changed since the learner's
last visit, and the answers that moved it most. Read from stored state only: the learner's
state on each exam keeps the answers that last moved it (ExamAbility.movers), each topic its
counts and the difficulty answered, and ReadinessVisit what the page showed before.

The learner's progress page and their instructors' drill-down show the same explanation; only
the learner's own views move the visit forward (`record=True`). The mock exams live in a room
above this one, so the caller passes the latest one per exam in (see MockTaken)."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.utils import timezone

from progress.accounts.models import User
from progress.readiness.models import Mover, ReadinessVisit
from progress.readiness.standing import ExamStanding
from questions.models import Question

# The answers listed as having moved a figure most.
MOVERS_SHOWN = 3

# A topic's answered questions are called harder or easier than average when their mean
# difficulty is this far (logit) from the topic's average question: about 10 points of
# P(correct) for a learner near 50%.
DIFFICULTY_STEP = 0.4


@dataclass(frozen=True)
class MockTaken:
    """A submitted mock exam, as the explanation tells how it entered the figures: its
    answered questions count like any other answers; the unanswered ones are not counted."""

    code: str
    submitted_at: datetime
    percent: float
    right: int
    wrong: int
    unanswered: int
    partly_right: int = 0

    @property
    def answered(self) -> int:
        return self.right + self.partly_right + self.wrong


@dataclass(frozen=True)
class MovedAnswer:
    question: Question | None  # None once the question is deleted
    topic_title: str
    score: float  # 1 right, 0 wrong, a share for a partly right answer
    points: float  # what it did to its topic's readiness, in percentage points

    @property
    def verdict(self) -> str:
        if self.score >= 1:
            return "right"
        return f"partly right ({self.score:.0%})" if self.score > 0 else "wrong"


@dataclass(frozen=True)
class TopicWhy:
    answers: int
    right: float  # a partly right answer counts its score
    last_at: datetime | None
    difficulty: str  # "harder than average", "about average", "easier than average" or ""
    change: float | None  # points since the last visit; None without a baseline
    movers: list[MovedAnswer]


@dataclass
class ExamWhy:
    answers: int
    last_at: datetime | None
    mock: MockTaken | None
    since: datetime | None  # when the last visit ended; None on a first visit
    pass_before: float | None
    pass_change: float | None  # points since the last visit
    movers: list[MovedAnswer]  # since the last visit (the latest kept ones on a first visit)
    topics: dict[int, TopicWhy] = field(default_factory=dict)

    def topic(self, topic_id: int) -> TopicWhy | None:
        return self.topics.get(topic_id)


def difficulty_words(answers: int, mean_difficulty: float) -> str:
    if not answers:
        return ""
    if mean_difficulty >= DIFFICULTY_STEP:
        return "harder than average"
    if mean_difficulty <= -DIFFICULTY_STEP:
        return "easier than average"
    return "about average"


def top_movers(
    movers: Sequence[Sequence[Any]], after: int, topic_id: int | None = None
) -> list[Mover]:
    """Of the kept answers (ExamAbility.movers, each a Mover as JSON gives it back) newer than
    attempt `after` (of one topic, if given), those that moved readiness most, largest
    movement first; a tie goes to the newer answer."""
    chosen = [
        Mover(int(a), int(t), None if q is None else int(q), bool(r), float(p))
        for a, t, q, r, p in movers
        if int(a) > after and (topic_id is None or int(t) == topic_id)
    ]
    chosen.sort(key=lambda m: (-abs(m.points), -m.attempt_id))
    return chosen[:MOVERS_SHOWN]


def explain(
    learner: User,
    standings: Sequence[ExamStanding],
    mocks: Mapping[int, MockTaken],
    *,
    record: bool,
) -> dict[int, ExamWhy]:
    """The explanation of each exam's figures, by exam id. `mocks` holds the latest submitted
    mock exam per exam id. With `record`, this view is remembered as the learner's visit.
    Two queries (the visits, the questions that moved the figures), one more to record."""
    if not standings:
        return {}
    exams = [s.exam for s in standings]
    visits = {v.exam_id: v for v in ReadinessVisit.objects.filter(learner=learner, exam__in=exams)}
    now = timezone.now()
    for earlier in visits.values():
        earlier.begin(now)  # a view after a long gap compares with the whole previous visit
    picked: dict[int, tuple[list[Mover], dict[int, list[Mover]]]] = {}
    for standing in standings:
        last = visits.get(standing.exam.pk)
        after = last.since_attempt_id if last is not None and last.since_at else 0
        kept = standing.ability.movers if standing.ability is not None else []
        picked[standing.exam.pk] = (
            top_movers(kept, after),
            {t.topic.pk: top_movers(kept, after, t.topic.pk) for t in standing.topics},
        )
    wanted = {
        m.question_id
        for overall, by_topic in picked.values()
        for moves in (overall, *by_topic.values())
        for m in moves
        if m.question_id is not None
    }
    questions = Question.objects.in_bulk(wanted) if wanted else {}
    result = {}
    seen = []
    for standing in standings:
        exam_id = standing.exam.pk
        titles = {t.topic.pk: t.topic.title for t in standing.topics}

        def moved(moves: list[Mover], titles: dict[int, str] = titles) -> list[MovedAnswer]:
            return [
                MovedAnswer(
                    questions.get(m.question_id) if m.question_id else None,
                    titles.get(m.topic_id, ""),
                    float(m.score),
                    m.points,
                )
                for m in moves
            ]

        visit = visits.get(exam_id)
        baseline = visit is not None and visit.since_at is not None
        shown = (
            standing.forecast.pass_probability
            if standing.pass_shown and standing.forecast
            else None
        )
        percents = {str(t.topic.pk): round(t.readiness.percent, 2) for t in standing.topics}
        overall, by_topic = picked[exam_id]
        topics = {}
        for t in standing.topics:
            row = standing.topic_rows.get(t.topic.pk)
            before = visit.since_topics.get(str(t.topic.pk)) if visit and baseline else None
            topics[t.topic.pk] = TopicWhy(
                answers=row.answers if row else 0,
                right=row.state.get("wins", 0) if row else 0,
                last_at=row.updated_at if row else None,
                difficulty=difficulty_words(row.answers, row.mean_difficulty) if row else "",
                change=None if before is None else t.readiness.percent - float(before),
                movers=moved(by_topic[t.topic.pk]),
            )
        pass_before = visit.since_pass_probability if visit and baseline else None
        ability = standing.ability
        result[exam_id] = ExamWhy(
            answers=ability.answers if ability else 0,
            last_at=ability.updated_at if ability else None,
            mock=mocks.get(exam_id),
            since=visit.since_at if visit and baseline else None,
            pass_before=pass_before,
            pass_change=None
            if pass_before is None or shown is None
            else 100 * (shown - pass_before),
            movers=moved(overall),
            topics=topics,
        )
        if record:
            if visit is None:
                visit = ReadinessVisit(learner=learner, exam=standing.exam)
            last_attempt = int(ability.movers[-1][0]) if ability and ability.movers else 0
            visit.saw(shown, percents, last_attempt, now)
            seen.append(visit)
    if seen:
        ReadinessVisit.objects.bulk_create(
            seen,
            update_conflicts=True,
            unique_fields=["learner", "exam"],
            update_fields=[
                "seen_at", "pass_probability", "topics", "last_attempt_id", "since_at",
                "since_pass_probability", "since_topics", "since_attempt_id",
            ],
        )  # fmt: skip
    return result
