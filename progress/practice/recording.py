"""Recording answers: the product's core write, in a few wide statements.

`insert_answers` makes every change an answer makes to the learner's own state, in the
caller's transaction: the attempt, the learner's readiness on the exam and its topics, the
review card, the daily totals. The questions' difficulties are the worker's, in batches (see
progress.readiness.batches); the answer only reads them and, when no batch is pending yet,
opens one. Nothing here locks a row that another learner's answer needs: the learner's own
rows queue the learner's own answers, and the learners share only the batch lock's shared
side.

The ORM's statement compilation costs as much as running the statements, so the reads are one
written-out query (answer_query.py) and the writes are written out (courseiva.lib.sql): the
attempt's insert, then the learner's exam, topic, card and day rows in one statement on
PostgreSQL."""

from collections.abc import Sequence
from datetime import date, datetime, timedelta
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from courseiva.lib.sql import (
    Statement,
    insert_instances,
    keyed_instance_statements,
    run_together,
)
from progress.accounts.models import User
from progress.engine import learner_model
from progress.practice.answer_query import quiz_count, quiz_counters, read_question_side
from progress.practice.models import (
    MAX_TIME_SPENT,
    Attempt,
    LearnerDay,
    QuizItem,
    ReviewCard,
)
from progress.practice.pending import PendingWork
from progress.practice.tasks import enqueue_batch
from progress.readiness import update as readiness_update
from progress.readiness.models import TopicReadiness
from progress.readiness.update import ModelAnswer
from questions.models import Grade
from questions.pages.snapshot import QuestionPage


def record_attempt(
    *,
    learner: User,
    page: QuestionPage,
    grade: Grade,
    source: str,
    served_at: datetime | None = None,
    quiz_item: QuizItem | None = None,
    nonce: str = "",
) -> tuple[Attempt, bool]:
    """Record an answer exactly once; returns (attempt, created). A second post of the same
    quiz item or the same served page (double click, resubmitted form, two tabs) hits a
    unique constraint and gets the attempt recorded first, on SQLite and PostgreSQL alike.
    Queries: savepoint, those of `insert_answers`, release; a duplicate: a rollback and a
    select."""
    now = timezone.now()
    spent = now - served_at if served_at else None
    if spent is not None and (spent < timedelta(0) or spent > MAX_TIME_SPENT):
        spent = None  # a clock oddity or a learner who walked away: not a measurement
    chosen = answer_record(page, grade)
    attempt = Attempt(
        learner=learner,
        question_id=page.question_id,
        question_uid=page.uid,
        exam_id=page.exam_id,
        topic_id=page.topic_id,
        chosen=chosen,
        is_correct=grade.is_correct,
        score=learner_model.share(grade.score),
        time_spent=spent,
        source=source,
        quiz_item=quiz_item,
        serve_nonce=nonce,
        answered_at=now,
    )
    # The quiz as the caller loaded it with the item, if it did: its counters are set from
    # the count's RETURNING, so that the caller shows them without reading them again.
    loaded = quiz_item is not None and QuizItem.quiz.is_cached(quiz_item)
    quiz = quiz_item.quiz if quiz_item is not None and loaded else None
    try:
        with transaction.atomic():
            count = (
                quiz_count(quiz_item.quiz_id, grade.is_correct, attempt.score, now)
                if quiz_item is not None
                else None
            )
            counters = quiz_counters(
                insert_answers(learner.pk, [attempt], counted_at=now, then=count)
            )
    except IntegrityError:
        if quiz_item is not None:
            if quiz is not None:  # another post counted it: show the counters it left
                quiz.refresh_from_db(fields=QUIZ_COUNTERS)
            return Attempt.objects.get(quiz_item=quiz_item), False
        if nonce:
            return Attempt.objects.get(learner=learner, serve_nonce=nonce), False
        raise
    if quiz is not None and counters is not None:
        (quiz.answered_count, quiz.right_count, quiz.finished_at, quiz.partly_right_count,
         quiz.marks) = counters  # fmt: skip
    return attempt, True


