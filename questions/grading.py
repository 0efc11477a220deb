"""How every item type is graded: a response against an answer key, with a verdict per part.

Plain Python, no queries: the question page's snapshot holds each question's answer key, and
the question page, quizzes and mock exams grade through it alike.

A response travels as a list of strings, as attempts and mock items store it:
- choice questions: the chosen option keys;
- ordering: "<step key>=<place>" per step placed, 1 the first place;
- the types made of parts (matching, yes/no series, fill-in, drop-downs): one
  "<part key>=<value>" per part, the value an option key, "yes" or "no", or the text typed.
Option and part keys are URL-safe tokens, so the first "=" ends the key.

Scoring is all-or-nothing unless the question gives partial credit: then the score is the
share of its parts right (of the correct options for select-all-that-apply, less the wrong
ones ticked, never below 0).
"""

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

SINGLE, MULTIPLE, ORDERING = "single", "multiple", "ordering"
MATCHING, YES_NO, FILL_IN, DROPDOWN = "matching", "yesno", "fillin", "dropdown"
CHOICE_KINDS = frozenset({SINGLE, MULTIPLE})
# The types whose response is one value per part.
PART_KINDS = frozenset({MATCHING, YES_NO, FILL_IN, DROPDOWN})
ALL_OR_NOTHING, PARTIAL = "all", "partial"
YES, NO = "yes", "no"
# A typed answer longer than this is not an answer to a blank.
MAX_TYPED = 200

_NUMBER = re.compile(r"\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*(.*?)\s*")
# A star of an accepted answer with wildcards: any run of characters, unless a backslash
# makes it a star.
_WILDCARD = re.compile(r"(?<!\\)\*")
# A blank's numbers are stored with 8 decimals, 24 digits in all.
NUMBER_DECIMALS = 8
NUMBER_DIGITS = 16
# A number blank's right numbers besides its own: each with its tolerance.
MAX_MORE_NUMBERS = 10


@dataclass(frozen=True)
class KeyPart:
    """What one part accepts. `answer` is the option key that fits (matching, drop-downs) or
    "yes"/"no" (yes/no series); a fill-in blank accepts its texts or its number."""

    key: str
    answer: str = ""
    accepted: tuple[str, ...] = ()
    match_case: bool = False
    ignore_spaces: bool = False
    # "*" in an accepted text (and a feedback's answer) is any run of characters, "\\*" a star.
    wildcards: bool = False
    number: Decimal | None = None
    tolerance: Decimal = Decimal(0)
    # Other right numbers, each (number, tolerance): an answer within any range is right.
    more_numbers: tuple[tuple[Decimal, Decimal], ...] = ()
    units: tuple[str, ...] = ()
    # Common wrong answers and what to tell a learner who gives one.
    feedback: tuple[tuple[str, str], ...] = ()
    # Drop-downs: the keys of this gap's own options.
    options: tuple[str, ...] = ()

    @property
    def is_numeric(self) -> bool:
        return self.number is not None

    @property
    def ranges(self) -> tuple[tuple[Decimal, Decimal], ...]:
        """Every right number with its tolerance, the blank's own first."""
        if self.number is None:
            return ()
        return ((self.number, self.tolerance), *self.more_numbers)

    def is_right_number(self, value: Decimal) -> bool:
        return any(abs(value - number) <= tolerance for number, tolerance in self.ranges)


@dataclass(frozen=True)
class AnswerKey:
    kind: str
    scoring: str = ALL_OR_NOTHING
    # Choice: the correct option keys. Ordering: the steps that belong, in their order.
    correct: tuple[str, ...] = ()
    # Every option key: the choices, the steps, the matching pool.
    options: tuple[str, ...] = ()
    parts: tuple[KeyPart, ...] = ()
    # Matching: may one pool answer fit several prompts?
    reuse: bool = False


@dataclass(frozen=True)
class Response:
    """A learner's answer. `choices`: the chosen keys of a choice question. `values`:
    (part key, value) per part answered, or (step key, place) per step of an ordering."""

    choices: tuple[str, ...] = ()
    values: tuple[tuple[str, str], ...] = ()

    def keys(self) -> list[str]:
        return [*self.choices, *(f"{key}={value}" for key, value in self.values)]

    @classmethod
    def from_keys(cls, keys: Iterable[str]) -> "Response":
        choices, values = [], []
        for item in keys:
            key, sep, value = str(item).partition("=")
            if sep:
                values.append((key, value))
            else:
                choices.append(key)
        return cls(tuple(choices), tuple(values))

    def value_of(self, part_key: str) -> str:
        return next((value for key, value in self.values if key == part_key), "")

    @property
    def is_empty(self) -> bool:
        return not self.choices and not any(value for _, value in self.values)


