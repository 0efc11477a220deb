"""Sign up here; sign in, sign out, password change and reset are Django's own views (see
`progress.accounts.urls`) with our forms and templates in `templates/registration/`."""

from typing import Any

from django.contrib.auth import login
from django.contrib.auth.views import PasswordResetView
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods

from progress.accounts.forms import (
    DUPLICATE_EMAIL,
    DUPLICATE_USERNAME,
    QueuedPasswordResetForm,
    SignupForm,
)
from progress.accounts.limits import (
    TOO_MANY_RESETS,
    TOO_MANY_SIGNUPS,
    reset_limited,
    signup_limited,
)
from progress.accounts.models import User


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
        if signup_limited(request):
            form.full_clean()
            form.add_error(None, TOO_MANY_SIGNUPS)
            status = 429
        elif form.is_valid():
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
                login(request, user, backend="progress.accounts.backends.UsernameOrEmailBackend")
                return HttpResponseRedirect(_next_url(request))
        status = status if status == 429 else 400
    else:
        form = SignupForm()
    next_url = request.POST.get("next") or request.GET.get("next") or ""
    return TemplateResponse(
        request, "registration/signup.html", {"form": form, "next": next_url}, status=status
    )


class LimitedPasswordResetView(PasswordResetView):
    """Django's reset page, its mail sent by the worker, refused with a 429 (and no mail) past
    the limits per address and per e-mail address (see limits.py)."""

    form_class = QueuedPasswordResetForm

    def form_valid(self, form: Any) -> HttpResponse:
        if reset_limited(self.request):
            form.add_error(None, TOO_MANY_RESETS)
            return self.render_to_response(self.get_context_data(form=form), status=429)
        return super().form_valid(form)
