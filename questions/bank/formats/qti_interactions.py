"""QTI interactions beyond a single choice, read into our types (`qti.read_item` reads the
item and a lone choice interaction, and calls `read` for the rest):

- order: its choices are the steps, the correct response's order their places (a choice
  it leaves out does not belong);
- match and associate: prompts and a pool, the correct pairs naming each prompt's answer;
- gapMatch: drop-downs, each gap offering the gap texts; inlineChoice: drop-downs;
- hottext: a choice among the words to pick, the passage in the stem;
- textEntry: a fill-in blank (texts, or a number with the tolerance its response processing
  gives); slider: a fill-in of the number, typed;
- several interactions: one question of several parts: blanks when every part is a text
  entry, otherwise drop-downs (inline choices, or choices of one answer) with the text
  entries among them gaps typed in place; any other mix is refused as "several
  interactions", which the item reader reads as a case study (qti_case);
- what no machine marks (extended text, upload, drawing), what is answered on an image
  (hotspot, select point, graphic ...) and any other interaction: skipped with the reason.

Scoring follows the response processing: `match_correct` all or nothing, `map_response`
partial credit (unequal weights noted), anything else read as all or nothing for one part
and a share per part for several, and noted."""

import html
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from decimal import Decimal
from itertools import pairwise
from typing import Protocol
from xml.etree.ElementTree import Element

from questions.bank.formats import qti_compare, qti_typed
from questions.bank.formats.foreign import (
    ForeignBlank,
    ForeignGap,
    ForeignOption,
    ForeignPrompt,
    ForeignQuestion,
    ForeignScoring,
    ForeignStep,
    ParseError,
    Skipped,
    as_yes_no,
    number_text,
    one_line,
    parse_number,
    to_markdown,
)
from questions.bank.formats.qti_grid import GridTooLarge, Rows, as_pair_series
from questions.bank.formats.qti_names import attribute, name_of

Parsed = ForeignQuestion | Skipped | ParseError
DROPDOWN_STEM = "Choose the right answer for each gap."
_FILL_LINE = "&#95;" * 5
# Where a gap stood while the text around it is converted (a "[" would be escaped).
_PLACE = "\ue011{}\ue012"
_PLACE_BACK = re.compile("\ue011(\\d+)\ue012")
_FEEDBACK = frozenset({"feedbackInline", "feedbackBlock"})

_PERSON_MARKS = {
    "extendedTextInteraction": "an extended text is marked by a person: no machine grades it",
    "uploadInteraction": "an upload is marked by a person: no machine grades it",
    "drawingInteraction": "a drawing is marked by a person: no machine grades it",
}
_ON_AN_IMAGE = frozenset(
    {
        "hotspotInteraction",
        "selectPointInteraction",
        "graphicOrderInteraction",
        "graphicGapMatchInteraction",
        "graphicAssociateInteraction",
        "positionObjectInteraction",
    }
)
READ_ALONE = frozenset(
    {
        "orderInteraction",
        "matchInteraction",
        "associateInteraction",
        "gapMatchInteraction",
        "inlineChoiceInteraction",
        "textEntryInteraction",
        "choiceInteraction",
        "hottextInteraction",
        "sliderInteraction",
    }
)


_PAIRED = frozenset(
    {"matchInteraction", "associateInteraction", "gapMatchInteraction", "hottextInteraction"}
)


class Content(Protocol):
    """The item reader's HTML of item content (its images stored on the way)."""

    def inner(self, element: Element, *, replace: dict[int, str] | None = None) -> str: ...


def words(name: str) -> str:
    """`textEntryInteraction` as "text entry"."""
    name = name.removesuffix("Interaction")
    return re.sub(r"([A-Z])", r" \1", name).strip().lower() or "interaction"


class _Refusal(Exception):
    def __init__(self, message: str, *, skip_type: str = "") -> None:
        super().__init__(message)
        self.skip_type = skip_type


