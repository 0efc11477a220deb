"""IMS QTI 2.1 and 1EdTech QTI 3.0 read into a `ParsedBank`: one item file (`read`) or a
content package, a zip with `imsmanifest.xml` (`qti_package.read_package`).

XML with a DTD is parsed only through defusedxml: a file that declares entities (the "billion
laughs" bomb, external entities that would read local files) is refused, never expanded. XML
without one cannot declare any, and goes through the standard library's faster C parser. A
package is checked before any member is read: its member count, their total uncompressed size,
and every member's name (no absolute path, no `..`, no symlink).

A `choiceInteraction` is our question: `maxChoices` 1 single answer, any other multiple; its
correct response names the right choices. The item body around the interaction (with its
`prompt`) is the stem; a choice's `feedbackInline` (or `feedbackBlock`, for paragraphs) its
rationale; `modalFeedback` (and other `feedbackBlock`s) the explanation. Other interactions
are read by qti_interactions, several that no one question holds by qti_case. QTI 2.1 and
3.0 differ mostly in spelling (`choiceInteraction`, `qti-choice-interaction`; `maxChoices`,
`max-choices`): names are read in 2.1's spelling.

A template (randomised) item is read as one instance of its values (`qti_template`), an
adaptive one as one attempt (`qti_adaptive`).

A question's place is its number in the package (1 for a single file), and every message
names the item's file and identifier.

Images (`<img src>`, `<object data>`) that are files of the package, relative to the item's
file, are kept for storing (questions.media.images) and shown from our URL, their `alt` kept; any
other (outside the package, not an image we accept, or an item file read alone) becomes a
visible "[image: path]" and a note.
"""

import functools
import html
import re
from collections.abc import Callable
from xml.etree.ElementTree import Element, XMLParser
from xml.etree.ElementTree import ParseError as XMLSyntaxError

import defusedxml.ElementTree as SafeElementTree
from defusedxml import DefusedXmlException

from questions.bank.checks import TOO_DEEP, nests_deeper_than
from questions.bank.formats import (
    qti_adaptive,
    qti_bases,
    qti_case,
    qti_interactions,
    qti_keys,
    qti_template,
)
from questions.bank.formats.foreign import (
    ForeignCaseStudy,
    ForeignOption,
    ForeignQuestion,
    ParsedBank,
    ParseError,
    Skipped,
    to_markdown,
)
from questions.bank.formats.qti_html import ImageLoader, ItemHtml
from questions.bank.formats.qti_names import attribute, name_of

FORMAT = "qti"
_CHOICE_FEEDBACK = frozenset({"feedbackInline", "feedbackBlock"})


class QtiError(Exception):
    """The file or package cannot be read at all: its message says where and why."""


def parse_xml(raw: bytes | str, place: str) -> Element:
    """The file's tree; QtiError when it is not well-formed, declares entities or nests
    deeper than any item (the item's content is read recursively)."""
    try:
        if _without_dtd(raw):
            # Nothing to defuse: entities are declared only in a DTD (<!DOCTYPE ...>), and
            # without one expat refuses any entity reference but the five predefined ones.
            # The C parser builds the tree several times faster than defusedxml's Python one.
            parser = XMLParser()  # noqa: S314 - no DTD, so nothing to expand
            parser.feed(raw)
            root = parser.close()
        else:
            root = SafeElementTree.fromstring(raw)
    except DefusedXmlException as error:
        raise QtiError(
            f"{place}: refused: the XML declares entities or external references "
            f"({type(error).__name__}), which are never expanded"
        ) from None
    except XMLSyntaxError as error:
        raise QtiError(f"{place}: not well-formed XML ({error})") from None
    if nests_deeper_than(root, iter):
        raise QtiError(f"{place}: {TOO_DEEP}")
    return root


# The start of an XML file whose bytes expat reads as ASCII (UTF-8, the default, or a
# declared ASCII-compatible encoding), where a DTD could only be spelt `<!DOCTYPE`.
_ASCII_START = re.compile(
    rb"(?:\xef\xbb\xbf)?(?!<\?xml[^>]*\sencoding\s*=\s*[\"'](?!(?:utf-8|us-ascii|iso-8859-1)[\"']))<",
    re.IGNORECASE,
)


