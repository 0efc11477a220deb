"""The bank written as Moodle XML (https://docs.moodle.org/en/Moodle_XML_format): a
`<quiz>` with a category per exam and topic and a `<question>` per question, each item type
as the Moodle question type that holds it (docs/question-bank.md, "Exporting Moodle XML"):

- single and multiple choice: `multichoice`;
- an ordering: `ordering` (the qtype_ordering plugin); one with steps that do not belong,
  which that plugin cannot hold, a `matching` of each step to its place or "Not in the order";
- a matching: `matching`, distractors as answers of empty subquestions;
- a yes/no series: `kprime` (the qtype_kprime plugin) when it has four statements, which is
  all that plugin takes; otherwise a `matching` of each statement to "Yes" or "No";
- a fill-in: `shortanswer` or `numerical` when it has one blank, `multianswer` (cloze)
  when it has several;
- drop-downs in an exhibit: `gapselect`, a group of choices per gap;
- a case study: a `description` named by its title, carrying the scenario, its questions
  right after it, at the end of their topic's category (a Moodle quiz shows a description
  before the questions that follow it; a reader takes it as their scenario up to the next
  description or category).

Rationales go where the Moodle type shows feedback per answer, part or row; where it has
none (a matching's subquestions, gapselect's choices) they follow the explanation in the
general feedback, a paragraph each."""

import html
import re
from decimal import Decimal
from typing import Any
from xml.etree.ElementTree import Element, SubElement, indent, tostring

from questions.bank.checks import Document
from questions.grading import parse_number
from questions.item_rules import GAP_MARKER
from questions.markup import render_markdown, render_markdown_inline
from questions.media.images import references
from questions.models import MEDIA_URL_PREFIX

TRAP_HEADING = "Common exam trap"
REFERENCES_HEADING = "References"
NOT_IN_ORDER = "Not in the order"
YES, NO = "Yes", "No"
# qtype_kprime's rows: exactly four statements.
KPRIME_ROWS = 4
_TAG = re.compile(r"<[^>]*>")


def write_bank(document: Document) -> str:
    """A courseiva-bank document (`questions.bank.formats.courseiva.export_document`) as Moodle
    XML: per exam and topic a category `$course$/top/<exam code>/<topic title>` with the
    topic's questions, those of a case study last, after the description that carries its
    scenario. What Moodle XML has no place for goes into the general feedback (the
    common exam trap, references) or is left out (docs/question-bank.md). The images the
    text shows (the document's "media") are embedded as base64 `<file>`s of the text that
    shows them, referred to as `@@PLUGINFILE@@/<name>`."""
    files = {entry["name"]: entry["data"] for entry in document.get("media", [])}
    quiz = Element("quiz")
    for exam in document["exams"]:
        cases = exam.get("case_studies", [])
        for topic in exam["topics"]:
            questions = [q for q in exam["questions"] if q["topic"] == topic["slug"]]
            if not questions:
                continue
            _category(quiz, exam["code"], topic["title"])
            for question in questions:
                if not question.get("case_study"):
                    _write_question(quiz, question)
            for case in cases:
                theirs = [q for q in questions if q.get("case_study") == case["slug"]]
                if not theirs:
                    continue
                _description(quiz, case)
                for question in theirs:
                    _write_question(quiz, question)
    for element in quiz.iter():
        _embed_files(element, files)
    indent(quiz, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + tostring(quiz, encoding="unicode") + "\n"


def _category(quiz: Element, *names: str) -> None:
    """`$course$/top/A/B`: a `/` inside a name is written `//`."""
    path = "/".join(name.replace("/", "//") for name in names)
    category = SubElement(quiz, "question", type="category")
    _text_element(category, "category", f"$course$/top/{path}", text_format=None)


def _description(quiz: Element, case: dict[str, Any]) -> None:
    """A case study's scenario as Moodle holds text shown before questions: a description,
    worth no marks, named by the case study's title."""
    element = SubElement(quiz, "question", type="description")
    _text_element(element, "name", case["title"], text_format=None)
    _text_element(element, "questiontext", str(render_markdown(case["scenario"])))
    _text_element(element, "generalfeedback", "")
    SubElement(element, "defaultgrade").text = "0"
    SubElement(element, "penalty").text = "0"
    SubElement(element, "hidden").text = "0"
    SubElement(element, "idnumber").text = f"case-{case['slug']}"


def _write_question(quiz: Element, question: dict[str, Any]) -> None:
    element = SubElement(quiz, "question")
    _text_element(element, "name", question["uid"], text_format=None)
    text = str(render_markdown(question["stem"]))
    if question.get("exhibit"):
        text += str(render_markdown(question["exhibit"]))
    question_text = _text_element(element, "questiontext", text)
    general = _text_element(element, "generalfeedback", "")
    SubElement(element, "defaultgrade").text = "1.0000000"
    SubElement(element, "penalty").text = "0.3333333"
    SubElement(element, "hidden").text = "0"
    SubElement(element, "idnumber").text = question["uid"]
    notes = _WRITERS[question["kind"]](element, question, question_text)
    paragraphs = [question.get("explanation", ""), *notes]
    if question.get("trap"):
        paragraphs.append(f"**{TRAP_HEADING}**\n\n{question['trap']}")
    if question.get("references"):
        links = [f"- [{ref['title']}]({ref['url']})" for ref in question["references"]]
        paragraphs.append(f"**{REFERENCES_HEADING}**\n\n" + "\n".join(links))
    markdown = "\n\n".join(part for part in paragraphs if part)
    _set_text(general, str(render_markdown(markdown)) if markdown else "")
    if question.get("tags"):
        tags = SubElement(element, "tags")
        for tag in question["tags"]:
            _text_element(tags, "tag", tag, text_format=None)


# Each writes a question's own elements and returns what its rationales add to the general
# feedback (Markdown paragraphs), for the types whose parts have no feedback of their own.


def _choice(element: Element, question: dict[str, Any], _: Element) -> list[str]:
    element.set("type", "multichoice")
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
            element, "answer", _inline_html(option["text"]), fraction=_fraction(fraction)
        )
        _feedback(answer, option)
    return []


