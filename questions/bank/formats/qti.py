"""IMS QTI 2.1 and 1EdTech QTI 3.0 read into a `ParsedBank`: one item file (`read`) or a
content package, a zip with `imsmanifest.xml` (`read_package`).

XML with a DTD is parsed only through defusedxml: a file that declares entities (the "billion
laughs" bomb, external entities that would read local files) is refused, never expanded. XML
without one cannot declare any, and goes through the standard library's faster C parser. A
package is checked before any member is read: its member count, their total uncompressed size,
and every member's name (no absolute path, no `..`, no symlink).

A `choiceInteraction` is our question: `maxChoices` 1 single answer, any other multiple; its
correct response names the right choices. The item body around the interaction (with its
`prompt`) is the stem; a choice's `feedbackInline` (or `feedbackBlock`, for paragraphs) its
rationale; `modalFeedback` (and other `feedbackBlock`s) the explanation. Any other
interaction, or several, is skipped, never half imported. QTI 2.1 and 3.0 differ mostly in
spelling (`choiceInteraction`, `qti-choice-interaction`; `maxChoices`, `max-choices`): names
are read in 2.1's spelling.

A template (randomised) item is read as one instance of its values (`qti_template`), an
adaptive one as one attempt (`qti_adaptive`).

A package's tests give the order of its items and their categories (section titles); a
section may be a file of its own (`assessmentSectionRef`), read where the test refers to it.

A question's place is its number in the package (1 for a single file), and every message
names the item's file and identifier.

Images (`<img src>`, `<object data>`) that are files of the package, relative to the item's
file, are kept for storing (questions.media.images) and shown from our URL, their `alt` kept; any
other (outside the package, not an image we accept, or an item file read alone) becomes a
visible "[image: path]" and a note.
"""

import contextlib
import functools
import gc
import html
import io
import posixpath
import re
import stat
import zipfile
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from xml.etree.ElementTree import Element, XMLParser
from xml.etree.ElementTree import ParseError as XMLSyntaxError

import defusedxml.ElementTree as SafeElementTree
from defusedxml import DefusedXmlException

from questions.bank.checks import MAX_NESTING, TOO_DEEP, nests_deeper_than
from questions.bank.formats import qti_adaptive, qti_interactions, qti_template
from questions.bank.formats.foreign import (
    HTML_ELEMENTS,
    ForeignCaseStudy,
    ForeignOption,
    ForeignQuestion,
    ParsedBank,
    ParseError,
    Skipped,
    to_markdown,
)
from questions.bank.formats.qti_names import attribute, name_of
from questions.media.images import Image, MediaError, check_image, max_bytes

FORMAT = "qti"
ZIP_MAGIC = b"PK\x03\x04"
# A 10,000-question package is about 10,000 files and 20 MB unpacked; these leave room for
# images while refusing a zip bomb before it is inflated.
MAX_PACKAGE_FILES = 20_000
MAX_PACKAGE_BYTES = 256 * 1024 * 1024

_XML_BASE = "{http://www.w3.org/XML/1998/namespace}base"
_VOID = frozenset({"br", "hr", "img", "wbr", "area", "col", "source", "track", "embed", "input"})
# Shown only in some views or after scoring: never part of the stem.
_CONDITIONAL = frozenset({"feedbackInline", "feedbackBlock", "modalFeedback", "templateBlock"})
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
        _add(bank, read_item(root, "", 1))
    elif kind == "questestinterop":
        bank.errors.append(ParseError(0, "QTI 1.2 is not read: export QTI 2.1 or 3.0"))
    elif kind in ("assessmentTest", "manifest"):
        bank.errors.append(
            ParseError(0, f"an {kind} refers to item files: import the content package (zip)")
        )
    else:
        bank.errors.append(ParseError(0, f"not a QTI item (its root element is <{kind}>)"))
    return bank


def _add(bank: ParsedBank, result: "ForeignQuestion | Skipped | ParseError") -> None:
    if isinstance(result, ForeignQuestion):
        bank.questions.append(result)
    elif isinstance(result, Skipped):
        bank.skipped.append(result)
    else:
        bank.errors.append(result)


# Items ------------------------------------------------------------------------------------


