"""Moodle XML's question types beyond choice, read into ours (`moodle_xml` reads the file and
the choice types, and calls these with the question's stem and general feedback read):

- `matching`: its subquestions are the prompts, their answers the pool (a subquestion without
  text is an answer no prompt takes); Moodle marks each pair: partial credit;
- `ordering` (the ordering plugin): the answers in the right order are the steps; its
  grading type says all or nothing or partial;
- `ddwtos` and `gapselect`: the text with its `[[n]]` places is the exhibit, each place a
  drop-down offering the choices of its group; partial credit, as Moodle marks each gap;
- `kprime` (the Kprime plugin) and `mtf`: its rows are yes/no statements;
- `numerical` and `shortanswer`: a fill-in of one blank (`questions.bank.formats.graded`);
- `multianswer` (cloze): a fill-in when every part is typed (short answer or numerical);
  otherwise drop-downs in the text, its typed parts gaps typed in place; a part of several
  right choices is skipped.

Each function takes the question and its `<question>` element and returns the question
filled in, or why it is skipped or wrong."""

import re
from collections.abc import Callable
from dataclasses import dataclass
from xml.etree.ElementTree import Element

from questions.bank.formats.foreign import (
    ForeignBlank,
    ForeignGap,
    ForeignOption,
    ForeignPrompt,
    ForeignQuestion,
    ForeignStatement,
    ForeignStep,
    ParseError,
    Skipped,
    as_yes_no,
    to_markdown,
    to_plain_text,
)
from questions.bank.formats.graded import GradedAnswer, Refused, number_blank, text_blank

Parsed = ForeignQuestion | Skipped | ParseError
# A Moodle text element (`<questiontext>`, `<answer>`...) as our Markdown, its images stored.
Markdown = Callable[[Element | None], str]


@dataclass(frozen=True)
class Texts:
    """How the reader converts a text element: to Markdown (images stored), to plain text."""

    markdown: Markdown
    plain: Callable[[Element | None], str]


# Where a gap stood while the text around it is converted (a "[" would be escaped).
_PLACE = "\ue011{}\ue012"
_PLACE_BACK = re.compile("\ue011(\\d+)\ue012")
_GAP = re.compile(r"\[\[(\d+)\]\]")
DROPDOWN_STEM = "Choose the right word for each gap."
MIXED_STEM = "Complete each gap: choose the right word, or type the answer."


def _text(element: Element | None) -> str:
    return "" if element is None else element.findtext("text") or ""


def _fraction(answer: Element) -> float:
    try:
        return float((answer.get("fraction") or "0").strip())
    except ValueError:
        return 0.0


def matching(question: ForeignQuestion, element: Element, texts: Texts, place: str) -> Parsed:
    pool: list[str] = []
    prompts: list[tuple[str, int]] = []
    for sub in element.findall("subquestion"):
        answer = texts.markdown(sub.find("answer"))
        if not answer:
            continue
        if answer not in pool:
            pool.append(answer)
        prompt = texts.markdown(sub)
        if prompt:
            prompts.append((prompt, pool.index(answer)))
    question.kind = "matching"
    question.scoring = "partial"
    question.pool = [ForeignOption(text, False) for text in pool]
    question.prompts = [ForeignPrompt(text, answer) for text, answer in prompts]
    question.reuse_answers = len({answer for _, answer in prompts}) < len(prompts)
    return as_ordering(as_yes_no(question))


_ALL_OR_NOTHING = ("-1", "ALL_OR_NOTHING")
_ABSOLUTE = ("0", "ABSOLUTE_POSITION", "")


def ordering(question: ForeignQuestion, element: Element, texts: Texts, place: str) -> Parsed:
    answers = element.findall("answer")
    # The answers are written in their order; the plugin also numbers them in `fraction`.
    places = [_fraction(answer) for answer in answers]
    if sorted(places) == [float(n) for n in range(1, len(answers) + 1)]:
        order = [int(value) for value in places]
    else:
        order = list(range(1, len(answers) + 1))
    question.kind = "ordering"
    question.steps = [
        ForeignStep(texts.markdown(answer), number, texts.markdown(answer.find("feedback")))
        for answer, number in zip(answers, order, strict=True)
    ]
    grading = (element.findtext("gradingtype") or "").strip().upper()
    if grading in _ALL_OR_NOTHING:
        question.scoring = "all"
    else:
        question.scoring = "partial"
        if grading not in _ABSOLUTE:
            question.notes.append(
                f"{place}: Moodle grades its steps by their neighbours ({grading}); here each "
                "step put in its place earns its share"
            )
    select = (element.findtext("selecttype") or "").strip().upper()
    if select not in ("", "0", "ALL"):
        question.notes.append(
            f"{place}: Moodle shows a part of its steps ({select}); here a learner orders them all"
        )
    return question


