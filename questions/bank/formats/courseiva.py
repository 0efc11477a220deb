"""Our interchange format, courseiva-bank JSON (docs/question-bank.md): JSON text parsed into a
document and written from one, and the bank exported as a document. A canonical export: empty
optional fields left out, `status` always written, so that export -> import -> export is
byte-identical. The images the exported text shows travel in the document, base64 in a
top-level "media" list (left out when there are none).
"""

import json
from collections.abc import Iterable, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from questions.bank.checks import TOO_DEEP, BankError, Document, Problem, nests_deeper_than
from questions.media import images as media
from questions.models import (
    Exam,
    Option,
    Question,
    Rationale,
    RelatedQuestion,
    Topic,
    format_number,
)

FORMAT = "courseiva-bank"
VERSION = 1


def parse_document(raw: bytes | str) -> Document:
    """Parse JSON text; a syntax error becomes a BankError with line and column, nesting
    deeper than any bank (checks.MAX_NESTING) one that says so."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError as error:
        raise BankError([Problem("(file)", f"not UTF-8 text ({error.reason})")]) from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise BankError(
            [
                Problem(
                    "(file)",
                    f"not valid JSON: {error.msg} at line {error.lineno}, column {error.colno}",
                )
            ]
        ) from None
    except RecursionError:
        raise BankError([Problem("(file)", TOO_DEEP)]) from None
    if nests_deeper_than(document, _containers):
        raise BankError([Problem("(file)", TOO_DEEP)])
    if not isinstance(document, dict):
        raise BankError([Problem("(document)", "a bank file is a JSON object")])
    return document


def _containers(value: dict[str, Any] | list[Any]) -> list[Any]:
    """The objects and arrays directly inside a JSON object or array. json.loads makes plain
    dicts and lists; `type() is` walked a 10,000-question bank in 70 ms, isinstance in 110."""
    items = value.values() if type(value) is dict else value
    return [item for item in items if type(item) is dict or type(item) is list]


def read_document(path: Path) -> Document:
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise BankError([Problem("(file)", f"cannot read {path}: {error.strerror}")]) from None
    return parse_document(raw)


def _number(value: Decimal) -> int | float:
    text = format_number(value)
    return int(text) if "." not in text else float(text)


def export_document(exams: Sequence[Exam] | None = None) -> Document:
    """The bank (or the given exams) as a document. Five queries, whatever its size, and a
    sixth when its text shows images.

    Optional fields that are empty are left out, so exporting what was imported gives back
    the same document; `status` is always written.
    """
    exam_rows = list(exams) if exams is not None else list(Exam.objects.all())
    exam_ids = [exam.pk for exam in exam_rows]
    topics_by_exam: dict[int, list[Topic]] = {}
    for topic in Topic.objects.filter(exam__in=exam_ids):
        topics_by_exam.setdefault(topic.exam_id, []).append(topic)
    questions = list(
        Question.objects.filter(topic__exam__in=exam_ids)
        .select_related("topic", "author")
        .order_by("position", "uid")
    )
    options_by_question: dict[int, list[Option]] = {}
    for option in (
        Option.objects.filter(question__topic__exam__in=exam_ids)
        .select_related("rationale")
        .order_by("question_id", "position", "id")
    ):
        options_by_question.setdefault(option.question_id, []).append(option)
    related: dict[int, list[str]] = {}
    for from_pk, uid in (
        RelatedQuestion.objects.filter(from_question__topic__exam__in=exam_ids)
        .order_by("from_question_id", "position", "id")
        .values_list("from_question_id", "to_question__uid")
    ):
        related.setdefault(from_pk, []).append(uid)
    questions_by_exam: dict[int, list[dict[str, Any]]] = {}
    for question in questions:
        questions_by_exam.setdefault(question.topic.exam_id, []).append(
            _export_question(
                question, options_by_question.get(question.pk, []), related.get(question.pk, [])
            )
        )
    document: Document = {
        "format": FORMAT,
        "version": VERSION,
        "exams": [
            _export_exam(exam, topics_by_exam.get(exam.pk, []), questions_by_exam.get(exam.pk, []))
            for exam in exam_rows
        ],
    }
    images = media.document_entries(media_references(document))
    if images:
        document["media"] = images
    return document


def media_references(document: Document) -> set[str]:
    """The file names of the images a document's questions show."""
    names: set[str] = set()
    for exam in document.get("exams", []):
        for question in exam.get("questions", []):
            for name in ("stem", "trap", "explanation"):
                names |= media.references(question.get(name, ""))
            for option in question.get("options", []):
                for name in ("text", "rationale", "tempting_because", "right_when"):
                    names |= media.references(option.get(name, ""))
    return names


def _without_empty(values: dict[str, Any], optional: Iterable[str]) -> dict[str, Any]:
    for name in optional:
        if values.get(name) in ("", None, []):
            values.pop(name, None)
    return values


def _export_exam(exam: Exam, topics: list[Topic], questions: list[dict[str, Any]]) -> Document:
    values: dict[str, Any] = {
        "slug": exam.slug,
        "code": exam.code,
        "title": exam.title,
        "vendor": exam.vendor,
        "description": exam.description,
    }
    if exam.mock_question_count is not None and exam.mock_pass_percent is not None:
        values["mock_exam"] = {
            "question_count": exam.mock_question_count,
            "duration_minutes": exam.mock_duration_minutes,
            "pass_percent": _number(exam.mock_pass_percent),
        }
    values["topics"] = [
        _without_empty(
            {
                "slug": topic.slug,
                "title": topic.title,
                "weight": _number(topic.weight),
                "description": topic.description,
            },
            ["description"],
        )
        for topic in topics
    ]
    values["questions"] = questions
    return _without_empty(values, ["vendor", "description"])


def _export_question(question: Question, options: list[Option], related: list[str]) -> Document:
    values: dict[str, Any] = {
        "uid": question.uid,
        "topic": question.topic.slug,
        "kind": question.kind,
        "stem": question.stem,
        "trap": question.trap,
        "explanation": question.explanation,
        "difficulty": question.difficulty,
        "status": question.status,
        "author": question.author.name if question.author else "",
        "reviewed_on": question.reviewed_on.isoformat() if question.reviewed_on else None,
        "references": question.references,
        "tags": question.tags,
        "related": related,
        "options": [_export_option(option) for option in options],
    }
    return _without_empty(
        values, ["trap", "difficulty", "author", "reviewed_on", "references", "tags", "related"]
    )


def _export_option(option: Option) -> Document:
    try:
        rationale: Rationale | None = option.rationale
    except Rationale.DoesNotExist:
        rationale = None
    values = {
        "text": option.text,
        "correct": option.is_correct,
        "rationale": rationale.why if rationale else "",
        "tempting_because": rationale.tempting_because if rationale else "",
        "right_when": rationale.right_when if rationale else "",
    }
    return _without_empty(values, ["tempting_because", "right_when"])


def dump_document(document: Document) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
