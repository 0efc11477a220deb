"""The bank's lint where curators work: the admin's question list shows a summary of the
flags of the exam it lists (or of every exam), and a page lists them with a form to accept
each. Linting a bank of thousands of questions takes seconds, so the flags are kept in the
cache under what they depend on: the questions' count and last change, the exams' last
change (an acceptance touches them), and the day (a review goes stale with time)."""

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from django.core.cache import cache
from django.db.models import Count, Max
from django.utils import timezone

from questions.lint.bank import bank_flags
from questions.lint.flags import CODES, Flag
from questions.models import Exam, Question

CACHE_SECONDS = 24 * 60 * 60


@dataclass(frozen=True)
class Summary:
    flags: list[Flag]

    @property
    def open(self) -> list[Flag]:
        return [flag for flag in self.flags if not flag.accepted]

    @property
    def accepted(self) -> list[Flag]:
        return [flag for flag in self.flags if flag.accepted]

    @property
    def by_code(self) -> list[tuple[str, str, int]]:
        """(code, title, open flags) of each flag raised, in the list's order."""
        counts = Counter(flag.code for flag in self.open)
        return [(code, title, counts[code]) for code, title in CODES.items() if counts[code]]


def summary(exams: Sequence[Exam]) -> Summary:
    """The flags of these exams' questions, from the cache while nothing they depend on
    changed. One query on a hit (what they depend on); the lint's three more on a miss."""
    today = timezone.localdate()
    state = Question.objects.filter(topic__exam__in=exams).aggregate(
        count=Count("pk"), last=Max("updated_at")
    )
    exams_changed = max((exam.updated_at for exam in exams), default=None)
    depends_on = ":".join(
        str(part)
        for part in (
            ",".join(str(exam.pk) for exam in exams),
            state["count"],
            state["last"] and state["last"].isoformat(),
            exams_changed and exams_changed.isoformat(),
            today.isoformat(),
        )
    )
    # Hashed: the list of exams grows with the site, and cache keys have a length limit.
    key = "bank-lint:v2:" + hashlib.sha256(depends_on.encode()).hexdigest()
    flags = cache.get(key)
    if not isinstance(flags, list):
        flags = bank_flags(exams, today=today)
        cache.set(key, flags, CACHE_SECONDS)
    return Summary(flags)
