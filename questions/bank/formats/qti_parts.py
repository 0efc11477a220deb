"""The item types made of parts as QTI 3.0: for each, the response declarations, what goes
under the stem (its interactions, and its rationales as feedback shown after answering), and
per part the condition that it is right, from which `qti_export` makes the item's score.

- an ordering: a `qti-order-interaction` of its steps (`min-choices` and `max-choices` the
  steps that belong, when some do not), an ordered response;
- a matching: a `qti-match-interaction`, the prompts and the pool its two match sets, each
  answer's `match-max` the number of prompts when answers may be reused (else 1);
- a yes/no series: a tabular `qti-match-interaction` of the statements and "Yes", "No";
- a fill-in: a `qti-text-entry-interaction` per blank after its label, the accepted texts a
  mapping (with their case rule), those with wildcards a `qti-pattern-match`, a number
  compared within its tolerance (`qti-equal`; several right numbers one `qti-equal` each in
  a `qti-or`), a common wrong answer's feedback shown when it is given;
- drop-downs: the exhibit with a `qti-inline-choice-interaction` at each [[n]], or for a
  gap typed in a `qti-text-entry-interaction` whose response is a blank's.
"""

import html
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any
from xml.etree.ElementTree import Element, SubElement

from questions.bank.formats.qti_typed import exact_texts, wildcard_pattern
from questions.bank.formats.qti_xml import (
    append_html,
    base_value,
    feedback_block,
    rationale_in_choice,
    variable,
)
from questions.grading import has_wildcard, parse_number
from questions.item_rules import GAP_MARKER
from questions.markup import render_markdown, render_markdown_inline

YES, NO = "YES", "NO"


@dataclass
class Parts:
    declarations: list[Element] = field(default_factory=list)
    body: list[Element] = field(default_factory=list)
    # A condition per part, true when that part is right.
    right: list[Element] = field(default_factory=list)
    # All or nothing, when it is more than every part right (an ordering placing a step
    # that does not belong, a matching with a pair too many).
    whole: Element | None = None
    # The feedbacks shown after any answer (the rationales), and those shown when a
    # condition holds (a common wrong answer given).
    shown: list[str] = field(default_factory=list)
    when: list[tuple[Element, str]] = field(default_factory=list)
    # One interaction, all of whose parts a standard template scores: "match_correct" (all
    # or nothing) or "map_response" (the response's mapping: a point per pair right).
    template: str = ""

    def rationale(self, identifier: str, element: dict[str, Any]) -> None:
        """A part's rationale as a feedback block under the interaction."""
        if element.get("rationale"):
            self.body.append(feedback_block(identifier, str(render_markdown(element["rationale"]))))
            self.shown.append(identifier)


def parts_of(question: dict[str, Any]) -> Parts:
    parts = _BUILDERS[question["kind"]](question)
    partial = question.get("scoring") == "partial"
    if parts.whole is not None and not partial:
        parts.template = "match_correct"
    return parts


def _declaration(identifier: str, cardinality: str, base_type: str, correct: list[str]) -> Element:
    declaration = Element(
        "qti-response-declaration",
        {"identifier": identifier, "cardinality": cardinality, "base-type": base_type},
    )
    values = SubElement(declaration, "qti-correct-response")
    for text in correct:
        SubElement(values, "qti-value").text = text
    return declaration


def _matches_correct(identifier: str) -> Element:
    match = Element("qti-match")
    variable(match, identifier)
    SubElement(match, "qti-correct", {"identifier": identifier})
    return match


def _inline(markdown: str) -> str:
    return str(render_markdown_inline(markdown))


