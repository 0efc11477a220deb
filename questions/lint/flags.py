"""The item-writing flaws a bank is checked for, as plain functions over plain facts.

The measurement literature's list (Haladyna, Downing and Rodriguez's item-writing guidelines):
a correct option that stands out by its length, "all/none of the above", a negative stem
without emphasis, a word of the stem echoed only by the correct option (a clang cue),
options that overlap or repeat, near-duplicate questions, and what a bank of ours also
promises: references, every rationale part, a review within the year.

Each flag names its question and says why. A curator may accept one with a note
(Question.lint_notes, Exam.lint_notes for the bank-wide cue): it is then reported as
accepted, not as a problem."""

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta

from questions.markup import quick_snippet

# A correct option this much longer than the longest wrong one stands out.
LONGER_BY = 1.5
# Below this many characters, length differences say nothing.
MIN_LENGTH_GAP = 25
# The bank-wide cue: flagged when so unlikely by chance (one-sided binomial test).
CUE_P_VALUE = 0.05
# Two questions whose word shingles overlap this much are near-duplicates.
DUPLICATE_JACCARD = 0.6
SHINGLE = 3
# A shingle shared by more questions than this is boilerplate, not a sign of copying.
COMMON_SHINGLE = 40
STALE_AFTER = timedelta(days=365)
# Options sharing this much of their words repeat each other.
OPTION_JACCARD = 0.8

CODES = {
    "longest-correct": "The correct option is much longer than the others",
    "longest-cue": "Across the bank, the correct option is the longest more often than chance",
    "all-none-above": "An option is “all of the above” or “none of the above”",
    "negative-stem": "A negative stem without emphasis",
    "clang": "A word of the stem is repeated only in the correct option",
    "overlap": "Options overlap or repeat",
    "near-duplicate": "A near-duplicate of another question",
    "no-reference": "No reference",
    "empty-rationale": "An empty rationale part",
    "stale-review": "Not reviewed within the year",
}

_ABOVE = re.compile(r"\b(all|none|both|neither) of the (above|options|answers)\b", re.I)
_NEGATIVE = re.compile(r"\b(not|except|least|never)\b", re.I)
_EMPHASIS = re.compile(r"(\*\*|__|\*|_)\s*(not|except|least|never)\s*\1|<(strong|em|b)>", re.I)
_WORD = re.compile(r"[a-z0-9][a-z0-9+#.\-]*[a-z0-9+#]|[a-z0-9]", re.I)
# Words too common to cue anything.
_STOP = frozenset(
    [
        "about",
        "above",
        "after",
        "again",
        "against",
        "their",
        "there",
        "these",
        "those",
        "which",
        "while",
        "would",
        "could",
        "should",
        "other",
        "using",
        "within",
        "without",
        "because",
        "before",
        "being",
        "between",
        "through",
        "during",
        "under",
        "where",
        "what",
        "when",
        "your",
        "yours",
        "have",
        "having",
        "into",
        "from",
        "with",
        "that",
        "this",
        "than",
        "then",
        "them",
        "they",
        "will",
        "shall",
        "must",
        "more",
        "most",
        "some",
        "such",
        "only",
        "also",
        "each",
        "very",
        "just",
        "over",
        "same",
        "both",
        "make",
        "makes",
        "made",
        "uses",
        "used",
        "team",
        "teams",
        "company",
        "needs",
        "need",
        "want",
        "wants",
        "data",
        "model",
        "models",
    ]
)


@dataclass(frozen=True)
class LintOption:
    text: str
    correct: bool
    rationale: tuple[str, str, str] = ("", "", "")  # why, tempting because, right when


@dataclass(frozen=True)
class LintQuestion:
    uid: str
    exam: str  # the exam's slug
    kind: str
    stem: str
    options: tuple[LintOption, ...]
    # Parts' rationales (why, tempting because, right when), for the types made of parts.
    parts: tuple[tuple[str, str, str], ...] = ()
    references: int = 0
    reviewed_on: date | None = None
    notes: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Flag:
    uid: str  # the question's uid; the exam's slug for a bank-wide flag
    code: str
    reason: str
    key: str  # what an acceptance names: the code, or "near-duplicate:<other uid>"
    accepted: str = ""  # the curator's note, when accepted

    @property
    def title(self) -> str:
        return CODES[self.code]


def lint(
    questions: Sequence[LintQuestion],
    *,
    today: date,
    exam_notes: dict[str, dict[str, str]] | None = None,
) -> list[Flag]:
    """Every flag of these questions, with the bank-wide ones, in the questions' order."""
    exam_notes = exam_notes or {}
    flags: list[Flag] = []
    duplicates = near_duplicates(questions)
    for question in questions:
        found = [
            *_longest(question),
            *_above(question),
            *_negative(question),
            *_clang(question),
            *_overlap(question),
            *duplicates.get(question.uid, []),
            *_completeness(question, today),
        ]
        flags += [_noted(flag, question.notes) for flag in found]
    for exam, members in _by_exam(questions).items():
        cue = longest_cue(exam, members)
        if cue is not None:
            flags.append(_noted(cue, exam_notes.get(exam, {})))
    return flags


