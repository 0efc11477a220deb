"""How a QTI item's response processing compares a typed number with its correct response,
as one right number and a tolerance (a blank's): `equal` within an absolute or a relative
tolerance, or `equalRounded`, both rounded to a number of significant figures or decimal
places. The template reader (qti_template.py) uses the rounding for the instance it draws;
the plain items' reader (qti_interactions.py) reads all three here.

A tolerance of two values (below and above) is taken at its narrower side, and the note
says so: a blank here is symmetric, and the narrower side never accepts what the item would
refuse."""

import math
from dataclasses import dataclass
from decimal import Decimal
from xml.etree.ElementTree import Element

from questions.bank.formats.foreign import parse_number
from questions.bank.formats.qti_names import attribute, name_of
from questions.bank.formats.qti_printed import plain
from questions.bank.formats.qti_values import round_to

_MOST_FIGURES = 15


@dataclass(frozen=True)
class Band:
    """The right number (rounded where the comparison rounds) and its tolerance, with what
    the import report says of them."""

    number: float
    tolerance: float
    note: str


class CompareError(ValueError):
    """A comparison written so that no band can be read from it: the reason."""


def rounded(number: float, figures_text: str, mode: str) -> Band:
    """`equalRounded`: an answer is right when it rounds as the correct response does, to
    `figures_text` significant figures or decimal places (`mode`): the rounded number, give
    or take half of its last place (the upper end, which rounds up, is accepted too)."""
    written = figures_text.strip()
    if not written.isdecimal() or not 0 <= int(written) <= _MOST_FIGURES:
        raise CompareError(f"its response processing rounds to {written[:20]!r} figures")
    figures = int(written)
    if mode == "decimalPlaces":
        number = round_to(number, figures, mode)
        tolerance = 0.5 * 10.0**-figures
        said = f"{figures} decimal places"
    else:
        if figures < 1:
            raise CompareError("its response processing rounds to 0 significant figures")
        number = round_to(number, figures, "significantFigures")
        exponent = math.floor(math.log10(abs(number))) if number else 0
        tolerance = 0.5 * 10.0 ** (exponent - figures + 1)
        said = f"{figures} significant figures"
    note = (
        f"its response processing takes an answer that rounds to {plain(number)} at {said}: "
        f"± {plain(tolerance)} here (the upper end, which rounds up, is accepted too)"
    )
    return Band(number, tolerance, note)


def comparison_of(root: Element, identifier: str) -> Element | None:
    """The `equal` or `equalRounded` that compares the response `identifier` with its
    correct response, or else with any value (other right numbers are `qti_typed`'s)."""
    found = [
        element
        for element in root.iter()
        if name_of(element) in ("equal", "equalRounded")
        and any(
            name_of(child) == "variable" and attribute(child, "identifier").strip() == identifier
            for child in element
        )
    ]
    with_correct = [e for e in found if any(name_of(child) == "correct" for child in e)]
    chosen = with_correct or found
    return chosen[0] if chosen else None


def band(comparison: Element, number: float) -> Band | None:
    """The band of a plain item's comparison with literal tolerances, around its correct
    response `number`; None for an exact comparison."""
    if name_of(comparison) == "equalRounded":
        mode = attribute(comparison, "roundingMode", "significantFigures").strip()
        return rounded(number, attribute(comparison, "figures"), mode)
    mode = attribute(comparison, "toleranceMode", "exact").strip()
    if mode not in ("absolute", "relative"):
        return None
    given = attribute(comparison, "tolerance").split()
    sides = [parse_number(value) for value in given[:2]]
    if not sides or None in sides or any(side < 0 for side in sides if side is not None):
        raise CompareError(f"its {mode} tolerance {' '.join(given)[:40]!r} is not a number")
    below, above = (float(side) for side in (sides[0], sides[-1]) if side is not None)
    if mode == "relative":  # percentages of the correct response
        below, above = abs(number) * below / 100, abs(number) * above / 100
    return within(number, below, above, f"{' '.join(given)} ({mode})")


def within(number: float, below: float, above: float, given: str) -> Band:
    """`equal` with a tolerance, `below` and `above` the right number as computed (the
    template reader's may come from its variables), `given` as the item writes it."""
    tolerance = min(below, above)
    note = (
        f"its response processing accepts answers within {given} of {plain(number)}: "
        f"± {plain(tolerance)} here"
    )
    if not math.isclose(below, above):
        note += ", the narrower side"
    return Band(number, tolerance, note)


def as_decimal(value: float) -> Decimal:
    """A band's number or tolerance as the blank keeps it: as written, to 14 figures."""
    return parse_number(plain(value)) or Decimal(0)
