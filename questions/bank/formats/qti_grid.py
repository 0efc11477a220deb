"""A match or associate interaction whose prompts take two answers, or none (QTIWorks'
"Towns": Blyth is in two counties; a number word that matches no number), which our
matching cannot hold (each of its prompts has exactly one answer): read as a yes/no series
of every (prompt, answer) pair, yes for the pairs of the key.

A question holds at most `questions.item_rules.MAX_PARTS` statements: a larger grid is a case
study of one yes/no series per prompt (its answers the statements), the item's question its
scenario, when it has at most that many prompts and answers (QTIWorks' "Pairing style", 7
prompts and 6 answers, makes 7 questions); a grid larger still is refused with the count, as
an item no question here holds."""

from dataclasses import replace

from questions.bank.formats.foreign import ForeignCaseStudy, ForeignQuestion, ForeignStatement
from questions.item_rules import MAX_PARTS, MIN_STATEMENTS

GRID_STEM = "For each pair below, answer yes if they match and no if they do not."
ROW_STEM = "answer yes for each of these it matches, no for the others."


class GridTooLarge(Exception):
    """The grid has more pairs than a yes/no series holds statements."""


class Rows(Exception):
    """The grid read as one yes/no series per prompt, questions of one case study."""

    def __init__(self, questions: list[ForeignQuestion]) -> None:
        super().__init__("one yes/no series per prompt")
        self.questions = questions


def as_pair_series(
    question: ForeignQuestion,
    prompts: list[str],
    answers: list[str],
    right: set[tuple[int, int]],
    why: str,
) -> None:
    """`question` as the yes/no series of every pair (prompt index, answer index); `right`
    the pairs of the key, `why` the prompt whose answers do not number one (for the note)."""
    pairs = len(prompts) * len(answers)
    if (
        pairs > MAX_PARTS
        and len(prompts) <= MAX_PARTS
        and MIN_STATEMENTS <= len(answers) <= MAX_PARTS
    ):
        raise Rows(_rows(question, prompts, answers, right, why))
    if pairs > MAX_PARTS:
        raise GridTooLarge(
            f"{why}, which a matching here cannot hold; as a yes/no series its "
            f"{len(prompts)} prompts and {len(answers)} answers make {pairs} pairs: more than "
            f"{MAX_PARTS} prompts or answers, which one yes/no series per prompt cannot hold"
        )
    question.kind = "yesno"
    question.statements = [
        ForeignStatement(f"{prompt} — {answer}", (p, a) in right)
        for p, prompt in enumerate(prompts)
        for a, answer in enumerate(answers)
    ]
    question.stem = "\n\n".join(part for part in (question.stem, GRID_STEM) if part)
    question.pool, question.prompts, question.reuse_answers = [], [], False
    question.notes.append(
        f"{why}: read as a yes/no series of its {pairs} pairs, yes for the {len(right)} of its key"
    )


def _rows(
    question: ForeignQuestion,
    prompts: list[str],
    answers: list[str],
    right: set[tuple[int, int]],
    why: str,
) -> list[ForeignQuestion]:
    """One yes/no series per prompt, its answers the statements, the item's question the
    scenario of their case study; named after the item, "(part 2 of 5)"."""
    name = question.name or question.identifier
    case = ForeignCaseStudy(f"item:{name}", question.identifier or "Matching", question.stem)
    rows = [
        replace(
            question,
            name=f"{name} (part {p + 1} of {len(prompts)})",
            kind="yesno",
            stem=f"{prompt}: {ROW_STEM}",
            statements=[
                ForeignStatement(answer, (p, a) in right) for a, answer in enumerate(answers)
            ],
            pool=[],
            prompts=[],
            reuse_answers=False,
            notes=[],
            case_study=case,
        )
        for p, prompt in enumerate(prompts)
    ]
    rows[0].notes.append(
        f"{why}: read as a case study of {len(prompts)} yes/no series, one per prompt, "
        f"its {len(answers)} answers the statements (yes for the pairs of its key); the "
        "question is the scenario"
    )
    return rows
