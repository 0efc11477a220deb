import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from questions.bank_checks import BankError, Document, Problem
from questions.bank_import import import_documents
from questions.formats.courseiva import read_document


class Command(BaseCommand):
    help = (
        "Import question-bank files (courseiva-bank format, version 1). Every file is checked "
        "first; if any has a problem, all problems are printed and nothing is written."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+", type=Path, metavar="FILE")

    def handle(self, *args: Any, **options: Any) -> None:
        self.verbosity = options["verbosity"]
        files: list[Path] = options["files"]
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
            return Problem(f"{files[0]}: {problem.path}", problem.message)
        number, _, path = problem.path.partition(": ")
        index = int(number.removeprefix("file ")) - 1
        return Problem(f"{files[index]}: {path}", problem.message)
