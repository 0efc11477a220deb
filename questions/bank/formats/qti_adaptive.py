"""Adaptive QTI items (`adaptive="true"`) read as one attempt, or reported with why not.

QTI lets a learner answer an adaptive item again and again: its response processing keeps
what earlier attempts set (outcome variables, `numAttempts`, `completionStatus`) and says
when the item is complete. Many items are adaptive only to offer a hint or a worked solution
on request (an `endAttemptInteraction`), or to say more after a wrong try: their question
and their key are the same on every attempt. Such an item is read as its one attempt,
answered once, as our practice has it (the breakdown shows after one answer):

- a button that asks for a hint or the solution is no answer (the item reader drops it); a
  `feedbackBlock` or `modalFeedback` that the response processing shows on that request
  joins the explanation, titled by its button ("Show Solution": "Solution");
- feedback shown only after some attempts (by `numAttempts`, or by what earlier attempts
  set) or only once a hint or the solution was seen (a flag that only a request sets, the
  penalty's message) is left out; the penalty itself is not carried: here the hint and
  the solution show only after answering.

An item stays reported, nothing imported, when its question changes after an answer (an
interaction inside feedback, shown or hidden by an outcome: Monty Hall's second stage), or
when its score depends on the number of attempts, the time taken, `completionStatus` or an
outcome that earlier attempts set (read before this attempt sets it).

The analysis follows the response processing's conditions without running it: an outcome
set on one path depends on the tests that lead there and on the variables its value reads.
"""

import copy
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from xml.etree.ElementTree import Element

from questions.bank.formats.foreign import ForeignQuestion, ParseError, Skipped
from questions.bank.formats.qti_interactions import words
from questions.bank.formats.qti_names import attribute, name_of

Parsed = ForeignQuestion | Skipped | ParseError
# An attempt of several interactions may come back as a case study's questions.
Read = Parsed | list[Parsed]
LABEL = "adaptive item"
SCORE = "SCORE"
_ATTEMPTS = {"numAttempts": "the number of attempts", "duration": "the time taken"}
_BUILT_IN = frozenset({"numAttempts", "duration", "completionStatus"})
_FEEDBACK = frozenset({"feedbackBlock", "feedbackInline"})
_CHOICES = frozenset(
    {"simpleChoice", "inlineChoice", "simpleAssociableChoice", "gapText", "hottext"}
)
_NAMED = 5  # names listed in a reason
_BRANCHES = frozenset({"responseIf", "responseElseIf", "responseElse"})
_ASKING = re.compile(r"^\s*(?:show|view|see|get|reveal|display)\s+(?:the\s+|a\s+)?", re.I)


def is_adaptive(root: Element) -> bool:
    return attribute(root, "adaptive").strip() == "true"


class _Refusal(Exception):
    pass


@dataclass
class Attempt:
    """The item as one attempt (not adaptive any more), and what the report says of it."""

    element: Element
    notes: list[str] = field(default_factory=list)


def read(root: Element, place: str, number: int, read_attempt: Callable[[Element], Read]) -> Read:
    """The item's one attempt as a question (read by `read_attempt`), or why not."""
    try:
        attempt = one_attempt(root)
    except _Refusal as error:
        return Skipped(number, LABEL, f"{place}: an adaptive item: {error}")
    result = read_attempt(attempt.element)
    first = result if not isinstance(result, list) else next(iter(result), None)
    if isinstance(first, ForeignQuestion):
        first.notes[0:0] = [f"{place}: {note}" for note in attempt.notes]
    return result


# The response processing ----------------------------------------------------------------


@dataclass(frozen=True)
class _Test:
    test: Element
    holds: bool  # the branch taken is this test's (else a test before it, which failed)


@dataclass(frozen=True)
class _Set:
    """An outcome set on one path: the tests that lead there, and the request or flag that
    path waits on ("" for a path any answer may take)."""

    target: str
    rule: Element
    context: tuple[_Test, ...]
    waits: str


