"""Recording answers: the product's core write, in a few wide statements.

`record_answers` makes every change an answer makes to the learner's own state, in the
caller's transaction: the attempt, the learner's readiness on the exam and its topics, the
review card, the daily totals. The questions' difficulties are the worker's, in batches (see
progress.readiness.batches); the answer only reads them and, when no batch is pending yet,
opens one. Nothing here locks a row that another learner's answer needs: the learner's own
rows queue the learner's own answers, and the learners share only the batch lock's shared
side.

The ORM's statement compilation costs as much as running the statements, so the reads are one
raw query, commented, and the writes are written out (courseiva.lib.sql): the attempt's insert,
then the learner's exam, topic, card and day rows in one statement on PostgreSQL."""

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from django.apps import apps
from django.db import connection
from django.utils import timezone

from courseiva.lib.sql import (
    Statement,
    insert_instances,
    keyed_instance_statements,
    name,
    placeholders,
    read_value,
    run_together,
    table,
    upsert,
    upsert_values,
)
from progress.engine import learner_model
from progress.practice.pending import QUESTION_BATCH, PendingWork
from progress.readiness.models import (
    ExamAbility,
    QuestionReadiness,
    TopicReadiness,
)


def _model(name: str) -> Any:
    """A practice model, from the app registry: practice.models imports this module (its
    QuerySets delegate here), so this module cannot import it back."""
    return apps.get_model("progress", name)


@dataclass
class QuestionSide:
    """What one query reads about the answered questions (see `read_question_side`)."""

    items: dict[int, learner_model.ItemState] = field(default_factory=dict)
    cards: dict[int, Any] = field(default_factory=dict)  # ReviewCard by question id
    topic_rows: dict[int, TopicReadiness] = field(default_factory=dict)
    counts: dict[int, list[int]] = field(default_factory=dict)
    topic_of: dict[int, int] = field(default_factory=dict)
    batch_pending: bool = True


def read_question_side(learner_id: int, question_ids: Sequence[int]) -> QuestionSide:
    """One query, a row per question: its stored state for the model (none before the first
    batch that saw it), the learner's review card, the learner's row of its topic, the
    learner's earlier right and wrong answers to it (two index-only counts on the
    attempt_learner_q index), and whether a batch of the questions' difficulties is pending
    already. Read after the learner's exam rows are locked, so that no answer of the same
    learner to the exam is in flight."""
    from questions.models import Question

    Attempt, ReviewCard = _model("Attempt"), _model("ReviewCard")

    side = QuestionSide()
    if not question_ids:
        return side
    tables = {
        "question": table(Question),
        "state": table(QuestionReadiness),
        "card": table(ReviewCard),
        "topic": table(TopicReadiness),
        "attempt": table(Attempt),
        "pending": table(PendingWork),
    }
    earlier = (
        "(SELECT COUNT(*) FROM {attempt} a WHERE a.learner_id = %s AND a.question_id = qu.id "
        "AND a.is_correct = %s)"
    )
    # Only quoted table names and placeholders go into the text; the values are parameters.
    sql = (
        "SELECT qu.id, qu.topic_id, s.difficulty, s.variance, s.answers, s.profile, "  # noqa: S608
        "c.id, c.card, c.reviews, t.id, t.state, t.difficulty_sum, "
        f"{earlier}, {earlier}, "
        "EXISTS (SELECT 1 FROM {pending} p WHERE p.work = %s) "
        "FROM {question} qu "
        "LEFT JOIN {state} s ON s.question_id = qu.id "
        "LEFT JOIN {card} c ON c.learner_id = %s AND c.question_id = qu.id "
        "LEFT JOIN {topic} t ON t.learner_id = %s AND t.topic_id = qu.topic_id "
        f"WHERE qu.id IN ({placeholders(len(question_ids))})"
    ).format(**tables)
    params: list[Any] = [
        learner_id,
        True,
        learner_id,
        False,
        QUESTION_BATCH,
        learner_id,
        learner_id,
    ]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, *question_ids])
        rows = cursor.fetchall()
    # JSON columns come back as text on SQLite (and with Django's psycopg set-up): read_value
    # parses them as the ORM would.
    profile_field = QuestionReadiness._meta.get_field("profile")
    card_field = ReviewCard._meta.get_field("card")
    state_field = TopicReadiness._meta.get_field("state")
    for (qid, topic_id, difficulty, variance, answers, profile, card_id, card, reviews,
         topic_row_id, topic_state, difficulty_sum, right, wrong, pending) in rows:  # fmt: skip
        side.topic_of[qid] = topic_id
        side.counts[qid] = [right, wrong]
        side.batch_pending = bool(pending)
        if difficulty is not None:
            side.items[qid] = learner_model.ItemState(
                difficulty,
                variance,
                answers,
                [float(v) for v in read_value(profile_field, profile)],
            )
        if card_id is not None:
            side.cards[qid] = ReviewCard(
                pk=card_id, learner_id=learner_id, question_id=qid,
                card=read_value(card_field, card), reviews=reviews,
            )  # fmt: skip
        if topic_row_id is not None:
            side.topic_rows[topic_id] = TopicReadiness(
                pk=topic_row_id, learner_id=learner_id, topic_id=topic_id,
                state=read_value(state_field, topic_state), difficulty_sum=difficulty_sum,
            )  # fmt: skip
    return side


