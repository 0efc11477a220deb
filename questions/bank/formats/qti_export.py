"""Exams written as a 1EdTech QTI 3.0 content package (a zip): `imsmanifest.xml`, one
assessment test per exam with a section per topic, one item per question.

An item is a `qti-choice-interaction` (max-choices 1, or the number of correct options) with
its correct response; each option's rationale is a `qti-feedback-inline` shown for the chosen
options (a `qti-feedback-block` when it is more than inline content, paragraphs or a list,
which the schema does not allow in the former), and the explanation a `qti-modal-feedback`.
The response processing scores the item and sets the outcomes those feedbacks show on.
Markdown is rendered to HTML as on our pages and written as XHTML in the QTI namespace.

What QTI has no place for: the common exam trap is a second modal feedback titled "Common
exam trap" (a QTI player shows it after the explanation; our importer reads it back into the
explanation); "tempting because", "right when", difficulty, tags, references, author, review
date, related questions and status are not written.

The images the text shows (the document's "media") are files of the package, `media/<name>`,
referred to relative to the item (`../media/<name>`) and listed as the item resource's files.
"""

import base64
import io
import zipfile
from html.parser import HTMLParser
from typing import Any
from xml.etree.ElementTree import Element, SubElement, tostring

from questions.bank.checks import Document
from questions.markup import quick_snippet, render_markdown, render_markdown_inline
from questions.media.images import references
from questions.models import MEDIA_URL_PREFIX

NS = "http://www.imsglobal.org/xsd/imsqtiasi_v3p0"
CP_NS = "http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1"
_VOID = frozenset({"br", "hr", "img", "wbr", "area", "col", "source", "track", "embed", "input"})
TRAP_TITLE = "Common exam trap"


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


# Where the package keeps images, and how an item (in items/) refers to them.
MEDIA_FOLDER = "media/"
ITEM_MEDIA_HREF = "../media/"


def append_html(parent: Element, markup: str) -> None:
    builder = _XhtmlBuilder(parent)
    builder.feed(markup.replace(f'src="{MEDIA_URL_PREFIX}', f'src="{ITEM_MEDIA_HREF}'))
    builder.close()


def identifier_for(uid: str) -> str:
    """A QTI identifier starts with a letter; our uids may start with a digit."""
    return uid if uid[:1].isalpha() else f"q-{uid}"


def _value(parent: Element, tag: str, text: str) -> None:
    SubElement(parent, tag).text = text


def item_xml(question: dict[str, Any]) -> bytes:
    identifier = identifier_for(question["uid"])
    options = question["options"]
    choice_ids = [chr(ord("A") + n) for n in range(len(options))]
    correct = [cid for cid, option in zip(choice_ids, options, strict=True) if option["correct"]]
    multiple = question["kind"] == "multiple"
    cardinality = "multiple" if multiple else "single"
    root = Element(
        "qti-assessment-item",
        {
            "xmlns": NS,
            "identifier": identifier,
            "title": quick_snippet(question["stem"], 80) or identifier,
            "adaptive": "false",
            "time-dependent": "false",
        },
    )
    response = SubElement(
        root,
        "qti-response-declaration",
        {"identifier": "RESPONSE", "cardinality": cardinality, "base-type": "identifier"},
    )
    values = SubElement(response, "qti-correct-response")
    for cid in correct:
        _value(values, "qti-value", cid)
    score = SubElement(
        root,
        "qti-outcome-declaration",
        {"identifier": "SCORE", "cardinality": "single", "base-type": "float"},
    )
    _value(SubElement(score, "qti-default-value"), "qti-value", "0")
    # FEEDBACK holds the chosen options (their inline feedback shows); FEEDBACKMODAL the
    # modal feedbacks shown after any answer.
    SubElement(
        root,
        "qti-outcome-declaration",
        {"identifier": "FEEDBACK", "cardinality": cardinality, "base-type": "identifier"},
    )
    SubElement(
        root,
        "qti-outcome-declaration",
        {"identifier": "FEEDBACKMODAL", "cardinality": "multiple", "base-type": "identifier"},
    )
    body = SubElement(root, "qti-item-body")
    append_html(body, str(render_markdown(question["stem"])))
    interaction = SubElement(
        body,
        "qti-choice-interaction",
        {
            "response-identifier": "RESPONSE",
            "shuffle": "false",
            "max-choices": str(len(correct)) if multiple else "1",
        },
    )
    for cid, option in zip(choice_ids, options, strict=True):
        choice = SubElement(interaction, "qti-simple-choice", {"identifier": cid})
        append_html(choice, str(render_markdown_inline(option["text"])))
        if option["rationale"]:
            _rationale(choice, cid, str(render_markdown_inline(option["rationale"])))
    modal = [
        ("EXPLANATION", "Explanation", question["explanation"]),
        ("TRAP", TRAP_TITLE, question.get("trap", "")),
    ]
    modal = [entry for entry in modal if entry[2]]
    _response_processing(root, [key for key, _, _ in modal])
    for key, title, text in modal:
        feedback = SubElement(
            root,
            "qti-modal-feedback",
            {
                "outcome-identifier": "FEEDBACKMODAL",
                "identifier": key,
                "show-hide": "show",
                "title": title,
            },
        )
        append_html(SubElement(feedback, "qti-content-body"), str(render_markdown(text)))
    return _document(root)


