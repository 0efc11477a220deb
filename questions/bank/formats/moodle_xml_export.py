"""The bank written as Moodle XML (https://docs.moodle.org/en/Moodle_XML_format): a
`<quiz>` with a category per exam and topic and a `<question>` per question."""

from typing import Any
from xml.etree.ElementTree import Element, SubElement, indent, tostring

from questions.bank.checks import Document
from questions.markup import render_markdown, render_markdown_inline
from questions.media.images import references
from questions.models import MEDIA_URL_PREFIX

TRAP_HEADING = "Common exam trap"
REFERENCES_HEADING = "References"


def write_bank(document: Document) -> str:
    """A courseiva-bank document (`questions.bank.formats.courseiva.export_document`) as Moodle
    XML: per exam and topic a category `$course$/top/<exam code>/<topic title>`, then each
    question as multichoice. What Moodle XML has no place for goes into the general feedback
    (the common exam trap, references) or is left out (docs/question-bank.md). The images
    the text shows (the document's "media") are embedded as base64 `<file>`s of the text
    that shows them, referred to as `@@PLUGINFILE@@/<name>`."""
    files = {entry["name"]: entry["data"] for entry in document.get("media", [])}
    quiz = Element("quiz")
    for exam in document["exams"]:
        for topic in exam["topics"]:
            questions = [q for q in exam["questions"] if q["topic"] == topic["slug"]]
            if not questions:
                continue
            path = "/".join(part.replace("/", "//") for part in (exam["code"], topic["title"]))
            category = SubElement(quiz, "question", type="category")
            _text_element(category, "category", f"$course$/top/{path}", text_format=None)
            for question in questions:
                _write_question(quiz, question)
    for element in quiz.iter():
        _embed_files(element, files)
    indent(quiz, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + tostring(quiz, encoding="unicode") + "\n"


def _write_question(quiz: Element, question: dict[str, Any]) -> None:
    element = SubElement(quiz, "question", type="multichoice")
    _text_element(element, "name", question["uid"], text_format=None)
    _text_element(element, "questiontext", str(render_markdown(question["stem"])))
    general = [question.get("explanation", "")]
    if question.get("trap"):
        general.append(f"**{TRAP_HEADING}**\n\n{question['trap']}")
    if question.get("references"):
        links = [f"- [{ref['title']}]({ref['url']})" for ref in question["references"]]
        general.append(f"**{REFERENCES_HEADING}**\n\n" + "\n".join(links))
    text = "\n\n".join(part for part in general if part)
    _text_element(element, "generalfeedback", str(render_markdown(text)) if text else "")
    SubElement(element, "defaultgrade").text = "1.0000000"
    SubElement(element, "penalty").text = "0.3333333"
    SubElement(element, "hidden").text = "0"
    SubElement(element, "idnumber").text = question["uid"]
    options = question["options"]
    rights = sum(1 for option in options if option["correct"])
    wrongs = len(options) - rights
    single = question["kind"] != "multiple"
    SubElement(element, "single").text = "true" if single else "false"
    SubElement(element, "shuffleanswers").text = "true"
    SubElement(element, "answernumbering").text = "abc"
    for option in options:
        if option["correct"]:
            fraction = 100.0 if single else 100 / rights
        else:
            # Moodle adds up the fractions of the options chosen: wrong ones take marks
            # away, or choosing every option of a multiple-answer question would score 100%.
            fraction = 0.0 if single or not wrongs else -100 / wrongs
        answer = _text_element(
            element,
            "answer",
            str(render_markdown_inline(option["text"])),
            fraction=f"{fraction:.7f}".rstrip("0").rstrip("."),
        )
        why = [option.get("rationale", "")]
        if option.get("tempting_because"):
            why.append(f"Tempting because: {option['tempting_because']}")
        if option.get("right_when"):
            why.append(f"Right when: {option['right_when']}")
        feedback = "\n\n".join(part for part in why if part)
        _text_element(answer, "feedback", str(render_markdown(feedback)) if feedback else "")
    if question.get("tags"):
        tags = SubElement(element, "tags")
        for tag in question["tags"]:
            _text_element(tags, "tag", tag, text_format=None)


def _embed_files(element: Element, files: dict[str, str]) -> None:
    """An HTML text element's images from our URLs to embedded files."""
    if element.get("format") != "html":
        return
    text = element.find("text")
    if text is None or not text.text or MEDIA_URL_PREFIX not in text.text:
        return
    for name in sorted(references(text.text)):
        if name in files:
            text.text = text.text.replace(MEDIA_URL_PREFIX + name, f"@@PLUGINFILE@@/{name}")
            file = SubElement(element, "file", name=name, path="/", encoding="base64")
            file.text = files[name]


def _text_element(
    parent: Element, tag: str, text: str, text_format: str | None = "html", **attributes: str
) -> Element:
    element = SubElement(parent, tag, attrib=attributes)
    if text_format:
        element.set("format", text_format)
    SubElement(element, "text").text = text
    return element
