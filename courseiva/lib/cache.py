"""The shared cache (Redis through CACHE_URL) as an accelerator, never a dependency.

Django's RedisCache raises on every call while Redis is unreachable, which would turn each page
that reads a cached question into a 500. Here an error is logged and treated as a miss (a read
finds nothing, a write or a delete does nothing), and Redis is left alone for RETRY_SECONDS
after it, so that a dead or slow Redis costs each process one short timeout now and then
rather than one per cache call. Pages are then built from the database, as on a cold cache.

What this gives up while Redis is down: a delete that fails cannot drop the old copy that Redis
may still hold when it comes back. A Redis restarted empty (the way the topology drill and
docker-compose.yml run it, without persistence) holds none; otherwise each process's PageChange
poll reads the changes again until a poll's drop reaches Redis (questions.pages.snapshot)."""

import logging
import time
from collections.abc import Callable, Iterable
from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

# How long a process leaves Redis alone after an error before it tries again.
RETRY_SECONDS = 5.0


class SharedClientRedisCacheClient(RedisCacheClient):
    """Django's Redis cache client, keeping one redis.Redis per connection pool. Django's
    builds a new redis.Redis for every cache call, and its constructor fills a table of some
    170 reply callbacks: measured, 0.08 ms of the 0.14 ms of CPU a read took, paid up to
    three times on a visitor's page. A redis.Redis only holds its pool and those callbacks,
    and is safe to share between threads."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        # Both are Django's own, absent from its type stubs.
        pool = self._get_connection_pool(write)  # type: ignore[attr-defined]
        client = self._clients.get(id(pool))
        if client is None:
            client = self._client(connection_pool=pool)  # type: ignore[attr-defined]
            self._clients[id(pool)] = client
        return client


class TolerantRedisCache(RedisCache):
    """RedisCache whose errors are misses. `failures` counts the calls that did not reach
    Redis in this process: a caller that must know whether a delete did compares it before and
    after."""

    failures = 0
    _skip_until = 0.0

    def __init__(self, server: Any, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = SharedClientRedisCacheClient

    def _available(self) -> bool:
        if time.monotonic() < TolerantRedisCache._skip_until:
            TolerantRedisCache.failures += 1
            return False
        return True

    def _failed(self, operation: str, error: RedisError) -> None:
        TolerantRedisCache.failures += 1
        TolerantRedisCache._skip_until = time.monotonic() + RETRY_SECONDS
        logger.warning(
            "Cache unavailable (%s: %s): pages come from the database; next try in %.0f s",
            operation,
            error,
            RETRY_SECONDS,
        )

    def _guarded(self, fallback: Any, call: Callable[..., Any], *args: Any) -> Any:
        """`call(*args)` (a RedisCache method), or `fallback` while Redis does not answer."""
        if self._available():
            try:
                return call(*args)
            except RedisError as error:
                self._failed(call.__name__, error)
        return fallback

    def add(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> bool:
        return bool(self._guarded(False, super().add, key, value, timeout, version))

    def get(self, key: Any, default: Any = None, version: Any = None) -> Any:
        return self._guarded(default, super().get, key, default, version)

    def set(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> None:
        self._guarded(None, super().set, key, value, timeout, version)

    def touch(self, key: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None) -> bool:
        return bool(self._guarded(False, super().touch, key, timeout, version))

    def delete(self, key: Any, version: Any = None) -> bool:
        return bool(self._guarded(False, super().delete, key, version))

    def get_many(self, keys: Iterable[Any], version: Any = None) -> dict[Any, Any]:
        return dict(self._guarded({}, super().get_many, keys, version))

    def has_key(self, key: Any, version: Any = None) -> bool:
        return bool(self._guarded(False, super().has_key, key, version))

    def incr(self, key: Any, delta: int = 1, version: Any = None) -> int:
        unavailable = object()
        value = self._guarded(unavailable, super().incr, key, delta, version)
        if value is unavailable:
            # What Django's incr raises for a missing key, and what its callers
            # (django-ratelimit among them) expect: an unreachable Redis holds no key.
            raise ValueError(f"Key {key!r} not found: the cache is unavailable")
        return int(value)

    def set_many(
        self, data: dict[Any, Any], timeout: Any = DEFAULT_TIMEOUT, version: Any = None
    ) -> list[Any]:
        # Unstored: every key.
        return list(self._guarded(list(data), super().set_many, data, timeout, version))

    def delete_many(self, keys: Iterable[Any], version: Any = None) -> None:
        self._guarded(None, super().delete_many, keys, version)

    def clear(self) -> None:
        self._guarded(None, super().clear)
