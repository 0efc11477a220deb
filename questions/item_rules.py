"""The rules a question of each item type must keep, as plain facts in and sentences out, so
that the admin and every import enforce the same thing with the same words."""

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from questions.models import Kind, Scoring, option_rule_problems

MIN_STEPS = 2
MAX_STEPS = 10
MIN_PROMPTS = 2
MIN_STATEMENTS = 2
MAX_PARTS = 12
MAX_POOL = 12
# Where a drop-down goes in an exhibit: [[1]] for the first gap.
GAP_MARKER = re.compile(r"\[\[(\d{1,2})\]\]")


@dataclass(frozen=True)
class OptionFacts:
    is_correct: bool = False
    order: int | None = None  # ordering: its place (1 first)
    gap: int | None = None  # drop-downs: the index of the part whose drop-down offers it


@dataclass(frozen=True)
class PartFacts:
    answer: int | None = None  # matching: the index of the pool option that fits
    is_yes: bool | None = None
    accepted: tuple[str, ...] = ()
    number: Decimal | None = None
    wildcards: bool = False  # "*" in its accepted texts is any run of characters
    more_numbers: int = 0  # how many other right numbers it has


def item_problems(
    kind: str,
    options: Sequence[OptionFacts],
    parts: Sequence[PartFacts],
    *,
    exhibit: str = "",
    scoring: str = Scoring.ALL,
    reuse: bool = False,
) -> list[str]:
    """What is wrong with a question of `kind` with these options and parts: [] when
    nothing is."""
    if kind in (Kind.SINGLE, Kind.MULTIPLE):
        problems = option_rule_problems(kind, [option.is_correct for option in options])
        if parts:
            problems.append("a choice question has options, not parts")
        if kind == Kind.SINGLE and scoring == Scoring.PARTIAL:
            problems.append("a single-answer question is right or wrong: it has no partial credit")
        return problems
    if len(parts) > MAX_PARTS:
        return [f"a question has at most {MAX_PARTS} parts (this one has {len(parts)})"]
    check = _RULES.get(kind)
    if check is None:
        return [f"unknown question type {kind!r}"]
    return check(options, parts, exhibit, reuse)


def _ordering(
    options: Sequence[OptionFacts], parts: Sequence[PartFacts], exhibit: str, reuse: bool
) -> list[str]:
    problems = []
    places = sorted(option.order for option in options if option.order is not None)
    if len(options) > MAX_STEPS:
        problems.append(f"an ordering has at most {MAX_STEPS} steps (this one has {len(options)})")
    if len(places) < MIN_STEPS:
        problems.append(
            f"an ordering needs at least {MIN_STEPS} steps with a place in the order "
            f"(this one has {len(places)})"
        )
    elif places != list(range(1, len(places) + 1)):
        problems.append(
            "the steps' places must be 1, 2, 3, ... each once (these are "
            f"{', '.join(map(str, places))})"
        )
    if parts:
        problems.append("an ordering has steps (options), not parts")
    return problems


def _matching(
    options: Sequence[OptionFacts], parts: Sequence[PartFacts], exhibit: str, reuse: bool
) -> list[str]:
    problems = []
    if len(parts) < MIN_PROMPTS:
        problems.append(
            f"a matching needs at least {MIN_PROMPTS} prompts (this one has {len(parts)})"
        )
    if len(options) < 2 or len(options) > MAX_POOL:
        problems.append(
            f"a matching's pool needs 2 to {MAX_POOL} answers (this one has {len(options)})"
        )
    for number, part in enumerate(parts, 1):
        if part.answer is None or not 0 <= part.answer < len(options):
            problems.append(f"prompt {number} needs its answer from the pool")
    used = Counter(part.answer for part in parts if part.answer is not None)
    if not reuse and any(count > 1 for count in used.values()):
        problems.append(
            "two prompts share one answer: allow answers to be used more than once, or give "
            "each prompt its own"
        )
    if not reuse and len(options) < len(parts):
        problems.append("the pool has fewer answers than there are prompts")
    return problems


