"""The quick schema pass that spares jsonschema's walk of a valid bank: it must never let a
document through that jsonschema would report, or the report of its problems would be lost."""

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest

from questions.bank.checks import _passes, _validator, schema_problems
from questions.bank.schema_pass import compile_passes
from tests.banks import DEMO_BANK, make_bank, sample_bank

Edit = Callable[[dict[str, Any]], None]


def question(document: dict[str, Any]) -> dict[str, Any]:
    return document["exams"][0]["questions"][0]


def option(document: dict[str, Any]) -> dict[str, Any]:
    return question(document)["options"][0]


# One of each way a document breaks the schema (not the bank's rules beyond it).
# fmt: off
BREAKS: dict[str, Edit] = {
    "no format": lambda d: d.pop("format"),
    "other version": lambda d: d.update(version=3),
    "version true": lambda d: d.update(version=True),
    "extra field": lambda d: d.update(extra=1),
    "exams not a list": lambda d: d.update(exams={}),
    "exam not an object": lambda d: d["exams"].append("exam"),
    "empty code": lambda d: d["exams"][0].update(code=""),
    "long title": lambda d: d["exams"][0].update(title="t" * 201),
    "slug pattern": lambda d: d["exams"][0].update(slug="Not-A-Slug"),
    # JSON Schema's `$` is the end of the text, not "before a final newline" as in Python.
    "slug with a final newline": lambda d: d["exams"][0].update(slug="exam\n"),
    "uid with a final newline": lambda d: question(d).update(uid=question(d)["uid"] + "\n"),
    "no topics": lambda d: d["exams"][0].update(topics=[]),
    "weight a string": lambda d: d["exams"][0]["topics"][0].update(weight="50"),
    "weight over 100": lambda d: d["exams"][0]["topics"][0].update(weight=100.5),
    "weight true": lambda d: d["exams"][0]["topics"][0].update(weight=True),
    "mock pass 0": lambda d: d["exams"][0].update(
        mock_exam={"question_count": 10, "duration_minutes": 10, "pass_percent": 0}
    ),
    "mock count 2.5": lambda d: d["exams"][0].update(
        mock_exam={"question_count": 2.5, "duration_minutes": 10, "pass_percent": 70}
    ),
    "no uid": lambda d: question(d).pop("uid"),
    "uid a number": lambda d: question(d).update(uid=7),
    "kind other": lambda d: question(d).update(kind="essay"),
    "empty stem": lambda d: question(d).update(stem=""),
    "stem too long": lambda d: question(d).update(stem="s" * 20_001),
    "status other": lambda d: question(d).update(status="live"),
    "difficulty other": lambda d: question(d).update(difficulty="Easy"),
    "reviewed_on not a date": lambda d: question(d).update(reviewed_on="2025-02-30"),
    "reviewed_on other form": lambda d: question(d).update(reviewed_on="02/03/2025"),
    "reference not http": lambda d: question(d).update(
        references=[{"title": "Docs", "url": "ftp://example.com"}]
    ),
    "reference without title": lambda d: question(d).update(
        references=[{"url": "https://example.com"}]
    ),
    "tag not a slug": lambda d: question(d).update(tags=["Not a slug"]),
    "related not a list": lambda d: question(d).update(related="other"),
    "one option": lambda d: question(d).update(options=question(d)["options"][:1]),
    "nine options": lambda d: question(d).update(options=question(d)["options"] * 3),
    "correct a string": lambda d: option(d).update(correct="true"),
    "correct 1": lambda d: option(d).update(correct=1),
    "no rationale": lambda d: option(d).pop("rationale"),
    "option extra field": lambda d: option(d).update(feedback="x"),
    "option text empty": lambda d: option(d).update(text=""),
    "media name": lambda d: d.update(
        media=[{"name": "x.png", "content_type": "image/png", "data": ""}]
    ),
}
# fmt: on


def valid_documents() -> list[dict[str, Any]]:
    return [make_bank(), sample_bank(), json.loads(DEMO_BANK.read_text(encoding="utf-8"))]


def test_the_shipped_schema_is_understood_and_valid_banks_pass_it_quickly():
    for document in valid_documents():
        assert list(_validator().iter_errors(document)) == []
        assert _passes()(document)


@pytest.mark.parametrize("name", list(BREAKS))
def test_a_document_jsonschema_reports_never_passes(name):
    document = copy.deepcopy(make_bank())
    BREAKS[name](document)
    assert list(_validator().iter_errors(document)), f"{name}: not a break of the schema"
    assert not _passes()(document)
    assert schema_problems(document)  # reported, with jsonschema's messages


# Valid for jsonschema, in doubt for the quick pass: jsonschema decides, as before.
DOUBTS: dict[str, Edit] = {
    "version 1.0": lambda d: d.update(version=1.0),
    "a count of 10.0": lambda d: d["exams"][0]["mock_exam"].update(question_count=10.0),
}


@pytest.mark.parametrize("name", list(DOUBTS))
def test_in_doubt_jsonschema_decides(name):
    document = copy.deepcopy(make_bank())
    DOUBTS[name](document)
    assert not _passes()(document)
    assert schema_problems(document) == []


def test_a_schema_with_a_keyword_it_does_not_know_passes_nothing():
    passes = compile_passes({"type": "object", "oneOf": [{}]}, None)
    assert not passes({})
