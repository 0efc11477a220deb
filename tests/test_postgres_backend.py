"""A kept PostgreSQL connection is checked before reuse without a round trip, and one the
server ended is still replaced (courseiva.lib.postgres)."""

import time
from collections.abc import Iterator
from typing import Any
from unittest import mock

import pytest
from django.db import connection, connections
from django.db.backends.postgresql import base as django_base

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def kept() -> Iterator[Any]:
    """A second connection to the test database, as a server process keeps one between
    requests."""
    if connection.vendor != "postgresql":
        pytest.skip("the health check is PostgreSQL's")
    other = connections.create_connection("default")
    other.ensure_connection()
    yield other
    other.close()


def settle(check: Any, seconds: float = 5.0) -> bool:
    """`check()` once it turns False (the server's message takes a moment), or True."""
    deadline = time.monotonic() + seconds
    while check() and time.monotonic() < deadline:
        time.sleep(0.05)
    return bool(check())


def test_a_healthy_kept_connection_is_usable_without_a_query(kept):
    with mock.patch.object(
        django_base.DatabaseWrapper, "is_usable", side_effect=AssertionError("queried")
    ):
        assert kept.is_usable()
    with kept.cursor() as cursor:  # and it works
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)


def test_a_connection_the_server_ended_is_not_usable_and_is_replaced(kept):
    pid = kept.connection.info.backend_pid
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    assert not settle(kept.is_usable)
    # As Django does before a request's first query: closed, then opened afresh.
    kept.health_check_done = False
    kept.close_if_health_check_failed()
    with kept.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        assert cursor.fetchone()[0] != pid


def test_a_message_waiting_on_a_live_connection_is_read_by_the_query_check(kept):
    """Something to read that is not the end (here a notification): the SELECT 1 decides."""
    with kept.cursor() as cursor:
        cursor.execute("LISTEN courseiva_health")
    with connection.cursor() as cursor:
        cursor.execute("NOTIFY courseiva_health")
    asked = []

    def select_one(self: Any) -> bool:
        asked.append(True)
        return True

    with mock.patch.object(django_base.DatabaseWrapper, "is_usable", select_one):
        deadline = time.monotonic() + 5
        while not asked and time.monotonic() < deadline:
            assert kept.is_usable()
            time.sleep(0.05)
    assert asked, "the waiting notification never made the connection check with a query"
    assert kept.is_usable()  # the real SELECT 1 on the same live connection
