from functools import cache
from typing import Any

from django.contrib.auth.backends import ModelBackend
from django.db import connection
from django.http import HttpRequest

from courseiva.lib.sql import Columns
from progress.accounts.models import User
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
        (progress.accounts.sessions), else by a written-out query (courseiva.lib.sql)."""
        user = user_read_with_session(user_id)
        if user is None:
            columns, sql = _user_read(connection.vendor)
            with connection.cursor() as cursor:
                cursor.execute(sql, [user_id])
                row = cursor.fetchone()
            user = columns.build(row) if row is not None else None
        return user if user is not None and self.user_can_authenticate(user) else None


@cache
def _user_read(vendor: str) -> tuple[Columns, str]:
    columns = Columns(User, "u")
    return columns, f"SELECT {columns.select()} FROM {columns.source()} WHERE u.id = %s"  # noqa: S608
