"""QTI template (randomised) items as one instance each: what a learner sees on one attempt.
QTI draws an item's template values anew for each attempt; no question type here does, so
the import runs its template processing once (`qti_expressions`), with a seed fixed by the
item, so that importing the same file again gives the same instance, and the report names
the values taken.

The instance is the item with its values in, and no template left, read by the item
reader as any other item (`read_instance`):

- a `printedVariable` is its variable's value as text (`qti_printed`: its `format`, QTI's
  printf subset, or as Moodle writes a number; `base` for integers; `delimiter` between a
  container's);
- a MathML `mi` (or `ci`) naming a math variable is its value, and one written `name[i]`
  the value of the list `name` at place `i`, counted from 0 (`_by_index`); a MathML
  annotation (the formula's source in another notation) is left out;
- a part shown or hidden by a template variable (`templateBlock`, `templateInline`, a
  choice with a `templateIdentifier`) is kept, without its wrapper, or left out;
- a correct response set by `setCorrectResponse` is the response's correct response; a
  response without one, that the response processing compares with a template variable
  (`match`, `equal`, `equalRounded`, `stringMatch`), takes that comparison's value;
- a number's tolerance is read from the comparison (`equal`'s absolute or relative
  tolerance, `equalRounded`'s rounding) and given to its blank (`tolerate`).

Refused, with the reason: an item computed by a computer algebra system (QTIWorks'
MathAssess), and anything the evaluator refuses. An adaptive item comes here as its one
attempt (`qti_adaptive`)."""

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from decimal import Decimal
from xml.etree.ElementTree import Element

from questions.bank.formats.foreign import (
    ForeignQuestion,
    ParseError,
    Skipped,
    parse_number,
)
from questions.bank.formats.qti_compare import CompareError, rounded, within
from questions.bank.formats.qti_expressions import bounds, evaluate, run
from questions.bank.formats.qti_names import attribute, name_of
from questions.bank.formats.qti_printed import formatted, listed, plain, printed
from questions.bank.formats.qti_values import (
    Container,
    Declaration,
    State,
    TemplateError,
    Value,
    declarations,
    is_number,
    parse_value,
)

Parsed = ForeignQuestion | Skipped | ParseError
# An instance of several interactions may come back as a case study's questions.
Read = Parsed | list[Parsed]
LABEL = "template item"
PARTS = frozenset({"templateDeclaration", "templateProcessing"})
_CAS_CLASSES = ("maxima", "scriptrule", "casprocess", "cascompare", "cascondition", "mathassess")
_COMPARISONS = frozenset({"match", "equal", "equalRounded", "stringMatch"})
_INDEXED = re.compile(r"([A-Za-z_][\w.-]*)\s*\[\s*([\w.-]+)\s*\]")
_LISTED = 30


def is_template(root: Element) -> bool:
    return any(name_of(child) in PARTS for child in root)


@dataclass
class _Number:
    """A numeric response's key and the ± its comparison allows, with why."""

    value: Decimal
    tolerance: Decimal
    note: str = ""


@dataclass
class Instance:
    element: Element
    state: State
    known: dict[str, Declaration]
    numbers: dict[str, _Number] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def read(
    root: Element,
    place: str,
    number: int,
    key: str,
    read_instance: Callable[[Element], Read],
) -> Read:
    """The item's instance as a question (read by `read_instance`), or why not."""
    reason = _not_run(root)
    if reason:
        return Skipped(number, LABEL, f"{place}: {reason}")
    try:
        found = instance(root, key)
    except TemplateError as error:
        return Skipped(number, LABEL, f"{place}: {error}")
    result = read_instance(found.element)
    if isinstance(result, list):
        if found.numbers:
            # Tolerances are set on one question's blanks (`tolerate`), not across a case study.
            reason = "its several interactions hold template numbers with a tolerance"
            return Skipped(number, LABEL, f"{place}: {reason}, which is not read yet")
        first = next((part for part in result if isinstance(part, ForeignQuestion)), None)
        if first is not None:
            first.notes[0:0] = [f"{place}: {note}" for note in found.notes]
        return result
    if not isinstance(result, ForeignQuestion):
        return result
    try:
        tolerate(result, found)
    except TemplateError as error:
        return Skipped(number, LABEL, f"{place}: {error}")
    result.notes[0:0] = [f"{place}: {note}" for note in found.notes]
    return result


