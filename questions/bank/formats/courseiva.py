"""Our interchange format, courseiva-bank JSON (docs/question-bank.md): JSON text parsed into a
document and written from one, and the bank exported as a document of version 2, every item
type with its parts and the exams' case studies. A canonical export: empty optional fields
and defaults left out, `status` always written, so that export -> import -> export is
byte-identical. The images the exported text shows travel in the document, base64 in a
top-level "media" list (left out when there are none).
"""

import json
from collections.abc import Iterable, Sequence
from decimal import Decimal
from pathlib import Path
from typing import Any

from questions.bank.checks import TOO_DEEP, BankError, Document, Problem, nests_deeper_than
from questions.bank.item_fields import RATIONALE_NAMES
from questions.grading import CHOICE_KINDS
from questions.media import images as media
from questions.models import (
    MEDIA_URL_PREFIX,
    CaseStudy,
    Exam,
    Kind,
    MockSection,
    Option,
    Part,
    Question,
    Rationale,
    RelatedQuestion,
    Scoring,
    Topic,
    format_number,
)

FORMAT = "courseiva-bank"
VERSION = 2


def parse_document(raw: bytes | str) -> Document:
    """Parse JSON text; a syntax error becomes a BankError with line and column, nesting
    deeper than any bank (checks.MAX_NESTING) one that says so."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError as error:
        raise BankError([Problem("(file)", f"not UTF-8 text ({error.reason})")]) from None
    try:
        document = json.loads(text, parse_constant=_not_a_json_number)
    except NotANumber as error:
        raise BankError([Problem("(file)", f"not valid JSON: {error}")]) from None
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


class NotANumber(ValueError):
    pass


def _not_a_json_number(name: str) -> Any:
    # Python's json reads NaN and Infinity, which JSON has not: a tolerance of Infinity
    # passed the schema's minimum, a NaN no comparison at all, and the database took neither.
    raise NotANumber(f"{name} is not a number JSON allows")


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
    """The bank (or the given exams) as a document. Eight queries, whatever its size, and a
    ninth when its text shows images.

    Optional fields that are empty are left out, so exporting what was imported gives back
    the same document; `status` is always written.
    """
    exam_rows = list(exams) if exams is not None else list(Exam.objects.all())
    exam_ids = [exam.pk for exam in exam_rows]
    topics_by_exam: dict[int, list[Topic]] = {}
    for topic in Topic.objects.filter(exam__in=exam_ids):
        topics_by_exam.setdefault(topic.exam_id, []).append(topic)
    cases_by_exam: dict[int, list[CaseStudy]] = {}
    for case in CaseStudy.objects.filter(exam__in=exam_ids):
        cases_by_exam.setdefault(case.exam_id, []).append(case)
    case_slugs = {case.pk: case.slug for cases in cases_by_exam.values() for case in cases}
    sections_by_exam: dict[int, list[MockSection]] = {}
    for section in MockSection.objects.filter(exam__in=exam_ids):
        sections_by_exam.setdefault(section.exam_id, []).append(section)
    questions = list(
        Question.objects.filter(topic__exam__in=exam_ids)
        .select_related("topic", "author")
        .order_by("position", "uid")
    )
    parts_by_question: dict[int, list[Part]] = {}
    for part in Part.objects.filter(question__topic__exam__in=exam_ids).order_by(
        "question_id", "position", "id"
    ):
        parts_by_question.setdefault(part.question_id, []).append(part)
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
                question,
                options_by_question.get(question.pk, []),
                parts_by_question.get(question.pk, []),
                related.get(question.pk, []),
                case_slugs,
            )
        )
    document: Document = {
        "format": FORMAT,
        "version": VERSION,
        "exams": [
            _export_exam(
                exam,
                topics_by_exam.get(exam.pk, []),
                questions_by_exam.get(exam.pk, []),
                cases_by_exam.get(exam.pk, []),
                sections_by_exam.get(exam.pk, []),
            )
            for exam in exam_rows
        ],
    }
    images = media.document_entries(media_references(document))
    if images:
        document["media"] = images
    return document


def media_references(document: Document) -> set[str]:
    """The file names of the images a document's exams show: in any text of theirs (a stem,
    an option, a part, a case study's scenario)."""
    names: set[str] = set()
    for text in _texts(document.get("exams", [])):
        if MEDIA_URL_PREFIX in text:
            names |= media.references(text)
    return names


