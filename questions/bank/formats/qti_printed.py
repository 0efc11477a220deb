"""Template values as a QTI item shows them: a `printedVariable` (its `format`, QTI's printf
subset; `base` for integers; `delimiter` between a container's values), and numbers as Moodle
writes them where no format is given.

The printf subset is one conversion (d, i, u, o, x, X, f, F, e, E, g, G, s, or r), flags, a
width and a precision of two digits at most. The `r` conversion is not C's: the items that
use it (written for the STOMP renderer, among QTIWorks' samples) print "%.3r" where their
text asks for "three significant figures", so its precision is a number of significant
figures, the trailing zeros kept (0.5 to 3 figures is 0.500). QTIWorks itself hands the
format to Java, which knows no `r` and prints the number as Java writes a double."""

import math
import re
from decimal import Decimal
from xml.etree.ElementTree import Element

from questions.bank.formats.qti_names import attribute
from questions.bank.formats.qti_values import Container, Declaration, State, TemplateError, Value

_PRINTF = re.compile(
    r"(?P<before>(?:[^%]|%%)*)%(?P<flags>[-+ #0]*)(?P<width>\d{0,2})(?:\.(?P<precision>\d{1,2}))?"
    r"(?P<conversion>[diuoxXfFeEgGsr])(?P<after>(?:[^%]|%%)*)"
)
# Significant figures printed without an exponent from 10^-6 to below 10^16; beyond, with one.
_POSITIONAL = range(-6, 16)


def printed(node: Element, state: State, known: dict[str, Declaration]) -> str:
    """A printedVariable's text for this draw, or TemplateError."""
    identifier = attribute(node, "identifier").strip()
    if identifier not in known:
        raise TemplateError(
            f"it prints {identifier!r}, which is no template variable (an outcome is known "
            "only once answered)"
        )
    value = state.variables[identifier]
    if attribute(node, "index").strip() or attribute(node, "field").strip():
        raise TemplateError(f"it prints one value of {identifier} by index or field")
    if attribute(node, "powerForm").strip() == "true":
        raise TemplateError(f"it prints {identifier} in a power form, which is not read here")
    base_text = attribute(node, "base", "10").strip()
    base = int(base_text) if base_text.isdecimal() else state.variables.get(base_text)
    if not isinstance(base, int) or isinstance(base, bool) or not 2 <= base <= 36:
        raise TemplateError(f"it prints {identifier} in base {base_text!r}")
    items = value.items if isinstance(value, Container) else (() if value is None else (value,))
    shown = [formatted(item, attribute(node, "format"), base) for item in items]
    return attribute(node, "delimiter", ";").join(shown)


def formatted(value: int | float | bool | str, form: str, base: int = 10) -> str:
    """One value as a printedVariable with this format and base shows it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if base != 10:
        if not isinstance(value, int):
            raise TemplateError(f"a float ({value:g}) is printed in base {base}")
        return in_base(value, base)
    if not form:
        return plain(value)
    match = _PRINTF.fullmatch(form)
    if match is None:
        raise TemplateError(f"the print format {form[:40]!r} is not QTI's printf subset")
    flags, width, precision = match.group("flags"), match.group("width"), match.group("precision")
    conversion = match.group("conversion")
    if conversion == "r":
        text = _padded(significant(value, int(precision or 6)), flags, int(width or 0))
    else:
        argument: int | float | str = value
        if conversion in "diuoxX":
            argument = math.trunc(value)
        elif conversion == "s":
            argument = plain(value)
        spec = flags + width + (f".{precision}" if precision is not None else "")
        text = f"%{spec}{conversion}" % argument
    return match.group("before").replace("%%", "%") + text + match.group("after").replace("%%", "%")


def significant(value: int | float, figures: int) -> str:
    """The value to so many significant figures (1 at least), its trailing zeros kept:
    positional from 10^-6 to below 10^16, with an exponent beyond."""
    figures = max(figures, 1)
    if not math.isfinite(value):
        raise TemplateError(f"{value} cannot be printed to significant figures")
    if value == 0:
        return "0" if figures == 1 else "0." + "0" * (figures - 1)
    # Python rounds the decimal digits correctly; the exponent says where the point goes.
    mantissa, _, exponent_text = f"{abs(value):.{figures - 1}e}".partition("e")
    exponent = int(exponent_text)
    sign = "-" if value < 0 else ""
    if exponent not in _POSITIONAL:
        return f"{sign}{mantissa}e{exponent:+03d}"
    digits = mantissa.replace(".", "")
    if exponent >= figures - 1:
        return sign + digits + "0" * (exponent - figures + 1)
    if exponent >= 0:
        return f"{sign}{digits[: exponent + 1]}.{digits[exponent + 1 :]}"
    return f"{sign}0.{'0' * (-exponent - 1)}{digits}"


def _padded(text: str, flags: str, width: int) -> str:
    if not text.startswith("-"):
        text = ("+" if "+" in flags else " " if " " in flags else "") + text
    if len(text) >= width:
        return text
    if "-" in flags:
        return text.ljust(width)
    if "0" in flags and "e" not in text:
        sign = text[0] if text[0] in "+- " else ""
        return sign + text[len(sign) :].rjust(width - len(sign), "0")
    return text.rjust(width)


def in_base(value: int, base: int) -> str:
    """An integer's digits in a base from 2 to 36, lower-case letters past 9."""
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    number, text = abs(value), ""
    while True:
        number, digit = divmod(number, base)
        text = digits[digit] + text
        if not number:
            return ("-" if value < 0 else "") + text


def plain(value: int | float) -> str:
    """A number as Moodle writes one: integers as they are, a float to 14 significant
    figures without trailing zeros (0.1 + 0.2 is 0.3, 6.0 is 6)."""
    if isinstance(value, int):
        return str(value)
    text = f"{Decimal(f'{value:.14g}'):f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def listed(value: Value, delimiter: str = ", ") -> str:
    """A value as the import's report names it (a container in brackets, long texts cut)."""
    if value is None:
        return "NULL"
    if isinstance(value, Container):
        return "[" + delimiter.join(listed(item) for item in value.items) + "]"
    shown = formatted(value, "")
    return shown if len(shown) <= 60 else shown[:60] + "…"