def _not_run(root: Element) -> str:
    for element in root.iter():
        tag = element.tag if isinstance(element.tag, str) else ""
        classes = attribute(element, "class").lower()
        namespaced = [key for key in element.attrib if "mathassess" in key.lower()]
        if (
            "mathassess" in tag.lower()
            or namespaced
            or (name_of(element) == "customOperator" and any(c in classes for c in _CAS_CLASSES))
        ):
            return (
                "its values are computed by a computer algebra system (MathAssess) which we "
                "do not run"
            )
    return ""


def instance(root: Element, key: str) -> Instance:
    """The item with one draw of its values in; TemplateError says why there is none."""
    known = declarations(root)
    responses = {
        attribute(child, "identifier").strip(): child
        for child in root
        if name_of(child) == "responseDeclaration"
    }
    declared = {name: _declared(response) for name, response in responses.items()}
    state = run(root, known, {k: v for k, v in declared.items() if v is not None}, key)
    element = copy.deepcopy(root)
    for child in [c for c in element if name_of(c) in PARTS]:
        element.remove(child)
    found = Instance(element, state, known)
    _rebuild(element, lambda node: _replacement(node, state, known, found.notes))
    _check_records(responses)
    _responses(found, declared)
    values = [f"{name} = {listed(state.variables[name])}" for name in list(known)[:_LISTED]]
    more = f" and {len(known) - _LISTED} more" if len(known) > _LISTED else ""
    draw = (
        f"; draw {state.draws}, the first whose template constraints hold"
        if state.draws > 1
        else ""
    )
    found.notes.insert(
        0,
        "QTI draws its values anew for each attempt; imported one instance: "
        f"{', '.join(values)}{more} (drawn with a seed fixed by the item, so that importing "
        f"it again gives the same{draw})",
    )
    return found


def _declared(response: Element) -> Value:
    kind = attribute(response, "baseType").strip() or "string"
    for child in response:
        if name_of(child) == "correctResponse":
            values = [parse_value(v.text or "", kind) for v in child if name_of(v) == "value"]
            if len(values) == 1 and attribute(response, "cardinality", "single") == "single":
                return values[0]
            ordered = attribute(response, "cardinality") == "ordered"
            return Container(ordered, tuple(v for v in values if isinstance(v, int | float | str)))
    return None


# The body ---------------------------------------------------------------------------------


Piece = str | Element


def _rebuild(parent: Element, replace: Callable[[Element], list[Piece] | None]) -> None:
    """Each element under `parent` for which `replace` gives pieces (texts and elements)
    stands replaced by them, the text around it kept."""
    pieces: list[Piece] = [parent.text] if parent.text else []
    for child in list(parent):
        tail, child.tail = child.tail, None
        pieces.extend(_expand(child, replace))
        if tail:
            pieces.append(tail)
    for child in list(parent):
        parent.remove(child)
    parent.text = None
    last: Element | None = None
    for piece in pieces:
        if isinstance(piece, Element):
            parent.append(piece)
            last = piece
        elif last is None:
            parent.text = (parent.text or "") + piece
        else:
            last.tail = (last.tail or "") + piece


def _expand(node: Element, replace: Callable[[Element], list[Piece] | None]) -> list[Piece]:
    pieces = replace(node)
    if pieces is None:
        _rebuild(node, replace)
        return [node]
    expanded: list[Piece] = []
    for piece in pieces:
        expanded.extend([piece] if isinstance(piece, str) else _expand(piece, replace))
    return expanded


def _content(node: Element) -> list[Piece]:
    """An element's content without the element: its text, its children and their tails."""
    pieces: list[Piece] = [node.text] if node.text else []
    for child in list(node):
        tail, child.tail = child.tail, None
        pieces.append(child)
        if tail:
            pieces.append(tail)
    return pieces


