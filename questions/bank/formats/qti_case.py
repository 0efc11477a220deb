"""A QTI item of several interactions that no one question here holds (several matches,
several gap matches, a choice beside drop-downs and a gap match ...) read as a case study:
the item body outside its interactions is the scenario, and each interaction is a question
of it (inline choices and text entries side by side in one paragraph stay together, as the
drop-downs of one question).

A part is read as an item of its own: the item with its body cut down to the part's
content (the interaction, the paragraph of inline interactions, or a prompt-less
interaction with the paragraph just before it, which asks its question), so that every
reader, its key and its scoring apply unchanged. Each part is named after the item, "<title>
(part 2 of 4)", its uid stable from the item's identity and its number. A part that cannot be
graded is reported on its own; the others are imported."""

import re
from collections.abc import Callable, Sequence
from xml.etree.ElementTree import Element

from questions.bank.formats.foreign import (
    ForeignCaseStudy,
    ForeignQuestion,
    ParseError,
    Skipped,
    to_markdown,
)
from questions.bank.formats.qti_interactions import Content
from questions.bank.formats.qti_keys import item_interactions, keyless
from questions.bank.formats.qti_names import attribute, name_of

Parsed = ForeignQuestion | Skipped | ParseError
# Reads an item (a part cut from one) under a name: its question, or why not.
PartReader = Callable[[Element, str], Parsed]

_INLINE = frozenset({"inlineChoiceInteraction", "textEntryInteraction"})
_BLOCKS = frozenset(
    {"p", "div", "li", "td", "th", "blockquote", "pre", "h3", "h4", "h5", "h6", "dd", "dt"}
)
_EMPTY_PARAGRAPH = re.compile(r"<(p|div)>\s*</\1>")
_TAG = re.compile(r"<[^>]*>")


def read(
    root: Element,
    body: Element,
    interactions: Sequence[Element],
    out: Content,
    base: ForeignQuestion,
    read_part: PartReader,
) -> list[Parsed] | Skipped:
    """The item's parts as questions of one case study (and the parts that could not be
    read, reported); one Skipped when no part could be."""
    parents = {id(child): parent for parent in body.iter() for child in parent}
    parts = _parts(body, interactions, parents)
    total = len(parts)
    title = " ".join(attribute(root, "title").split()) or base.identifier or "Item"
    results: list[Parsed] = []
    removed: dict[int, str] = {}
    for number, (content, taken) in enumerate(parts, 1):
        label = f"part {number} of {total}"
        part_root = _cut(root, body, content, f"{title} ({label})")
        result = read_part(part_root, f"{base.name or base.identifier} ({label})")
        asked = item_interactions(part_root)
        if isinstance(result, ParseError) and len(keyless(part_root, asked)) == len(asked):
            # A part with no key at all (a layout sample beside a real question) is
            # reported, not an error that holds back the parts that can be graded.
            result = Skipped(result.line, "no key", result.message)
        if isinstance(result, ForeignQuestion) and not _TAG.sub("", result.stem).strip():
            result.stem = to_markdown(f"{title} ({label})", "plain")
        results.append(result)
        removed.update({id(element): "" for element in taken})
    questions = [result for result in results if isinstance(result, ForeignQuestion)]
    if not questions:
        reasons = [r.reason if isinstance(r, Skipped) else r.message for r in _refused(results)]
        first = results[0]
        return Skipped(
            base.line,
            first.type if isinstance(first, Skipped) else "several interactions",
            "; ".join(dict.fromkeys(reasons)),
        )
    scenario = _EMPTY_PARAGRAPH.sub("", to_markdown(out.inner(body, replace=removed), "html"))
    case = None
    if _TAG.sub("", scenario).strip():
        case = ForeignCaseStudy(f"item:{base.name or base.identifier}", title, scenario.strip())
    for question in questions:
        question.case_study = case
    note = (
        f"item {base.identifier!r} ({title}): its {total} interactions are {total} questions"
        + (" of a case study whose scenario is the text around them" if case else "")
        + _scoring_note(root)
    )
    questions[0].notes.insert(0, note)
    return results


def _refused(results: list[Parsed]) -> list[Skipped | ParseError]:
    return [result for result in results if not isinstance(result, ForeignQuestion)]


def _scoring_note(root: Element) -> str:
    processing = next((child for child in root if name_of(child) == "responseProcessing"), None)
    if processing is None or attribute(processing, "template"):
        return ""
    return (
        "; its response processing scores the item as a whole: each question is scored "
        "by its own interaction's key"
    )


def _parts(
    body: Element, interactions: Sequence[Element], parents: dict[int, Element]
) -> list[tuple[list[Element], list[Element]]]:
    """Per part, what its item body holds and what leaves the scenario for it."""
    chosen = {id(element) for element in interactions}
    groups: list[list[Element]] = []
    blocks: list[Element | None] = []
    for interaction in interactions:
        block = _block(interaction, body, parents) if name_of(interaction) in _INLINE else None
        if block is not None and blocks and blocks[-1] is block:
            groups[-1].append(interaction)
            continue
        groups.append([interaction])
        blocks.append(block)
    parts = []
    for group, block in zip(groups, blocks, strict=True):
        if block is not None:
            others = [e for e in block.iter() if id(e) in chosen and all(e is not g for g in group)]
            if not others:
                parts.append(([block], [block]))
                continue
            parts.append((group, group))
            continue
        interaction = group[0]
        asked = _asking(interaction, parents, chosen)
        if name_of(interaction) in _INLINE or any(
            name_of(child) == "prompt" for child in interaction
        ):
            parts.append(([interaction], [interaction]))
        elif asked is not None:
            parts.append(([asked, interaction], [asked, interaction]))
        else:
            parts.append(([interaction], [interaction]))
    return parts


def _block(element: Element, body: Element, parents: dict[int, Element]) -> Element | None:
    """The paragraph (or other block) an inline interaction stands in."""
    parent = parents.get(id(element))
    while parent is not None and parent is not body:
        if name_of(parent) in _BLOCKS:
            return parent
        parent = parents.get(id(parent))
    return None


def _asking(interaction: Element, parents: dict[int, Element], chosen: set[int]) -> Element | None:
    """The paragraph right before a prompt-less interaction, which asks its question."""
    parent = parents.get(id(interaction))
    if parent is None:
        return None
    siblings = list(parent)
    index = next(i for i, child in enumerate(siblings) if child is interaction)
    if index == 0 or (interaction.text or "").strip():
        return None
    before = siblings[index - 1]
    if (before.tail or "").strip() or name_of(before) != "p":
        return None
    if any(id(element) in chosen for element in before.iter()):
        return None
    return before


def _cut(root: Element, body: Element, content: list[Element], title: str) -> Element:
    """The item with its body holding only `content`, titled as the part (the elements are
    shared, not copied: the part is only read)."""
    part = Element(root.tag, {**root.attrib, "title": title})
    for child in root:
        if child is body:
            part_body = Element(body.tag, body.attrib)
            part_body.extend(content)
            part.append(part_body)
        else:
            part.append(child)
    return part
