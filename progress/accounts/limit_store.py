"""Where the limits on sign-ups and password resets count when there is no Redis: a cache
backend (the "limits" cache of courseiva/settings.py, which django-ratelimit counts in) that
holds counters, and only counters, in the database that every process shares.

With the per-process cache, each gunicorn process counted on its own: with three of them,
20 resets for one e-mail from one address mailed up to 9 links (three times the limit of 3)
and 15 sign-ups from one address were all let through. django-ratelimit starts a window's
counter with add() and counts with incr(): each is one statement here (limit_query.py),
atomic on SQLite and PostgreSQL, so processes counting at once never lose a count. Django's own
DatabaseCache would not do: its incr() reads the value and writes it back.

A key names its window, so a counter is never reused once its window ends; its row is
dropped by the hourly prune (progress.accounts.tasks). While the database is down nothing is
counted, and nothing else of a sign-up or a reset can be done either: the error is the
request's, as for any page that needs the database."""

import time
from datetime import UTC, datetime
from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT, BaseCache

from courseiva.lib import sql
from progress.accounts import limit_query
from progress.accounts.models import LimitCount

# A counter without a timeout (none of the limits' has one) lasts until it is deleted.
FOREVER = datetime(9999, 12, 31, tzinfo=UTC)


def _now() -> datetime:
    # The clock django-ratelimit takes its windows from.
    return datetime.fromtimestamp(time.time(), UTC)


class DatabaseCounters(BaseCache):
    """A cache of integers in the LimitCount table. Costs a query per call."""

    def __init__(self, location: str, params: dict[str, Any]) -> None:
        super().__init__(params)

    def _expiry(self, timeout: Any) -> datetime:
        at = self.get_backend_timeout(timeout)
        return FOREVER if at is None else datetime.fromtimestamp(at, UTC)

    @staticmethod
    def _count(value: Any) -> int:
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"this cache holds counts (integers), not {type(value).__name__}")
        return value

    def add(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> bool:
        key = self.make_and_validate_key(key, version=version)
        started = limit_query.start(key, self._count(value), self._expiry(timeout), _now())
        return sql.fetch_one(started) is not None

    def incr(self, key: Any, delta: int = 1, version: Any = None) -> int:
        key = self.make_and_validate_key(key, version=version)
        row = sql.fetch_one(limit_query.add(key, self._count(delta), _now()))
        if row is None:
            # As Django's caches say it, and as django-ratelimit expects.
            raise ValueError(f"Key {key!r} not found")
        return int(row[0])

    def get(self, key: Any, default: Any = None, version: Any = None) -> Any:
        key = self.make_and_validate_key(key, version=version)
        live = LimitCount.objects.filter(key=key, expires_at__gt=_now())
        count = live.values_list("count", flat=True).first()
        return default if count is None else count

    def set(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> None:
        key = self.make_and_validate_key(key, version=version)
        counter = LimitCount(key=key, count=self._count(value), expires_at=self._expiry(timeout))
        sql.execute(sql.upsert(LimitCount, ["key"], ["count", "expires_at"], [counter]))

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> bool:
        key = self.make_and_validate_key(key, version=version)
        live = LimitCount.objects.filter(key=key, expires_at__gt=_now())
        return bool(live.update(expires_at=self._expiry(timeout)))

    def delete(self, key: Any, version: Any = None) -> bool:
        key = self.make_and_validate_key(key, version=version)
        deleted, _ = LimitCount.objects.filter(key=key).delete()
        return bool(deleted)

    def clear(self) -> None:
        LimitCount.objects.all().delete()


def prune_ended_counts() -> int:
    """Drops the counters whose window has ended; how many. One query."""
    deleted, _ = LimitCount.objects.filter(expires_at__lte=_now()).delete()
    return deleted