def read(
    root: Element,
    body: Element,
    interactions: Sequence[Element],
    out: Content,
    question: ForeignQuestion,
    place: str,
) -> Parsed | list[Parsed]:
    """The item as `question` (its identity, category and explanation already read); a
    matching grid too large for one question as several (qti_grid)."""
    kinds = [name_of(element) for element in interactions]
    for kind in kinds:
        if kind in _PERSON_MARKS:
            return Skipped(question.line, words(kind), f"{place}: {_PERSON_MARKS[kind]}")
        if kind in _ON_AN_IMAGE:
            return Skipped(
                question.line,
                words(kind),
                f"{place}: it is answered on an image's regions, which no question type here has",
            )
        if kind not in READ_ALONE:
            return Skipped(
                question.line, words(kind), f"{place}: a {words(kind)} interaction is not read"
            )
    noted = len(question.notes)
    try:
        if len(interactions) == 1:
            reader = _ONE[kinds[0]]
            reader(root, body, interactions[0], out, question)
            question.scoring, note = scoring(root, 1, pairs=kinds[0] in _PAIRED)
        else:
            _several(root, body, interactions, out, question, kinds)
            question.scoring, note = scoring(root, len(interactions), pairs=False)
    except _Refusal as refusal:
        if refusal.skip_type:
            return Skipped(question.line, refusal.skip_type, f"{place}: {refusal}")
        return ParseError(question.line, f"{place}: {refusal}")
    except Rows as rows:
        title = " ".join(attribute(root, "title").split())
        for row in rows.questions:
            row.scoring, note = scoring(root, 1, pairs=True)
            if row.case_study is not None and title:
                row.case_study = replace(row.case_study, title=title)
            row.notes = [f"{place}: {text}" for text in [*row.notes, note] if text]
        return [*rows.questions]
    question.notes[noted:] = [f"{place}: {text}" for text in question.notes[noted:]]
    if note:
        question.notes.append(f"{place}: {note}")
    if question.scoring == "partial" and question.kind == "single":
        question.scoring = "all"
    return question


# Response declarations and processing -------------------------------------------------------


def _declaration(root: Element, interaction: Element) -> Element:
    response_id = attribute(interaction, "responseIdentifier")
    for child in root:
        if name_of(child) == "responseDeclaration" and child.get("identifier") == response_id:
            return child
    raise _Refusal(f"no responseDeclaration {response_id!r}")


def _correct(declaration: Element) -> list[str]:
    for child in declaration:
        if name_of(child) == "correctResponse":
            return [" ".join((v.text or "").split()) for v in child if name_of(v) == "value"]
    return []


def _mapping(declaration: Element) -> list[tuple[str, float, bool]]:
    """(key, value, case sensitive) of the mapping's entries."""
    entries = []
    for entry in declaration.iter():
        if name_of(entry) == "mapEntry":
            try:
                value = float(attribute(entry, "mappedValue", "0"))
            except ValueError:
                continue
            sensitive = attribute(entry, "caseSensitive", "true").strip().lower() != "false"
            entries.append((" ".join(attribute(entry, "mapKey").split()), value, sensitive))
    return entries


def _right_values(declaration: Element) -> list[str]:
    """The correct response, or failing one what the mapping scores above 0."""
    return _correct(declaration) or [key for key, value, _ in _mapping(declaration) if value > 0]