def _ordering(question: dict[str, Any]) -> Parts:
    steps = question["steps"]
    ids = [f"S{number}" for number in range(1, len(steps) + 1)]
    placed = sorted((s["place"], sid) for sid, s in zip(ids, steps, strict=True) if "place" in s)
    order = [sid for _, sid in placed]
    parts = Parts()
    parts.declarations.append(_declaration("RESPONSE", "ordered", "identifier", order))
    attributes = {"response-identifier": "RESPONSE", "shuffle": "true"}
    if len(order) < len(steps):
        # Choose K of N: the learner orders as many steps as belong.
        attributes |= {"min-choices": str(len(order)), "max-choices": str(len(order))}
    interaction = Element("qti-order-interaction", attributes)
    for sid, step in zip(ids, steps, strict=True):
        choice = SubElement(interaction, "qti-simple-choice", {"identifier": sid})
        append_html(choice, _inline(step["text"]))
        if step.get("rationale"):
            rationale_in_choice(choice, sid, _inline(step["rationale"]))
            parts.shown.append(sid)
    parts.body.append(interaction)
    for place, sid in enumerate(order, 1):
        match = Element("qti-match")
        variable(SubElement(match, "qti-index", {"n": str(place)}), "RESPONSE")
        base_value(match, "identifier", sid)
        parts.right.append(match)
    parts.whole = _matches_correct("RESPONSE")
    return parts


def _pairs(
    parts: Parts,
    prompts: list[tuple[str, str]],
    answers: list[tuple[str, str]],
    correct: list[str],
    reuse: bool,
    partial: bool,
    tabular: bool = False,
) -> None:
    """A match interaction of prompts to answers, (identifier, inline HTML) each, its
    response the directed pairs "prompt answer"."""
    declaration = _declaration("RESPONSE", "multiple", "directedPair", correct)
    if partial:
        # A point per pair right, none for a wrong one: the template map_response.
        mapping = SubElement(declaration, "qti-mapping", {"default-value": "0", "lower-bound": "0"})
        for pair in correct:
            SubElement(mapping, "qti-map-entry", {"map-key": pair, "mapped-value": "1"})
        parts.template = "map_response"
    parts.declarations.append(declaration)
    attributes = {
        "response-identifier": "RESPONSE",
        "shuffle": "false" if tabular else "true",
        "max-associations": str(len(prompts)),
    }
    if tabular:
        attributes["class"] = "qti-match-tabular"
    interaction = Element("qti-match-interaction", attributes)
    for items, match_max in ((prompts, 1), (answers, len(prompts) if reuse else 1)):
        match_set = SubElement(interaction, "qti-simple-match-set")
        for identifier, markup in items:
            choice = SubElement(
                match_set,
                "qti-simple-associable-choice",
                {"identifier": identifier, "match-max": str(match_max)},
            )
            append_html(choice, markup)
    parts.body.append(interaction)
    for pair in correct:
        member = Element("qti-member")
        base_value(member, "directedPair", pair)
        variable(member, "RESPONSE")
        parts.right.append(member)
    parts.whole = _matches_correct("RESPONSE")


def _matching(question: dict[str, Any]) -> Parts:
    parts = Parts()
    prompts = [(f"P{n}", _inline(p["text"])) for n, p in enumerate(question["prompts"], 1)]
    pool = [(f"A{n}", _inline(a["text"])) for n, a in enumerate(question["pool"], 1)]
    correct = [f"P{n} A{p['answer']}" for n, p in enumerate(question["prompts"], 1)]
    reuse = bool(question.get("reuse_answers"))
    _pairs(parts, prompts, pool, correct, reuse, question.get("scoring") == "partial")
    for n, prompt in enumerate(question["prompts"], 1):
        parts.rationale(f"P{n}", prompt)
    for n, answer in enumerate(question["pool"], 1):
        parts.rationale(f"A{n}", answer)
    return parts


def _yes_no(question: dict[str, Any]) -> Parts:
    parts = Parts()
    statements = question["statements"]
    rows = [(f"S{n}", _inline(s["text"])) for n, s in enumerate(statements, 1)]
    correct = [f"S{n} {YES if s['answer'] == 'yes' else NO}" for n, s in enumerate(statements, 1)]
    partial = question.get("scoring") == "partial"
    _pairs(parts, rows, [(YES, "Yes"), (NO, "No")], correct, True, partial, tabular=True)
    for n, statement in enumerate(statements, 1):
        parts.rationale(f"S{n}", statement)
    return parts


