"""What every part of a QTI 3.0 package is written with: the namespaces, our sanitised HTML as
XHTML children of an element, identifiers, values, a rationale's feedback, the document's
bytes."""

from html.parser import HTMLParser
from xml.etree.ElementTree import Element, SubElement, tostring

from questions.models import MEDIA_URL_PREFIX

NS = "http://www.imsglobal.org/xsd/imsqtiasi_v3p0"
CP_NS = "http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1"
_VOID = frozenset({"br", "hr", "img", "wbr", "area", "col", "source", "track", "embed", "input"})
# Where the package keeps images, and how an item (in items/) or a stimulus (in stimuli/)
# refers to them.
MEDIA_FOLDER = "media/"
ITEM_MEDIA_HREF = "../media/"


class _XhtmlBuilder(HTMLParser):
    """Sanitised HTML (ours) appended to an element as XHTML children."""

    def __init__(self, parent: Element) -> None:
        super().__init__(convert_charrefs=True)
        self.stack = [parent]
        self.last: Element | None = None  # where text goes as a tail

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = SubElement(self.stack[-1], tag, {k: v or "" for k, v in attrs})
        self.last = None
        if tag in _VOID:
            self.last = element
        else:
            self.stack.append(element)

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID:
            return
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                self.last = self.stack[depth]
                del self.stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        if self.last is not None:
            self.last.tail = (self.last.tail or "") + data
        else:
            parent = self.stack[-1]
            if len(parent):
                parent[-1].tail = (parent[-1].tail or "") + data
            else:
                parent.text = (parent.text or "") + data


def append_html(parent: Element, markup: str) -> None:
    builder = _XhtmlBuilder(parent)
    builder.feed(markup.replace(f'src="{MEDIA_URL_PREFIX}', f'src="{ITEM_MEDIA_HREF}'))
    builder.close()


def identifier_for(uid: str) -> str:
    """A QTI identifier starts with a letter; our uids may start with a digit."""
    return uid if uid[:1].isalpha() else f"q-{uid}"


def value(parent: Element, tag: str, text: str) -> None:
    SubElement(parent, tag).text = text


def base_value(parent: Element, base_type: str, text: str) -> Element:
    element = SubElement(parent, "qti-base-value", {"base-type": base_type})
    element.text = text
    return element


def variable(parent: Element, identifier: str) -> Element:
    return SubElement(parent, "qti-variable", {"identifier": identifier})


# What QTI 3 lets a qti-feedback-inline hold besides text (FeedbackInlineDType): HTML's
# inline elements. A paragraph, list or code block is not one of them.
_INLINE = frozenset({
    "a", "abbr", "acronym", "b", "bdi", "bdo", "big", "br", "cite", "code", "dfn", "em", "i",
    "img", "kbd", "label", "object", "picture", "q", "ruby", "samp", "small", "span",
    "strong", "sub", "sup", "tt", "var",
})  # fmt: skip


def rationale_in_choice(choice: Element, identifier: str, markup: str) -> None:
    """A choice's rationale, shown when FEEDBACK holds `identifier`: a qti-feedback-inline
    when it is inline content (a phrase, a sentence), else a qti-feedback-block around a
    qti-content-body (several paragraphs, a list), which the schema allows in a choice. The
    importer reads either back as the option's rationale."""
    attributes = {"outcome-identifier": "FEEDBACK", "identifier": identifier, "show-hide": "show"}
    content = Element("content")
    append_html(content, markup)
    if all(element.tag in _INLINE for element in content.iter() if element is not content):
        feedback = SubElement(choice, "qti-feedback-inline", attributes)
        body = feedback
    else:
        feedback = SubElement(choice, "qti-feedback-block", attributes)
        body = SubElement(feedback, "qti-content-body")
    body.text = content.text
    body.extend(content)


def feedback_block(identifier: str, markup: str) -> Element:
    """Content shown when FEEDBACK holds `identifier`: a part's rationale, or what to tell a
    learner who gave a common wrong answer."""
    block = Element(
        "qti-feedback-block",
        {"outcome-identifier": "FEEDBACK", "identifier": identifier, "show-hide": "show"},
    )
    append_html(SubElement(block, "qti-content-body"), markup)
    return block


def document(root: Element) -> bytes:
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + tostring(root, encoding="unicode").encode()
