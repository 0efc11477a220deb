"""QTI number entries whose response processing compares within a tolerance or after
rounding (`equal` absolute or relative, `equalRounded`): imported as a number blank that
accepts what the item accepts, and no more. Items written here, in QTI 2.1's spelling."""

import pytest

from questions.models import Question
from tests import items
from tests.foreign_files import QTI21, exam_of_one_topic, refused, run, write

pytestmark = pytest.mark.django_db

# What a comparison compares: the response with its correct response.
SIDES = '<variable identifier="RESPONSE"/><correct identifier="RESPONSE"/>'


@pytest.fixture
def exam():
    return exam_of_one_topic("qti-compare")


def item(correct: str, comparison: str) -> str:
    """A float text entry keyed `correct`, scored 1 when `comparison` (around the response and
    its correct response) holds."""
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<assessmentItem xmlns="{QTI21}" '
        'identifier="compare" title="Compare" adaptive="false" timeDependent="false">'
        '<responseDeclaration identifier="RESPONSE" cardinality="single" baseType="float">'
        f"<correctResponse><value>{correct}</value></correctResponse></responseDeclaration>"
        '<outcomeDeclaration identifier="SCORE" cardinality="single" baseType="float"/>'
        '<itemBody><p>The value: <textEntryInteraction responseIdentifier="RESPONSE"/></p>'
        "</itemBody><responseProcessing><responseCondition><responseIf>"
        f"{comparison.format(sides=SIDES)}"
        '</responseIf><responseElse><setOutcomeValue identifier="SCORE"><baseValue '
        'baseType="float">0</baseValue></setOutcomeValue></responseElse></responseCondition>'
        "</responseProcessing></assessmentItem>"
    )


def scored(comparison: str) -> str:
    return (
        comparison + '<setOutcomeValue identifier="SCORE"><baseValue baseType="float">1</baseValue>'
        "</setOutcomeValue>"
    )


def imported(capsys, exam, tmp_path, text: str) -> tuple[Question, list[str]]:
    lines, result = run(capsys, write(tmp_path, "compare.xml", text), "--exam", exam.slug)
    assert (result["imported"], result["skipped"]) == (1, []), lines
    return Question.objects.get(topic__exam=exam), lines


def answers(question: Question, *typed: str) -> list[bool]:
    """Whether each typed answer to the question's one blank is graded right."""
    page = items.page_of(question)
    (part,) = page.parts
    return [page.grade([f"{part.key}={text}"]).is_correct for text in typed]


def test_rounded_to_significant_figures_takes_what_rounds_alike(capsys, exam, tmp_path):
    rounded = scored('<equalRounded roundingMode="significantFigures" figures="3">{sides}'
                     "</equalRounded>")  # fmt: skip
    question, lines = imported(capsys, exam, tmp_path, item("3.14159", rounded))
    # 3.14 at 3 significant figures: 3.135 up to 3.145 (QTI rounds halves up).
    assert answers(question, "3.14", "3.14159", "3.1416", "3.136", "3.13", "3.15", "3.1") == [
        True, True, True, True, False, False, False,
    ]  # fmt: skip
    assert any("rounds to 3.14 at 3 significant figures: ± 0.005 here" in x for x in lines)


def test_rounded_to_decimal_places(capsys, exam, tmp_path):
    rounded = scored('<equalRounded roundingMode="decimalPlaces" figures="1">{sides}'
                     "</equalRounded>")  # fmt: skip
    question, _ = imported(capsys, exam, tmp_path, item("12.34", rounded))
    assert answers(question, "12.3", "12.26", "12.34", "12.2", "12.4") == [
        True, True, True, False, False,
    ]  # fmt: skip


def test_a_relative_tolerance_is_a_share_of_the_right_number(capsys, exam, tmp_path):
    within = scored('<equal toleranceMode="relative" tolerance="2">{sides}</equal>')
    question, lines = imported(capsys, exam, tmp_path, item("250", within))
    assert answers(question, "250", "245", "255", "244.9", "255.1") == [
        True, True, True, False, False,
    ]  # fmt: skip
    assert any("within 2 (relative) of 250: ± 5 here" in x for x in lines)


def test_an_uneven_tolerance_takes_its_narrower_side(capsys, exam, tmp_path):
    # 0.1 below and 0.3 above: a blank is even on both sides, and never takes what the item
    # would refuse.
    within = scored('<equal toleranceMode="absolute" tolerance="0.1 0.3">{sides}</equal>')
    question, lines = imported(capsys, exam, tmp_path, item("2", within))
    assert answers(question, "1.9", "2.1", "1.85", "2.25") == [True, True, False, False]
    assert any("± 0.1 here, the narrower side" in x for x in lines)


@pytest.mark.parametrize(
    "comparison",
    [
        '<equalRounded roundingMode="significantFigures" figures="many">{sides}</equalRounded>',
        '<equalRounded roundingMode="significantFigures" figures="0">{sides}</equalRounded>',
        '<equal toleranceMode="absolute" tolerance="-1">{sides}</equal>',
        '<equal toleranceMode="relative" tolerance="a lot">{sides}</equal>',
    ],
)
def test_a_comparison_that_cannot_be_read_is_reported_and_imports_nothing(
    capsys, exam, tmp_path, comparison
):
    text = item("2", scored(comparison))
    lines, result = refused(capsys, write(tmp_path, "compare.xml", text), "--exam", exam.slug)
    assert result["imported"] == 0
    assert not Question.objects.filter(topic__exam=exam).exists()
    assert any("compare.xml" in x and ("rounds to" in x or "tolerance" in x) for x in lines)