def _without_dtd(raw: bytes | str) -> bool:
    """Whether the file certainly has no DTD. Text is parsed as UTF-8 whatever it declares;
    bytes in any other encoding (UTF-16, ...) are left to defusedxml."""
    if isinstance(raw, str):
        return "<!DOCTYPE" not in raw
    return b"<!DOCTYPE" not in raw and _ASCII_START.match(raw) is not None


# Single files -----------------------------------------------------------------------------


def read(text: str) -> ParsedBank:
    """One XML file: an item. A test or manifest alone names files it does not hold."""
    bank = ParsedBank(FORMAT)
    try:
        root = parse_xml(text, "the file")
    except QtiError as error:
        bank.errors.append(ParseError(0, str(error)))
        return bank
    kind = name_of(root)
    if kind == "assessmentItem":
        add_result(bank, read_item(root, "", 1))
    elif kind == "questestinterop":
        bank.errors.append(ParseError(0, "QTI 1.2 is not read: export QTI 2.1 or 3.0"))
    elif kind in ("assessmentTest", "manifest"):
        bank.errors.append(
            ParseError(0, f"an {kind} refers to item files: import the content package (zip)")
        )
    else:
        bank.errors.append(ParseError(0, f"not a QTI item (its root element is <{kind}>)"))
    return bank


def add_result(bank: ParsedBank, result: "ItemResult") -> None:
    if isinstance(result, list):
        for part in result:
            add_result(bank, part)
    elif isinstance(result, ForeignQuestion):
        bank.questions.append(result)
    elif isinstance(result, Skipped):
        bank.skipped.append(result)
    else:
        bank.errors.append(result)


# Items ------------------------------------------------------------------------------------

# The HTML of item content, its images stored on the way (qti_html).
_Html = ItemHtml


# Reads the shared stimulus an item refers to (its href) as a case study, or raises
# QtiError saying why not.
StimulusLoader = Callable[[str], ForeignCaseStudy]
# An item: its question, its questions and the parts that could not be read (an item of
# several interactions read as a case study), or why not.
ItemResult = ForeignQuestion | Skipped | ParseError | list[ForeignQuestion | Skipped | ParseError]


def read_item(
    root: Element,
    path: str,
    number: int,
    *,
    name: str = "",
    category: tuple[str, ...] = (),
    bank: ParsedBank | None = None,
    load: ImageLoader | None = None,
    stimulus: StimulusLoader | None = None,
) -> ItemResult:
    """One `assessmentItem` as a question (several, of a case study, for an item of several
    interactions that no one question holds), or why not. `name` overrides the identity (an
    identifier that repeats in a package); `category` is its section path; `load` reads the
    images it refers to (in a package) into `bank`'s images; `stimulus` its shared stimulus
    (`assessmentStimulusRef`), which becomes its case study."""
    result = _read_checked(root, path, number, name, category, bank, load)
    questions = [
        question
        for question in (result if isinstance(result, list) else [result])
        if isinstance(question, ForeignQuestion)
    ]
    if not questions:
        return result
    first = questions[0]
    if any(map(_ends_attempt, root.iter())):
        first.notes.append(
            f"{path or 'the item'}: its button that ends the attempt (for a hint or the "
            "solution) is not carried: the explanation shows after answering"
        )
    refs = [child for child in root if name_of(child) == "assessmentStimulusRef"]
    if not refs:
        return result
    href = attribute(refs[0], "href")
    if stimulus is None:
        first.notes.append(
            f"{path or 'the item'}: its shared stimulus {href} is another file of its package: "
            "import the package to have it as a case study"
        )
        return result
    try:
        shared = stimulus(href)
    except QtiError as error:
        return ParseError(number, f"{path or 'the item'}: {error}")
    for question in questions:
        own = question.case_study
        # An item read as a case study of its own: the stimulus opens its scenario.
        question.case_study = (
            shared
            if own is None
            else ForeignCaseStudy(own.key, own.title, f"{shared.scenario}\n\n{own.scenario}")
        )
    if len(refs) > 1:
        first.notes.append(
            f"{path or 'the item'}: only its first shared stimulus is its case study"
        )
    return result


