"""Accounts: sign up here; sign in, sign out, password change and reset are Django's own views
(see `progress.accounts_urls`) with the forms below and templates in `templates/registration/`.

django-axes counts failed sign-ins per account and per address and locks either after
AXES_FAILURE_LIMIT failures; `LoginForm` warns before the lock comes.
"""

from typing import Any

from axes.helpers import get_cool_off, get_failure_limit
from django.contrib.auth import login
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods

from progress.models import User

# Warn on the sign-in page once this few failures are left before the lock.
WARN_WHEN_ATTEMPTS_LEFT = 2
DUPLICATE_EMAIL = "An account with this e-mail already exists."
DUPLICATE_USERNAME = "That username is taken. Choose another one."


class SignupForm(UserCreationForm[User]):
    """Django's password validators run through UserCreationForm (on `password2`)."""

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        email = self.fields["email"]
        email.required = True
        email.label = "E-mail"
        email.help_text = "For resetting your password. You can sign in with it, too."
        email.widget.attrs["autocomplete"] = "email"
        username = self.fields["username"]
        username.help_text = "Letters, digits and . + - _ only, up to 150 characters."

    def clean_username(self) -> str:
        username = self.cleaned_data.get("username")
        # Sign-in treats anything with an @ as an e-mail: a username that looks like one
        # could be mistaken for another learner's address.
        if username and "@" in username:
            raise ValidationError(
                "A username cannot contain @. Put your e-mail in the E-mail field."
            )
        return super().clean_username()

    def clean_email(self) -> str:
        email: str = self.cleaned_data["email"].strip()
        if User.objects.filter(email__iexact=email).exists():
            raise ValidationError(DUPLICATE_EMAIL, code="unique")
        return email


class LoginForm(AuthenticationForm):
    """Sign in with a username or an e-mail (see `progress.auth.UsernameOrEmailBackend`)."""

    error_messages = {
        **AuthenticationForm.error_messages,
        "invalid_login": (
            "That username or e-mail and password do not match an account. "
            "Passwords are case-sensitive."
        ),
    }

    def __init__(self, request: HttpRequest | None = None, *args: Any, **kwargs: Any) -> None:
        super().__init__(request, *args, **kwargs)
        self.fields["username"].label = "Username or e-mail"

    def get_invalid_login_error(self) -> ValidationError:
        error = super().get_invalid_login_error()
        warning = lockout_warning(self.request) if self.request is not None else ""
        if warning:
            return ValidationError([error, ValidationError(warning, code="lockout_warning")])
        return error


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


def _next_url(request: HttpRequest) -> str:
    """The `next` parameter when it stays on this site, else the learner's dashboard."""
    candidate = request.POST.get("next") or request.GET.get("next") or ""
    if candidate and url_has_allowed_host_and_scheme(
        candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return candidate
    return reverse("progress_home")


@require_http_methods(["GET", "HEAD", "POST"])
@sensitive_post_parameters("password1", "password2")
@never_cache
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("progress_home")
    status = 200
    if request.method == "POST":
        form = SignupForm(request.POST)
        if form.is_valid():
            try:
                # Two sign-ups with the same username or e-mail at once both pass the form's
                # checks; the database's unique constraints let only one of them in.
                with transaction.atomic():
                    user = form.save()
            except IntegrityError:
                if User.objects.filter(email__iexact=form.cleaned_data["email"]).exists():
                    form.add_error("email", DUPLICATE_EMAIL)
                else:
                    form.add_error("username", DUPLICATE_USERNAME)
            else:
                login(request, user, backend="progress.auth.UsernameOrEmailBackend")
                return HttpResponseRedirect(_next_url(request))
        status = 400
    else:
        form = SignupForm()
    next_url = request.POST.get("next") or request.GET.get("next") or ""
    return TemplateResponse(
        request, "registration/signup.html", {"form": form, "next": next_url}, status=status
    )
