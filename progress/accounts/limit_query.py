"""The written-out statements of the limits' counters (progress.accounts.limit_store): each
one statement, so that two processes counting at once never lose a count. The ORM's
update() cannot return the count it leaves, and its upsert cannot keep a live row."""

from datetime import datetime

from courseiva.lib.sql import Statement, db_values, names, table
from progress.accounts.models import LimitCount


def start(key: str, count: int, expires_at: datetime, now: datetime) -> Statement:
    """A new counter at `count`, or the row of an ended window under the same key started
    again; a live counter stays as it is. Returns a row only when it started one."""
    new = LimitCount(key=key, count=count, expires_at=expires_at)
    key_column, count_column, expires_column = names("key", "count", "expires_at")
    counts = table(LimitCount)
    sql = (
        f"INSERT INTO {counts} ({key_column}, {count_column}, {expires_column}) "  # noqa: S608
        f"VALUES (%s, %s, %s) ON CONFLICT ({key_column}) DO UPDATE "
        f"SET {count_column} = excluded.{count_column}, "
        f"{expires_column} = excluded.{expires_column} "
        f"WHERE {counts}.{expires_column} <= %s RETURNING {key_column}"
    )
    return sql, [*db_values(new, ["key", "count", "expires_at"]), _moment(now)]


def add(key: str, delta: int, now: datetime) -> Statement:
    """Adds `delta` to a live counter; returns the count it leaves (no row: none live)."""
    key_column, count_column, expires_column = names("key", "count", "expires_at")
    sql = (
        f"UPDATE {table(LimitCount)} SET {count_column} = {count_column} + %s "  # noqa: S608
        f"WHERE {key_column} = %s AND {expires_column} > %s RETURNING {count_column}"
    )
    return sql, [delta, key, _moment(now)]


def _moment(when: datetime) -> object:
    """A time as the expires_at column holds it (text on SQLite)."""
    return db_values(LimitCount(expires_at=when), ["expires_at"])[0]