def _read_checked(
    root: Element,
    path: str,
    number: int,
    name: str,
    category: tuple[str, ...],
    bank: ParsedBank | None,
    load: ImageLoader | None,
) -> ItemResult:
    """The item read, its key taken from its response processing where the declarations
    have none, and a refusal for want of a key said as such (qti_keys)."""
    return qti_keys.checked(
        root,
        qti_keys.item_place(root, path),
        lambda: _read_item(root, path, number, name, category, bank, load),
    )


def _ends_attempt(element: Element) -> bool:
    return name_of(element) == "endAttemptInteraction"


def _read_item(
    root: Element,
    path: str,
    number: int,
    name: str,
    category: tuple[str, ...],
    bank: ParsedBank | None,
    load: ImageLoader | None,
) -> ItemResult:
    identifier = root.get("identifier", "")
    title = root.get("title", "")
    place = f"{path + ', ' if path else ''}item {identifier!r}" + (f" ({title})" if title else "")
    body = next((child for child in root if name_of(child) == "itemBody"), None)
    if body is None:
        return Skipped(number, "no item body", f"{place}: nothing to ask")
    again = functools.partial(
        _read_item, path=path, number=number, name=name, category=category, bank=bank, load=load
    )
    if qti_adaptive.is_adaptive(root):  # as its one attempt, read again as any other item
        return qti_adaptive.read(root, place, number, again)
    if qti_template.is_template(root):
        # One instance of its values: the item without template, read as any other.
        return qti_template.read(root, place, number, name or identifier, again)
    # A button that ends the attempt is no answer: the item's interactions are the others.
    interactions = [
        el for el in body.iter() if name_of(el).endswith("Interaction") and not _ends_attempt(el)
    ]
    if not interactions:
        return Skipped(number, "no interaction", f"{place}: nothing to answer")
    interaction = interactions[0]
    if len(interactions) > 1 or name_of(interaction) != "choiceInteraction":
        out = _Html(bank, load)
        question = ForeignQuestion(
            line=number,
            kind="single",
            stem="",
            options=[],
            name=name or identifier,
            identifier=identifier,
            category=category,
            general_feedback=_explanation(root, body, out, _choice_feedback(body)),
        )
        result = qti_interactions.read(root, body, interactions, out, question, place)
        if isinstance(result, ForeignQuestion):
            _note_images(result, out, place)
            # An integer typed in another base is a text blank of its key in that base.
            result = qti_bases.typed_in_base(root, interactions, result, place)
        elif isinstance(result, Skipped) and result.type == "several interactions":
            return _as_case_study(root, path, number, body, interactions, out, question, bank, load)
        return result
    response_id = attribute(interaction, "responseIdentifier")
    declaration = next(
        (
            child
            for child in root
            if name_of(child) == "responseDeclaration" and child.get("identifier") == response_id
        ),
        None,
    )
    if declaration is None:
        return ParseError(number, f"{place}: no responseDeclaration {response_id!r}")
    choices = [child for child in interaction if name_of(child) == "simpleChoice"]
    choice_ids = [choice.get("identifier", "") for choice in choices]
    notes: list[str] = []
    correct = _correct_values(declaration, "correctResponse")
    if not correct:
        # Some tools score by a mapping alone: its positive entries are the right answers.
        correct = _mapped_values(declaration)
        if correct:
            notes.append(f"{place}: no correct response; the positively mapped choices are")
    if not correct:
        return ParseError(number, f"{place}: the choice has no correct response")
    unknown = [value for value in correct if value not in choice_ids]
    if unknown:
        return ParseError(
            number,
            f"{place}: the correct response names {', '.join(map(repr, unknown))}, which is "
            f"no choice (choices: {', '.join(choice_ids)})",
        )
    out = _Html(bank, load)
    prompt = next((child for child in interaction if name_of(child) == "prompt"), None)
    stem = out.inner(
        body, replace={id(interaction): out.inner(prompt) if prompt is not None else ""}
    )
    options = []
    rationales: set[int] = set()
    for choice in choices:
        # A choice's own feedback (inline, or a block for paragraphs) is its rationale.
        feedbacks = [child for child in choice if name_of(child) in _CHOICE_FEEDBACK]
        rationales.update(map(id, feedbacks))
        feedback = " ".join(out.inner(child) for child in feedbacks)
        options.append(
            ForeignOption(
                text=to_markdown(out.inner(choice), "html"),
                correct=choice.get("identifier", "") in correct,
                feedback=to_markdown(feedback, "html"),
            )
        )
    max_choices = attribute(interaction, "maxChoices", "1").strip()
    explanation = _explanation(root, body, out, rationales)
    question = ForeignQuestion(
        line=number,
        kind="single" if max_choices == "1" else "multiple",
        stem=to_markdown(stem, "html"),
        options=options,
        name=name or identifier,
        identifier=identifier,
        category=category,
        general_feedback=explanation,
        notes=notes,
    )
    if question.kind == "multiple":
        # A mapping adds up what is chosen: partial credit; match_correct is all or nothing.
        scoring, note = qti_interactions.scoring(root, 1, pairs=True)
        if scoring == "partial":
            question.scoring = scoring
            if note:
                question.notes.append(f"{place}: {note}")
    _note_images(question, out, place)
    return question


