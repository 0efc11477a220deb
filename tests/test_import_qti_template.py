"""QTI template (randomised) items imported as one instance each: items written here (1EdTech's
own examples may not be passed on), in QTI 2.1's and 3.0's spelling, with their values
printed, their correct responses set by the template, their parts shown or hidden, and
items written to do harm, refused with the reason and nothing imported."""

import html
import math
import re
from decimal import Decimal

import pytest

from questions.bank.formats import qti
from questions.bank.formats.qti_printed import significant
from questions.bank.formats.qti_template import plain
from questions.markup import render_markdown
from questions.models import Question
from tests.foreign_files import QTI3, QTI21, exam_of_one_topic, run, write

pytestmark = pytest.mark.django_db

MATCH_CORRECT = "http://www.imsglobal.org/question/qti_v2p1/rptemplates/match_correct"


@pytest.fixture
def exam():
    return exam_of_one_topic("qti-template")


def item21(
    identifier: str,
    declarations: str,
    processing: str,
    body: str,
    response_processing: str = f'<responseProcessing template="{MATCH_CORRECT}"/>',
    extra: str = "",
) -> str:
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<assessmentItem xmlns="{QTI21}" '
        f'xmlns:m="http://www.w3.org/1998/Math/MathML" identifier="{identifier}" '
        f'title="{identifier}" adaptive="false" timeDependent="false" {extra}>{declarations}'
        f"<templateProcessing>{processing}</templateProcessing>"
        f"<itemBody>{body}</itemBody>{response_processing}</assessmentItem>"
    )


def template(identifier: str, base: str = "integer", *, math: bool = False) -> str:
    return (
        f'<templateDeclaration identifier="{identifier}" cardinality="single" '
        f'baseType="{base}" mathVariable="{"true" if math else "false"}"/>'
    )


def response(identifier: str = "RESPONSE", base: str = "integer") -> str:
    return (
        f'<responseDeclaration identifier="{identifier}" cardinality="single" baseType="{base}"/>'
    )


def seen(markdown: str) -> str:
    """The text a learner reads on the page."""
    return " ".join(html.unescape(re.sub(r"<[^>]*>", " ", str(render_markdown(markdown)))).split())


def imported(capsys, exam, tmp_path, text: str) -> tuple[Question, list[str]]:
    lines, result = run(capsys, write(tmp_path, "item.xml", text), "--exam", exam.slug)
    assert (result["imported"], result["errors"], result["skipped"]) == (1, [], [])
    return Question.objects.get(topic__exam=exam), lines


SUM = item21(
    "sum",
    response() + template("A") + template("B"),
    '<setTemplateValue identifier="A"><randomInteger min="2" max="9"/></setTemplateValue>'
    '<setTemplateValue identifier="B"><randomInteger min="10" max="90" step="10"/>'
    "</setTemplateValue>"
    '<setCorrectResponse identifier="RESPONSE"><sum><variable identifier="A"/>'
    '<variable identifier="B"/></sum></setCorrectResponse>',
    '<p>What is <printedVariable identifier="A"/> + <printedVariable identifier="B"/>?</p>'
    '<p><textEntryInteraction responseIdentifier="RESPONSE"/></p>',
)


def test_printed_values_and_the_correct_response_are_one_instance(capsys, exam, tmp_path):
    question, lines = imported(capsys, exam, tmp_path, SUM)
    a, b = map(int, re.fullmatch(r"What is (\d+) \+ (\d+)\? _+", seen(question.stem)).groups())
    assert 2 <= a <= 9
    assert b in range(10, 100, 10)
    blank = question.parts.get()
    assert (blank.number, blank.tolerance) == (Decimal(a + b), Decimal(0))
    # The report names the instance taken.
    assert any(f"imported one instance: A = {a}, B = {b}" in line for line in lines)