def scoring(root: Element, parts: int, *, pairs: bool) -> tuple[ForeignScoring, str]:
    """Our scoring for the item's response processing, and a note when it says more than
    that. `pairs`: one interaction whose mapping scores each of its parts (a pair of a match,
    associate or gap match; an option chosen) rather than alternative answers (a text
    entry's, an inline choice's)."""
    processing = next((c for c in root if name_of(c) == "responseProcessing"), None)
    uri = attribute(processing, "template") if processing is not None else ""
    # 2.1 names a template ".../rptemplates/match_correct", 3.0 ".../match_correct.xml".
    template = uri.rstrip("/").rpartition("/")[2].removesuffix(".xml")
    if processing is None or template == "match_correct":
        return ("all" if parts == 1 else "partial"), ""
    # Its own processing that sets the score to the mapping's sum is map_response's.
    summed = any(
        name_of(child) == "mapResponse"
        for element in processing
        if name_of(element) == "setOutcomeValue" and element.get("identifier") == "SCORE"
        for child in element
    )
    if template in ("map_response", "map_response_point") or (summed and not template):
        if parts == 1 and not pairs:
            return "all", ""
        declarations = [c for c in root if name_of(c) == "responseDeclaration"]
        values = {value for d in declarations for _, value, _ in _mapping(d) if value > 0}
        if len(values) > 1:
            return "partial", (
                "its mapping's unequal weights are not carried: each part earns an equal share"
            )
        return "partial", ""
    if parts == 1:
        return "all", "its own response processing is read as all or nothing"
    return "partial", "its own response processing is read as a share per part"


# One interaction ------------------------------------------------------------------------------


def _children(element: Element, *names: str) -> list[Element]:
    return [child for child in element.iter() if name_of(child) in names]


def _feedback(choice: Element, out: Content) -> str:
    parts = [out.inner(child) for child in choice if name_of(child) in _FEEDBACK]
    return to_markdown(" ".join(parts), "html") if parts else ""


def _text_of(choice: Element, out: Content) -> str:
    """A choice's content without its feedback."""
    hidden = {id(child): "" for child in choice if name_of(child) in _FEEDBACK}
    return to_markdown(out.inner(choice, replace=hidden), "html")


def _stem(body: Element, interaction: Element, out: Content) -> str:
    """The item body with the interaction replaced by its prompt."""
    prompt = next((child for child in interaction if name_of(child) == "prompt"), None)
    replacement = out.inner(prompt) if prompt is not None else ""
    return to_markdown(out.inner(body, replace={id(interaction): replacement}), "html")


def _order(
    root: Element, body: Element, interaction: Element, out: Content, question: ForeignQuestion
) -> None:
    correct = _correct(_declaration(root, interaction))
    choices = _children(interaction, "simpleChoice")
    ids = [choice.get("identifier", "") for choice in choices]
    unknown = [value for value in correct if value not in ids]
    if not correct or unknown:
        raise _Refusal("the order has no correct response naming its choices")
    question.kind = "ordering"
    question.stem = _stem(body, interaction, out)
    question.steps = [
        ForeignStep(
            _text_of(choice, out),
            correct.index(identifier) + 1 if identifier in correct else None,
            _feedback(choice, out),
        )
        for choice, identifier in zip(choices, ids, strict=True)
    ]


def _pairs(declaration: Element) -> list[tuple[str, str]]:
    pairs = []
    for value in _right_values(declaration):
        first, _, second = value.partition(" ")
        if not second:
            raise _Refusal(f"the correct response {value!r} is not a pair")
        pairs.append((first, second))
    if not pairs:
        raise _Refusal("no correct response")
    return pairs


