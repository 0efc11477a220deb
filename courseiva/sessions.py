"""Django's database sessions, the session read by a written-out query.

Reading the session is the first statement of every signed-in request; the ORM compiled it
afresh each time (see courseiva.rows). Everything else is Django's db backend: SESSION_ENGINE
names this module."""

from functools import cache
from typing import Any

from django.contrib.sessions.backends import db
from django.db import connection
from django.utils import timezone

from courseiva.rows import Columns


@cache
def _read(model: Any, vendor: str) -> tuple[Columns, str]:
    columns = Columns(model, "s")
    sql = (
        f"SELECT {columns.select()} FROM {columns.source()} "  # noqa: S608
        "WHERE s.session_key = %s AND s.expire_date > %s"
    )
    return columns, sql


class SessionStore(db.SessionStore):
    def _get_session_from_db(self) -> Any:
        """The unexpired session of this key, or None (forgetting the key), as Django's."""
        columns, sql = _read(self.model, connection.vendor)
        expire_date = self.model._meta.get_field("expire_date")
        now = expire_date.get_db_prep_value(timezone.now(), connection)
        with connection.cursor() as cursor:
            cursor.execute(sql, [self.session_key, now])
            row = cursor.fetchone()
        if row is None:
            self._session_key = None
            return None
        return columns.build(row)
