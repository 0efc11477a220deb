"""The HTML of a QTI item's content as our pages show it: QTI's own wrappers give their
content, conditional content (feedback, template blocks, rubric blocks not for the
candidate) is left out, and the images met on the way are stored or stand as placeholders.
The item reader (`qti`) and its parts read content through it."""

import html
import posixpath
from collections.abc import Callable
from dataclasses import dataclass, field
from xml.etree.ElementTree import Element

from questions.bank.formats.foreign import HTML_ELEMENTS, ParsedBank
from questions.bank.formats.qti_math import linear
from questions.bank.formats.qti_names import attribute, name_of
from questions.media.images import Image, MediaError

_VOID = frozenset({"br", "hr", "img", "wbr", "area", "col", "source", "track", "embed", "input"})
# Shown only in some views or after scoring: never part of the stem.
_CONDITIONAL = frozenset({"feedbackInline", "feedbackBlock", "modalFeedback", "templateBlock"})

# Reads an image an item refers to (its src), or raises MediaError saying why not.
ImageLoader = Callable[[str], Image]


@dataclass
class ItemHtml:
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
        if name == "math":
            return linear(element)  # our pages keep no MathML: its structure as text
        if name not in HTML_ELEMENTS or name in ("object", "svg"):
            return self.inner(element, replace=replace)  # a QTI wrapper: its content
        attributes = "".join(
            f' {key}="{html.escape(value)}"'
            for key, value in element.attrib.items()
            if "}" not in key
        )
        if name in _VOID:
            return f"<{name}{attributes}>"
        return f"<{name}{attributes}>{self.inner(element, replace=replace)}</{name}>"
