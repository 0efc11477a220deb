"""Study analytics: totals, accuracy, time per answer, the streak and the last 30 days, read
from the daily totals that every recorded answer keeps (never from the attempts)."""

from datetime import timedelta
from typing import Any

from django.db.models import Sum
from django.utils import timezone

from progress.accounts.models import User
from progress.charts import daily_chart
from progress.practice.models import LearnerDay

# Days of daily totals read for the streak: a longer streak shows as this many days.
STREAK_HORIZON_DAYS = 400


def study_analytics(learner: User, days_shown: int = 30) -> dict[str, Any]:
    """Totals, the current streak and the last days' answers, from the stored daily totals
    (never from the attempts). Two queries."""
    today = timezone.localdate()
    recent = {
        row.day: row
        for row in LearnerDay.objects.filter(
            learner=learner, day__gt=today - timedelta(days=STREAK_HORIZON_DAYS)
        )
    }
    totals = LearnerDay.objects.filter(learner=learner).aggregate(
        answers=Sum("answers"),
        right=Sum("right"),
        partly_right=Sum("partly_right"),
        marks=Sum("marks"),
        timed=Sum("timed_answers"),
        seconds=Sum("seconds"),
    )
    # The streak counts back from today, or from yesterday when today has no answer yet.
    day = today if today in recent else today - timedelta(days=1)
    streak = 0
    while day in recent and recent[day].answers:
        streak += 1
        day -= timedelta(days=1)
    series: list[dict[str, Any]] = []
    for offset in range(days_shown - 1, -1, -1):
        day = today - timedelta(days=offset)
        row = recent.get(day)
        series.append(
            {
                "day": day,
                "label": day.strftime("%d %b"),
                "answers": row.answers if row else 0,
                "right": row.right if row else 0,
                "partly_right": row.partly_right if row else 0,
                "accuracy": round(100 * row.right / row.answers) if row and row.answers else None,
                "score": round(100 * row.marks / row.answers) if row and row.answers else None,
            }
        )
    answers = totals["answers"] or 0
    return {
        "answers": answers,
        # Fully right; with partial credit the score counts a partly right answer's share.
        "accuracy": round(100 * (totals["right"] or 0) / answers) if answers else None,
        "partly_right": totals["partly_right"] or 0,
        "score": round(100 * (totals["marks"] or 0) / answers) if answers else None,
        "seconds_per_answer": round((totals["seconds"] or 0) / totals["timed"])
        if totals["timed"]
        else None,
        "streak": streak,
        "series": series,
        "chart": daily_chart([(d["label"], d["answers"], d["right"]) for d in series]),
    }