# What quiz_count counts, as quiz_counters returns it.
QUIZ_COUNTERS = ["answered_count", "right_count", "finished_at", "partly_right_count", "marks"]


def answer_record(page: QuestionPage, grade: Grade) -> list[dict[str, Any]]:
    """What an attempt keeps of the answer, as the question was then: each chosen option's
    key, text and correctness; for the other types, each part's response key (see
    questions.grading), the answer as shown, and whether that part was right."""
    if page.is_choice:
        return [
            {"key": option.key, "text": option.text, "correct": option.is_correct}
            for option in page.options
            if option.key in grade.chosen
        ]
    results = {result.key: result for result in grade.parts}
    # What each key is called, as plain text: steps and pool answers, prompts, gap choices.
    names = {option.key: option.text for option in page.options}
    for part in page.parts:
        names[part.key] = part.label
        names.update((choice.key, choice.text) for choice in part.choice_views)
    names.update({"yes": "Yes", "no": "No"})
    record = []
    for item in grade.response:
        key, _, value = item.partition("=")
        result = results.get(key)
        given = f"place {value}" if page.kind == "ordering" else names.get(value, value)
        record.append(
            {
                "key": item,
                "text": f"{names.get(key, '')}: {given}",
                "correct": bool(result and result.correct),
            }
        )
    return record


def insert_answers(
    learner_id: int,
    attempts: list[Attempt],
    *,
    counted_at: datetime,
    then: Statement | None = None,
) -> tuple[Any, ...] | None:
    """Insert a learner's new attempts and make every change they make to the learner's
    state, in the caller's transaction (see the module's docstring): the readiness state, the
    review cards, the daily totals (the answers counted on the day of `counted_at`).
    Statements, whatever the number of attempts: the lock of the learner's exam rows (which
    on PostgreSQL also takes the attempts' ids), the read of the questions' side, then the
    writes: the attempts' insert, the exam rows' update (one per exam), the topics' upsert,
    the review cards' upsert (when one changes) and the daily totals' upsert, which are one
    statement on PostgreSQL, with `then` last (a quiz's count): its RETURNING row is
    returned; and the opening of a batch when none is pending (with its enqueue after
    commit)."""
    question_ids = sorted({a.question_id for a in attempts if a.question_id is not None})
    update = readiness_update.lock(
        learner_id, {a.exam_id for a in attempts}, new_attempts=len(attempts), ids_from=Attempt
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
        [ModelAnswer(a.question_id, a.topic_id, a.exam_id, a.score) for a in attempts],
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
        [(a.question_id, a.score, a.answered_at) for a in attempts if a.question_id],
    )
    returned = run_together(
        [
            *inserts,
            *update.statements([a.pk for a in attempts]),
            ReviewCard.objects.upsert(cards),
            LearnerDay.objects.add(learner_id, day_totals(attempts, counted_at)),
            then,
        ]
    )
    if not side.batch_pending and question_ids and PendingWork.objects.open_batch():
        # Robust: a failed enqueue must not fail the answer; the sweep finds the row.
        transaction.on_commit(enqueue_batch, robust=True)
    return returned


def day_totals(attempts: Sequence[Attempt], counted_at: datetime) -> dict[date, list[float]]:
    """[answers, right, partly right, marks, timed answers, seconds] that the attempts add,
    all counted on the day of `counted_at`. Right is fully right; the marks count a partly
    right answer's score."""
    totals: list[float] = [0, 0, 0, 0.0, 0, 0]
    for attempt in attempts:
        totals[0] += 1
        totals[1] += int(attempt.is_correct)
        totals[2] += int(attempt.is_partly_right)
        totals[3] += attempt.score
        if attempt.time_spent is not None:
            totals[4] += 1
            totals[5] += round(attempt.time_spent.total_seconds())
    return {timezone.localdate(counted_at): totals} if attempts else {}
