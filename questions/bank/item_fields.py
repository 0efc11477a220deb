"""The item types in a bank document (version 2, docs/question-bank.md): the arrays a question
of each kind carries, read into the facts the rules check (`questions.item_rules`) and into
the rows the import writes (`option_rows`). The names of the format live here, once.

A choice question has "options"; an ordering "steps" (each with its "place", none for a step
that does not belong); a matching a "pool" of answers and its "prompts" (each naming its
answer by number, 1 the pool's first); a yes/no series "statements"; a fill-in "blanks"
(accepted texts, or a number); drop-downs "gaps", each with its "choices" (or, without
choices, typed in: what a blank holds), [[1]] in the exhibit marking where the first goes."""

from decimal import Decimal
from typing import Any

from questions.bank.option_rows import OptionValues, PartValues
from questions.grading import CHOICE_KINDS
from questions.item_rules import OptionFacts, PartFacts
from questions.models import Kind

Element = dict[str, Any]

# The arrays of each kind, in the order they are written.
KIND_FIELDS: dict[str, tuple[str, ...]] = {
    Kind.SINGLE: ("options",),
    Kind.MULTIPLE: ("options",),
    Kind.ORDERING: ("steps",),
    Kind.MATCHING: ("pool", "prompts"),
    Kind.YES_NO: ("statements",),
    Kind.FILL_IN: ("blanks",),
    Kind.DROPDOWN: ("gaps",),
}
ELEMENT_FIELDS = ("options", "steps", "pool", "prompts", "statements", "blanks", "gaps")
# What an element of each array is called in a sentence ("a rationale for every step"). A
# pool's answer needs none: the rationale of a pair is its prompt's.
ELEMENT_NOUNS: dict[str, str] = {
    "options": "option",
    "steps": "step",
    "prompts": "prompt",
    "statements": "statement",
    "blanks": "blank",
    "gaps": "gap",
}
KIND_NAMES: dict[str, str] = {
    Kind.SINGLE: "a single-answer question",
    Kind.MULTIPLE: "a select-all-that-apply question",
    Kind.ORDERING: "an ordering",
    Kind.MATCHING: "a matching",
    Kind.YES_NO: "a yes/no series",
    Kind.FILL_IN: "a fill-in",
    Kind.DROPDOWN: "a drop-down question",
}
# What version 2 added: a version-1 document has none of them.
VERSION_2_QUESTION_FIELDS = (
    "scoring",
    "case_study",
    "exhibit",
    "reuse_answers",
    *ELEMENT_FIELDS[1:],
)
VERSION_2_EXAM_FIELDS = ("case_studies",)
# A rationale's fields in the document, by the name of the model's field.
RATIONALE_NAMES = {
    "why": "rationale",
    "tempting_because": "tempting_because",
    "right_when": "right_when",
}
YES_NO = {"yes": True, "no": False}


def kind_label(kind: str) -> str:
    """How an import's preview names a question's type ("truefalse": a foreign file's)."""
    if kind == "truefalse":
        return "true/false"
    if kind == Kind.MULTIPLE:
        return "multiple (select all that apply)"
    if kind == Kind.SINGLE:
        return "single answer"
    return Kind(kind).label.lower() if kind in Kind.values else kind


def elements(container: Element, name: str) -> list[Element]:
    """The objects of an array of the document (what is not an object: the schema says)."""
    value = container.get(name)
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def decimal(value: Any) -> Decimal | None:
    """A JSON number as the decimal it is written as (0.1 is 0.1), None for anything else."""
    return Decimal(str(value)) if is_number(value) else None