# What QTI 3 lets a qti-feedback-inline hold besides text (FeedbackInlineDType): HTML's
# inline elements. A paragraph, list or code block is not one of them.
_INLINE = frozenset({
    "a", "abbr", "acronym", "b", "bdi", "bdo", "big", "br", "cite", "code", "dfn", "em", "i",
    "img", "kbd", "label", "object", "picture", "q", "ruby", "samp", "small", "span",
    "strong", "sub", "sup", "tt", "var",
})  # fmt: skip


def _rationale(choice: Element, cid: str, markup: str) -> None:
    """An option's rationale, shown when it is chosen: a qti-feedback-inline when it is
    inline content (a phrase, a sentence), else a qti-feedback-block around a
    qti-content-body (several paragraphs, a list), which the schema allows in a choice. The
    importer reads either back as the option's rationale."""
    attributes = {"outcome-identifier": "FEEDBACK", "identifier": cid, "show-hide": "show"}
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


def _response_processing(root: Element, modal_keys: list[str]) -> None:
    processing = SubElement(root, "qti-response-processing")
    condition = SubElement(processing, "qti-response-condition")
    branch = SubElement(condition, "qti-response-if")
    match = SubElement(branch, "qti-match")
    SubElement(match, "qti-variable", {"identifier": "RESPONSE"})
    SubElement(match, "qti-correct", {"identifier": "RESPONSE"})
    for parent, score in ((branch, "1"), (SubElement(condition, "qti-response-else"), "0")):
        outcome = SubElement(parent, "qti-set-outcome-value", {"identifier": "SCORE"})
        _value_typed(outcome, "float", score)
    feedback = SubElement(processing, "qti-set-outcome-value", {"identifier": "FEEDBACK"})
    SubElement(feedback, "qti-variable", {"identifier": "RESPONSE"})
    if modal_keys:
        shown = SubElement(processing, "qti-set-outcome-value", {"identifier": "FEEDBACKMODAL"})
        multiple = SubElement(shown, "qti-multiple")
        for key in modal_keys:
            _value_typed(multiple, "identifier", key)


def _value_typed(parent: Element, base_type: str, text: str) -> None:
    SubElement(parent, "qti-base-value", {"base-type": base_type}).text = text


def _document(root: Element) -> bytes:
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + tostring(root, encoding="unicode").encode()


def assessment_test_xml(
    exam: dict[str, Any], item_paths: dict[str, list[tuple[str, str]]]
) -> bytes:
    """The exam's assessment test: a section per topic (in the exam's topic order) with its
    questions' item refs in bank order. Paths are relative to the test file (tests/)."""
    root = Element(
        "qti-assessment-test",
        {"xmlns": NS, "identifier": identifier_for(exam["slug"]), "title": exam["title"]},
    )
    part = SubElement(
        root,
        "qti-test-part",
        {"identifier": "part-1", "navigation-mode": "nonlinear", "submission-mode": "individual"},
    )
    for topic in exam["topics"]:
        refs = item_paths.get(topic["slug"], [])
        if not refs:
            continue
        section = SubElement(
            part,
            "qti-assessment-section",
            {
                "identifier": identifier_for(f"section-{topic['slug']}"),
                "title": topic["title"],
                "visible": "true",
            },
        )
        for identifier, path in refs:
            SubElement(
                section, "qti-assessment-item-ref", {"identifier": identifier, "href": f"../{path}"}
            )
    return _document(root)


def write_package(document: Document) -> bytes:
    """An exported courseiva-bank document (`export_document`) as a package's bytes."""
    manifest = Element("manifest", {"xmlns": CP_NS, "identifier": "courseiva-export"})
    metadata = SubElement(manifest, "metadata")
    _value(metadata, "schema", "QTI Package")
    _value(metadata, "schemaversion", "3.0.0")
    SubElement(manifest, "organizations")
    resources = SubElement(manifest, "resources")
    files = {entry["name"]: entry["data"] for entry in document.get("media", [])}
    written: set[str] = set()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for exam in document["exams"]:
            item_paths: dict[str, list[tuple[str, str]]] = {}
            test_path = f"tests/{exam['slug']}.xml"
            test_resource = SubElement(
                resources,
                "resource",
                {
                    "identifier": identifier_for(f"test-{exam['slug']}"),
                    "type": "imsqti_test_xmlv3p0",
                    "href": test_path,
                },
            )
            SubElement(test_resource, "file", {"href": test_path})
            for question in exam["questions"]:
                identifier = identifier_for(question["uid"])
                path = f"items/{identifier}.xml"
                archive.writestr(path, item_xml(question))
                item_paths.setdefault(question["topic"], []).append((identifier, path))
                resource = SubElement(
                    resources,
                    "resource",
                    {"identifier": identifier, "type": "imsqti_item_xmlv3p0", "href": path},
                )
                SubElement(resource, "file", {"href": path})
                for name in sorted(_image_names(question)):
                    if name not in files:
                        continue
                    if name not in written:
                        archive.writestr(MEDIA_FOLDER + name, base64.b64decode(files[name]))
                        written.add(name)
                    SubElement(resource, "file", {"href": MEDIA_FOLDER + name})
                SubElement(test_resource, "dependency", {"identifierref": identifier})
            archive.writestr(test_path, assessment_test_xml(exam, item_paths))
        archive.writestr("imsmanifest.xml", _document(manifest))
    return buffer.getvalue()


def _image_names(question: dict[str, Any]) -> set[str]:
    texts = [question["stem"], question["explanation"], question.get("trap", "")]
    for option in question["options"]:
        texts += [option["text"], option["rationale"]]
    return {name for text in texts for name in references(text)}