def test_importing_again_gives_the_same_instance(capsys, exam, tmp_path):
    first, _ = imported(capsys, exam, tmp_path, SUM)
    stem = first.stem
    _, result = run(capsys, write(tmp_path, "item.xml", SUM), "--exam", exam.slug)
    assert (result["errors"], result["skipped"]) == ([], [])
    again = Question.objects.get(topic__exam=exam)
    assert (again.pk, again.stem) == (first.pk, stem)
    # The seed is the item's: another identifier may draw other values, the same never does.
    stems = {qti.read(SUM).questions[0].stem for _ in range(3)}
    assert stems == {qti.read(SUM).questions[0].stem}


def test_the_template_sets_which_choice_is_right(capsys, exam, tmp_path):
    text = item21(
        "parity",
        '<responseDeclaration identifier="RESPONSE" cardinality="single" baseType="identifier"/>'
        + template("N")
        + template("ANSWER", "identifier"),
        '<setTemplateValue identifier="N"><randomInteger min="1" max="99"/></setTemplateValue>'
        '<templateCondition><templateIf><equal><integerModulus><variable identifier="N"/>'
        '<baseValue baseType="integer">2</baseValue></integerModulus>'
        '<baseValue baseType="integer">0</baseValue></equal>'
        '<setCorrectResponse identifier="RESPONSE"><baseValue baseType="identifier">EVEN'
        "</baseValue></setCorrectResponse></templateIf><templateElse>"
        '<setCorrectResponse identifier="RESPONSE"><baseValue baseType="identifier">ODD'
        "</baseValue></setCorrectResponse></templateElse></templateCondition>",
        '<choiceInteraction responseIdentifier="RESPONSE" maxChoices="1">'
        '<prompt>Is <printedVariable identifier="N"/> even or odd?</prompt>'
        '<simpleChoice identifier="EVEN">Even</simpleChoice>'
        '<simpleChoice identifier="ODD">Odd</simpleChoice></choiceInteraction>',
    )
    question, _ = imported(capsys, exam, tmp_path, text)
    number = int(re.fullmatch(r"Is (\d+) even or odd\?", seen(question.stem)).group(1))
    right = [option.text for option in question.options.all() if option.is_correct]
    assert right == ["Even" if number % 2 == 0 else "Odd"]


def test_a_number_compared_with_a_template_variable_takes_its_tolerance(capsys, exam, tmp_path):
    # QTI 3.0, no correct response: the processing compares the answer with SPEED * 3.
    text = f"""<?xml version="1.0" encoding="UTF-8"?>
<qti-assessment-item xmlns="{QTI3}" identifier="travel" title="Travel" adaptive="false">
  <qti-response-declaration identifier="RESPONSE" cardinality="single" base-type="float"/>
  <qti-template-declaration identifier="SPEED" cardinality="single" base-type="float"/>
  <qti-template-processing>
    <qti-set-template-value identifier="SPEED">
      <qti-integer-to-float><qti-random-integer min="40" max="80" step="20"/>
      </qti-integer-to-float></qti-set-template-value>
  </qti-template-processing>
  <qti-item-body><p>At <qti-printed-variable identifier="SPEED" format="%.1f"/> km/h, how
    far do you go in 3 hours? <qti-text-entry-interaction response-identifier="RESPONSE"/></p>
  </qti-item-body>
  <qti-response-processing><qti-response-condition><qti-response-if>
    <qti-equal tolerance-mode="relative" tolerance="5">
      <qti-variable identifier="RESPONSE"/>
      <qti-product><qti-variable identifier="SPEED"/>
        <qti-base-value base-type="integer">3</qti-base-value></qti-product>
    </qti-equal>
    <qti-set-outcome-value identifier="SCORE"><qti-base-value base-type="float">1
    </qti-base-value></qti-set-outcome-value>
  </qti-response-if></qti-response-condition></qti-response-processing>
</qti-assessment-item>"""
    question, lines = imported(capsys, exam, tmp_path, text)
    speed = Decimal(re.search(r"At (\d+\.\d) km/h", seen(question.stem)).group(1))
    assert speed in (Decimal(40), Decimal(60), Decimal(80))
    blank = question.parts.get()
    # 5 % of the distance either way.
    assert (blank.number, blank.tolerance) == (speed * 3, speed * 3 * Decimal("0.05"))
    assert any("within 5 (relative)" in line for line in lines)