def item_facts(question: Element) -> tuple[list[OptionFacts], list[PartFacts]]:
    """A question's options and parts as the rules see them."""
    kind = question.get("kind")
    if kind in CHOICE_KINDS:
        return [
            OptionFacts(is_correct=o.get("correct") is True) for o in elements(question, "options")
        ], []
    if kind == Kind.ORDERING:
        return [OptionFacts(order=_place(step)) for step in elements(question, "steps")], []
    if kind == Kind.MATCHING:
        pool = [OptionFacts() for _ in elements(question, "pool")]
        return pool, [PartFacts(answer=_answer_index(p)) for p in elements(question, "prompts")]
    if kind == Kind.YES_NO:
        return [], [
            PartFacts(is_yes=YES_NO.get(str(s.get("answer"))))
            for s in elements(question, "statements")
        ]
    if kind == Kind.FILL_IN:
        return [], [_blank_facts(blank) for blank in elements(question, "blanks")]
    if kind == Kind.DROPDOWN:
        gaps = elements(question, "gaps")
        choices = [
            OptionFacts(is_correct=choice.get("correct") is True, gap=number)
            for number, gap in enumerate(gaps)
            for choice in elements(gap, "choices")
        ]
        return choices, [_blank_facts(gap) for gap in gaps]
    return [], []


def _blank_facts(blank: Element) -> PartFacts:
    """A blank's, or a typed gap's, accepted texts or number."""
    accepted = blank.get("accepted")
    return PartFacts(
        accepted=tuple(t for t in accepted if isinstance(t, str))
        if isinstance(accepted, list)
        else (),
        number=decimal(blank.get("number")),
        wildcards=blank.get("wildcards") is True,
        more_numbers=len(elements(blank, "more_numbers")),
    )


def more_number_pairs(blank: Element) -> tuple[tuple[Decimal, Decimal], ...]:
    """A blank's other right numbers as (number, tolerance) pairs (what is not a number left
    out: the schema says)."""
    pairs = []
    for item in elements(blank, "more_numbers"):
        number, tolerance = decimal(item.get("number")), decimal(item.get("tolerance", 0))
        if number is not None and tolerance is not None:
            pairs.append((number, tolerance))
    return tuple(pairs)


def _plain(value: Decimal) -> str:
    return format(value.normalize(), "f")


def is_typed_gap(gap: Element) -> bool:
    """A gap without choices: typed in, holding what a blank holds."""
    return not gap.get("choices")


def _place(step: Element) -> int | None:
    place = step.get("place")
    return place if isinstance(place, int) and not isinstance(place, bool) else None


def _answer_index(prompt: Element) -> int | None:
    answer = prompt.get("answer")
    if isinstance(answer, int) and not isinstance(answer, bool) and answer >= 1:
        return answer - 1
    return None


def planned_items(question: Element) -> tuple[list[OptionValues], list[PartValues]]:
    """The options and parts a checked question is written as."""
    kind = question["kind"]
    if kind in CHOICE_KINDS:
        return [_option(option, correct=option["correct"]) for option in question["options"]], []
    if kind == Kind.ORDERING:
        return [_option(step, order=step.get("place")) for step in question["steps"]], []
    if kind == Kind.MATCHING:
        pool = [_option(answer) for answer in question["pool"]]
        return pool, [_part(prompt, answer=prompt["answer"] - 1) for prompt in question["prompts"]]
    if kind == Kind.YES_NO:
        return [], [_part(s, is_yes=YES_NO[s["answer"]]) for s in question["statements"]]
    if kind == Kind.FILL_IN:
        return [], [_blank(blank) for blank in question["blanks"]]
    gaps = question["gaps"]
    choices = [
        _option(choice, correct=choice["correct"], gap=number)
        for number, gap in enumerate(gaps)
        for choice in gap.get("choices", [])
    ]
    return choices, [
        _blank(gap) if is_typed_gap(gap) else _part(gap, prompt=gap["label"]) for gap in gaps
    ]


def _option(
    element: Element, *, correct: bool = False, order: int | None = None, gap: int | None = None
) -> OptionValues:
    return OptionValues(element["text"], correct, _whole_rationale(element), order=order, gap=gap)


