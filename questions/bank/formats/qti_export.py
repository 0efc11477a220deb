"""Exams written as a 1EdTech QTI 3.0 content package (a zip): `imsmanifest.xml`, one
assessment test per exam with a section per topic, one item per question, one shared stimulus
per case study.

A choice item is a `qti-choice-interaction` (max-choices 1, or the number of correct options)
with its correct response; each option's rationale is a `qti-feedback-inline` shown for the
chosen options (a `qti-feedback-block` when it is more than inline content, paragraphs or a
list, which the schema does not allow in the former). The types made of parts are written by
`qti_parts`, their rationales shown after any answer. The explanation is a
`qti-modal-feedback`. The response processing scores the item in points, all or nothing
or a point per part (`scoring`), MAXSCORE the most there are, naming the standard template
it follows where one does, and sets the outcomes those feedbacks show on. Markdown is
rendered to HTML as on our pages and written as XHTML in the QTI namespace.

A question of a case study refers to its scenario, `stimuli/<identifier>.xml`, with a
`qti-assessment-stimulus-ref`; the manifest lists the stimulus as a resource the item depends
on.

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
from dataclasses import dataclass
from typing import Any
from xml.etree.ElementTree import Element, SubElement

from questions.bank.checks import Document
from questions.bank.formats.qti_parts import Parts, parts_of
from questions.bank.formats.qti_xml import (
    CP_NS,
    MEDIA_FOLDER,
    NS,
    append_html,
    base_value,
    document,
    identifier_for,
    rationale_in_choice,
    value,
    variable,
)
from questions.bank.item_fields import ELEMENT_FIELDS
from questions.markup import quick_snippet, render_markdown, render_markdown_inline
from questions.media.images import references

TRAP_TITLE = "Common exam trap"
CHOICE_KINDS = ("single", "multiple")


@dataclass(frozen=True)
class Stimulus:
    """A case study as the package holds it: its identifier, its file and the case study."""

    identifier: str
    path: str
    case: dict[str, Any]

    @classmethod
    def of(cls, exam_slug: str, case: dict[str, Any]) -> "Stimulus":
        identifier = identifier_for(f"stimulus-{exam_slug}-{case['slug']}")
        return cls(identifier, f"stimuli/{identifier}.xml", case)


def item_xml(question: dict[str, Any], stimulus: Stimulus | None = None) -> bytes:
    identifier = identifier_for(question["uid"])
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
    choice = question["kind"] in CHOICE_KINDS
    parts = None if choice else parts_of(question)
    if parts is None:
        correct = _choice_declaration(root, question)
        cardinality = "multiple" if question["kind"] == "multiple" else "single"
    else:
        root.extend(parts.declarations)
        cardinality = "multiple"
    # SCORE counts points: 1 for a right answer, or with partial credit one per part right
    # (per correct option of a select-all-that-apply question); MAXSCORE is the most there
    # are, and SCORE / MAXSCORE the share of the mark.
    most = _max_score(question, parts)
    score = SubElement(
        root,
        "qti-outcome-declaration",
        {
            "identifier": "SCORE",
            "cardinality": "single",
            "base-type": "float",
            "normal-maximum": most,
        },
    )
    value(SubElement(score, "qti-default-value"), "qti-value", "0")
    maximum = SubElement(
        root,
        "qti-outcome-declaration",
        {"identifier": "MAXSCORE", "cardinality": "single", "base-type": "float"},
    )
    value(SubElement(maximum, "qti-default-value"), "qti-value", most)
    # FEEDBACK holds the feedbacks shown in the body: the chosen options' (of a choice),
    # the parts' rationales (of the others); FEEDBACKMODAL the modal feedbacks shown after
    # any answer.
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
    if stimulus is not None:
        SubElement(
            root,
            "qti-assessment-stimulus-ref",
            {
                "identifier": stimulus.identifier,
                "href": f"../{stimulus.path}",
                "title": stimulus.case["title"],
            },
        )
    body = SubElement(root, "qti-item-body")
    append_html(body, str(render_markdown(question["stem"])))
    if question.get("exhibit") and question["kind"] != "dropdown":
        append_html(body, str(render_markdown(question["exhibit"])))
    modal = [
        ("EXPLANATION", "Explanation", question["explanation"]),
        ("TRAP", TRAP_TITLE, question.get("trap", "")),
    ]
    modal = [entry for entry in modal if entry[2]]
    modal_keys = [key for key, _, _ in modal]
    if parts is None:
        _choice_interaction(body, question, correct)
        _choice_processing(root, modal_keys)
    else:
        body.extend(parts.body)
        _parts_processing(root, parts, question.get("scoring") == "partial", modal_keys)
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
    return document(root)


def _choice_ids(question: dict[str, Any]) -> list[str]:
    return [chr(ord("A") + n) for n in range(len(question["options"]))]


def _choice_declaration(root: Element, question: dict[str, Any]) -> list[str]:
    options = question["options"]
    choice_ids = _choice_ids(question)
    correct = [cid for cid, option in zip(choice_ids, options, strict=True) if option["correct"]]
    cardinality = "multiple" if question["kind"] == "multiple" else "single"
    response = SubElement(
        root,
        "qti-response-declaration",
        {"identifier": "RESPONSE", "cardinality": cardinality, "base-type": "identifier"},
    )
    values = SubElement(response, "qti-correct-response")
    for cid in correct:
        value(values, "qti-value", cid)
    if question.get("scoring") == "partial":
        # A point per correct option ticked, one off per wrong one (never below 0): the
        # template map_response.
        mapping = SubElement(response, "qti-mapping", {"default-value": "0", "lower-bound": "0"})
        for cid, option in zip(choice_ids, options, strict=True):
            SubElement(
                mapping,
                "qti-map-entry",
                {"map-key": cid, "mapped-value": "1" if option["correct"] else "-1"},
            )
    return correct


def _choice_interaction(body: Element, question: dict[str, Any], correct: list[str]) -> None:
    multiple = question["kind"] == "multiple"
    interaction = SubElement(
        body,
        "qti-choice-interaction",
        {
            "response-identifier": "RESPONSE",
            "shuffle": "false",
            "max-choices": str(len(correct)) if multiple else "1",
        },
    )
    for cid, option in zip(_choice_ids(question), question["options"], strict=True):
        choice = SubElement(interaction, "qti-simple-choice", {"identifier": cid})
        append_html(choice, str(render_markdown_inline(option["text"])))
        if option["rationale"]:
            rationale_in_choice(choice, cid, str(render_markdown_inline(option["rationale"])))


def _choice_processing(root: Element, modal_keys: list[str]) -> None:
    if root.find("qti-response-declaration/qti-mapping") is not None:
        processing = _processing(root, "map_response")
        outcome = SubElement(processing, "qti-set-outcome-value", {"identifier": "SCORE"})
        SubElement(outcome, "qti-map-response", {"identifier": "RESPONSE"})
    else:
        processing = _processing(root, "match_correct")
        match = Element("qti-match")
        variable(match, "RESPONSE")
        SubElement(match, "qti-correct", {"identifier": "RESPONSE"})
        _all_or_nothing(processing, match)
    feedback = SubElement(processing, "qti-set-outcome-value", {"identifier": "FEEDBACK"})
    variable(feedback, "RESPONSE")
    _show_modal(processing, modal_keys)


# The standard response processing templates, which the rules written out do the work of.
TEMPLATES = "https://purl.imsglobal.org/spec/qti/v3p0/rptemplates/"


def _processing(root: Element, template: str = "") -> Element:
    """The item's response processing, naming the standard template its score follows (the
    rules are written out too, with the feedback's, and a player prefers them)."""
    attributes = {"template": f"{TEMPLATES}{template}.xml"} if template else {}
    return SubElement(root, "qti-response-processing", attributes)


