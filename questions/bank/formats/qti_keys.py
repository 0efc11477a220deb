"""Where a QTI item keeps its key when its response declarations do not, and why an item
without one cannot be imported.

Some tools write no `correctResponse` (nor a mapping) and put the key in their response
processing: "if RESPONSE matches the value X, SCORE is 1". `fill_keys` reads that one
simple pattern (a `match`, `equal` or `stringMatch` of the response variable against a
constant, a value or a set of values, in a condition that sets an outcome to a number) and
writes the values that earn the most as the declaration's correct response, so that the
interaction readers see an ordinary key. An adaptive item that sets no number at all ("keep
trying until you get it right") is keyed by the answer that completes it. A response also
copied to an identifier outcome that nothing reads again (which feedback to show) is still
read so. A response the processing uses in any other way (a sum of two sliders, a
product, a substring), or several sets of choices that each earn the most, are left alone:
its key is only in processing we do not run, and `explain` says so rather than "no right
answer".

`explain` names the two patterns a machine grades but a question here cannot hold: several
sets of choices that each earn full marks (1EdTech's Chocolate Milk), and answers scored
together (the sum of two sliders); and an item that scores every answer alike (a
demonstration). It also tells an item whose interactions have no key at
all (a layout demonstration, a survey) by what it is. Adaptive items are told apart before
(`qti_adaptive`)."""

from collections.abc import Callable
from xml.etree.ElementTree import Element, SubElement

from questions.bank.formats.foreign import ForeignQuestion, ParseError, Skipped
from questions.bank.formats.qti_interactions import READ_ALONE
from questions.bank.formats.qti_names import attribute, name_of

# The interactions a key is read for (those read alone); the others are skipped for what
# they are.
_KEYED = READ_ALONE
# Refusals that come from what the item is, not from its key.
_ITEM_REASONS = frozenset({"template item", "adaptive item", "no item body", "no interaction"})
_COMPARISONS = frozenset({"match", "equal", "stringMatch"})
_BRANCHES = frozenset({"responseIf", "responseElseIf"})


def _declarations(root: Element) -> dict[str, Element]:
    return {
        child.get("identifier", ""): child
        for child in root
        if name_of(child) == "responseDeclaration"
    }


def _processing(root: Element) -> Element | None:
    return next((child for child in root if name_of(child) == "responseProcessing"), None)


def has_key(declaration: Element) -> bool:
    """A correct response with a value, or a mapping that scores something above 0."""
    for element in declaration.iter():
        kind = name_of(element)
        if kind == "correctResponse" and any(name_of(v) == "value" for v in element):
            return True
        if kind == "mapEntry":
            try:
                if float(attribute(element, "mappedValue", "0")) > 0:
                    return True
            except ValueError:
                continue
    return False


def _number(element: Element) -> float | None:
    if name_of(element) != "baseValue":
        return None
    try:
        return float((element.text or "").strip())
    except ValueError:
        return None


# A constant a response is compared with: one value, or a container's values (a set of
# choices), each written as the file has it.
Constant = tuple[str, ...]


def _compared(condition: Element) -> tuple[str, Constant, bool] | None:
    """(response, constant, whether the constant is a container) when the condition compares
    one variable with one constant: a value, or a `multiple` or `ordered` of values."""
    if name_of(condition) not in _COMPARISONS or len(condition) != 2:
        return None
    names = [name_of(child) for child in condition]
    if "variable" not in names or names.count("variable") != 1:
        return None
    variable = condition[names.index("variable")]
    constant = condition[1 - names.index("variable")]
    if name_of(constant) == "baseValue":
        return variable.get("identifier", ""), (" ".join((constant.text or "").split()),), False
    if name_of(constant) not in ("multiple", "ordered") or not len(constant):
        return None
    if any(name_of(value) != "baseValue" for value in constant):
        return None
    values = tuple(" ".join((value.text or "").split()) for value in constant)
    unordered = name_of(constant) == "multiple"
    return variable.get("identifier", ""), tuple(sorted(values)) if unordered else values, True


def _score_set(branch: Element, completes: bool) -> float | None:
    """The largest number the branch sets an outcome to (its score), None when none. With
    `completes`, an item that sets no score at all, completing the item is its score."""
    scores = [
        number
        for child in branch
        if name_of(child) == "setOutcomeValue" and len(child) == 1
        for number in [_number(child[0])]
        if number is not None
    ]
    if completes and any(_completes(child) for child in branch):
        scores.append(1.0)
    return max(scores, default=None)


def _completes(rule: Element) -> bool:
    return (
        name_of(rule) == "setOutcomeValue"
        and rule.get("identifier") == "completionStatus"
        and len(rule) == 1
        and name_of(rule[0]) == "baseValue"
        and (rule[0].text or "").strip() == "complete"
    )


def _scores_nothing(root: Element, processing: Element) -> bool:
    """An adaptive item that sets no number at all: it is done when the learner completes it
    (STOMP's "keep trying until you get it right"), and that answer is its key."""
    if attribute(root, "adaptive").strip() != "true":
        return False
    return not any(
        name_of(rule) == "setOutcomeValue" and len(rule) == 1 and _number(rule[0]) is not None
        for rule in processing.iter()
    )


