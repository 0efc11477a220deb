"""The item types' share of a question page's snapshot: parts, steps, exhibits, case
studies, the answer key the grading reads, and the part-by-part breakdown after an answer.

Built with the snapshot (questions.pages.snapshot) and cached with it. The answer key and the
rationales stay on the server; templates show them only in the result."""

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from questions.grading import (
    DROPDOWN,
    FILL_IN,
    MATCHING,
    NO,
    ORDERING,
    YES,
    YES_NO,
    Grade,
    KeyPart,
    PartResult,
    has_wildcard,
)
from questions.item_rules import GAP_MARKER
from questions.markup import quick_snippet, render_markdown, render_markdown_inline
from questions.models import CaseStudy, Part

NOTHING = SafeString("")


@dataclass(frozen=True)
class OptionView:
    key: str
    text: str  # the author's markdown, recorded with an answer
    text_html: SafeString
    is_correct: bool
    why_html: SafeString
    tempting_html: SafeString
    right_when_html: SafeString
    chosen_by: int = 0  # learners whose first answer chose it (see Question.answered_by)
    order: int | None = None  # an ordering's step: where it belongs (1 first)


@dataclass(frozen=True)
class PartView:
    key: str
    prompt_html: SafeString
    label: str  # the prompt as plain text: a drop-down's accessible name
    why_html: SafeString
    tempting_html: SafeString
    right_when_html: SafeString
    answer: KeyPart  # what it accepts: for grading, and shown only in the result
    # Drop-downs: this gap's choices, in the author's order.
    choice_views: tuple[OptionView, ...] = ()
    # The right answer in words, for the result.
    expected_html: SafeString = NOTHING

    @property
    def is_numeric(self) -> bool:
        return self.answer.is_numeric

    @property
    def choices(self) -> tuple[tuple[str, SafeString], ...]:
        """A drop-down's choices as (key, text HTML), for its input."""
        return tuple((choice.key, choice.text_html) for choice in self.choice_views)

    @property
    def units(self) -> str:
        return ", ".join(self.answer.units)


@dataclass(frozen=True)
class ExhibitPiece:
    """Exhibit HTML up to a drop-down, and the index of the gap that follows it (None after
    the last piece)."""

    html: SafeString
    gap: int | None


@dataclass(frozen=True)
class CaseStudyView:
    slug: str
    title: str
    scenario_html: SafeString


@dataclass(frozen=True)
class PartRow:
    """One line of the part-by-part breakdown."""

    number: int
    label_html: SafeString
    given_html: SafeString
    expected_html: SafeString
    correct: bool
    feedback: str
    why_html: SafeString
    tempting_html: SafeString
    right_when_html: SafeString
    # Why the answer given does not fit, when it was a wrong choice with a rationale.
    given_why_html: SafeString = NOTHING

    @property
    def state(self) -> str:
        return "right" if self.correct else "wrong"


def case_study_view(case: CaseStudy | None) -> CaseStudyView | None:
    if case is None:
        return None
    return CaseStudyView(case.slug, case.title, render_markdown(case.scenario))


def shuffled(keys: Sequence[str], correct: Sequence[str]) -> list[int]:
    """Indices of `keys` in an order that gives nothing away: by the random keys, turned by
    one when that happens to be the right order (or the author's). Stable, so that a page
    rendered once shows the same order to everyone."""
    order = sorted(range(len(keys)), key=lambda index: keys[index])
    if len(order) > 1 and ([keys[i] for i in order] == list(correct) or order == sorted(order)):
        order = order[1:] + order[:1]
    return order


def part_views(
    kind: str,
    parts: Sequence[Part],
    pool: dict[int, OptionView],
    gap_options: dict[int, list[OptionView]],
) -> tuple[PartView, ...]:
    """The views of one question's parts. `pool`: the matching pool by option id;
    `gap_options`: each drop-down gap's choices by part id."""
    views = []
    for part in parts:
        choices = gap_options.get(part.pk, [])
        answer_key, expected = "", mark_safe("")
        if kind == MATCHING and part.answer_id in pool:
            answer_key, expected = pool[part.answer_id].key, pool[part.answer_id].text_html
        elif kind == YES_NO and part.is_yes is not None:
            answer_key = YES if part.is_yes else NO
            expected = mark_safe("Yes" if part.is_yes else "No")  # noqa: S308 - a constant
        elif kind == DROPDOWN and choices:
            right = [choice for choice in choices if choice.is_correct]
            if right:
                answer_key, expected = right[0].key, right[0].text_html
        elif kind in (FILL_IN, DROPDOWN):  # a blank, or a gap typed in
            expected = _expected_fill_in(part)
        views.append(
            PartView(
                key=part.key,
                prompt_html=render_markdown_inline(part.prompt),
                label=quick_snippet(part.prompt, 120),
                why_html=render_markdown(part.why),
                tempting_html=render_markdown(part.tempting_because),
                right_when_html=render_markdown(part.right_when),
                answer=KeyPart(
                    key=part.key,
                    answer=answer_key,
                    accepted=tuple(part.accepted_texts),
                    match_case=part.match_case,
                    ignore_spaces=part.ignore_spaces,
                    wildcards=part.wildcards,
                    number=part.number,
                    tolerance=part.tolerance or Decimal(0),
                    more_numbers=part.more_ranges if part.number is not None else (),
                    units=tuple(part.unit_list),
                    feedback=tuple(
                        (str(item["answer"]), str(item["feedback"]))
                        for item in part.feedback
                        if isinstance(item, dict) and "answer" in item and "feedback" in item
                    ),
                    options=tuple(choice.key for choice in choices),
                ),
                choice_views=tuple(choices),
                expected_html=expected,
            )
        )
    return tuple(views)


