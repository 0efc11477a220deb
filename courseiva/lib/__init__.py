"""Plain helpers that import none of the apps (as healthchecks keeps `hc/lib`): the apps use
them, they use only Django and libraries.

- sql.py: model rows read and written by written-out queries, many new rows at once,
  upserts, writes sent together;
- client.py: the address a request comes from, behind the trusted proxies;
- cache.py: the Redis cache backend, whose errors are misses;
- postgres/: Django's PostgreSQL backend, a kept connection checked without a round trip.
"""
