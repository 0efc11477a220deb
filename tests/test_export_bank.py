"""`manage.py export_bank`: gives back what was imported, in the same order."""

import json

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from questions.bank.document_import import import_document
from questions.bank.formats.courseiva import export_document
from questions.models import Exam, Question
from tests.banks import clone, make_bank, sample_bank, write

pytestmark = pytest.mark.django_db


def export(*args: str) -> dict:
    from io import StringIO

    out = StringIO()
    call_command("export_bank", *args, stdout=out)
    return json.loads(out.getvalue())


def as_version_2(document: dict) -> dict:
    """A version-1 document as export writes it: version 2 holds it unchanged."""
    return {**document, "version": 2}


def test_export_of_the_imported_sample_gives_back_the_same_document():
    sample = sample_bank()
    assert sample["version"] == 1
    import_document(sample)
    expected = as_version_2(clone(sample))
    # The exporter always writes status; the sample leaves the default out on some questions.
    for question in expected["exams"][0]["questions"]:
        question.setdefault("status", "published")
    assert export() == expected


def test_round_trip_is_exact(tmp_path):
    bank = make_bank(12)
    bank["exams"][0]["topics"][0]["weight"] = 62.5
    bank["exams"][0]["topics"][1]["weight"] = 37.5
    bank["exams"][0]["questions"][3]["references"] = [
        {"title": "A guide", "url": "https://example.org/guide"}
    ]
    bank["exams"][0]["questions"][5]["reviewed_on"] = "2026-02-03"
    bank["exams"][0]["questions"][6]["status"] = "draft"
    import_document(bank)
    assert export() == as_version_2(bank)
    # And the export imports into an empty bank to give itself back.
    path = write(tmp_path, export())
    Question.objects.all().delete()
    Exam.objects.all().delete()
    call_command("import_bank", str(path))
    assert export() == as_version_2(bank)


def test_export_keeps_question_order_within_the_exam():
    bank = make_bank(6)
    bank["exams"][0]["questions"].reverse()
    for question in bank["exams"][0]["questions"]:
        question.pop("related", None)
    import_document(bank)
    assert [q["uid"] for q in export()["exams"][0]["questions"]] == [
        q["uid"] for q in bank["exams"][0]["questions"]
    ]


def test_export_one_exam_to_a_file(tmp_path, capsys):
    import_document(make_bank(3, slug="first-exam", prefix="a"))
    import_document(make_bank(2, slug="second-exam", prefix="b"))
    target = tmp_path / "out.json"
    call_command("export_bank", "--exam", "second-exam", "-o", str(target))
    document = json.loads(target.read_text())
    assert [exam["slug"] for exam in document["exams"]] == ["second-exam"]
    assert len(document["exams"][0]["questions"]) == 2
    assert "Wrote 1 exam(s), 2 question(s)" in capsys.readouterr().err


def test_unknown_exam_is_a_clear_error(tmp_path):
    import_document(make_bank(1))
    with pytest.raises(
        CommandError, match=r"No exam with slug nope \(exams in the bank: generated-exam\)"
    ):
        call_command("export_bank", "--exam", "nope", "-o", str(tmp_path / "x.json"))
    assert not (tmp_path / "x.json").exists()


def test_output_into_a_missing_folder_is_a_clear_error(tmp_path):
    with pytest.raises(CommandError, match="does not exist"):
        call_command("export_bank", "-o", str(tmp_path / "missing" / "x.json"))


def test_export_query_count_does_not_grow_with_the_bank():
    import_document(make_bank(5, slug="small", prefix="s"))
    with CaptureQueriesContext(connection) as small:
        export_document()
    import_document(make_bank(100, slug="large", prefix="l"))
    with CaptureQueriesContext(connection) as large:
        export_document()
    # Exams, topics, case studies, mock sections, questions, parts, options, related questions.
    assert len(small) == len(large) == 8
