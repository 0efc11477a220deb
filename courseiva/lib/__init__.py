"""Plain helpers that import none of the apps (as healthchecks keeps `hc/lib`): the apps use
them, they use only Django and libraries.

- sql.py: the one module that writes SQL text and quotes names: model rows read and
  written by written-out queries, many new rows at once, upserts, writes sent together, the
  advisory lock (the apps' modules named for their queries use it for theirs);
- shared_html.py: HTML rendered once for every visitor with slots, kept per process and in
  the cache, and filled in per request (the CSRF token, the CSP nonce, a page's own part);
- client.py: the address a request comes from, behind the trusted proxies;
- cache.py: the Redis cache backend, whose errors are misses;
- postgres/: Django's PostgreSQL backend, a kept connection checked without a round trip.
"""
