"""Import and export of the question-bank interchange format (see docs/question-bank.md).

A document is checked whole before anything is written: first against the JSON schema shipped
in `questions/schema/`, then against the bank's rules. Every problem is reported with its JSON
path. Writing uses bulk operations so that the number of queries does not depend on the number
of questions (Django batches only past SQLite's and PostgreSQL's parameter limits, tens of
thousands of rows).
"""

import datetime
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from functools import cache
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError as SchemaError

from questions.models import (
    Exam,
    Option,
    Question,
    Rationale,
    RelatedQuestion,
    Status,
    Topic,
    format_number,
    option_rule_problems,
    weight_total_problem,
)
from questions.pages import forget_questions

FORMAT = "courseiva-bank"
VERSION = 1
SCHEMA_PATH = Path(__file__).resolve().parent / "schema" / "question-bank.schema.json"
# Updates are written in batches of this many rows: a CASE expression per field grows with the
# batch, and SQLite evaluates it row by row.
UPDATE_BATCH = 1000

Progress = Callable[[str], None]
Document = dict[str, Any]


@dataclass(frozen=True)
class Problem:
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


class BankError(Exception):
    """The document cannot be imported; `problems` says why, each with its JSON path."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(str(problem) for problem in self.problems))


@dataclass
class ImportSummary:
    exams_created: int = 0
    exams_updated: int = 0
    topics_created: int = 0
    topics_updated: int = 0
    questions_created: int = 0
    questions_updated: int = 0
    questions_unchanged: int = 0
    options_written: int = 0
    exam_slugs: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        return [
            f"Exams: {self.exams_created} created, {self.exams_updated} updated "
            f"({', '.join(self.exam_slugs)})",
            f"Topics: {self.topics_created} created, {self.topics_updated} updated",
            f"Questions: {self.questions_created} created, {self.questions_updated} updated, "
            f"{self.questions_unchanged} unchanged",
        ]


# Reading and checking ---------------------------------------------------------------------


def parse_document(raw: bytes | str) -> Document:
    """Parse JSON text; a syntax error becomes a BankError with line and column."""
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
    if not isinstance(document, dict):
        raise BankError([Problem("(document)", "a bank file is a JSON object")])
    return document


def read_document(path: Path) -> Document:
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise BankError([Problem("(file)", f"cannot read {path}: {error.strerror}")]) from None
    return parse_document(raw)


@cache
def _validator() -> Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    # The schema's $refs point into its own $defs and never recurse, so they can be inlined
    # once here: resolving them per instance took about a third of the time on a large bank.
    definitions = schema.pop("$defs", {})
    schema = _inline_refs(schema, definitions)
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def _inline_refs(node: Any, definitions: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_inline_refs(item, definitions) for item in node]
    if not isinstance(node, dict):
        return node
    reference = node.get("$ref")
    if isinstance(reference, str) and reference.startswith("#/$defs/"):
        return _inline_refs(definitions[reference.removeprefix("#/$defs/")], definitions)
    return {key: _inline_refs(value, definitions) for key, value in node.items()}


def json_path(parts: Iterable[str | int]) -> str:
    path = ""
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path or "(document)"


def _schema_message(error: SchemaError) -> str:
    """jsonschema's message, without echoing a whole sub-document back at the reader."""
    instance = error.instance
    if error.validator == "minItems" and isinstance(instance, list):
        return f"needs at least {error.validator_value} items (has {len(instance)})"
    if error.validator == "maxItems" and isinstance(instance, list):
        return f"allows at most {error.validator_value} items (has {len(instance)})"
    if error.validator == "required" and isinstance(error.validator_value, list):
        missing = [name for name in error.validator_value if name not in instance]
        return f"missing required field {', '.join(repr(name) for name in missing)}"
    if error.validator == "format" and error.validator_value == "date":
        return f"{instance!r} is not a date in the form YYYY-MM-DD"
    if error.validator == "pattern" and isinstance(instance, str):
        return (
            f"{instance[:80]!r} does not match {error.validator_value} "
            "(lowercase letters, digits and single hyphens)"
            if "a-z0-9" in str(error.validator_value)
            else f"{instance[:80]!r} does not match {error.validator_value}"
        )
    message = error.message
    return message if len(message) <= 300 else message[:297] + "..."


def schema_problems(document: Document) -> list[Problem]:
    errors = sorted(_validator().iter_errors(document), key=lambda e: list(map(str, e.path)))
    return [Problem(json_path(error.absolute_path), _schema_message(error)) for error in errors]


