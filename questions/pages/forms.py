"""The answer forms' reading of a post: a response of any item type, validated against the
page's own options and parts. The templates draw the inputs (labels hold rendered markdown);
the inputs of the types made of parts come from `part_inputs`."""

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.http import QueryDict
from django.utils.safestring import SafeString, mark_safe

from questions.grading import (
    DROPDOWN,
    FILL_IN,
    MATCHING,
    MAX_TYPED,
    NO,
    ORDERING,
    YES,
    YES_NO,
    Response,
    parse_number,
)
from questions.pages.snapshot import QuestionPage

# The name of each type's inputs: the prefix, then the part's (or the step's) key.
PREFIXES = {ORDERING: "place-", MATCHING: "match-", YES_NO: "yesno-", DROPDOWN: "gap-"}
FILL_IN_PREFIX = "blank-"
ALL_PREFIXES = ("choice", "place-", "match-", "yesno-", "gap-", "blank-")


@dataclass
class PartInput:
    """One input of a question made of parts, as the template draws it."""

    name: str
    number: int
    label_html: SafeString
    label: str  # plain text, for a drop-down's accessible name
    control: str  # select, yesno, text or number
    choices: list[tuple[str, SafeString]] = field(default_factory=list)
    value: str = ""
    error: str = ""
    units: str = ""

    @property
    def input_id(self) -> str:
        return f"input-{self.name}"

    @property
    def noun(self) -> str:
        """What an exhibit's gap is called to a screen reader and in its error."""
        return "Drop-down" if self.control == "select" else "Blank"


def part_inputs(page: QuestionPage, values: dict[str, str] | None = None) -> list[PartInput]:
    """The inputs of an ordering or a question of parts, in the order they are shown, with
    the values given (a post shown again, a saved mock answer)."""
    values = values or {}
    if page.kind == ORDERING:
        places = [(str(n), mark_safe(str(n))) for n in range(1, page.step_count + 1)]  # noqa: S308
        return [
            PartInput(
                name=f"place-{option.key}",
                number=number,
                label_html=option.text_html,
                label=option.text,
                control="select",
                choices=places,
                value=values.get(f"place-{option.key}", ""),
            )
            for number, option in enumerate(page.shown_options, 1)
        ]
    inputs = []
    pool = [(option.key, option.text_html) for option in page.shown_options]
    for number, part in enumerate(page.parts, 1):
        choices: list[tuple[str, SafeString]] = []
        if page.kind == FILL_IN:
            name, control = FILL_IN_PREFIX + part.key, "number" if part.is_numeric else "text"
        elif page.kind == DROPDOWN and not part.choice_views:
            # An exhibit's gap without choices is a blank typed in place.
            name, control = PREFIXES[DROPDOWN] + part.key, "number" if part.is_numeric else "text"
        else:
            name = PREFIXES[page.kind] + part.key
            control = "yesno" if page.kind == YES_NO else "select"
            choices = list(part.choices) if page.kind == DROPDOWN else pool
            if page.kind == YES_NO:
                choices = [(YES, mark_safe("Yes")), (NO, mark_safe("No"))]
        inputs.append(
            PartInput(
                name=name,
                number=number,
                label_html=part.prompt_html,
                label=part.label or f"Part {number}",
                control=control,
                choices=choices,
                value=values.get(name, ""),
                units=part.units,
            )
        )
    return inputs


def exhibit_rows(
    page: QuestionPage, inputs: list[PartInput]
) -> list[tuple[SafeString, PartInput | None]]:
    """A drop-down exhibit as (HTML, the drop-down after it) pairs."""
    return [
        (piece.html, inputs[piece.gap] if piece.gap is not None else None)
        for piece in page.exhibit_pieces
    ]


def stored_values(page: QuestionPage, keys: Iterable[str]) -> dict[str, str]:
    """A stored response (a mock item's keys) as the inputs' values."""
    response = Response.from_keys(keys)
    prefix = FILL_IN_PREFIX if page.kind == FILL_IN else PREFIXES.get(page.kind, "")
    return {prefix + key: value for key, value in response.values}


