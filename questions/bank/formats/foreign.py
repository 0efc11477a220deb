"""What a foreign bank file (GIFT, Aiken, Moodle XML, QTI) is read into, whatever its format:
questions of every item type with their place in the file, what was skipped and why, what is
wrong and where. A reader (`formats.gift`, `formats.aiken`) turns decoded text into a `ParsedBank`;
`questions.bank.foreign_import` checks it and writes it into an exam.

Also here, because every reader needs them: decoding the bytes of a file (UTF-8 with or
without BOM, UTF-16 with BOM, Windows-1252), telling a file's format from its content, and
turning source text (plain, HTML, Markdown) into our Markdown so that a learner sees what the
source's author meant and nothing unsafe.
"""

import codecs
import hashlib
import html
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal

from questions.markup import sanitise_html
from questions.media.images import Image

# Larger than any real bank export (10,000 GIFT questions are about 4 MB), small enough that a
# mistaken upload of a disc image is refused before it is read.
MAX_FILE_BYTES = 32 * 1024 * 1024

# "truefalse" is a single-answer question of two options, True then False; the others are
# questions.models.Kind's values, with the fields of their type below.
ForeignKind = Literal[
    "single", "multiple", "truefalse", "ordering", "matching", "yesno", "fillin", "dropdown"
]
ForeignScoring = Literal["all", "partial"]
TextFormat = Literal["plain", "html", "markdown", "moodle"]


@dataclass(frozen=True)
class ForeignOption:
    """A choice, a matching pool's answer (`correct` unused) or a drop-down's choice."""

    text: str  # our Markdown, already converted from the source's format
    correct: bool
    feedback: str = ""  # our Markdown; "" when the source has none


@dataclass(frozen=True)
class ForeignStep:
    """An ordering's step: `place` 1 first, None for a step that does not belong."""

    text: str
    place: int | None
    feedback: str = ""


@dataclass(frozen=True)
class ForeignPrompt:
    """A matching's prompt: `answer` is the index (0 first) of its answer in the pool."""

    text: str
    answer: int
    feedback: str = ""


@dataclass(frozen=True)
class ForeignStatement:
    text: str
    is_yes: bool
    feedback: str = ""


@dataclass(frozen=True)
class ForeignBlank:
    """A fill-in blank: accepted texts, or a number with its tolerance and units. The wrong
    answers' feedback is plain text, (answer, feedback) pairs; `feedback` is the rationale.
    With `wildcards`, "*" in an accepted text (or a wrong answer) is any run of characters
    and "\\*" a star; `more_numbers` are other right numbers, (number, tolerance) each."""

    label: str
    accepted: tuple[str, ...] = ()
    match_case: bool = False
    wildcards: bool = False
    number: Decimal | None = None
    tolerance: Decimal = Decimal(0)
    more_numbers: tuple[tuple[Decimal, Decimal], ...] = ()
    units: tuple[str, ...] = ()
    wrong_answers: tuple[tuple[str, str], ...] = ()
    feedback: str = ""


@dataclass(frozen=True)
class ForeignGap:
    """A gap at [[n]] in the question's exhibit (n its number, 1 first): a drop-down of its
    choices, or, with `typed` and no choices, a blank typed in place (a cloze's short answer
    or number, a QTI text entry beside inline choices)."""

    label: str
    choices: tuple[ForeignOption, ...]
    feedback: str = ""
    typed: ForeignBlank | None = None


@dataclass(frozen=True)
class ForeignCaseStudy:
    """A scenario that several questions of the file share (a Moodle description, a QTI
    shared stimulus). `key` identifies it in its source, so that importing again updates it."""

    key: str
    title: str
    scenario: str  # our Markdown