def _matching(
    question: ForeignQuestion,
    prompts: list[Element],
    pool: list[Element],
    pairs: list[tuple[str, str]],
    out: Content,
) -> None:
    pool_ids = [choice.get("identifier", "") for choice in pool]
    answers: dict[str, list[str]] = {}
    for source, target in pairs:
        answers.setdefault(source, []).append(target)
    question.kind = "matching"
    question.pool = [ForeignOption(_text_of(choice, out), False) for choice in pool]
    question.prompts = []
    uneven = next((p for p in prompts if len(answers.get(p.get("identifier", ""), [])) != 1), None)
    if uneven is not None:
        # Two answers for a prompt, or none: a yes/no series of every pair.
        identifier = uneven.get("identifier", "")
        why = f"prompt {identifier!r} is matched to {len(answers.get(identifier, []))} answers"
        ids = [prompt.get("identifier", "") for prompt in prompts]
        right = {
            (ids.index(source), pool_ids.index(target))
            for source, target in pairs
            if source in ids and target in pool_ids
        }
        texts = [_text_of(prompt, out) for prompt in prompts]
        try:
            as_pair_series(question, texts, [o.text for o in question.pool], right, why)
        except GridTooLarge as error:
            raise _Refusal(str(error), skip_type="match") from None
        return
    for prompt in prompts:
        identifier = prompt.get("identifier", "")
        targets = answers.get(identifier, [])
        if targets[0] not in pool_ids:
            raise _Refusal(
                f"prompt {identifier!r} is matched to {targets[0]!r}, which is no answer",
                skip_type="match",
            )
        question.prompts.append(
            ForeignPrompt(_text_of(prompt, out), pool_ids.index(targets[0]), _feedback(prompt, out))
        )
    used = Counter(prompt.answer for prompt in question.prompts)
    question.reuse_answers = any(count > 1 for count in used.values())


def _match(
    root: Element, body: Element, interaction: Element, out: Content, question: ForeignQuestion
) -> None:
    sets = [child for child in interaction if name_of(child) == "simpleMatchSet"]
    if len(sets) != 2:
        raise _Refusal("a match interaction has two sets of choices")
    prompts, pool = (_children(s, "simpleAssociableChoice") for s in sets)
    question.stem = _stem(body, interaction, out)
    _matching(question, prompts, pool, _pairs(_declaration(root, interaction)), out)
    as_yes_no(question)


def _associate(
    root: Element, body: Element, interaction: Element, out: Content, question: ForeignQuestion
) -> None:
    """Pairs of one set of choices: the choices named first in the pairs are the prompts, the
    others the pool; a choice named on both sides has no side, and the item is skipped."""
    choices = _children(interaction, "simpleAssociableChoice")
    pairs = _pairs(_declaration(root, interaction))
    firsts = {first for first, _ in pairs}
    if firsts & {second for _, second in pairs}:
        raise _Refusal(
            "a choice is paired on both sides: no prompts and answers to tell apart",
            skip_type="associate",
        )
    prompts = [choice for choice in choices if choice.get("identifier") in firsts]
    pool = [choice for choice in choices if choice.get("identifier") not in firsts]
    question.stem = _stem(body, interaction, out)
    _matching(question, prompts, pool, pairs, out)


def _gap_match(
    root: Element, body: Element, interaction: Element, out: Content, question: ForeignQuestion
) -> None:
    if _children(interaction, "gapImg"):
        raise _Refusal("its choices are images", skip_type="gap match")
    texts = _children(interaction, "gapText")
    gaps = _children(interaction, "gap")
    text_ids = [text.get("identifier", "") for text in texts]
    right: dict[str, list[str]] = {}
    gap_ids = {gap.get("identifier", "") for gap in gaps}
    for first, second in _pairs(_declaration(root, interaction)):
        # The pair is "text gap"; some tools write it "gap text".
        text_id, gap_id = (second, first) if first in gap_ids else (first, second)
        right.setdefault(gap_id, []).append(text_id)
    replace = {id(text): "" for text in texts}
    question.gaps = []
    for number, gap in enumerate(gaps, 1):
        chosen = right.get(gap.get("identifier", ""), [])
        if len(chosen) > 1 and len(set(chosen)) == 1:
            raise _Refusal(
                f"gap {number} is to hold {chosen[0]!r} {len(chosen)} times (a count of one "
                "text): a gap here holds one text",
                skip_type="gap match",
            )
        if len(chosen) != 1 or chosen[0] not in text_ids:
            raise _Refusal(f"gap {number} has {len(chosen)} right answers: a gap here has one")
        question.gaps.append(
            ForeignGap(
                f"Gap {number}",
                tuple(
                    ForeignOption(_text_of(text, out), identifier == chosen[0])
                    for text, identifier in zip(texts, text_ids, strict=True)
                ),
            )
        )
        replace[id(gap)] = _PLACE.format(number)
    prompt = next((child for child in interaction if name_of(child) == "prompt"), None)
    if prompt is not None:
        replace[id(prompt)] = ""
    _as_dropdown(question, body, out, replace, prompt)


