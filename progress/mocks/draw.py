"""How a mock exam draws its questions: each topic gives its share of the exam's questions by
the blueprint weights (largest remainder), drawn at random among the topic's published
questions, those the learner has not met in earlier mock exams first."""

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
    """The questions of a new sitting, topic by topic in blueprint order; `seen` says of a
    question (OuterRef("pk")) whether the learner met it in an earlier sitting. One query per
    topic after the plan's."""
    chosen: list[Question] = []
    for draw in plan_mock(exam):
        if draw.drawn:
            chosen += list(
                Question.objects.published()
                .filter(topic=draw.topic)
                .annotate(seen=seen)
                .order_by("seen", "?")[: draw.drawn]
            )
    return chosen