@dataclass
class ForeignQuestion:
    """One question as a foreign file gives it. `key` is what identifies it in its source: its
    name (GIFT `::name::`, Moodle XML `<name>`), its identifier (QTI), or failing both a hash
    of its content; with the target exam and topic it makes the question's stable uid.

    A choice question has `options`; an ordering `steps`; a matching `pool` and `prompts`
    (`reuse_answers` when one answer fits several); a yes/no series `statements`; a fill-in
    `blanks`; drop-downs `gaps`, with the `exhibit` marking each. The checks and the rows
    written are those of our JSON import (questions.bank.item_fields)."""

    line: int
    kind: ForeignKind
    stem: str
    options: list[ForeignOption]
    name: str = ""
    identifier: str = ""
    category: tuple[str, ...] = ()
    general_feedback: str = ""
    # What the source says that our model cannot carry (partial credit, ...): for the report.
    notes: list[str] = field(default_factory=list)
    scoring: ForeignScoring = "all"
    exhibit: str = ""  # our Markdown, shown under the stem
    steps: list[ForeignStep] = field(default_factory=list)
    pool: list[ForeignOption] = field(default_factory=list)
    prompts: list[ForeignPrompt] = field(default_factory=list)
    reuse_answers: bool = False
    statements: list[ForeignStatement] = field(default_factory=list)
    blanks: list[ForeignBlank] = field(default_factory=list)
    gaps: list[ForeignGap] = field(default_factory=list)
    case_study: ForeignCaseStudy | None = None

    @property
    def key(self) -> str:
        if self.name:
            return f"name:{self.name}"
        if self.identifier:
            return f"id:{self.identifier}"
        return f"content:{self.content_hash()}"

    def typed_answers(self) -> list[ForeignBlank | None]:
        """Its answers typed in place, in the body's order: a fill-in's blanks, or each gap of
        an exhibit (None for a gap chosen from a list); none for other kinds."""
        if self.kind == "fillin":
            return list(self.blanks)
        if self.kind == "dropdown":
            return [gap.typed for gap in self.gaps]
        return []

    def content_hash(self) -> str:
        parts = [self.kind, self.stem] + [
            f"{'=' if option.correct else '~'}{option.text}" for option in self.options
        ]
        # A choice question hashes as it always did: its uid must not change.
        if self.kind not in ("single", "multiple", "truefalse"):
            parts += [
                self.exhibit,
                *(repr(item) for item in self.steps),
                *(repr(item) for item in self.pool),
                *(repr(item) for item in self.prompts),
                *(repr(item) for item in self.statements),
                *(repr(item) for item in self.blanks),
                *(repr(item) for item in self.gaps),
            ]
        return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Skipped:
    """A question of a type Courseiva does not have: reported, never half-imported."""

    line: int
    type: str
    reason: str


@dataclass(frozen=True)
class ParseError:
    """Input that is not valid in its format. `line` 0 is the file as a whole."""

    line: int
    message: str


@dataclass
class ParsedBank:
    format: str
    questions: list[ForeignQuestion] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    errors: list[ParseError] = field(default_factory=list)
    # About the file as a whole (e.g. the encoding it was read in): for the report.
    notes: list[str] = field(default_factory=list)
    # Images the questions' text refers to by their URL (questions.media.images), with the name
    # each had in the file: stored when the questions are written.
    images: dict[str, tuple[Image, str]] = field(default_factory=dict)

    def add_image(self, image: Image, name: str) -> str:
        """Keep an image for writing; its URL, for the text."""
        self.images.setdefault(image.file_name, (image, name))
        return image.url


class ForeignFileError(Exception):
    """The file cannot be read at all (size, encoding, unknown or unsupported format)."""


# Decoding ---------------------------------------------------------------------------------

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def decode_text(raw: bytes) -> tuple[str, str]:
    """The text of a file and the encoding it was read in. UTF-8 (with or without BOM) and
    UTF-16 with a BOM are taken as such; other bytes are tried as Windows-1252 (what Word and
    older Windows tools save as "ANSI"), accepted when the result is ordinary text."""
    if len(raw) > MAX_FILE_BYTES:
        raise ForeignFileError(
            f"the file is {len(raw) / 1e6:.1f} MB; foreign banks are read up to "
            f"{MAX_FILE_BYTES // (1024 * 1024)} MB (split it)"
        )
    if raw.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        raise ForeignFileError("the file is UTF-32, which is not read: save it as UTF-8")
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return raw.decode("utf-16"), "UTF-16"
        except UnicodeDecodeError as error:
            raise ForeignFileError(
                f"the file starts as UTF-16 but byte {error.start} is not ({error.reason})"
            ) from None
    if raw.startswith(codecs.BOM_UTF8):
        raw = raw[len(codecs.BOM_UTF8) :]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        utf8_error = error
    else:
        if "\x00" in text:
            raise ForeignFileError(
                "the file has NUL bytes: UTF-16 without a byte-order mark, or not a text file "
                "(save it as UTF-8)"
            )
        return text, "UTF-8"
    try:
        text = raw.decode("cp1252")
    except UnicodeDecodeError:
        text = ""
    if text and not _CONTROL.search(text):
        return text, "Windows-1252"
    raise ForeignFileError(
        f"the file is not UTF-8 (byte 0x{raw[utf8_error.start]:02x} at offset "
        f"{utf8_error.start}), UTF-16 with a byte-order mark or Windows-1252 text: "
        "save it as UTF-8"
    )


