"""How often a sign-up or a password reset may be asked for: per address (the client's, behind
the proxy too, see courseiva.lib.client) and per e-mail address. Without limits a script
made 15 accounts in 5 s and sent 30 reset mails in about a second. The form behind a sign-up
link is limited per link: it is the one page that says a username is taken.

A sign-up through a cohort's join link counts against the link instead of the address: a
class behind one school's network, opening the link together at the start of a lesson, is
forty sign-ups from one address in minutes. The limits count in the "limits" cache, which
every process shares (courseiva/settings.py)."""

from collections.abc import Callable

from django.http import HttpRequest
from django_ratelimit.core import is_ratelimited

from courseiva.lib.client import client_address
from progress.accounts.signup import invitation_path

SIGNUPS_PER_ADDRESS = "10/h"
SIGNUPS_PER_EMAIL = "3/h"
# More than the largest class that signs up together (a lecture of 80, with a fifth of them
# trying again after a typo in their address), and few for a script that holds a link: a
# hundred mails an hour, still 3 per e-mail address, and the instructor can replace the link.
SIGNUPS_PER_INVITATION = "100/h"
ACCOUNT_FORMS_PER_LINK = "10/h"
RESETS_PER_ADDRESS = "10/h"
RESETS_PER_EMAIL = "3/h"

TOO_MANY_SIGNUPS = "Too many sign-ups from here in the last hour. Please try again later."
TOO_MANY_ACCOUNT_FORMS = "Too many tries with this link in the last hour. Please try again later."
TOO_MANY_RESETS = (
    "Too many password-reset requests in the last hour. Please try again later, or check the "
    "mail already sent."
)


def _address(group: str, request: HttpRequest) -> str:
    return client_address(request) or ""


def _email(group: str, request: HttpRequest) -> str:
    return str(request.POST.get("email", "")).strip().lower()


def _always(value: str) -> Callable[[str, HttpRequest], str]:
    """A counter's key that is this value whatever the request (a link's, not the address)."""
    return lambda group, request: value


def _counted(request: HttpRequest, group: str, key: object, rate: str) -> bool:
    return bool(
        is_ratelimited(request, group=group, key=key, rate=rate, method="POST", increment=True)
    )


def signup_limited(request: HttpRequest) -> bool:
    """Counts this sign-up and says whether it is over a limit (both counters move): per
    e-mail, and per cohort join link for a visitor who came through one, else per address.
    Costs a query for a visitor with a session, and one per counter without Redis."""
    invitation = invitation_path(request)
    if invitation is None:
        by_source = _counted(request, "signup-address", _address, SIGNUPS_PER_ADDRESS)
    else:
        by_source = _counted(
            request, "signup-invitation", _always(invitation), SIGNUPS_PER_INVITATION
        )
    by_email = _counted(request, "signup-email", _email, SIGNUPS_PER_EMAIL)
    return by_source or by_email


def account_form_limited(request: HttpRequest, email: str) -> bool:
    """Counts this post of the form behind the sign-up link of `email`: a link could
    otherwise ask about username after username. Per link rather than per client address, so
    that a class signing up from one school network is not refused."""
    return _counted(request, "account-link", _always(email.lower()), ACCOUNT_FORMS_PER_LINK)


def reset_limited(request: HttpRequest) -> bool:
    """Counts this reset request and says whether it is over a limit."""
    by_address = _counted(request, "reset-address", _address, RESETS_PER_ADDRESS)
    by_email = _counted(request, "reset-email", _email, RESETS_PER_EMAIL)
    return by_address or by_email