def _ordering(element: Element, question: dict[str, Any], text: Element) -> list[str]:
    steps = question["steps"]
    if any("place" not in step for step in steps):
        return _ordering_as_matching(element, question)
    element.set("type", "ordering")
    partial = question.get("scoring") == "partial"
    for tag, value in (
        ("layouttype", "VERTICAL"),
        ("selecttype", "ALL"),
        ("selectcount", "0"),
        # Partial credit: each step in its place earns its share, as ours does.
        ("gradingtype", "ABSOLUTE_POSITION" if partial else "ALL_OR_NOTHING"),
        ("showgrading", "SHOW"),
        ("numberingstyle", "none"),
    ):
        SubElement(element, tag).text = value
    # qtype_ordering keeps the right order as the answers' order, each answer's fraction
    # its place.
    for step in sorted(steps, key=lambda step: step["place"]):
        answer = _text_element(
            element, "answer", _inline_html(step["text"]), fraction=str(step["place"])
        )
        _feedback(answer, step)
    return []


def _ordering_as_matching(element: Element, question: dict[str, Any]) -> list[str]:
    """Steps that do not belong have no place in qtype_ordering: each step is matched to its
    place, or to "Not in the order", which asks and grades the same question."""
    element.set("type", "matching")
    SubElement(element, "shuffleanswers").text = "true"
    notes = []
    for step in question["steps"]:
        place = step.get("place")
        answer = f"Place {place}" if place else NOT_IN_ORDER
        _subquestion(element, step["text"], answer)
        notes.append(_note(f"{_one_line(step['text'])} → {answer}", step))
    return notes


def _matching(element: Element, question: dict[str, Any], _: Element) -> list[str]:
    element.set("type", "matching")
    SubElement(element, "shuffleanswers").text = "true"
    pool = question["pool"]
    notes = []
    for prompt in question["prompts"]:
        answer = pool[prompt["answer"] - 1]
        # Prompts sharing an answer name it alike, which Moodle offers once: reuse.
        _subquestion(element, prompt["text"], _plain(answer["text"]))
        notes.append(_note(f"{_one_line(prompt['text'])} → {_one_line(answer['text'])}", prompt))
    used = {prompt["answer"] - 1 for prompt in question["prompts"]}
    for index, answer in enumerate(pool):
        if index in used:
            continue
        # A distractor: an answer no subquestion takes, as Moodle writes one.
        _subquestion(element, "", _plain(answer["text"]))
        if answer.get("rationale"):
            notes.append(_note(f"{_one_line(answer['text'])} (fits no prompt)", answer))
    return notes


