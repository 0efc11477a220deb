"""Moodle's calculated questions imported as one instance each: amc2moodle's two
(tests/data/foreign/README.md), files written here for the other types and tolerances, and
the formula evaluator on every function Moodle has and on formulas written to do harm."""

import html
import math
import re
from decimal import Decimal

import pytest

from questions.bank.formats.formula import FormulaError, evaluate
from questions.markup import render_markdown
from questions.models import Question
from tests.factories import ExamFactory, TopicFactory
from tests.foreign_files import FIXTURES, run, write

pytestmark = pytest.mark.django_db


@pytest.fixture
def exam():
    exam = ExamFactory(slug="calculated")
    TopicFactory(exam=exam, slug="general", title="General", weight=100)
    return exam


def seen(markdown: str) -> str:
    """The text a learner reads on the page."""
    return " ".join(html.unescape(re.sub(r"<[^>]*>", " ", str(render_markdown(markdown)))).split())


def options(question: Question) -> list[tuple[str, bool]]:
    return [(seen(option.text), option.is_correct) for option in question.options.all()]


def test_amc2moodle_calculated_questions_are_imported_as_one_instance(capsys, exam):
    lines, result = run(
        capsys, FIXTURES / "amc2moodle-moodle-bank-exemple.xml", "--exam", exam.slug
    )
    assert [item["type"] for item in result["skipped"]] == ["essay", "description"]
    by_name = {q.uid.rsplit("-", 1)[0]: q for q in Question.objects.filter(topic__exam=exam)}
    area = by_name["calculee"]
    assert area.kind == "single"
    # {a} and {b} are their data sets' first items; {=...} in the text is evaluated.
    assert seen(area.stem) == (
        "Quelle est l'aire d'un rectangle de longueur 6.7 et de largeur 8.8 ? "
        "Formula in the text 58.96. It is also possible to use float 7.437. "
        "Accolade should not be used for number 5.5"
    )
    # Shown to two decimals, as its answers' correctanswerlength says.
    assert options(area) == [("58.96", True), ("15.50", False)]
    check = by_name["checkcomputation"]
    stem = seen(check.stem)
    assert "Let 5.7 and 5.5 some real number." in stem
    for shown in (
        '"pow(5.7,2)" = 32.49',
        '"sqrt((5.7-5.5)*(5.7+5.5))" = 1.4966629547096',
        '"sin(1.5*pi())" = -1',
        '"-5.7+(-5.5+2)" = -9.2',
        '"max(5.7,5.5)" = 5.7',
        '"log(log(5.5+5.7)/log(5.5+5.7))" = 0',
    ):
        assert shown in stem
    # Its two wrong options both come to 1.00: a learner sees one.
    assert options(check) == [("5.70", True), ("1.00", False)]
    report = "\n".join(lines)
    assert "one instance is imported, with a = 6.7, b = 8.8 (each data set's first item)" in report
    assert "a wrong option that shows '1.00', as another does for the values taken" in report


def quiz(*questions: str) -> str:
    return '<?xml version="1.0" encoding="UTF-8"?>\n<quiz>\n' + "\n".join(questions) + "\n</quiz>\n"


def dataset(name: str, *items: str, low: str = "1", high: str = "10", decimals: str = "1") -> str:
    listed = "".join(
        f"<dataset_item><number>{n}</number><value>{value}</value></dataset_item>"
        for n, value in enumerate(items, 1)
    )
    return (
        f"<dataset_definition><status><text>private</text></status><name><text>{name}</text>"
        "</name><type>calculated</type><distribution><text>uniform</text></distribution>"
        f"<minimum><text>{low}</text></minimum><maximum><text>{high}</text></maximum>"
        f"<decimals><text>{decimals}</text></decimals><itemcount>{len(items)}</itemcount>"
        f"<dataset_items>{listed}</dataset_items></dataset_definition>"
    )


