"""Moodle GIFT (https://docs.moodle.org/en/GIFT_format) read into a `ParsedBank`.

Questions are separated by blank lines; lines starting with `//` are comments. A question is
`::name::` (optional), its text with an optional format marker (`[html]`, `[moodle]`,
`[plain]`, `[markdown]`), then an answer block in braces. `\\~ \\= \\# \\{ \\} \\:` are the
characters themselves and `\\n` a line break. `$CATEGORY: a/b/c` puts the questions after it
in that category.

Read: multiple choice (`=right ~wrong`, `~%50%` weights: several positive weights make a
select-all-that-apply question), true/false (`{T}`, `{FALSE#wrong#right}`), matching
(`=a -> 1`), numerical (`{#3:2}`, `{#1..5}`, several answers) and short answer (`=` answers
only) as fill-ins, missing word (text after the braces: a choice becomes a drop-down in the
sentence, any other type a line to fill in), `#feedback` per answer and `####general
feedback`. Skipped, each with its place: essay `{}` and descriptions (no braces).
"""

import re

from questions.bank.formats.foreign import (
    ForeignBlank,
    ForeignGap,
    ForeignOption,
    ForeignPrompt,
    ForeignQuestion,
    ParsedBank,
    ParseError,
    Skipped,
    TextFormat,
    parse_number,
    to_markdown,
    to_plain_text,
)
from questions.bank.formats.graded import GradedAnswer, Refused, number_blank, text_blank

FORMAT = "gift"

# Escaped characters are swapped for private-use characters while the question is taken
# apart, so that `\=` is never read as an answer marker, and swapped back in each piece.
_ESCAPES = {
    "~": "\ue000",
    "=": "\ue001",
    "#": "\ue002",
    "{": "\ue003",
    "}": "\ue004",
    ":": "\ue005",
}
_ESCAPE = re.compile(r"\\([~=#{}:n])")
_RESTORE = str.maketrans({v: k for k, v in _ESCAPES.items()})
_MARKER = re.compile(r"^\s*\[(html|moodle|plain|markdown)\]", re.I)
_WEIGHT = re.compile(r"^\s*%(-?[0-9]+(?:\.[0-9]+)?)%")
_TRUE_FALSE = re.compile(r"\s*(TRUE|FALSE|T|F)\s*", re.I)

Parsed = ForeignQuestion | Skipped | ParseError


def _protect(text: str) -> str:
    return _ESCAPE.sub(lambda m: "\n" if m.group(1) == "n" else _ESCAPES[m.group(1)], text)


def _restore(text: str) -> str:
    return text.translate(_RESTORE)


def read(text: str) -> ParsedBank:
    bank = ParsedBank(FORMAT)
    category: tuple[str, ...] = ()
    for line, lines in _chunks(text):
        if lines[0].lstrip().startswith("$CATEGORY:"):
            category = _category(lines[0].split(":", 1)[1])
            lines = lines[1:]
            line += 1
            if not lines:
                continue
        parsed = _question("\n".join(lines), line, category)
        if isinstance(parsed, ForeignQuestion):
            bank.questions.append(parsed)
        elif isinstance(parsed, Skipped):
            bank.skipped.append(parsed)
        else:
            bank.errors.append(parsed)
    return bank


def _chunks(text: str) -> list[tuple[int, list[str]]]:
    """The questions' lines with the number of each one's first line: blank lines separate
    questions, comment lines are dropped."""
    chunks: list[tuple[int, list[str]]] = []
    current: list[str] = []
    start = 0
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith("//"):
            continue
        if not stripped:
            if current:
                chunks.append((start, current))
                current = []
            continue
        if not current:
            start = number
        current.append(line)
    if current:
        chunks.append((start, current))
    return chunks


def _category(path: str) -> tuple[str, ...]:
    """`$course$/top/Networking/Routing` -> ("Networking", "Routing"); `//` is a slash."""
    parts = [part.replace("//", "/").strip() for part in re.split(r"(?<!/)/(?!/)", path.strip())]
    while parts and (re.fullmatch(r"\$\w+\$", parts[0]) or parts[0] in ("top", "")):
        parts = parts[1:]
    return tuple(part for part in parts if part)


def _with_format(text: str, default: TextFormat) -> tuple[TextFormat, str]:
    match = _MARKER.match(text)
    if match is None:
        return default, text
    return match.group(1).lower(), text[match.end() :]  # type: ignore[return-value]


def _markdown(text: str, default: TextFormat) -> str:
    text_format, body = _with_format(text.strip(), default)
    return to_markdown(_restore(body), text_format)


# Where the answer block stood in a missing-word question's sentence, while it is converted.
_BLOCK_PLACE = "\ue010"
# What Moodle shows there for a type other than a choice: a line to fill in.
_FILL_LINE = "&#95;" * 5