def _yes_no(element: Element, question: dict[str, Any], _: Element) -> list[str]:
    statements = question["statements"]
    if len(statements) == KPRIME_ROWS:
        _kprime(element, question)
        return []
    element.set("type", "matching")
    SubElement(element, "shuffleanswers").text = "false"
    notes = []
    for statement in statements:
        answer = YES if statement["answer"] == "yes" else NO
        _subquestion(element, statement["text"], answer)
        notes.append(_note(f"{_one_line(statement['text'])} → {answer}", statement))
    # Both answers in every drop-down, even when every statement takes the same one.
    for missing in sorted({YES, NO} - {YES if s["answer"] == "yes" else NO for s in statements}):
        _subquestion(element, "", missing)
    return notes


def _kprime(element: Element, question: dict[str, Any]) -> None:
    """qtype_kprime: four rows judged in two columns, each row with its feedback."""
    element.set("type", "kprime")
    partial = question.get("scoring") == "partial"
    # "subpoints": a quarter of the mark per row right; "kprimeonezero": all or nothing.
    _text_element(
        element, "scoringmethod", "subpoints" if partial else "kprimeonezero", text_format=None
    )
    SubElement(element, "shuffleanswers").text = "false"
    SubElement(element, "numberofrows").text = str(KPRIME_ROWS)
    SubElement(element, "numberofcolumns").text = "2"
    statements = question["statements"]
    for number, statement in enumerate(statements, 1):
        row = SubElement(element, "row", number=str(number))
        _text_element(row, "optiontext", _inline_html(statement["text"]))
        _text_element(row, "feedbacktext", _rationale_html(statement))
    for number, label in enumerate((YES, NO), 1):
        header = SubElement(element, "column", number=str(number))
        _text_element(header, "responsetext", label)
    for number, statement in enumerate(statements, 1):
        for column, value in enumerate(("yes", "no"), 1):
            weight = SubElement(element, "weight", rownumber=str(number), columnnumber=str(column))
            SubElement(weight, "value").text = "1.000" if statement["answer"] == value else "0.000"


def _fill_in(element: Element, question: dict[str, Any], text: Element) -> list[str]:
    blanks = question["blanks"]
    if len(blanks) > 1:
        _cloze(element, blanks, text)
        return []
    [blank] = blanks
    if "number" in blank:
        _numerical(element, blank)
    else:
        _short_answer(element, blank)
    return []


def _short_answer(element: Element, blank: dict[str, Any]) -> None:
    element.set("type", "shortanswer")
    SubElement(element, "usecase").text = "1" if blank.get("match_case") else "0"
    for accepted in blank["accepted"]:
        answer = _text_element(
            element, "answer", _moodle_text(accepted, blank), "moodle_auto_format", fraction="100"
        )
        _feedback(answer, blank)
    for wrong in blank.get("feedback", []):
        answer = _text_element(
            element,
            "answer",
            _moodle_text(wrong["answer"], blank),
            "moodle_auto_format",
            fraction="0",
        )
        _text_element(answer, "feedback", f"<p>{html.escape(wrong['feedback'])}</p>")


def _numerical(element: Element, blank: dict[str, Any]) -> None:
    element.set("type", "numerical")
    units = blank.get("units", [])
    # Each right number is an answer of 100%: Moodle takes an answer within any of them.
    for right in _ranges(blank):
        answer = _text_element(
            element, "answer", _number(right["number"]), "moodle_auto_format", fraction="100"
        )
        _feedback(answer, blank)
        SubElement(answer, "tolerance").text = _number(right.get("tolerance", 0))
    for wrong in blank.get("feedback", []):
        value = parse_number(wrong["answer"], units)
        if value is None:
            continue
        answer = _text_element(
            element, "answer", _number(value), "moodle_auto_format", fraction="0"
        )
        _text_element(answer, "feedback", f"<p>{html.escape(wrong['feedback'])}</p>")
        SubElement(answer, "tolerance").text = "0"
    if units:
        holder = SubElement(element, "units")
        for name in units:
            unit = SubElement(holder, "unit")
            SubElement(unit, "multiplier").text = "1"
            SubElement(unit, "unit_name").text = name
    # Units optional, not graded: a bare number is right, as on our page.
    SubElement(element, "unitgradingtype").text = "0"
    SubElement(element, "unitpenalty").text = "0.1000000"
    SubElement(element, "showunits").text = "0" if units else "3"
    SubElement(element, "unitsleft").text = "0"