def _expected_fill_in(part: Part) -> SafeString:
    if part.number is not None:
        ranges = ((part.number, part.tolerance or Decimal(0)), *part.more_ranges)
        if len(ranges) == 1:
            number = _plain(part.number)
            text = number if not part.tolerance else f"{number} ± {_plain(part.tolerance)}"
        else:
            # Several ranges read "3 (± 0.1) or 7 (± 0.1)".
            text = " or ".join(
                _plain(number) + (f" (± {_plain(tolerance)})" if tolerance else "")
                for number, tolerance in ranges
            )
        units = part.unit_list
        return format_html("{}{}", text, f" {units[0]}" if units else "")
    accepted = part.accepted_texts
    if not accepted:
        return mark_safe("")
    others = f" (also accepted: {', '.join(accepted[1:])})" if len(accepted) > 1 else ""
    if part.wildcards and any(has_wildcard(text) for text in accepted):
        others += " (* stands for any characters)"
    return format_html("{}{}", accepted[0], others)


def _plain(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return text


def exhibit_pieces(exhibit_html: str, gap_count: int) -> tuple[ExhibitPiece, ...]:
    """The rendered exhibit cut at its [[n]] markers: the drop-downs go between the pieces.
    A marker the rules did not allow stays as it was written."""
    pieces, start = [], 0
    for match in GAP_MARKER.finditer(exhibit_html):
        gap = int(match.group(1)) - 1
        if not 0 <= gap < gap_count:
            continue
        pieces.append(ExhibitPiece(mark_safe(exhibit_html[start : match.start()]), gap))  # noqa: S308
        start = match.end()
    pieces.append(ExhibitPiece(mark_safe(exhibit_html[start:]), None))  # noqa: S308
    return tuple(pieces)


def part_rows(
    kind: str,
    parts: Sequence[PartView],
    options: Sequence[OptionView],
    grade: Grade,
) -> list[PartRow]:
    """The part-by-part breakdown: each prompt, statement, blank, gap or step with the answer
    given, the right one, and its rationale."""
    results = {result.key: result for result in grade.parts}
    if kind == ORDERING:
        return _step_rows(options, results)
    texts = {option.key: option.text_html for option in options}
    views = {option.key: option for option in options}
    rows = []
    for number, part in enumerate(parts, 1):
        result = results.get(part.key) or PartResult(part.key, "", False)
        chosen = views.get(result.given) or next(
            (choice for choice in part.choice_views if choice.key == result.given), None
        )
        rows.append(
            PartRow(
                number=number,
                label_html=part.prompt_html,
                given_html=_given_html(kind, part, result.given, texts),
                expected_html=part.expected_html,
                correct=result.correct,
                feedback=result.feedback,
                why_html=part.why_html,
                tempting_html=part.tempting_html,
                right_when_html=part.right_when_html,
                given_why_html=chosen.why_html if chosen and not result.correct else NOTHING,
            )
        )
    return rows


def _given_html(kind: str, part: PartView, given: str, pool: dict[str, SafeString]) -> SafeString:
    if not given:
        return mark_safe("<em>no answer</em>")
    if kind == MATCHING:
        return pool.get(given, mark_safe(""))
    if kind == DROPDOWN and part.choice_views:
        return dict(part.choices).get(given, mark_safe(""))
    if kind == YES_NO:
        return mark_safe("Yes" if given == YES else "No")  # noqa: S308 - a constant
    return format_html("{}", given)


def _step_rows(steps: Sequence[OptionView], results: dict[str, PartResult]) -> list[PartRow]:
    """An ordering's steps in their right order (then those that do not belong)."""
    ordered = sorted(steps, key=lambda step: (step.order is None, step.order or 0))
    rows = []
    for number, step in enumerate(ordered, 1):
        result = results.get(step.key) or PartResult(step.key, "", False)
        rows.append(
            PartRow(
                number=number,
                label_html=step.text_html,
                given_html=format_html("place {}", result.given)
                if result.given
                else mark_safe("<em>left out</em>"),
                expected_html=format_html("place {}", step.order)
                if step.order
                else mark_safe("left out: it is not a step of this task"),
                correct=result.correct,
                feedback="",
                why_html=step.why_html,
                tempting_html=step.tempting_html,
                right_when_html=step.right_when_html,
            )
        )
    return rows
