from typing import Any

from django.contrib.auth.backends import ModelBackend
from django.http import HttpRequest

from progress.accounts.models import User


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
