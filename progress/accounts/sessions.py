"""Django's database sessions, each row naming its user, read with that user by one query.

Reading the session and then its user were the first two statements of every signed-in
request, one round trip each. The session's row carries its user's id (the Session model),
so one written-out query (session_query.py) reads both; the authentication backend then takes
the user read here instead of reading it again (UsernameOrEmailBackend.get_user), and Django
checks it against the session (the password hash) as always. The session data stays the
authority on who is signed in: the column is a copy for the join. Everything else is
Django's db backend: SESSION_ENGINE names this module."""

import re
from contextvars import ContextVar
from typing import Any

from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.backends import db
from django.contrib.sessions.backends.base import VALID_KEY_CHARS
from django.core.exceptions import ValidationError

from progress.accounts.models import Session, User
from progress.accounts.session_query import session_with_user

# A key Django could have made: its own characters (it makes 32), at least its floor of 8 and
# at most what the column holds. Django checks only the length, and its cookie parser decodes a
# quoted octal escape, so `sessionid="abcdefghij\000klmnop"` reached the query with a NUL,
# which PostgreSQL refuses: a 500 on every page. Any other key is no session, as a cookie
# naming no row is, and is never sent to the database.
WELL_FORMED_KEY = re.compile(f"[{VALID_KEY_CHARS}]{{8,40}}")

# The user read with this thread's session (its request's SessionStore), until the backend
# takes it: each request makes a new SessionStore, which clears it.
_read_user: ContextVar[User | None] = ContextVar("read_user", default=None)


def user_read_with_session(user_id: Any) -> User | None:
    """The user read with the session, if it is user `user_id`: once, then None (the
    caller reads the user itself)."""
    user = _read_user.get()
    _read_user.set(None)
    return user if user is not None and str(user.pk) == str(user_id) else None


class SessionStore(db.SessionStore):
    def __init__(self, session_key: str | None = None) -> None:
        super().__init__(session_key)
        _read_user.set(None)  # another request's, or none

    def _validate_session_key(self, key: str | None) -> bool:
        return key is not None and WELL_FORMED_KEY.fullmatch(key) is not None

    @classmethod
    def get_model_class(cls) -> type[Session]:
        return Session

    def create_model_instance(self, data: dict[str, Any]) -> Session:
        session = super().create_model_instance(data)
        assert isinstance(session, Session)  # get_model_class's
        session.user_id = _user_id(data.get(SESSION_KEY))
        return session

    def _get_session_from_db(self) -> Session | None:
        """The unexpired session of this key, or None (forgetting the key), as Django's;
        its user kept for the backend."""
        found = session_with_user(self.session_key)
        if found is None:
            self._session_key = None
            return None
        session, user = found
        _read_user.set(user)
        return session


def _user_id(value: Any) -> int | None:
    """The user id a session's data names, as the column holds it; None for none."""
    if value is None:
        return None
    try:
        user_id = User._meta.pk.to_python(value)
    except ValidationError:
        return None
    return user_id if isinstance(user_id, int) else None
