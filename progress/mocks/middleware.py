from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from progress.accounts.models import User
from progress.mocks.models import MockExam

DEADLINE_SESSION_KEY = "mock_deadline"
# The sitting being sat: its code, length and questions' uids by position, for saving an
# answer without reading the item first (see progress.mocks.views).
SITTING_SESSION_KEY = "mock_sitting"


class ExpiredMockMiddleware:
    """Submit a learner's mock exam whose time ran out on whatever page they open next. The
    deadline sits in their session when a sitting starts, so other requests cost nothing."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        session = getattr(request, "session", None)
        if session is not None and session.session_key:
            deadline = session.get(DEADLINE_SESSION_KEY)
            if deadline is not None and timezone.now().timestamp() >= float(deadline):
                user = request.user
                if isinstance(user, User):
                    MockExam.objects.submit_expired(user)
                session.pop(DEADLINE_SESSION_KEY, None)
                session.pop(SITTING_SESSION_KEY, None)
        return self.get_response(request)