@dataclass(frozen=True)
class PartResult:
    """The verdict on one part: a prompt, statement, gap or blank, or an ordering's step."""

    key: str
    given: str  # the option key, yes/no or text given ("" for none); a step's place
    correct: bool
    feedback: str = ""  # what the bank says to this common wrong answer
    belongs: bool = True  # False for an ordering's step that is not in the order


@dataclass(frozen=True)
class Grade:
    """The verdict on one answer. For choice questions: which chosen options were right,
    which wrong, which correct ones were missed. For the others, a result per part."""

    is_correct: bool
    chosen: frozenset[str]
    right: frozenset[str]
    wrong: frozenset[str]
    missed: frozenset[str]
    score: float = 0.0
    parts: tuple[PartResult, ...] = ()
    response: tuple[str, ...] = ()

    @property
    def correct_count(self) -> int:
        return len(self.right) + len(self.missed)

    @property
    def parts_right(self) -> int:
        """Parts right; of an ordering, the steps in their place (not those left out)."""
        return sum(1 for part in self.parts if part.correct and part.belongs)

    @property
    def parts_counted(self) -> int:
        return sum(1 for part in self.parts if part.belongs)

    @property
    def strays(self) -> int:
        """An ordering's steps put in the order that do not belong in it."""
        return sum(1 for part in self.parts if not part.belongs and not part.correct)

    @property
    def percent(self) -> int:
        return round(100 * self.score)

    @property
    def is_partial(self) -> bool:
        return 0 < self.score < 1

    @property
    def variant(self) -> str:
        """Names this answer among all answers to the question: keys the result's HTML,
        which is the same for every learner giving it. Typed text is hashed, not shown."""
        if not self.parts:
            return ",".join(sorted(self.chosen))
        return hashlib.sha256("\n".join(self.response).encode()).hexdigest()[:32]

    @property
    def tally(self) -> str:
        """What a select-all-that-apply answer got, in words: "You chose 1 of the 2 correct
        options and 1 wrong one; you missed 1." """
        correct, wrong = self.correct_count, len(self.wrong)
        text = f"You chose {len(self.right)} of the {correct} correct option{_s(correct)}"
        if wrong:
            text += f" and {wrong} wrong one{_s(wrong)}"
        if self.missed:
            text += f"; you missed {len(self.missed)}"
        return text + "."


def _s(count: int) -> str:
    return "" if count == 1 else "s"


def grade_answer(
    correct_keys: Iterable[str], chosen_keys: Iterable[str], *, scoring: str = ALL_OR_NOTHING
) -> Grade:
    """A choice question: right only when exactly the correct options were chosen. With
    partial credit, each correct option ticked earns its share and each wrong one takes a
    share away."""
    correct, chosen = frozenset(correct_keys), frozenset(chosen_keys)
    right, wrong = chosen & correct, chosen - correct
    is_correct = bool(chosen) and chosen == correct
    if scoring == PARTIAL and correct:
        score = max(0.0, (len(right) - len(wrong)) / len(correct))
    else:
        score = 1.0 if is_correct else 0.0
    return Grade(
        is_correct=is_correct,
        chosen=chosen,
        right=right,
        wrong=wrong,
        missed=correct - chosen,
        score=score,
        response=tuple(sorted(chosen)),
    )


def grade(key: AnswerKey, response: Response) -> Grade:
    """Grade a response of any type against its answer key."""
    if key.kind in CHOICE_KINDS:
        return grade_answer(key.correct, response.choices, scoring=key.scoring)
    if key.kind == ORDERING:
        results = _ordering_results(key, response)
        is_correct = bool(results) and all(result.correct for result in results)
        belongs = set(key.correct)
        placed = sum(1 for r in results if r.correct and r.key in belongs)
        share = placed / len(key.correct) if key.correct else 0.0
    else:
        results = tuple(_part_result(part, response.value_of(part.key)) for part in key.parts)
        is_correct = bool(results) and all(result.correct for result in results)
        share = sum(1 for r in results if r.correct) / len(results) if results else 0.0
    score = share if key.scoring == PARTIAL else float(is_correct)
    chosen = frozenset(response.choices)
    return Grade(
        is_correct=is_correct,
        chosen=chosen,
        right=frozenset(),
        wrong=frozenset(),
        missed=frozenset(),
        score=1.0 if is_correct else score,
        parts=results,
        response=tuple(response.keys()),
    )


def _ordering_results(key: AnswerKey, response: Response) -> tuple[PartResult, ...]:
    """A result per step: the place given ("" when left out) and whether that is where it
    belongs (or left out, for a step that does not belong)."""
    belongs = {step: str(index + 1) for index, step in enumerate(key.correct)}
    return tuple(
        PartResult(
            key=step,
            given=(given := response.value_of(step)),
            correct=given == belongs.get(step, ""),
            belongs=step in belongs,
        )
        for step in key.options
    )