def _yes_no(
    options: Sequence[OptionFacts], parts: Sequence[PartFacts], exhibit: str, reuse: bool
) -> list[str]:
    problems = []
    if len(parts) < MIN_STATEMENTS:
        problems.append(
            f"a yes/no series needs at least {MIN_STATEMENTS} statements "
            f"(this one has {len(parts)})"
        )
    for number, part in enumerate(parts, 1):
        if part.is_yes is None:
            problems.append(f"statement {number} needs its answer: yes or no")
    if options:
        problems.append("a yes/no series has statements (parts), not options")
    return problems


def _fill_in(
    options: Sequence[OptionFacts], parts: Sequence[PartFacts], exhibit: str, reuse: bool
) -> list[str]:
    problems = []
    if not parts:
        problems.append("a fill-in needs at least one blank")
    for number, part in enumerate(parts, 1):
        problems += _blank_problems(f"blank {number}", part)
    if options:
        problems.append("a fill-in has blanks (parts), not options")
    return problems


def _blank_problems(name: str, part: PartFacts, *, typed_in: bool = False) -> list[str]:
    """What a typed blank (a fill-in's, or an exhibit's gap without choices) lacks."""
    if part.number is None and not part.accepted:
        if typed_in:
            return [f"{name} needs choices, or an accepted answer or a number to type"]
        return [f"{name} needs an accepted answer or a number"]
    if part.number is not None and part.accepted:
        return [f"{name} takes either accepted texts or a number, not both"]
    problems = []
    if part.more_numbers and part.number is None:
        problems.append(f"{name}'s other right numbers go with a number")
    if part.wildcards and part.number is not None:
        problems.append(f"{name}'s wildcards are for accepted texts, not a number")
    return problems


def _dropdown(
    options: Sequence[OptionFacts], parts: Sequence[PartFacts], exhibit: str, reuse: bool
) -> list[str]:
    problems = []
    if not parts:
        problems.append("drop-downs need at least one gap")
    for number, part in enumerate(parts):
        mine = [option for option in options if option.gap == number]
        typed = part.number is not None or bool(part.accepted) or part.more_numbers > 0
        if not mine:
            # A gap without choices is typed in, as a fill-in's blank is.
            problems += _blank_problems(f"gap {number + 1}", part, typed_in=True)
        elif typed:
            problems.append(
                f"gap {number + 1} takes either choices or a typed answer (accepted texts or "
                "a number), not both"
            )
        elif len(mine) < 2:
            problems.append(f"gap {number + 1} needs at least 2 choices (it has {len(mine)})")
        elif sum(1 for option in mine if option.is_correct) != 1:
            problems.append(f"gap {number + 1} needs exactly one correct choice")
    if any(option.gap is None or option.gap >= len(parts) for option in options):
        problems.append("every choice of a drop-down question belongs to one of its gaps")
    marked = Counter(int(n) for n in GAP_MARKER.findall(exhibit))
    wanted = set(range(1, len(parts) + 1))
    missing = sorted(wanted - set(marked))
    if missing:
        problems.append(
            "the exhibit must mark where each gap goes: "
            + ", ".join(f"[[{n}]]" for n in missing)
            + " missing"
        )
    extra = sorted(set(marked) - wanted)
    if extra:
        problems.append(
            "the exhibit marks gaps that do not exist: " + ", ".join(f"[[{n}]]" for n in extra)
        )
    if any(count > 1 for count in marked.values()):
        problems.append("the exhibit marks a gap more than once")
    return problems


_RULES: dict[str, Callable[[Sequence[OptionFacts], Sequence[PartFacts], str, bool], list[str]]] = {
    Kind.ORDERING: _ordering,
    Kind.MATCHING: _matching,
    Kind.YES_NO: _yes_no,
    Kind.FILL_IN: _fill_in,
    Kind.DROPDOWN: _dropdown,
}
