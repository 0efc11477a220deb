import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from questions.bank.checks import BankError, Document, Problem
from questions.bank.document_import import import_documents
from questions.bank.foreign_import import READERS, ForeignImportError, import_foreign, read_file
from questions.bank.formats.courseiva import read_document


class Command(BaseCommand):
    help = (
        "Import question-bank files. courseiva-bank JSON (version 1 or 2): every file is checked "
        "first; if any has a problem, all problems are printed and nothing is written. GIFT, "
        "Aiken, Moodle XML and QTI (an item file or a zip package; --exam required): the "
        "questions go into that exam, in review; the last line printed is a JSON summary."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+", type=Path, metavar="FILE")
        parser.add_argument(
            "--format",
            choices=["auto", "json", *READERS],
            default="auto",
            help="The files' format; by default each file's is told from its content.",
        )
        parser.add_argument(
            "--exam",
            metavar="SLUG",
            help="The exam GIFT, Aiken, Moodle XML and QTI questions go into.",
        )
        parser.add_argument(
            "--topic",
            metavar="SLUG",
            help="The exam's topic for questions without a category (default: a topic "
            "“Imported”, created when missing).",
        )
        parser.add_argument(
            "--skip-invalid",
            action="store_true",
            help="GIFT/Aiken: import the valid questions and report the others.",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="GIFT/Aiken: check and report, write nothing."
        )

    def handle(self, *args: Any, **options: Any) -> None:
        self.verbosity = options["verbosity"]
        files: list[Path] = options["files"]
        file_format: str = options["format"]
        sources = [read_file(path, file_format) for path in files]
        formats = {source.bank.format for source in sources}
        foreign_options = [
            f"--{name.replace('_', '-')}"
            for name in ("exam", "topic", "skip_invalid", "dry_run")
            if options[name]
        ]
        # Without --exam, a file of no known format goes the JSON way, as before there were
        # other formats: "not valid JSON", "cannot read".
        if formats <= {"json"} or (formats <= {"json", "unknown"} and not options["exam"]):
            if foreign_options:
                raise CommandError(
                    f"{', '.join(foreign_options)}: for GIFT and Aiken files; a courseiva-bank "
                    "JSON file names its own exams."
                )
            self._import_json(files)
            return
        if "json" in formats:
            raise CommandError(
                "Import courseiva-bank JSON files and GIFT/Aiken files in separate runs."
            )
        if not options["exam"]:
            raise CommandError(
                "GIFT and Aiken questions go into an existing exam: give --exam SLUG."
            )
        try:
            report = import_foreign(
                sources,
                options["exam"],
                options["topic"],
                skip_invalid=options["skip_invalid"],
                dry_run=options["dry_run"],
            )
        except ForeignImportError as error:
            raise CommandError(f"Nothing imported: {error}.") from None
        for line in report.lines():
            self.stdout.write(line)
        # The last line is for scripts: one JSON object.
        self.stdout.write(json.dumps(report.as_json(), ensure_ascii=False))
        if report.errors and not options["skip_invalid"]:
            raise CommandError(
                f"{len(report.errors)} error(s): nothing imported (listed above; "
                "--skip-invalid imports the valid questions)."
            )

    def _import_json(self, files: list[Path]) -> None:
        documents: list[Document] = []
        problems: list[Problem] = []
        for path in files:
            try:
                documents.append(read_document(path))
            except BankError as error:
                problems.extend(Problem(f"{path}: {p.path}", p.message) for p in error.problems)
        if not problems:
            try:
                summary = import_documents(documents, progress=self._progress)
            except BankError as error:
                problems = [self._name_file(p, files) for p in error.problems]
            else:
                for line in summary.lines():
                    self.stdout.write(line)
                return
        for problem in problems:
            self.stderr.write(str(problem))
        raise CommandError(
            f"Nothing imported: {len(problems)} problem{'s' if len(problems) != 1 else ''} "
            "found (listed above)."
        )

    def _progress(self, message: str) -> None:
        # Progress goes to stderr so that stdout carries only the summary.
        if self.verbosity:
            sys.stderr.write(f"… {message}\n")
            sys.stderr.flush()

    @staticmethod
    def _name_file(problem: Problem, files: list[Path]) -> Problem:
        if len(files) == 1:
            return replace(problem, path=f"{files[0]}: {problem.path}")
        number, _, path = problem.path.partition(": ")
        index = int(number.removeprefix("file ")) - 1
        return replace(problem, path=f"{files[index]}: {path}")
