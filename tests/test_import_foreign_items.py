"""Every item type through the one path of the foreign imports (`import_foreign`): a reader's
`ParsedBank` checked with the JSON import's rules and written as the JSON import writes it.
The readers' own tests (GIFT, Moodle XML, QTI) go through files; these pin what every reader
relies on."""

from decimal import Decimal

import pytest

from questions.bank.foreign_import import Source, import_foreign
from questions.bank.formats.foreign import (
    ForeignBlank,
    ForeignCaseStudy,
    ForeignGap,
    ForeignOption,
    ForeignPrompt,
    ForeignQuestion,
    ForeignStatement,
    ForeignStep,
    ParsedBank,
)
from questions.models import CaseStudy, Question, Status
from tests.factories import ExamFactory, TopicFactory

pytestmark = pytest.mark.django_db

CASE = ForeignCaseStudy("stimulus-1", "Contoso's offices", "Contoso has **three** offices.")


@pytest.fixture
def exam():
    exam = ExamFactory(slug="every-type")
    TopicFactory(exam=exam, slug="general", title="General", weight=100)
    return exam


def every_type() -> list[ForeignQuestion]:
    return [
        ForeignQuestion(
            1,
            "ordering",
            "Order the steps.",
            [],
            name="order",
            scoring="partial",
            steps=[
                ForeignStep("Second", 2, "Then this."),
                ForeignStep("First", 1),
                ForeignStep("Never", None, "Not a step."),
            ],
        ),
        ForeignQuestion(
            2,
            "matching",
            "Match.",
            [],
            name="match",
            pool=[ForeignOption("A", False), ForeignOption("B", False), ForeignOption("C", False)],
            prompts=[ForeignPrompt("a", 0, "a is A."), ForeignPrompt("b", 1)],
            case_study=CASE,
        ),
        ForeignQuestion(
            3,
            "yesno",
            "Judge.",
            [],
            name="judge",
            statements=[ForeignStatement("Yes one", True), ForeignStatement("No one", False)],
            case_study=CASE,
        ),
        ForeignQuestion(
            4,
            "fillin",
            "Fill in.",
            [],
            name="fill",
            scoring="partial",
            blanks=[
                ForeignBlank(
                    "Region",
                    accepted=("us-central1", "Iowa"),
                    wrong_answers=(("us-east1", "That one is in South Carolina."),),
                ),
                ForeignBlank(
                    "Latency", number=Decimal("40.5"), tolerance=Decimal(2), units=("ms",)
                ),
            ],
        ),
        ForeignQuestion(
            5,
            "dropdown",
            "Complete it.",
            [],
            name="complete",
            exhibit="Grant is [[1]] in Grant's tomb.",
            gaps=[
                ForeignGap(
                    "Gap 1",
                    (ForeignOption("buried", False), ForeignOption("entombed", True, "Yes.")),
                )
            ],
        ),
    ]


