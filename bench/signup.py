"""Benchmark of the sign-up answer: does a registered address take longer than a new one?

    .venv/bin/python bench/signup.py [--users 20000] [--requests 200]

Builds a throwaway SQLite database with `--users` accounts, then posts the sign-up form
in-process through Django's test client, a new address and a registered one taking turns
(each from its own client address, so that the limits never refuse one). It prints the median
time of each, their ratio (target: 1, within the noise) and the queries of each (the same
statements: the request never looks the address up). It only prints; it never fails on
time. The machine is shared and noisy: read the ratio, not the absolute figures.
"""

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from django_parts import setup_django, whole_number


def measure(users: int, requests: int) -> dict[str, float | int]:
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.urls import reverse

    from progress.accounts.models import User

    call_command("migrate", verbosity=0)
    User.objects.bulk_create(
        User(username=f"owner{n}", email=f"owner{n}@example.com") for n in range(users)
    )
    client = Client(HTTP_HOST="localhost")  # a host that the development settings allow
    url = reverse("signup")
    sent = 0

    def post(email: str) -> tuple[float, int]:
        nonlocal sent
        sent += 1
        address = f"10.{sent // 65536 % 256}.{sent // 256 % 256}.{sent % 256}"
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            response = client.post(url, {"email": email}, REMOTE_ADDR=address)
            elapsed = time.perf_counter() - started
        assert response.status_code == 302, response.status_code
        return elapsed, len(queries)

    for n in range(10):  # warm-up
        post(f"warm{n}@example.com")
        post(f"owner{n}@example.com")
    new, registered = [], []
    queries = {}
    for n in range(requests):
        seconds, queries["new"] = post(f"newcomer{n}@example.com")
        new.append(seconds)
        seconds, queries["registered"] = post(f"owner{users - 1 - n % users}@example.com")
        registered.append(seconds)
    return {
        "new_ms": 1000 * statistics.median(new),
        "registered_ms": 1000 * statistics.median(registered),
        "new_queries": queries["new"],
        "registered_queries": queries["registered"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=whole_number(1), default=20_000, metavar="N")
    parser.add_argument("--requests", type=whole_number(1), default=200, metavar="N")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="courseiva-signup-") as folder:
        setup_django(f"sqlite:///{Path(folder) / 'signup.sqlite3'}")
        result = measure(args.users, args.requests)
    print(
        f"Courseiva sign-up benchmark: {args.requests} sign-ups with a new address and "
        f"{args.requests} with one of {args.users:,} registered ones, taking turns"
    )
    print(
        f"  new address:        median {result['new_ms']:.2f} ms, {result['new_queries']} queries"
    )
    print(
        f"  registered address: median {result['registered_ms']:.2f} ms, "
        f"{result['registered_queries']} queries"
    )
    print(f"  ratio registered / new: {result['registered_ms'] / result['new_ms']:.2f} (target 1)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
