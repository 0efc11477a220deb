"""What the tests of the foreign bank formats share: the fixture files, running `import_bank`
and reading its JSON report, and writing a file to import."""

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

FIXTURES = Path(__file__).parent / "data" / "foreign"
# QTI's namespaces, 2.1 and 3.0, for items written in the tests.
QTI21 = "http://www.imsglobal.org/xsd/imsqti_v2p1"
QTI3 = "http://www.imsglobal.org/xsd/imsqtiasi_v3p0"


def exam_of_one_topic(slug: str):
    """An exam whose one topic, "general", takes every question a file imports."""
    from tests.factories import ExamFactory, TopicFactory

    exam = ExamFactory(slug=slug)
    TopicFactory(exam=exam, slug="general", title="General", weight=100)
    return exam


def run(capsys, *args: str | Path) -> tuple[list[str], dict]:
    """Run the command; return its stdout lines and the JSON object of the last one."""
    call_command("import_bank", *map(str, args))
    lines = capsys.readouterr().out.splitlines()
    return lines, json.loads(lines[-1])


def refused(capsys, *args: str | Path) -> tuple[list[str], dict]:
    """Run the command expecting exit status 1 after its report."""
    with pytest.raises(CommandError):
        call_command("import_bank", *map(str, args))
    lines = capsys.readouterr().out.splitlines()
    return lines, json.loads(lines[-1])


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path
