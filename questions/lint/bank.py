"""The bank as the lint reads it: every question of some exams with its options, rationales
and parts, in three queries, and the curators' acceptances of flags."""

from collections import defaultdict
from collections.abc import Sequence
from datetime import date

from django.db import transaction
from django.utils import timezone

from questions.lint.flags import CODES, Flag, LintOption, LintQuestion, lint
from questions.models import Exam, Option, Part, Question


class LintError(Exception):
    """A request the lint cannot do: its message says why."""


def bank_flags(exams: Sequence[Exam] = (), *, today: date | None = None) -> list[Flag]:
    """The flags of these exams' questions (every exam's when none is given). Three queries:
    the questions, their options with rationales, their parts (and the exams, when none is
    given)."""
    chosen = list(exams) or list(Exam.objects.all())
    questions = list(
        Question.objects.filter(topic__exam__in=chosen)
        .select_related("topic__exam")
        .order_by("topic__exam__position", "topic__exam__slug", "position", "uid")
    )
    options: dict[int, list[LintOption]] = defaultdict(list)
    for option in (
        Option.objects.filter(question__in=questions)
        .select_related("rationale")
        .order_by("question_id", "position", "id")
    ):
        why = getattr(option, "rationale", None)
        options[option.question_id].append(
            LintOption(
                text=option.text,
                correct=option.is_correct,
                rationale=(why.why, why.tempting_because, why.right_when) if why else ("", "", ""),
            )
        )
    parts: dict[int, list[tuple[str, str, str]]] = defaultdict(list)
    for question_id, *texts in (
        Part.objects.filter(question__in=questions)
        .order_by("question_id", "position", "id")
        .values_list("question_id", "why", "tempting_because", "right_when")
    ):
        parts[question_id].append((texts[0], texts[1], texts[2]))
    facts = [
        LintQuestion(
            uid=question.uid,
            exam=question.topic.exam.slug,
            kind=question.kind,
            stem=question.stem,
            options=tuple(options[question.pk]),
            parts=tuple(parts[question.pk]),
            references=len(question.references or []),
            reviewed_on=question.reviewed_on,
            notes=dict(question.lint_notes or {}),
        )
        for question in questions
    ]
    exam_notes = {exam.slug: dict(exam.lint_notes or {}) for exam in chosen}
    return lint(facts, today=today or timezone.localdate(), exam_notes=exam_notes)


def accept(uid: str, key: str, note: str) -> None:
    """Mark a flag seen and accepted, with the curator's note: on the question (by its uid),
    or on the exam (by its slug) for the bank-wide cue. An empty note withdraws it."""
    code = key.partition(":")[0]
    if code not in CODES:
        raise LintError(f"unknown flag {code!r}: one of {', '.join(CODES)}")
    target: Exam | Question | None
    with transaction.atomic():
        if code == "longest-cue":
            target = Exam.objects.select_for_update().filter(slug=uid).first()
        else:
            target = Question.objects.select_for_update().filter(uid=uid).first()
        if target is None:
            what = "exam" if code == "longest-cue" else "question"
            raise LintError(f"no {what} {uid!r}")
        notes = dict(target.lint_notes or {})
        if note.strip():
            notes[key] = note.strip()
        else:
            notes.pop(key, None)
        target.lint_notes = notes
        # The change time too: the cached flags (questions.lint.panel) are keyed by it.
        target.save(update_fields=["lint_notes", "updated_at"])
