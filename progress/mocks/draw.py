"""How a mock exam draws its questions: each topic gives its share of the exam's questions by
the blueprint weights (largest remainder), drawn at random among the topic's published
questions, those the learner has not met in earlier mock exams first.

A case study comes whole, as a set of its own after the other questions (as the real exams
set them apart): one of the exam's case studies whose questions fit in their topics' shares,
the one the learner has met least, its questions counted in those shares. The other
questions of case studies are left out of the draw: a testlet is not split.

An exam whose shape names sections is drawn section by section (draw_sections): the same
topic shares, each section filled with questions of its item types from the topics with the
most share left, the case study whole in the section that holds it."""

import random
from collections import Counter
from dataclasses import dataclass

from django.db.models import Count, Exists, Q

from progress.engine.forecast import largest_remainder
from progress.mocks.sections import SittingSection
from questions.models import Exam, MockSection, Question, Status, Topic


@dataclass(frozen=True)
class TopicDraw:
    topic: Topic
    wanted: int
    available: int

    @property
    def drawn(self) -> int:
        return min(self.wanted, self.available)

    @property
    def short(self) -> bool:
        return self.available < self.wanted


def plan_mock(exam: Exam) -> list[TopicDraw]:
    """How many questions each topic gives to a mock exam of `exam`'s shape, and how many it
    has. Two queries."""
    topics = list(
        exam.topics.annotate(
            available=Count("questions", filter=Q(questions__status=Status.PUBLISHED))
        ).order_by("position", "slug")
    )
    counts = largest_remainder(exam.mock_question_count or 0, [t.weight for t in topics])
    return [
        TopicDraw(topic=topic, wanted=count, available=topic.available)
        for topic, count in zip(topics, counts, strict=True)
    ]


def draw_questions(exam: Exam, seen: Exists) -> list[Question]:
    """The questions of a new sitting, topic by topic in blueprint order, then a case study's
    set; `seen` says of a question (OuterRef("pk")) whether the learner met it in an earlier
    sitting. After the plan's queries, one for the case studies and one per topic."""
    plan = plan_mock(exam)
    case = case_study_set(exam, seen, {draw.topic.pk: draw.drawn for draw in plan})
    taken = Counter(question.topic_id for question in case)
    chosen: list[Question] = []
    for draw in plan:
        wanted = draw.drawn - taken[draw.topic.pk]
        if wanted > 0:
            chosen += list(
                Question.objects.published()
                .filter(topic=draw.topic, case_study__isnull=True)
                .annotate(seen=seen)
                .order_by("seen", "?")[:wanted]
            )
    return chosen + case


def case_study_set(
    exam: Exam, seen: Exists, shares: dict[int, int], limit: int | None = None
) -> list[Question]:
    """The published questions of one case study of the exam, in its order: one whose
    questions fit in their topics' `shares` (and number at most `limit`), the one with the
    fewest questions the learner met, at random among equals; [] when none fits. One query."""
    rows = list(
        Question.objects.published()
        .filter(topic__exam=exam, case_study__isnull=False)
        .annotate(seen=seen)
        .order_by("position", "uid")
    )
    cases: dict[int, list[Question]] = {}
    for question in rows:
        cases.setdefault(question.case_study_id or 0, []).append(question)
    fitting = [
        questions
        for questions in cases.values()
        if (limit is None or len(questions) <= limit)
        and all(
            count <= shares.get(topic, 0)
            for topic, count in Counter(q.topic_id for q in questions).items()
        )
    ]
    if not fitting:
        return []
    least = min(_met(questions) for questions in fitting)
    return random.choice(  # noqa: S311 - a draw, not a secret
        [questions for questions in fitting if _met(questions) == least]
    )


def _met(questions: list[Question]) -> int:
    return sum(1 for question in questions if getattr(question, "seen", False))


@dataclass(frozen=True)
class Candidate:
    pk: int
    topic_id: int
    kind: str


def draw_sections(
    exam: Exam, seen: Exists, shape: list[MockSection]
) -> tuple[list[Question], list[SittingSection]]:
    """The questions of a new sitting of an exam with sections, in section order, and the
    sitting's sections (a section left without questions is dropped; one short of them is
    shorter). Five queries: the plan's two, the case studies, the candidates, the chosen."""
    plan = plan_mock(exam)
    shares = {draw.topic.pk: draw.drawn for draw in plan}
    holder = next((section for section in shape if section.holds_case_study), None)
    case = case_study_set(exam, seen, shares, holder.question_count) if holder else []
    left = Counter(shares)
    left.subtract(question.topic_id for question in case)
    rows = list(
        Question.objects.published()
        .filter(topic__exam=exam, case_study__isnull=True)
        .annotate(seen=seen)
        .values_list("pk", "topic_id", "kind", "seen")
    )
    random.shuffle(rows)
    rows.sort(key=lambda row: bool(row[3]))  # unseen first, at random within each
    candidates = [Candidate(pk, topic, kind) for pk, topic, kind, _ in rows]
    named = {kind for section in shape for kind in section.kinds}
    picked: dict[int, list[int]] = {}
    used: set[int] = set()
    # The sections that name their item types first: the others take the rest.
    for section in sorted(shape, key=lambda section: not section.kinds):
        wanted = section.question_count - (len(case) if section is holder else 0)
        kinds = set(section.kinds) if section.kinds else None
        pool = [
            c
            for c in candidates
            if c.pk not in used and (c.kind in kinds if kinds else c.kind not in named)
        ]
        picked[section.pk] = pick_by_shares(pool, wanted, left)
        used.update(picked[section.pk])
    found = Question.objects.in_bulk(used)
    chosen: list[Question] = []
    sections: list[SittingSection] = []
    for section in shape:
        questions = [found[pk] for pk in picked[section.pk] if pk in found]
        if section is holder:
            questions += case
        if questions:
            sections.append(
                SittingSection(
                    title=section.title,
                    first=len(chosen),
                    count=len(questions),
                    minutes=section.minutes,
                    locks=section.locks,
                )
            )
            chosen += questions
    return chosen, sections


def pick_by_shares(pool: list[Candidate], wanted: int, left: Counter[int]) -> list[int]:
    """Up to `wanted` of the pool, in its order within a topic, each from the topic with the
    most of its blueprint share `left` (which this lowers); once no topic with a share left
    has any, from the others."""
    by_topic: dict[int, list[Candidate]] = {}
    for candidate in pool:
        by_topic.setdefault(candidate.topic_id, []).append(candidate)
    chosen: list[int] = []
    while len(chosen) < wanted and any(by_topic.values()):
        topic = max(
            (topic for topic, rest in by_topic.items() if rest),
            key=lambda topic: left[topic],
        )
        chosen.append(by_topic[topic].pop(0).pk)
        left[topic] -= 1
    return chosen