# Reads an image an item refers to (its src), or raises MediaError saying why not.
ImageLoader = Callable[[str], Image]


@dataclass
class _Html:
    """HTML of item content: the images met on the way are loaded (`load`) into the bank's
    images, or listed as placeholders (`images`) with the reason (`refused`)."""

    bank: ParsedBank | None = None
    load: ImageLoader | None = None
    images: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)

    def image(self, element: Element, source: str) -> str:
        if self.load is not None and self.bank is not None:
            try:
                image = self.load(source)
            except MediaError as error:
                self.refused.append(str(error))
            else:
                url = self.bank.add_image(image, posixpath.basename(source))
                alt = html.escape(element.get("alt", ""))
                return f'<img src="{url}" alt="{alt}">'
        self.images.append(source)
        return html.escape(f"[image: {source}]", quote=False)

    def inner(self, element: Element, *, replace: dict[int, str] | None = None) -> str:
        text = element.text
        parts = [html.escape(text, quote=False)] if text else []
        for child in element:
            parts.append(self.outer(child, replace=replace))
            tail = child.tail
            if tail:
                parts.append(html.escape(tail, quote=False))
        return "".join(parts)

    def outer(self, element: Element, *, replace: dict[int, str] | None = None) -> str:
        if replace and id(element) in replace:
            return replace[id(element)]
        name = name_of(element)
        if name in _CONDITIONAL:
            return ""
        if name == "rubricBlock" and "candidate" not in attribute(element, "view", "candidate"):
            return ""
        if name in ("img", "object") and (element.get("src") or element.get("data")):
            return self.image(element, element.get("src") or element.get("data") or "")
        if name not in HTML_ELEMENTS or name in ("object", "math", "svg"):
            return self.inner(element, replace=replace)  # a QTI wrapper: its content
        attributes = "".join(
            f' {key}="{html.escape(value)}"'
            for key, value in element.attrib.items()
            if "}" not in key
        )
        if name in _VOID:
            return f"<{name}{attributes}>"
        return f"<{name}{attributes}>{self.inner(element, replace=replace)}</{name}>"


# Reads the shared stimulus an item refers to (its href) as a case study, or raises
# QtiError saying why not.
StimulusLoader = Callable[[str], ForeignCaseStudy]


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
) -> ForeignQuestion | Skipped | ParseError:
    """One `assessmentItem` as a question, or why not. `name` overrides the identity (an
    identifier that repeats in a package); `category` is its section path; `load` reads the
    images it refers to (in a package) into `bank`'s images; `stimulus` its shared stimulus
    (`assessmentStimulusRef`), which becomes its case study."""
    result = _read_item(root, path, number, name, category, bank, load)
    if isinstance(result, ForeignQuestion) and any(map(_ends_attempt, root.iter())):
        result.notes.append(
            f"{path or 'the item'}: its button that ends the attempt (for a hint or the "
            "solution) is not carried: the explanation shows after answering"
        )
    refs = [child for child in root if name_of(child) == "assessmentStimulusRef"]
    if not refs or not isinstance(result, ForeignQuestion):
        return result
    href = attribute(refs[0], "href")
    if stimulus is None:
        result.notes.append(
            f"{path or 'the item'}: its shared stimulus {href} is another file of its package: "
            "import the package to have it as a case study"
        )
        return result
    try:
        result.case_study = stimulus(href)
    except QtiError as error:
        return ParseError(number, f"{path or 'the item'}: {error}")
    if len(refs) > 1:
        result.notes.append(
            f"{path or 'the item'}: only its first shared stimulus is its case study"
        )
    return result


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
) -> ForeignQuestion | Skipped | ParseError:
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
            + f"<div>{text}</div>"
            for text, title in texts.items()
        ),
        "html",
    )


# Packages ---------------------------------------------------------------------------------


def read_package(raw: bytes) -> ParsedBank:
    """A content package: the items of its tests in their order, each section's title a
    category; items the manifest lists outside any test after them."""
    bank = ParsedBank(FORMAT)
    try:
        archive = open_package(raw)
        with _without_cycle_collection():
            _read_package(archive, bank)
    except QtiError as error:
        bank.errors.append(ParseError(0, str(error)))
    return bank