def _simple_keys(
    root: Element, processing: Element
) -> tuple[dict[str, dict[Constant, float]], set[int], set[Constant]]:
    """Per response, the constants a simple condition compares it with and the score that
    branch gives; the ids of the variables those conditions use (the others are uses in
    patterns not read); and which constants are containers."""
    keys: dict[str, dict[Constant, float]] = {}
    understood: set[int] = set()
    containers: set[Constant] = set()
    completes = _scores_nothing(root, processing)
    for branch in processing.iter():
        if name_of(branch) not in _BRANCHES or not len(branch):
            continue
        compared = _compared(branch[0])
        score = _score_set(branch, completes)
        if compared is None or score is None:
            continue
        response, constant, container = compared
        keys.setdefault(response, {})[constant] = max(
            score, keys.get(response, {}).get(constant, score)
        )
        if container:
            containers.add(constant)
        understood.update(id(child) for child in branch[0] if name_of(child) == "variable")
    understood.update(id(use) for use in _shown_only(root, processing))
    return keys, understood, containers


def _shown_only(root: Element, processing: Element) -> list[Element]:
    """The response variables read only to set an identifier outcome that nothing in the
    processing reads again (which feedback to show): they do not score."""
    declared = {
        child.get("identifier", ""): attribute(child, "baseType")
        for child in root
        if name_of(child) == "outcomeDeclaration"
    }
    read = {
        element.get("identifier", "")
        for element in processing.iter()
        if name_of(element) == "variable"
    }
    shown: list[Element] = []
    for rule in processing.iter():
        target = rule.get("identifier", "")
        if name_of(rule) != "setOutcomeValue" or target in read:
            continue
        if declared.get(target) != "identifier":
            continue
        shown.extend(e for e in rule.iter() if name_of(e) == "variable")
    return shown


def _uses(processing: Element, response: str) -> list[Element]:
    return [
        element
        for element in processing.iter()
        if name_of(element) == "variable" and element.get("identifier") == response
    ]


def fill_keys(root: Element, interactions: list[Element]) -> list[str]:
    """Writes the key that the response processing holds in the simple pattern as the
    correct response of each interaction's declaration that has none; the notes to report."""
    processing = _processing(root)
    if processing is None or not keyless(root, interactions):
        return []  # every key declared (as in most items): nothing to look for
    declarations = _declarations(root)
    keys, understood, containers = _simple_keys(root, processing)
    notes = []
    for interaction in interactions:
        response = attribute(interaction, "responseIdentifier")
        declaration = declarations.get(response)
        if declaration is None or has_key(declaration) or not keys.get(response):
            continue
        if any(id(use) not in understood for use in _uses(processing, response)):
            continue  # also used in a way not read: the pattern alone may not be the key
        scores = keys[response]
        best = max(scores.values())
        if best <= 0:
            continue
        best_constants = [constant for constant, score in scores.items() if score == best]
        if len(best_constants) > 1 and any(c in containers for c in best_constants):
            continue  # several sets of values earn the most: no one key (`explain`)
        right = [value for constant in best_constants for value in constant]
        correct = next((c for c in declaration if name_of(c) == "correctResponse"), None)
        if correct is None:
            correct = SubElement(declaration, _sibling_tag(declaration, "correctResponse"))
        for value in right:
            SubElement(correct, _sibling_tag(declaration, "value")).text = value
        completing = (
            " (the answer that completes the item, which sets no score)"
            if _scores_nothing(root, processing)
            else ""
        )
        notes.append(
            f"the key of {response} ({', '.join(right)}) is read from its response "
            f"processing{completing}"
        )
    return notes


def _sibling_tag(declaration: Element, name: str) -> str:
    """A tag in the declaration's namespace and spelling (2.1 `correctResponse`, 3.0
    `qti-correct-response`), so that the readers find it as they find the others."""
    namespace, _, local = declaration.tag.rpartition("}")
    spelt = name
    if local.startswith("qti-"):
        spelt = "qti-" + "".join(f"-{c.lower()}" if c.isupper() else c for c in name)
    return f"{namespace}}}{spelt}" if namespace else spelt


def keyless(root: Element, interactions: list[Element]) -> list[str]:
    """The response identifiers of the interactions that have no key."""
    declarations = _declarations(root)
    missing = []
    for interaction in interactions:
        response = attribute(interaction, "responseIdentifier")
        declaration = declarations.get(response)
        if declaration is not None and not has_key(declaration):
            missing.append(response)
    return missing


Result = ForeignQuestion | Skipped | ParseError


def checked(
    root: Element, place: str, read: Callable[[], Result | list[Result]]
) -> Result | list[Result]:
    """The item as `read` reads it, its key first filled in from its response processing
    where its declarations have none; a refusal for want of a key said as such."""
    interactions = item_interactions(root)
    notes = fill_keys(root, interactions)
    result = read()
    if isinstance(result, list):
        return result
    if isinstance(result, ForeignQuestion):
        result.notes.extend(f"{place}: {note}" for note in notes)
        return result
    return explain(root, interactions, result, place)


