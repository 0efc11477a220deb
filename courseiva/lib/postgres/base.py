"""Django's PostgreSQL backend, but a kept connection is checked without a round trip.

With CONN_HEALTH_CHECKS, Django sends `SELECT 1` on a kept connection before each request's
first query, so that a connection the server dropped (a restart, a crash, an idle timeout,
pg_terminate_backend) is replaced instead of serving a 500. That is one more round trip on
every request, the fifth of a mock-exam save's. A connection at rest has nothing to read: a
server that ends it says so (an error message, then the end of the stream), and the socket
becomes readable. So the socket is polled first, which costs no round trip; only when it
has something to say does Django's `SELECT 1` run, which reads it and decides. A server that
vanished without a word (a cut cable) is missed by both: `SELECT 1` would wait as long as
the request's own query does.
"""

import select

from django.db.backends.postgresql import base


class DatabaseWrapper(base.DatabaseWrapper):
    def is_usable(self) -> bool:
        if self.connection is None or self.connection.closed:
            return False
        poller = select.poll()  # not select.select: it refuses descriptors past 1023
        try:
            poller.register(self.connection.fileno(), select.POLLIN)
        except (OSError, ValueError):  # psycopg already knows the socket is gone
            return False
        if not poller.poll(0):
            return True
        return bool(super().is_usable())