# Telling the format -------------------------------------------------------------------------

# Formats a reader exists for are in questions.bank.foreign_import.READERS; these are the ones
# detection can name. Moodle XML and QTI are recognised so that the error says what they are.
KNOWN_FORMATS = ("json", "gift", "aiken", "moodle-xml", "qti")

_AIKEN_ANSWER = re.compile(r"^\s*ANSWER\s*:\s*[A-Za-z]\s*$", re.M)
_AIKEN_OPTION = re.compile(r"^\s*[A-Za-z]\s*[.)]", re.M)
# A GIFT question may open with its text's format ("[markdown] What is..."): that "[" is
# not JSON's.
_GIFT_FORMAT_TAG = r"\[(?:html|moodle|plain|markdown)\]"
_GIFT_SIGNS = re.compile(rf"^\s*(\$CATEGORY:|::|{_GIFT_FORMAT_TAG})|(?<!\\)\{{", re.M | re.I)
# What can follow the "[" that opens a JSON document (a bank is an object; a list is read as
# JSON so that the error says what is wrong with it): an object, a list, a string, its end.
# Not a digit or a letter: GIFT opens a question with "[markdown]", or with text ("[2024]").
_JSON_LIST = re.compile(r"\[\s*([\[{\]\"]|$)")


def detect_format(text: str) -> str | None:
    """The format a file's text is in, judged from its content; None when it is none we
    know. Cheap: it looks at the start of the file and a few patterns."""
    start = text.lstrip("\ufeff \t\r\n")
    if start.startswith("{") or _JSON_LIST.match(start):
        return "json"
    if start.startswith("<"):
        head = start[:4096]
        if re.search(r"<quiz[\s>]", head):
            return "moodle-xml"
        if re.search(r"assessmentItem|questestinterop|qti-assessment-item|imsqti", head):
            return "qti"
        return None
    # An Aiken file has no answer blocks; GIFT has no ANSWER: lines.
    if (
        _AIKEN_ANSWER.search(text)
        and _AIKEN_OPTION.search(text)
        and not re.search(r"(?<!\\)\{[^}]*(?<!\\)\}", text)
    ):
        return "aiken"
    if _GIFT_SIGNS.search(text):
        return "gift"
    return None


# Text as the learner sees it ----------------------------------------------------------------

# What Python-Markdown would read as markup in running text, escaped with a backslash.
_MARKDOWN_INLINE = re.compile(r"([\\`*_\[\]])")
# What it would read as markup at the start of a line (headings, quotes, lists).
_MARKDOWN_LINE_START = re.compile(r"^(\s*)([#>+\-])", re.M)
_MARKDOWN_ORDERED = re.compile(r"^(\s*)(\d+)([.)])", re.M)


def _escape_markdown(text: str) -> str:
    text = _MARKDOWN_INLINE.sub(r"\\\1", text)
    text = _MARKDOWN_LINE_START.sub(r"\1\\\2", text)
    text = _MARKDOWN_ORDERED.sub(r"\1\2\\\3", text)
    # Leading spaces would make an indented code block of the line.
    return re.sub(r"^[ \t]+", "", text, flags=re.M)


def plain_to_markdown(text: str) -> str:
    """Plain text shown exactly as written: `<b>` and `&amp;` stay those characters, and
    Markdown's punctuation is not read as markup. Line breaks are kept."""
    escaped = html.escape(text.strip(), quote=False)
    lines = [_escape_markdown(line) for line in escaped.splitlines()]
    return "  \n".join(line for line in lines)