def test_rounded_comparison_is_a_tolerance_of_half_the_last_place(capsys, exam, tmp_path):
    text = item21(
        "root",
        response(base="float") + template("N") + template("ROOT", "float"),
        '<setTemplateValue identifier="N"><randomInteger min="2" max="50"/></setTemplateValue>'
        '<setTemplateValue identifier="ROOT"><mathOperator name="ln"><variable identifier="N"/>'
        "</mathOperator></setTemplateValue>",
        '<p>ln <printedVariable identifier="N"/> to 2 decimal places: '
        '<textEntryInteraction responseIdentifier="RESPONSE"/></p>',
        "<responseProcessing><responseCondition><responseIf>"
        '<equalRounded roundingMode="decimalPlaces" figures="2"><variable identifier="RESPONSE"/>'
        '<variable identifier="ROOT"/></equalRounded>'
        '<setOutcomeValue identifier="SCORE"><baseValue baseType="float">1</baseValue>'
        "</setOutcomeValue></responseIf></responseCondition></responseProcessing>",
    )
    question, _ = imported(capsys, exam, tmp_path, text)
    n = int(re.search(r"ln (\d+)", seen(question.stem)).group(1))
    blank = question.parts.get()
    assert blank.number == Decimal(f"{math.log(n):.2f}")
    assert blank.tolerance == Decimal("0.005")


def test_a_template_constraint_draws_again_until_it_holds(capsys, exam, tmp_path):
    text = item21(
        "sevens",
        response() + template("A"),
        '<setTemplateValue identifier="A"><randomInteger min="1" max="60"/></setTemplateValue>'
        '<templateConstraint><equal><integerModulus><variable identifier="A"/>'
        '<baseValue baseType="integer">7</baseValue></integerModulus>'
        '<baseValue baseType="integer">0</baseValue></equal></templateConstraint>'
        '<setCorrectResponse identifier="RESPONSE"><integerDivide><variable identifier="A"/>'
        '<baseValue baseType="integer">7</baseValue></integerDivide></setCorrectResponse>',
        '<p>How many weeks are <printedVariable identifier="A"/> days? '
        '<textEntryInteraction responseIdentifier="RESPONSE"/></p>',
    )
    question, _ = imported(capsys, exam, tmp_path, text)
    days = int(re.search(r"How many weeks are (\d+) days", seen(question.stem)).group(1))
    assert days % 7 == 0
    assert question.parts.get().number == days // 7


def test_template_inline_and_block_show_the_instance_s_parts(capsys, exam, tmp_path):
    text = item21(
        "shapes",
        '<responseDeclaration identifier="RESPONSE" cardinality="single" baseType="identifier">'
        "<correctResponse><value>YES</value></correctResponse></responseDeclaration>"
        + template("SHAPE", "identifier")
        + template("SIDES"),
        '<setTemplateValue identifier="SHAPE"><random><multiple>'
        '<baseValue baseType="identifier">square</baseValue>'
        '<baseValue baseType="identifier">triangle</baseValue></multiple></random>'
        "</setTemplateValue><templateCondition><templateIf><match>"
        '<variable identifier="SHAPE"/><baseValue baseType="identifier">square</baseValue>'
        '</match><setTemplateValue identifier="SIDES"><baseValue baseType="integer">4'
        "</baseValue></setTemplateValue></templateIf><templateElse>"
        '<setTemplateValue identifier="SIDES"><baseValue baseType="integer">3</baseValue>'
        "</setTemplateValue></templateElse></templateCondition>",
        '<p>A <templateInline templateIdentifier="SHAPE" identifier="square" showHide="show">'
        '<b>square</b></templateInline><templateInline templateIdentifier="SHAPE" '
        'identifier="triangle" showHide="show"><i>triangle</i></templateInline> has '
        '<printedVariable identifier="SIDES"/> sides.</p>'
        '<templateBlock templateIdentifier="SHAPE" identifier="square" showHide="hide">'
        "<p>Not a square.</p></templateBlock>"
        '<choiceInteraction responseIdentifier="RESPONSE" maxChoices="1"><prompt>True?</prompt>'
        '<simpleChoice identifier="YES">Yes</simpleChoice>'
        '<simpleChoice identifier="NO">No</simpleChoice></choiceInteraction>',
    )
    question, _ = imported(capsys, exam, tmp_path, text)
    assert seen(question.stem) in (
        "A square has 4 sides. True?",
        "A triangle has 3 sides. Not a square. True?",
    )


