"""Moodle XML's question types beyond choice, read into ours: the files are Moodle's own
fixtures and amc2moodle's sample bank (tests/data/foreign/README.md), and files written here
for what they lack."""

import re

import pytest
from django.core.management import call_command

from questions.markup import render_markdown
from questions.models import Question
from tests.factories import ExamFactory, TopicFactory
from tests.foreign_files import FIXTURES, run

pytestmark = pytest.mark.django_db


@pytest.fixture
def exam():
    exam = ExamFactory(slug="moodle-types")
    TopicFactory(exam=exam, slug="general", title="General", weight=100)
    return exam


def shown(markdown: str) -> str:
    """The HTML a learner's page gets, runs of spaces one."""
    return re.sub(r"\s+", " ", str(render_markdown(markdown))).replace("> <", "><").strip()


def test_amc2moodle_stems_survive_an_export_and_an_import(capsys, exam, tmp_path):
    """amc2moodle's Markdown question has level-1 and level-2 headings, which our pages keep
    for themselves: they become level 3 rather than bare text that an HTML round trip then
    wraps in a paragraph. Its HTML table has a caption, which the allow-list drops: its text
    stands before the table from the first import on, not inside it."""
    _, result = run(capsys, FIXTURES / "amc2moodle-moodle-bank-exemple.xml", "--exam", exam.slug)
    originals = list(Question.objects.filter(topic__exam=exam).order_by("position"))
    markdown = next(q for q in originals if q.stem.startswith("Go to your editor preferences"))
    assert "<h3>Main title</h3>" in shown(markdown.stem)
    assert "<h3>Basic text formatting</h3>" in shown(markdown.stem)
    bank = tmp_path / "bank.xml"
    call_command("export_bank", "--format", "moodle-xml", "-o", str(bank), "--exam", exam.slug)
    target = ExamFactory(slug="round-trip")
    _, result = run(capsys, bank, "--exam", target.slug)
    copies = list(Question.objects.filter(topic__exam=target).order_by("position"))
    assert result["imported"] == len(copies) == len(originals)
    for original, copy in zip(originals, copies, strict=True):
        assert shown(copy.stem) == shown(original.stem)
