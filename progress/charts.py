"""Small server-rendered SVG charts: no script, readable without colour (points are labelled
and the pass mark is a dashed line named in the chart), each with a text alternative in the
page beside it."""

from collections.abc import Sequence
from datetime import datetime

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

WIDTH, HEIGHT = 560, 220
LEFT, RIGHT, TOP, BOTTOM = 44, 16, 20, 36


def trend_chart(
    sittings: Sequence[tuple[datetime, float]], current: int, pass_percent: float
) -> SafeString:
    """Scores of the learner's submitted sittings of one exam, (started, percent) oldest
    first, against the pass mark; the point of sitting number `current` is drawn larger."""
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
        f"{round(pass_percent)}%</title>"
    ]
    for tick in (0, 50, 100):
        parts.append(
            f'<line x1="{LEFT}" y1="{y(tick):.1f}" x2="{WIDTH - RIGHT}" y2="{y(tick):.1f}" '
            f'class="grid"/><text x="{LEFT - 6}" y="{y(tick) + 4:.1f}" class="axis" '
            f'text-anchor="end">{tick}%</text>'
        )
    pass_y = y(pass_percent)
    parts.append(
        f'<line x1="{LEFT}" y1="{pass_y:.1f}" x2="{WIDTH - RIGHT}" y2="{pass_y:.1f}" '
        f'class="pass-line"/><text x="{WIDTH - RIGHT}" y="{pass_y - 5:.1f}" class="axis" '
        f'text-anchor="end">pass {round(pass_percent)}%</text>'
    )
    line = " ".join(f"{x(i):.1f},{y(percent):.1f}" for i, (_, percent) in enumerate(sittings))
    parts.append(f'<polyline points="{line}" class="trend"/>')
    for index, (started, percent) in enumerate(sittings):
        is_current = index == current
        px, py = x(index), y(percent)
        parts.append(
            f'<circle cx="{px:.1f}" cy="{py:.1f}" r="{7 if is_current else 4}" '
            f'class="point{" current" if is_current else ""}"/>'
            f'<text x="{px:.1f}" y="{py - 11:.1f}" text-anchor="middle" class="label">'
            f"{round(percent)}%</text>"
            f'<text x="{px:.1f}" y="{HEIGHT - 12}" text-anchor="middle" class="axis">'
            f"{escape(started.strftime('%d %b'))}</text>"
        )
    parts.append("</svg>")
    # Built from numbers and escaped text only.
    return mark_safe("".join(parts))  # noqa: S308


def daily_chart(series: Sequence[tuple[str, int, int]]) -> SafeString:
    """Answers per day (bars, the right ones filled darker) for the last days; `series` is
    (label, answers, right) per day, oldest first. The page carries the same as a table."""
    if not any(count for _, count, _ in series):
        return mark_safe("")
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    top = max(count for _, count, _ in series)
    slot = plot_w / len(series)
    bar = max(slot - 3, 2)
    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        'aria-labelledby="daily-title daily-desc" xmlns="http://www.w3.org/2000/svg">'
        '<title id="daily-title">Answers per day, last 30 days</title>'
        f'<desc id="daily-desc">Most in one day: {top}. Darker part: answered right.</desc>'
        f'<line x1="{LEFT}" y1="{TOP + plot_h}" x2="{WIDTH - RIGHT}" y2="{TOP + plot_h}" '
        f'class="grid"/><text x="{LEFT - 6}" y="{TOP + 4}" class="axis" text-anchor="end">'
        f"{top}</text>"
    ]
    for index, (label, count, right) in enumerate(series):
        x = LEFT + index * slot
        height = plot_h * count / top
        right_height = plot_h * right / top
        parts.append(
            f'<rect x="{x:.1f}" y="{TOP + plot_h - height:.1f}" width="{bar:.1f}" '
            f'height="{height:.1f}" class="bar"/><rect x="{x:.1f}" '
            f'y="{TOP + plot_h - right_height:.1f}" width="{bar:.1f}" '
            f'height="{right_height:.1f}" class="bar-right"/>'
        )
        if (len(series) - 1 - index) % 7 == 0:  # weekly labels, ending today
            parts.append(
                f'<text x="{x + bar / 2:.1f}" y="{HEIGHT - 12}" text-anchor="middle" '
                f'class="axis">{escape(label)}</text>'
            )
    parts.append("</svg>")
    # Built from numbers and escaped text only.
    return mark_safe("".join(parts))  # noqa: S308