def _variables(expression: Element | None) -> set[str]:
    if expression is None:
        return set()
    return {
        attribute(node, "identifier").strip()
        for node in expression.iter()
        if name_of(node) == "variable"
    }


def _named(rule: Element) -> set[str]:
    """The values a rule names (`baseValue`s): the identifiers of the feedback it shows."""
    return {(n.text or "").strip() for n in rule.iter() if name_of(n) == "baseValue"}


class _Walk:
    """The outcomes the response processing sets, path by path, and the variables it reads
    before this attempt sets them (the ones earlier attempts, or the delivery, give)."""

    def __init__(self, waits: set[str]) -> None:
        self.waits = waits
        self.sets: list[_Set] = []
        self.early: dict[str, None] = {}

    def rules(
        self, rules: list[Element], context: tuple[_Test, ...], waits: str, assigned: set[str]
    ) -> set[str]:
        for rule in rules:
            kind = name_of(rule)
            if kind in ("setOutcomeValue", "lookupOutcomeValue"):
                target = attribute(rule, "identifier").strip()
                self._read(rule, waits, assigned)
                self.sets.append(_Set(target, rule, context, waits))
                assigned = assigned | {target}
            elif kind == "responseCondition":
                assigned = self._condition(rule, context, waits, assigned)
            elif kind == "responseProcessingFragment":
                assigned = self.rules(list(rule), context, waits, assigned)
        return assigned

    def _condition(
        self, rule: Element, context: tuple[_Test, ...], waits: str, assigned: set[str]
    ) -> set[str]:
        failed: list[_Test] = []
        paths: list[set[str]] = []
        otherwise = False
        for branch in rule:
            kind = name_of(branch)
            if kind not in _BRANCHES:
                continue
            children = list(branch)
            test: Element | None = None
            if kind == "responseElse":
                otherwise = True
            elif children:
                test, children = children[0], children[1:]
            else:
                continue
            self._read(test, waits, assigned)
            asked = waits or (self._asked(test) if test is not None else "")
            here = (*context, *failed, *([_Test(test, True)] if test is not None else []))
            after = self.rules(children, here, asked, set(assigned))
            # A request is never made in the one attempt: its branch is no path taken.
            if not asked:
                paths.append(after)
            if test is not None:
                failed.append(_Test(test, False))
        if otherwise and paths:
            return set.intersection(*paths)
        return assigned

    def _asked(self, test: Element) -> str:
        """The request (or flag) the test waits on: the variable itself, or one of the
        operands of an `and`."""
        operands = list(test) if name_of(test) == "and" else [test]
        for operand in operands:
            if name_of(operand) == "variable":
                identifier = attribute(operand, "identifier").strip()
                if identifier in self.waits:
                    return identifier
        return ""

    def _read(self, expression: Element | None, waits: str, assigned: set[str]) -> None:
        if waits:
            return  # a path this attempt never takes reads nothing
        for identifier in sorted(_variables(expression) - assigned):
            self.early.setdefault(identifier, None)


def _walked(processing: Element | None, waits: set[str]) -> _Walk:
    walk = _Walk(waits)
    if processing is not None:
        walk.rules(list(processing), (), "", set())
    return walk


# The analysis -----------------------------------------------------------------------------


@dataclass
class _Analysis:
    requests: dict[str, str]  # request response: its button's title
    flags: set[str]
    sets: list[_Set]
    tainted: set[str]  # the variables that depend on what earlier attempts give
    score: list[str]  # what earlier attempts give that the score depends on
    # (outcome, value): the sets that give the outcome that value by name
    shows: dict[tuple[str, str], list[_Set]]