def test_math_variables_in_mathml_are_their_values(capsys, exam, tmp_path):
    text = item21(
        "power",
        response() + template("x", math=True) + template("y", math=True),
        '<setTemplateValue identifier="x"><randomInteger min="2" max="5"/></setTemplateValue>'
        '<setTemplateValue identifier="y"><truncate><power><variable identifier="x"/>'
        '<baseValue baseType="integer">2</baseValue></power></truncate></setTemplateValue>'
        '<setCorrectResponse identifier="RESPONSE"><variable identifier="y"/>'
        "</setCorrectResponse>",
        "<p><m:math><m:msup><m:mi>x</m:mi><m:mn>2</m:mn></m:msup>"
        '<m:annotation encoding="LaTeX">\\qv{x}^2</m:annotation></m:math> = '
        '<textEntryInteraction responseIdentifier="RESPONSE"/></p>',
    )
    question, _ = imported(capsys, exam, tmp_path, text)
    # x² written out as x<sup>2</sup>: its x is the value, its annotation left out.
    x = int(re.match(r"<p>(\d)<sup>2</sup> = ", question.stem).group(1))
    assert question.parts.get().number == x * x


def test_template_values_and_markup_around_them_are_cleaned(capsys, exam, tmp_path):
    text = item21(
        "hostile-text",
        '<responseDeclaration identifier="RESPONSE" cardinality="single" baseType="string"/>'
        + template("WORD", "string"),
        '<setTemplateValue identifier="WORD"><baseValue baseType="string">'
        "&lt;script&gt;alert(1)&lt;/script&gt;</baseValue></setTemplateValue>"
        '<setCorrectResponse identifier="RESPONSE"><baseValue baseType="string">cat'
        "</baseValue></setCorrectResponse>",
        '<p><script>steal()</script>Say <printedVariable identifier="WORD"/>'
        '<span onclick="steal()">!</span> '
        '<textEntryInteraction responseIdentifier="RESPONSE"/></p>',
    )
    question, _ = imported(capsys, exam, tmp_path, text)
    page = str(render_markdown(question.stem))
    assert "<script" not in page
    assert "onclick" not in page
    assert "steal()" not in page
    # The value is shown as the text it is.
    assert "Say <script>alert(1)</script>!" in seen(question.stem)


HUGE_POWER = (
    '<setTemplateValue identifier="A"><power><baseValue baseType="integer">10</baseValue>'
    '<baseValue baseType="integer">400</baseValue></power></setTemplateValue>'
)
HUGE_PRODUCT = (
    '<setTemplateValue identifier="A"><product>'
    + '<baseValue baseType="integer">100000</baseValue>' * 4
    + "</product></setTemplateValue>"
)
DEEP = (
    '<setTemplateValue identifier="A">'
    + "<sum>" * 60
    + '<baseValue baseType="integer">1</baseValue>'
    + "</sum>" * 60
    + "</setTemplateValue>"
)
UNKNOWN = '<setTemplateValue identifier="A"><launchMissiles/></setTemplateValue>'
NEVER = (
    '<setTemplateValue identifier="A"><randomInteger min="1" max="9"/></setTemplateValue>'
    '<templateConstraint><gt><variable identifier="A"/>'
    '<baseValue baseType="integer">9</baseValue></gt></templateConstraint>'
)
MANY = (
    '<setTemplateValue identifier="L"><ordered><repeat numberRepeats="1000000">'
    '<baseValue baseType="integer">1</baseValue></repeat></ordered></setTemplateValue>'
)
# Every draw is cheap alone; a thousand of them are not.
STEPS = (
    '<setTemplateValue identifier="L"><ordered><repeat numberRepeats="900">'
    '<randomInteger min="1" max="9"/></repeat></ordered></setTemplateValue>'
    '<templateConstraint><containerSize><variable identifier="L"/></containerSize>'
    "</templateConstraint>"
)
CUSTOM = (
    '<setTemplateValue identifier="A"><customOperator class="com.example.Eval">'
    '<baseValue baseType="string">rm -rf /</baseValue></customOperator></setTemplateValue>'
)