@dataclass(frozen=True)
class _Choice:
    text: str
    group: str


def gaps(question: ForeignQuestion, element: Element, texts: Texts, place: str) -> Parsed:
    """ddwtos (drag into text) and gapselect (drop-downs in text): [[n]] in the text is a gap
    whose right choice is the n-th; its drop-down offers the choices of that one's group."""
    tag = "dragbox" if element.get("type") == "ddwtos" else "selectoption"
    choices = [
        _Choice(to_markdown(_text(choice), "plain"), (choice.findtext("group") or "1").strip())
        for choice in element.findall(tag)
    ]
    source = element.find("questiontext")
    numbers: list[int] = []

    def mark(match: re.Match[str]) -> str:
        numbers.append(int(match.group(1)))
        return _PLACE.format(len(numbers))

    raw = _GAP.sub(mark, _text(source))
    if not numbers:
        return ParseError(question.line, f"{place}: its text has no [[n]] gap")
    wrong = [n for n in numbers if not 1 <= n <= len(choices)]
    if wrong:
        return ParseError(question.line, f"{place}: gap [[{wrong[0]}]] names no choice")
    exhibit = _converted(source, raw, texts)
    question.kind = "dropdown"
    question.scoring = "partial"
    question.stem = DROPDOWN_STEM
    question.exhibit = exhibit
    question.gaps = []
    for number, right in enumerate(numbers, 1):
        group = choices[right - 1].group
        offered = [
            ForeignOption(choice.text, index == right - 1)
            for index, choice in enumerate(choices)
            if choice.group == group
        ]
        question.gaps.append(ForeignGap(f"Gap {number}", tuple(offered)))
    return question


def kprime(question: ForeignQuestion, element: Element, texts: Texts, place: str) -> Parsed:
    """Rows of statements judged in two columns: the first column's answer is "yes"."""
    weights: dict[tuple[str, str], float] = {}
    for weight in element.findall("weight"):
        try:
            value = float((weight.findtext("value") or "0").strip())
        except ValueError:
            value = 0.0
        weights[(weight.get("rownumber", ""), weight.get("columnnumber", ""))] = value
    question.kind = "yesno"
    question.statements = [
        ForeignStatement(
            texts.markdown(row.find("optiontext")),
            weights.get((row.get("number", ""), "1"), 0.0) > 0,
            texts.markdown(row.find("feedbacktext")),
        )
        for row in element.findall("row")
    ]
    method = " ".join("".join(node.itertext()) for node in element.findall("scoringmethod")).strip()
    if method == "subpoints":
        question.scoring = "partial"
    elif method in ("", "kprime", "mtfonezero", "kprimeonezero"):
        question.scoring = "all"
        if method == "kprime":
            question.notes.append(
                f"{place}: Moodle's half mark for three of four statements right is not "
                "carried: all or nothing"
            )
    else:
        question.scoring = "partial"
        question.notes.append(f"{place}: scoring {method!r} is read as a share per statement")
    return question


def typed(question: ForeignQuestion, element: Element, texts: Texts, place: str) -> Parsed:
    """numerical and shortanswer: one blank."""
    graded = [
        GradedAnswer(
            _text(answer),
            _fraction(answer),
            texts.markdown(answer.find("feedback")),
            texts.plain(answer.find("feedback")),
            (answer.findtext("tolerance") or "").strip(),
        )
        for answer in element.findall("answer")
    ]
    if element.get("type") == "numerical":
        units = []
        for unit in element.findall("units/unit"):
            name = " ".join((unit.findtext("unit_name") or "").split())
            multiplier = (unit.findtext("multiplier") or "1").strip()
            if name and _is_one(multiplier):
                units.append(name)
            elif name:
                question.notes.append(
                    f"the unit {name!r} (times {multiplier}) is not carried: answers in it "
                    "are wrong"
                )
        blank = number_blank(graded, "Answer", question.notes, units)
    else:
        match_case = (element.findtext("usecase") or "0").strip() in ("1", "true")
        blank = text_blank(graded, "Answer", question.notes, match_case=match_case)
    return with_blank(question, [blank])