def _as_dropdown(
    question: ForeignQuestion,
    body: Element,
    out: Content,
    replace: dict[int, str],
    prompt: Element | None = None,
) -> None:
    question.kind = "dropdown"
    question.stem = (
        to_markdown(out.inner(prompt), "html") if prompt is not None else ""
    ) or DROPDOWN_STEM
    exhibit = to_markdown(out.inner(body, replace=replace), "html")
    question.exhibit = _PLACE_BACK.sub(lambda match: f"[[{match.group(1)}]]", exhibit)


def _inline(
    root: Element, body: Element, interaction: Element, out: Content, question: ForeignQuestion
) -> None:
    _several(root, body, [interaction], out, question, ["inlineChoiceInteraction"])


def _text_entry(
    root: Element, body: Element, interaction: Element, out: Content, question: ForeignQuestion
) -> None:
    _several(root, body, [interaction], out, question, ["textEntryInteraction"])


def _hottext(
    root: Element, body: Element, interaction: Element, out: Content, question: ForeignQuestion
) -> None:
    """Words to pick in a passage: a choice among them, the passage in the stem with each
    word that can be picked in bold."""
    right = _right_values(_declaration(root, interaction))
    spans = _children(interaction, "hottext")
    ids = [span.get("identifier", "") for span in spans]
    if not right or any(value not in ids for value in right):
        raise _Refusal("the hottext has no correct response naming its words")
    prompt = next((child for child in interaction if name_of(child) == "prompt"), None)
    replace = {id(span): f"<strong>{out.inner(span)}</strong>" for span in spans}
    if prompt is not None:
        replace[id(prompt)] = ""
    passage = out.inner(interaction, replace=replace)
    shown = (out.inner(prompt) if prompt is not None else "") + passage
    question.stem = to_markdown(out.inner(body, replace={id(interaction): shown}), "html")
    question.options = [
        ForeignOption(_text_of(span, out), identifier in right)
        for span, identifier in zip(spans, ids, strict=True)
    ]
    maximum = attribute(interaction, "maxChoices", "1").strip()
    question.kind = "single" if maximum == "1" else "multiple"


def _slider(
    root: Element, body: Element, interaction: Element, out: Content, question: ForeignQuestion
) -> None:
    """A number picked on a scale: a fill-in of that number, typed, the scale said under
    the prompt. Right values next to each other on the scale (a mapping that gives 14 to 18
    full marks) are one range: their middle ± half their spread."""
    declaration = _declaration(root, interaction)
    mapping = _mapping(declaration)
    best = max((value for _, value, _ in mapping), default=0.0)
    keys = [key for key, value, _ in mapping if value > 0 and value == best]
    numbers = [parse_number(value) for value in keys or _correct(declaration)]
    step = abs(parse_number(attribute(interaction, "step", "1")) or Decimal(1))
    values = sorted({number for number in numbers if number is not None})
    if not values or len(values) < len(numbers):
        raise _Refusal("the slider has no correct response of a number")
    if any(later - earlier > step for earlier, later in pairwise(values)):
        raise _Refusal(
            "its right values are apart on the scale: a blank takes one number and its tolerance",
            skip_type="slider",
        )
    for key, value, _ in mapping:
        if 0 < value < best:
            question.notes.append(
                f"partial credit for {key} on the slider is not carried: it is not accepted"
            )
    low, high = attribute(interaction, "lowerBound"), attribute(interaction, "upperBound")
    prompt = next((child for child in interaction if name_of(child) == "prompt"), None)
    scale = html.escape(f"(a number from {low} to {high})" if low and high else "(a number)")
    asked = out.inner(prompt).strip() if prompt is not None else ""
    if asked and not asked.startswith("<"):
        asked = f"<p>{asked}</p>"  # bare text would run into the paragraphs around it
    shown = f"{asked}<p>{_FILL_LINE} {scale}</p>"
    question.kind = "fillin"
    question.stem = to_markdown(out.inner(body, replace={id(interaction): shown}), "html")
    question.blanks = [
        ForeignBlank(
            "Answer", number=(values[0] + values[-1]) / 2, tolerance=(values[-1] - values[0]) / 2
        )
    ]
    question.notes.append("its slider is a number typed in")