def _replacement(
    node: Element, state: State, known: dict[str, Declaration], notes: list[str]
) -> list[Piece] | None:
    kind = name_of(node)
    template = attribute(node, "templateIdentifier").strip()
    if template:
        if template not in state.variables:
            raise TemplateError(
                f"its body shows or hides a part by {template!r}, which is no template variable"
            )
        value = state.variables[template]
        identifier = attribute(node, "identifier").strip()
        matches = value == identifier or (
            isinstance(value, Container) and identifier in value.items
        )
        shown = matches if attribute(node, "showHide", "show").strip() != "hide" else not matches
        if kind in ("templateBlock", "templateInline"):
            return _content(node) if shown else []
        if not shown:
            return []
        return None
    if kind == "printedVariable":
        return [printed(node, state, known)]
    if kind in ("annotation", "annotation-xml"):
        return []
    if kind in ("mi", "ci") and len(node) == 0:
        text = (node.text or "").strip()
        variable = known.get(text)
        if variable is not None and variable.math_variable:
            node.text = listed(state.variables[text], " ")
        indexed = _INDEXED.fullmatch(text)
        if indexed and indexed.group(1) in known and known[indexed.group(1)].math_variable:
            node.text = _by_index(text, indexed.group(1), indexed.group(2), state, notes)
    if kind == "param":
        named = known.get(attribute(node, "value").strip())
        if named is not None and named.param_variable:
            node.set("value", listed(state.variables[named.identifier], " "))
    return None


# Responses --------------------------------------------------------------------------------


def _by_index(text: str, name: str, index_text: str, state: State, notes: list[str]) -> str:
    """The value a MathML identifier written `name[i]` shows: the value of the container
    `name` at place `i` (an integer or an integer template variable), counted from 0.

    QTI does not define the notation, and QTIWorks shows such an identifier as written. The
    items that use it draw `i` from 0 to one less than the container's size (UPMC's, among
    QTIWorks' samples), so that the first value is at 0 (QTI's `index` operator counts from
    1, but these items would then never show their first value and fail one draw in n)."""
    values = state.variables[name]
    if not isinstance(values, Container):
        raise TemplateError(f"its MathML shows {text!r}, but {name} holds one value, not a list")
    index: Value = int(index_text) if index_text.isdecimal() else state.variables.get(index_text)
    if not isinstance(index, int) or isinstance(index, bool):
        raise TemplateError(
            f"its MathML shows {text!r}, whose index {index_text!r} is no integer template value"
        )
    if not 0 <= index < len(values.items):
        raise TemplateError(
            f"its MathML shows {text!r} with {index_text} = {index}, outside the "
            f"{len(values.items)} values of {name} (counted from 0)"
        )
    notes.append(
        f"its MathML's {text!r} (a notation QTI does not define) is shown as the value of "
        f"{name} at place {index} counted from 0: {listed(values.items[index])}"
    )
    return formatted(values.items[index], "")


def _check_records(responses: dict[str, Element]) -> None:
    for identifier, response in responses.items():
        if attribute(response, "cardinality").strip() == "record":
            raise TemplateError(
                f"its response {identifier} is a record (a number with its precision), which "
                "no question here has"
            )


def _responses(found: Instance, declared: dict[str, Value]) -> None:
    """The responses' correct responses as this draw has them, and their numbers' keys."""
    element, state = found.element, found.state
    processing = next((c for c in element if name_of(c) == "responseProcessing"), None)
    for response in [c for c in element if name_of(c) == "responseDeclaration"]:
        identifier = attribute(response, "identifier").strip()
        kind = attribute(response, "baseType").strip()
        numeric = kind in ("integer", "float")
        value = state.correct.get(identifier)
        comparison, other = _comparison(processing, identifier, found)
        if value is None and comparison is not None and declared.get(identifier) is None:
            value = other
        if value is None:
            continue
        if numeric:
            value = _numeric_key(found, identifier, value, comparison)
        _write_correct(response, value)
    if processing is not None:
        # Our tolerances are the blanks' own (`tolerate`): the reader is to find none.
        for node in processing.iter():
            if name_of(node) == "equal":
                for name in ("toleranceMode", "tolerance-mode", "tolerance"):
                    node.attrib.pop(name, None)


