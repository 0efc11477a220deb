"""How often a sign-up or a password reset may be asked for: per address (the client's, behind
the proxy too, see lockout.client_address) and per e-mail address. Without limits a script
made 15 accounts in 5 s and sent 30 reset mails in about a second."""

from django.http import HttpRequest
from django_ratelimit.core import is_ratelimited

from progress.accounts.lockout import client_address

SIGNUPS_PER_ADDRESS = "10/h"
SIGNUPS_PER_EMAIL = "3/h"
RESETS_PER_ADDRESS = "10/h"
RESETS_PER_EMAIL = "3/h"

TOO_MANY_SIGNUPS = "Too many sign-ups from here in the last hour. Please try again later."
TOO_MANY_RESETS = (
    "Too many password-reset requests in the last hour. Please try again later, or check the "
    "mail already sent."
)


def _address(group: str, request: HttpRequest) -> str:
    return client_address(request) or ""


def _email(group: str, request: HttpRequest) -> str:
    return str(request.POST.get("email", "")).strip().lower()


def _counted(request: HttpRequest, group: str, key: object, rate: str) -> bool:
    return bool(
        is_ratelimited(request, group=group, key=key, rate=rate, method="POST", increment=True)
    )


def signup_limited(request: HttpRequest) -> bool:
    """Counts this sign-up and says whether it is over a limit (both counters move)."""
    by_address = _counted(request, "signup-address", _address, SIGNUPS_PER_ADDRESS)
    by_email = _counted(request, "signup-email", _email, SIGNUPS_PER_EMAIL)
    return by_address or by_email


def reset_limited(request: HttpRequest) -> bool:
    """Counts this reset request and says whether it is over a limit."""
    by_address = _counted(request, "reset-address", _address, RESETS_PER_ADDRESS)
    by_email = _counted(request, "reset-email", _email, RESETS_PER_EMAIL)
    return by_address or by_email
