"""What a QTI text entry cannot say with a mapping or one `qti-equal`, written by our export
and read back by our reader: an accepted text with wildcards as a `qti-pattern-match` (an
XML Schema pattern that QTI players evaluate), and a number blank's other right numbers as
more `qti-equal`s beside the one that compares with the correct response, in one `qti-or`.

The pattern is written in one plain form (each character itself or escaped, a letter as
`[aA]` when case does not matter, spaces as `\\s+`, Moodle's `*` as `.*`), and only that form
is read back: any other pattern a file holds is not ours to guess at."""

import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from xml.etree.ElementTree import Element

from questions.bank.formats.foreign import parse_number
from questions.bank.formats.qti_names import attribute, name_of
from questions.grading import has_wildcard

# The characters an XML Schema pattern escapes with a backslash.
_META = set("\\|.-^?*+{}()[]")
_TOKEN = re.compile(r"\\s[*+]|\.\*|\[(.)(.)\]|\\(.)|(.)", re.DOTALL)


def wildcard_pattern(text: str, *, match_case: bool, ignore_spaces: bool) -> str:
    """An accepted text with wildcards as an XML Schema pattern of the whole response: `*` any
    run of characters, `\\*` a star; spaces around it allowed, a run of spaces inside one or
    more (none or more when spaces are ignored)."""
    out = [r"\s*"]
    index = 0
    while index < len(text):
        char = text[index]
        if char == "\\" and text[index + 1 : index + 2] == "*":
            out.append(r"\*")
            index += 2
            continue
        if char == "*":
            out.append(".*")
        elif char.isspace():
            if not out[-1].startswith(r"\s"):
                out.append(r"\s*" if ignore_spaces else r"\s+")
        elif not match_case and char.lower() != char.upper() and len(char.swapcase()) == 1:
            out.append(f"[{char.lower()}{char.upper()}]")
        else:
            out.append(f"\\{char}" if char in _META else char)
        index += 1
    if not out[-1].startswith(r"\s"):
        out.append(r"\s*")
    return "".join(out)


@dataclass(frozen=True)
class ReadPattern:
    text: str  # the accepted text with wildcards, `\*` a star
    match_case: bool


def read_pattern(pattern: str) -> ReadPattern | None:
    """A pattern our export wrote, back as the accepted text; None for any other."""
    pieces: list[str] = []
    folded = False
    position = 0
    for match in _TOKEN.finditer(pattern):
        if match.start() != position:
            return None
        position = match.end()
        piece = match.group(0)
        if piece in (r"\s*", r"\s+"):
            pieces.append(" ")
        elif piece == ".*":
            pieces.append("*")
        elif match.group(1) is not None:
            lower, upper = match.group(1), match.group(2)
            if lower.upper() != upper or lower == upper:
                return None
            pieces.append(lower)
            folded = True
        elif match.group(3) is not None:
            escaped = match.group(3)
            if escaped not in _META:
                return None
            pieces.append("\\*" if escaped == "*" else escaped)
        elif match.group(4) in _META:
            return None  # a pattern's own syntax: not a pattern we write
        else:
            pieces.append(match.group(4))
    text = " ".join("".join(pieces).split())
    return ReadPattern(text, not folded) if text and position == len(pattern) else None


def patterns_of(root: Element, identifier: str) -> list[ReadPattern]:
    """The patterns the response processing matches this response with, in our form."""
    found = []
    for element in root.iter():
        if name_of(element) != "patternMatch" or not _compares(element, identifier):
            continue
        read = read_pattern(attribute(element, "pattern"))
        if read is not None and read not in found:
            found.append(read)
    return found


def more_ranges(root: Element, identifier: str) -> list[tuple[Decimal, Decimal]]:
    """Other right numbers: the `equal`s beside the one comparing this response with its
    correct response, in one `or`, each a number and its absolute tolerance."""
    ranges: list[tuple[Decimal, Decimal]] = []
    for either in root.iter():
        if name_of(either) != "or":
            continue
        equals = [child for child in either if name_of(child) == "equal"]
        if not any(_compares(e, identifier) and _has(e, "correct") for e in equals):
            continue
        for equal in equals:
            if not _compares(equal, identifier) or _has(equal, "correct"):
                continue
            value = next((c for c in equal if name_of(c) == "baseValue"), None)
            number = parse_number((value.text or "") if value is not None else "")
            tolerance = Decimal(0)
            if attribute(equal, "toleranceMode") == "absolute":
                tolerance = parse_number(attribute(equal, "tolerance").split(" ")[0]) or tolerance
            if number is not None:
                ranges.append((number, abs(tolerance)))
    return ranges


def _compares(element: Element, identifier: str) -> bool:
    return any(
        name_of(child) == "variable" and attribute(child, "identifier") == identifier
        for child in element
    )


def _has(element: Element, name: str) -> bool:
    return any(name_of(child) == name for child in element)


def exact_texts(accepted: Iterable[str]) -> list[str]:
    """The accepted texts of a blank with wildcards that have none: a mapping holds them."""
    return [text for text in accepted if not has_wildcard(text)]