def _max_score(question: dict[str, Any], parts: Parts | None) -> str:
    if question.get("scoring") != "partial":
        return "1"
    if parts is None:
        return str(sum(1 for option in question["options"] if option["correct"]))
    return str(len(parts.right))


def _all_or_nothing(processing: Element, condition: Element) -> None:
    """SCORE 1 when the condition holds, else 0."""
    rule = SubElement(processing, "qti-response-condition")
    branch = SubElement(rule, "qti-response-if")
    branch.append(condition)
    for parent, score in ((branch, "1"), (SubElement(rule, "qti-response-else"), "0")):
        outcome = SubElement(parent, "qti-set-outcome-value", {"identifier": "SCORE"})
        base_value(outcome, "float", score)


def _parts_processing(root: Element, parts: Parts, partial: bool, modal_keys: list[str]) -> None:
    """The score from the parts' conditions: with partial credit a point per part right;
    otherwise 1 when the whole response is right."""
    processing = _processing(root, parts.template)
    if parts.template == "map_response":
        outcome = SubElement(processing, "qti-set-outcome-value", {"identifier": "SCORE"})
        SubElement(outcome, "qti-map-response", {"identifier": "RESPONSE"})
    elif partial:
        for condition in parts.right:
            rule = SubElement(processing, "qti-response-condition")
            branch = SubElement(rule, "qti-response-if")
            branch.append(condition)
            outcome = SubElement(branch, "qti-set-outcome-value", {"identifier": "SCORE"})
            total = SubElement(outcome, "qti-sum")
            variable(total, "SCORE")
            base_value(total, "float", "1")
    else:
        whole = parts.whole
        if whole is None:
            whole = Element("qti-and")
            whole.extend(parts.right)
        _all_or_nothing(processing, whole)
    if parts.shown:
        outcome = SubElement(processing, "qti-set-outcome-value", {"identifier": "FEEDBACK"})
        shown = SubElement(outcome, "qti-multiple")
        for identifier in parts.shown:
            base_value(shown, "identifier", identifier)
    for condition, identifier in parts.when:
        rule = SubElement(processing, "qti-response-condition")
        branch = SubElement(rule, "qti-response-if")
        branch.append(condition)
        outcome = SubElement(branch, "qti-set-outcome-value", {"identifier": "FEEDBACK"})
        added = SubElement(outcome, "qti-multiple")
        variable(added, "FEEDBACK")
        base_value(added, "identifier", identifier)
    _show_modal(processing, modal_keys)