def test_every_item_type_is_written_as_the_json_import_writes_it(exam):
    bank = ParsedBank("gift", questions=every_type())
    report = import_foreign([Source("bank.gift", bank)], exam.slug)
    assert report.errors == []
    assert report.imported == 5
    order, match, judge, fill, complete = Question.objects.filter(topic__exam=exam).order_by(
        "position"
    )
    assert all(question.status == Status.REVIEW for question in (order, match, judge, fill))
    assert (order.kind, order.scoring) == ("ordering", "partial")
    assert [
        (o.text, o.order, o.rationale.why) for o in order.options.select_related("rationale")
    ] == [("Second", 2, "Then this."), ("First", 1, ""), ("Never", None, "Not a step.")]
    assert match.kind == "matching"
    assert [(part.prompt, part.answer.text, part.why) for part in match.parts.all()] == [
        ("a", "A", "a is A."),
        ("b", "B", ""),
    ]
    assert [option.text for option in match.options.all()] == ["A", "B", "C"]
    case = CaseStudy.objects.get(exam=exam)
    assert (case.title, case.scenario) == ("Contoso's offices", "Contoso has **three** offices.")
    assert match.case_study == judge.case_study == case
    assert [(part.prompt, part.is_yes) for part in judge.parts.all()] == [
        ("Yes one", True),
        ("No one", False),
    ]
    region, latency = fill.parts.all()
    assert (region.accepted_texts, region.feedback) == (
        ["us-central1", "Iowa"],
        [{"answer": "us-east1", "feedback": "That one is in South Carolina."}],
    )
    assert (latency.number, latency.tolerance, latency.unit_list) == (
        Decimal("40.5"),
        Decimal(2),
        ["ms"],
    )
    assert complete.exhibit == "Grant is [[1]] in Grant's tomb."
    (gap,) = complete.parts.all()
    assert [(o.text, o.is_correct, o.part_id) for o in complete.options.all()] == [
        ("buried", False, gap.pk),
        ("entombed", True, gap.pk),
    ]


def test_importing_again_changes_nothing_and_keeps_a_curators_rationales(exam):
    bank = ParsedBank("gift", questions=every_type())
    import_foreign([Source("bank.gift", bank)], exam.slug)
    match = Question.objects.get(topic__exam=exam, kind="matching")
    match.parts.filter(prompt="b").update(why="Written by a curator.")
    report = import_foreign([Source("bank.gift", ParsedBank("gift", every_type()))], exam.slug)
    assert (report.imported, report.updated, report.unchanged) == (0, 0, 5)
    assert match.parts.get(prompt="b").why == "Written by a curator."
    assert CaseStudy.objects.filter(exam=exam).count() == 1


def test_each_type_keeps_the_rules_of_the_json_import(exam):
    broken = [
        ForeignQuestion(
            1,
            "ordering",
            "Order.",
            [],
            name="gap-in-places",
            steps=[ForeignStep("a", 1), ForeignStep("b", 3)],
        ),
        ForeignQuestion(
            2,
            "matching",
            "Match.",
            [],
            name="shared",
            pool=[ForeignOption("A", False), ForeignOption("B", False)],
            prompts=[ForeignPrompt("a", 0), ForeignPrompt("b", 0)],
        ),
        ForeignQuestion(
            3,
            "fillin",
            "Fill.",
            [],
            name="right-feedback",
            blanks=[ForeignBlank("x", accepted=("a",), wrong_answers=(("A", "No."),))],
        ),
        ForeignQuestion(
            4,
            "dropdown",
            "Drop.",
            [],
            name="unmarked",
            exhibit="No marks.",
            gaps=[ForeignGap("g", (ForeignOption("a", True), ForeignOption("b", False)))],
        ),
        ForeignQuestion(
            5,
            "yesno",
            "One.",
            [],
            name="lonely",
            statements=[ForeignStatement("Only", True)],
            case_study=ForeignCaseStudy("s", "Empty", ""),
        ),
    ]
    report = import_foreign(
        [Source("bad.gift", ParsedBank("gift", questions=broken))], exam.slug, skip_invalid=True
    )
    assert report.imported == 0
    messages = {error["where"]: [] for error in report.errors}
    for error in report.errors:
        messages[error["where"]].append(error["message"])
    assert any("places must be 1, 2, 3" in m for m in messages["bad.gift:1"])
    assert any("two prompts share one answer" in m for m in messages["bad.gift:2"])
    assert any("'A' is accepted: feedback here is for wrong answers" in m
               for m in messages["bad.gift:3"])  # fmt: skip
    assert any("must mark where each gap goes: [[1]]" in m for m in messages["bad.gift:4"])
    assert any("at least 2 statements" in m for m in messages["bad.gift:5"])
    assert any(m.startswith("its case study:") for m in messages["bad.gift:5"])
    assert not CaseStudy.objects.exists()
