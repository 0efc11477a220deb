"""Writing checked question-bank documents into the bank, in one transaction. Bulk operations
keep the number of queries independent of the number of questions (Django batches only past
SQLite's and PostgreSQL's parameter limits, tens of thousands of rows); a document with any
problem (see `questions.bank.checks`) writes nothing.
"""

import datetime
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.utils import timezone

from courseiva.lib.sql import insert_instances, insert_rows
from questions.bank.checks import BankError, Document, Problem, check_documents
from questions.bank.item_fields import planned_items, preview_lines
from questions.bank.option_rows import UPDATE_BATCH, PlannedItems, assign_changed, write_items
from questions.media.images import document_images, store_all
from questions.models import (
    Author,
    CaseStudy,
    Exam,
    Kind,
    Question,
    RelatedQuestion,
    Scoring,
    Status,
    Topic,
)
from questions.pages.snapshot import forget_exams

Progress = Callable[[str], None]


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
    # uid -> "created", "updated" or "unchanged": for the admin's preview of an import.
    outcomes: dict[str, str] = field(default_factory=dict)

    def lines(self) -> list[str]:
        return [
            f"Exams: {self.exams_created} created, {self.exams_updated} updated "
            f"({', '.join(self.exam_slugs)})",
            f"Topics: {self.topics_created} created, {self.topics_updated} updated",
            f"Questions: {self.questions_created} created, {self.questions_updated} updated, "
            f"{self.questions_unchanged} unchanged",
        ]


def _decimal(value: float | int) -> Decimal:
    return Decimal(str(value)).quantize(Decimal("0.01"))


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


def _question_values(
    question: dict[str, Any],
    topic: Topic,
    position: int,
    authors: dict[str, int],
    case_studies: dict[str, int],
) -> dict[str, Any]:
    reviewed = question.get("reviewed_on")
    return {
        "topic_id": topic.pk,
        "kind": question["kind"],
        "scoring": question.get("scoring", Scoring.ALL),
        "case_study_id": case_studies.get(question.get("case_study", "")),
        "stem": question["stem"],
        "exhibit": question.get("exhibit", ""),
        "reuse_answers": question.get("reuse_answers", False),
        "trap": question.get("trap", ""),
        "explanation": question["explanation"],
        "difficulty": question.get("difficulty", ""),
        "status": question.get("status", Status.PUBLISHED),
        "author_id": authors.get(question.get("author", "")),
        "reviewed_on": datetime.date.fromisoformat(reviewed) if reviewed else None,
        "references": question.get("references", []),
        "tags": question.get("tags", []),
        "position": position,
    }