def _analyse(root: Element) -> _Analysis:
    requests = {
        attribute(node, "responseIdentifier").strip(): attribute(node, "title").strip()
        for node in root.iter()
        if name_of(node) == "endAttemptInteraction"
    }
    processing = next((c for c in root if name_of(c) == "responseProcessing"), None)
    # A flag is an outcome that only a request sets ("seenSolution"): in the one attempt it
    # keeps its default, and what waits on it never happens either.
    first = _walked(processing, set(requests))
    by_target: dict[str, list[_Set]] = {}
    for found in first.sets:
        by_target.setdefault(found.target, []).append(found)
    flags = {
        target
        for target, sets in by_target.items()
        if target not in _BUILT_IN and all(found.waits for found in sets)
    }
    walk = _walked(processing, set(requests) | flags)
    live = [found for found in walk.sets if not found.waits]
    changed_here = {found.target for found in live}
    sources = [
        name
        for name in walk.early
        if name in _BUILT_IN or (name in changed_here and name not in flags)
    ]
    # Who reads whom: an outcome set on a path reads its value's variables and the tests on
    # the way there.
    readers: dict[str, set[str]] = {}
    read_by: dict[str, set[str]] = {}
    for found in live:
        reads = _variables(found.rule).union(*(_variables(t.test) for t in found.context))
        for name in reads:
            readers.setdefault(name, set()).add(found.target)
            read_by.setdefault(found.target, set()).add(name)
    tainted = _reached(sources, readers)
    behind_score = _reached([SCORE], read_by) if SCORE in tainted else set()
    causes = sorted(behind_score & set(sources))
    shows: dict[tuple[str, str], list[_Set]] = {}
    for found in walk.sets:
        for value in _named(found.rule):
            shows.setdefault((found.target, value), []).append(found)
    return _Analysis(requests, flags, walk.sets, tainted, causes, shows)


def _reached(starts: list[str], edges: dict[str, set[str]]) -> set[str]:
    """The names reached from `starts` along `edges`, `starts` among them."""
    reached = set(starts)
    queue = list(starts)
    while queue:
        for name in edges.get(queue.pop(), ()):
            if name not in reached:
                reached.add(name)
                queue.append(name)
    return reached


def _refusal(root: Element, analysis: _Analysis) -> str:
    body = next((c for c in root if name_of(c) == "itemBody"), None)
    for feedback, interaction in _inside_feedback(body):
        outcome = attribute(feedback, "outcomeIdentifier").strip()
        shown = attribute(feedback, "showHide", "show").strip() != "hide"
        value = attribute(feedback, "identifier").strip()
        set_by = any(found.target == outcome for found in analysis.sets)
        return (
            "its question changes after the first answer (its "
            f"{words(name_of(interaction))} interaction "
            f"{'shows only' if shown else 'is hidden'} while the outcome {outcome} "
            f"holds {value!r}{', which its answers change' if set_by else ''}), which one "
            "question here cannot hold"
        )
    if analysis.score:
        causes = [f"{said} ({name})" for name, said in _ATTEMPTS.items() if name in analysis.score]
        earlier = [name for name in analysis.score if name not in _ATTEMPTS]
        if earlier:
            causes.append(f"what earlier answers set ({_listed(earlier)})")
        return (
            f"its score depends on {' and on '.join(causes)}, which one question here, "
            "answered once, cannot hold"
        )
    return ""


def _inside_feedback(body: Element | None) -> Iterator[tuple[Element, Element]]:
    """Each interaction (not a button that ends the attempt) inside feedback, with the
    innermost feedback around it."""
    stack: list[tuple[Element, Element | None]] = [(body, None)] if body is not None else []
    while stack:
        element, around = stack.pop()
        for child in reversed(element):
            kind = name_of(child)
            button = kind == "endAttemptInteraction"
            if around is not None and kind.endswith("Interaction") and not button:
                yield around, child
            stack.append((child, child if kind in _FEEDBACK else around))


# The one attempt ---------------------------------------------------------------------------


