"""Moodle's calculated questions (`calculated`, `calculatedsimple`, `calculatedmulti`) as one
instance of each: what a learner in Moodle would see on one attempt. Moodle draws a question's
numbers from its data sets at random on every attempt; no question type here does, so the
import takes one draw, the first item of each data set the file carries (or, for a data set
without items, a value drawn from its range with a seed fixed by the question, so that the
same file always imports the same numbers), and the question's notes say which.

The question is rewritten as the Moodle question that instance is, and read as that:
`calculated` and `calculatedsimple` become `numerical` (each answer's formula evaluated
(`formula.evaluate`), its tolerance made absolute), `calculatedmulti` becomes `multichoice`
(each option's `{=formula}` evaluated and shown as Moodle shows it). In every text, `{name}`
is the wildcard's value and `{=formula}` the formula's."""

import copy
import math
import random
import re
from dataclasses import dataclass, field
from decimal import ROUND_DOWN, Decimal
from xml.etree.ElementTree import Element

from questions.bank.formats.foreign import NUMBER_LIMIT, NUMBER_PLACES, ParseError, Skipped
from questions.bank.formats.formula import WILDCARD, FormulaError, evaluate

TYPES = ("calculated", "calculatedsimple", "calculatedmulti")
LABEL = "calculated"
# `{=formula}`, whose formula may name wildcards in braces of their own.
_INLINE = re.compile(r"\{=((?:[^{}]|\{[^{}]*\})*)\}")
# More than any question shows; few enough that evaluating them all costs nothing.
MAX_FORMULAS = 200
# The tolerance types of Moodle's calculated answers, by number and by name.
_RELATIVE, _NOMINAL, _GEOMETRIC = ("1", "relative"), ("2", "nominal"), ("3", "geometric")


@dataclass
class Instance:
    """The question as the numerical or multichoice question one draw of it is."""

    element: Element
    type: str
    notes: list[str] = field(default_factory=list)


class _Refused(Exception):
    pass


@dataclass(frozen=True)
class _Value:
    number: float
    text: str  # as a learner sees it in the text


def instance(element: Element, key: str, place: str, line: int) -> Instance | Skipped | ParseError:
    question_type = (element.get("type") or "").strip().lower()
    inline = sum(len(_INLINE.findall(text.text or "")) for text in element.iter("text"))
    if inline + len(element.findall("answer")) > MAX_FORMULAS:
        return Skipped(line, LABEL, f"{place}: it has over {MAX_FORMULAS} formulas")
    try:
        values, drawn = _values(element, key)
        shown = {name: value.text for name, value in values.items()}
        numbers = {name: value.number for name, value in values.items()}
        result = copy.deepcopy(element)
        for definitions in result.findall("dataset_definitions"):
            result.remove(definitions)
        notes: list[str] = []
        answers = result.findall("answer")
        # The answers' formulas are evaluated below; a name stays the question's key.
        formulas = {id(answer.find("text")) for answer in answers}
        formulas.add(id(result.find("name/text")))
        for text in result.iter("text"):
            if text.text and id(text) not in formulas:
                text.text = _substitute(text.text, numbers, shown)
        if question_type == "calculatedmulti":
            _options(result, answers, numbers, shown, place, notes)
            new_type = "multichoice"
        else:
            for answer in answers:
                _number(answer, numbers, place, notes)
            new_type = "numerical"
    except _Refused as refused:
        return Skipped(line, LABEL, f"{place}: {refused}")
    result.set("type", new_type)
    if values:
        listed = ", ".join(f"{name} = {value.text}" for name, value in values.items())
        source = (
            "each data set's first item"
            if not drawn
            else f"drawn with a fixed seed from the range of {', '.join(drawn)}, which the "
            "file gives no items for"
            + (", and the other data sets' first item" if len(drawn) < len(values) else "")
        )
        notes.insert(
            0,
            f"{place}: Moodle draws its numbers at random on every attempt; one instance is "
            f"imported, with {listed} ({source})",
        )
    return Instance(result, new_type, notes)