def _question(text: str, line: int, category: tuple[str, ...]) -> Parsed:
    text = _protect(text).strip()
    name = ""
    if text.startswith("::"):
        end = text.find("::", 2)
        if end < 0:
            return ParseError(line, "the question's name has no closing ::")
        name = " ".join(_restore(text[2:end]).split())
        text = text[end + 2 :]
    start = text.find("{")
    if start < 0:
        return Skipped(line, "description", "no answer block: a description, not a question")
    finish = text.find("}", start)
    if finish < 0:
        return ParseError(line, "the answer block { has no closing }")
    block, after = text[start + 1 : finish], text[finish + 1 :].strip()
    stem_format, stem = _with_format(text[:start].strip(), "moodle")
    if not stem.strip():
        return ParseError(line, "no question text before the answer block")
    block, _, general = block.partition("####")
    kind = _block_type(block)
    if kind == "essay":
        return Skipped(line, kind, "an essay is marked by a person: no machine can grade it")
    if kind is None:
        return ParseError(line, "cannot tell the question type from its answer block")
    question = ForeignQuestion(
        line=line,
        kind="single",
        stem=to_markdown(_restore(stem), stem_format),
        options=[],
        name=name,
        category=category,
        general_feedback=_markdown(general, stem_format) if general.strip() else "",
    )
    if after:
        # Missing word: the block stands inside the sentence, where Moodle shows its
        # drop-down (a choice) or a line to fill in.
        sentence = to_markdown(_restore(f"{stem} {_BLOCK_PLACE} {after}"), stem_format)
        if kind == "multiple choice":
            return _missing_word(question, block, stem_format, sentence)
        question.stem = sentence.replace(_BLOCK_PLACE, _FILL_LINE)
    if kind == "true/false":
        return _true_false(question, block, stem_format)
    if kind == "matching":
        return _matching(question, block, stem_format)
    if kind == "numerical":
        return _numerical(question, block[1:], stem_format)
    if kind == "short answer":
        return _short_answer(question, block, stem_format)
    return _multiple_choice(question, block, stem_format)


def _block_type(block: str) -> str | None:
    if not block.strip():
        return "essay"
    if block.lstrip().startswith("#"):
        return "numerical"
    if _TRUE_FALSE.fullmatch(block.split("#", 1)[0]):
        return "true/false"
    if "->" in block and "=" in block:
        return "matching"
    if "~" in block:
        return "multiple choice"
    if "=" in block:
        return "short answer"
    return None


def _plain(text: str, default: TextFormat) -> str:
    text_format, body = _with_format(text.strip(), default)
    return to_plain_text(_restore(body), text_format)


def _missing_word(
    question: ForeignQuestion, block: str, text_format: TextFormat, sentence: str
) -> Parsed:
    """A choice inside the sentence: drop-downs, the sentence the exhibit with its gap."""
    parsed = _multiple_choice(question, block, text_format)
    if not isinstance(parsed, ForeignQuestion):
        return parsed
    if parsed.kind != "single":
        return Skipped(
            question.line,
            "missing word with several right answers",
            "a drop-down in a sentence takes one right choice; this block has several",
        )
    parsed.kind = "dropdown"
    parsed.stem = "Choose the missing word."
    parsed.exhibit = sentence.replace(_BLOCK_PLACE, "[[1]]")
    parsed.gaps = [ForeignGap("Missing word", tuple(parsed.options))]
    parsed.options = []
    return parsed


def _matching(question: ForeignQuestion, block: str, text_format: TextFormat) -> Parsed:
    """`=prompt -> answer` pairs; `= -> answer` is an answer no prompt takes. Moodle marks
    each pair on its own: partial credit."""
    pieces = re.split(r"=", block)
    if pieces[0].strip():
        return ParseError(question.line, f"text before the first pair: {pieces[0].strip()!r}")
    pool: list[str] = []
    prompts: list[tuple[str, int]] = []
    for body in pieces[1:]:
        left, arrow, right = body.partition("->")
        if not arrow or not right.strip():
            return ParseError(
                question.line,
                f"a matching pair is written prompt -> answer (found {body.strip()!r})",
            )
        answer = _markdown(right, text_format)
        if answer not in pool:
            pool.append(answer)
        if left.strip():
            prompts.append((_markdown(left, text_format), pool.index(answer)))
    question.kind = "matching"
    question.scoring = "partial"
    question.pool = [ForeignOption(text, False) for text in pool]
    question.prompts = [ForeignPrompt(text, answer) for text, answer in prompts]
    question.reuse_answers = len({answer for _, answer in prompts}) < len(prompts)
    return question


def _answers(block: str, markers: str) -> list[tuple[str, float | None, str, str]] | str:
    """The block's answers as (marker, weight, text, feedback); a sentence when one is wrong.
    A first answer without a marker (numerical's `{#3:2}`) is a right one."""
    pieces = re.split(f"([{markers}])", block)
    if pieces[0].strip():
        pieces = ["", "=", *pieces]
    answers = []
    for marker, body in zip(pieces[1::2], pieces[2::2], strict=True):
        weight: float | None = None
        if match := _WEIGHT.match(body):
            weight = float(match.group(1))
            body = body[match.end() :]
        elif body.lstrip().startswith("%"):
            return f"a weight is written %50% (found {body.strip()!r})"
        answer, _, feedback = body.partition("#")
        answers.append((marker, weight, answer, feedback))
    return answers