def _is_one(text: str) -> bool:
    try:
        return float(text) == 1
    except ValueError:
        return False


def with_blank(question: ForeignQuestion, blanks: list[ForeignBlank | Refused]) -> Parsed:
    for blank in blanks:
        if isinstance(blank, Refused):
            if blank.error:
                return ParseError(question.line, blank.reason)
            return Skipped(question.line, blank.type, blank.reason)
    question.kind = "fillin"
    question.blanks = [blank for blank in blanks if isinstance(blank, ForeignBlank)]
    return question


def _converted(source: Element | None, raw: str, texts: Texts) -> str:
    """`raw` (the source's text with its gaps taken out) converted as the source's text is,
    its images stored, the gaps put back as [[n]]."""
    holder = Element(
        "questiontext", {"format": source.get("format", "html") if source is not None else "html"}
    )
    text = Element("text")
    text.text = raw
    holder.append(text)
    for file in source.findall("file") if source is not None else []:
        holder.append(file)
    return _PLACE_BACK.sub(lambda match: f"[[{match.group(1)}]]", texts.markdown(holder))


# A cloze part: {weight:TYPE:answers}. Its answers are separated by ~, each `=right` or
# `%50%partly`, then `#feedback`; \} \~ \# are the characters.
_CLOZE = re.compile(r"\{(\d*):([A-Za-z_]+):((?:\\.|[^\\}])*)\}")
_CLOZE_SPLIT = re.compile(r"(?<!\\)~")
_CLOZE_ESCAPE = re.compile(r"\\([}~#/\"\\])")
_CLOZE_WEIGHT = re.compile(r"^%(-?\d+(?:\.\d+)?)%")
_CHOICE_TYPES = {
    "MULTICHOICE", "MC", "MULTICHOICE_V", "MCV", "MULTICHOICE_H", "MCH", "MULTICHOICE_S",
    "MCS", "MULTICHOICE_VS", "MCVS", "MULTICHOICE_HS", "MCHS",
}  # fmt: skip
_TEXT_TYPES = {"SHORTANSWER": False, "SA": False, "MW": False}
_CASE_TYPES = {"SHORTANSWER_C": True, "SAC": True, "MWC": True}
_NUMBER_TYPES = {"NUMERICAL", "NM"}


@dataclass(frozen=True)
class _ClozeAnswer:
    text: str
    grade: float
    feedback: str


def _cloze_answers(body: str) -> list[_ClozeAnswer]:
    answers = []
    for piece in _CLOZE_SPLIT.split(body):
        grade = 0.0
        if piece.startswith("="):
            grade, piece = 100.0, piece[1:]
        elif match := _CLOZE_WEIGHT.match(piece):
            grade, piece = float(match.group(1)), piece[match.end() :]
        text, feedback = _split_feedback(piece)
        answers.append(_ClozeAnswer(_unescape(text), grade, _unescape(feedback)))
    return answers


def _split_feedback(piece: str) -> tuple[str, str]:
    parts = re.split(r"(?<!\\)#", piece, maxsplit=1)
    return parts[0], parts[1] if len(parts) > 1 else ""


def _unescape(text: str) -> str:
    return _CLOZE_ESCAPE.sub(r"\1", text).strip()


