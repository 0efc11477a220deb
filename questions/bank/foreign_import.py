"""Foreign banks (GIFT, Aiken, Moodle XML, QTI) written into an existing exam.

A reader in `questions.bank.formats` turns a file's text into a `ParsedBank` (see
`questions.bank.formats.foreign`); this module is the one path from there into the bank:

1. each question gets a topic (its category's last segment, created with weight 0 for the
   curator to set, or the default topic) and a stable uid derived from the exam, the topic
   and its source identity (name, identifier, or content), so that importing the file again
   updates the same questions;
2. the questions are checked as a courseiva-bank document, with the same schema and rules as
   our JSON import (`questions.bank.checks`), each problem reported at its place in the file;
3. they are written in one transaction with bulk queries, in review, never published.

Adding a format: a module with `read(text) -> ParsedBank` and a line in READERS; a format
whose files can also be zip packages (QTI) has a `read_package(raw)` in PACKAGE_READERS.
"""

import hashlib
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from courseiva.lib.sql import insert_instances
from questions.bank.checks import BankError, Problem, rule_problems, schema_problems
from questions.bank.document_import import (
    PlannedOption,
    PlannedQuestion,
    import_document,
    planned_questions,
    preview_document,
)
from questions.bank.foreign_items import (
    case_study_document,
    case_study_slug,
    question_document,
)
from questions.bank.formats import aiken, gift, moodle_xml, qti, qti_package
from questions.bank.formats.courseiva import parse_document
from questions.bank.formats.foreign import (
    MAX_FILE_BYTES,
    ForeignFileError,
    ForeignQuestion,
    ParsedBank,
    ParseError,
    decode_text,
    detect_format,
)
from questions.bank.item_fields import planned_items, preview_lines
from questions.bank.option_rows import UPDATE_BATCH, PlannedItems, assign_changed, write_items
from questions.media.images import store_all
from questions.models import (
    MAX_OPTIONS,
    MIN_OPTIONS,
    CaseStudy,
    Exam,
    Question,
    Scoring,
    Status,
    Topic,
)
from questions.pages.snapshot import forget_exams

READERS: dict[str, Callable[[str], ParsedBank]] = {
    "gift": gift.read,
    "aiken": aiken.read,
    "moodle-xml": moodle_xml.read,
    "qti": qti.read,
}
# Zip packages, read from their bytes (a zip is not text): told by the zip signature.
PACKAGE_READERS: dict[str, Callable[[bytes], ParsedBank]] = {"qti": qti_package.read_package}
# Recognised by detect_format, read next: a clear error until their reader is in READERS.
NOT_YET: dict[str, str] = {}
FORMAT_NAMES = {
    "gift": "GIFT",
    "aiken": "Aiken",
    "moodle-xml": "Moodle XML",
    "qti": "IMS/1EdTech QTI",
    "json": "courseiva-bank JSON",
    **NOT_YET,
}

# A question's own fields that a foreign file carries, as written on an update.
QUESTION_FIELDS = ["kind", "stem", "scoring", "exhibit", "reuse_answers", "case_study"]
DEFAULT_TOPIC_SLUG = "imported"
DEFAULT_TOPIC_TITLE = "Imported"
TITLE_LENGTH = 200
UID_NAME_LENGTH = 50


class ForeignImportError(Exception):
    """The import cannot start (no such exam, no such topic): nothing to report per file."""


@dataclass(frozen=True)
class Source:
    """A file read by its reader: `label` is how messages name it (its path)."""

    label: str
    bank: ParsedBank