def _numerical(question: ForeignQuestion, block: str, text_format: TextFormat) -> Parsed:
    """`{#3:0.5}`, `{#1..5}`, or several answers `{#=%100%3.14:0.01 =%50%3:0.5 ~2#No}`."""
    answers = _answers(block, "=~")
    if isinstance(answers, str):
        return ParseError(question.line, answers)
    graded = []
    for marker, weight, answer, feedback in answers:
        value = _restore(answer).strip()
        number, tolerance = value, ""
        if ".." in value:
            low, high = (parse_number(end) for end in value.split("..", 1))
            if low is None or high is None or high < low:
                return ParseError(question.line, f"{value!r} is not a range low..high")
            number, tolerance = str((low + high) / 2), str((high - low) / 2)
        elif ":" in value:
            number, _, tolerance = value.partition(":")
        graded.append(_graded(marker, weight, number, feedback, text_format, tolerance))
    return _with_blank(question, number_blank(graded, "Answer", question.notes))


def _short_answer(question: ForeignQuestion, block: str, text_format: TextFormat) -> Parsed:
    """`{=Frog =frogs#Good! =%50%Cat =%0%*#No}`: any case, as Moodle's default."""
    answers = _answers(block, "=")
    if isinstance(answers, str):
        return ParseError(question.line, answers)
    graded = [
        _graded(marker, weight, _restore(answer), feedback, text_format)
        for marker, weight, answer, feedback in answers
    ]
    return _with_blank(question, text_blank(graded, "Answer", question.notes))


def _graded(
    marker: str,
    weight: float | None,
    answer: str,
    feedback: str,
    text_format: TextFormat,
    tolerance: str = "",
) -> GradedAnswer:
    has_feedback = bool(feedback.strip())
    return GradedAnswer(
        answer,
        weight if weight is not None else (100.0 if marker == "=" else 0.0),
        _markdown(feedback, text_format) if has_feedback else "",
        _plain(feedback, text_format) if has_feedback else "",
        tolerance,
    )


def _with_blank(question: ForeignQuestion, blank: ForeignBlank | Refused) -> Parsed:
    if isinstance(blank, Refused):
        if blank.error:
            return ParseError(question.line, blank.reason)
        return Skipped(question.line, blank.type, blank.reason)
    question.kind = "fillin"
    question.blanks = [blank]
    return question


def _true_false(question: ForeignQuestion, block: str, text_format: TextFormat) -> Parsed:
    parts = block.split("#")
    if len(parts) > 3:
        return ParseError(question.line, "a true/false answer takes at most two #feedbacks")
    truth = parts[0].strip().upper() in ("T", "TRUE")
    # Moodle's order: the first feedback is shown for a wrong answer, the second for a right one.
    wrong = _markdown(parts[1], text_format) if len(parts) > 1 else ""
    right = _markdown(parts[2], text_format) if len(parts) > 2 else ""
    question.kind = "truefalse"
    question.options = [
        ForeignOption("True", truth, right if truth else wrong),
        ForeignOption("False", not truth, wrong if truth else right),
    ]
    return question


def _multiple_choice(question: ForeignQuestion, block: str, text_format: TextFormat) -> Parsed:
    pieces = re.split(r"([=~])", block)
    if pieces[0].strip():
        return ParseError(question.line, f"text before the first answer: {pieces[0].strip()!r}")
    answers: list[tuple[str, float | None, str, str]] = []
    for marker, body in zip(pieces[1::2], pieces[2::2], strict=True):
        weight: float | None = None
        if match := _WEIGHT.match(body):
            weight = float(match.group(1))
            body = body[match.end() :]
        elif body.lstrip().startswith("%"):
            return ParseError(question.line, f"a weight is written %50% (found {body.strip()!r})")
        answer, _, feedback = body.partition("#")
        answers.append((marker, weight, answer, feedback))
    rights = [answer for answer in answers if answer[0] == "="]
    if len(rights) > 1:
        return Skipped(
            question.line,
            "multiple choice with several = answers",
            "several answers are fully right and any one of them is enough: Courseiva's "
            "questions have one right answer, or a set to choose together",
        )
    if rights:
        corrects = [marker == "=" for marker, *_ in answers]
        for marker, weight, answer, _ in answers:
            if marker == "~" and weight is not None and weight > 0:
                question.notes.append(
                    f"partial credit ({weight:g}%) for {_restore(answer).strip()!r} is not "
                    "carried: it is a wrong option"
                )
    else:
        corrects = [weight is not None and weight > 0 for _, weight, _, _ in answers]
        if not any(corrects):
            return ParseError(
                question.line, "no right answer: mark one with = or give positive %weights%"
            )
        if sum(corrects) > 1:
            question.kind = "multiple"
    question.options = [
        ForeignOption(
            _markdown(answer, text_format),
            correct,
            _markdown(feedback, text_format) if feedback.strip() else "",
        )
        for (_, _, answer, feedback), correct in zip(answers, corrects, strict=True)
    ]
    return question