def _noted(flag: Flag, notes: dict[str, str]) -> Flag:
    note = notes.get(flag.key, "")
    if not note:
        return flag
    return Flag(flag.uid, flag.code, flag.reason, flag.key, accepted=note)


def _by_exam(questions: Iterable[LintQuestion]) -> dict[str, list[LintQuestion]]:
    grouped: dict[str, list[LintQuestion]] = defaultdict(list)
    for question in questions:
        grouped[question.exam].append(question)
    return grouped


def _choice(question: LintQuestion) -> bool:
    return question.kind in ("single", "multiple") and len(question.options) >= 2


def _plain(text: str) -> str:
    return quick_snippet(text, 10_000)


def _longest(question: LintQuestion) -> list[Flag]:
    if not _choice(question):
        return []
    right = [len(_plain(o.text)) for o in question.options if o.correct]
    wrong = [len(_plain(o.text)) for o in question.options if not o.correct]
    if not right or not wrong:
        return []
    shortest_right, longest_wrong = min(right), max(wrong)
    if (
        shortest_right >= LONGER_BY * longest_wrong
        and shortest_right - longest_wrong >= MIN_LENGTH_GAP
    ):
        return [
            Flag(
                question.uid,
                "longest-correct",
                f"the correct option has {shortest_right} characters, the longest wrong one "
                f"{longest_wrong}: length alone points to it",
                "longest-correct",
            )
        ]
    return []


def longest_cue(exam: str, questions: Sequence[LintQuestion]) -> Flag | None:
    """The classic cue across a bank: single-answer questions whose correct option is the
    strictly longest, against the share chance gives (1/k for k options), by a one-sided
    binomial test (a Poisson-binomial one: k differs between questions)."""
    trials = [q for q in questions if q.kind == "single" and len(q.options) >= 2]
    if len(trials) < 10:
        return None
    hits = 0
    chances = []
    for question in trials:
        lengths = [len(_plain(o.text)) for o in question.options]
        right = next((len(_plain(o.text)) for o in question.options if o.correct), -1)
        hits += int(right == max(lengths) and lengths.count(right) == 1)
        chances.append(1 / len(question.options))
    expected = sum(chances)
    p_value = _tail_probability(chances, hits)
    if p_value >= CUE_P_VALUE:
        return None
    return Flag(
        exam,
        "longest-cue",
        f"the correct option is the longest in {hits} of {len(trials)} single-answer questions "
        f"({100 * hits / len(trials):.0f} %), where chance gives {expected:.0f} "
        f"({100 * expected / len(trials):.0f} %): p = {p_value:.3f}",
        "longest-cue",
    )


def _tail_probability(chances: Sequence[float], hits: int) -> float:
    """P(X >= hits) for X the number of successes of independent trials of these chances."""
    distribution = [1.0]
    for p in chances:
        step = [0.0] * (len(distribution) + 1)
        for count, weight in enumerate(distribution):
            step[count] += weight * (1 - p)
            step[count + 1] += weight * p
        distribution = step
    return min(1.0, math.fsum(distribution[hits:]))


def _above(question: LintQuestion) -> list[Flag]:
    for option in question.options:
        match = _ABOVE.search(_plain(option.text))
        if match:
            return [
                Flag(
                    question.uid,
                    "all-none-above",
                    f"an option reads “{match.group(0)}”: it rewards partial knowledge "
                    "and tests the options, not the subject",
                    "all-none-above",
                )
            ]
    return []


def _ask(stem: str) -> str:
    """The stem's question: its last paragraph (the sentence that asks)."""
    paragraphs = [p for p in re.split(r"\n\s*\n", stem.strip()) if p.strip()]
    return paragraphs[-1] if paragraphs else ""


def _negative(question: LintQuestion) -> list[Flag]:
    ask = _ask(question.stem)
    words = [m.group(1) for m in _NEGATIVE.finditer(ask)]
    if not words:
        return []
    emphasised = {m.group(2).lower() for m in _EMPHASIS.finditer(ask) if m.group(2)}
    upper = {word.lower() for word in words if word.isupper()}
    bare = [word for word in words if word.lower() not in emphasised | upper]
    if not bare:
        return []
    return [
        Flag(
            question.uid,
            "negative-stem",
            f"the question asks with “{bare[0]}” unemphasised: readers miss it; bold it or "
            "ask positively",
            "negative-stem",
        )
    ]


def _words(text: str) -> set[str]:
    found = set()
    for match in _WORD.finditer(_plain(text).lower()):
        word = match.group(0)
        if len(word) >= 5 and word not in _STOP:
            plural = word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 5
            found.add(word[:-1] if plural else word)
    return found