def read_file(path: Path, file_format: str = "auto") -> Source:
    """`read_source` of a file, refusing one over the size limit before reading it."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ForeignFileError(
                f"the file is {size / 1e6:.1f} MB; foreign banks are read up to "
                f"{MAX_FILE_BYTES // (1024 * 1024)} MB (split it)"
            )
        raw = path.read_bytes()
    except OSError as error:
        bank = ParsedBank("unknown", errors=[ParseError(0, f"cannot read it: {error.strerror}")])
        return Source(str(path), bank)
    except ForeignFileError as error:
        return Source(str(path), ParsedBank("unknown", errors=[ParseError(0, str(error))]))
    return read_source(str(path), raw, file_format)


def read_source(label: str, raw: bytes, file_format: str = "auto") -> Source:
    """Decode and parse one file. An unreadable file becomes a Source whose bank has one
    file-level error, so that the report lists it with the others."""
    bank = ParsedBank(file_format if file_format != "auto" else "unknown")
    if raw.startswith(qti_package.ZIP_MAGIC) and file_format in ("auto", *PACKAGE_READERS):
        package_format = "qti" if file_format == "auto" else file_format
        return Source(label, PACKAGE_READERS[package_format](raw))
    try:
        text, encoding = decode_text(raw)
        if file_format == "auto":
            detected = detect_format(text)
            if detected is None:
                raise ForeignFileError(
                    "cannot tell its format (not courseiva-bank JSON, GIFT, Aiken or Moodle XML): "
                    "give --format"
                )
            file_format = detected
        bank.format = file_format
        if file_format in NOT_YET:
            raise ForeignFileError(
                f"{NOT_YET[file_format]} files are recognised but not supported yet: "
                "import GIFT, Aiken, Moodle XML or courseiva-bank JSON"
            )
        if file_format not in READERS:  # JSON: the command takes it the JSON import's way
            return Source(label, bank)
        bank = READERS[file_format](text)
    except ForeignFileError as error:
        bank.errors.append(ParseError(0, str(error)))
        return Source(label, bank)
    if encoding not in ("UTF-8",):
        bank.notes.append(f"read as {encoding}")
    return Source(label, bank)


@dataclass
class ForeignReport:
    format: str
    dry_run: bool = False
    written: bool = False  # True when the valid questions were written (or, dry, would be)
    imported: int = 0
    updated: int = 0
    unchanged: int = 0
    valid: int = 0
    skipped: list[dict[str, str]] = field(default_factory=list)
    errors: list[dict[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    topics_created: list[str] = field(default_factory=list)
    empty_rationales: int = 0
    empty_explanations: int = 0
    # The valid questions as written (or, dry, as they would be): for the admin's preview.
    planned: list[PlannedQuestion] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "imported": self.imported,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "skipped": self.skipped,
            "errors": self.errors,
            "topics_created": self.topics_created,
            "dry_run": self.dry_run,
        }

    def lines(self) -> list[str]:
        lines = [*self.notes]
        for item in self.skipped:
            lines.append(f"skipped {item['where']}: {item['type']}: {item['reason']}")
        for item in self.errors:
            lines.append(f"error {item['where']}: {item['message']}")
        if self.written:
            verb = "Would import" if self.dry_run else "Imported"
            lines.append(
                f"{verb}: {self.imported} created, {self.updated} updated, "
                f"{self.unchanged} unchanged; {len(self.skipped)} skipped, "
                f"{len(self.errors)} error(s). Imported questions are in review."
            )
        else:
            lines.append(
                f"Nothing written: {len(self.errors)} error(s) in {self.valid} question(s) "
                "read (--skip-invalid imports the valid ones)."
                if self.errors
                else "Nothing written (--dry-run)."
            )
        for title in self.topics_created:
            lines.append(
                f"Topic {title!r} created with weight 0: set its blueprint weight in the "
                "admin (Topics, filter “weight not set”)."
            )
        if self.empty_rationales:
            lines.append(
                f"{self.empty_rationales} option(s) had no feedback: their rationale is empty, "
                "for a curator to write before publishing."
            )
        if self.empty_explanations:
            lines.append(
                f"{self.empty_explanations} question(s) had no general feedback: their "
                "explanation is empty, for a curator to write before publishing."
            )
        return lines


@dataclass
class _Item:
    where: str
    question: ForeignQuestion
    topic_slug: str
    uid: str = ""
    document: dict[str, Any] = field(default_factory=dict)


def import_foreign(
    sources: Sequence[Source],
    exam_slug: str,
    topic_slug: str | None = None,
    *,
    skip_invalid: bool = False,
    dry_run: bool = False,
) -> ForeignReport:
    """Check every question of the sources and write the valid ones into the exam: all of
    them or, with any error, nothing unless `skip_invalid`. `dry_run` reports the same and
    writes nothing. Raises ForeignImportError when the exam or the named topic is missing."""
    formats = sorted({source.bank.format for source in sources})
    report = ForeignReport(format=formats[0] if len(formats) == 1 else ",".join(formats))
    report.dry_run = dry_run
    exam = Exam.objects.filter(slug=exam_slug).first()
    if exam is None:
        known = ", ".join(Exam.objects.values_list("slug", flat=True)) or "none"
        raise ForeignImportError(f"no exam {exam_slug!r} (exams in the bank: {known})")
    topics = {topic.slug: topic for topic in Topic.objects.filter(exam=exam)}
    if topic_slug is not None and topic_slug not in topics:
        raise ForeignImportError(
            f"no topic {topic_slug!r} in {exam.slug} (its topics: {', '.join(topics) or 'none'})"
        )
    default_slug = topic_slug or DEFAULT_TOPIC_SLUG
    new_topics: dict[str, str] = {}  # slug -> title, in first-seen order
    items: list[_Item] = []
    for source in sources:
        for note in source.bank.notes:
            report.notes.append(f"{source.label}: {note}")
        for error in source.bank.errors:
            report.errors.append(
                {"where": _where(source.label, error.line), "message": error.message}
            )
        for skipped in source.bank.skipped:
            report.skipped.append(
                {
                    "where": _where(source.label, skipped.line),
                    "type": skipped.type,
                    "reason": skipped.reason,
                }
            )
        for question in source.bank.questions:
            slug, title = _topic_for(question, default_slug)
            if slug not in topics and slug not in new_topics:
                new_topics[slug] = title
            items.append(_Item(_where(source.label, question.line), question, slug))
            for note in question.notes:
                report.notes.append(f"{_where(source.label, question.line)}: {note}")
    _assign_uids(items, exam.slug)
    valid, case_studies = _check(items, list(topics) + list(new_topics), exam.slug, report)
    report.valid = len(items)
    order = {source.label: n for n, source in enumerate(sources)}

    def place(entry: dict[str, str]) -> tuple[int, int]:
        label, _, line = entry["where"].rpartition(":")
        if line.isdigit() and label in order:
            return order[label], int(line)
        return order.get(entry["where"], len(order)), 0

    report.errors.sort(key=place)
    if report.errors and not skip_invalid:
        return report
    used = {item.topic_slug for item in valid}
    new_topics = {slug: title for slug, title in new_topics.items() if slug in used}
    with transaction.atomic():
        _write(exam, topics, new_topics, valid, case_studies, report)
        report.written = True
        if dry_run:
            transaction.set_rollback(True)
        else:
            store_all(image for source in sources for image in source.bank.images.values())
            forget_exams([exam.pk])
    return report


def preview_foreign(
    sources: Sequence[Source], exam_slug: str, topic_slug: str | None = None
) -> ForeignReport:
    """What importing the sources would do, written nothing: `import_foreign` run dry with
    the valid questions kept, so that the report plans each of them (`planned`) next to the
    skipped ones and the errors. Raises ForeignImportError as import_foreign does."""
    return import_foreign(sources, exam_slug, topic_slug, skip_invalid=True, dry_run=True)


def _where(label: str, line: int) -> str:
    return f"{label}:{line}" if line else label


def _topic_for(question: ForeignQuestion, default_slug: str) -> tuple[str, str]:
    if not question.category:
        return default_slug, DEFAULT_TOPIC_TITLE
    title = " ".join(question.category[-1].split())[:TITLE_LENGTH]
    slug = slugify(title)[:80].strip("-") or "topic"
    return slug, title


def _assign_uids(items: list[_Item], exam_slug: str) -> None:
    """uid = the question's name as a slug (when it has one) and a digest of the exam, its
    topic, its source identity and how many questions with that identity came before it in
    the run: the same file gives the same uids, and two questions alike stay two."""
    seen: Counter[tuple[str, str]] = Counter()
    for item in items:
        identity = (item.topic_slug, item.question.key)
        occurrence = seen[identity]
        seen[identity] += 1
        digest = hashlib.sha256(
            "\x1f".join([exam_slug, *identity, str(occurrence)]).encode()
        ).hexdigest()[:12]
        # slugify keeps underscores, which a uid does not take (QTI's `choice_multiple`).
        name = re.sub(r"[-_]+", "-", slugify(item.question.name))[:UID_NAME_LENGTH].strip("-")
        item.uid = f"{name}-{digest}" if name else f"q-{digest}"


_CASE_PATH = re.compile(r"^exams\[0\]\.case_studies\[(\d+)\]")
_QUESTION_PATH = re.compile(r"^exams\[0\]\.questions\[(\d+)\](?:\.(.*))?$")


def _check(
    items: list[_Item], topic_slugs: list[str], exam_slug: str, report: ForeignReport
) -> tuple[list[_Item], list[dict[str, Any]]]:
    """Check the questions as one courseiva-bank document (the JSON import's schema and
    rules); report each problem at its question's place; return the valid items."""
    case_studies: dict[str, dict[str, Any]] = {}  # slug -> its document, first-seen order
    for item in items:
        case = item.question.case_study
        case_slug = None
        if case is not None:
            case_slug = case_study_slug(exam_slug, case)
            case_studies.setdefault(case_slug, case_study_document(case_slug, case))
        item.document = question_document(item.question, item.uid, item.topic_slug, case_slug)
    document = {
        "format": "courseiva-bank",
        "version": 2,
        "exams": [
            {
                "slug": "import",
                "code": "IMPORT",
                "title": "Import",
                # Stand-in weights: the blueprint is the exam's, not checked here.
                "topics": [
                    {"slug": slug, "title": slug, "weight": 100 if n == 0 else 0}
                    for n, slug in enumerate(topic_slugs or ["none"])
                ],
                "questions": [item.document for item in items],
                "case_studies": list(case_studies.values()),
            }
        ],
    }
    bad: dict[int, list[str]] = {}
    for problem in schema_problems(document) + rule_problems(document):
        case_match = _CASE_PATH.match(problem.path)
        if case_match is not None:  # reported at each question that shares the scenario
            slug = list(case_studies)[int(case_match.group(1))]
            for index, item in enumerate(items):
                if item.document.get("case_study") == slug:
                    bad.setdefault(index, []).append(f"its case study: {problem.message}")
            continue
        match = _QUESTION_PATH.match(problem.path)
        if match is None:  # the document's own frame: cannot happen for readers' output
            report.errors.append({"where": "(import)", "message": str(problem)})
            continue
        index = int(match.group(1))
        bad.setdefault(index, []).append(_message(problem, match.group(2), items[index]))
    for index, messages in sorted(bad.items()):
        for message in dict.fromkeys(messages):
            report.errors.append({"where": items[index].where, "message": message})
    valid = [item for index, item in enumerate(items) if index not in bad]
    used = {item.document.get("case_study") for item in valid}
    return valid, [case for slug, case in case_studies.items() if slug in used]