def read_parts(
    page: QuestionPage, data: QueryDict, *, require_all: bool
) -> tuple[Response, list[PartInput], list[str]]:
    """The response posted to an ordering or a question of parts, the inputs to show again
    (with their values and errors), and what is wrong with the post as a whole. A response
    with any error must not be recorded."""
    inputs = part_inputs(page)
    problems: list[str] = []
    expected = {item.name for item in inputs}
    if any(name.startswith(ALL_PREFIXES) and name not in expected for name in data):
        problems.append("That answer names a part this question does not have. Answer again.")
    values: list[tuple[str, str]] = []
    places: dict[str, list[int]] = {}
    for item in inputs:
        posted = data.getlist(item.name)
        if len(posted) > 1:
            item.error = "This part was answered twice: give it one answer."
            continue
        value = posted[0].strip() if posted else ""
        item.value = value[:MAX_TYPED]
        if not value:
            if require_all and page.kind != ORDERING:
                item.error = "Answer this part."
            continue
        if item.control in ("select", "yesno") and value not in {k for k, _ in item.choices}:
            item.error = "That is not one of this part's choices."
            continue
        if item.control == "number":
            part = page.parts[item.number - 1]
            if parse_number(value, part.answer.units) is None:
                units = f" (a unit after it may be {item.units})" if item.units else ""
                item.error = f"Give a number here, such as 12 or 0.5{units}."
                continue
        if len(value) > MAX_TYPED:
            item.error = f"Keep this answer to {MAX_TYPED} characters."
            continue
        if page.kind == ORDERING:
            places.setdefault(value, []).append(item.number)
        key = item.name.split("-", 1)[1]
        values.append((key, value))
    if page.kind == ORDERING:
        problems += _place_problems(page.step_count, places, require_all)
    if not page.reuse_answers and page.kind == MATCHING:
        used = [value for _, value in values]
        if len(used) != len(set(used)):
            problems.append("Each answer of the pool fits one prompt only: use each once.")
    return Response(values=tuple(values)), inputs, problems


def _place_problems(count: int, places: dict[str, list[int]], require_all: bool) -> list[str]:
    problems = []
    for place, steps in sorted(places.items(), key=lambda item: int(item[0])):
        if len(steps) > 1:
            problems.append(f"Place {place} holds {len(steps)} steps: give each place one step.")
    if require_all:
        empty = [str(n) for n in range(1, count + 1) if str(n) not in places]
        if empty:
            problems.append(
                f"Place{'s' if len(empty) > 1 else ''} {', '.join(empty)} "
                f"{'are' if len(empty) > 1 else 'is'} still empty: give every place a step."
            )
    return problems


class AnswerForm(forms.Form):
    """An answer to one question. A choice question: the posted option keys must be its own,
    one for a single answer, at least one for select-all-that-apply. An ordering or a
    question of parts: every part answered once, from its own choices (see read_parts)."""

    def __init__(self, page: QuestionPage, data: QueryDict | None = None) -> None:
        super().__init__(data)
        self.page = page
        self.posted = data.getlist("choice") if data is not None else []
        self._inputs: list[PartInput] | None = None
        self.problems: list[str] = []
        self._response = Response()
        if not page.is_choice:
            return
        choices = [(option.key, option.key) for option in page.options]
        unknown = "That answer is not one of this question's options. Choose again."
        if page.is_multiple:
            self.fields["choice"] = forms.MultipleChoiceField(
                choices=choices,
                error_messages={
                    "required": "Choose at least one option before checking your answer.",
                    "invalid_choice": unknown,
                },
            )
        else:
            self.fields["choice"] = forms.ChoiceField(
                choices=choices,
                error_messages={
                    "required": "Choose an answer before checking it.",
                    "invalid_choice": unknown,
                },
            )

    def clean_choice(self) -> Any:
        if not self.page.is_multiple and len(self.posted) > 1:
            raise ValidationError(
                "This question takes one answer: choose a single option.", code="several"
            )
        return self.cleaned_data["choice"]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.page.is_choice or self.data is None:
            return data
        assert isinstance(self.data, QueryDict)
        self._response, self._inputs, self.problems = read_parts(
            self.page, self.data, require_all=True
        )
        if self.problems or any(item.error for item in self.inputs):
            raise ValidationError(
                self.problems or ["Some parts need another look: see the messages below."]
            )
        return data

    @property
    def inputs(self) -> list[PartInput]:
        """The inputs to draw: built when the form is shown, not for an answer recorded."""
        if self._inputs is None:
            self._inputs = [] if self.page.is_choice else part_inputs(self.page)
        return self._inputs

    @property
    def chosen_keys(self) -> frozenset[str]:
        value = self.cleaned_data["choice"]
        return frozenset([value] if isinstance(value, str) else value)

    @property
    def response(self) -> Response:
        if self.page.is_choice:
            return Response(choices=tuple(sorted(self.chosen_keys)))
        return self._response

    @property
    def exhibit(self) -> list[tuple[SafeString, PartInput | None]]:
        return exhibit_rows(self.page, self.inputs)

    def posted_keys(self) -> frozenset[str]:
        """What was ticked, among this question's options: to tick it again on a 400."""
        return frozenset(self.posted) & self.page.option_keys