def _fill_in(question: dict[str, Any]) -> Parts:
    parts = Parts()
    for n, blank in enumerate(question["blanks"], 1):
        response = f"BLANK_{n}"
        units = blank.get("units", [])
        paragraph = Element("p")
        append_html(paragraph, f"{_inline(blank['label'])}: ")
        entry = SubElement(
            paragraph, "qti-text-entry-interaction", {"response-identifier": response}
        )
        if "number" in blank and units:
            entry.tail = f" {units[0]}"
        parts.body.append(paragraph)
        parts.body += _typed(parts, response, blank)
        parts.rationale(response, blank)
    return parts


def _typed(parts: Parts, response: str, blank: dict[str, Any]) -> list[Element]:
    """A blank's (or a gap typed in's) response: its declaration and the condition that it
    is right are added to `parts`; returned, the feedback blocks of its common wrong answers,
    each shown when that answer is given."""
    if "number" in blank:
        parts.declarations.append(
            _declaration(response, "single", "float", [_number(blank["number"])])
        )
        more = bool(blank.get("more_numbers"))
        right = _within(response, blank.get("tolerance", 0), absolute=more)
        if more:
            # Any of the right numbers, each within its own tolerance.
            either = Element("qti-or")
            either.append(right)
            for other in blank["more_numbers"]:
                either.append(_near(response, other["number"], other.get("tolerance", 0)))
            right = either
        parts.right.append(right)
    else:
        wild = blank.get("wildcards") is True
        exact = exact_texts(blank["accepted"]) if wild else blank["accepted"]
        declaration = _declaration(response, "single", "string", blank["accepted"][:1])
        case = "true" if blank.get("match_case") else "false"
        conditions = []
        if exact:
            mapping = SubElement(
                declaration,
                "qti-mapping",
                {"default-value": "0", "lower-bound": "0", "upper-bound": "1"},
            )
            for accepted in exact:
                SubElement(
                    mapping,
                    "qti-map-entry",
                    {"map-key": accepted, "mapped-value": "1", "case-sensitive": case},
                )
            greater = Element("qti-gt")
            SubElement(greater, "qti-map-response", {"identifier": response})
            base_value(greater, "float", "0")
            conditions.append(greater)
        parts.declarations.append(declaration)
        if wild:
            conditions += [
                pattern
                for text in blank["accepted"]
                if (pattern := _pattern(response, blank, text)) is not None
            ]
        if len(conditions) == 1:
            parts.right.append(conditions[0])
        else:
            either = Element("qti-or")
            either.extend(conditions)
            parts.right.append(either)
    blocks = []
    for k, wrong in enumerate(blank.get("feedback", []), 1):
        condition = _given(response, blank, wrong["answer"])
        if condition is None:
            continue
        identifier = f"{response}_WRONG_{k}"
        blocks.append(feedback_block(identifier, f"<p>{html.escape(wrong['feedback'])}</p>"))
        parts.when.append((condition, identifier))
    return blocks


def _within(response: str, tolerance: Any, *, absolute: bool = False) -> Element:
    """The number given is the right one within the tolerance, both ends included. Beside
    other right numbers even a tolerance of 0 is written out: a reader taking the first
    tolerance it finds takes this one's."""
    equal = _equal(response, tolerance, absolute=absolute)
    SubElement(equal, "qti-correct", {"identifier": response})
    return equal


def _near(response: str, number: Any, tolerance: Any) -> Element:
    """The number given is `number` within `tolerance`, both ends included."""
    equal = _equal(response, tolerance)
    base_value(equal, "float", _number(number))
    return equal


def _equal(response: str, tolerance: Any, *, absolute: bool = False) -> Element:
    """A `qti-equal` of the response with what the caller adds: an absolute tolerance on
    both sides when there is one (or `absolute` asks for it even at 0), else exact."""
    if Decimal(str(tolerance)) or absolute:
        both = _number(tolerance)
        attributes = {"tolerance-mode": "absolute", "tolerance": f"{both} {both}"}
    else:
        attributes = {"tolerance-mode": "exact"}
    equal = Element("qti-equal", attributes)
    variable(equal, response)
    return equal