EXAM_FIELDS = list(_exam_values({"code": "", "title": ""}, 0))
QUESTION_FIELDS = [
    name.removesuffix("_id")
    for name in _question_values(
        {"kind": "", "stem": "", "explanation": ""}, Topic(pk=0), 0, {}, {}
    )
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
        flat.extend(replace(problem, path=prefix + problem.path) for problem in problems)
    if flat:
        raise BankError(flat)
    merged = [exam for document in documents for exam in document["exams"]]
    with transaction.atomic():
        summary = _write(merged, say)
        store_all(image for document in documents for image in document_images(document)[0])
        # Every page of the exams, unchanged questions too: their "Go deeper" lists may name a
        # changed one, and the exam's count and order may have changed.
        forget_exams(Exam.objects.filter(slug__in=summary.exam_slugs).values_list("pk", flat=True))
        return summary


def import_document(document: Document, progress: Progress | None = None) -> ImportSummary:
    return import_documents([document], progress)


def preview_document(document: Document) -> ImportSummary:
    """What import_document would do, found by doing it in a transaction that is rolled back:
    the same checks (BankError), counts and outcome of each question, and nothing written."""
    with transaction.atomic():
        summary = import_document(document)
        transaction.set_rollback(True)
    return summary


@dataclass(frozen=True)
class PlannedOption:
    text: str  # our Markdown, as every text below
    correct: bool
    rationale: str


@dataclass(frozen=True)
class PlannedQuestion:
    """A question of an import as its preview shows it, whatever the file's format. The
    types beyond choice show each step, pair, statement, blank or gap as an option whose
    text says what it is and whose mark says what is right (item_fields.preview_lines)."""

    where: str  # its place in the file
    uid: str
    kind: str  # a Kind, or "truefalse"
    stem: str
    options: list[PlannedOption]
    explanation: str
    topic: str  # the title of the topic it lands in
    outcome: str  # "created", "updated" or "unchanged"

    @property
    def kind_label(self) -> str:
        """How the preview names its type."""
        if self.kind == "truefalse":
            return "true/false"
        if self.kind == Kind.MULTIPLE:
            return "multiple (select all that apply)"
        if self.kind == Kind.SINGLE:
            return "single answer"
        return Kind(self.kind).label.lower() if self.kind in Kind.values else self.kind


def planned_questions(document: Document, outcomes: dict[str, str]) -> list[PlannedQuestion]:
    """The questions of a checked document with what importing it does to each."""
    planned = []
    for e, exam in enumerate(document["exams"]):
        titles = {topic["slug"]: topic["title"] for topic in exam["topics"]}
        for q, question in enumerate(exam["questions"]):
            planned.append(
                PlannedQuestion(
                    where=f"exams[{e}].questions[{q}]",
                    uid=question["uid"],
                    kind=question["kind"],
                    stem=question["stem"],
                    options=[
                        PlannedOption(text, correct, rationale)
                        for text, correct, rationale in preview_lines(question)
                    ],
                    explanation=question["explanation"],
                    topic=f"{exam['code']}: {titles[question['topic']]}",
                    outcome=outcomes.get(question["uid"], "unchanged"),
                )
            )
    return planned


def _write(exams: list[dict[str, Any]], say: Progress) -> ImportSummary:
    summary = ImportSummary(exam_slugs=[exam["slug"] for exam in exams])
    now = timezone.now()
    exam_rows = _write_exams(exams, summary, now)
    say(f"Writing {sum(len(exam['topics']) for exam in exams)} topics")
    topic_rows = _write_topics(exams, exam_rows, summary)
    case_studies = _write_case_studies(exams, exam_rows)
    pairs = [(exam["slug"], question) for exam in exams for question in exam["questions"]]
    say(f"Writing {len(pairs)} questions")
    authors = _authors([question for _, question in pairs])
    question_rows, stored_questions, changed = _write_questions(
        exams, pairs, topic_rows, authors, case_studies, now
    )
    planned = [PlannedItems(question_rows[q["uid"]], *planned_items(q)) for _, q in pairs]
    options = sum(len(item.options) for item in planned)
    parts = sum(len(item.parts) for item in planned)
    say(f"Writing {options} options and their rationales" + (f", {parts} parts" if parts else ""))
    touched = write_items(
        planned, [row.pk for row in stored_questions.values()], keep_written=False
    ).touched
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
    changed_uids = {row.uid for row in changed}
    summary.outcomes = {
        uid: "created"
        if uid not in stored_questions
        else "updated"
        if uid in changed_uids
        else "unchanged"
        for uid in question_rows
    }
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
        elif assign_changed(row, values):
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
            elif assign_changed(row, values):
                changed.append(row)
            rows[(exam["slug"], topic["slug"])] = row
    Topic.objects.bulk_create(new)
    Topic.objects.bulk_update(
        changed, ["title", "weight", "description", "position"], batch_size=UPDATE_BATCH
    )
    summary.topics_created, summary.topics_updated = len(new), len(changed)
    return rows


def _write_case_studies(
    exams: list[dict[str, Any]], exam_rows: dict[str, Exam]
) -> dict[tuple[str, str], int]:
    """The exams' case studies, created or updated by slug, keyed by (exam slug, slug) to
    their ids. Case studies a file leaves out stay, as its questions do. No query when the
    documents carry none; two or three when they do."""
    if not any(exam.get("case_studies") for exam in exams):
        return {}
    stored = {
        (case.exam_id, case.slug): case
        for case in CaseStudy.objects.filter(exam__in=[row.pk for row in exam_rows.values()])
    }
    rows: dict[tuple[str, str], CaseStudy] = {}
    new: list[CaseStudy] = []
    changed: list[CaseStudy] = []
    for exam in exams:
        exam_row = exam_rows[exam["slug"]]
        for position, case in enumerate(exam.get("case_studies", [])):
            values = {"title": case["title"], "scenario": case["scenario"], "position": position}
            row = stored.get((exam_row.pk, case["slug"]))
            if row is None:
                row = CaseStudy(exam=exam_row, slug=case["slug"], **values)
                new.append(row)
            elif assign_changed(row, values):
                changed.append(row)
            rows[(exam["slug"], case["slug"])] = row
    CaseStudy.objects.bulk_create(new)
    CaseStudy.objects.bulk_update(changed, ["title", "scenario", "position"])
    return {key: row.pk for key, row in rows.items()}


def _authors(questions: list[dict[str, Any]]) -> dict[str, int]:
    """The ids of the authors the questions name, by name; a name not curated yet gets a
    record of its own, for a curator to complete in the admin. One query, two when some are
    new."""
    names = {q["author"] for q in questions if q.get("author")}
    ids = dict(Author.objects.filter(name__in=names).values_list("name", "pk"))
    new = [Author(name=name) for name in sorted(names - set(ids))]
    if new:
        Author.objects.bulk_create(new)
        ids.update((author.name, author.pk) for author in new)
    return ids


def _write_questions(
    exams: list[dict[str, Any]],
    pairs: list[tuple[str, dict[str, Any]]],
    topic_rows: dict[tuple[str, str], Topic],
    authors: dict[str, int],
    case_studies: dict[tuple[str, str], int],
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
    cases_of: dict[str, dict[str, int]] = {}
    for (exam_slug, slug), pk in case_studies.items():
        cases_of.setdefault(exam_slug, {})[slug] = pk
    for exam_slug, question in pairs:
        topic = topic_rows[(exam_slug, question["topic"])]
        values = _question_values(
            question, topic, positions[question["uid"]], authors, cases_of.get(exam_slug, {})
        )
        row = stored.get(question["uid"])
        if row is None:
            row = Question(uid=question["uid"], **values)
            new.append(row)
        elif assign_changed(row, values):
            row.updated_at = now
            changed.append(row)
        rows[question["uid"]] = row
    insert_instances(new)
    return rows, stored, changed


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
        insert_rows(
            RelatedQuestion,
            ["from_question_id", "to_question_id", "position"],
            (
                (from_pk, to_pk, position)
                for from_pk, targets in relink.items()
                for position, to_pk in enumerate(targets)
            ),
        )
    return set(relink)


# Export -----------------------------------------------------------------------------------
