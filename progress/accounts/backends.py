from typing import Any

from django.contrib.auth.backends import ModelBackend
from django.http import HttpRequest

from progress.accounts.models import User
from progress.accounts.session_query import user_by_id
from progress.accounts.sessions import user_read_with_session


class UsernameOrEmailBackend(ModelBackend):
    """Sign in with a username or an e-mail address (case-insensitive for e-mails)."""

    def authenticate(
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> User | None:
        if username and "@" in username:
            user = User.objects.filter(email__iexact=username.strip()).first()
            if user is not None:
                username = user.get_username()
        return super().authenticate(request, username=username, password=password, **kwargs)

    def get_user(self, user_id: Any) -> User | None:
        """The signed-in user of a session, as ModelBackend's: the one read with the session
        (progress.accounts.sessions), else by a written-out query (session_query.py)."""
        user = user_read_with_session(user_id)
        if user is None:
            user = user_by_id(user_id)
        return user if user is not None and self.user_can_authenticate(user) else None
