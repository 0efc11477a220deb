"""docs/question-bank.md and the schema kept in step: every field of the schema is documented,
and the documentation's examples are valid banks that import."""

import json
import re
from pathlib import Path
from typing import Any

import pytest

from questions.bank.checks import SCHEMA_PATH, check_documents
from questions.bank.document_import import import_document
from questions.models import CaseStudy, Question

pytestmark = pytest.mark.django_db

DOCS = Path(__file__).resolve().parents[1] / "docs" / "question-bank.md"


def examples() -> list[dict[str, Any]]:
    return [
        json.loads(block) for block in re.findall(r"```json\n(.*?)\n```", DOCS.read_text(), re.S)
    ]


def field_names(node: Any) -> set[str]:
    names: set[str] = set()
    if isinstance(node, dict):
        names |= set(node.get("properties", {}))
        for value in node.values():
            names |= field_names(value)
    elif isinstance(node, list):
        for value in node:
            names |= field_names(value)
    return names


def test_every_field_and_kind_of_the_schema_is_documented():
    schema = json.loads(SCHEMA_PATH.read_text())
    shape = DOCS.read_text().split("## Shape", 1)[1].split("## The item types", 1)[0]
    missing = sorted(name for name in field_names(schema) if f'"{name}"' not in shape)
    assert missing == []
    kinds = schema["$defs"]["question"]["properties"]["kind"]["enum"]
    assert all(f'"{kind}"' in shape for kind in kinds)
    assert schema["properties"]["version"]["enum"] == [1, 2]


def test_the_documented_examples_import():
    found = examples()
    documents = [example for example in found if "format" in example]
    questions = [example for example in found if "uid" in example]
    assert len(documents) == 1
    assert {q["kind"] for q in questions} == {
        "ordering", "matching", "yesno", "fillin", "dropdown",
    }  # fmt: skip
    document = documents[0]
    document["exams"][0]["questions"] += questions
    assert check_documents([document]) == [[]]
    import_document(document)
    assert Question.objects.count() == 1 + len(questions)
    assert CaseStudy.objects.get().questions.count() == 3