def one_attempt(root: Element) -> Attempt:
    """The item as one attempt; _Refusal says why there is none."""
    element = copy.deepcopy(root)
    analysis = _analyse(element)
    reason = _refusal(element, analysis)
    if reason:
        raise _Refusal(reason)
    attempt = Attempt(element)
    element.set("adaptive", "false")
    shown: list[str] = []
    later: list[Element] = []
    for feedback in _explanations(element):
        when = _when_shown(feedback, analysis)
        if when == "request":
            title = attribute(feedback, "title").strip() or _title(feedback, analysis)
            feedback.set("title", title)
            shown.append(title)
        elif when == "later":
            later.append(feedback)
    _remove(element, set(later))
    left_out = [attribute(feedback, "identifier").strip() for feedback in later]
    attempt.notes.append(
        "an adaptive item (QTI lets a learner answer it again after feedback): imported as "
        "one attempt, answered once"
    )
    if shown:
        attempt.notes.append(f"what it shows on request ({_listed(shown)}) is in the explanation")
    if left_out:
        attempt.notes.append(
            "feedback it shows only after several attempts or once the hint or solution was "
            f"seen ({_listed(left_out)}) is left out"
        )
    if any(found.target == SCORE and found.waits in analysis.flags for found in analysis.sets):
        attempt.notes.append(
            "its lower score once the hint or solution was seen is not carried: here they show "
            "only after answering"
        )
    return attempt


def _listed(names: list[str]) -> str:
    unique = list(dict.fromkeys(names))
    more = f" and {len(unique) - _NAMED} more" if len(unique) > _NAMED else ""
    return ", ".join(unique[:_NAMED]) + more


def _explanations(root: Element) -> list[Element]:
    """The feedback the item reader makes the explanation of: modal feedback, and the
    feedback blocks in the body but a choice's own (its rationale)."""
    own = {
        id(child)
        for node in root.iter()
        if name_of(node) in _CHOICES
        for child in node.iter()
        if name_of(child) == "feedbackBlock"
    }
    body = next((c for c in root if name_of(c) == "itemBody"), None)
    blocks = [n for n in (body.iter() if body is not None else ()) if name_of(n) == "feedbackBlock"]
    modal = [c for c in root if name_of(c) == "modalFeedback"]
    return [*modal, *(block for block in blocks if id(block) not in own)]


def _when_shown(feedback: Element, analysis: _Analysis) -> str:
    """ "answer" when an answer may show it (or nothing sets its value by name), "request"
    when a hint or solution request does, "later" when only later attempts or a seen hint
    or solution do."""
    if attribute(feedback, "showHide", "show").strip() == "hide":
        return "answer"
    kinds = set()
    for found in analysis.shows.get(_shown_by(feedback), ()):
        if found.waits in analysis.requests:
            kinds.add("request")
        elif found.waits or any(_variables(t.test) & analysis.tainted for t in found.context):
            kinds.add("later")
        else:
            kinds.add("answer")
    if not kinds or "answer" in kinds:
        return "answer"
    return "request" if "request" in kinds else "later"


def _shown_by(feedback: Element) -> tuple[str, str]:
    """The outcome and the value that show the feedback."""
    return (
        attribute(feedback, "outcomeIdentifier").strip(),
        attribute(feedback, "identifier").strip(),
    )


def _title(feedback: Element, analysis: _Analysis) -> str:
    """The title of the button whose request shows it, without its verb ("Show Hint":
    "Hint")."""
    for found in analysis.shows.get(_shown_by(feedback), ()):
        if found.waits in analysis.requests:
            title = _ASKING.sub("", analysis.requests[found.waits]).strip()
            if title:
                return title[:1].upper() + title[1:]
    return "On request"


def _remove(root: Element, elements: set[Element]) -> None:
    """Takes the elements out of the tree, the text after each kept."""
    for parent in list(root.iter()):
        for index, child in reversed(list(enumerate(parent))):
            if child not in elements:
                continue
            if child.tail:
                if index:
                    before = parent[index - 1]
                    before.tail = (before.tail or "") + child.tail
                else:
                    parent.text = (parent.text or "") + child.tail
            parent.remove(child)