def _items(value: Any) -> list[tuple[int, dict[str, Any]]]:
    """(index, object) pairs of a list, skipping what is not an object: the schema reports it."""
    if not isinstance(value, list):
        return []
    return [(index, item) for index, item in enumerate(value) if isinstance(item, dict)]


def _decimal_problem(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        return None
    if number != number.quantize(Decimal("0.01")):
        return "use at most two decimal places"
    return None


def rule_problems(
    document: Document, known_uids: set[str] | frozenset[str] = frozenset()
) -> list[Problem]:
    """The bank's rules beyond the schema. Written to survive a document the schema rejects,
    so that one run lists every problem. `known_uids` are uids that related questions may
    point at besides the document's own (the bank's, other files of the same import)."""
    problems: list[Problem] = []
    exams = _items(document.get("exams"))
    uid_places: dict[str, list[str]] = {}
    exam_places: dict[str, list[str]] = {}
    for e, exam in exams:
        base = f"exams[{e}]"
        if isinstance(exam.get("slug"), str):
            exam_places.setdefault(exam["slug"], []).append(f"{base}.slug")
        mock = exam.get("mock_exam")
        if isinstance(mock, dict) and (message := _decimal_problem(mock.get("pass_percent"))):
            problems.append(Problem(f"{base}.mock_exam.pass_percent", message))
        topics = _items(exam.get("topics"))
        topic_slugs: dict[str, str] = {}
        weights: list[Decimal] = []
        for t, topic in topics:
            slug = topic.get("slug")
            if isinstance(slug, str):
                if slug in topic_slugs:
                    problems.append(
                        Problem(
                            f"{base}.topics[{t}].slug",
                            f"topic slug {slug!r} is used twice in this exam "
                            f"(also {topic_slugs[slug]})",
                        )
                    )
                else:
                    topic_slugs[slug] = f"{base}.topics[{t}]"
            weight = topic.get("weight")
            if isinstance(weight, int | float) and not isinstance(weight, bool):
                if message := _decimal_problem(weight):
                    problems.append(Problem(f"{base}.topics[{t}].weight", message))
                weights.append(Decimal(str(weight)))
        if topics and len(weights) == len(topics) and (message := weight_total_problem(weights)):
            problems.append(Problem(f"{base}.topics", message))
        for q, question in _items(exam.get("questions")):
            qbase = f"{base}.questions[{q}]"
            uid = question.get("uid")
            if isinstance(uid, str):
                uid_places.setdefault(uid, []).append(f"{qbase}.uid")
            topic_slug = question.get("topic")
            if isinstance(topic_slug, str) and topic_slugs and topic_slug not in topic_slugs:
                problems.append(
                    Problem(
                        f"{qbase}.topic",
                        f"no topic {topic_slug!r} in this exam "
                        f"(its topics: {', '.join(topic_slugs)})",
                    )
                )
            options = question.get("options")
            if isinstance(options, list) and all(isinstance(o, dict) for o in options):
                corrects = [option.get("correct") is True for option in options]
                for message in option_rule_problems(str(question.get("kind")), corrects):
                    if "options (this one has" in message:
                        continue  # the schema's minItems/maxItems already says it
                    problems.append(Problem(f"{qbase}.options", message))
            problems.extend(_list_problems(question, qbase))
    for slug, places in exam_places.items():
        for place in places[1:]:
            problems.append(Problem(place, f"exam slug {slug!r} is used twice (also {places[0]})"))
    for uid, places in uid_places.items():
        for place in places[1:]:
            problems.append(Problem(place, f"uid {uid!r} is used twice (also {places[0]})"))
    all_uids = set(uid_places) | set(known_uids)
    for e, exam in exams:
        for q, question in _items(exam.get("questions")):
            related = question.get("related")
            if not isinstance(related, list):
                continue
            for r, target in enumerate(related):
                if not isinstance(target, str):
                    continue
                path = f"exams[{e}].questions[{q}].related[{r}]"
                if target == question.get("uid"):
                    problems.append(Problem(path, "a question cannot be related to itself"))
                elif target not in all_uids:
                    problems.append(
                        Problem(path, f"no question with uid {target!r} in this file or the bank")
                    )
    return problems


def _list_problems(question: dict[str, Any], base: str) -> list[Problem]:
    problems: list[Problem] = []
    for name in ("tags", "related"):
        values = question.get(name)
        if isinstance(values, list):
            counts = Counter(value for value in values if isinstance(value, str))
            problems.extend(
                Problem(f"{base}.{name}", f"lists {value!r} {count} times")
                for value, count in counts.items()
                if count > 1
            )
    return problems


def referenced_uids(documents: Iterable[Document]) -> set[str]:
    uids: set[str] = set()
    for document in documents:
        for _, exam in _items(document.get("exams")):
            for _, question in _items(exam.get("questions")):
                if isinstance(question.get("related"), list):
                    uids.update(value for value in question["related"] if isinstance(value, str))
                if isinstance(question.get("uid"), str):
                    uids.add(question["uid"])
    return uids


def check_documents(documents: Sequence[Document]) -> list[list[Problem]]:
    """Every problem of each document (one list per document, in order). One query: which of
    the related uids that the documents name already exist in the bank."""
    named = referenced_uids(documents)
    known = set(Question.objects.filter(uid__in=named).values_list("uid", flat=True))
    known |= named_uids(documents)
    results = []
    for document in documents:
        problems = schema_problems(document) + rule_problems(document, known)
        results.append(sorted(problems, key=_path_order))
    return results


def _path_order(problem: Problem) -> list[tuple[int, int | str]]:
    """Sort key putting exams[2] before exams[10] and a parent before its children."""
    parts = re.findall(r"[^.\[\]]+", problem.path)
    return [(0, int(part)) if part.isdigit() else (1, part) for part in parts]


def named_uids(documents: Iterable[Document]) -> set[str]:
    return {
        question["uid"]
        for document in documents
        for _, exam in _items(document.get("exams"))
        for _, question in _items(exam.get("questions"))
        if isinstance(question.get("uid"), str)
    }


# Writing ----------------------------------------------------------------------------------


def _decimal(value: float | int) -> Decimal:
    return Decimal(str(value)).quantize(Decimal("0.01"))


def _changed(instance: Any, values: dict[str, Any]) -> bool:
    """Set `values` on `instance`; True when any of them differed."""
    changed = False
    for name, value in values.items():
        if getattr(instance, name) != value:
            setattr(instance, name, value)
            changed = True
    return changed


def _exam_values(exam: dict[str, Any], position: int) -> dict[str, Any]:
    mock = exam.get("mock_exam")
    return {
        "code": exam["code"],
        "title": exam["title"],
        "vendor": exam.get("vendor", ""),
        "description": exam.get("description", ""),
        "mock_question_count": mock["question_count"] if mock else None,
        "mock_duration_minutes": mock["duration_minutes"] if mock else None,
        "mock_pass_percent": _decimal(mock["pass_percent"]) if mock else None,
        "position": position,
    }


def _question_values(question: dict[str, Any], topic: Topic, position: int) -> dict[str, Any]:
    reviewed = question.get("reviewed_on")
    return {
        "topic_id": topic.pk,
        "kind": question["kind"],
        "stem": question["stem"],
        "trap": question.get("trap", ""),
        "explanation": question["explanation"],
        "difficulty": question.get("difficulty", ""),
        "status": question.get("status", Status.PUBLISHED),
        "author": question.get("author", ""),
        "reviewed_on": datetime.date.fromisoformat(reviewed) if reviewed else None,
        "references": question.get("references", []),
        "tags": question.get("tags", []),
        "position": position,
    }


EXAM_FIELDS = list(_exam_values({"code": "", "title": ""}, 0))
QUESTION_FIELDS = [
    name for name in _question_values({"kind": "", "stem": "", "explanation": ""}, Topic(pk=0), 0)
]


def import_documents(
    documents: Sequence[Document], progress: Progress | None = None
) -> ImportSummary:
    """Check every document, then write all of them in one transaction; on any problem write
    nothing and raise BankError (its problems prefixed with the document's number when there
    are several)."""
    say = progress or (lambda message: None)
    say("Checking the bank")
    all_problems = check_documents(documents)
    flat: list[Problem] = []
    for number, problems in enumerate(all_problems, start=1):
        prefix = f"file {number}: " if len(documents) > 1 else ""
        flat.extend(Problem(prefix + problem.path, problem.message) for problem in problems)
    if flat:
        raise BankError(flat)
    merged = [exam for document in documents for exam in document["exams"]]
    with transaction.atomic():
        summary = _write(merged, say)
        # Unchanged questions too: their "Go deeper" lists may name a changed one.
        forget_questions(named_uids(documents))
        return summary


def import_document(document: Document, progress: Progress | None = None) -> ImportSummary:
    return import_documents([document], progress)


def _write(exams: list[dict[str, Any]], say: Progress) -> ImportSummary:
    summary = ImportSummary(exam_slugs=[exam["slug"] for exam in exams])
    now = timezone.now()
    exam_rows = _write_exams(exams, summary, now)
    say(f"Writing {sum(len(exam['topics']) for exam in exams)} topics")
    topic_rows = _write_topics(exams, exam_rows, summary)
    pairs = [(exam["slug"], question) for exam in exams for question in exam["questions"]]
    say(f"Writing {len(pairs)} questions")
    question_rows, stored_questions, changed = _write_questions(exams, pairs, topic_rows, now)
    say(f"Writing {sum(len(q['options']) for _, q in pairs)} options and their rationales")
    touched = _write_options([q for _, q in pairs], question_rows, stored_questions)
    say("Linking related questions")
    touched |= _write_related([q for _, q in pairs], question_rows)
    # A question whose options or links changed but whose own fields did not is updated all
    # the same: its updated_at keys cached renderings.
    changed_pks = {row.pk for row in changed}
    for row in stored_questions.values():
        if row.pk in touched and row.pk not in changed_pks:
            row.updated_at = now
            changed.append(row)
    Question.objects.bulk_update(changed, [*QUESTION_FIELDS, "updated_at"], batch_size=UPDATE_BATCH)
    summary.questions_created = len(question_rows) - len(stored_questions)
    summary.questions_updated = len(changed)
    summary.questions_unchanged = len(stored_questions) - len(changed)
    return summary


def _write_exams(
    exams: list[dict[str, Any]], summary: ImportSummary, now: datetime.datetime
) -> dict[str, Exam]:
    stored = Exam.objects.in_bulk([exam["slug"] for exam in exams], field_name="slug")
    rows: dict[str, Exam] = {}
    new: list[Exam] = []
    changed: list[Exam] = []
    for position, exam in enumerate(exams):
        values = _exam_values(exam, position)
        row = stored.get(exam["slug"])
        if row is None:
            row = Exam(slug=exam["slug"], **values)
            new.append(row)
        elif _changed(row, values):
            row.updated_at = now
            changed.append(row)
        rows[exam["slug"]] = row
    Exam.objects.bulk_create(new)
    Exam.objects.bulk_update(changed, [*EXAM_FIELDS, "updated_at"], batch_size=UPDATE_BATCH)
    summary.exams_created, summary.exams_updated = len(new), len(changed)
    return rows


def _write_topics(
    exams: list[dict[str, Any]], exam_rows: dict[str, Exam], summary: ImportSummary
) -> dict[tuple[str, str], Topic]:
    """The topics, keyed by (exam slug, topic slug)."""
    stored = {
        (topic.exam_id, topic.slug): topic
        for topic in Topic.objects.filter(exam__in=[row.pk for row in exam_rows.values()])
    }
    rows: dict[tuple[str, str], Topic] = {}
    new: list[Topic] = []
    changed: list[Topic] = []
    for exam in exams:
        exam_row = exam_rows[exam["slug"]]
        for position, topic in enumerate(exam["topics"]):
            values = {
                "title": topic["title"],
                "weight": _decimal(topic["weight"]),
                "description": topic.get("description", ""),
                "position": position,
            }
            row = stored.get((exam_row.pk, topic["slug"]))
            if row is None:
                row = Topic(exam=exam_row, slug=topic["slug"], **values)
                new.append(row)
            elif _changed(row, values):
                changed.append(row)
            rows[(exam["slug"], topic["slug"])] = row
    Topic.objects.bulk_create(new)
    Topic.objects.bulk_update(
        changed, ["title", "weight", "description", "position"], batch_size=UPDATE_BATCH
    )
    summary.topics_created, summary.topics_updated = len(new), len(changed)
    return rows


def _write_questions(
    exams: list[dict[str, Any]],
    pairs: list[tuple[str, dict[str, Any]]],
    topic_rows: dict[tuple[str, str], Topic],
    now: datetime.datetime,
) -> tuple[dict[str, Question], dict[str, Question], list[Question]]:
    """Create the new questions; return every question by uid, the ones that were stored
    before by uid, and those of them whose own fields changed (not yet saved)."""
    stored = Question.objects.in_bulk([q["uid"] for _, q in pairs], field_name="uid")
    positions = {
        question["uid"]: index for exam in exams for index, question in enumerate(exam["questions"])
    }
    rows: dict[str, Question] = {}
    new: list[Question] = []
    changed: list[Question] = []
    for exam_slug, question in pairs:
        topic = topic_rows[(exam_slug, question["topic"])]
        values = _question_values(question, topic, positions[question["uid"]])
        row = stored.get(question["uid"])
        if row is None:
            row = Question(uid=question["uid"], **values)
            new.append(row)
        elif _changed(row, values):
            row.updated_at = now
            changed.append(row)
        rows[question["uid"]] = row
    Question.objects.bulk_create(new)
    return rows, stored, changed


def _write_options(
    questions: list[dict[str, Any]],
    question_rows: dict[str, Question],
    stored_questions: dict[str, Question],
) -> set[int]:
    """Write options and rationales, matched to the stored ones by position so that an edited
    option keeps its id (what learners answered keeps pointing at it). Returns the ids of the
    questions whose options changed."""
    stored: dict[int, list[Option]] = {}
    for option in (
        Option.objects.filter(question__in=[row.pk for row in stored_questions.values()])
        .select_related("rationale")
        .order_by("question_id", "position", "id")
    ):
        stored.setdefault(option.question_id, []).append(option)
    new_options: list[Option] = []
    new_options_why: list[dict[str, str]] = []
    changed_options: list[Option] = []
    new_rationales: list[Rationale] = []
    changed_rationales: list[Rationale] = []
    surplus: list[int] = []
    touched: set[int] = set()
    for question in questions:
        row = question_rows[question["uid"]]
        existing = stored.get(row.pk, [])
        for position, option in enumerate(question["options"]):
            values = {"position": position, "text": option["text"], "is_correct": option["correct"]}
            why = {
                "why": option["rationale"],
                "tempting_because": option.get("tempting_because", ""),
                "right_when": option.get("right_when", ""),
            }
            if position >= len(existing):
                new_options.append(Option(question=row, **values))
                new_options_why.append(why)
                touched.add(row.pk)
                continue
            stored_option = existing[position]
            if _changed(stored_option, values):
                changed_options.append(stored_option)
                touched.add(row.pk)
            try:
                rationale = stored_option.rationale
            except Rationale.DoesNotExist:
                new_rationales.append(Rationale(option=stored_option, **why))
                touched.add(row.pk)
                continue
            if _changed(rationale, why):
                changed_rationales.append(rationale)
                touched.add(row.pk)
        if len(existing) > len(question["options"]):
            surplus.extend(option.pk for option in existing[len(question["options"]) :])
            touched.add(row.pk)
    if surplus:
        Option.objects.filter(pk__in=surplus).delete()
    Option.objects.bulk_create(new_options)
    Option.objects.bulk_update(
        changed_options, ["position", "text", "is_correct"], batch_size=UPDATE_BATCH
    )
    new_rationales.extend(
        Rationale(option=option, **why)
        for option, why in zip(new_options, new_options_why, strict=True)
    )
    Rationale.objects.bulk_create(new_rationales)
    Rationale.objects.bulk_update(
        changed_rationales, ["why", "tempting_because", "right_when"], batch_size=UPDATE_BATCH
    )
    return touched


def _write_related(questions: list[dict[str, Any]], question_rows: dict[str, Question]) -> set[int]:
    """Rewrite the related links of the questions whose list changed; return their ids."""
    wanted = {question_rows[q["uid"]].pk: q.get("related", []) for q in questions}
    outside = {uid for targets in wanted.values() for uid in targets if uid not in question_rows}
    uid_to_pk = {uid: row.pk for uid, row in question_rows.items()}
    uid_to_pk.update(Question.objects.filter(uid__in=outside).values_list("uid", "pk"))
    stored: dict[int, list[int]] = {}
    for from_pk, to_pk in (
        RelatedQuestion.objects.filter(from_question__in=list(wanted))
        .order_by("from_question_id", "position", "id")
        .values_list("from_question_id", "to_question_id")
    ):
        stored.setdefault(from_pk, []).append(to_pk)
    relink = {
        from_pk: targets
        for from_pk, uids in wanted.items()
        if (targets := [uid_to_pk[uid] for uid in uids]) != stored.get(from_pk, [])
    }
    if relink:
        RelatedQuestion.objects.filter(from_question__in=list(relink)).delete()
        RelatedQuestion.objects.bulk_create(
            RelatedQuestion(from_question_id=from_pk, to_question_id=to_pk, position=position)
            for from_pk, targets in relink.items()
            for position, to_pk in enumerate(targets)
        )
    return set(relink)


# Export -----------------------------------------------------------------------------------


def _number(value: Decimal) -> int | float:
    text = format_number(value)
    return int(text) if "." not in text else float(text)


def export_document(exams: Sequence[Exam] | None = None) -> Document:
    """The bank (or the given exams) as a document. Five queries, whatever its size.

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
        .select_related("topic")
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
    return {
        "format": FORMAT,
        "version": VERSION,
        "exams": [
            _export_exam(exam, topics_by_exam.get(exam.pk, []), questions_by_exam.get(exam.pk, []))
            for exam in exam_rows
        ],
    }


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
        "author": question.author,
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
