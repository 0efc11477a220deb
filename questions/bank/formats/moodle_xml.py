"""Moodle XML (https://docs.moodle.org/en/Moodle_XML_format) read into a `ParsedBank`.

A `<quiz>` of `<question type="...">` elements. `type="category"` puts the questions after it
in that category (`$course$/top/A/B`: A, then B). Read: `multichoice` (`<single>` true or
false; an answer with a fraction above 0 is right, `<feedback>` per answer,
`<generalfeedback>`) and `truefalse` (options True then False); the types beyond choice in
`moodle_types`, the calculated ones, as one instance each, in `moodle_calculated`. What no
machine can grade here is skipped with its place. Text is converted from its `format`
attribute (html, moodle_auto_format, markdown, plain_text) as a learner would see it.

The file is parsed only through defusedxml: a file that declares entities (an entity bomb,
an external entity) is refused as a whole, never expanded or fetched. Images embedded as
`<file encoding="base64">` and shown as `<img src="@@PLUGINFILE@@/name">` (or Moodle 1.9's
`<image>` with `<image_base64>`) are kept for storing (questions.media.images) and shown from our
URL; any other file, and an image that is not one we accept, becomes a visible
`[image: name]` or `[file: name]` and the question's notes say so.
"""

import hashlib
import html
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote
from xml.etree.ElementTree import Element, TreeBuilder

from defusedxml import DefusedXmlException, EntitiesForbidden, ExternalReferenceForbidden
from defusedxml.ElementTree import DefusedXMLParser
from defusedxml.ElementTree import ParseError as XMLSyntaxError

from questions.bank.checks import TOO_DEEP, nests_deeper_than
from questions.bank.formats import moodle_calculated, moodle_types
from questions.bank.formats.foreign import (
    MAX_FILE_BYTES,
    ForeignCaseStudy,
    ForeignFileError,
    ForeignOption,
    ForeignQuestion,
    ParsedBank,
    ParseError,
    Skipped,
    TextFormat,
    decode_text,
    plain_to_markdown,
    to_markdown,
    to_plain_text,
)
from questions.bank.formats.graded import unequal_weights
from questions.media.images import MediaError, check_image, decode_base64

FORMAT = "moodle-xml"

TEXT_FORMATS: dict[str, TextFormat] = {
    "html": "html",
    "moodle_auto_format": "moodle",
    "markdown": "markdown",
    "plain_text": "plain",
}
# How reports name the types that are skipped; any other type is named as the file has it.
SKIPPED_TYPES = {
    "essay": "essay",
    "matching": "matching",
    "numerical": "numerical",
    "shortanswer": "short answer",
    "cloze": "cloze (embedded answers)",
    "multianswer": "cloze (embedded answers)",
    "description": "description",
    "ddwtos": "drag and drop into text",
    "gapselect": "select missing words",
    "calculated": "calculated",
    "calculatedsimple": "calculated",
    "calculatedmulti": "calculated",
}

Parsed = ForeignQuestion | Skipped | ParseError
# The types beyond choice (questions.bank.formats.moodle_types), each read by its function.
OTHER_TYPES: dict[str, Callable[[ForeignQuestion, Element, moodle_types.Texts, str], Parsed]] = {
    "matching": moodle_types.matching,
    "ordering": moodle_types.ordering,
    "ddwtos": moodle_types.gaps,
    "gapselect": moodle_types.gaps,
    "kprime": moodle_types.kprime,
    "mtf": moodle_types.kprime,
    "ddmatch": moodle_types.matching,
    "numerical": moodle_types.typed,
    "shortanswer": moodle_types.typed,
    "multianswer": moodle_types.cloze,
    "cloze": moodle_types.cloze,
}
# Why the types no machine can mark here are skipped, for the report.
SKIP_REASONS = {
    "essay": "an essay is marked by a person: no machine can grade it",
    "random": "not a question: Moodle draws one from a category",
    "randomsamatch": "not a question: Moodle draws short answers from a category",
    "ddimageortext": "it is answered on an image's regions, which no question type here has",
    "ddmarker": "it is answered on an image's regions, which no question type here has",
}