@contextlib.contextmanager
def _without_cycle_collection() -> Iterator[None]:
    """Reading a package makes a few hundred thousand elements and strings, none of them in
    a reference cycle: the cycle collector would walk the process's whole heap again and
    again for nothing (a third of the reading time in a process that holds a large bank).
    It is paused while the package is read, and resumed by whoever paused it first."""
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def open_package(raw: bytes) -> zipfile.ZipFile:
    """The zip, once its member names, count and sizes are found safe to read."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except zipfile.BadZipFile as error:
        raise QtiError(f"not a readable zip archive ({error})") from None
    members = archive.infolist()
    if len(members) > MAX_PACKAGE_FILES:
        raise QtiError(
            f"refused: the package has {len(members)} files; packages are read up to "
            f"{MAX_PACKAGE_FILES}"
        )
    total = sum(member.file_size for member in members)
    if total > MAX_PACKAGE_BYTES:
        raise QtiError(
            f"refused: the package unpacks to {total / 1e6:.0f} MB; packages are read up to "
            f"{MAX_PACKAGE_BYTES // (1024 * 1024)} MB unpacked"
        )
    for member in members:
        name = member.filename
        if name.startswith(("/", "\\")) or re.match(r"^[A-Za-z]:", name):
            raise QtiError(f"refused: the package holds an absolute path ({name})")
        if ".." in re.split(r"[\\/]", name):
            raise QtiError(f"refused: the package holds a path out of it ({name})")
        if stat.S_ISLNK(member.external_attr >> 16):
            raise QtiError(f"refused: the package holds a symbolic link ({name})")
    return archive


def _member(archive: zipfile.ZipFile, path: str) -> bytes:
    try:
        info = archive.getinfo(path)
    except KeyError:
        raise QtiError(f"{path}: listed but not in the package") from None
    try:
        with archive.open(info) as stream:
            # The header's size was checked; a member that inflates past it is refused.
            data = stream.read(info.file_size + 1)
    except (zipfile.BadZipFile, OSError, EOFError) as error:
        raise QtiError(f"{path}: cannot be unpacked ({error})") from None
    if len(data) > info.file_size:
        raise QtiError(f"{path}: unpacks to more than its header says: refused")
    return data


def _resolve(base: str, href: str, where: str) -> str:
    path = posixpath.normpath(posixpath.join(posixpath.dirname(base), href.split("#")[0]))
    if href.startswith("/") or re.match(r"^[a-z][a-z0-9+.-]*:", href) or path.startswith(".."):
        raise QtiError(f"{where}: {href!r} is not a file in the package")
    return path


@dataclass
class _Ref:
    path: str
    category: tuple[str, ...] = ()


def _read_package(archive: zipfile.ZipFile, bank: ParsedBank) -> None:
    if "imsmanifest.xml" not in archive.namelist():
        raise QtiError("not a QTI content package: no imsmanifest.xml at its top")
    manifest = parse_xml(_member(archive, "imsmanifest.xml"), "imsmanifest.xml")
    tests: list[str] = []
    items: list[str] = []
    for element in manifest.iter():
        if name_of(element) != "resource":
            continue
        kind = element.get("type", "")
        href = element.get("href", "")
        if not href or not kind.startswith("imsqti_"):
            continue
        path = _resolve("imsmanifest.xml", element.get(_XML_BASE, "") + href, "imsmanifest.xml")
        if "_test_" in kind:
            tests.append(path)
        elif "_item_" in kind:
            items.append(path)
    refs: dict[str, _Ref] = {}
    files_read: set[str] = set()
    for test_path in tests:
        test = parse_xml(_member(archive, test_path), test_path)
        _walk_test(test, test_path, (), refs, archive, files_read)
    for path in items:
        refs.setdefault(path, _Ref(path))
    if not refs:
        raise QtiError("imsmanifest.xml lists no QTI items or tests")
    parsed: list[tuple[int, _Ref, Element]] = []
    for number, ref in enumerate(refs.values(), start=1):
        try:
            parsed.append((number, ref, parse_xml(_member(archive, ref.path), ref.path)))
        except QtiError as error:
            bank.errors.append(ParseError(number, str(error)))
    identifiers = Counter(root.get("identifier", "") for _, _, root in parsed)
    for identifier, count in identifiers.items():
        if count > 1:
            bank.notes.append(
                f"item identifier {identifier!r} is used by {count} items: each is known by "
                "its identifier and file"
            )
    stimuli: dict[str, ForeignCaseStudy] = {}
    for number, ref, root in parsed:
        if name_of(root) != "assessmentItem":
            bank.errors.append(ParseError(number, f"{ref.path}: not a QTI item"))
            continue
        identifier = root.get("identifier", "")
        name = f"{identifier} {ref.path}" if identifiers[identifier] > 1 else identifier
        load = _image_loader(archive, ref.path)
        read = functools.partial(_read_stimulus, archive, ref.path, bank, stimuli)
        _add(
            bank,
            read_item(
                root,
                ref.path,
                number,
                name=name,
                category=ref.category,
                bank=bank,
                load=load,
                stimulus=read,
            ),
        )


def _read_stimulus(
    archive: zipfile.ZipFile,
    item_path: str,
    bank: ParsedBank,
    read: dict[str, ForeignCaseStudy],
    href: str,
) -> ForeignCaseStudy:
    """A shared stimulus as a case study, read once per file however many items share it."""
    path = _resolve(item_path, href, item_path)
    if path not in read:
        root = parse_xml(_member(archive, path), path)
        if name_of(root) != "assessmentStimulus":
            raise QtiError(f"{path} is no assessment stimulus")
        body = next((child for child in root if name_of(child) == "stimulusBody"), None)
        out = _Html(bank, _image_loader(archive, path))
        scenario = to_markdown(out.inner(body), "html") if body is not None else ""
        title = " ".join((root.get("title") or root.get("identifier") or "").split())
        read[path] = ForeignCaseStudy(f"stimulus:{path}", title or "Scenario", scenario)
    return read[path]


def _image_loader(archive: zipfile.ZipFile, item_path: str) -> ImageLoader:
    def load(source: str) -> Image:
        try:
            path = _resolve(item_path, source, item_path)
            info = archive.getinfo(path)
        except (QtiError, KeyError):
            raise MediaError(f"{source}: not a file in the package") from None
        if info.file_size > max_bytes():
            raise MediaError(
                f"{source}: the file is {info.file_size / 1e6:.1f} MB; images are accepted up "
                f"to {max_bytes() / 1e6:.1f} MB"
            )
        try:
            data = _member(archive, path)
        except QtiError as error:
            raise MediaError(str(error)) from None
        return check_image(data, source)

    return load


def _walk_test(
    element: Element,
    test_path: str,
    sections: tuple[str, ...],
    refs: dict[str, _Ref],
    archive: zipfile.ZipFile,
    files_read: set[str],
) -> None:
    """The item refs under a test (or a section), in order, with their section titles. A
    section kept in a file of its own (`assessmentSectionRef`) is read there, its item refs
    relative to it; each section file once (a file referred to again, or by itself, adds
    nothing new)."""
    # Each file is within the limit, but a chain of section files adds up.
    if len(sections) > MAX_NESTING:
        raise QtiError(f"{test_path}: its sections are {TOO_DEEP}")
    for child in element:
        kind = name_of(child)
        if kind == "assessmentSection":
            title = " ".join(child.get("title", "").split()) or child.get("identifier", "")
            _walk_test(child, test_path, (*sections, title), refs, archive, files_read)
        elif kind == "assessmentSectionRef":
            path = _resolve(test_path, child.get("href", ""), test_path)
            if path in files_read:
                continue
            files_read.add(path)
            try:
                archive.getinfo(path)
            except KeyError:
                raise QtiError(f"{test_path}: its section {path} is not in the package") from None
            section = parse_xml(_member(archive, path), path)
            if name_of(section) != "assessmentSection":
                raise QtiError(f"{path}: not a QTI assessment section ({test_path} refers to it)")
            title = (
                " ".join(section.get("title", "").split())
                or section.get("identifier", "")
                or child.get("identifier", "")
            )
            _walk_test(section, path, (*sections, title), refs, archive, files_read)
        elif kind == "assessmentItemRef":
            path = _resolve(test_path, child.get("href", ""), test_path)
            refs.setdefault(path, _Ref(path, sections))
        elif kind == "testPart":
            _walk_test(child, test_path, sections, refs, archive, files_read)