def calculated(kind: str, name: str, text: str, answers: str, *datasets: str) -> str:
    return (
        f'<question type="{kind}"><name><text>{name}</text></name>'
        f'<questiontext format="html"><text><![CDATA[{text}]]></text></questiontext>'
        f"{answers}<dataset_definitions>{''.join(datasets)}</dataset_definitions></question>"
    )


def answer(formula: str, fraction: str = "100", tolerance: str = "0.05", kind: str = "1", **extra):
    feedback = extra.get("feedback", "")
    return (
        f'<answer fraction="{fraction}"><text>{formula}</text><tolerance>{tolerance}</tolerance>'
        f"<tolerancetype>{kind}</tolerancetype>"
        f"<correctanswerformat>{extra.get('form', '1')}</correctanswerformat>"
        f"<correctanswerlength>{extra.get('length', '2')}</correctanswerlength>"
        f'<feedback format="html"><text>{feedback}</text></feedback></answer>'
    )


OHM = "<p>A {r} Ω resistor carries {i} A. What is the voltage across it?</p>"
UNITS = "<units><unit><multiplier>1</multiplier><unit_name>V</unit_name></unit></units>"
CALCULATED = quiz(
    calculated(
        "calculated",
        "Relative",
        OHM,
        answer("{r} * {i}", feedback="Ohm's law.")
        + answer("{r} + {i}", "0", feedback="You added them.")
        + UNITS,
        dataset("r", "220", "330"),
        dataset("i", "0.5", "0.25"),
    ),
    calculated(
        "calculated",
        "Nominal",
        OHM,
        answer("{r} * {i}", tolerance="0.5", kind="2"),
        dataset("r", "220"),
        dataset("i", "0.5"),
    ),
    calculated(
        "calculated",
        "Geometric",
        OHM,
        answer("{r} * {i}", tolerance="0.1", kind="3"),
        dataset("r", "220"),
        dataset("i", "0.5"),
    ),
    calculated(
        "calculatedsimple",
        "Drawn",
        "<p>Twice {x}?</p>",
        answer("2 * {x}", tolerance="0"),
        dataset("x"),
    ),
    calculated(
        "calculated",
        "Evil",
        OHM,
        answer("__import__('os').system('touch /tmp/x')"),
        dataset("r", "220"),
        dataset("i", "0.5"),
    ),
    calculated(
        "calculated",
        "Huge",
        OHM,
        answer("{r} ** 9 ** 9"),
        dataset("r", "220"),
        dataset("i", "0.5"),
    ),
    calculated(
        "calculated",
        "Stranger",
        OHM,
        answer("{r} * {c}"),
        dataset("r", "220"),
        dataset("i", "0.5"),
    ),
)


def test_calculated_questions_are_number_blanks_with_their_tolerance(capsys, exam, tmp_path):
    path = write(tmp_path, "calculated.xml", CALCULATED)
    lines, result = run(capsys, path, "--exam", exam.slug)
    assert result["errors"] == []
    assert [(item["type"], item["reason"].split(": ", 1)[1]) for item in result["skipped"]] == [
        ("calculated", "its answer \"__import__('os').system('touch /tmp/x')\" cannot be "
         "evaluated: \"__import__('os').system\" is not one of Moodle's functions"),
        ("calculated", "its answer '{r} ** 9 ** 9' cannot be evaluated: the formula's value is "
         "too large (an overflow)"),
        ("calculated", "its answer '{r} * {c}' cannot be evaluated: {c} is no data set's "
         "wildcard"),
    ]  # fmt: skip
    by_name = {q.uid.rsplit("-", 1)[0]: q for q in Question.objects.filter(topic__exam=exam)}
    relative = by_name["relative"]
    assert relative.kind == "fillin"
    assert seen(relative.stem) == ("A 220 Ω resistor carries 0.5 A. What is the voltage across it?")
    blank = relative.parts.get()
    # 5% of 110.
    assert (blank.number, blank.tolerance, blank.unit_list, blank.why) == (
        110, Decimal("5.5"), ["V"], "Ohm's law."
    )  # fmt: skip
    assert blank.feedback == [{"answer": "220.5", "feedback": "You added them."}]
    nominal = by_name["nominal"].parts.get()
    assert (nominal.number, nominal.tolerance) == (110, Decimal("0.5"))
    # Moodle's geometric 0.1 runs from 110 / 1.1 = 100 to 110 * 1.1 = 121: ± 10 here.
    geometric = by_name["geometric"].parts.get()
    assert (geometric.number, geometric.tolerance) == (110, 10)
    report = "\n".join(lines)
    assert (
        "geometric tolerance of 0.1 (from the answer divided by 1.1 to the answer times 1.1) "
        "is taken as ± 10" in report
    )
    # No items: a value drawn from its range, the same on every import.
    drawn = by_name["drawn"]
    value = Decimal(re.fullmatch(r"Twice (\d+\.\d)\?", seen(drawn.stem)).group(1))
    assert 1 <= value <= 10
    assert drawn.parts.get().number == 2 * value
    assert f"with x = {value} (drawn with a fixed seed from the range of {{x}}" in report
    _, again = run(capsys, path, "--exam", exam.slug)
    assert (again["imported"], again["updated"]) == (0, 0)