# The elements of HTML: a tag with another name (`<network>`, `<T>`, `<interface-id>`) is text
# that only looks like HTML, as IT questions are full of, and is kept as text.
# fmt: off
HTML_ELEMENTS = frozenset({
    "a", "abbr", "address", "area", "article", "aside", "audio", "b", "bdi", "bdo",
    "blockquote", "body", "br", "button", "canvas", "caption", "center", "cite", "code", "col",
    "colgroup", "data", "dd", "del", "details", "dfn", "dialog", "div", "dl", "dt", "em",
    "embed", "fieldset", "figcaption", "figure", "font", "footer", "form", "h1", "h2", "h3",
    "h4", "h5", "h6", "head", "header", "hr", "html", "i", "iframe", "img", "input", "ins",
    "kbd", "label", "legend", "li", "link", "main", "map", "mark", "meta", "nav", "noscript",
    "object", "ol", "optgroup", "option", "output", "p", "param", "picture", "pre", "q", "rp",
    "rt", "ruby", "s", "samp", "script", "section", "select", "small", "source", "span",
    "strike", "strong", "style", "sub", "summary", "sup", "svg", "table", "tbody", "td",
    "template", "textarea", "tfoot", "th", "thead", "time", "title", "tr", "track", "tt", "u",
    "ul", "var", "video", "wbr", "math",
})
# fmt: on
_TAG_LIKE = re.compile(r"</?([A-Za-z][A-Za-z0-9:_-]*)(?:\s[^<>]*)?/?>")
_HTML_TAG = re.compile(r"(<[^>]*>)")


def _keep_non_html_as_text(source: str) -> str:
    def replace(match: re.Match[str]) -> str:
        if match.group(1).lower() in HTML_ELEMENTS:
            return match.group(0)
        return html.escape(match.group(0), quote=False)

    # Most texts have only HTML's tags (and few distinct ones): then there is nothing to do.
    names = set(_TAG_LIKE.findall(source))
    if not names or all(name.lower() in HTML_ELEMENTS for name in names):
        return source
    return _TAG_LIKE.sub(replace, source)


def html_to_markdown(source: str, *, keep_line_breaks: bool = False) -> str:
    """HTML cleaned by the allow-list that authored Markdown goes through, kept as inline HTML
    in our Markdown (which passes it to the page as it is): a learner sees what the source
    showed, minus anything unsafe. Entities are decoded (`&eacute;` becomes é); text outside
    the tags is escaped so that Markdown reads none of it as markup. `keep_line_breaks` for
    Moodle's auto-format, where a newline in the source is a line break on the page."""
    source = _keep_non_html_as_text(source.strip())
    if keep_line_breaks:
        source = _NEWLINE.sub("<br>", source)
    cleaned = sanitise_html(source)
    if cleaned != source:
        # What the allow-list removes can leave HTML that a parser arranges otherwise (a
        # table's caption stripped leaves its text inside <table>, which a browser moves
        # before it): cleaned once more, the text is as our pages and an export show it.
        cleaned = sanitise_html(cleaned)
    # Text between the tags takes entities rather than backslashes for what Markdown would
    # read as markup: Markdown leaves a raw HTML block (`<p>...`) as it is, backslashes
    # included, while an entity means the character in either place.
    if _MARKDOWN_SIGNS.search(cleaned):
        cleaned = "".join(
            part if part.startswith("<") else part.translate(_HTML_MARKDOWN_ENTITIES)
            for part in _HTML_TAG.split(cleaned)
        )
    text = cleaned.strip()
    if "<pre" not in text or not _PRE.search(text):
        # HTML ignores newlines and runs of spaces; Markdown does not. (str.split's
        # whitespace is the regular expressions' \s, and the text is already stripped.)
        text = " ".join(text.split())
    # The start must not read as a Markdown block (heading, list item).
    if text[:1] in "+-" or text[:1].isdecimal():
        return _BLOCK_START.sub(_entity_start, text)
    return text


_NEWLINE = re.compile(r"\r?\n")
_MARKDOWN_SIGNS = re.compile(r"[\\`*_\[\]#]")
_PRE = re.compile(r"<pre[\s>]")
_BLOCK_START = re.compile(r"^([+\-])|^(\d+)([.)])")
_HTML_MARKDOWN_ENTITIES = str.maketrans({char: f"&#{ord(char)};" for char in "\\`*_[]#"})


