"""What the tests of the foreign bank formats share: the fixture files, running `import_bank`
and reading its JSON report, writing a file to import, what a learner reads of an imported
question, and QTI items and content packages written in the tests."""

import html
import io
import json
import re
import zipfile
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from questions.markup import render_markdown_inline
from questions.models import Question

FIXTURES = Path(__file__).parent / "data" / "foreign"
# QTI's namespaces, 2.1 and 3.0, for items written in the tests.
QTI21 = "http://www.imsglobal.org/xsd/imsqti_v2p1"
QTI3 = "http://www.imsglobal.org/xsd/imsqtiasi_v3p0"
# QTI 3.0's response processing templates, by name.
TEMPLATES = "https://purl.imsglobal.org/spec/qti/v3p0/rptemplates/"


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


def seen(markdown: str) -> str:
    """What a learner reads: the rendered HTML's text."""
    return html.unescape(re.sub(r"<[^>]+>", "", str(render_markdown_inline(markdown))))


def options_of(question: Question) -> list[tuple[str, bool, str]]:
    return [
        (seen(option.text), option.is_correct, option.rationale.why)
        for option in question.options.select_related("rationale")
    ]


def package(files: dict[str, str | bytes], **infos: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def manifest(*items: str, test: str = "") -> str:
    resources = "".join(
        f'<resource identifier="r{n}" type="imsqti_item_xmlv3p0" href="{href}"/>'
        for n, href in enumerate(items)
    )
    if test:
        resources = f'<resource identifier="t" type="imsqti_test_xmlv3p0" href="{test}"/>' + (
            resources
        )
    return (
        '<manifest xmlns="http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1" identifier="m">'
        f"<resources>{resources}</resources></manifest>"
    )


def item3(identifier: str, declarations: str, body: str, processing: str = "match_correct") -> str:
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<qti-assessment-item xmlns="{QTI3}" '
        f'identifier="{identifier}" title="{identifier}">{declarations}'
        f"<qti-item-body>{body}</qti-item-body>"
        f'<qti-response-processing template="{TEMPLATES}{processing}.xml"/>'
        "</qti-assessment-item>"
    )


def declaration3(values: str, *, identifier: str = "RESPONSE", base: str = "identifier") -> str:
    correct = "".join(f"<qti-value>{value}</qti-value>" for value in values.split(","))
    return (
        f'<qti-response-declaration identifier="{identifier}" cardinality="multiple" '
        f'base-type="{base}"><qti-correct-response>{correct}</qti-correct-response>'
        "</qti-response-declaration>"
    )
