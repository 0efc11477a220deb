"""The rows a question page is built from (questions.pages.snapshot), read by written-out queries.

A page is built on its first request after a start or an edit, and in the default per-process
cache each process builds it once: a signed-in answer to a question its process has not shown
yet pays for the build. The ORM took 4.2 ms of CPU over the three queries, most of it compiling
the first one (the question with three subqueries: its neighbours in the topic's order and its
exam's count), against some 0.5 ms to run them. Written out once here, they read the same rows
(courseiva.lib.sql builds the instances through the fields' own converters)."""

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from django.db import connection

from courseiva.lib.sql import Columns, build_all, placeholders, table
from questions.models import (
    Author,
    CaseStudy,
    Exam,
    Option,
    Part,
    Question,
    Rationale,
    RelatedQuestion,
    Status,
    Topic,
)


@dataclass(frozen=True)
class QuestionRow:
    question: Question
    topic: Topic
    exam: Exam
    author: Author | None
    case_study: CaseStudy | None
    previous_uid: str | None  # the published question before it in its topic's order
    next_uid: str | None
    exam_question_count: int  # its exam's published questions


def question_rows(uids: Sequence[str]) -> list[QuestionRow]:
    """The questions of these uids (any status), in their topics' order: one query."""
    if not uids:
        return []
    parts, sql = _question_read(connection.vendor)
    published = Status.PUBLISHED.value
    with connection.cursor() as cursor:
        cursor.execute(
            sql.format(uids=placeholders(len(uids))), [published, published, published, *uids]
        )
        fetched = cursor.fetchall()
    rows = []
    for row in fetched:
        (question, topic, exam, author, case), start = build_all(parts, row)
        previous_uid, next_uid, count = row[start:]
        question.topic, topic.exam, question.author = topic, exam, author
        rows.append(QuestionRow(question, topic, exam, author, case, previous_uid, next_uid, count))
    return rows


def option_rows(question_ids: Sequence[int]) -> list[tuple[Option, Rationale | None]]:
    """The options of these questions, each with its rationale (None when it has none), by
    question and in their order: one query."""
    if not question_ids:
        return []
    parts, sql = _option_read(connection.vendor)
    with connection.cursor() as cursor:
        cursor.execute(sql.format(ids=placeholders(len(question_ids))), [*question_ids])
        fetched = cursor.fetchall()
    return [
        (option, rationale) for (option, rationale), _ in (build_all(parts, r) for r in fetched)
    ]


def part_rows(question_ids: Sequence[int]) -> list[Part]:
    """The parts of these questions (prompts, statements, blanks, gaps), by question and in
    their order: one query."""
    if not question_ids:
        return []
    return list(
        Part.objects.filter(question_id__in=question_ids).order_by("question_id", "position", "id")
    )


def related_rows(question_ids: Sequence[int]) -> list[tuple[int, str, str]]:
    """(question id, uid, stem) of the published questions these ones link to ("Go
    deeper"), by question and in the links' order: one query."""
    if not question_ids:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            _related_read(connection.vendor).format(ids=placeholders(len(question_ids))),
            [Status.PUBLISHED.value, *question_ids],
        )
        return [(int(from_id), str(uid), str(stem)) for from_id, uid, stem in cursor.fetchall()]


# Only quoted names go into the texts below; the values are parameters. `{uids}` and `{ids}`
# become one placeholder per value.


@cache
def _question_read(vendor: str) -> tuple[list[Columns], str]:
    parts = [
        question := Columns(Question, "q"),
        topic := Columns(Topic, "t"),
        exam := Columns(Exam, "e"),
        author := Columns(Author, "a"),
        case := Columns(CaseStudy, "cs"),
    ]
    q, select = table(Question), ", ".join(part.select() for part in parts)
    # A neighbour: the nearest published question of the topic by (position, uid), as the
    # topic page lists them (the question_topic_status_pos index serves both).
    return parts, (
        f"SELECT {select}, "  # noqa: S608
        f"(SELECT p.uid FROM {q} p WHERE p.status = %s AND p.topic_id = q.topic_id "
        "AND (p.position < q.position OR (p.position = q.position AND p.uid < q.uid)) "
        "ORDER BY p.position DESC, p.uid DESC LIMIT 1), "
        f"(SELECT n.uid FROM {q} n WHERE n.status = %s AND n.topic_id = q.topic_id "
        "AND (n.position > q.position OR (n.position = q.position AND n.uid > q.uid)) "
        "ORDER BY n.position, n.uid LIMIT 1), "
        f"(SELECT COUNT(*) FROM {q} c JOIN {table(Topic)} ct ON ct.id = c.topic_id "
        "WHERE c.status = %s AND ct.exam_id = t.exam_id) "
        f"FROM {question.source()} JOIN {topic.source()} ON t.id = q.topic_id "
        f"JOIN {exam.source()} ON e.id = t.exam_id "
        f"LEFT JOIN {author.source()} ON a.id = q.author_id "
        f"LEFT JOIN {case.source()} ON cs.id = q.case_study_id "
        "WHERE q.uid IN ({uids}) ORDER BY q.position, q.uid"
    )


@cache
def _option_read(vendor: str) -> tuple[list[Columns], str]:
    parts = [option := Columns(Option, "o"), rationale := Columns(Rationale, "r")]
    return parts, (
        f"SELECT {option.select()}, {rationale.select()} "  # noqa: S608
        f"FROM {option.source()} LEFT JOIN {rationale.source()} ON r.option_id = o.id "
        "WHERE o.question_id IN ({ids}) ORDER BY o.question_id, o.position, o.id"
    )


@cache
def _related_read(vendor: str) -> str:
    return (
        "SELECT l.from_question_id, tq.uid, tq.stem "  # noqa: S608
        f"FROM {table(RelatedQuestion)} l "
        f"JOIN {table(Question)} tq ON tq.id = l.to_question_id "
        "WHERE tq.status = %s AND l.from_question_id IN ({ids}) "
        "ORDER BY l.from_question_id, l.position, l.id"
    )
