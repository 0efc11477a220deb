"""Sign up here; sign in, sign out, password change and reset are Django's own views (see
`progress.accounts.urls`) with our forms and templates in `templates/registration/`."""

from django.contrib.auth import login
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods

from progress.accounts.forms import DUPLICATE_EMAIL, DUPLICATE_USERNAME, SignupForm
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
                login(request, user, backend="progress.accounts.backends.UsernameOrEmailBackend")
                return HttpResponseRedirect(_next_url(request))
        status = 400
    else:
        form = SignupForm()
    next_url = request.POST.get("next") or request.GET.get("next") or ""
    return TemplateResponse(
        request, "registration/signup.html", {"form": form, "next": next_url}, status=status
    )