def _part(element: Element, *, prompt: str | None = None, **values: Any) -> PartValues:
    prompt = element["text"] if prompt is None else prompt
    return PartValues(prompt=prompt, rationale=_whole_rationale(element), **values)


def _whole_rationale(element: Element) -> dict[str, str]:
    """Every rationale field of a checked element, an absent one empty: our format carries
    them all. Written out: for 40,000 options a comprehension cost a tenth of an import."""
    get = element.get
    return {
        "why": get("rationale", ""),
        "tempting_because": get("tempting_because", ""),
        "right_when": get("right_when", ""),
    }


def _blank(blank: Element) -> PartValues:
    feedback = tuple((item["answer"], item["feedback"]) for item in blank.get("feedback", []))
    number = decimal(blank.get("number"))
    if number is not None:
        return _part(
            blank,
            prompt=blank["label"],
            number=number,
            tolerance=decimal(blank.get("tolerance", 0)) or Decimal(0),
            more_numbers=[
                {"number": _plain(number), "tolerance": _plain(tolerance)}
                for number, tolerance in more_number_pairs(blank)
            ],
            units=", ".join(blank.get("units", [])),
            feedback=feedback,
        )
    return _part(
        blank,
        prompt=blank["label"],
        accepted="\n".join(blank["accepted"]),
        match_case=blank.get("match_case", False),
        ignore_spaces=blank.get("ignore_spaces", False),
        wildcards=blank.get("wildcards", False),
        feedback=feedback,
    )


def preview_lines(question: Element) -> list[tuple[str, bool, str]]:
    """A checked question as the import's preview lists it: (markdown, right, rationale) per
    option; for the other types, per step, pair, pool answer no prompt takes, statement,
    blank or drop-down choice, the text saying what it is and what is right."""
    kind = question["kind"]
    if kind in CHOICE_KINDS:
        return [(o["text"], o["correct"], o.get("rationale", "")) for o in question["options"]]
    if kind == Kind.ORDERING:
        return [
            (
                f"{step['place']}. {step['text']}"
                if "place" in step
                else f"(not a step) {step['text']}",
                "place" in step,
                step["rationale"],
            )
            for step in sorted(question["steps"], key=lambda step: step.get("place", 99))
        ]
    if kind == Kind.MATCHING:
        pool = question["pool"]
        lines = [
            (f"{p['text']} → {pool[p['answer'] - 1]['text']}", True, p["rationale"])
            for p in question["prompts"]
        ]
        taken = {prompt["answer"] - 1 for prompt in question["prompts"]}
        return lines + [
            (f"{answer['text']} (fits no prompt)", False, answer.get("rationale", ""))
            for index, answer in enumerate(pool)
            if index not in taken
        ]
    if kind == Kind.YES_NO:
        return [
            (f"{s['text']}: {s['answer'].capitalize()}", True, s["rationale"])
            for s in question["statements"]
        ]
    if kind == Kind.FILL_IN:
        return [(f"{b['label']}: {_accepted(b)}", True, b["rationale"]) for b in question["blanks"]]
    lines = []
    for number, gap in enumerate(question["gaps"], 1):
        if is_typed_gap(gap):
            lines.append((f"[[{number}]] {gap['label']}: {_accepted(gap)}", True, gap["rationale"]))
        lines += [
            (f"[[{number}]] {gap['label']}: {c['text']}", c["correct"], c.get("rationale", ""))
            for c in gap.get("choices", [])
        ]
    return lines


def _accepted(blank: Element) -> str:
    if "number" in blank:
        ranges = [blank, *blank.get("more_numbers", [])]
        units = f" {blank['units'][0]}" if blank.get("units") else ""
        return (
            " or ".join(
                f"{item['number']}" + (f" ± {item['tolerance']}" if item.get("tolerance") else "")
                for item in ranges
            )
            + units
        )
    wildcards = " (* stands for any characters)" if blank.get("wildcards") else ""
    return " / ".join(blank["accepted"]) + wildcards