def _clang(question: LintQuestion) -> list[Flag]:
    if not _choice(question):
        return []
    stem = _words(question.stem)
    right = set.intersection(*[_words(o.text) for o in question.options if o.correct] or [set()])
    wrong = set().union(*[_words(o.text) for o in question.options if not o.correct])
    echoed = sorted((stem & right) - wrong)
    if not echoed:
        return []
    return [
        Flag(
            question.uid,
            "clang",
            f"“{echoed[0]}” is in the stem and only in the correct option: a learner can "
            "match words instead of knowing",
            "clang",
        )
    ]


def _tokens(text: str) -> list[str]:
    return [m.group(0) for m in _WORD.finditer(_plain(text).lower())]


def _overlap(question: LintQuestion) -> list[Flag]:
    # A drop-down's gaps may offer the same values ("true", "false") each.
    if len(question.options) < 2 or question.kind == "dropdown":
        return []
    texts = [" ".join(_tokens(option.text)) for option in question.options]
    for first in range(len(texts)):
        for second in range(first + 1, len(texts)):
            a, b = texts[first], texts[second]
            if not a or not b:
                continue
            words_a, words_b = set(a.split()), set(b.split())
            same = a == b
            contained = len(a) > 3 and len(b) > 3 and (f" {a} " in f" {b} " or f" {b} " in f" {a} ")
            similar = len(words_a | words_b) >= 4 and _jaccard(words_a, words_b) >= OPTION_JACCARD
            if same or contained or similar:
                how = "repeat each other" if same or similar else "overlap: one holds the other"
                return [
                    Flag(
                        question.uid,
                        "overlap",
                        f"options {_letter(first)} and {_letter(second)} {how}",
                        "overlap",
                    )
                ]
    return []


def _letter(index: int) -> str:
    return "ABCDEFGHIJKL"[index] if index < 12 else str(index + 1)


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def _shingles(question: LintQuestion) -> set[tuple[str, ...]]:
    words = _tokens(question.stem + " " + " ".join(option.text for option in question.options))
    return {tuple(words[i : i + SHINGLE]) for i in range(max(0, len(words) - SHINGLE + 1))}


def near_duplicates(questions: Sequence[LintQuestion]) -> dict[str, list[Flag]]:
    """Pairs of questions whose stems and options share most of their word shingles, found
    through an index of the shingles (not by comparing every pair): a flag on each."""
    shingles = [_shingles(question) for question in questions]
    index: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for number, found in enumerate(shingles):
        for shingle in found:
            index[shingle].append(number)
    flags: dict[str, list[Flag]] = defaultdict(list)
    for number, found in enumerate(shingles):
        shared: Counter[int] = Counter()
        for shingle in found:
            holders = index[shingle]
            if len(holders) <= COMMON_SHINGLE:
                shared.update(other for other in holders if other > number)
        for other, count in shared.items():
            union = len(found | shingles[other])
            if union and count / union >= DUPLICATE_JACCARD:
                first, second = questions[number], questions[other]
                share = round(100 * count / union)
                for this, that in ((first, second), (second, first)):
                    flags[this.uid].append(
                        Flag(
                            this.uid,
                            "near-duplicate",
                            f"{share} % of its wording is also in {that.uid}",
                            f"near-duplicate:{that.uid}",
                        )
                    )
    return flags


def _completeness(question: LintQuestion, today: date) -> list[Flag]:
    flags = []
    if not question.references:
        flags.append(
            Flag(question.uid, "no-reference", "no reference to check it against", "no-reference")
        )
    names = ("rationale", "why learners pick it", "when it would be right")
    # A matching's pool answers are explained by its prompts' rationales.
    explained = question.options if question.kind != "matching" else ()
    for number, option in enumerate(explained):
        missing = [
            name for name, text in zip(names, option.rationale, strict=True) if not text.strip()
        ]
        if missing:
            flags.append(
                Flag(
                    question.uid,
                    "empty-rationale",
                    f"option {_letter(number)} has no {' and no '.join(missing)}",
                    "empty-rationale",
                )
            )
            break
    else:
        for number, part in enumerate(question.parts, 1):
            missing = [name for name, text in zip(names, part, strict=True) if not text.strip()]
            if missing:
                flags.append(
                    Flag(
                        question.uid,
                        "empty-rationale",
                        f"part {number} has no {' and no '.join(missing)}",
                        "empty-rationale",
                    )
                )
                break
    if question.reviewed_on is None or today - question.reviewed_on > STALE_AFTER:
        when = (
            f"last reviewed {question.reviewed_on:%Y-%m-%d}"
            if question.reviewed_on
            else "never reviewed"
        )
        flags.append(
            Flag(
                question.uid,
                "stale-review",
                f"{when}: review it against its references",
                "stale-review",
            )
        )
    return flags