class _LineTreeBuilder(TreeBuilder):
    """Remembers the line each `<question>` starts on, for the report."""

    def __init__(self) -> None:
        super().__init__()
        self.parser: DefusedXMLParser | None = None
        self.lines: dict[Element, int] = {}

    def start(self, tag: Any, attrs: dict[Any, Any], /) -> Element:
        element = super().start(tag, attrs)
        if tag == "question" and self.parser is not None:
            # The pure-Python parser defusedxml builds on exposes its expat parser.
            self.lines[element] = self.parser.parser.CurrentLineNumber
        return element


def read(source: str | bytes) -> ParsedBank:
    bank = ParsedBank(FORMAT)
    if isinstance(source, bytes):
        try:
            text, _ = decode_text(source)
        except ForeignFileError as error:
            bank.errors.append(ParseError(0, str(error)))
            return bank
    else:
        text = source
    if len(text) > MAX_FILE_BYTES:
        bank.errors.append(
            ParseError(0, f"the file is over {MAX_FILE_BYTES // (1024 * 1024)} MB (split it)")
        )
        return bank
    parsed = _parse(text)
    if isinstance(parsed, ParseError):
        bank.errors.append(parsed)
        return bank
    root, lines = parsed
    if root.tag != "quiz":
        bank.errors.append(
            ParseError(0, f"not a Moodle XML quiz: the document is <{root.tag}>, not <quiz>")
        )
        return bank
    category: tuple[str, ...] = ()
    position = 0
    scenario = _Scenario()
    for element in root.iter("question"):
        question_type = (element.get("type") or "").strip().lower()
        line = lines.get(element, 0)
        if question_type == "category":
            scenario.close(bank)
            category = _category(element)
            continue
        position += 1
        name = " ".join(_text(element.find("name")).split())
        place = f"question {position}" + (f" “{name}”" if name else "")
        if question_type == "description":
            scenario.close(bank)
            scenario.open(element, line, place, name, category, bank)
            continue
        result = _question(element, question_type, line, place, name, category, bank)
        if isinstance(result, ForeignQuestion):
            result.case_study = scenario.case
            scenario.questions += scenario.case is not None
            bank.questions.append(result)
        elif isinstance(result, Skipped):
            bank.skipped.append(result)
        else:
            bank.errors.append(result)
    scenario.close(bank)
    return bank


@dataclass
class _Scenario:
    """A description and the questions after it in its category, up to the next description
    or category: as Moodle's quizzes show it, the scenario those questions share. A
    description with no question after it is no scenario, and is reported."""

    case: ForeignCaseStudy | None = None
    line: int = 0
    place: str = ""
    questions: int = 0
    index: int = 0

    def open(
        self,
        element: Element,
        line: int,
        place: str,
        name: str,
        category: tuple[str, ...],
        bank: ParsedBank,
    ) -> None:
        images = _Images(bank)
        text = _markdown(element.find("questiontext"), images)
        self.line, self.place, self.questions = line, place, 0
        self.index = len(bank.skipped)  # its place in the report, should it be skipped
        self.case = None
        if text:
            key = "/".join([*category, name or hashlib.sha256(text.encode()).hexdigest()[:16]])
            self.case = ForeignCaseStudy(key, name or "Scenario", text)

    def close(self, bank: ParsedBank) -> None:
        if self.line and not self.questions:
            bank.skipped.insert(
                self.index,
                Skipped(
                    self.line,
                    "description",
                    f"{self.place}: a description with no question after it in its category: "
                    "not a question, and no scenario",
                ),
            )
        self.case, self.line, self.questions = None, 0, 0


def _parse(text: str) -> tuple[Element, dict[Element, int]] | ParseError:
    builder = _LineTreeBuilder()
    parser = DefusedXMLParser(target=builder)
    builder.parser = parser
    try:
        parser.feed(text)
        root = parser.close()
    except EntitiesForbidden as error:
        if error.sysid:
            return ParseError(
                0,
                f"the file declares an external entity {error.name!r} ({error.sysid}): "
                "refused, never read (Moodle exports have no entities)",
            )
        return ParseError(
            0,
            f"the file declares an entity {error.name!r}: refused, never expanded "
            "(entity declarations are how an XML bomb works; Moodle exports have none)",
        )
    except ExternalReferenceForbidden as error:
        return ParseError(
            0, f"the file refers to an external resource ({error.sysid}): refused, never read"
        )
    except DefusedXmlException as error:
        return ParseError(0, f"the file is refused: {error}")
    except XMLSyntaxError as error:
        line, column = error.position
        message = re.sub(r": line \d+, column \d+$", "", str(error))
        return ParseError(line, f"not well-formed XML: {message} (column {column + 1})")
    # A Moodle export is five elements deep; refused like any other format's file beyond
    # the limit, whatever reads the tree later.
    if nests_deeper_than(root, iter):
        return ParseError(0, f"the file is {TOO_DEEP}")
    return root, builder.lines