def record_answers(
    learner_id: int, attempts: list[Any], *, counted_at: datetime, then: Statement | None = None
) -> tuple[Any, ...] | None:
    """Insert a learner's new attempts and make every change they make to the learner's
    state, in the caller's transaction (see the module's docstring). Statements, whatever the
    number of attempts: the lock of the learner's exam rows (which on PostgreSQL also takes
    the attempts' ids), the read of the questions' side, then the writes: the attempts'
    insert, the exam rows' update (one per exam), the topics' upsert, the review cards'
    upsert (when one changes) and the daily totals' upsert, which are one statement on
    PostgreSQL, with `then` last (a quiz's count): its RETURNING row is
    returned; and the opening of a batch when none is pending (with its enqueue after
    commit)."""
    ReviewCard = _model("ReviewCard")

    question_ids = sorted({a.question_id for a in attempts if a.question_id is not None})
    update = ExamAbility.objects.lock(
        learner_id, {a.exam_id for a in attempts}, new_attempts=len(attempts)
    )
    side = read_question_side(learner_id, question_ids)
    topic_rows = dict(side.topic_rows)
    other_topics = {
        a.topic_id
        for a in attempts
        if a.topic_id is not None and a.topic_id != side.topic_of.get(a.question_id or 0)
    } - set(topic_rows)
    if other_topics:  # a question moved to another topic since its page was cached: rare
        topic_rows.update(
            (row.topic_id, row)
            for row in TopicReadiness.objects.filter(
                learner_id=learner_id, topic_id__in=other_topics
            )
        )
    items = {qid: side.items.get(qid) or update.in_use.starting_item(qid) for qid in question_ids}
    logits = update.apply(
        [(0, a.question_id, a.topic_id, a.exam_id, a.is_correct) for a in attempts],
        side.counts,
        items,
        list(topic_rows.values()),
    )
    for n, attempt in enumerate(attempts):
        attempt.learner_logit = logits.get(n)
    inserts = []
    if update.attempt_ids:  # PostgreSQL: the ids are known, the insert goes with the writes
        for attempt, pk in zip(attempts, update.attempt_ids, strict=True):
            attempt.pk = pk
            attempt._state.adding, attempt._state.db = False, connection.alias
        inserts = keyed_instance_statements(attempts)
    else:
        insert_instances(attempts)  # bulk_create, without its per-field preparation
    # The attempts and the writes to the learner's exam, topic, card and day rows, none
    # touching another's rows: one round trip on PostgreSQL (see run_together).
    cards = ReviewCard.objects.reviewed(
        learner_id,
        side.cards,
        [(a.question_id, a.is_correct, a.answered_at) for a in attempts if a.question_id],
    )
    returned = run_together(
        [
            *inserts,
            *update.statements([a.pk for a in attempts]),
            card_upsert(cards),
            day_totals_upsert(learner_id, day_totals(attempts, counted_at)),
            then,
        ]
    )
    if not side.batch_pending and question_ids:
        PendingWork.objects.open_batch()
    return returned


def card_upsert(cards: Sequence[Any]) -> Statement | None:
    """The upsert of the learner's rescheduled review cards (ReviewCardQuerySet.reviewed),
    found by learner and question; None when no card changed."""
    if not cards:
        return None
    written = ["card", "due", "reviews"]
    return upsert(_model("ReviewCard"), ["learner_id", "question_id"], written, cards)


def day_totals(attempts: Sequence[Any], counted_at: datetime) -> dict[date, list[int]]:
    """[answers, right, timed answers, seconds] that the attempts add, all counted on the day
    of `counted_at`."""
    totals = [0, 0, 0, 0]
    for attempt in attempts:
        totals[0] += 1
        totals[1] += int(attempt.is_correct)
        if attempt.time_spent is not None:
            totals[2] += 1
            totals[3] += round(attempt.time_spent.total_seconds())
    return {timezone.localdate(counted_at): totals} if attempts else {}


def day_totals_upsert(learner_id: int, days: dict[date, list[int]]) -> Statement | None:
    """The upsert adding these totals to the learner's days: a day's row made with them, or
    its totals increased. None with no days."""
    if not days:
        return None
    rows = [(learner_id, day, *totals) for day, totals in sorted(days.items())]
    columns = ["learner_id", "day", "answers", "right", "timed_answers", "seconds"]
    return upsert_values(_model("LearnerDay"), columns[:2], columns, rows, add=columns[2:])


def quiz_loaded(quiz_item: Any) -> bool:
    """Whether the item's quiz was loaded with it (select_related)."""
    return bool(_model("QuizItem").quiz.is_cached(quiz_item))


def quiz_count(quiz_id: int, is_correct: bool, now: datetime) -> Statement:
    """One more answered item of the quiz (and right one); finished with the last one; it
    returns the counters it left (answered, right, finished at: see quiz_counters). It goes
    last with the answer's writes: the learner's exam row, locked first, queues two posts of
    the same item, so that the loser's insert fails on the unique constraint and its counting
    is rolled back with it; the quiz row's own lock queues them when the question has no exam."""
    Quiz = _model("Quiz")
    answered, right, finished, items, withdrawn = (
        name(c)
        for c in ("answered_count", "right_count", "finished_at", "item_count", "withdrawn_count")
    )
    # Withdrawn items are never answered: the quiz ends with the last of the others.
    sql = (
        f"UPDATE {table(Quiz)} SET {answered} = {answered} + 1, {right} = {right} + %s, "  # noqa: S608
        f"{finished} = CASE WHEN {answered} >= {items} - {withdrawn} - 1 "
        f"AND {finished} IS NULL THEN %s "
        f"ELSE {finished} END WHERE id = %s RETURNING {answered}, {right}, {finished}"
    )
    return sql, [1 if is_correct else 0, now, quiz_id]


def quiz_counters(row: tuple[Any, ...] | None) -> tuple[Any, ...] | None:
    """The quiz's counters as quiz_count's RETURNING gave them: (answered, right, finished)."""
    if row is None:
        return None
    return row[0], row[1], read_value(_model("Quiz")._meta.get_field("finished_at"), row[2])