def _pattern(response: str, blank: dict[str, Any], text: str) -> Element | None:
    """A wildcard text as the pattern the response must match (None for a text without a
    wildcard, which the mapping holds)."""
    if not has_wildcard(text):
        return None
    pattern = wildcard_pattern(
        text,
        match_case=blank.get("match_case") is True,
        ignore_spaces=blank.get("ignore_spaces") is True,
    )
    match = Element("qti-pattern-match", {"pattern": pattern})
    variable(match, response)
    return match


def _given(response: str, blank: dict[str, Any], answer: str) -> Element | None:
    """The condition that the learner gave this (wrong) answer."""
    if "number" in blank:
        value = parse_number(answer, blank.get("units", []))
        if value is None:
            return None
        equal = Element("qti-equal", {"tolerance-mode": "exact"})
        variable(equal, response)
        base_value(equal, "float", _number(value))
        return equal
    if blank.get("wildcards") and has_wildcard(answer):
        return _pattern(response, blank, answer)
    case = "true" if blank.get("match_case") else "false"
    match = Element("qti-string-match", {"case-sensitive": case})
    variable(match, response)
    base_value(match, "string", answer)
    return match


def _dropdown(question: dict[str, Any]) -> Parts:
    parts = Parts()
    gaps = question["gaps"]
    choices: dict[str, list[tuple[str, str]]] = {}
    wrong_blocks: list[Element] = []
    for n, gap in enumerate(gaps, 1):
        response = f"GAP_{n}"
        if not gap.get("choices"):  # typed in: a text entry in its place
            wrong_blocks += _typed(parts, response, gap)
            continue
        ids = [f"G{n}_{k}" for k in range(1, len(gap["choices"]) + 1)]
        right = next(cid for cid, c in zip(ids, gap["choices"], strict=True) if c["correct"])
        parts.declarations.append(_declaration(response, "single", "identifier", [right]))
        parts.right.append(_matches_correct(response))
        choices[response] = [
            (cid, _plain(c["text"])) for cid, c in zip(ids, gap["choices"], strict=True)
        ]
    exhibit = GAP_MARKER.sub(
        lambda match: (
            f'<qti-inline-choice-interaction response-identifier="GAP_{int(match.group(1))}" '
            'shuffle="false"></qti-inline-choice-interaction>'
            if f"GAP_{int(match.group(1))}" in choices
            else f'<qti-text-entry-interaction response-identifier="GAP_{int(match.group(1))}">'
            "</qti-text-entry-interaction>"
        ),
        str(render_markdown(question.get("exhibit", ""))),
    )
    container = Element("div")
    append_html(container, exhibit)
    for interaction in container.iter("qti-inline-choice-interaction"):
        for cid, text in choices.get(interaction.get("response-identifier", ""), []):
            SubElement(interaction, "qti-inline-choice", {"identifier": cid}).text = text
    parts.body.append(container)
    parts.body += wrong_blocks
    for n, gap in enumerate(gaps, 1):
        parts.rationale(f"G{n}", gap)
        for k, choice in enumerate(gap.get("choices", []), 1):
            parts.rationale(f"G{n}_{k}", choice)
    return parts


def _plain(markdown: str) -> str:
    """What a reader sees of the Markdown: a drop-down's choice holds text only."""
    holder = Element("x")
    append_html(holder, _inline(markdown))
    return " ".join("".join(holder.itertext()).split())


def _number(value: Any) -> str:
    number = Decimal(str(value))
    return format(number.normalize(), "f") if number else "0"


_BUILDERS: dict[str, Callable[[dict[str, Any]], Parts]] = {
    "ordering": _ordering,
    "matching": _matching,
    "yesno": _yes_no,
    "fillin": _fill_in,
    "dropdown": _dropdown,
}
