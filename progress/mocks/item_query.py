"""The written-out queries of a mock-exam sitting's items: the item read with its sitting,
exam and question, and the two saves of an answer. Every save of a sitting runs one of
them; the ORM's compilation of the same statements cost more than running them."""

from functools import cache
from typing import Any

from django.db import connection, models
from django.utils import timezone

from courseiva.lib.sql import Columns, build_all, execute, fetch_one, table
from progress.mocks.models import MockExam, MockItem
from questions.models import Exam, Question, Status


def learner_item(learner_id: int, code: str, position: int) -> MockItem | None:
    """Item `position` (0-based) of the learner's mock exam `code`, with its sitting (and
    exam) and question cached; None when the learner has no such item. One query, written
    out (courseiva.lib.sql): every save of a sitting starts with it."""
    parts, sql = _item_read(connection.vendor)
    row = fetch_one((sql, [code, learner_id, position]))
    if row is None:
        return None
    (item, mock, exam, question), _ = build_all(parts, row)
    mock.exam = exam
    item.mock, item.question = mock, question
    return item


def save_answer(item: MockItem, chosen: list[str], *, flagged: bool, seq: int) -> bool:
    """Save the answer to `item` and its flag while its sitting is open and no save at or
    after `seq` is stored (MockItem.answer_seq): False, saving nothing, once it is submitted
    or when a later save holds. One statement, its own transaction.

    The UPDATE locks the sitting's row (a locking subquery) before it writes, as
    submitting does (its UPDATE of `submitted_at`): a save lands before the grading reads
    the items, or waits for the submission and then finds it submitted; never after the
    grading, where the review would show an answer the score did not count. SQLite, with
    no row locks, queues the two writers whole. Written out because Django builds a
    locking subquery only inside a transaction, whose COMMIT would cost one more round
    trip on the busiest request of a sitting."""
    sql = (
        f"{_answer_update()} WHERE id = %s AND answer_seq < %s AND mock_id IN (SELECT id "  # noqa: S608
        f"FROM {table(MockExam)} WHERE id = %s AND submitted_at IS NULL "
        # The item in the sitting's window (a section not closed, forward-only's question).
        f"AND open_from <= %s AND open_to > %s{_lock('')})"
    )
    values = [*_answer_values(chosen, flagged, seq), item.pk, seq, item.mock_id]
    return execute((sql, [*values, item.position, item.position])) == 1


def save_known_answer(
    learner_id: int,
    code: str,
    position: int,
    uid: str,
    chosen: list[str],
    *,
    flagged: bool,
    seq: int,
) -> int | None:
    """Save the answer to item `position` of the learner's sitting `code`, whose question
    the caller knows to be `uid` (and checked the answer against), without reading the
    item first: one statement, the sitting's id returned. It saves only while what that
    read would have checked holds: the sitting is the learner's, not submitted and within
    its deadline, the item in its window (progress.mocks.sections) and its section within
    its own time, the item's question is `uid` and published, and no save at or after `seq`
    is stored. Otherwise None, saving nothing (the view's full path then says why). The
    sitting's row is locked as in save_answer."""
    status = Question._meta.get_field("status")
    deadline = MockExam._meta.get_field("deadline")
    sql = (
        f"{_answer_update()} WHERE id = (SELECT mi.id FROM "  # noqa: S608
        f"{table(MockExam)} me JOIN {table(MockItem)} mi ON mi.mock_id = me.id "
        f"JOIN {table(Question)} qu ON qu.id = mi.question_id "
        "WHERE me.code = %s AND me.learner_id = %s AND mi.position = %s "
        "AND qu.uid = %s AND qu.status = %s "
        "AND mi.position >= me.open_from AND mi.position < me.open_to "
        "AND (me.section_deadline IS NULL OR me.section_deadline > %s) "
        f"AND me.submitted_at IS NULL AND me.deadline > %s{_lock(' OF me')}) "
        # On the row being updated, not in the subquery: a save that waited for another's
        # lock checks the number that one stored (PostgreSQL rechecks the updated row only).
        "AND answer_seq < %s RETURNING mock_id"
    )
    params = [
        *_answer_values(chosen, flagged, seq),
        code,
        learner_id,
        position,
        uid,
        status.get_db_prep_value(Status.PUBLISHED, connection),
        now := deadline.get_db_prep_value(timezone.now(), connection),
        now,
        seq,
    ]
    row = fetch_one((sql, params))
    return int(row[0]) if row else None


def _answer_update() -> str:
    # Only the quoted table name goes into the text (courseiva.lib.sql); values are parameters.
    return (
        f"UPDATE {table(MockItem)} SET chosen_keys = %s, flagged = %s, "  # noqa: S608
        "answered_at = %s, answer_seq = %s"
    )


def _answer_values(chosen: list[str], flagged: bool, seq: int) -> list[Any]:
    return [
        _prepared("chosen_keys", chosen),
        _prepared("flagged", flagged),
        _prepared("answered_at", timezone.now() if chosen else None),
        seq,
    ]


def _lock(of: str) -> str:
    """A locking clause where the database has row locks (PostgreSQL); SQLite queues writers."""
    return f" FOR UPDATE{of}" if connection.features.has_select_for_update else ""


@cache
def _item_read(vendor: str) -> tuple[list[Columns], str]:
    parts = [
        item := Columns(MockItem, "mi"),
        mock := Columns(MockExam, "me"),
        exam := Columns(Exam, "ex"),
        # Its text comes from the cached page: the uid and status are what the view reads.
        question := Columns(Question, "qu", ["uid", "status"]),
    ]
    # Only quoted names go into the text (courseiva.lib.sql); the values are parameters.
    sql = (
        f"SELECT {', '.join(part.select() for part in parts)} "  # noqa: S608
        f"FROM {mock.source()} JOIN {item.source()} ON mi.mock_id = me.id "
        f"JOIN {exam.source()} ON ex.id = me.exam_id "
        f"LEFT JOIN {question.source()} ON qu.id = mi.question_id "
        # The sitting by its code and owner: another learner's code finds nothing.
        "WHERE me.code = %s AND me.learner_id = %s AND mi.position = %s"
    )
    return parts, sql


def _prepared(name: str, value: object) -> Any:
    """A value of MockItem's field `name` as the database takes it in a written-out query."""
    field = MockItem._meta.get_field(name)
    assert isinstance(field, models.Field)
    return field.get_db_prep_save(value, connection)