@pytest.mark.parametrize(
    ("processing", "reason"),
    [
        (HUGE_POWER, "power(10, 400) is too large"),
        (HUGE_PRODUCT, "beyond ±10^15"),
        (DEEP, "nests deeper than 40"),
        (UNKNOWN, "<launchMissiles>, which is not read here"),
        (NEVER, "its template constraints did not hold in 1000 draws"),
        (MANY, "repeat asks for 1000000 repeats"),
        (STEPS, "its template processing takes over 20000 steps"),
        (CUSTOM, "a custom operator (com.example.Eval), which we do not run"),
    ],
)
def test_hostile_templates_are_refused_with_the_reason(capsys, exam, tmp_path, processing, reason):
    text = item21(
        "hostile",
        response()
        + template("A")
        + '<templateDeclaration identifier="L" cardinality="ordered" baseType="integer"/>',
        processing,
        '<p><printedVariable identifier="A"/> <textEntryInteraction responseIdentifier="RESPONSE"/>'
        "</p>",
    )
    _, result = run(capsys, write(tmp_path, "hostile.xml", text), "--exam", exam.slug)
    assert result["imported"] == 0
    assert [entry["type"] for entry in result["skipped"]] == ["template item"]
    assert reason in result["skipped"][0]["reason"]
    assert not Question.objects.exists()


def test_items_needing_a_cas_are_reported(capsys, exam, tmp_path):
    cas = item21(
        "cas",
        response("RESPONSE", "string") + template("A", "string"),
        '<setTemplateValue identifier="A"><customOperator class="org.qtitools.mathassess.'
        'ScriptRule"><baseValue baseType="string">a: 1</baseValue></customOperator>'
        "</setTemplateValue>",
        '<p><textEntryInteraction responseIdentifier="RESPONSE"/></p>',
    )
    _, result = run(capsys, write(tmp_path, "cas.xml", cas), "--exam", exam.slug)
    assert result["imported"] == 0
    reason = result["skipped"][0]["reason"]
    assert "computed by a computer algebra system (MathAssess) which we do not run" in reason
    assert not Question.objects.exists()


def test_printed_formats_follow_qti_s_printf_subset(capsys, exam, tmp_path):
    text = item21(
        "formats",
        response()
        + template("F", "float")
        + template("N")
        + '<templateDeclaration identifier="L" cardinality="ordered" baseType="integer"/>',
        '<setTemplateValue identifier="F"><divide><baseValue baseType="integer">1</baseValue>'
        '<baseValue baseType="integer">8</baseValue></divide></setTemplateValue>'
        '<setTemplateValue identifier="N"><baseValue baseType="integer">255</baseValue>'
        "</setTemplateValue>"
        '<setTemplateValue identifier="L"><ordered><baseValue baseType="integer">3</baseValue>'
        '<baseValue baseType="integer">1</baseValue></ordered></setTemplateValue>'
        '<setCorrectResponse identifier="RESPONSE"><variable identifier="N"/>'
        "</setCorrectResponse>",
        '<p>[<printedVariable identifier="F"/>] [<printedVariable identifier="F" format="%.3f"/>]'
        ' [<printedVariable identifier="F" format="%e"/>] [<printedVariable identifier="N" '
        'format="%05d%%"/>] [<printedVariable identifier="N" base="16"/>] '
        '[<printedVariable identifier="L"/>] [<printedVariable identifier="L" delimiter=", "/>]'
        ' [<printedVariable identifier="N" format="%.2r"/>] [<printedVariable identifier="F" '
        'format="%.4r"/>] [<printedVariable identifier="F" format="%08.2r"/>]'
        '<textEntryInteraction responseIdentifier="RESPONSE"/></p>',
    )
    question, _ = imported(capsys, exam, tmp_path, text)
    assert seen(question.stem).startswith(
        "[0.125] [0.125] [1.250000e-01] [00255%] [ff] [3;1] [3, 1] [260] [0.1250] [00000.12]"
    )
    assert (plain(0.1 + 0.2), plain(6.0), plain(-2)) == ("0.3", "6", "-2")


