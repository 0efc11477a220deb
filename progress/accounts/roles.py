"""What the header and the sign-in need to know of the signed-in user's role, without asking
the database on every page: whether they teach is read at sign-in (Django's permission check
costs two queries) and kept in the session. A role granted or withdrawn shows from the next
sign-in; the instructor's pages check the permission themselves on every request."""

from typing import Any

from django.conf import settings
from django.contrib.auth.views import LoginView
from django.http import HttpRequest
from django.urls import reverse

from progress.accounts.forms import LoginForm

TEACHES_SESSION_KEY = "teaches"


def learn_role(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    """On every sign-in (user_logged_in): remember whether the user teaches."""
    if request is not None and hasattr(request, "session"):
        request.session[TEACHES_SESSION_KEY] = bool(user.is_instructor)


def teaches(request: HttpRequest) -> bool:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return False
    known = request.session.get(TEACHES_SESSION_KEY)
    if known is None:  # a session from before the role was kept: learn it once
        known = bool(user.is_instructor)
        request.session[TEACHES_SESSION_KEY] = known
    return bool(known)


def role(request: HttpRequest) -> dict[str, Any]:
    """`teaches`: the header shows "Teaching" to instructors (and admins)."""
    return {"teaches": teaches(request)}


class SignInView(LoginView):
    """Sign-in landing where the user works: instructors on their cohorts, learners on their
    progress (a `next` link still wins)."""

    authentication_form = LoginForm

    def get_default_redirect_url(self) -> str:
        if teaches(self.request):
            return reverse("instructor_home")
        return reverse(settings.LOGIN_REDIRECT_URL)