def cloze(question: ForeignQuestion, element: Element, texts: Texts, place: str) -> Parsed:
    """Embedded answers: a fill-in when every part is typed; otherwise drop-downs in the text,
    each choice part a drop-down of one right answer and each typed part (short answer,
    numerical) a gap typed in place. Moodle marks each part: partial credit."""
    source = element.find("questiontext")
    raw = _text(source)
    parts = [(m.group(1), m.group(2).upper(), m.group(3)) for m in _CLOZE.finditer(raw)]
    if not parts:
        return ParseError(question.line, f"{place}: its text has no {{1:TYPE:...}} part")
    kinds = {
        "choice"
        if kind in _CHOICE_TYPES
        else "typed"
        if kind in _TEXT_TYPES or kind in _CASE_TYPES or kind in _NUMBER_TYPES
        else kind
        for _, kind, _ in parts
    }
    if kinds - {"choice", "typed"}:
        other = sorted(kinds - {"choice", "typed"})[0]
        return Skipped(
            question.line,
            "cloze (embedded answers)",
            f"{place}: its {other} part takes several answers: a gap here takes one",
        )
    if len({weight or "1" for weight, _, _ in parts}) > 1:
        question.notes.append(
            f"{place}: its parts' weights are not carried: each part earns an equal share"
        )
    question.scoring = "partial"
    counter = iter(range(1, len(parts) + 1))
    if "choice" in kinds:
        question.gaps = []
        for number, (_, kind, body) in enumerate(parts, 1):
            label = f"Gap {number}"
            if kind in _CHOICE_TYPES:
                gap = _choice_gap(question, number, body, place)
                if isinstance(gap, ParseError):
                    return gap
                question.gaps.append(gap)
                continue
            blank = _typed_blank(kind, body, label, question.notes)
            if isinstance(blank, Refused):
                return with_blank(question, [blank])
            question.gaps.append(ForeignGap(label, (), typed=blank))
        question.kind = "dropdown"
        question.stem = DROPDOWN_STEM if kinds == {"choice"} else MIXED_STEM
        question.exhibit = _converted(
            source, _CLOZE.sub(lambda _: _PLACE.format(next(counter)), raw), texts
        )
        return question
    blanks = [
        _typed_blank(kind, body, f"Blank {number}" if len(parts) > 1 else "Answer", question.notes)
        for number, (_, kind, body) in enumerate(parts, 1)
    ]
    line = "&#95;" * 5
    stem = _converted(source, _CLOZE.sub(lambda _: _PLACE.format(next(counter)), raw), texts)
    # A fill-in's stem shows a line to fill in, numbered as its blanks are, where each was.
    question.stem = _GAP.sub(
        lambda match: f"{line} ({match.group(1)})" if len(parts) > 1 else line, stem
    )
    return with_blank(question, blanks)


def _choice_gap(
    question: ForeignQuestion, number: int, body: str, place: str
) -> ForeignGap | ParseError:
    """A cloze's choice part as a drop-down: one fully right choice; partly right is wrong."""
    answers = _cloze_answers(body)
    rights = [answer for answer in answers if answer.grade >= 100]
    if len(rights) != 1:
        return ParseError(question.line, f"{place}: part {number} needs one fully right choice")
    for answer in answers:
        if 0 < answer.grade < 100:
            question.notes.append(
                f"{place}: partial credit ({answer.grade:g}%) for {answer.text!r} is "
                "not carried: it is a wrong choice"
            )
    return ForeignGap(
        f"Gap {number}",
        tuple(
            ForeignOption(
                to_markdown(answer.text, "html"),
                answer.grade >= 100,
                to_markdown(answer.feedback, "html"),
            )
            for answer in answers
        ),
    )


def _typed_blank(kind: str, body: str, label: str, notes: list[str]) -> ForeignBlank | Refused:
    """A cloze's short answer or numerical part as a blank (a fill-in's, or a typed gap)."""
    graded = []
    for answer in _cloze_answers(body):
        value, _, tolerance = answer.text.partition(":")
        graded.append(
            GradedAnswer(
                value if kind in _NUMBER_TYPES else answer.text,
                answer.grade,
                to_markdown(answer.feedback, "html"),
                to_plain_text(answer.feedback, "html"),
                tolerance if kind in _NUMBER_TYPES else "",
            )
        )
    if kind in _NUMBER_TYPES:
        return number_blank(graded, label, notes)
    return text_blank(graded, label, notes, match_case=kind in _CASE_TYPES)


_PLACE_ANSWER = re.compile(r"^Place (\d{1,2})$")
NOT_IN_ORDER = "Not in the order"


def as_ordering(question: ForeignQuestion) -> ForeignQuestion:
    """A matching of steps to "Place 1", "Place 2", ... and "Not in the order" is an ordering
    whose steps do not all belong, as our Moodle XML export writes one (qtype_ordering holds
    no step outside the order): read as that ordering."""
    places: list[int | None] = []
    for answer in question.pool:
        text = to_plain_text(answer.text, "html")
        match = _PLACE_ANSWER.match(text)
        if match is None and text != NOT_IN_ORDER:
            return question
        places.append(int(match.group(1)) if match else None)
    taken = sorted(p for p in (places[prompt.answer] for prompt in question.prompts) if p)
    if not question.prompts or taken != list(range(1, len(taken) + 1)):
        return question
    question.kind = "ordering"
    question.steps = [
        ForeignStep(prompt.text, places[prompt.answer], prompt.feedback)
        for prompt in question.prompts
    ]
    question.pool, question.prompts, question.reuse_answers = [], [], False
    return question