def _cloze(element: Element, blanks: list[dict[str, Any]], text: Element) -> None:
    """Several blanks: Moodle's embedded answers, each blank a subquestion after its label
    in the question text. Moodle writes this type as "cloze"."""
    element.set("type", "cloze")
    lines = [f"<p>{_inline_html(blank['label'])}: {_typed_field(blank)}</p>" for blank in blanks]
    _set_text(text, (text.findtext("text") or "") + "\n".join(lines))


def _typed_field(blank: dict[str, Any]) -> str:
    """A blank (or a gap typed in) as an embedded answer: SHORTANSWER or NUMERICAL, the
    rationale the feedback of its right answers, each common wrong answer at 0%."""
    why = _cloze_escape(html.escape(_plain(_rationale_markdown(blank))))
    wrongs = [
        (wrong["answer"], _cloze_escape(html.escape(wrong["feedback"])))
        for wrong in blank.get("feedback", [])
    ]
    if "number" in blank:
        answers = [
            f"={_number(right['number'])}:{_number(right.get('tolerance', 0))}#{why}"
            for right in _ranges(blank)
        ]
        for given, feedback in wrongs:
            value = parse_number(given, blank.get("units", []))
            if value is not None:
                answers.append(f"%0%{_number(value)}:0#{feedback}")
        return f"{{1:NUMERICAL:{'~'.join(answers)}}}"
    kind = "SHORTANSWER_C" if blank.get("match_case") else "SHORTANSWER"
    answers = [f"={_cloze_answer(accepted, blank)}#{why}" for accepted in blank["accepted"]]
    answers += [f"%0%{_cloze_answer(given, blank)}#{feedback}" for given, feedback in wrongs]
    return f"{{1:{kind}:{'~'.join(answers)}}}"


def _choice_field(gap: dict[str, Any]) -> str:
    """A drop-down as an embedded MULTICHOICE, each choice's rationale its feedback."""
    answers = [
        f"{'=' if choice['correct'] else ''}{_cloze_answer(_plain(choice['text']), {})}"
        f"#{_cloze_escape(html.escape(_plain(_rationale_markdown(choice))))}"
        for choice in gap["choices"]
    ]
    return f"{{1:MULTICHOICE:{'~'.join(answers)}}}"


def _mixed_gaps(element: Element, question: dict[str, Any], text: Element) -> list[str]:
    """Drop-downs with gaps typed in: Moodle's embedded answers (cloze), the stem and the
    exhibit its text, each [[n]] a MULTICHOICE or a SHORTANSWER/NUMERICAL part in place."""
    element.set("type", "cloze")
    gaps = question["gaps"]
    fields = [_choice_field(gap) if gap.get("choices") else _typed_field(gap) for gap in gaps]
    exhibit = GAP_MARKER.sub(
        lambda match: fields[int(match.group(1)) - 1], str(render_markdown(question["exhibit"]))
    )
    _set_text(text, str(render_markdown(question["stem"])) + exhibit)
    # A choice part's feedback holds each choice's rationale; the gap's goes with the others.
    return [
        _note(f"Gap {number}, {_one_line(gap['label'])}", gap)
        for number, gap in enumerate(gaps, 1)
        if gap.get("choices")
    ]


