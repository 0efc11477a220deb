"""MathML in an imported item, written out as text our pages show: powers and indices as
<sup> and <sub>, a fraction as a / b (in brackets where either side is more than one term),
a root as √( ), brackets as the element asks for them. Our sanitiser keeps no MathML, and
its text alone ran the structure together: x² read "x2", a half "12". An annotation (the
LaTeX or other source some tools add beside the MathML) is left out: it repeats the formula.

Plain functions of the element tree; what they return is HTML, its text escaped."""

import html
import re
from xml.etree.ElementTree import Element

from questions.bank.formats.qti_names import attribute, name_of

# Operators written with a space on each side, as a printed formula sets them.
_SPACED = frozenset("=+\u2212-\u00d7\u00b7\u00f7<>\u2264\u2265\u2260\u00b1\u2248\u2192\u21d2")
_TAG = re.compile(r"<[^>]*>")
# One term: a name or a number, or a power or index of one (the tags stripped).
_ONE_TERM = re.compile("^[\\w.,'\u2032]+$")
_SCRIPTS = {"msup": ("sup",), "msub": ("sub",), "mover": ("sup",), "munder": ("sub",),
            "msubsup": ("sub", "sup"), "munderover": ("sub", "sup")}  # fmt: skip


def linear(element: Element) -> str:
    """A `math` element as HTML text: the formula on one line, spaces tidied."""
    return re.sub(r"\s+", " ", _write(element)).strip()


def _write(element: Element) -> str:
    name = name_of(element)
    children = list(element)
    if name in ("annotation", "annotation-xml", "mphantom", "none", "mprescripts"):
        return ""
    if name == "semantics":
        return _write(children[0]) if children else ""
    if name in ("mi", "mn", "mtext", "ms", "ci", "cn"):
        return html.escape("".join(element.itertext()).strip(), quote=False)
    if name == "mo":
        text = "".join(element.itertext()).strip()
        spaced = f" {text} " if text in _SPACED else text
        return html.escape(spaced, quote=False)
    if name == "mspace":
        return " "
    if name in _SCRIPTS and children:
        base = _write(children[0])
        scripts = "".join(
            f"<{tag}>{_write(child)}</{tag}>"
            for tag, child in zip(_SCRIPTS[name], children[1:], strict=False)
        )
        return base + scripts
    if name == "mfrac" and len(children) == 2:
        return f"{_term(children[0])}/{_term(children[1])}"
    if name == "msqrt":
        return f"√({_row(children)})"
    if name == "mroot" and len(children) == 2:
        return f"<sup>{_write(children[1])}</sup>√({_write(children[0])})"
    if name == "mfenced":
        opening = html.escape(attribute(element, "open", "("), quote=False)
        closing = html.escape(attribute(element, "close", ")"), quote=False)
        separator = html.escape((attribute(element, "separators", ",").strip() or ",")[0])
        return opening + f"{separator} ".join(_write(child) for child in children) + closing
    if name == "mtable":
        return "; ".join(_write(row) for row in children)
    if name in ("mtr", "mlabeledtr"):
        return ", ".join(_write(cell) for cell in children)
    return _row(children)  # math, mrow, mstyle, mtd, ...: their children in a row


def _row(children: list[Element]) -> str:
    return "".join(_write(child) for child in children)


def _term(element: Element) -> str:
    """One side of a fraction, in brackets unless it is one term."""
    written = _write(element).strip()
    return written if _ONE_TERM.match(_TAG.sub("", written)) else f"({written})"