def _choice_alone(
    root: Element, body: Element, interaction: Element, out: Content, question: ForeignQuestion
) -> None:
    raise _Refusal("a lone choice is read by the item reader")  # pragma: no cover


_ONE = {
    "orderInteraction": _order,
    "matchInteraction": _match,
    "associateInteraction": _associate,
    "gapMatchInteraction": _gap_match,
    "inlineChoiceInteraction": _inline,
    "textEntryInteraction": _text_entry,
    "choiceInteraction": _choice_alone,
    "hottextInteraction": _hottext,
    "sliderInteraction": _slider,
}


# Several parts ------------------------------------------------------------------------------


def _several(
    root: Element,
    body: Element,
    interactions: Sequence[Element],
    out: Content,
    question: ForeignQuestion,
    kinds: Sequence[str],
) -> None:
    """Text entries alone: blanks. Inline choices and choices of one answer: drop-downs,
    text entries among them gaps typed in place."""
    kinds_set = set(kinds)
    if kinds_set == {"textEntryInteraction"}:
        _blanks(root, body, interactions, out, question)
    elif kinds_set <= {"inlineChoiceInteraction", "choiceInteraction", "textEntryInteraction"}:
        _dropdowns(root, body, interactions, out, question)
    else:
        raise _Refusal(
            f"{', '.join(words(kind) for kind in kinds)}: one question here holds drop-downs "
            "and typed answers, not these together",
            skip_type="several interactions",
        )


def _dropdowns(
    root: Element,
    body: Element,
    interactions: Sequence[Element],
    out: Content,
    question: ForeignQuestion,
) -> None:
    replace: dict[int, str] = {}
    question.gaps = []
    for number, interaction in enumerate(interactions, 1):
        mark = _PLACE.format(number)
        if name_of(interaction) == "textEntryInteraction":
            label = f"Gap {number}"
            blank = _entry_blank(root, interaction, f"gap {number}", label, question.notes)
            question.gaps.append(ForeignGap(label, (), typed=blank))
            replace[id(interaction)] = mark
            continue
        right = _right_values(_declaration(root, interaction))
        choices = _children(interaction, "inlineChoice", "simpleChoice")
        ids = [choice.get("identifier", "") for choice in choices]
        if len(right) != 1 or right[0] not in ids:
            raise _Refusal(
                f"part {number} has {len(right)} right answers: a drop-down has one",
                skip_type=words(name_of(interaction)),
            )
        label = f"Gap {number}"
        prompt = next((child for child in interaction if name_of(child) == "prompt"), None)
        if prompt is not None:
            label = one_line(re.sub(r"<[^>]*>", " ", out.inner(prompt))) or label
        offered = [
            ForeignOption(_text_of(choice, out), identifier == right[0], _feedback(choice, out))
            for choice, identifier in zip(choices, ids, strict=True)
        ]
        # An empty choice is the drop-down's "choose..." line: ours shows its own.
        question.gaps.append(ForeignGap(label, tuple(o for o in offered if o.text or o.correct)))
        if name_of(interaction) == "choiceInteraction":
            shown = out.inner(prompt) if prompt is not None else ""
            replace[id(interaction)] = f"<p>{shown} {mark}</p>"
        else:
            replace[id(interaction)] = mark
    _as_dropdown(question, body, out, replace)


