"""Extra time in mock exams, as WCAG 2.2.1 (Timing Adjustable) asks and exam boards grant it:
1.25, 1.5 or 2 times the exam's time, or no limit. The server holds the adjusted deadline;
the page only shows it.

Allowances are granted by a cohort's instructors, to the cohort or to one of its learners:
the cohorts room's, which this room cannot import. Its look-up is handed in at start-up
(progress/apps.py) and asked when a sitting starts and when its time is shown."""

from collections.abc import Callable, Iterable
from decimal import Decimal

from django.db import models


class Allowance(models.TextChoices):
    STANDARD = "1", "Standard time"
    QUARTER = "1.25", "1.25 times the time"
    HALF = "1.5", "1.5 times the time"
    DOUBLE = "2", "Double time"
    UNTIMED = "untimed", "Untimed"


# From the least time to the most: of several grants, the most generous holds.
GENEROSITY = [Allowance.STANDARD, Allowance.QUARTER, Allowance.HALF, Allowance.DOUBLE,
              Allowance.UNTIMED]  # fmt: skip
# An untimed sitting still ends, so that one left open is submitted some day.
UNTIMED_MINUTES = 30 * 24 * 60


def most_generous(grants: Iterable[str]) -> Allowance:
    known = [Allowance(grant) for grant in grants if grant in Allowance.values]
    return max(known, key=GENEROSITY.index, default=Allowance.STANDARD)


def minutes_with(minutes: int, allowance: str) -> int:
    """The sitting's minutes under the allowance (rounded up: a grant never shortens)."""
    if allowance == Allowance.UNTIMED:
        return UNTIMED_MINUTES
    exact = Decimal(minutes) * Decimal(allowance)
    return int(exact.to_integral_value(rounding="ROUND_CEILING"))


def _no_grants(learner_id: int, exam_id: int) -> Allowance:
    return Allowance.STANDARD


_lookup: list[Callable[[int, int], Allowance]] = [_no_grants]


def on_lookup(lookup: Callable[[int, int], Allowance]) -> None:
    """Hand in how a learner's allowance on an exam is found (the cohorts room does)."""
    _lookup[0] = lookup


def allowance_for(learner_id: int, exam_id: int) -> Allowance:
    """The learner's allowance on the exam: one query (the handed-in look-up's)."""
    return _lookup[0](learner_id, exam_id)
