import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from questions.bank.checks import Document
from questions.bank.formats import moodle_xml_export, qti_export
from questions.bank.formats.courseiva import dump_document, export_document
from questions.models import Exam

# The formats a bank is written in: each turns the exported document into the file's text.
WRITERS: dict[str, Callable[[Document], str]] = {
    "json": dump_document,
    "moodle-xml": moodle_xml_export.write_bank,
}
# Formats whose file is not text (a zip package): written to a file only.
BINARY_WRITERS: dict[str, Callable[[Document], bytes]] = {"qti3": qti_export.write_package}


class Command(BaseCommand):
    help = (
        "Export the question bank (or some exams) as a courseiva-bank document (JSON), or "
        "with --format moodle-xml as Moodle XML, or with --format qti3 -o FILE.zip as a QTI 3.0 "
        "content package."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--exam", action="append", metavar="SLUG", help="An exam to export (repeatable)."
        )
        parser.add_argument(
            "--format",
            choices=[*WRITERS, *BINARY_WRITERS],
            default="json",
            help="The file's format (default: courseiva-bank JSON).",
        )
        parser.add_argument(
            "-o", "--output", type=Path, metavar="FILE", help="Write here instead of stdout."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        binary = options["format"] in BINARY_WRITERS
        if binary and options["output"] is None:
            raise CommandError(f"--format {options['format']} writes a zip: give -o FILE.zip.")
        slugs: list[str] | None = options["exam"]
        if slugs:
            found = Exam.objects.in_bulk(slugs, field_name="slug")
            missing = [slug for slug in slugs if slug not in found]
            if missing:
                known = ", ".join(Exam.objects.values_list("slug", flat=True)) or "none"
                raise CommandError(
                    f"No exam with slug {', '.join(missing)} (exams in the bank: {known})."
                )
            exams = [found[slug] for slug in dict.fromkeys(slugs)]
        else:
            exams = list(Exam.objects.all())
        document = export_document(exams)
        content: str | bytes = (
            BINARY_WRITERS[options["format"]](document)
            if binary
            else WRITERS[options["format"]](document)
        )
        output: Path | None = options["output"]
        if output is None:
            assert isinstance(content, str)  # binary formats were refused without -o
            self.stdout.write(content, ending="")
            return
        if not output.parent.is_dir():
            raise CommandError(f"Cannot write {output}: folder {output.parent} does not exist.")
        # Write beside the target and rename, so a failed export never leaves half a file.
        handle, temporary = tempfile.mkstemp(dir=output.parent, suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(content.encode() if isinstance(content, str) else content)
            Path(temporary).replace(output)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        questions = sum(len(exam["questions"]) for exam in document["exams"])
        self.stderr.write(f"Wrote {len(exams)} exam(s), {questions} question(s) to {output}")
