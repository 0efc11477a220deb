"""How a mock exam draws its questions: each topic gives its share of the exam's questions by
the blueprint weights (largest remainder), drawn at random among the topic's published
questions, those the learner has not met in earlier mock exams first.

A case study comes whole, as a set of its own after the other questions (as the real exams
set them apart): one of the exam's case studies whose questions fit in their topics' shares,
the one the learner has met least, its questions counted in those shares. The other
questions of case studies are left out of the draw: a testlet is not split."""

import random
from collections import Counter
from dataclasses import dataclass

from django.db.models import Count, Exists, Q

from progress.engine.forecast import largest_remainder
from questions.models import Exam, Question, Status, Topic


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


def case_study_set(exam: Exam, seen: Exists, shares: dict[int, int]) -> list[Question]:
    """The published questions of one case study of the exam, in its order: one whose
    questions fit in their topics' `shares`, the one with the fewest questions the learner
    met, at random among equals; [] when none fits. One query."""
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
        if all(
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