def _show_modal(processing: Element, modal_keys: list[str]) -> None:
    if modal_keys:
        shown = SubElement(processing, "qti-set-outcome-value", {"identifier": "FEEDBACKMODAL"})
        multiple = SubElement(shown, "qti-multiple")
        for key in modal_keys:
            base_value(multiple, "identifier", key)


def stimulus_xml(stimulus: Stimulus) -> bytes:
    """A case study's scenario, shared by the items that refer to it."""
    root = Element(
        "qti-assessment-stimulus",
        {"xmlns": NS, "identifier": stimulus.identifier, "title": stimulus.case["title"]},
    )
    append_html(
        SubElement(root, "qti-stimulus-body"), str(render_markdown(stimulus.case["scenario"]))
    )
    return document(root)


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
    return document(root)


class _Package:
    """The zip being written and its manifest's resources."""

    def __init__(self, archive: zipfile.ZipFile, document: Document) -> None:
        self.archive = archive
        self.files = {entry["name"]: entry["data"] for entry in document.get("media", [])}
        self.written: set[str] = set()
        self.manifest = Element("manifest", {"xmlns": CP_NS, "identifier": "courseiva-export"})
        metadata = SubElement(self.manifest, "metadata")
        value(metadata, "schema", "QTI Package")
        value(metadata, "schemaversion", "3.0.0")
        SubElement(self.manifest, "organizations")
        self.resources = SubElement(self.manifest, "resources")

    def resource(self, identifier: str, kind: str, path: str, texts: list[str]) -> Element:
        resource = SubElement(
            self.resources, "resource", {"identifier": identifier, "type": kind, "href": path}
        )
        SubElement(resource, "file", {"href": path})
        for name in sorted({name for text in texts for name in references(text)}):
            if name not in self.files:
                continue
            if name not in self.written:
                self.archive.writestr(MEDIA_FOLDER + name, base64.b64decode(self.files[name]))
                self.written.add(name)
            SubElement(resource, "file", {"href": MEDIA_FOLDER + name})
        return resource


def write_package(document_: Document) -> bytes:
    """An exported courseiva-bank document (`export_document`) as a package's bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        package = _Package(archive, document_)
        for exam in document_["exams"]:
            _write_exam(package, exam)
        archive.writestr("imsmanifest.xml", document(package.manifest))
    return buffer.getvalue()


def _write_exam(package: _Package, exam: dict[str, Any]) -> None:
    item_paths: dict[str, list[tuple[str, str]]] = {}
    test_path = f"tests/{exam['slug']}.xml"
    test_resource = package.resource(
        identifier_for(f"test-{exam['slug']}"), "imsqti_test_xmlv3p0", test_path, []
    )
    stimuli = {
        case["slug"]: Stimulus.of(exam["slug"], case) for case in exam.get("case_studies", [])
    }
    used = {question.get("case_study") for question in exam["questions"]}
    for slug, shared in stimuli.items():
        if slug in used:
            package.archive.writestr(shared.path, stimulus_xml(shared))
            package.resource(
                shared.identifier, "imsqti_stimulus_xmlv3p0", shared.path, [shared.case["scenario"]]
            )
    for question in exam["questions"]:
        identifier = identifier_for(question["uid"])
        path = f"items/{identifier}.xml"
        stimulus = stimuli.get(question.get("case_study", ""))
        package.archive.writestr(path, item_xml(question, stimulus))
        item_paths.setdefault(question["topic"], []).append((identifier, path))
        resource = package.resource(identifier, "imsqti_item_xmlv3p0", path, _texts(question))
        if stimulus is not None:
            SubElement(resource, "dependency", {"identifierref": stimulus.identifier})
        SubElement(test_resource, "dependency", {"identifierref": identifier})
    package.archive.writestr(test_path, assessment_test_xml(exam, item_paths))


def _texts(question: dict[str, Any]) -> list[str]:
    """Every text of a question that may show an image."""
    texts = [question["stem"], question["explanation"], question.get("trap", "")]
    texts.append(question.get("exhibit", ""))
    for name in ELEMENT_FIELDS:
        for element in question.get(name, []):
            texts += [text for text in element.values() if isinstance(text, str)]
            for choice in element.get("choices", []):
                texts += [text for text in choice.values() if isinstance(text, str)]
    return texts
