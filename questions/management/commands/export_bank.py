import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from questions.bank_checks import Document
from questions.formats import moodle_xml
from questions.formats.courseiva import dump_document, export_document
from questions.models import Exam

# The formats a bank is written in: each turns the exported document into the file's text.
WRITERS: dict[str, Callable[[Document], str]] = {
    "json": dump_document,
    "moodle-xml": moodle_xml.write_bank,
}


class Command(BaseCommand):
    help = (
        "Export the question bank (or some exams) as a courseiva-bank document (JSON), or "
        "with --format moodle-xml as Moodle XML."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--exam", action="append", metavar="SLUG", help="An exam to export (repeatable)."
        )
        parser.add_argument(
            "--format",
            choices=list(WRITERS),
            default="json",
            help="The file's format (default: courseiva-bank JSON).",
        )
        parser.add_argument(
            "-o", "--output", type=Path, metavar="FILE", help="Write here instead of stdout."
        )

    def handle(self, *args: Any, **options: Any) -> None:
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
        text = WRITERS[options["format"]](document)
        output: Path | None = options["output"]
        if output is None:
            self.stdout.write(text, ending="")
            return
        if not output.parent.is_dir():
            raise CommandError(f"Cannot write {output}: folder {output.parent} does not exist.")
        # Write beside the target and rename, so a failed export never leaves half a file.
        handle, temporary = tempfile.mkstemp(dir=output.parent, suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(text)
            Path(temporary).replace(output)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        questions = sum(len(exam["questions"]) for exam in document["exams"])
        self.stderr.write(f"Wrote {len(exams)} exam(s), {questions} question(s) to {output}")