def test_a_calculated_multichoice_offers_its_formulas_evaluated(capsys, exam, tmp_path):
    path = write(
        tmp_path,
        "multi.xml",
        quiz(
            calculated(
                "calculatedmulti",
                "Multiples",
                "<p>Which are multiples of {a}?</p>",
                "<single>0</single>"
                + answer("{={a}*2}", "50", form="2", length="3")
                + answer("{a} times 3 is {={a}*3}", "50", form="2", length="3")
                + answer("{={a}+1}", "-100", length="1"),
                dataset("a", "1.2345"),
            )
        ),
    )
    _, result = run(capsys, path, "--exam", exam.slug)
    assert (result["imported"], result["skipped"], result["errors"]) == (1, [], [])
    question = Question.objects.get(topic__exam=exam)
    assert (question.kind, question.scoring) == ("multiple", "partial")
    assert seen(question.stem) == "Which are multiples of 1.2345?"
    # Three significant figures, and one decimal, as each answer says.
    assert options(question) == [
        ("2.47", True), ("1.2345 times 3 is 3.70", True), ("2.2", False)
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("formula", "expected"),
    [
        ("abs(-2.5)", 2.5),
        ("acos(1)", 0),
        ("acosh(1)", 0),
        ("asin(1)", math.pi / 2),
        ("asinh(0)", 0),
        ("atan(1)", math.pi / 4),
        ("atanh(0)", 0),
        ("atan2(1, 1)", math.pi / 4),
        ("ceil(1.2)", 2),
        ("cos(0)", 1),
        ("cosh(0)", 1),
        ("deg2rad(180)", math.pi),
        ("exp(1)", math.e),
        ("expm1(0)", 0),
        ("floor(-1.5)", -2),
        ("fmod(7.5, 2)", 1.5),
        ("is_finite({a})", 1),
        ("is_infinite({a})", 0),
        ("is_nan({a})", 0),
        ("log(exp(2))", 2),
        ("log(8, 2)", 3),
        ("log10(1000)", 3),
        ("log1p(0)", 0),
        ("max(1, {a}, 3)", 3),
        ("min(4, {a})", 2),
        ("pi()", math.pi),
        ("pow({a}, 10)", 1024),
        ("rad2deg(pi())", 180),
        ("round(2.5)", 3),
        ("round(-2.5)", -3),
        ("round(1.955, 2)", 1.96),
        ("round(1234, -2)", 1200),
        ("sin(pi() / 2)", 1),
        ("sinh(0)", 0),
        ("sqrt(16)", 4),
        ("tan(0)", 0),
        ("tanh(0)", 0),
        ("7 % 3", 1),
        ("-7.9 % 3", -1),  # PHP's %: integers, the left side's sign
        ("2 ** 3 ** 2", 512),
        ("-{a} ** 2", -4),
        ("+(1 + {a}) * 3 / 2 - 1e1", -5.5),
    ],
)
def test_formulas_with_every_function(formula, expected):
    assert evaluate(formula, {"a": 2.0}) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    ("formula", "reason"),
    [
        ("().__class__", "is not allowed"),
        ("{a}.real", "'{a}.real' is not allowed"),
        ("__import__('os')", "not one of Moodle's functions"),
        ("open('/etc/passwd')", "not one of Moodle's functions"),
        ("eval('1')", "not one of Moodle's functions"),
        ("math.sin(1)", "not one of Moodle's functions"),
        ("(lambda: 1)()", "not one of Moodle's functions"),
        ("x + 1", "'x' is not allowed"),
        ("{b} + 1", "{b} is no data set's wildcard"),
        ("_w0 + 1", "not allowed"),
        ("9**9**9", "overflow"),
        ("pow(9, pow(9, 9))", "overflow"),
        ("exp(1000)", "overflow"),
        ("1e400", "not a finite number"),
        ("1 / 0", "divides by zero"),
        ("5 % 0.5", "divides by zero"),
        ("sqrt(-1)", "outside its domain"),
        ("log(0)", "outside its domain"),
        ("fmod(1, 0)", "outside its domain"),
        ("(" * 100 + "1" + ")" * 100, "nests brackets"),
        ("-" * 500 + "1", "terms"),
        ("1" + "+1" * 300, "terms"),
        ("1" + "+1" * 2000, "over 1000 characters"),
        ("[1][0]", "not allowed"),
        ("'a'", "not a number"),
        ("True", "not a number"),
        ("1j", "not a number"),
        ("max(*[1, 2])", "plain arguments"),
        ("abs(x=1)", "plain arguments"),
        ("min(1)", "two or more"),
        ("pi(1)", "takes 0 argument"),
        ("2 ^ 3", "not allowed"),
        ("1 if 1 else 2", "not allowed"),
        ("1 < 2", "not allowed"),
        ("{1}", "not allowed"),
        ("1 +", "not a formula"),
    ],
)
def test_hostile_formulas_are_refused(formula, reason):
    with pytest.raises(FormulaError, match=re.escape(reason)):
        evaluate(formula, {"a": 2.0})


