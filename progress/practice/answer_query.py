"""The written-out statements of an answer (see progress.practice.recording): the read of
the answered questions' side and a quiz's count.

The ORM's statement compilation cost as much as running them, so they are written out once
(courseiva.lib.sql); only quoted names and placeholders go into their text, the values are
parameters."""

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from courseiva.lib.sql import Statement, fetch_all, names, placeholders, read_value, table
from progress.engine import learner_model
from progress.practice.models import Attempt, Quiz, ReviewCard, marks_counts
from progress.practice.pending import QUESTION_BATCH, PendingWork
from progress.readiness.models import QuestionReadiness, TopicReadiness
from questions.models import Question


@dataclass
class QuestionSide:
    """What one query reads about the answered questions (see `read_question_side`)."""

    items: dict[int, learner_model.ItemState] = field(default_factory=dict)
    cards: dict[int, ReviewCard] = field(default_factory=dict)  # by question id
    topic_rows: dict[int, TopicReadiness] = field(default_factory=dict)
    counts: dict[int, list[float]] = field(default_factory=dict)
    topic_of: dict[int, int] = field(default_factory=dict)
    batch_pending: bool = True


def read_question_side(learner_id: int, question_ids: Sequence[int]) -> QuestionSide:
    """One query, a row per question: its stored state for the model (none before the first
    batch that saw it), the learner's review card, the learner's row of its topic, the
    learner's earlier right and wrong answers to it (two index-only counts on the
    attempt_learner_q index), and whether a batch of the questions' difficulties is pending
    already. Read after the learner's exam rows are locked, so that no answer of the same
    learner to the exam is in flight."""
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
        "(SELECT {aggregate} FROM {{attempt}} a WHERE a.learner_id = %s AND a.question_id = qu.id)"
    )
    # Only quoted table names and placeholders go into the text; the values are parameters.
    sql = (
        "SELECT qu.id, qu.topic_id, s.difficulty, s.variance, s.answers, s.profile, "  # noqa: S608
        "c.id, c.card, c.reviews, t.id, t.state, t.difficulty_sum, "
        f"{earlier.format(aggregate='COALESCE(SUM(a.score), 0)')}, "
        f"{earlier.format(aggregate='COUNT(*)')}, "
        "EXISTS (SELECT 1 FROM {pending} p WHERE p.work = %s) "
        "FROM {question} qu "
        "LEFT JOIN {state} s ON s.question_id = qu.id "
        "LEFT JOIN {card} c ON c.learner_id = %s AND c.question_id = qu.id "
        "LEFT JOIN {topic} t ON t.learner_id = %s AND t.topic_id = qu.topic_id "
        f"WHERE qu.id IN ({placeholders(len(question_ids))})"
    ).format(**tables)
    params: list[Any] = [
        learner_id,
        learner_id,
        QUESTION_BATCH,
        learner_id,
        learner_id,
    ]
    rows = fetch_all((sql, [*params, *question_ids]))
    # JSON columns come back as text on SQLite (and with Django's psycopg set-up): read_value
    # parses them as the ORM would.
    profile_field = QuestionReadiness._meta.get_field("profile")
    card_field = ReviewCard._meta.get_field("card")
    state_field = TopicReadiness._meta.get_field("state")
    for (qid, topic_id, difficulty, variance, answers, profile, card_id, card, reviews,
         topic_row_id, topic_state, difficulty_sum, marks, answers, pending) in rows:  # fmt: skip
        side.topic_of[qid] = topic_id
        side.counts[qid] = marks_counts(marks, answers)
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


def quiz_count(quiz_id: int, is_correct: bool, score: float, now: datetime) -> Statement:
    """One more answered item of the quiz (and right one, or partly right one, and its
    marks); finished with the last one; it returns the counters it left (answered, right,
    finished at, partly right, marks: see quiz_counters). It goes
    last with the answer's writes: the learner's exam row, locked first, queues two posts of
    the same item, so that the loser's insert fails on the unique constraint and its counting
    is rolled back with it; the quiz row's own lock queues them when the question has no exam."""
    answered, right, finished, items, withdrawn, partly, marks = names(
        "answered_count", "right_count", "finished_at", "item_count", "withdrawn_count",
        "partly_right_count", "marks",
    )  # fmt: skip
    # Withdrawn items are never answered: the quiz ends with the last of the others.
    sql = (
        f"UPDATE {table(Quiz)} SET {answered} = {answered} + 1, {right} = {right} + %s, "  # noqa: S608
        f"{partly} = {partly} + %s, {marks} = {marks} + %s, "
        f"{finished} = CASE WHEN {answered} >= {items} - {withdrawn} - 1 "
        f"AND {finished} IS NULL THEN %s "
        f"ELSE {finished} END WHERE id = %s "
        f"RETURNING {answered}, {right}, {finished}, {partly}, {marks}"
    )
    partly_right = not is_correct and score > 0
    return sql, [1 if is_correct else 0, 1 if partly_right else 0, score, now, quiz_id]


def quiz_counters(row: tuple[Any, ...] | None) -> tuple[Any, ...] | None:
    """The quiz's counters as quiz_count's RETURNING gave them: (answered, right, finished,
    partly right, marks)."""
    if row is None:
        return None
    finished = read_value(Quiz._meta.get_field("finished_at"), row[2])
    return row[0], row[1], finished, row[3], row[4]