def _values(element: Element, key: str) -> tuple[dict[str, _Value], list[str]]:
    values: dict[str, _Value] = {}
    drawn: list[str] = []
    for definition in element.findall("dataset_definitions/dataset_definition"):
        name = (definition.findtext("name/text") or "").strip()
        if not name:
            continue
        items: list[tuple[int, str]] = []
        for order, item in enumerate(definition.findall("dataset_items/dataset_item")):
            # The first item is the one numbered 1 (the lowest number), else the first written.
            label = (item.findtext("number") or "").strip()
            rank = int(label) if label.isdecimal() and len(label) < 10 else 10**10 + order
            items.append((rank, item.findtext("value") or ""))
        if items:
            text = min(items)[1].strip()
            value = _finite(text)
            if value is None:
                raise _Refused(f"its data set {{{name}}} has the item {text!r}, not a number")
            values[name] = _Value(value, text)
        else:
            values[name] = _draw(definition, name, key)
            drawn.append(f"{{{name}}}")
    return values, drawn


def _finite(text: str) -> float | None:
    try:
        number = float(text.strip())
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _draw(definition: Element, name: str, key: str) -> _Value:
    """A value from the data set's range, as Moodle draws one, with a seed of this question
    and data set: the same file always gives the same value."""
    low = _finite(definition.findtext("minimum/text") or "")
    high = _finite(definition.findtext("maximum/text") or "")
    decimals = (definition.findtext("decimals/text") or "0").strip()
    if low is None or high is None or low > high or not decimals.isdecimal():
        raise _Refused(f"its data set {{{name}}} has no items and no range to draw from")
    places = min(int(decimals), 10)
    # Not a secret: a draw that importing the same file again repeats.
    draw = random.Random(f"{key}\x1f{name}").random()  # noqa: S311
    distribution = (definition.findtext("distribution/text") or "uniform").strip().lower()
    if distribution == "loguniform" and low > 0:
        number = math.exp(math.log(low) + draw * (math.log(high) - math.log(low)))
    else:
        number = low + draw * (high - low)
    text = f"{number:.{places}f}"
    return _Value(float(text), text)


def _substitute(
    text: str,
    numbers: dict[str, float],
    shown: dict[str, str],
    length: str | None = None,
    form: str | None = None,
) -> str:
    """A text with its `{=formula}`s evaluated (shown to `length` decimals or significant
    figures, per `form`, as Moodle shows an option) and its wildcards' values in."""

    def formula(match: re.Match[str]) -> str:
        try:
            return formatted(evaluate(match.group(1), numbers), length, form)
        except FormulaError as error:
            raise _Refused(
                f"its formula {{={match.group(1)}}} cannot be evaluated: {error}"
            ) from None

    text = _INLINE.sub(formula, text)
    return WILDCARD.sub(lambda match: shown.get(match.group(1), match.group(0)), text)


def formatted(value: float, length: str | None = None, form: str | None = None) -> str:
    """A number as Moodle shows it: to `length` decimals (`form` 1) or significant figures
    (`form` 2); without a length, as PHP writes a float (14 significant figures)."""
    if length is None or not length.strip().isdecimal():
        return _plain(Decimal(f"{value:.14g}"))
    places = min(int(length), 15)
    if (form or "1").strip() == "2" and places > 0 and value != 0:
        decimals = places - 1 - math.floor(math.log10(abs(value)))
        return f"{round(value, decimals):.{max(decimals, 0)}f}"
    return f"{value:.{places}f}"