def test_script_in_a_calculated_question_is_cleaned_and_a_value_must_be_a_number(
    capsys, exam, tmp_path
):
    path = write(
        tmp_path,
        "script.xml",
        quiz(
            calculated(
                "calculatedmulti",
                "Script",
                "<p>{a}<script>alert(1)</script> and {=1+1}<img src=x onerror=alert(2)></p>",
                answer(html.escape("{={a}}<script>alert(3)</script>")) + answer("{={a}+1}", "0"),
                dataset("a", "3"),
            ),
            calculated(
                "calculated",
                "Markup",
                "<p>{a}?</p>",
                answer("{a}"),
                dataset("a", html.escape("<img src=x onerror=alert(4)>")),
            ),
        ),
    )
    _, result = run(capsys, path, "--exam", exam.slug)
    assert [(item["type"], item["reason"].split(": ", 1)[1]) for item in result["skipped"]] == [
        ("calculated", "its data set {a} has the item '<img src=x onerror=alert(4)>', not a number")
    ]
    question = Question.objects.get(topic__exam=exam)
    page = str(render_markdown(question.stem)) + "".join(
        str(render_markdown(option.text)) for option in question.options.all()
    )
    assert "alert" not in page
    assert "script" not in page
    assert seen(question.stem) == "3 and 2"
    assert options(question) == [("3.00", True), ("4.00", False)]


def test_a_question_of_too_many_formulas_is_skipped(capsys, exam, tmp_path):
    path = write(
        tmp_path,
        "many.xml",
        quiz(
            calculated(
                "calculated", "Many", "<p>{=9**9}</p>" * 300, answer("{a}"), dataset("a", "1")
            )
        ),
    )
    _, result = run(capsys, path, "--exam", exam.slug)
    assert [(item["type"], item["reason"].split(": ", 1)[1]) for item in result["skipped"]] == [
        ("calculated", "it has over 200 formulas")
    ]
    assert result["imported"] == 0