def _question(
    element: Element,
    question_type: str,
    line: int,
    place: str,
    name: str,
    category: tuple[str, ...],
    bank: ParsedBank,
) -> Parsed:
    drawn: list[str] = []
    if question_type in moodle_calculated.TYPES:
        # One draw of its random numbers, read as the question that draw is.
        instance = moodle_calculated.instance(element, name or place, place, line)
        if not isinstance(instance, moodle_calculated.Instance):
            return instance
        element, question_type, drawn = instance.element, instance.type, instance.notes
    result = _read(element, question_type, line, place, name, category, bank)
    if isinstance(result, ForeignQuestion):
        result.notes[:0] = drawn
    return result


def _read(
    element: Element,
    question_type: str,
    line: int,
    place: str,
    name: str,
    category: tuple[str, ...],
    bank: ParsedBank,
) -> Parsed:
    if question_type not in ("multichoice", "multichoiceset", "truefalse", *OTHER_TYPES):
        label = SKIPPED_TYPES.get(question_type, question_type or "(no type)")
        if question_type == "description":
            return Skipped(line, label, f"{place}: a description, not a question")
        reason = SKIP_REASONS.get(
            question_type, f"{label} questions have no place in Courseiva's bank"
        )
        return Skipped(line, label, f"{place}: {reason}")
    images = _Images(bank)
    question = ForeignQuestion(
        line=line,
        kind="single",
        stem=_markdown(element.find("questiontext"), images),
        options=[],
        name=name,
        identifier=_text(element.find("idnumber")).strip(),
        category=category,
        general_feedback=_markdown(element.find("generalfeedback"), images),
    )
    # Moodle 1.9 kept a question's picture beside its text rather than in it.
    old_image = (element.findtext("image") or "").strip()
    if old_image:
        url = images.store(old_image, element.findtext("image_base64"))
        if url:
            alt = plain_to_markdown(old_image).replace("]", "")
            question.stem = f"{question.stem}\n\n![{alt}]({url})"
        else:
            question.stem = f"{question.stem}\n\n{plain_to_markdown(_placeholder(old_image))}"
            images.append(old_image)
    if question_type in OTHER_TYPES:
        texts = moodle_types.Texts(
            lambda text: _markdown(text, images),
            lambda text: to_plain_text(_text(text), _text_format(text)),
        )
        result = OTHER_TYPES[question_type](question, element, texts, place)
        return _with_notes(result, element, place, images)
    answers: list[tuple[float, Element]] = []
    for number, answer in enumerate(element.findall("answer"), start=1):
        fraction = (answer.get("fraction") or "0").strip()
        try:
            answers.append((float(fraction), answer))
        except ValueError:
            return ParseError(
                line, f"{place}: answer {number} has the fraction {fraction!r}, not a number"
            )
    if question_type == "truefalse":
        result = _true_false(question, answers, place, images)
    else:
        result = _multiple_choice(question, element, answers, place, images)
    return _with_notes(result, element, place, images)


def _with_notes(result: Parsed, element: Element, place: str, images: "_Images") -> Parsed:
    if isinstance(result, ForeignQuestion):
        # Moodle shows these by the learner's result; we have one explanation for everyone
        # (a "Well done" would then reach a learner who answered wrong), so a curator decides.
        dropped = [
            label
            for tag, label, default in _COMBINED_FEEDBACK
            if _plain(_text(element.find(tag))) not in ("", default)
        ]
        if dropped:
            result.notes.append(
                f"{place}: its {', '.join(dropped)} feedback is not imported (one explanation is "
                "shown whatever the answer): move what matters into the explanation"
            )
        for reason in dict.fromkeys(images.refused):
            result.notes.append(f"{place}: {reason}")
        if images.missing:
            names = ", ".join(dict.fromkeys(images.missing))
            result.notes.append(
                f"{place}: embedded file(s) {names} not imported: shown as “[image: …]” or "
                "“[file: …]” for a curator to replace"
            )
    return result