def _tolerance(root: Element) -> str:
    """An absolute tolerance the response processing compares with (`equal`'s `tolerance`)."""
    for element in root.iter():
        if name_of(element) == "equal" and attribute(element, "toleranceMode") == "absolute":
            return attribute(element, "tolerance").split(" ")[0]
    return ""


def _blanks(
    root: Element,
    body: Element,
    interactions: Sequence[Element],
    out: Content,
    question: ForeignQuestion,
) -> None:
    replace: dict[int, str] = {}
    question.blanks = []
    several = len(interactions) > 1
    for number, interaction in enumerate(interactions, 1):
        label = f"Blank {number}" if several else "Answer"
        question.blanks.append(
            _entry_blank(root, interaction, f"blank {number}", label, question.notes)
        )
        replace[id(interaction)] = f"{_FILL_LINE} ({number})" if several else _FILL_LINE
    question.kind = "fillin"
    question.stem = to_markdown(out.inner(body, replace=replace), "html")


def _entry_blank(
    root: Element, interaction: Element, name: str, label: str, notes: list[str]
) -> ForeignBlank:
    """A text entry as a blank (a fill-in's, or a gap typed in): its right texts, or its
    one right number with the tolerance of the response processing."""
    declaration = _declaration(root, interaction)
    numeric = attribute(declaration, "baseType") in ("float", "integer")
    correct = _correct(declaration)
    mapping = _mapping(declaration)
    best = max((value for _, value, _ in mapping), default=0.0)
    mapped = [(key, sensitive) for key, value, sensitive in mapping if value > 0 and value == best]
    for key, value, _ in mapping:
        if 0 < value < best and key not in correct:
            notes.append(f"{name}: partial credit for {key!r} is not carried: it is not accepted")
    if numeric:
        # Several right numbers: the first the blank's, the others (exact, as a mapping
        # compares) its other right numbers, unless the processing gives their tolerances.
        numbers = list(dict.fromkeys(parse_number(v) for v in correct + [k for k, _ in mapped]))
        if not numbers or None in numbers:
            raise _Refusal(f"{name} needs a right number")
        right, others = numbers[0], [(n, Decimal(0)) for n in numbers[1:] if n is not None]
        assert right is not None
        comparison = qti_compare.comparison_of(root, attribute(interaction, "responseIdentifier"))
        try:
            band = qti_compare.band(comparison, float(right)) if comparison is not None else None
        except qti_compare.CompareError as error:
            raise _Refusal(f"{name}: {error}") from None
        if band is not None:
            # This response's own comparison: within a tolerance, or rounded.
            right, tolerance = (
                qti_compare.as_decimal(band.number),
                qti_compare.as_decimal(band.tolerance),
            )
            notes.append(f"{name}: {band.note}")
        elif comparison is None:
            # Compared somewhere we do not follow (the response not a direct operand): the
            # item's absolute tolerance, as before this response's own comparison was read.
            tolerance = abs(parse_number(_tolerance(root) or "0") or Decimal(0))
            if tolerance:
                notes.append(
                    f"{name}: the tolerance {number_text(tolerance)} is read from its response "
                    "processing"
                )
        else:
            tolerance = Decimal(0)  # its own comparison is exact
        more = tuple(qti_typed.more_ranges(root, attribute(interaction, "responseIdentifier")))
        more = more or tuple(others)
        return ForeignBlank(label, number=right, tolerance=tolerance, more_numbers=more)
    patterns = qti_typed.patterns_of(root, attribute(interaction, "responseIdentifier"))
    texts = correct + [key for key, _ in mapped] + [pattern.text for pattern in patterns]
    accepted = list(dict.fromkeys(one_line(value) for value in texts))
    if not accepted or "" in accepted:
        raise _Refusal(f"{name} has no right answer of one line")
    cases = [sensitive for _, sensitive in mapped] + [p.match_case for p in patterns]
    match_case = all(cases) if cases else True
    return ForeignBlank(
        label, accepted=tuple(accepted), match_case=match_case, wildcards=bool(patterns)
    )
