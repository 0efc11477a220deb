"""Sign up here (by e-mail, then the link it gets: see `progress.accounts.signup`); sign in,
sign out, password change and reset are Django's own views (see `progress.accounts.urls`) with
our forms and templates in `templates/registration/`."""

from typing import Any

from django.conf import settings
from django.contrib.auth import login
from django.contrib.auth.views import LogoutView, PasswordResetView
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods, require_safe

from progress.accounts.forms import (
    DUPLICATE_USERNAME,
    AccountForm,
    QueuedPasswordResetForm,
    SignupForm,
)
from progress.accounts.limits import (
    TOO_MANY_ACCOUNT_FORMS,
    TOO_MANY_RESETS,
    TOO_MANY_SIGNUPS,
    account_form_limited,
    reset_limited,
    signup_limited,
)
from progress.accounts.models import User
from progress.accounts.signup import LINK_MAX_AGE, read_signup_token
from progress.accounts.tasks import send_signup_email


def _safe_next(request: HttpRequest, candidate: str) -> str:
    """`candidate` when it stays on this site, else the learner's dashboard."""
    if candidate and url_has_allowed_host_and_scheme(
        candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return candidate
    return reverse("progress_home")


def _origin(request: HttpRequest) -> str:
    """The scheme and host the links of a mail start with: SITE_URL, else this request's."""
    return settings.SITE_URL or f"{request.scheme}://{request.get_host()}"


@require_http_methods(["GET", "HEAD", "POST"])
@never_cache
def signup(request: HttpRequest) -> HttpResponse:
    """Whatever the address, a valid one gets the same answer, a redirect to "check your
    inbox", after the same work: counting it, and enqueueing its mail, which the worker
    chooses. The request never asks whether the address is registered."""
    if request.user.is_authenticated:
        return redirect("progress_home")
    status = 200
    if request.method == "POST":
        form = SignupForm(request.POST)
        if signup_limited(request):
            form.full_clean()
            form.add_error(None, TOO_MANY_SIGNUPS)
            status = 429
        elif form.is_valid():
            next_url = _safe_next(request, request.POST.get("next") or request.GET.get("next", ""))
            send_signup_email.enqueue(form.cleaned_data["email"], next_url, _origin(request))
            return redirect("signup_sent")
        else:
            status = 400
    else:
        form = SignupForm()
    next_url = request.POST.get("next") or request.GET.get("next") or ""
    return TemplateResponse(
        request, "registration/signup.html", {"form": form, "next": next_url}, status=status
    )


@require_safe
def signup_sent(request: HttpRequest) -> HttpResponse:
    context = {"link_days": LINK_MAX_AGE.days}
    return TemplateResponse(request, "registration/signup_sent.html", context)


@require_http_methods(["GET", "HEAD", "POST"])
@sensitive_post_parameters("password1", "password2")
@never_cache
def signup_confirm(request: HttpRequest, token: str) -> HttpResponse:
    """The sign-up link: choose a username and a password, and the account is made, signed
    in, and sent where the sign-up was going (a cohort's join page, say)."""
    if request.user.is_authenticated:
        return redirect("progress_home")
    claim = read_signup_token(token)
    if claim is None:
        return TemplateResponse(request, "registration/signup_link_invalid.html", status=400)
    status = 200
    if request.method == "POST":
        form = AccountForm(claim.email, request.POST)
        if account_form_limited(request, claim.email):
            form.full_clean()
            form.add_error(None, TOO_MANY_ACCOUNT_FORMS)
            status = 429
        elif form.is_valid():
            try:
                # Two posts of the form at once (two tabs of the link, or two links of one
                # address) both pass its checks; the unique constraints let one in.
                with transaction.atomic():
                    user = form.save()
            except IntegrityError:
                if User.objects.filter(email__iexact=claim.email).exists():
                    return TemplateResponse(
                        request, "registration/signup_link_invalid.html", status=400
                    )
                form.add_error("username", DUPLICATE_USERNAME)
            else:
                login(request, user, backend="progress.accounts.backends.UsernameOrEmailBackend")
                return HttpResponseRedirect(_safe_next(request, claim.next_url))
        status = status if status == 429 else 400
    else:
        form = AccountForm(claim.email)
    context = {"form": form, "email": claim.email, "next": claim.next_url}
    return TemplateResponse(request, "registration/signup_confirm.html", context, status=status)


class LimitedPasswordResetView(PasswordResetView):
    """Django's reset page, its mail sent by the worker, refused with a 429 (and no mail) past
    the limits per address and per e-mail address (see limits.py)."""

    form_class = QueuedPasswordResetForm

    def form_valid(self, form: Any) -> HttpResponse:
        if reset_limited(self.request):
            form.add_error(None, TOO_MANY_RESETS)
            return self.render_to_response(self.get_context_data(form=form), status=429)
        return super().form_valid(form)


class SignOutView(LogoutView):
    """Django's sign-out, which also asks the browser to drop what this site kept in it: a
    mock sitting's pages kept for offline use and its answers waiting to be sent, so that the
    next person at a shared computer finds none of them (Clear-Site-Data)."""

    def post(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        response = super().post(request, *args, **kwargs)
        response["Clear-Site-Data"] = '"cache", "storage"'
        return response