def _dropdown(element: Element, question: dict[str, Any], text: Element) -> list[str]:
    """gapselect: [[k]] in the text is a drop-down whose right choice is the k-th, offering
    the choices of its group. The choices are written gap after gap in their order, each gap
    its group, and our [[n]] becomes the number of gap n's right choice. An exhibit with gaps
    typed in is a cloze instead (gapselect holds drop-downs only)."""
    if not all(gap.get("choices") for gap in question["gaps"]):
        return _mixed_gaps(element, question, text)
    element.set("type", "gapselect")
    SubElement(element, "shuffleanswers").text = "0"
    gaps = question["gaps"]
    rights = [next(c for c in gap["choices"] if c["correct"]) for gap in gaps]
    numbers: dict[int, int] = {}
    for group, gap in enumerate(gaps, 1):
        for choice in gap["choices"]:
            option = SubElement(element, "selectoption")
            SubElement(option, "text").text = _plain(choice["text"])
            SubElement(option, "group").text = str(group)
            if choice["correct"]:
                numbers[group] = len(element.findall("selectoption"))
    exhibit = GAP_MARKER.sub(
        lambda match: f"[[{numbers.get(int(match.group(1)), 0)}]]", question["exhibit"]
    )
    _set_text(text, str(render_markdown(question["stem"])) + str(render_markdown(exhibit)))
    notes = []
    for number, (gap, right) in enumerate(zip(gaps, rights, strict=True), 1):
        notes.append(
            _note(f"Gap {number}, {_one_line(gap['label'])}: {_one_line(right['text'])}", gap)
        )
        notes += [
            _note(_one_line(choice["text"]), choice)
            for choice in gap["choices"]
            if choice.get("rationale")
        ]
    return notes


_WRITERS = {
    "single": _choice,
    "multiple": _choice,
    "ordering": _ordering,
    "matching": _matching,
    "yesno": _yes_no,
    "fillin": _fill_in,
    "dropdown": _dropdown,
}


def _subquestion(element: Element, markdown: str, answer: str) -> None:
    sub = _text_element(element, "subquestion", str(render_markdown(markdown)) if markdown else "")
    _text_element(sub, "answer", answer, text_format=None)


def _rationale_markdown(item: dict[str, Any]) -> str:
    """An element's rationale with its "tempting because" and "right when" as paragraphs."""
    why = [item.get("rationale", "")]
    if item.get("tempting_because"):
        why.append(f"Tempting because: {item['tempting_because']}")
    if item.get("right_when"):
        why.append(f"Right when: {item['right_when']}")
    return "\n\n".join(part for part in why if part)


def _rationale_html(item: dict[str, Any]) -> str:
    markdown = _rationale_markdown(item)
    return str(render_markdown(markdown)) if markdown else ""


def _feedback(answer: Element, item: dict[str, Any]) -> None:
    _text_element(answer, "feedback", _rationale_html(item))


def _note(heading: str, item: dict[str, Any]) -> str:
    """A rationale for the general feedback: a paragraph that names what it is about."""
    markdown = _rationale_markdown(item)
    return f"**{heading}.** {markdown}" if markdown else ""


def _one_line(markdown: str) -> str:
    return " ".join(markdown.split())


def _inline_html(markdown: str) -> str:
    return str(render_markdown_inline(markdown))


def _plain(markdown: str) -> str:
    """Markdown as the plain text a reader sees, for Moodle's plain-text fields (a matching's
    answers, gapselect's choices): rendered and sanitised first, so no markup survives."""
    text = _TAG.sub(" ", str(render_markdown(markdown)))
    return " ".join(html.unescape(text).split())


def _ranges(blank: dict[str, Any]) -> list[dict[str, Any]]:
    """A number blank's right numbers, each with its tolerance: its own, then the others."""
    return [blank, *blank.get("more_numbers", [])]


def _moodle_text(text: str, blank: dict[str, Any]) -> str:
    """A short answer as Moodle reads it, where a star is a wildcard: a blank with wildcards
    writes them as Moodle does; in another, a star is a star."""
    return text if blank.get("wildcards") else text.replace("*", "\\*")


def _cloze_escape(text: str) -> str:
    """Text inside an embedded answer, where these characters are its syntax."""
    return re.sub(r'([}#~/"\\])', r"\\\1", text)


def _cloze_answer(text: str, blank: dict[str, Any]) -> str:
    return _moodle_text(_cloze_escape(html.escape(text)), blank)


def _number(value: Any) -> str:
    number = Decimal(str(value))
    return format(number.normalize(), "f") if number else "0"


def _fraction(value: float) -> str:
    return f"{value:.7f}".rstrip("0").rstrip(".")


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


def _set_text(element: Element, text: str) -> None:
    holder = element.find("text")
    assert holder is not None  # every text element is made with one
    holder.text = text
