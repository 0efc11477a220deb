"""The learner logits a rebuild keeps for the next batch: the logit the replay gave each
answer after the last batch boundary, which that batch moves its question's difficulty with
(`progress.readiness.rebuild`, `AttemptQuerySet.keep_logits`)."""

from typing import Any

from django.db import connection
from django.db.models import QuerySet

from courseiva.lib.sql import table


def keep_logits(attempts: QuerySet[Any], logits: dict[int, float]) -> None:
    """Store these logits (attempt id -> logit) on those of `attempts` whose stored one
    differs.

    These are the newest answers, and on a site whose batches have not run for a while (no
    worker) most of them: a million on `bench/dashboard.py`'s site. So the stored logits are
    read as one range of ids, streamed, not as a list of ids, which passed what a query takes
    (250,000 parameters on SQLite, 65,535 on PostgreSQL); and the changed ones are written one
    plain UPDATE a row, sent together (pipelined on PostgreSQL), not as bulk_update's CASE of
    a thousand ids a statement, which the database matches row by row: with every answer
    waiting, the write grew with its square (20,000 waiting answers rebuilt at 3,459 a second
    with it, at 50,687 without)."""
    if not logits:
        return
    rows = attempts.filter(pk__gte=min(logits), pk__lte=max(logits)).values_list(
        "pk", "learner_logit"
    )
    changed = [
        (logits[pk], pk)
        for pk, stored in rows.iterator(chunk_size=5000)
        if pk in logits and stored != logits[pk]
    ]
    sql = f"UPDATE {table(attempts.model)} SET learner_logit = %s WHERE id = %s"  # noqa: S608
    with connection.cursor() as cursor:
        cursor.executemany(sql, changed)
