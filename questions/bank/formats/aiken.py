"""Aiken (https://docs.moodle.org/en/Aiken_format) read into a `ParsedBank`: plain text, one
question after another, each its text, its options `A) ...` or `A. ...` and `ANSWER: B`.

Every question is single-answer; the format has no names, feedback or categories, so a
question is known by its content. An `ANSWER:` letter that names no option, an option before
any question text and a question without `ANSWER:` are errors with their line.
"""

import re
from dataclasses import dataclass, field

from questions.bank.formats.foreign import (
    ForeignOption,
    ForeignQuestion,
    ParsedBank,
    ParseError,
    plain_to_markdown,
)

FORMAT = "aiken"

_OPTION = re.compile(r"^([A-Z])\s*[.)]\s*(.*)$")
_ANSWER = re.compile(r"^ANSWER\s*:\s*(.*)$", re.I)


@dataclass
class _Open:
    line: int
    stem: list[str] = field(default_factory=list)
    options: list[tuple[str, str]] = field(default_factory=list)


def read(text: str) -> ParsedBank:
    bank = ParsedBank(FORMAT)
    current: _Open | None = None
    failed = False  # skip the rest of a question that has an error, up to a blank line

    def fail(line: int, message: str) -> None:
        nonlocal current, failed
        bank.errors.append(ParseError(line, message))
        current, failed = None, True

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            if current is not None:
                fail(current.line, "the question has no ANSWER: line")
            failed = False
            continue
        if failed:
            continue
        if answer := _ANSWER.match(line):
            if current is None or not current.stem:
                fail(number, "ANSWER: without a question before it")
                continue
            letter = answer.group(1).strip().upper()
            letters = [option_letter for option_letter, _ in current.options]
            if not re.fullmatch(r"[A-Z]", letter):
                fail(number, f"ANSWER: takes one letter (found {answer.group(1).strip()!r})")
                continue
            if letter not in letters:
                named = f"{letters[0]} to {letters[-1]}" if letters else "none"
                fail(number, f"ANSWER: {letter} names no option (the options: {named})")
                continue
            bank.questions.append(
                ForeignQuestion(
                    line=current.line,
                    kind="single",
                    stem=plain_to_markdown("\n".join(current.stem)),
                    options=[
                        ForeignOption(plain_to_markdown(option), option_letter == letter)
                        for option_letter, option in current.options
                    ],
                )
            )
            current = None
            continue
        if option := _OPTION.match(line):
            if current is None:
                fail(number, "an option before any question text")
                continue
            if option.group(1) in [letter for letter, _ in current.options]:
                fail(number, f"option {option.group(1)} is given twice")
                continue
            current.options.append((option.group(1), option.group(2)))
            continue
        if current is None:
            current = _Open(number)
        elif current.options:
            fail(number, "a line after the options that is neither an option nor ANSWER:")
            continue
        current.stem.append(line)
    if current is not None:
        bank.errors.append(ParseError(current.line, "the question has no ANSWER: line"))
    return bank
