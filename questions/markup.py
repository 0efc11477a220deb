"""Author markdown to safe HTML.

Authors are trusted to write content, not markup: whatever the markdown produces passes through
nh3's allow-list, so no script, style, event handler or `javascript:` link reaches a page.
Images are allowed only from our own media URLs (`/media/q/<sha256>.<ext>`, questions.media.images):
no external image, no `data:` URI; an `<img>` with any other source is removed.
"""

import html as html_lib
import re
import threading

import markdown as markdown_lib
import nh3
from django.utils.safestring import SafeString, mark_safe

ALLOWED_TAGS = {
    "p", "br", "hr", "strong", "em", "b", "i", "code", "pre", "blockquote",
    "ul", "ol", "li", "a", "h3", "h4", "h5", "h6",
    "table", "thead", "tbody", "tr", "th", "td", "sub", "sup", "kbd", "img",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "th": {"align"},
    "td": {"align"},
    "img": {"src", "alt"},
}
ALLOWED_URL_SCHEMES = {"http", "https", "mailto"}
EXTENSIONS = ["fenced_code", "tables", "sane_lists"]
# The one image source allowed: our content-addressed media (questions.media.images.FILE_NAME).
IMAGE_SOURCE = re.compile(r"^/media/q/[0-9a-f]{64}\.(?:png|jpg|gif|webp)$")
_IMG_WITHOUT_SOURCE = re.compile(r"<img(?![^>]*\ssrc=)[^>]*>")


def _attribute_filter(tag: str, attribute: str, value: str) -> str | None:
    if tag == "img" and attribute == "src" and not IMAGE_SOURCE.match(value):
        return None
    return value


# Text with none of these characters comes out of the HTML parser and serialiser as it went
# in: no tag, entity or comment can start without `<` or `&`, and what the parser changes
# otherwise is `>` and U+00A0 (escaped), CR (newlines normalised), NUL (dropped) and a leading
# U+FEFF (a byte order mark). Lone surrogates are left to nh3, which refuses them.
_PARSED_DIFFERENTLY = re.compile(r"[<>&\r\x00\xa0\ufeff\ud800-\udfff]")


def sanitise_html(html: str) -> str:
    """HTML through the allow-list: what author Markdown and imported HTML both pass."""
    if not _PARSED_DIFFERENTLY.search(html):
        # Plain text, such as most imported options and feedback: nothing to clean. Parsing
        # it cost an import of 10,000 QTI questions 2 to 3 s.
        return html
    cleaned = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        attribute_filter=_attribute_filter,
        url_schemes=ALLOWED_URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
    )
    # An image whose source was not ours has lost it: nothing left to show.
    return _IMG_WITHOUT_SOURCE.sub("", cleaned)


_local = threading.local()


def _converter() -> markdown_lib.Markdown:
    # Building a Markdown object costs more than converting a short text with it: keep one
    # per thread (they are not thread-safe) and reset it between texts.
    converter = getattr(_local, "converter", None)
    if converter is None:
        converter = _local.converter = markdown_lib.Markdown(
            extensions=EXTENSIONS, output_format="html"
        )
    return converter


def render_markdown(text: str) -> SafeString:
    """Render author markdown to sanitised HTML, safe to put in a template as it is."""
    if not text:
        return mark_safe("")
    html = _converter().reset().convert(text)
    return mark_safe(sanitise_html(html))  # noqa: S308 - sanitised by nh3 just above


def render_markdown_inline(text: str) -> SafeString:
    """Like render_markdown, without the paragraph around a one-paragraph text: for option
    texts, which sit inside a <label> where a <p> does not belong."""
    html = str(render_markdown(text)).strip()
    if html.startswith("<p>") and html.endswith("</p>") and html.count("<p>") == 1:
        html = html[3:-4]
    return mark_safe(html)  # noqa: S308 - sanitised by render_markdown


# Python-Markdown's backslash escapes: `\*` is a star, not emphasis.
_ESCAPED = re.compile(r"\\([\\`*_{}\[\]()>#+\-.!])")
_FENCE = re.compile(r"```.*?```", re.S)
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_LINE_MARKERS = re.compile(r"^\s{0,3}(?:#{1,6}\s+|[-*+]\s+|\d+[.)]\s+|>\s?)", re.M)
_EMPHASIS = re.compile(r"(\*\*|__|\*|_|`)(?=\S)(.+?)(?<=\S)\1")
_TAG = re.compile(r"<[^>]*>")


def quick_snippet(text: str, length: int) -> str:
    """Plain text from the start of author markdown, without running the markdown renderer:
    for lists of many questions, where rendering each stem would cost more than the page.
    The result is plain text, the characters a reader sees; templates escape it.

    Markdown spells some characters as entities or backslash escapes: the importers write a
    `<` of plain text as `&lt;` and a star as `\\*`. Left so, the template escaped them again
    and a title read `What &amp;lt;script&amp;gt;`. Escapes become entities first, out of the
    way of the markup's patterns; once the tags are gone, every entity is its character."""
    text = _ESCAPED.sub(lambda match: f"&#{ord(match.group(1))};", text)
    text = _FENCE.sub(" ", text)
    text = _LINK.sub(r"\1", text)
    text = _LINE_MARKERS.sub("", text)
    text = _EMPHASIS.sub(r"\2", text)
    text = _TAG.sub("", text)
    text = " ".join(html_lib.unescape(text).split())
    if len(text) <= length:
        return text
    return text[: length - 1].rsplit(" ", 1)[0].rstrip(",;:.") + "…"
