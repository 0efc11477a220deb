"""The weekly digest an instructor gets by e-mail (the worker sends it on the schedule, see
`progress.cohorts.tasks`): per cohort they teach, the learners at risk and why, and the class's
pass likelihood against the last digest's. Instructors turn it off on their cohorts page."""

import statistics
from dataclasses import dataclass
from datetime import date

from django.conf import settings
from django.core.mail import EmailMessage
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from progress.accounts.models import User
from progress.cohorts.models import Cohort
from progress.cohorts.table import cohort_table


def absolute(path: str) -> str:
    """A link for an e-mail: on SITE_URL when it is set (without it, the path alone)."""
    return f"{settings.SITE_URL}{path}"


@dataclass
class CohortDigest:
    cohort: Cohort
    learners: int
    at_risk: list[tuple[str, list[str]]]  # (username, reasons), as the cohort page orders them
    mean_pass: float | None  # the class's mean pass likelihood (0..1), over those with one
    with_pass: int  # learners with a pass likelihood
    previous: dict  # the figures of the last digest (Cohort.digest_figures)
    link: str

    @property
    def trend(self) -> str:
        """The class's pass likelihood against the last digest, in words."""
        if self.mean_pass is None:
            return "no learner has a pass likelihood yet"
        now = f"{100 * self.mean_pass:.0f}% on average over {self.with_pass} learners"
        before = self.previous.get("pass")
        if before is None:
            return f"{now} (the first figure of this digest)"
        change = round(100 * (self.mean_pass - before))
        if change == 0:
            return f"{now}, as last week"
        return f"{now}, {'up' if change > 0 else 'down'} {abs(change)} points on last week"

    def figures(self, today: date) -> dict:
        """What the next digest measures its trend from."""
        return {"on": today.isoformat(), "pass": self.mean_pass, "at_risk": len(self.at_risk)}


def cohort_digest(cohort: Cohort, today: date) -> CohortDigest:
    """The digest of one cohort, from its table (figures refreshed first, as on its page)."""
    rows = cohort_table(cohort, page_size=None, today=today).rows
    likelihoods = [r.pass_probability for r in rows if r.pass_probability is not None]
    return CohortDigest(
        cohort=cohort,
        learners=len(rows),
        at_risk=[(r.learner.get_username(), r.risks) for r in rows if r.risks],
        mean_pass=statistics.fmean(likelihoods) if likelihoods else None,
        with_pass=len(likelihoods),
        previous=cohort.digest_figures or {},
        link=absolute(cohort.get_absolute_url()),
    )


def digest_recipients() -> list[User]:
    """Instructors (and admins) who teach a cohort, have an e-mail address and have not
    turned the digest off."""
    users = (
        User.objects.filter(weekly_digest=True, is_active=True, teaching__isnull=False)
        .exclude(email="")
        .distinct()
        .order_by("pk")
    )
    return [user for user in users if user.is_superuser or user.is_instructor]


def digest_message(user: User, digests: list[CohortDigest]) -> EmailMessage:
    context = {
        "user": user,
        "digests": digests,
        "settings_link": absolute(reverse("instructor_home")),
    }
    body = render_to_string("progress/cohorts/digest_email.txt", context)
    at_risk = sum(len(d.at_risk) for d in digests)
    subject = f"Your cohorts this week: {at_risk} learner{'s' if at_risk != 1 else ''} at risk"
    return EmailMessage(subject, body, to=[user.email])


def send_weekly_digests(today: date | None = None) -> int:
    """Mail each instructor who wants it the digest of the cohorts they teach, then keep each
    cohort's figures for next week's trend. Returns the number of e-mails sent."""
    today = today or timezone.localdate()
    digests: dict[int, CohortDigest] = {}
    sent = 0
    for user in digest_recipients():
        mine = []
        for cohort in user.teaching.select_related("exam").order_by("name"):
            if cohort.pk not in digests:
                digests[cohort.pk] = cohort_digest(cohort, today)
            mine.append(digests[cohort.pk])
        if mine:
            sent += digest_message(user, mine).send()
    for digest in digests.values():
        Cohort.objects.filter(pk=digest.cohort.pk).update(digest_figures=digest.figures(today))
    return sent
