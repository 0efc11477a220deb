"""The update's lock, written out: one statement that makes a learner's readiness rows of
some exams where missing, locks them, reads them and the fit in use, and on PostgreSQL takes
the shared side of the batch lock and the new attempts' ids (see
progress.readiness.update.lock). Every recorded answer starts with it."""

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from django.db import connection, models

from courseiva.lib.sql import fetch_all, read_value, table
from progress.readiness.models import ExamAbility, ReadinessFit

# The advisory lock of the batches of the questions' difficulties (see batches.py): any number
# the site uses for nothing else, here "QBATCH" in ASCII. Every answer's lock takes its
# shared side; a batch takes it alone.
QUESTION_BATCH_LOCK = 0x514241544348


def lock_abilities(
    learner_id: int,
    exams: Sequence[int],
    *,
    new_ids: int = 0,
    ids_from: type[models.Model] | None = None,
) -> tuple[list[tuple[Any, ...]], tuple[int, datetime] | None]:
    """The statement of the update's lock (see progress.readiness.update.lock): the
    learner's rows of these exams made where missing and locked, in exam order. Returns (the
    rows (id, exam id, state, answers, movers, and with `new_ids` on PostgreSQL the ids
    taken from the sequence of `ids_from`'s table), the newest fit's (id, created at) or
    None)."""
    abilities, fits = table(ExamAbility), table(ReadinessFit)
    postgres = connection.vendor == "postgresql"
    empty_object, empty_list = ("'{}'::jsonb", "'[]'::jsonb") if postgres else ("'{}'", "'[]'")
    values = ", ".join(["(%s, %s)"] * len(exams))
    params: list[Any] = [value for exam_id in exams for value in (learner_id, exam_id)]
    # The gate: the shared side of the batch lock, taken before the first row is locked.
    gate = (
        "WITH gate AS MATERIALIZED (SELECT pg_advisory_xact_lock_shared(%s)) " if postgres else ""
    )
    # The attempts' ids, from the attempt table's sequence: read by RETURNING only, so taken
    # once the exam row is locked, in the order the learner's answers update it.
    ids = ""
    if new_ids:
        gate += (
            ", ids AS MATERIALIZED (SELECT array_agg(n.id ORDER BY n.id) AS ids FROM "
            "(SELECT nextval(pg_get_serial_sequence(%s, 'id')) AS id "
            "FROM generate_series(1, %s)) n) "
        )
        ids = ", (SELECT ids FROM ids)"
    # Only quoted names, literals and placeholders go into the text; the values are parameters.
    source = (
        f"SELECT v.l, v.e, {empty_object}, 0, {empty_list}, NULL "  # noqa: S608
        f"FROM gate, (VALUES {values}) AS v(l, e)"
        if postgres
        else f"SELECT v.column1, v.column2, {empty_object}, 0, {empty_list}, NULL "  # noqa: S608
        f"FROM (VALUES {values}) AS v WHERE true"  # WHERE: SQLite's upsert needs it here
    )
    sql = (
        f"{gate}INSERT INTO {abilities} (learner_id, exam_id, state, answers, movers, updated_at) "  # noqa: S608
        f"{source} ON CONFLICT (learner_id, exam_id) DO UPDATE SET answers = {abilities}.answers "
        "RETURNING id, exam_id, state, answers, movers, "
        f"(SELECT id FROM {fits} ORDER BY id DESC LIMIT 1), "
        f"(SELECT created_at FROM {fits} ORDER BY id DESC LIMIT 1){ids}"
    )
    if postgres:
        taking = [table(ids_from), new_ids] if new_ids and ids_from is not None else []
        params[:0] = [QUESTION_BATCH_LOCK, *taking]
    rows = fetch_all((sql, params))
    rows.sort(key=lambda row: row[1])
    newest = None
    if rows and rows[0][5] is not None:
        newest = (rows[0][5], read_value(ReadinessFit._meta.get_field("created_at"), rows[0][6]))
    return [(*row[:5], *row[7:]) for row in rows], newest