@pytest.mark.parametrize(
    ("value", "figures", "shown"),
    [
        (123456789.0, 3, "123000000"),
        (-0.000123456, 3, "-0.000123"),
        (0.5, 3, "0.500"),
        (9.996, 3, "10.0"),
        (0, 2, "0.0"),
        (1.5e20, 2, "1.5e+20"),
        (2.5e-9, 1, "3e-09"),
    ],
)
def test_the_r_format_is_significant_figures(value, figures, shown):
    # STOMP's items print "%.3r" where their text asks for three significant figures.
    assert significant(value, figures) == shown


def listed_item(identifier: str, index: str) -> str:
    """An item whose MathML shows one of three words by `NAMES[i]`, i set by `index`."""
    return item21(
        identifier,
        '<responseDeclaration identifier="RESPONSE" cardinality="single" baseType="identifier">'
        "<correctResponse><value>NOUN</value></correctResponse></responseDeclaration>"
        + template("i", math=True)
        + '<templateDeclaration identifier="NAMES" cardinality="ordered" baseType="string" '
        'mathVariable="true"/>',
        '<setTemplateValue identifier="NAMES"><ordered>'
        '<baseValue baseType="string">river</baseValue>'
        '<baseValue baseType="string">mountain</baseValue>'
        '<baseValue baseType="string">valley</baseValue></ordered></setTemplateValue>'
        f'<setTemplateValue identifier="i">{index}</setTemplateValue>',
        '<choiceInteraction responseIdentifier="RESPONSE" maxChoices="1"><prompt>The word '
        "<m:math><m:mi>NAMES[i]</m:mi></m:math> is:</prompt>"
        '<simpleChoice identifier="NOUN">a noun</simpleChoice>'
        '<simpleChoice identifier="VERB">a verb</simpleChoice></choiceInteraction>',
    )


def test_mathml_shows_a_list_s_value_by_its_index(capsys, exam, tmp_path):
    drawn = listed_item("words", '<randomInteger min="0" max="2"/>')
    question, lines = imported(capsys, exam, tmp_path, drawn)
    word = re.fullmatch(r"The word (\w+) is:", seen(question.stem)).group(1)
    index = int(re.search(r"imported one instance: i = (\d)", " ".join(lines)).group(1))
    # Counted from 0, as the items that write NAMES[i] draw i from 0 to one less than 3.
    assert word == ["river", "mountain", "valley"][index]
    assert [o.text for o in question.options.all() if o.is_correct] == ["a noun"]
    first = listed_item("first", '<baseValue baseType="integer">0</baseValue>')
    assert "The word river is:" in qti.read(first).questions[0].stem


def test_an_index_outside_the_list_is_refused(capsys, exam, tmp_path):
    text = listed_item("outside", '<baseValue baseType="integer">3</baseValue>')
    _, result = run(capsys, write(tmp_path, "outside.xml", text), "--exam", exam.slug)
    assert result["imported"] == 0
    assert (
        "'NAMES[i]' with i = 3, outside the 3 values of NAMES" in (result["skipped"][0]["reason"])
    )
    assert not Question.objects.exists()
