"""Failed sign-ins lock in three ways, each with its own limit, all counted by django-axes in
the database over the cool-off (15 minutes; each failure counts until 15 minutes after the
last one of its account, address and browser):

- an account at one address, after AXES_FAILURE_LIMIT failures (5): a learner's typos, or a
  guesser, lock that account there and nowhere else. Locking the address, as before, locked
  every learner behind a school's network after one of them mistyped five times;
- an address, after AXES_ADDRESS_FAILURE_LIMIT failures across accounts (100): credential
  stuffing, one guess per account, never reaches an account's limit. A school's classes
  together mistype far fewer in 15 minutes, and a lock there would shut them all out; a
  stuffer keeps to 400 guesses an hour per address;
- an account, after AXES_ACCOUNT_FAILURE_LIMIT failures from any addresses (20): an account
  guessed from many. Above what a learner mistypes at school, at home and on the phone.

These also tell django-axes which account a sign-in is for, and warn the learner before a
lock comes."""

from typing import Any

from axes.attempts import get_cool_off_threshold
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username, get_cool_off, get_failure_limit
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Q, Sum
from django.db.models.functions import Coalesce
from django.http import HttpRequest

from progress.accounts.models import User

# Warn on the sign-in page once this few failures are left before the lock.
WARN_WHEN_ATTEMPTS_LEFT = 2


def lockout_warning(request: HttpRequest) -> str:
    """After a failed sign-in: how many more failures lock it, once few are left (the fewest
    of its three limits; see AccountAtAddressHandler). django-axes leaves the count on the
    request; without a count there is no warning."""
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


class AccountAtAddressHandler(AxesDatabaseHandler):
    """django-axes' database handler with a limit of its own for each way a sign-in locks
    (the module's docstring): django-axes has one limit for all, so that a class behind one
    address would share the limit of one account."""

    def failures_left(self, request: HttpRequest, credentials: dict[str, Any] | None) -> int:
        """How many more failures lock this sign-in: the fewest left of the account at this
        address, the address and the account. One query."""
        username = get_client_username(request, credentials)
        address = request.axes_ip_address  # type: ignore[attr-defined]

        def failures_of(which: Q) -> Coalesce:
            return Coalesce(Sum("failures_since_start", filter=which), 0)

        recent = AccessAttempt.objects.filter(
            Q(username=username) | Q(ip_address=address),
            attempt_time__gte=get_cool_off_threshold(request),
        )
        failures = recent.aggregate(
            here=failures_of(Q(username=username, ip_address=address)),
            address=failures_of(Q(ip_address=address)),
            account=failures_of(Q(username=username)),
        )
        return min(
            get_failure_limit(request, credentials) - failures["here"],
            settings.AXES_ADDRESS_FAILURE_LIMIT - failures["address"],
            settings.AXES_ACCOUNT_FAILURE_LIMIT - failures["account"],
        )

    def get_failures(self, request: HttpRequest, credentials: dict[str, Any] | None = None) -> int:
        """The failures counted against this sign-in on the scale of AXES_FAILURE_LIMIT, which
        django-axes compares them with (locked at the limit, warned below it): the limit less
        the fewest failures left before one of the three locks."""
        left = self.failures_left(request, credentials)
        return int(get_failure_limit(request, credentials)) - left

    def reset_user_attempts(
        self, request: HttpRequest, credentials: dict[str, Any] | None = None
    ) -> int:
        """After a successful sign-in, forgets that account's failures at this address only:
        django-axes' own reset forgets every failure from the address, so a stuffer would
        clear the address's count by signing in to an account of their own now and then,
        and a learner's success would unlock a classmate's typos."""
        username = get_client_username(request, credentials)
        address = request.axes_ip_address  # type: ignore[attr-defined]
        deleted, _ = AccessAttempt.objects.filter(username=username, ip_address=address).delete()
        return int(deleted)
