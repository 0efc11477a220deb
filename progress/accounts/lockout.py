"""django-axes counts failed sign-ins per account and per address and locks either after
AXES_FAILURE_LIMIT failures: these tell it which account a sign-in is for, and warn the learner
before the lock comes."""

from typing import Any

from axes.helpers import get_cool_off, get_failure_limit
from django.http import HttpRequest

from progress.accounts.models import User

# Warn on the sign-in page once this few failures are left before the lock.
WARN_WHEN_ATTEMPTS_LEFT = 2


def lockout_warning(request: HttpRequest) -> str:
    """After a failed sign-in: how many more failures lock it, once few are left. django-axes'
    database and cache handlers leave the count on the request (the higher of the account's
    and the address's); without a count there is no warning."""
    failures = getattr(request, "axes_failures_since_start", None)
    if not isinstance(failures, int):
        return ""
    left = get_failure_limit(request, None) - failures
    if not 0 < left <= WARN_WHEN_ATTEMPTS_LEFT:
        return ""
    attempts = "failed attempt" if left == 1 else "failed attempts"
    cool_off = get_cool_off(request)
    if cool_off is None:
        return f"{left} more {attempts} will lock sign-in."
    minutes = max(1, round(cool_off.total_seconds() / 60))
    return f"{left} more {attempts} will lock sign-in for {minutes} minutes."


def axes_username(request: HttpRequest, credentials: dict[str, Any] | None) -> str | None:
    """For AXES_USERNAME_CALLABLE: the account a sign-in is for, so that its username and its
    e-mail in any case count as one account. An unknown e-mail counts in lower case.
    Costs a query when the typed name has an @."""
    typed = credentials.get("username") if credentials else request.POST.get("username")
    if not isinstance(typed, str) or "@" not in typed:
        return typed
    typed = typed.strip()
    username = User.objects.filter(email__iexact=typed).values_list("username", flat=True).first()
    return username or typed.lower()