def _message(problem: Problem, field_path: str | None, item: _Item) -> str:
    count = len(item.question.options)
    if field_path == "options" and not MIN_OPTIONS <= count <= MAX_OPTIONS:
        return f"a question needs {MIN_OPTIONS} to {MAX_OPTIONS} options (this one has {count})"
    name = f" ({item.question.name})" if item.question.name else ""
    return f"{field_path or 'question'}{name}: {problem.message}"


def _write(
    exam: Exam,
    topics: dict[str, Topic],
    new_topics: dict[str, str],
    items: list[_Item],
    case_studies: list[dict[str, Any]],
    report: ForeignReport,
) -> None:
    now = timezone.now()
    case_ids = _write_case_studies(exam, case_studies)
    last = max((topic.position for topic in topics.values()), default=-1)
    created_topics = [
        Topic(exam=exam, slug=slug, title=title, weight=0, position=last + 1 + n)
        for n, (slug, title) in enumerate(new_topics.items())
    ]
    Topic.objects.bulk_create(created_topics)
    topics = {**topics, **{topic.slug: topic for topic in created_topics}}
    report.topics_created = [topic.title for topic in created_topics]
    stored = Question.objects.in_bulk([item.uid for item in items], field_name="uid")
    position = Question.objects.next_position(exam)
    rows: dict[str, Question] = {}
    new: list[Question] = []
    changed: dict[int, Question] = {}
    for item in items:
        document = item.document
        values: dict[str, Any] = {
            "kind": document["kind"],
            "stem": document["stem"],
            "scoring": document.get("scoring", Scoring.ALL),
            "exhibit": document.get("exhibit", ""),
            "reuse_answers": document.get("reuse_answers", False),
        }
        if "case_study" in document:
            # Without one, a case study a curator chose stays: the source says nothing of it.
            values["case_study_id"] = case_ids[document["case_study"]]
        row = stored.get(item.uid)
        if row is None:
            row = Question(
                uid=item.uid,
                topic=topics[item.topic_slug],
                status=Status.REVIEW,
                position=position,
                explanation=document["explanation"],
                **values,
            )
            position += 1
            new.append(row)
        else:
            # What the source does not carry stays as a curator left it: the topic the
            # question was moved to, its position, an explanation written since.
            if document["explanation"]:
                values["explanation"] = document["explanation"]
            if assign_changed(row, values):
                changed[row.pk] = row
        rows[item.uid] = row
        report.empty_explanations += not row.explanation
    insert_instances(new)
    written = write_items(
        [PlannedItems(rows[item.uid], *planned_items(item.document)) for item in items],
        [row.pk for row in stored.values()],
        keep_written=True,
    )
    report.empty_rationales += written.empty_rationales
    touched = written.touched
    for row in stored.values():
        if row.pk in touched:
            changed[row.pk] = row
    for row in changed.values():
        row.updated_at = now
        if row.status == Status.PUBLISHED:
            row.status = Status.REVIEW  # changed by the source: a curator checks it again
    Question.objects.bulk_update(
        list(changed.values()),
        [*QUESTION_FIELDS, "explanation", "status", "updated_at"],
        batch_size=UPDATE_BATCH,
    )
    report.imported = len(new)
    report.updated = len(changed)
    report.unchanged = len(stored) - len(changed)
    report.planned = [
        _planned(
            item,
            topics[item.topic_slug],
            "created"
            if item.uid not in stored
            else "updated"
            if rows[item.uid].pk in changed
            else "unchanged",
        )
        for item in items
    ]


