"""The written-out reads of every signed-in request: the session with its user, and a user
by id (courseiva.lib.sql). The ORM compiled them afresh on each request; written out, they
are prepared once per connection on PostgreSQL."""

from functools import cache
from typing import Any

from django.db import connection
from django.utils import timezone

from courseiva.lib.sql import Columns, fetch_one
from progress.accounts.models import Session, User


def session_with_user(session_key: str | None) -> tuple[Session, User | None] | None:
    """The unexpired session of this key with its user (None for a visitor's session), or
    None when there is no such session. One query."""
    session_columns, user_columns, sql = _session_read(connection.vendor)
    expire_date = Session._meta.get_field("expire_date")
    now = expire_date.get_db_prep_value(timezone.now(), connection)
    row = fetch_one((sql, [session_key, now]))
    if row is None:
        return None
    split = len(session_columns)
    return session_columns.build(row[:split]), user_columns.build(row[split:])


def user_by_id(user_id: Any) -> User | None:
    """The user of this id, or None. One query."""
    columns, sql = _user_read(connection.vendor)
    row = fetch_one((sql, [user_id]))
    return columns.build(row) if row is not None else None


@cache
def _session_read(vendor: str) -> tuple[Columns, Columns, str]:
    session, user = Columns(Session, "s"), Columns(User, "u")
    sql = (
        f"SELECT {session.select()}, {user.select()} "  # noqa: S608
        f"FROM {session.source()} LEFT JOIN {user.source()} ON u.id = s.user_id "
        "WHERE s.session_key = %s AND s.expire_date > %s"
    )
    return session, user, sql


@cache
def _user_read(vendor: str) -> tuple[Columns, str]:
    columns = Columns(User, "u")
    return columns, f"SELECT {columns.select()} FROM {columns.source()} WHERE u.id = %s"  # noqa: S608
