"""A typed answer's graded alternatives (Moodle's short answer and numerical, GIFT's, a cloze
part's) as one fill-in blank: the fully right ones are what it accepts, the wrong ones with
feedback its feedback on common wrong answers. Moodle's `*` in a short answer (any run of
characters; `\\*` is a star) becomes the blank's wildcards, and several fully right numbers
its number and other right numbers. What a blank cannot hold (partial credit for an
answer, feedback for "any other number") goes into the question's notes: a partly right
answer is wrong here, as a blank is right or wrong."""

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
from questions.grading import MAX_MORE_NUMBERS, KeyPart, has_wildcard, text_matches

# Moodle's "any other answer" in a short answer or numerical question.
ANY_ANSWER = "*"


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
    """The right answers accepted, the wrong ones with feedback carried. When any of them has
    Moodle's wildcard the blank has wildcards and keeps the texts as written (`\\*` a star);
    otherwise `\\*` is written as the star it is."""
    accepted: list[str] = []
    rationale = ""
    wrong: list[tuple[str, str]] = []
    for answer in answers:
        text = one_line(answer.text)
        if not text:
            return Refused("short answer", "an answer is empty or over 200 characters", True)
        if answer.grade >= 100:
            accepted.append(text)
            rationale = rationale or answer.feedback
        else:
            if answer.grade > 0:
                notes.append(
                    f"partial credit ({answer.grade:g}%) for {text!r} is not carried: it is "
                    "not accepted"
                )
            if answer.feedback_plain:
                # A partly right answer is wrong here, and still hears its feedback.
                wrong.append((text, answer.feedback_plain))
    if not accepted:
        return Refused("short answer", "no right answer (none is marked 100%)", True)
    wildcards = any(has_wildcard(text) for text in [*accepted, *(w for w, _ in wrong)])
    if not wildcards:
        accepted = [_star(text) for text in accepted]
        wrong = [(_star(text), feedback) for text, feedback in wrong]
    # Moodle takes the first answer that matches: one after a right answer that takes it
    # would never be given.
    key = KeyPart("", accepted=tuple(accepted), match_case=match_case, wildcards=wildcards)
    wrong = [
        (text, feedback)
        for text, feedback in wrong
        if not any(text_matches(key, text, right) for right in accepted)
    ]
    return ForeignBlank(
        label,
        accepted=tuple(accepted),
        match_case=match_case,
        wildcards=wildcards,
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
        # Ranges that join are one range; otherwise the first is the blank's number and the
        # others its other right numbers.
        one = _one_range(right, notes)
        right = [one] if one is not None else right
    if len(right) > 1 + MAX_MORE_NUMBERS:
        return Refused(
            "numerical with several right answers",
            f"{len(right)} numbers are fully right: a blank takes at most {1 + MAX_MORE_NUMBERS}",
        )
    number, tolerance, rationale = right[0]
    return ForeignBlank(
        label,
        number=number,
        tolerance=tolerance,
        more_numbers=tuple((n, t) for n, t, _ in right[1:]),
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