def _part_result(part: KeyPart, given: str) -> PartResult:
    if part.answer:
        return PartResult(part.key, given, given == part.answer)
    if part.is_numeric:
        value = parse_number(given, part.units)
        right = value is not None and part.is_right_number(value)
    else:
        right = any(text_matches(part, given, accepted) for accepted in part.accepted)
    feedback = "" if right else _feedback_for(part, given)
    return PartResult(part.key, given, right, feedback)


def _feedback_for(part: KeyPart, given: str) -> str:
    for answer, feedback in part.feedback:
        if part.is_numeric:
            mine, theirs = parse_number(given, part.units), parse_number(answer, part.units)
            if mine is not None and mine == theirs:
                return feedback
        elif text_matches(part, given, answer):
            return feedback
    return ""


def normal_text(text: str, *, match_case: bool, ignore_spaces: bool) -> str:
    """Text as a blank compares it: Unicode-normalised, trimmed, runs of spaces made one (or
    all spaces removed), and case folded unless case matters."""
    text = unicodedata.normalize("NFKC", text)
    text = "".join(text.split()) if ignore_spaces else " ".join(text.split())
    return text if match_case else text.casefold()


def text_matches(part: KeyPart, given: str, accepted: str) -> bool:
    rules = {"match_case": part.match_case, "ignore_spaces": part.ignore_spaces}
    if not given.strip():
        return False
    if part.wildcards:
        return (
            wildcard_pattern(normal_text(accepted, **rules)).fullmatch(normal_text(given, **rules))
            is not None
        )
    return normal_text(given, **rules) == normal_text(accepted, **rules)


def wildcard_pattern(accepted: str) -> re.Pattern[str]:
    """An accepted text with wildcards as the pattern it stands for: each "*" any run of
    characters (none too), "\\*" a star, everything else itself."""
    pieces = (re.escape(piece.replace("\\*", "*")) for piece in _WILDCARD.split(accepted))
    return re.compile(".*".join(pieces), re.DOTALL)


def has_wildcard(text: str) -> bool:
    return _WILDCARD.search(text) is not None


def more_numbers_problems(value: object) -> list[str]:
    """What is wrong with a blank's other right numbers: a list of {"number": "7",
    "tolerance": "0.1"}, decimals written as strings, each finite and kept as a blank's
    number is (at most 16 digits before the point and 8 after), the tolerance not below 0."""
    if not isinstance(value, list) or not all(
        isinstance(item, dict) and set(item) <= {"number", "tolerance"} and "number" in item
        for item in value
    ):
        return ['other right numbers are a list of {"number": "7", "tolerance": "0.1"}']
    problems = []
    if len(value) > MAX_MORE_NUMBERS:
        problems.append(f"a blank takes at most {MAX_MORE_NUMBERS} other right numbers")
    for item in value:
        for name in ("number", "tolerance"):
            problem = number_problem(item.get(name, "0"), name)
            if problem:
                problems.append(problem)
    return problems


def number_problem(text: object, name: str = "number") -> str | None:
    """Why `text` cannot be a blank's number (or tolerance): None when it can."""
    try:
        value = Decimal(str(text).strip()) if isinstance(text, str | int) else None
    except InvalidOperation:
        value = None
    if value is None or not value.is_finite():
        return f"the {name} {text!r} is not a number"
    if name == "tolerance" and value < 0:
        return f"the tolerance {text} cannot be negative"
    if abs(value) >= Decimal(10) ** NUMBER_DIGITS:
        return f"the {name} {text} has more than {NUMBER_DIGITS} digits before the point"
    if value != value.quantize(Decimal(10) ** -NUMBER_DECIMALS):
        return f"the {name} {text} has more than {NUMBER_DECIMALS} decimal places"
    return None


def more_ranges(value: object) -> tuple[tuple[Decimal, Decimal], ...]:
    """A blank's other right numbers as (number, tolerance) pairs; what is not a valid
    range (the model's validation keeps such out) is left out rather than guessed at."""
    if not isinstance(value, list) or more_numbers_problems(value):
        return ()
    return tuple(
        (Decimal(str(item["number"]).strip()), Decimal(str(item.get("tolerance", "0")).strip()))
        for item in value
    )


def parse_number(text: str, units: Sequence[str] = ()) -> Decimal | None:
    """The number typed, with an optional unit among `units` after it; None when the text is
    not a number in that form. A decimal point, not a comma: "1.5", "-2", "3e-4", "40 ms"."""
    match = _NUMBER.fullmatch(text)
    if match is None:
        return None
    unit = match.group(2)
    if unit and unit.casefold() not in {u.casefold() for u in units}:
        return None
    try:
        return Decimal(match.group(1))
    except InvalidOperation:
        return None