def _comparison(
    processing: Element | None, identifier: str, found: Instance
) -> tuple[Element | None, Value]:
    """The first comparison of the response in the processing with a value this draw
    gives (the response's correct response, or one computed from template variables)."""
    if processing is None:
        return None, None
    for node in processing.iter():
        if name_of(node) not in _COMPARISONS or len(node) != 2:
            continue
        sides = list(node)
        for mine, other in (sides, sides[::-1]):
            if name_of(mine) != "variable" or attribute(mine, "identifier").strip() != identifier:
                continue
            names = {name_of(e) for e in other.iter()}
            if not names & {"variable", "correct"}:
                continue
            try:
                value = evaluate(other, found.state, found.known)
            except TemplateError:
                continue
            return node, value
    return None, None


def _numeric_key(
    found: Instance, identifier: str, value: Value, comparison: Element | None
) -> Value:
    if not is_number(value):
        raise TemplateError(f"the correct response of {identifier} is {value!r}, not a number")
    number = float(value)  # type: ignore[arg-type]
    tolerance, note = 0.0, ""
    if comparison is not None and name_of(comparison) == "equalRounded":
        mode = attribute(comparison, "roundingMode", "significantFigures").strip()
        try:
            band = rounded(number, attribute(comparison, "figures"), mode)
        except CompareError as error:
            raise TemplateError(str(error)) from None
        number, tolerance, note = band.number, band.tolerance, band.note
    elif comparison is not None and name_of(comparison) == "equal":
        mode = attribute(comparison, "toleranceMode", "exact").strip()
        if mode in ("absolute", "relative"):
            low, high = bounds(comparison, number, found.state, found.known)
            given = f"{attribute(comparison, 'tolerance')} ({mode})"
            band = within(number, number - low, high - number, given)
            tolerance, note = band.tolerance, band.note
    key: int | float = int(number) if number.is_integer() and abs(number) < 1e15 else number
    # As the correct response is written, and the reader reads it back.
    exact = parse_number(plain(key))
    if exact is None:
        raise TemplateError(f"the correct response of {identifier}, {number:g}, is too large")
    allowed = parse_number(f"{tolerance:.8f}") or Decimal(0)
    found.numbers[identifier] = _Number(exact, allowed, note)
    return key


def _write_correct(response: Element, value: Value) -> None:
    for child in [c for c in response if name_of(c) == "correctResponse"]:
        response.remove(child)
    namespace = response.tag[: response.tag.index("}") + 1] if "}" in response.tag else ""
    three = name_of(response) != response.tag.rpartition("}")[2]
    correct = Element(f"{namespace}{'qti-correct-response' if three else 'correctResponse'}")
    items = value.items if isinstance(value, Container) else (value,)
    for item in items:
        written = Element(f"{namespace}{'qti-value' if three else 'value'}")
        written.text = formatted(item, "")  # type: ignore[arg-type]
        correct.append(written)
    place = next((i for i, c in enumerate(response) if name_of(c) != "defaultValue"), len(response))
    response.insert(place, correct)


# Tolerances -------------------------------------------------------------------------------


def tolerate(question: ForeignQuestion, found: Instance) -> None:
    """Each numeric blank's tolerance, as its response's comparison allows."""
    if not found.numbers:
        return
    body = next((c for c in found.element if name_of(c) == "itemBody"), None)
    interactions = [
        node
        for node in (body.iter() if body is not None else ())
        if name_of(node).endswith("Interaction") and name_of(node) != "endAttemptInteraction"
    ]
    if question.kind not in ("fillin", "dropdown"):
        return
    blanks = question.typed_answers()
    if len(blanks) != len(interactions):
        raise TemplateError("its blanks could not be matched to its responses")
    for place, (node, blank) in enumerate(zip(interactions, blanks, strict=True)):
        wanted = found.numbers.get(attribute(node, "responseIdentifier").strip())
        # A slider's blank has the tolerance of its scale, read by the item reader.
        if wanted is None or blank is None or name_of(node) != "textEntryInteraction":
            continue
        if attribute(node, "base", "10").strip() != "10":
            continue  # a text blank of the key in its base (qti_bases)
        if blank.number != wanted.value:
            raise TemplateError("its blanks could not be matched to its responses")
        kept = replace(blank, tolerance=wanted.tolerance)
        if question.kind == "fillin":
            question.blanks[place] = kept
        else:
            question.gaps[place] = replace(question.gaps[place], typed=kept)
        if wanted.note:
            question.notes.append(f"{blank.label}: {wanted.note}")
