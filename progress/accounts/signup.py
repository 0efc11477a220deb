"""Sign-up that tells nobody whether an address is registered. The sign-up page takes only an
e-mail address and answers "check your inbox" whatever it is; the worker then mails the
address either a link to finish signing up (no account uses it) or a note that someone tried
to sign up with it (its owner). Whoever opens the link has proven the address, and only then
chooses a username and a password: the account is made at that moment.

The account is not made at sign-up: an inactive account made then would hold the address and
the username for whoever typed them, and would carry a password its owner never chose (mailed
to the real owner, one click on the link would hand the typist the account). The link is an
encrypted, authenticated and expiring token (cryptography's Fernet) of the address and where
to go after; it works while no account uses the address, so it works once. Encrypted, not
only signed: a signed token is base64 of the address, readable by anyone who sees the link (a
proxy's or the site's access log, the browser's history)."""

import json
from base64 import urlsafe_b64encode
from dataclasses import dataclass
from datetime import timedelta

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.mail import EmailMessage
from django.http import HttpRequest
from django.template import loader
from django.urls import reverse
from django.utils.crypto import salted_hmac

from progress.accounts.models import User

LINK_MAX_AGE = timedelta(days=3)
_SALT = "progress.accounts.signup"

NEW_ADDRESS_SUBJECT = "Finish creating your Courseiva account"
KNOWN_ADDRESS_SUBJECT = "Someone tried to sign up to Courseiva with your e-mail"

# The session key under which a visitor's invitation (a cohort's join page, which puts it
# there) waits while they sign in or sign up: those pages say which cohort and whose
# (registration/_invitation.html), and a sign-up made for it counts against it (limits.py).
INVITATION_SESSION_KEY = "invitation"


@dataclass(frozen=True)
class SignupClaim:
    """What a sign-up link proves: its holder reads this address's mail."""

    email: str
    next_url: str


def _fernet() -> MultiFernet:
    """The link's keys, derived from SECRET_KEY (new links) and SECRET_KEY_FALLBACKS (links
    made before a key rotation still open): 32 bytes each, half to sign, half to encrypt."""
    secrets = [settings.SECRET_KEY, *settings.SECRET_KEY_FALLBACKS]
    return MultiFernet(
        [
            Fernet(
                urlsafe_b64encode(salted_hmac(_SALT, "link", secret, algorithm="sha256").digest())
            )
            for secret in secrets
        ]
    )


def invitation_path(request: HttpRequest) -> str | None:
    """The join page this sign-up is for: the one this visitor opened (its invitation waits
    in their session), when the sign-up goes back to it. Not a page merely named by `next`,
    which anyone may write."""
    invitation = request.session.get(INVITATION_SESSION_KEY)
    path = invitation.get("path") if isinstance(invitation, dict) else None
    next_url = request.POST.get("next") or request.GET.get("next")
    return path if isinstance(path, str) and path and path == next_url else None


def signup_token(email: str, next_url: str) -> str:
    claim = json.dumps({"email": email, "next": next_url}).encode()
    # Without base64's padding: a mail client may leave a final "=" out of the link it makes.
    return _fernet().encrypt(claim).decode("ascii").rstrip("=")


def read_signup_token(token: str) -> SignupClaim | None:
    """The claim of a link still to be used; None when it was tampered with, is older than
    LINK_MAX_AGE, or an account uses its address already. Costs a query."""
    try:
        padded = token + "=" * (-len(token) % 4)
        plain = _fernet().decrypt(padded.encode(), ttl=int(LINK_MAX_AGE.total_seconds()))
        data = json.loads(plain)
    except (InvalidToken, UnicodeError, ValueError):  # expired links too
        return None
    if not isinstance(data, dict):
        return None
    email, next_url = data.get("email"), data.get("next")
    if not isinstance(email, str) or not isinstance(next_url, str) or not email:
        return None
    if User.objects.filter(email__iexact=email).exists():
        return None
    return SignupClaim(email=email, next_url=next_url)


def signup_message(email: str, next_url: str, origin: str) -> EmailMessage:
    """The mail a sign-up with this address gets: the link, or the note to its owner. Built
    by the worker, so that the sign-up request does the same work whoever owns the address.
    `origin` is the site's scheme and host, for the links."""
    owner = User.objects.filter(email__iexact=email).first()
    context = {
        "email": email,
        "sign_in_url": origin + reverse("login"),
        "reset_url": origin + reverse("password_reset"),
        "link_days": LINK_MAX_AGE.days,
    }
    if owner is None:
        token = signup_token(email, next_url)
        context["confirm_url"] = origin + reverse("signup_confirm", args=[token])
        subject, template = NEW_ADDRESS_SUBJECT, "registration/signup_email.txt"
    else:
        # To the address as the account spells it: a typed one may differ in case.
        email = owner.email
        context["username"] = owner.get_username()
        subject, template = KNOWN_ADDRESS_SUBJECT, "registration/signup_known_email.txt"
    return EmailMessage(subject, loader.render_to_string(template, context), to=[email])