def _texts(node: Any) -> Iterable[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _texts(value)
    elif isinstance(node, list):
        for value in node:
            yield from _texts(value)


def _without_empty(values: dict[str, Any], optional: Iterable[str]) -> dict[str, Any]:
    for name in optional:
        if values.get(name) in ("", None, []):
            values.pop(name, None)
    return values


def _export_exam(
    exam: Exam,
    topics: list[Topic],
    questions: list[dict[str, Any]],
    cases: list[CaseStudy],
    sections: list[MockSection],
) -> Document:
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
        if exam.forward_only:
            values["mock_exam"]["forward_only"] = True
        if exam.scale is not None:
            scale = exam.scale
            values["mock_exam"]["scale"] = {
                "min": scale.low, "max": scale.high, "pass": scale.passing
            }  # fmt: skip
        if sections:
            values["mock_exam"]["sections"] = [_export_section(s) for s in sections]
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
    values["case_studies"] = [
        {"slug": case.slug, "title": case.title, "scenario": case.scenario} for case in cases
    ]
    return _without_empty(values, ["vendor", "description", "case_studies"])


def _export_question(
    question: Question,
    options: list[Option],
    parts: list[Part],
    related: list[str],
    case_slugs: dict[int, str],
) -> Document:
    values: dict[str, Any] = {
        "uid": question.uid,
        "topic": question.topic.slug,
        "kind": question.kind,
        "scoring": "" if question.scoring == Scoring.ALL else question.scoring,
        "case_study": case_slugs.get(question.case_study_id or 0, ""),
        "stem": question.stem,
        "exhibit": question.exhibit,
        "trap": question.trap,
        "explanation": question.explanation,
        "difficulty": question.difficulty,
        "status": question.status,
        "author": question.author.name if question.author else "",
        "reviewed_on": question.reviewed_on.isoformat() if question.reviewed_on else None,
        "references": question.references,
        "tags": question.tags,
        "related": related,
        "reuse_answers": question.reuse_answers or None,
        **_export_items(question, options, parts),
    }
    return _without_empty(
        values,
        [
            "scoring",
            "case_study",
            "exhibit",
            "trap",
            "difficulty",
            "author",
            "reviewed_on",
            "references",
            "tags",
            "related",
            "reuse_answers",
        ],
    )


def _export_items(question: Question, options: list[Option], parts: list[Part]) -> Document:
    """The arrays of the question's type (questions.bank.item_fields)."""
    kind = question.kind
    if kind in CHOICE_KINDS:
        return {"options": [_export_option(option) for option in options]}
    if kind == Kind.ORDERING:
        return {"steps": [_export_option(o, place=o.order, with_correct=False) for o in options]}
    if kind == Kind.MATCHING:
        number = {option.pk: index for index, option in enumerate(options, 1)}
        pool = [
            _export_option(option, with_correct=False, needs_rationale=False) for option in options
        ]
        return {
            "pool": pool,
            "prompts": [
                _with_rationale(
                    {"text": part.prompt, "answer": number.get(part.answer_id or 0)}, part
                )
                for part in parts
            ],
        }
    if kind == Kind.YES_NO:
        return {
            "statements": [
                _with_rationale({"text": part.prompt, "answer": _yes_no(part.is_yes)}, part)
                for part in parts
            ]
        }
    if kind == Kind.FILL_IN:
        return {"blanks": [_export_blank(part) for part in parts]}
    choices: dict[int | None, list[Option]] = {}
    for option in options:
        choices.setdefault(option.part_id, []).append(option)
    return {
        "gaps": [
            _with_rationale(
                {
                    "label": part.prompt,
                    "choices": [_export_option(option) for option in choices[part.pk]],
                },
                part,
            )
            if part.pk in choices
            else _export_blank(part)  # typed in
            for part in parts
        ]
    }


def _yes_no(is_yes: bool | None) -> str | None:
    return None if is_yes is None else "yes" if is_yes else "no"


def _export_blank(part: Part) -> Document:
    values: dict[str, Any] = {"label": part.prompt}
    if part.number is not None:
        values["number"] = _number(part.number)
        if part.tolerance:
            values["tolerance"] = _number(part.tolerance)
        if part.more_ranges:
            values["more_numbers"] = [
                {"number": _number(number)}
                | ({"tolerance": _number(tolerance)} if tolerance else {})
                for number, tolerance in part.more_ranges
            ]
        if part.unit_list:
            values["units"] = part.unit_list
    else:
        values["accepted"] = part.accepted_texts
        if part.match_case:
            values["match_case"] = True
        if part.ignore_spaces:
            values["ignore_spaces"] = True
        if part.wildcards:
            values["wildcards"] = True
    if part.feedback:
        values["feedback"] = [
            {"answer": item["answer"], "feedback": item["feedback"]} for item in part.feedback
        ]
    return _with_rationale(values, part)


def _with_rationale(values: dict[str, Any], part: Part) -> Document:
    """A part's values and its rationale, whose "why" is always written (the format requires
    it, empty in a draft); None values left out."""
    values = {name: value for name, value in values.items() if value is not None}
    values["rationale"] = part.why
    for name in ("tempting_because", "right_when"):
        if text := getattr(part, name):
            values[name] = text
    return values


def _export_option(
    option: Option,
    *,
    with_correct: bool = True,
    place: int | None = None,
    needs_rationale: bool = True,
) -> Document:
    """An option (a choice, a drop-down's choice), a step (with its place, without a
    correct flag) or a pool's answer (without a flag, its rationale optional)."""
    try:
        rationale: Rationale | None = option.rationale
    except Rationale.DoesNotExist:
        rationale = None
    values: dict[str, Any] = {"text": option.text}
    if with_correct:
        values["correct"] = option.is_correct
    if place is not None:
        values["place"] = place
    for field, name in RATIONALE_NAMES.items():
        values[name] = getattr(rationale, field) if rationale else ""
    optional = ["tempting_because", "right_when"] + ([] if needs_rationale else ["rationale"])
    return _without_empty(values, optional)


def dump_document(document: Document) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _export_section(section: MockSection) -> dict[str, Any]:
    values: dict[str, Any] = {"title": section.title, "question_count": section.question_count}
    if section.kinds:
        values["item_types"] = list(section.kinds)
    if section.holds_case_study:
        values["case_study"] = True
    if section.minutes is not None:
        values["minutes"] = section.minutes
    if section.locks:
        values["locks"] = True
    return values
