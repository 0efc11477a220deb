"""A typed answer's graded alternatives (Moodle's short answer and numerical, GIFT's, a cloze
part's) as one fill-in blank: the fully right ones are what it accepts, the wrong ones with
feedback its feedback on common wrong answers. What a blank cannot hold (partial credit for
an answer, a wildcard, feedback for "any other answer") goes into the question's notes, and
what would change the marking (several fully right numbers with gaps between their ranges,
a wildcard in a right answer) refuses the question with a reason rather than guessing."""

import re
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from questions.bank.formats.foreign import (
    NUMBER_PLACES,
    ForeignBlank,
    number_text,
    one_line,
    parse_number,
)

# Moodle's "any other answer" in a short answer or numerical question.
ANY_ANSWER = "*"
# Moodle's wildcard in a short answer: a star, unless a backslash makes it a star.
_WILDCARD = re.compile(r"(?<!\\)\*")


def _star(text: str) -> str:
    return text.replace("\\*", "*")


@dataclass(frozen=True)
class GradedAnswer:
    text: str  # as the source writes it: a text, or a number
    grade: float  # percent of the mark: 100 right, 0 or less wrong
    feedback: str = ""  # our Markdown: a right answer's becomes the blank's rationale
    feedback_plain: str = ""  # the same as plain text: a wrong answer's feedback
    tolerance: str = ""  # a number's, as written


@dataclass(frozen=True)
class Refused:
    """The answers cannot be one blank: skipped (`error` False) or an error in the file."""

    type: str
    reason: str
    error: bool = False


def text_blank(
    answers: Sequence[GradedAnswer], label: str, notes: list[str], *, match_case: bool = False
) -> ForeignBlank | Refused:
    accepted: list[str] = []
    rationale = ""
    wrong: list[tuple[str, str]] = []
    for answer in answers:
        text = one_line(answer.text)
        if not text:
            return Refused("short answer", "an answer is empty or over 200 characters", True)
        if answer.grade >= 100:
            if _WILDCARD.search(text):
                return Refused(
                    "short answer with a wildcard",
                    f"{text!r}: * stands for any text in Moodle; an accepted answer is exact",
                )
            accepted.append(_star(text))
            rationale = rationale or answer.feedback
        elif answer.grade > 0:
            notes.append(
                f"partial credit ({answer.grade:g}%) for {text!r} is not carried: it is not "
                "accepted"
            )
        elif answer.feedback_plain:
            if _WILDCARD.search(text):
                notes.append(
                    f"the feedback for answers like {text!r} is not carried: feedback is "
                    "given to named wrong answers"
                )
            else:
                wrong.append((_star(text), answer.feedback_plain))
    if not accepted:
        return Refused("short answer", "no right answer (none is marked 100%)", True)
    return ForeignBlank(
        label,
        accepted=tuple(accepted),
        match_case=match_case,
        wrong_answers=tuple(wrong),
        feedback=rationale,
    )


def number_blank(
    answers: Sequence[GradedAnswer],
    label: str,
    notes: list[str],
    units: Sequence[str] = (),
) -> ForeignBlank | Refused:
    right: list[tuple[Decimal, Decimal, str]] = []
    wrong: list[tuple[str, str]] = []
    for answer in answers:
        value = answer.text.strip()
        if value in ("", ANY_ANSWER):
            if answer.feedback_plain and answer.grade <= 0:
                notes.append(
                    "the feedback for any other answer is not carried: feedback is given to "
                    "named wrong answers"
                )
            continue
        number = parse_number(value)
        tolerance = parse_number(answer.tolerance) if answer.tolerance.strip() else Decimal(0)
        if number is None or tolerance is None:
            return Refused("numerical", f"{value!r} is not a number (or its tolerance)", True)
        tolerance = abs(tolerance)
        if answer.grade >= 100:
            right.append((number, tolerance, answer.feedback))
        elif answer.grade > 0:
            notes.append(
                f"partial credit ({answer.grade:g}%) for {number_text(number)}"
                + (f" ± {number_text(tolerance)}" if tolerance else "")
                + " is not carried: it is not accepted"
            )
        elif answer.feedback_plain:
            if tolerance:
                notes.append(
                    f"the feedback for answers near {number_text(number)} is given for "
                    f"{number_text(number)} itself"
                )
            wrong.append((number_text(number), answer.feedback_plain))
    if not right:
        return Refused("numerical", "no right answer (no number is marked 100%)", True)
    if len(right) > 1:
        one = _one_range(right, notes)
        if one is None:
            return Refused(
                "numerical with several right answers",
                "several numbers are fully right, with gaps between their ranges: a blank "
                "takes one number and its tolerance",
            )
        right = [one]
    number, tolerance, rationale = right[0]
    return ForeignBlank(
        label,
        number=number,
        tolerance=tolerance,
        units=tuple(units),
        wrong_answers=tuple(wrong),
        feedback=rationale,
    )


def _one_range(
    right: Sequence[tuple[Decimal, Decimal, str]], notes: list[str]
) -> tuple[Decimal, Decimal, str] | None:
    """Several fully right numbers whose ranges (number ± tolerance) leave no gap between
    them accept exactly what one range does: that range, or None. When one answer's range
    holds all the others (3.14 ± 0.01 and 3.141 ± 0.001) it is that answer; otherwise the
    middle of them all, noted, as no answer of the source is that number."""
    ranges = sorted((number - tolerance, number + tolerance) for number, tolerance, _ in right)
    low, high = ranges[0]
    for start, end in ranges[1:]:
        if start > high:
            return None
        high = max(high, end)
    rationale = right[0][2]
    for number, tolerance, _ in right:
        if number - tolerance == low and number + tolerance == high:
            return number, tolerance, rationale
    middle, half = (low + high) / 2, (high - low) / 2
    if middle != middle.quantize(NUMBER_PLACES) or half != half.quantize(NUMBER_PLACES):
        return None
    listed = ", ".join(f"{number_text(n)} ± {number_text(t)}" for n, t, _ in right)
    notes.append(
        f"its fully right numbers ({listed}) cover one range without a gap: the blank is "
        f"{number_text(middle)} ± {number_text(half)}, which accepts the same answers"
    )
    return middle.normalize(), half.normalize(), rationale


def unequal_weights(weights: Sequence[float]) -> str | None:
    """A note when the right options of a select-all-that-apply question weigh differently:
    ours earn equal shares."""
    if len({round(weight, 4) for weight in weights}) <= 1:
        return None
    listed = ", ".join(f"{weight:g}%" for weight in weights)
    return (
        f"its right options' unequal weights ({listed}) are not carried: each earns an equal share"
    )