# Each with the text Moodle fills in by default, which says nothing a curator would miss.
_COMBINED_FEEDBACK = (
    ("correctfeedback", "right-answer", "Your answer is correct."),
    ("partiallycorrectfeedback", "partly-right", "Your answer is partially correct."),
    ("incorrectfeedback", "wrong-answer", "Your answer is incorrect."),
)


def _plain(html_text: str) -> str:
    """Only for comparing with Moodle's defaults, which it writes with or without `<p>`."""
    return re.sub(r"<[^>]*>", "", html_text).strip()


@dataclass
class _Images:
    """A question's embedded files: images accepted go to the bank's images; the names of
    the others stand in the text as placeholders and are listed in the notes."""

    bank: ParsedBank
    missing: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)

    def append(self, name: str) -> None:
        self.missing.append(name)

    def store(self, name: str, encoded: str | None) -> str | None:
        """The URL the image `name` will have, or None (not embedded, not an image)."""
        if not encoded or not encoded.strip():
            return None
        data = decode_base64(encoded)
        if data is None:
            self.refused.append(f"{name}: not valid base64 (or larger than an image may be)")
            return None
        try:
            image = check_image(data, name)
        except MediaError as error:
            self.refused.append(str(error))
            return None
        return self.bank.add_image(image, name)


def _multiple_choice(
    question: ForeignQuestion,
    element: Element,
    answers: list[tuple[float, Element]],
    place: str,
    images: _Images,
) -> Parsed:
    if not answers:
        return ParseError(question.line, f"{place}: a multichoice question without answers")
    # multichoiceset (the all-or-nothing plugin) is always several answers, marked together.
    all_or_nothing = element.get("type") == "multichoiceset"
    single = not all_or_nothing and (element.findtext("single") or "true").strip().lower() in (
        "true",
        "1",
    )
    fractions = [fraction for fraction, _ in answers]
    best = max(fractions)
    if best <= 0:
        return ParseError(
            question.line, f"{place}: no right answer (no answer has a fraction above 0)"
        )
    if single:
        corrects = [fraction == best for fraction in fractions]
        if sum(corrects) > 1:
            return Skipped(
                question.line,
                "multiple choice with several right answers",
                f"{place}: several answers are fully right and any one of them is enough: "
                "Courseiva's questions have one right answer, or a set to choose together",
            )
        for fraction, answer in answers:
            if 0 < fraction < best:
                question.notes.append(
                    f"{place}: partial credit ({fraction:g}%) for "
                    f"{' '.join(_text(answer).split())!r} is not carried: it is a wrong option"
                )
    else:
        corrects = [fraction > 0 for fraction in fractions]
        if sum(corrects) > 1:
            question.kind = "multiple"
            # Moodle adds up the fractions of what is chosen: partial credit.
            if not all_or_nothing:
                question.scoring = "partial"
                if note := unequal_weights([f for f in fractions if f > 0]):
                    question.notes.append(f"{place}: {note}")
    question.options = [
        ForeignOption(
            _markdown(answer, images), correct, _markdown(answer.find("feedback"), images)
        )
        for (_, answer), correct in zip(answers, corrects, strict=True)
    ]
    return question


def _true_false(
    question: ForeignQuestion,
    answers: list[tuple[float, Element]],
    place: str,
    images: _Images,
) -> Parsed:
    by_value: dict[str, tuple[float, Element]] = {}
    for fraction, answer in answers:
        value = _text(answer).strip().lower()
        if value not in ("true", "false") or value in by_value:
            return ParseError(
                question.line,
                f"{place}: a true/false question has one answer “true” and one “false” "
                f"(found {value!r})",
            )
        by_value[value] = (fraction, answer)
    if len(by_value) != 2:
        return ParseError(
            question.line, f"{place}: a true/false question has one answer “true” and one “false”"
        )
    if (by_value["true"][0] > 0) == (by_value["false"][0] > 0):
        return ParseError(
            question.line,
            f"{place}: exactly one of “true” and “false” must have a fraction above 0",
        )
    question.kind = "truefalse"
    question.options = [
        ForeignOption(
            label,
            by_value[value][0] > 0,
            _markdown(by_value[value][1].find("feedback"), images),
        )
        for value, label in (("true", "True"), ("false", "False"))
    ]
    return question