def _write_case_studies(exam: Exam, case_studies: list[dict[str, Any]]) -> dict[str, int]:
    """The file's case studies, created or updated by slug, after the exam's own; their ids
    by slug. No query when the file has none."""
    if not case_studies:
        return {}
    stored = {case.slug: case for case in CaseStudy.objects.filter(exam=exam)}
    position = max((case.position for case in stored.values()), default=-1) + 1
    new: list[CaseStudy] = []
    changed: list[CaseStudy] = []
    rows: dict[str, CaseStudy] = {}
    for case in case_studies:
        values = {"title": case["title"], "scenario": case["scenario"]}
        row = stored.get(case["slug"])
        if row is None:
            row = CaseStudy(exam=exam, slug=case["slug"], position=position, **values)
            position += 1
            new.append(row)
        elif assign_changed(row, values):
            changed.append(row)
        rows[case["slug"]] = row
    CaseStudy.objects.bulk_create(new)
    CaseStudy.objects.bulk_update(changed, ["title", "scenario"])
    return {slug: row.pk for slug, row in rows.items()}


def _planned(item: _Item, topic: Topic, outcome: str) -> PlannedQuestion:
    document = item.document
    return PlannedQuestion(
        where=item.where,
        uid=item.uid,
        kind=item.question.kind,
        stem=document["stem"],
        options=[
            PlannedOption(text, correct, rationale)
            for text, correct, rationale in preview_lines(document)
        ],
        explanation=document["explanation"],
        topic=topic.title,
        outcome=outcome,
    )


