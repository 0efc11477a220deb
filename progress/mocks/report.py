"""What a submitted sitting's report shows: the score (scaled where the exam reports one),
by section and by blueprint domain (topic), and the learner's trend on the exam. The
learner's own report page and their instructors' view of it both use it."""

from typing import Any

from progress.charts import trend_chart
from progress.mocks.models import MockExam
from progress.readiness.standing import standings


def report_context(mock: MockExam) -> dict[str, Any]:
    """The report's template context. Three queries, and those of the learner's standing on
    the exam (the forecast now, set beside the one they had when they started)."""
    # A question withdrawn at submission was never graded (is_correct None): out of the
    # score, neither wrong nor unanswered.
    # A partly right answer (partial credit) is neither right nor wrong: its score counts.
    rows = mock.items.filter(is_correct__isnull=False).values_list(
        "position", "topic_id", "is_correct", "chosen_keys", "score"
    )
    positions = []
    items = []
    for position, topic_id, correct, chosen, score in rows:
        positions.append(position)
        items.append((topic_id, bool(correct), bool(chosen), float(score or 0.0)))
    topics = []
    for topic in mock.exam.topics.order_by("position", "slug"):
        drawn = [item[1:] for item in items if item[0] == topic.pk]
        right = sum(1 for correct, _, _ in drawn if correct)
        marks = sum(score for _, _, score in drawn)
        topics.append(
            {
                "topic": topic,
                "drawn": len(drawn),
                "right": right,
                "partly_right": sum(1 for correct, _, score in drawn if score and not correct),
                "unanswered": sum(1 for _, chosen, _ in drawn if not chosen),
                "percent": round(100 * marks / len(drawn)) if drawn else None,
            }
        )
    sections = []
    if mock.sections:
        for number, section in enumerate(mock.sitting_sections, start=1):
            drawn = [
                item[1:]
                for position, item in zip(positions, items, strict=True)
                if section.first <= position < section.end
            ]
            marks = sum(score for _, _, score in drawn)
            sections.append(
                {
                    "number": number,
                    "section": section,
                    "drawn": len(drawn),
                    "right": sum(1 for correct, _, _ in drawn if correct),
                    "unanswered": sum(1 for _, chosen, _ in drawn if not chosen),
                    "percent": round(100 * marks / len(drawn)) if drawn else None,
                }
            )
    history = list(
        MockExam.objects.submitted()
        .filter(learner_id=mock.learner_id, exam=mock.exam)
        .order_by("started_at")
    )
    current = next((i for i, sitting in enumerate(history) if sitting.pk == mock.pk), -1)
    chart = trend_chart(
        [(sitting.started_at, sitting.percent) for sitting in history],
        current,
        float(mock.pass_percent),
    )
    now = standings(mock.learner, [mock.exam])[0]
    unanswered = sum(1 for _, _, chosen, _ in items if not chosen)
    return {
        "mock": mock,
        "before": mock.forecast_before,
        "now": now.figures(),
        # The points the unanswered questions cost: the forecast assumes every one answered.
        "unanswered_points": 100 * unanswered / mock.counted if mock.counted else 0,
        "topics": topics,
        "sections": sections,
        "history": history,
        "chart": chart,
        # Answered wrong and left unanswered: both count against the score, for different
        # reasons (what was not known, and what there was no time for).
        "wrong": sum(1 for _, correct, chosen, score in items if chosen and not score),
        "unanswered": unanswered,
        "answered": len(items) - unanswered,
    }
