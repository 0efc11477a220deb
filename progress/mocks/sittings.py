"""The learner's submitted mock exams as the practice builder's sitting filters read them
("missed in my last N sittings", "not seen in my last N"): handed to practice at start-up
(progress/apps.py), which cannot read this room's tables."""

from datetime import datetime

from django.db.models import Subquery

from progress.mocks.models import MockExam, MockItem
from progress.practice.builder import Sitting


def latest_sittings(learner_id: int, exam_id: int, count: int) -> list[Sitting]:
    """The learner's latest `count` submitted mock exams of the exam, newest first: every
    question drawn was seen; one not fully right (unanswered included) was missed. One query."""
    latest = (
        MockExam.objects.filter(learner_id=learner_id, exam_id=exam_id)
        .submitted()
        .order_by("-started_at", "-pk")
        .values("pk")[:count]
    )
    rows = MockItem.objects.filter(mock__in=Subquery(latest), question__isnull=False).values_list(
        "mock_id", "mock__started_at", "question_id", "is_correct"
    )
    found: dict[int, tuple[datetime, set[int], set[int]]] = {}
    for mock_id, started_at, question_id, is_correct in rows:
        _, seen, missed = found.setdefault(mock_id, (started_at, set(), set()))
        seen.add(question_id)
        if is_correct is False:
            missed.add(question_id)
    sittings = [
        Sitting(at, frozenset(seen), frozenset(missed)) for at, seen, missed in found.values()
    ]
    return sorted(sittings, key=lambda sitting: sitting.started_at, reverse=True)
