from datetime import datetime, timedelta
from typing import Any

from django import template
from django.utils import timezone
from django.utils.timesince import timesince

register = template.Library()


@register.filter
def duration(value: timedelta | None) -> str:
    """`{{ attempt.time_spent|duration }}`: "45 s", "3 min 05 s", "1 h 02 min"."""
    if value is None:
        return ""
    seconds = max(0, round(value.total_seconds()))
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    if minutes:
        return f"{minutes} min {seconds:02d} s"
    return f"{seconds} s"


@register.filter
def seconds_as_clock(value: int) -> str:
    """`{{ seconds_left|seconds_as_clock }}`: 1:05:09, or 42:07 under an hour."""
    hours, rest = divmod(max(0, int(value)), 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"


@register.filter
def percent(value: float | None) -> str:
    """`{{ forecast.pass_probability|percent }}`: a probability (0 to 1) as "74%"."""
    if value is None:
        return ""
    return f"{round(100 * float(value))}%"


@register.filter
def get_item(mapping: dict[Any, Any] | None, key: Any) -> Any:
    """`{{ readiness_of|get_item:topic.pk }}`: a dictionary's value, or None."""
    return mapping.get(key) if mapping else None


@register.filter
def signed_points(value: float | None) -> str:
    """`{{ change|signed_points }}`: a change in percentage points as "+4 points", "\u22122
    points" (a true minus sign, which screen readers say as "minus"), "no change" under half
    a point."""
    if value is None:
        return ""
    points = round(float(value))
    if points == 0:
        return "no change"
    sign = "+" if points > 0 else "\u2212"
    return f"{sign}{abs(points)} point{'' if abs(points) == 1 else 's'}"


@register.filter
def ago(value: datetime | None) -> str:
    """`{{ computed_at|ago }}`: "just now" under a minute, else "4 minutes ago"."""
    if value is None:
        return ""
    if timezone.now() - value < timedelta(minutes=1):
        return "just now"
    return f"{timesince(value)} ago"