def item_place(root: Element, path: str) -> str:
    """How messages name the item: its file (in a package), identifier and title."""
    identifier, title = root.get("identifier", ""), root.get("title", "")
    return f"{path + ', ' if path else ''}item {identifier!r}" + (f" ({title})" if title else "")


def item_interactions(root: Element) -> list[Element]:
    """The interactions of the item's body, but a button that ends the attempt."""
    body = next((child for child in root if name_of(child) == "itemBody"), None)
    if body is None:
        return []
    return [
        element
        for element in body.iter()
        if name_of(element).endswith("Interaction") and name_of(element) != "endAttemptInteraction"
    ]


def explain(root: Element, interactions: list[Element], result: Result, place: str) -> Result:
    """A refusal that comes from a missing key, said as such."""
    if isinstance(result, ForeignQuestion) or not interactions:
        return result
    if any(name_of(element) not in _KEYED for element in interactions):
        return result  # skipped for what the other interaction is
    if isinstance(result, Skipped) and result.type in _ITEM_REASONS:
        return result  # skipped for what the item is, whatever its key
    line = result.line
    missing = keyless(root, interactions)
    if not missing:
        return result
    processing = _processing(root)
    used = [r for r in missing if processing is not None and _uses(processing, r)]
    if used and processing is not None:
        why = _no_one_key(root, processing, interactions, used)
        return Skipped(
            line,
            "key in response processing",
            f"{place}: "
            + (
                why
                or "its key is only in response processing we do not run "
                f"({', '.join(used)} scored by rules other than a comparison with a value)"
            ),
        )
    total = len(interactions)
    if len(missing) < total:
        which = f"{len(missing)} of its {total} interactions have no correct response"
    elif total > 1:
        which = f"none of its {total} interactions has a correct response"
    else:
        which = "its interaction has no correct response"
    reason = (
        f"{which} (nor a mapping or scoring rule that gives a key): no machine can grade "
        f"{'it' if len(missing) == 1 else 'them'}"
    )
    # One interaction without its key is an error (a key forgotten); interactions without
    # keys beside others (a sample of layouts) are reported with the item skipped.
    if isinstance(result, ParseError) and total == 1:
        return ParseError(line, f"{place}: {reason}")
    return Skipped(line, "no key", f"{place}: {reason}")


_COMBINED = {"sum": "sum", "product": "product", "subtract": "difference", "divide": "quotient"}
_KINDS = {"sliderInteraction": "slider", "textEntryInteraction": "blank"}


def _no_one_key(
    root: Element, processing: Element, interactions: list[Element], used: list[str]
) -> str:
    """Why a response scored in its processing has no one key, for the two patterns a
    machine grades but a question here cannot hold: several sets of choices that each earn
    full marks, and answers scored together (the sum of two sliders). "" for any other."""
    conditions = any(name_of(rule) == "responseCondition" for rule in processing.iter())
    if not conditions and (_score_set(processing, False) or 0) > 0:
        return "it gives every answer the same score, under no condition: it has no key to grade"
    keys, _, containers = _simple_keys(root, processing)
    for response in used:
        scores = keys.get(response, {})
        best = max(scores.values(), default=0.0)
        sets = [c for c, score in scores.items() if score == best and c in containers]
        if best > 0 and len(sets) > 1:
            return (
                f"{_counted(len(sets))} different sets of choices each earn full marks "
                f"({response}); "
                "a question here has one key"
            )
    derived = _derived(processing, set(used))
    for operator in processing.iter():
        if name_of(operator) not in _COMBINED:
            continue
        together = sorted(
            {
                response
                for element in operator.iter()
                if name_of(element) == "variable"
                for response in derived.get(element.get("identifier", ""), set())
            }
        )
        if len(together) < 2:
            continue
        kinds = {
            _KINDS.get(name_of(i), "answer")
            for i in interactions
            if attribute(i, "responseIdentifier") in together
        }
        kind = kinds.pop() if len(kinds) == 1 else "answer"
        combined = _COMBINED[name_of(operator)]
        return (
            f"it scores the {combined} of its {_counted(len(together))} {kind}s "
            f"({', '.join(together)}), not each one; a question here keys each answer on its own"
        )
    return ""


def _derived(processing: Element, responses: set[str]) -> dict[str, set[str]]:
    """Each response, and each outcome set from responses, with the responses it holds."""
    derived = {response: {response} for response in responses}
    for rule in processing.iter():
        if name_of(rule) != "setOutcomeValue":
            continue
        held = {
            response
            for element in rule.iter()
            if name_of(element) == "variable"
            for response in derived.get(element.get("identifier", ""), set())
        }
        if held:
            derived.setdefault(rule.get("identifier", ""), set()).update(held)
    return derived


def _counted(count: int) -> str:
    return {2: "two", 3: "three", 4: "four", 5: "five"}.get(count, str(count))