# The admin's import page ------------------------------------------------------------------


class UploadRefused(Exception):
    """The upload cannot be imported at all; `field` is the form field the message is for."""

    def __init__(self, message: str, field: str = "bank_file") -> None:
        super().__init__(message)
        self.field = field


@dataclass
class UploadPlan:
    """An uploaded file read and checked, any format, with what importing it does to each
    question: the admin previews it (`written` False), then imports it the same way."""

    label: str
    format: str
    written: bool
    questions: list[PlannedQuestion] = field(default_factory=list)
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    skipped: list[dict[str, str]] = field(default_factory=list)
    errors: list[dict[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    topics_created: list[str] = field(default_factory=list)

    @property
    def format_name(self) -> str:
        return FORMAT_NAMES.get(self.format, self.format)


def import_upload(
    label: str,
    raw: bytes,
    file_format: str = "auto",
    exam_slug: str | None = None,
    topic_slug: str | None = None,
    *,
    dry_run: bool,
) -> UploadPlan:
    """Read, check and (unless `dry_run`) import one uploaded file. courseiva-bank JSON is
    all or nothing (its problems are the plan's errors, no question planned); a foreign file
    goes into the exam with its valid questions, the others listed. Raises UploadRefused when
    the file cannot be read or the exam or topic is missing; writes nothing then."""
    as_json = file_format == "json" or (
        file_format == "auto"
        and label.lower().endswith(".json")
        and not raw.startswith(qti_package.ZIP_MAGIC)
    )
    source = None if as_json else read_source(label, raw, file_format)
    if source is None or source.bank.format == "json":
        return _import_json_upload(label, raw, dry_run=dry_run)
    bank = source.bank
    if bank.errors and not bank.questions and not bank.skipped:
        raise UploadRefused(
            "; ".join(error.message for error in bank.errors).replace(
                "give --format", "choose its format"
            )
        )
    if not exam_slug:
        raise UploadRefused(
            f"{FORMAT_NAMES.get(bank.format, bank.format)} questions go into an existing exam: "
            "choose it.",
            field="exam",
        )
    try:
        report = import_foreign([source], exam_slug, topic_slug, skip_invalid=True, dry_run=dry_run)
    except ForeignImportError as error:
        raise UploadRefused(str(error), field="exam") from None
    return UploadPlan(
        label=label,
        format=report.format,
        written=report.written and not dry_run,
        questions=report.planned,
        created=report.imported,
        updated=report.updated,
        unchanged=report.unchanged,
        skipped=report.skipped,
        errors=report.errors,
        notes=report.notes,
        topics_created=report.topics_created,
    )


def _import_json_upload(label: str, raw: bytes, *, dry_run: bool) -> UploadPlan:
    plan = UploadPlan(label=label, format="json", written=False)
    try:
        document = parse_document(raw)
        summary = preview_document(document) if dry_run else import_document(document)
    except BankError as error:
        if any(problem.path in ("(file)", "(document)") for problem in error.problems):
            raise UploadRefused("; ".join(str(problem) for problem in error.problems)) from None
        plan.errors = [
            {"where": problem.path, "message": problem.text} for problem in error.problems
        ]
        return plan
    plan.written = not dry_run
    plan.questions = planned_questions(document, summary.outcomes)
    plan.created = summary.questions_created
    plan.updated = summary.questions_updated
    plan.unchanged = summary.questions_unchanged
    plan.notes = summary.lines()[:2]  # exams and topics; the questions are counted apart
    return plan