def readiness_chart(
    rows: Sequence[tuple[str, float, float, float]], pass_percent: float | None, chart_id: str
) -> SafeString:
    """Readiness per topic as horizontal bars with their 80% range drawn as a whisker, and the
    pass mark as a dashed line; `rows` is (topic, percent, low, high), weakest first. Every bar
    carries its number, so colour is never the only signal; the page has the same as a table."""
    if not rows:
        return mark_safe("")
    # Narrower than the other charts, so that on a phone it is scaled down less.
    width, label_w, right, row_h, top = 420, 160, 44, 30, 24
    plot_w = width - label_w - right
    height = top + row_h * len(rows) + 16

    def x(percent: float) -> float:
        return label_w + plot_w * max(0.0, min(percent, 100.0)) / 100

    title = f"{chart_id}-title"
    parts = [
        f'<svg class="chart readiness-chart" viewBox="0 0 {width} {height}" role="img" '
        f'aria-labelledby="{title} {chart_id}-desc" xmlns="http://www.w3.org/2000/svg">'
        f'<title id="{title}">Expected percent right per topic, weakest first, with the '
        "range it is 80% likely to lie in"
        + (f", against the pass mark of {round(pass_percent)}%" if pass_percent else "")
        + "</title>"
        + f'<desc id="{chart_id}-desc">'
        + escape(
            "; ".join(
                f"{name}: {round(percent)}% ({round(low)} to {round(high)}%)"
                for name, percent, low, high in rows
            )
        )
        + "</desc>"
    ]
    for tick in (0, 50, 100):
        parts.append(
            f'<line x1="{x(tick):.1f}" y1="{top - 6}" x2="{x(tick):.1f}" '
            f'y2="{height - 8}" class="grid"/><text x="{x(tick):.1f}" y="{top - 10}" '
            f'class="axis" text-anchor="middle">{tick}%</text>'
        )
    for index, (name, percent, low, high) in enumerate(rows):
        y = top + index * row_h
        short = name if len(name) <= 20 else name[:19].rstrip() + "…"
        parts.append(
            f'<text x="{label_w - 8}" y="{y + 17}" class="axis" text-anchor="end">'
            f"{escape(short)}</text>"
            f'<rect x="{label_w}" y="{y + 6}" width="{x(percent) - label_w:.1f}" height="16" '
            f'class="bar"/>'
            f'<line x1="{x(low):.1f}" y1="{y + 14}" x2="{x(high):.1f}" y2="{y + 14}" '
            f'class="whisker"/><line x1="{x(low):.1f}" y1="{y + 8}" x2="{x(low):.1f}" '
            f'y2="{y + 20}" class="whisker"/><line x1="{x(high):.1f}" y1="{y + 8}" '
            f'x2="{x(high):.1f}" y2="{y + 20}" class="whisker"/>'
            f'<text x="{width - right + 6}" y="{y + 18}" class="label">{round(percent)}%</text>'
        )
    if pass_percent:
        parts.append(
            f'<line x1="{x(pass_percent):.1f}" y1="{top - 4}" x2="{x(pass_percent):.1f}" '
            f'y2="{height - 8}" class="pass-line"/><text x="{x(pass_percent) + 4:.1f}" '
            f'y="{height - 1}" class="axis">pass {round(pass_percent)}%</text>'
        )
    parts.append("</svg>")
    # Built from numbers and escaped text only.
    return mark_safe("".join(parts))  # noqa: S308


def allocation_chart(rows: Sequence[tuple[str, int]], chart_id: str) -> SafeString:
    """Where a study plan puts its questions: one horizontal bar per topic, `rows` being
    (topic, questions), most first. Every bar carries its number; the page has the same as a
    table."""
    if not rows or not any(count for _, count in rows):
        return mark_safe("")
    width, label_w, right, row_h, top = 420, 160, 52, 28, 8
    plot_w = width - label_w - right
    height = top + row_h * len(rows) + 4
    most = max(count for _, count in rows)
    title = f"{chart_id}-title"
    parts = [
        f'<svg class="chart readiness-chart" viewBox="0 0 {width} {height}" role="img" '
        f'aria-labelledby="{title} {chart_id}-desc" xmlns="http://www.w3.org/2000/svg">'
        f'<title id="{title}">Questions the plan gives each topic until the exam</title>'
        f'<desc id="{chart_id}-desc">'
        + escape("; ".join(f"{name}: {count}" for name, count in rows))
        + "</desc>"
    ]
    for index, (name, count) in enumerate(rows):
        y = top + index * row_h
        short = name if len(name) <= 20 else name[:19].rstrip() + "…"
        parts.append(
            f'<text x="{label_w - 8}" y="{y + 15}" class="axis" text-anchor="end">'
            f"{escape(short)}</text>"
            f'<rect x="{label_w}" y="{y + 4}" width="{plot_w * count / most:.1f}" height="16" '
            f'class="bar"/><text x="{label_w + plot_w * count / most + 6:.1f}" y="{y + 16}" '
            f'class="label">{count}</text>'
        )
    parts.append("</svg>")
    # Built from numbers and escaped text only.
    return mark_safe("".join(parts))  # noqa: S308