def _category(element: Element) -> tuple[str, ...]:
    """`$course$/top/Networking/Routing` as ("Networking", "Routing"). A `/` inside a
    category's name is written `//`."""
    path = (element.findtext("category/text") or "").strip()
    segments = [
        " ".join(segment.replace("\x00", "/").split())
        for segment in path.replace("//", "\x00").split("/")
    ]
    if segments and re.fullmatch(r"\$\w+\$", segments[0]):
        segments = segments[1:]
    if segments and segments[0] == "top":
        segments = segments[1:]
    return tuple(segment for segment in segments if segment)


def _text(element: Element | None) -> str:
    """The `<text>` of a Moodle text element (`<questiontext>`, `<answer>`, `<name>`)."""
    if element is None:
        return ""
    return element.findtext("text") or ""


_PLUGINFILE_IMAGE = re.compile(
    r"<img\b[^>]*?\bsrc\s*=\s*[\"']@@PLUGINFILE@@/([^\"'?#]*)[^>]*>", re.I
)
_PLUGINFILE_LINK = re.compile(
    r"<a\b[^>]*?\bhref\s*=\s*[\"']@@PLUGINFILE@@/([^\"'?#]*)[^>]*>(.*?)</a\s*>", re.I | re.S
)
_PLUGINFILE_MARKDOWN_IMAGE = re.compile(r"!\[([^\]]*)\]\(\s*@@PLUGINFILE@@/([^)\s?#]*)[^)]*\)")
_ALT = re.compile(r"\balt\s*=\s*(?:\"([^\"]*)\"|'([^']*)')", re.I)
_PLUGINFILE = re.compile(r"@@PLUGINFILE@@/([^\s\"'<>)?#]*)")


def _placeholder(name: str, kind: str = "image") -> str:
    return f"[{kind}: {name}]"


def _text_format(element: Element | None) -> TextFormat:
    value = (element.get("format") if element is not None else None) or "html"
    return TEXT_FORMATS.get(value.strip().lower(), "html")


def _markdown(element: Element | None, images: _Images) -> str:
    """A Moodle text element as our Markdown: its embedded images shown from our URL, other
    file references as placeholders (their names added to `images`)."""
    text = _text(element)
    if not text.strip() or element is None:
        return ""
    text_format = _text_format(element)
    files = {file.get("name", ""): file.text for file in element.findall("file")}

    def image(match: re.Match[str]) -> str:
        name = unquote(match.group(1))
        url = images.store(name, files.get(name))
        if url:
            alt = _ALT.search(match.group(0))
            alt_text = html.unescape((alt.group(1) or alt.group(2) or "") if alt else "")
            return f'<img src="{url}" alt="{html.escape(alt_text)}">'
        images.append(name)
        return _placeholder(name)

    def markdown_image(match: re.Match[str]) -> str:
        name = unquote(match.group(2))
        url = images.store(name, files.get(name))
        if url:
            return f"![{match.group(1)}]({url})"
        images.append(name)
        return plain_to_markdown(_placeholder(name))

    def link(match: re.Match[str]) -> str:
        name = unquote(match.group(1))
        images.append(name)
        return f"{match.group(2)} {_placeholder(name, 'file')}"

    def link_text(match: re.Match[str]) -> str:
        name = unquote(match.group(1))
        images.append(name)
        return _placeholder(name, "file")

    if text_format in ("html", "moodle"):
        text = _PLUGINFILE_IMAGE.sub(image, text)
        text = _PLUGINFILE_LINK.sub(link, text)
    elif text_format == "markdown":
        text = _PLUGINFILE_MARKDOWN_IMAGE.sub(markdown_image, text)
    text = _PLUGINFILE.sub(link_text, text)
    return to_markdown(text, text_format)
