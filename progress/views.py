"""The learner's pages: their dashboard, practice quizzes and answer history.

Every view is for a signed-in learner and reaches rows only through that learner: another
learner's quiz is a 404, never a 403, so that codes are not confirmed.
"""

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET

from progress.models import User


def _learner(request: HttpRequest) -> User:
    user = request.user
    assert isinstance(user, User)  # login_required ran first
    return user


@require_GET
@login_required
def progress_home(request: HttpRequest) -> HttpResponse:
    learner = _learner(request)
    return TemplateResponse(request, "progress/home.html", {"learner": learner})