def _entity_start(match: re.Match[str]) -> str:
    if match.group(1):
        return f"&#{ord(match.group(1))};"
    return f"{match.group(2)}&#{ord(match.group(3))};"


_FENCED = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.M | re.S)
_TOP_HEADING = re.compile(r"^ {0,3}#{1,2}(?=[ \t]|$)", re.M)
_SETEXT_HEADING = re.compile(r"^(?! {0,3}[-*+>]|\s*$)( {0,3}\S.*)\n {0,3}(?:=+|-+)[ \t]*$", re.M)


def _demote_headings(text: str) -> str:
    """A heading of level 1 or 2 as one of level 3. Our pages keep their own first two
    levels, so the sanitiser drops `<h1>` and `<h2>` and their text stands bare between
    the blocks, then reads differently once exported as HTML and imported again."""
    if "#" not in text and "\n=" not in text and "\n-" not in text:
        return text
    pieces = []
    last = 0
    for fence in _FENCED.finditer(text):
        pieces.append(_demote_in(text[last : fence.start()]))
        pieces.append(fence.group(0))
        last = fence.end()
    pieces.append(_demote_in(text[last:]))
    return "".join(pieces)


def _demote_in(text: str) -> str:
    text = _TOP_HEADING.sub("###", text)
    return _SETEXT_HEADING.sub(lambda match: f"### {match.group(1).strip()}", text)


def to_markdown(text: str, text_format: TextFormat) -> str:
    """Source text in its format as our Markdown."""
    if text_format == "markdown":
        return _demote_headings(text.strip())
    if text_format == "plain":
        return plain_to_markdown(text)
    return html_to_markdown(text, keep_line_breaks=text_format == "moodle")


_SCRIPT_LIKE = re.compile(r"<(script|style|template)\b.*?</\1\s*>", re.I | re.S)


def to_plain_text(text: str, text_format: TextFormat) -> str:
    """Source text as one line of plain text, for what we keep as plain text (a blank's
    feedback on a wrong answer, a case study's title): tags dropped (script and style with
    their content), entities decoded, runs of spaces one. Shown escaped, never as markup."""
    if text_format in ("html", "moodle"):
        text = html.unescape(re.sub(r"<[^>]*>", " ", _SCRIPT_LIKE.sub(" ", text)))
    return " ".join(text.split())


# What a fill-in number keeps (questions.bank.checks: 8 decimals, 16 digits before the point).
NUMBER_PLACES = Decimal("0.00000001")
NUMBER_LIMIT = Decimal(10) ** 16


def parse_number(text: str) -> Decimal | None:
    """A number as a source writes it ("3.14", "-2", "1e3", "2,5" with a decimal comma), to
    the 8 decimals a fill-in keeps (3.141592653589793 is 3.14159265); None for anything
    else, or one too large to keep."""
    cleaned = text.strip().replace(",", ".") if text.count(",") == 1 else text.strip()
    if not re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d{1,3})?", cleaned):
        return None
    value = Decimal(cleaned)
    if abs(value) >= NUMBER_LIMIT:
        return None
    value = value.quantize(NUMBER_PLACES).normalize()
    return value if value != 0 else Decimal(0)


def number_text(value: Decimal) -> str:
    """A number as a learner would type it: 40, 0.5, never 4E+1."""
    text = f"{value:f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def one_line(text: str, limit: int = 200) -> str:
    """A text as one line of at most `limit` characters, for an accepted answer or the
    answer a feedback is for: "" when it would not fit (the caller reports it)."""
    line = " ".join(text.split())
    return line if len(line) <= limit else ""


_YES_NO_POOLS = ({"yes": True, "no": False}, {"true": True, "false": False})


def as_yes_no(question: ForeignQuestion) -> ForeignQuestion:
    """A matching of statements to "Yes" and "No" (or "True" and "False") is the yes/no
    series it stands for, as a format without one writes it: read as one."""
    answers = [to_plain_text(answer.text, "html").casefold() for answer in question.pool]
    for pool in _YES_NO_POOLS:
        if len(answers) == 2 and set(answers) == set(pool) and question.prompts:
            question.kind = "yesno"
            question.statements = [
                ForeignStatement(prompt.text, pool[answers[prompt.answer]], prompt.feedback)
                for prompt in question.prompts
            ]
            question.pool, question.prompts, question.reuse_answers = [], [], False
            break
    return question
