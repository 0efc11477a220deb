"""A foreign question (`questions.bank.formats.foreign.ForeignQuestion`) as a question of a
courseiva-bank document, version 2: the form in which the import checks it with our JSON
import's schema and rules (`questions.bank.checks`, whose item rules are the admin's,
`questions.item_rules`) and writes its options and parts (`questions.bank.item_fields`).
One path for every format and every item type, so that a GIFT matching and a QTI matching
are held to the same rules in the same words as a JSON one."""

import hashlib
from decimal import Decimal
from typing import Any

from django.utils.text import slugify

from questions.bank.formats.foreign import ForeignBlank, ForeignCaseStudy, ForeignQuestion
from questions.models import Kind, Status

# A case study's slug: its title's, then a digest that keeps two scenarios of one title apart.
CASE_SLUG_LENGTH = 60
CASE_TITLE_LENGTH = 200


def question_document(
    question: ForeignQuestion, uid: str, topic_slug: str, case_slug: str | None
) -> dict[str, Any]:
    """The question as our format has it, in review (a curator publishes it)."""
    kind = "single" if question.kind == "truefalse" else question.kind
    document: dict[str, Any] = {
        "uid": uid,
        "topic": topic_slug,
        "kind": kind,
        "stem": question.stem,
        "explanation": question.general_feedback,
        "status": Status.REVIEW.value,
    }
    if question.scoring != "all":
        document["scoring"] = question.scoring
    if question.exhibit:
        document["exhibit"] = question.exhibit
    if case_slug:
        document["case_study"] = case_slug
    if kind in (Kind.SINGLE, Kind.MULTIPLE):
        document["options"] = [
            {"text": option.text, "correct": option.correct, "rationale": option.feedback}
            for option in question.options
        ]
    elif kind == Kind.ORDERING:
        document["steps"] = [
            {"text": step.text, "rationale": step.feedback}
            | ({"place": step.place} if step.place is not None else {})
            for step in question.steps
        ]
    elif kind == Kind.MATCHING:
        document["pool"] = [
            {"text": answer.text} | ({"rationale": answer.feedback} if answer.feedback else {})
            for answer in question.pool
        ]
        document["prompts"] = [
            {"text": prompt.text, "answer": prompt.answer + 1, "rationale": prompt.feedback}
            for prompt in question.prompts
        ]
        if question.reuse_answers:
            document["reuse_answers"] = True
    elif kind == Kind.YES_NO:
        document["statements"] = [
            {
                "text": statement.text,
                "answer": "yes" if statement.is_yes else "no",
                "rationale": statement.feedback,
            }
            for statement in question.statements
        ]
    elif kind == Kind.FILL_IN:
        document["blanks"] = [_blank(blank) for blank in question.blanks]
    elif kind == Kind.DROPDOWN:
        document["gaps"] = [
            _blank(gap.typed)
            if gap.typed is not None
            else {
                "label": gap.label,
                "rationale": gap.feedback,
                "choices": [
                    {"text": choice.text, "correct": choice.correct, "rationale": choice.feedback}
                    for choice in gap.choices
                ],
            }
            for gap in question.gaps
        ]
    return document


def _blank(blank: ForeignBlank) -> dict[str, Any]:
    element: dict[str, Any] = {"label": blank.label, "rationale": blank.feedback}
    if blank.number is not None:
        element["number"] = json_number(blank.number)
        if blank.tolerance:
            element["tolerance"] = json_number(blank.tolerance)
        if blank.more_numbers:
            element["more_numbers"] = [
                {"number": json_number(number)}
                | ({"tolerance": json_number(tolerance)} if tolerance else {})
                for number, tolerance in blank.more_numbers
            ]
        if blank.units:
            element["units"] = list(blank.units)
    else:
        element["accepted"] = list(blank.accepted)
        if blank.match_case:
            element["match_case"] = True
        if blank.wildcards:
            element["wildcards"] = True
    if blank.wrong_answers:
        element["feedback"] = [
            {"answer": answer, "feedback": feedback} for answer, feedback in blank.wrong_answers
        ]
    return element


def json_number(value: Decimal) -> int | float:
    """A decimal as the JSON number our documents hold (the checks read it back as written)."""
    return int(value) if value == value.to_integral_value() else float(value)


def case_study_slug(exam_slug: str, case: ForeignCaseStudy) -> str:
    """Stable for the same scenario of the same source: importing again updates it."""
    digest = hashlib.sha256(f"{exam_slug}\x1f{case.key}".encode()).hexdigest()[:8]
    name = slugify(case.title)[:CASE_SLUG_LENGTH].strip("-")
    return f"{name}-{digest}" if name else f"case-{digest}"


def case_study_document(slug: str, case: ForeignCaseStudy) -> dict[str, Any]:
    title = " ".join(case.title.split())[:CASE_TITLE_LENGTH] or "Case study"
    return {"slug": slug, "title": title, "scenario": case.scenario}
