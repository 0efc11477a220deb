"""Small server-rendered SVG charts: no script, readable without colour (points are labelled
and the pass mark is a dashed line named in the chart), each with a text alternative in the
page beside it."""

from collections.abc import Sequence

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from progress.models import MockExam

WIDTH, HEIGHT = 560, 220
LEFT, RIGHT, TOP, BOTTOM = 44, 16, 20, 36


def trend_chart(sittings: Sequence[MockExam], current: MockExam) -> SafeString:
    """Scores of the learner's submitted sittings of one exam, oldest first, against the
    pass mark; the current sitting's point is drawn larger."""
    if not sittings:
        return mark_safe("")
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def y(percent: float) -> float:
        return TOP + plot_h * (1 - percent / 100)

    def x(index: int) -> float:
        if len(sittings) == 1:
            return LEFT + plot_w / 2
        return LEFT + index * plot_w / (len(sittings) - 1)

    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        'aria-labelledby="trend-title" xmlns="http://www.w3.org/2000/svg">'
        f'<title id="trend-title">Your mock exam scores over time, against the pass mark of '
        f"{round(current.pass_percent)}%</title>"
    ]
    for percent in (0, 50, 100):
        parts.append(
            f'<line x1="{LEFT}" y1="{y(percent):.1f}" x2="{WIDTH - RIGHT}" y2="{y(percent):.1f}" '
            f'class="grid"/><text x="{LEFT - 6}" y="{y(percent) + 4:.1f}" class="axis" '
            f'text-anchor="end">{percent}%</text>'
        )
    pass_y = y(float(current.pass_percent))
    parts.append(
        f'<line x1="{LEFT}" y1="{pass_y:.1f}" x2="{WIDTH - RIGHT}" y2="{pass_y:.1f}" '
        f'class="pass-line"/><text x="{WIDTH - RIGHT}" y="{pass_y - 5:.1f}" class="axis" '
        f'text-anchor="end">pass {round(current.pass_percent)}%</text>'
    )
    line = " ".join(f"{x(i):.1f},{y(s.percent):.1f}" for i, s in enumerate(sittings))
    parts.append(f'<polyline points="{line}" class="trend"/>')
    for index, sitting in enumerate(sittings):
        is_current = sitting.pk == current.pk
        px, py = x(index), y(sitting.percent)
        parts.append(
            f'<circle cx="{px:.1f}" cy="{py:.1f}" r="{7 if is_current else 4}" '
            f'class="point{" current" if is_current else ""}"/>'
            f'<text x="{px:.1f}" y="{py - 11:.1f}" text-anchor="middle" class="label">'
            f"{round(sitting.percent)}%</text>"
            f'<text x="{px:.1f}" y="{HEIGHT - 12}" text-anchor="middle" class="axis">'
            f"{escape(sitting.started_at.strftime('%d %b'))}</text>"
        )
    parts.append("</svg>")
    # Built from numbers and escaped text only.
    return mark_safe("".join(parts))  # noqa: S308
