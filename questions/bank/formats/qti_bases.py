"""A QTI text entry that asks for an integer typed in another base (`base="16"`, `base="2"`).

QTI reads what the learner types in that base and compares the integer it makes: `ff`, `FF`
and `0ff` are all 255 in base 16. A blank here compares numbers in base 10 only, so such an
entry becomes a text blank whose accepted answers are the key written in its base: letter
case does not matter (blanks ignore it unless told), and the key with leading zeros is
accepted too, as QTI reads a number with leading zeros as the same number: up to 8 digits
(a byte in binary) or the entry's expected length if longer, 16 digits at most. A sign is
typed only before a negative key (QTIWorks takes "+" only before a decimal digit, so it is
not offered).

Refused, with the reason: a base outside 2 to 36, a float typed in another base (QTI gives
the base for integers), and an entry whose blank could not be found."""

from dataclasses import replace
from decimal import Decimal
from xml.etree.ElementTree import Element

from questions.bank.formats.foreign import ForeignBlank, ForeignQuestion, Skipped
from questions.bank.formats.qti_names import attribute, name_of
from questions.bank.formats.qti_printed import in_base

LABEL = "number in another base"
_MOST_DIGITS = 16
# Leading zeros accepted up to so many digits, or the expected length if longer.
_PADDED = 8


def based(root: Element) -> dict[str, tuple[int, int]]:
    """Each text entry's response typed in another base: (base, expected length)."""
    found: dict[str, tuple[int, int]] = {}
    for node in root.iter():
        if name_of(node) != "textEntryInteraction":
            continue
        written = attribute(node, "base", "10").strip()
        if written == "10":
            continue
        base = int(written) if written.isdecimal() else 0
        length = attribute(node, "expectedLength").strip()
        found[attribute(node, "responseIdentifier").strip()] = (
            base,
            min(int(length), _MOST_DIGITS) if length.isdecimal() else 0,
        )
    return found


def typed_in_base(
    root: Element, interactions: list[Element], result: ForeignQuestion, place: str
) -> ForeignQuestion | Skipped:
    """The question with each blank of an entry in another base as a text blank of the key
    written in that base, or why not."""
    wanted = based(root)
    if not wanted:
        return result
    declarations = {
        attribute(child, "identifier").strip(): child
        for child in root
        if name_of(child) == "responseDeclaration"
    }
    blanks = result.typed_answers()
    for identifier, (base, _length) in wanted.items():
        kind = attribute(declarations.get(identifier, Element("none")), "baseType").strip()
        reason = ""
        if not 2 <= base <= 36:
            reason = f"it asks for {identifier} typed in base {base or '?'}, which is no base"
        elif kind != "integer":
            reason = f"it asks for {identifier} typed in base {base}, a {kind or 'text'} response"
        if reason:
            return Skipped(result.line, LABEL, f"{place}: {reason}")
    if len(blanks) != len(interactions):
        return Skipped(
            result.line, LABEL, f"{place}: its blanks typed in another base could not be found"
        )
    for index, (node, blank) in enumerate(zip(interactions, blanks, strict=True)):
        identifier = attribute(node, "responseIdentifier").strip()
        if identifier not in wanted or name_of(node) != "textEntryInteraction":
            continue
        base, length = wanted[identifier]
        if blank is None or blank.number is None or blank.number != blank.number.to_integral():
            return Skipped(
                result.line,
                LABEL,
                f"{place}: the key of {identifier}, typed in base {base}, is no integer",
            )
        kept = _in_base(blank, base, length)
        if result.kind == "fillin":
            result.blanks[index] = kept
        else:
            result.gaps[index] = replace(result.gaps[index], typed=kept)
        shown = " / ".join(kept.accepted)
        letters = ", in either letter case" if base > 10 else ""
        result.notes.append(
            f"{place}: {blank.label} asks for a number typed in base {base}: a text blank that "
            f"accepts {shown} ({blank.number} in base 10){letters}"
        )
    return result


def _in_base(blank: ForeignBlank, base: int, length: int) -> ForeignBlank:
    key = int(blank.number or 0)
    written = in_base(abs(key), base)
    sign = "-" if key < 0 else ""
    widths = range(len(written), max(len(written), length, _PADDED) + 1)
    accepted = tuple(sign + written.rjust(width, "0") for width in widths)
    wrong = tuple(
        (_written(answer, base), feedback)
        for answer, feedback in blank.wrong_answers
        if _written(answer, base)
    )
    return replace(
        blank,
        accepted=accepted,
        match_case=False,
        wildcards=False,
        number=None,
        tolerance=Decimal(0),
        more_numbers=(),
        units=(),
        wrong_answers=wrong,
    )


def _written(answer: str, base: int) -> str:
    """A wrong answer (a base 10 integer) written in the base; "" when it is none."""
    try:
        number = Decimal(answer.strip())
    except ArithmeticError:
        return ""
    if not number.is_finite() or number != number.to_integral() or abs(number) >= 10**15:
        return ""
    return in_base(int(number), base)