def _as_case_study(
    root: Element,
    path: str,
    number: int,
    body: Element,
    interactions: list[Element],
    out: _Html,
    question: ForeignQuestion,
    bank: ParsedBank | None,
    load: ImageLoader | None,
) -> ItemResult:
    def read_part(part: Element, name: str) -> ForeignQuestion | Skipped | ParseError:
        result = _read_checked(part, path, number, name, question.category, bank, load)
        assert not isinstance(result, list)  # a part is one interaction or one paragraph
        return result

    parts = qti_case.read(root, body, interactions, out, question, read_part)
    if isinstance(parts, list):
        first = next(part for part in parts if isinstance(part, ForeignQuestion))
        _note_images(first, out, qti_keys.item_place(root, path))
    return parts


def _note_images(question: ForeignQuestion, out: _Html, place: str) -> None:
    for reason in dict.fromkeys(out.refused):
        question.notes.append(f"{place}: {reason}")
    for source in dict.fromkeys(out.images):
        question.notes.append(
            f"{place}: image {source} not imported: “[image: …]” stands in its place"
        )


def _choice_feedback(body: Element) -> set[int]:
    """The feedback inside choices (a choice's own, its rationale): not the explanation."""
    return {
        id(child)
        for element in body.iter()
        if name_of(element) in _CHOICES
        for child in element
        if name_of(child) in _CHOICE_FEEDBACK
    }


_CHOICES = frozenset(
    {"simpleChoice", "inlineChoice", "simpleAssociableChoice", "gapText", "hottext"}
)


def _correct_values(declaration: Element, container: str) -> list[str]:
    for child in declaration:
        if name_of(child) == container:
            return [(value.text or "").strip() for value in child if name_of(value) == "value"]
    return []


def _mapped_values(declaration: Element) -> list[str]:
    values = []
    for entry in declaration.iter():
        if name_of(entry) == "mapEntry":
            try:
                if float(attribute(entry, "mappedValue", "0")) > 0:
                    values.append(attribute(entry, "mapKey"))
            except ValueError:
                continue
    return values


_TAG_OR_SPACE = re.compile(r"<[^>]*>|\s")
_BLOCK = re.compile(r"<(?:p|div|ul|ol|table|pre|blockquote|h[1-6])[\s>]", re.IGNORECASE)


def _explanation(root: Element, body: Element, out: _Html, rationales: set[int]) -> str:
    """Modal feedback (and feedback blocks in the body but a choice's own) as one
    explanation: the non-empty ones in order, each under its title when there are several."""
    blocks = [
        element
        for element in [*root, *body.iter()]
        if name_of(element) in ("modalFeedback", "feedbackBlock") and id(element) not in rationales
    ]
    texts: dict[str, str] = {}
    for block in blocks:
        content = out.inner(block).strip()
        if _TAG_OR_SPACE.sub("", content):
            texts.setdefault(content, attribute(block, "title"))
    if len(texts) <= 1:
        return to_markdown(next(iter(texts), ""), "html")
    return to_markdown(
        "".join(
            (f"<p><strong>{html.escape(title)}</strong></p>" if title else "")
            # A paragraph of its own (the sanitiser keeps no divs, which ran untitled
            # texts together), unless it has paragraphs of its own already.
            + (text if _BLOCK.search(text) else f"<p>{text}</p>")
            for text, title in texts.items()
        ),
        "html",
    )