def _plain(value: Decimal) -> str:
    text = f"{value:f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _options(
    question: Element,
    answers: list[Element],
    numbers: dict[str, float],
    shown: dict[str, str],
    place: str,
    notes: list[str],
) -> None:
    """calculatedmulti: each option's text with its formulas evaluated, shown as Moodle shows
    it. Two options that show the same are one to a learner: a wrong one that repeats
    another wrong one is dropped (noted); one that repeats a right one makes it ambiguous."""
    seen: dict[str, bool] = {}
    for answer in answers:
        text = answer.find("text")
        if text is None or not text.text:
            continue
        text.text = _substitute(
            text.text,
            numbers,
            shown,
            answer.findtext("correctanswerlength"),
            answer.findtext("correctanswerformat"),
        )
        right = _fraction(answer) > 0
        if text.text in seen:
            if right or seen[text.text]:
                raise _Refused(
                    f"a right option and another show the same ({text.text!r}) for the values taken"
                )
            question.remove(answer)
            notes.append(
                f"{place}: a wrong option that shows {text.text!r}, as another does for the "
                "values taken, is left out"
            )
            continue
        seen[text.text] = right


def _fraction(answer: Element) -> float:
    try:
        return float((answer.get("fraction") or "0").strip())
    except ValueError:
        return 0.0


def _number(answer: Element, numbers: dict[str, float], place: str, notes: list[str]) -> None:
    """calculated: the answer's formula evaluated, its tolerance made absolute, as numerical
    answers have it."""
    text = answer.find("text")
    formula = (text.text or "").strip() if text is not None else ""
    if text is None or formula in ("", "*"):
        return
    inline = _INLINE.fullmatch(formula)
    try:
        value = evaluate(inline.group(1) if inline else formula, numbers)
    except FormulaError as error:
        raise _Refused(f"its answer {formula!r} cannot be evaluated: {error}") from None
    exact = Decimal(repr(value))
    if abs(exact) >= NUMBER_LIMIT:
        raise _Refused(f"its answer {formula!r} comes to {value:g}, too large for a number here")
    kept = exact.quantize(NUMBER_PLACES)
    if kept == 0 and value != 0:
        raise _Refused(
            f"its answer {formula!r} comes to {value:g}, too small for the 8 decimals a number "
            "keeps here"
        )
    text.text = _plain(kept)
    tolerance = _tolerance(answer, value, formula, place, notes)
    for element in answer.findall("tolerance") + answer.findall("tolerancetype"):
        answer.remove(element)
    written = Element("tolerance")
    written.text = _plain(tolerance.quantize(NUMBER_PLACES, rounding=ROUND_DOWN))
    answer.append(written)


def _tolerance(
    answer: Element, value: float, formula: str, place: str, notes: list[str]
) -> Decimal:
    """Moodle's tolerance of the answer as the ± that a number here has: relative (a share
    of the answer) and nominal (a ± already) exactly; geometric, from answer / (1 + t) to
    answer * (1 + t), as its narrower side, answer * t / (1 + t), so that no answer is taken
    as right that Moodle marks wrong (noted)."""
    given = (answer.findtext("tolerance") or "0").strip() or "0"
    tolerance = _finite(given)
    if tolerance is None:
        raise _Refused(f"its answer {formula!r} has the tolerance {given!r}, not a number")
    tolerance = abs(tolerance)
    kind = (answer.findtext("tolerancetype") or "1").strip().lower() or "1"
    if kind in _NOMINAL:
        return Decimal(repr(tolerance))
    if kind in _GEOMETRIC:
        width = abs(value) * tolerance / (1 + tolerance)
        notes.append(
            f"{place}: Moodle's geometric tolerance of {given} (from the answer divided by "
            f"{1 + tolerance:g} to the answer times {1 + tolerance:g}) is taken as "
            f"± {formatted(width)}, its narrower side: an answer a little above that range, "
            "which Moodle accepts, is wrong here"
        )
        return Decimal(repr(width))
    if kind not in _RELATIVE:
        raise _Refused(
            f"its answer {formula!r} has the tolerance type {kind!r}, which Moodle has not"
        )
    return Decimal(repr(abs(value) * tolerance))
