"""QTI 2.1 and 3.0 interactions beyond a single choice, read into our types: items written
here for each (1EdTech's own examples may not be passed on), in both versions' spelling, and
a package whose items share a stimulus."""

from decimal import Decimal

import pytest

from questions.models import CaseStudy, Question
from tests.foreign_files import (
    QTI3,
    QTI21,
    declaration3,
    exam_of_one_topic,
    item3,
    manifest,
    package,
    run,
    write,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def exam():
    return exam_of_one_topic("qti-types")


def imported(capsys, exam, tmp_path, text: str, name: str = "item.xml") -> Question:
    _, result = run(capsys, write(tmp_path, name, text), "--exam", exam.slug)
    assert (result["imported"], result["errors"], result["skipped"]) == (1, [], [])
    return Question.objects.get(topic__exam=exam)


def test_order_interaction_is_an_ordering(capsys, exam, tmp_path):
    text = item3(
        "dhcp",
        declaration3("C,A,B"),
        '<qti-order-interaction response-identifier="RESPONSE">'
        "<qti-prompt>Order the DHCP messages.</qti-prompt>"
        '<qti-simple-choice identifier="A">Offer</qti-simple-choice>'
        '<qti-simple-choice identifier="B">Request<qti-feedback-inline outcome-identifier="F" '
        'identifier="B">Broadcast.</qti-feedback-inline></qti-simple-choice>'
        '<qti-simple-choice identifier="C">Discover</qti-simple-choice>'
        '<qti-simple-choice identifier="D">Reboot</qti-simple-choice>'
        "</qti-order-interaction>",
    )
    question = imported(capsys, exam, tmp_path, text)
    assert (question.kind, question.scoring, question.stem) == (
        "ordering", "all", "Order the DHCP messages."
    )  # fmt: skip
    assert [(o.text, o.order, o.rationale.why) for o in question.options.all()] == [
        ("Offer", 2, ""), ("Request", 3, "Broadcast."), ("Discover", 1, ""), ("Reboot", None, "")
    ]  # fmt: skip


def test_match_interaction_in_qti_2_1_is_a_matching_with_partial_credit(capsys, exam, tmp_path):
    text = f"""<?xml version="1.0" encoding="UTF-8"?>
<assessmentItem xmlns="{QTI21}" identifier="ports" title="Ports">
  <responseDeclaration identifier="RESPONSE" cardinality="multiple" baseType="directedPair">
    <correctResponse><value>DNS P53</value><value>DOT P53</value><value>WEB P443</value>
    </correctResponse>
    <mapping defaultValue="0"><mapEntry mapKey="DNS P53" mappedValue="1"/>
      <mapEntry mapKey="DOT P53" mappedValue="1"/><mapEntry mapKey="WEB P443" mappedValue="1"/>
    </mapping>
  </responseDeclaration>
  <itemBody>
    <matchInteraction responseIdentifier="RESPONSE" maxAssociations="3">
      <prompt>Match each service with its port.</prompt>
      <simpleMatchSet>
        <simpleAssociableChoice identifier="DNS" matchMax="1">DNS</simpleAssociableChoice>
        <simpleAssociableChoice identifier="DOT" matchMax="1">DNS over TCP</simpleAssociableChoice>
        <simpleAssociableChoice identifier="WEB" matchMax="1">HTTPS</simpleAssociableChoice>
      </simpleMatchSet>
      <simpleMatchSet>
        <simpleAssociableChoice identifier="P53" matchMax="2">53</simpleAssociableChoice>
        <simpleAssociableChoice identifier="P443" matchMax="2">443</simpleAssociableChoice>
        <simpleAssociableChoice identifier="P80" matchMax="2">80</simpleAssociableChoice>
      </simpleMatchSet>
    </matchInteraction>
  </itemBody>
  <responseProcessing template="http://www.imsglobal.org/question/qti_v2p1/rptemplates/map_response"/>
</assessmentItem>"""
    question = imported(capsys, exam, tmp_path, text)
    assert (question.kind, question.scoring, question.reuse_answers) == (
        "matching",
        "partial",
        True,
    )
    assert [o.text for o in question.options.all()] == ["53", "443", "80"]
    assert [(p.prompt, p.answer.text) for p in question.parts.all()] == [
        ("DNS", "53"), ("DNS over TCP", "53"), ("HTTPS", "443")
    ]  # fmt: skip


def test_associate_interaction_is_a_matching(capsys, exam, tmp_path):
    text = item3(
        "capitals",
        declaration3("FR PAR,IT ROM"),
        '<qti-associate-interaction response-identifier="RESPONSE" max-associations="2">'
        "<qti-prompt>Pair each country with its capital.</qti-prompt>"
        '<qti-simple-associable-choice identifier="FR" match-max="1">France'
        "</qti-simple-associable-choice>"
        '<qti-simple-associable-choice identifier="PAR" match-max="1">Paris'
        "</qti-simple-associable-choice>"
        '<qti-simple-associable-choice identifier="IT" match-max="1">Italy'
        "</qti-simple-associable-choice>"
        '<qti-simple-associable-choice identifier="ROM" match-max="1">Rome'
        "</qti-simple-associable-choice>"
        '<qti-simple-associable-choice identifier="MIL" match-max="1">Milan'
        "</qti-simple-associable-choice>"
        "</qti-associate-interaction>",
    )
    question = imported(capsys, exam, tmp_path, text)
    assert question.kind == "matching"
    assert [o.text for o in question.options.all()] == ["Paris", "Rome", "Milan"]
    assert [(p.prompt, p.answer.text) for p in question.parts.all()] == [
        ("France", "Paris"), ("Italy", "Rome")
    ]  # fmt: skip


def test_gap_match_interaction_is_drop_downs_in_its_text(capsys, exam, tmp_path):
    text = item3(
        "tomb",
        declaration3("W1 G1,W3 G2", base="directedPair"),
        '<qti-gap-match-interaction response-identifier="RESPONSE">'
        "<qti-prompt>Complete the sentence.</qti-prompt>"
        '<qti-gap-text identifier="W1" match-max="1">Grant</qti-gap-text>'
        '<qti-gap-text identifier="W2" match-max="1">nobody</qti-gap-text>'
        '<qti-gap-text identifier="W3" match-max="1">entombed</qti-gap-text>'
        '<p><qti-gap identifier="G1"/> is <qti-gap identifier="G2"/> in the tomb.</p>'
        "</qti-gap-match-interaction>",
        "map_response",
    )
    question = imported(capsys, exam, tmp_path, text)
    assert (question.kind, question.scoring) == ("dropdown", "partial")
    assert question.stem == "Complete the sentence."
    assert question.exhibit == "<p>[[1]] is [[2]] in the tomb.</p>"
    first, second = question.parts.all()
    assert [(o.text, o.is_correct) for o in first.options.all()] == [
        ("Grant", True), ("nobody", False), ("entombed", False)
    ]  # fmt: skip
    assert [o.text for o in second.options.all() if o.is_correct] == ["entombed"]


def test_text_entries_are_blanks_and_inline_choices_drop_downs(capsys, exam, tmp_path):
    blanks = item3(
        "subnet",
        declaration3("255.255.255.192", identifier="MASK", base="string")
        + declaration3("62", identifier="HOSTS", base="integer"),
        "<p>A /26 has the mask "
        '<qti-text-entry-interaction response-identifier="MASK"/> and '
        '<qti-text-entry-interaction response-identifier="HOSTS"/> hosts.</p>',
        "map_response",
    ).replace("map_response.xml", "custom.xml")
    question = imported(capsys, exam, tmp_path, blanks)
    assert (question.kind, question.scoring) == ("fillin", "partial")
    assert question.stem == (
        "<p>A /26 has the mask &#95;&#95;&#95;&#95;&#95; (1) and &#95;&#95;&#95;&#95;&#95; (2) "
        "hosts.</p>"
    )
    mask, hosts = question.parts.all()
    assert (mask.prompt, mask.accepted_texts, mask.match_case) == (
        "Blank 1", ["255.255.255.192"], True
    )  # fmt: skip
    assert (hosts.number, hosts.tolerance) == (Decimal(62), 0)
    Question.objects.all().delete()
    choices = item3(
        "areas",
        declaration3("Z", identifier="AREA"),
        '<p>The backbone is area <qti-inline-choice-interaction response-identifier="AREA">'
        '<qti-inline-choice identifier="Z">0</qti-inline-choice>'
        '<qti-inline-choice identifier="O">1</qti-inline-choice>'
        "</qti-inline-choice-interaction>.</p>",
    )
    question = imported(capsys, exam, tmp_path, choices, "areas.xml")
    assert (question.kind, question.scoring) == ("dropdown", "all")
    assert question.exhibit == "<p>The backbone is area [[1]].</p>"


def test_several_choices_of_one_answer_are_drop_downs_with_text_entries_typed_in_place(
    capsys, exam, tmp_path
):
    choice = (
        '<qti-choice-interaction response-identifier="{id}" max-choices="1">'
        "<qti-prompt>{prompt}</qti-prompt>"
        '<qti-simple-choice identifier="Y">Yes</qti-simple-choice>'
        '<qti-simple-choice identifier="N">No</qti-simple-choice></qti-choice-interaction>'
    )
    text = item3(
        "two",
        declaration3("Y", identifier="R1") + declaration3("N", identifier="R2"),
        choice.format(id="R1", prompt="Is OSPF a link-state protocol?")
        + choice.format(id="R2", prompt="Is RIP a link-state protocol?"),
    )
    question = imported(capsys, exam, tmp_path, text)
    assert question.kind == "dropdown"
    assert [part.prompt for part in question.parts.all()] == [
        "Is OSPF a link-state protocol?",
        "Is RIP a link-state protocol?",
    ]
    mixed = item3(
        "mixed",
        declaration3("Y", identifier="R1") + declaration3("x", identifier="R2", base="string"),
        choice.format(id="R1", prompt="Yes?")
        + '<qti-text-entry-interaction response-identifier="R2"/>',
    )
    _, result = run(capsys, write(tmp_path, "mixed.xml", mixed), "--exam", exam.slug)
    assert (result["imported"], result["skipped"], result["errors"]) == (1, [], [])
    back = Question.objects.get(uid__startswith="mixed")
    assert back.kind == "dropdown"
    assert [(p.prompt, p.options.count(), p.accepted_texts) for p in back.parts.all()] == [
        ("Yes?", 2, []),
        ("Gap 2", 0, ["x"]),
    ]


def test_an_inline_choice_and_a_text_entry_are_one_exhibit_of_mixed_gaps(capsys, exam, tmp_path):
    """The mix reported as "several interactions" before: an inline choice and text entries
    (a text and a number) in one sentence, each part scored (map_response)."""
    declarations = (
        declaration3("area0", identifier="AREA")
        + '<qti-response-declaration identifier="PROTO" cardinality="single" base-type="string">'
        "<qti-correct-response><qti-value>OSPF</qti-value></qti-correct-response>"
        '<qti-mapping default-value="0"><qti-map-entry map-key="OSPF" mapped-value="1" '
        'case-sensitive="false"/><qti-map-entry map-key="ospfv2" mapped-value="1" '
        'case-sensitive="false"/></qti-mapping></qti-response-declaration>'
        + '<qti-response-declaration identifier="COST" cardinality="single" base-type="integer">'
        "<qti-correct-response><qti-value>10</qti-value></qti-correct-response>"
        "</qti-response-declaration>"
    )
    body = (
        '<p>The protocol <qti-text-entry-interaction response-identifier="PROTO"/> runs in '
        '<qti-inline-choice-interaction response-identifier="AREA">'
        '<qti-inline-choice identifier="area0">area 0</qti-inline-choice>'
        '<qti-inline-choice identifier="area1">area 1</qti-inline-choice>'
        "</qti-inline-choice-interaction> with a cost of "
        '<qti-text-entry-interaction response-identifier="COST"/>.</p>'
    )
    question = imported(capsys, exam, tmp_path, item3("ospf", declarations, body, "map_response"))
    assert (question.kind, question.scoring) == ("dropdown", "partial")
    assert question.exhibit == "<p>The protocol [[1]] runs in [[2]] with a cost of [[3]].</p>"
    proto, area, cost = question.parts.all()
    assert (proto.accepted_texts, proto.match_case) == (["OSPF", "ospfv2"], False)
    assert [(o.text, o.is_correct) for o in area.options.all()] == [
        ("area 0", True),
        ("area 1", False),
    ]
    assert (cost.number, cost.accepted_texts) == (Decimal(10), [])


def test_hotspot_and_select_point_are_reported_with_a_reason(capsys, exam, tmp_path):
    for kind in ("hotspot", "select-point"):
        text = item3(
            kind, declaration3("A"), f'<qti-{kind}-interaction response-identifier="RESPONSE"/>'
        )
        _, result = run(capsys, write(tmp_path, f"{kind}.xml", text), "--exam", exam.slug)
        [skipped] = result["skipped"]
        assert skipped["reason"].endswith(
            "it is answered on an image's regions, which no question type here has"
        )
    assert not Question.objects.exists()


STIMULUS = f"""<?xml version="1.0" encoding="UTF-8"?>
<qti-assessment-stimulus xmlns="{QTI3}" identifier="branch" title="The branch office">
  <qti-stimulus-body><p>The branch has <b>one</b> router.</p><script>alert(1)</script>
  </qti-stimulus-body>
</qti-assessment-stimulus>"""


def test_a_shared_stimulus_is_a_case_study(capsys, exam, tmp_path):
    ref = '<qti-assessment-stimulus-ref identifier="branch" href="../stimuli/branch.xml"/>'
    items = {
        f"items/q{n}.xml": item3(f"q{n}", declaration3("A"), CHOICE).replace(
            "<qti-item-body>", ref + "<qti-item-body>"
        )
        for n in (1, 2)
    }
    raw = package(
        {
            "imsmanifest.xml": manifest(*items),
            **items,
            "stimuli/branch.xml": STIMULUS,
        }
    )
    _, result = run(capsys, write(tmp_path, "p.zip", raw), "--exam", exam.slug)
    assert (result["imported"], result["errors"]) == (2, [])
    case = CaseStudy.objects.get(exam=exam)
    assert (case.title, case.scenario) == (
        "The branch office", "<p>The branch has <b>one</b> router.</p>"
    )  # fmt: skip
    assert {q.case_study_id for q in Question.objects.all()} == {case.pk}
    # Importing again updates the same case study.
    run(capsys, write(tmp_path, "p.zip", raw), "--exam", exam.slug)
    assert CaseStudy.objects.count() == 1
    # An item file alone says where its stimulus is.
    lines, _ = run(capsys, write(tmp_path, "q1.xml", items["items/q1.xml"]), "--exam", exam.slug)
    assert any(
        "its shared stimulus ../stimuli/branch.xml is another file" in line for line in lines
    )


def test_a_stimulus_with_an_entity_is_refused(capsys, exam, tmp_path):
    bomb = STIMULUS.replace(
        "<qti-assessment-stimulus ",
        '<!DOCTYPE x [<!ENTITY a "aaaa">]>\n<qti-assessment-stimulus ',
    ).replace("one</b>", "&a;</b>")
    ref = '<qti-assessment-stimulus-ref identifier="branch" href="branch.xml"/>'
    item = item3("q", declaration3("A"), CHOICE).replace("<qti-item-body>", ref + "<qti-item-body>")
    raw = package({"imsmanifest.xml": manifest("q.xml"), "q.xml": item, "branch.xml": bomb})
    _, result = run(capsys, write(tmp_path, "p.zip", raw), "--exam", exam.slug, "--skip-invalid")
    [error] = result["errors"]
    assert "declares entities" in error["message"]
    assert not CaseStudy.objects.exists()


CHOICE = (
    '<qti-choice-interaction response-identifier="RESPONSE" max-choices="1">'
    "<qti-prompt>Which?</qti-prompt>"
    '<qti-simple-choice identifier="A">This</qti-simple-choice>'
    '<qti-simple-choice identifier="B">That</qti-simple-choice></qti-choice-interaction>'
)


def test_hottext_is_a_choice_among_the_words_to_pick(capsys, exam, tmp_path):
    text = item3(
        "verbs",
        declaration3("W2,W3"),
        '<qti-hottext-interaction response-identifier="RESPONSE" max-choices="2">'
        "<qti-prompt>Pick the two verbs.</qti-prompt>"
        '<p>The <qti-hottext identifier="W1">router</qti-hottext> '
        '<qti-hottext identifier="W2">forwards</qti-hottext> and '
        '<qti-hottext identifier="W3">drops</qti-hottext> packets.</p>'
        "</qti-hottext-interaction>",
        "map_response",
    )
    question = imported(capsys, exam, tmp_path, text)
    assert (question.kind, question.scoring) == ("multiple", "partial")
    assert question.stem == (
        "Pick the two verbs.<p>The <strong>router</strong> <strong>forwards</strong> and "
        "<strong>drops</strong> packets.</p>"
    )
    assert [(o.text, o.is_correct) for o in question.options.all()] == [
        ("router", False), ("forwards", True), ("drops", True)
    ]  # fmt: skip


def test_a_match_to_yes_and_no_is_a_yes_no_series(capsys, exam, tmp_path):
    text = item3(
        "judge",
        declaration3("S1 Y,S2 N,S3 Y", base="directedPair"),
        '<qti-match-interaction response-identifier="RESPONSE" max-associations="3">'
        "<qti-prompt>For each statement, choose Yes or No.</qti-prompt>"
        "<qti-simple-match-set>"
        '<qti-simple-associable-choice identifier="S1" match-max="1">OSPF is link-state.'
        "</qti-simple-associable-choice>"
        '<qti-simple-associable-choice identifier="S2" match-max="1">RIP is link-state.'
        "</qti-simple-associable-choice>"
        '<qti-simple-associable-choice identifier="S3" match-max="1">IS-IS is link-state.'
        "</qti-simple-associable-choice>"
        "</qti-simple-match-set><qti-simple-match-set>"
        '<qti-simple-associable-choice identifier="Y" match-max="3">Yes'
        "</qti-simple-associable-choice>"
        '<qti-simple-associable-choice identifier="N" match-max="3">No'
        "</qti-simple-associable-choice>"
        "</qti-simple-match-set></qti-match-interaction>",
        "map_response",
    )
    question = imported(capsys, exam, tmp_path, text)
    assert (question.kind, question.scoring) == ("yesno", "partial")
    assert [(p.prompt, p.is_yes) for p in question.parts.all()] == [
        ("OSPF is link-state.", True), ("RIP is link-state.", False), ("IS-IS is link-state.", True)
    ]  # fmt: skip
    assert not question.options.exists()


def test_script_in_the_new_interactions_never_reaches_a_page(capsys, exam, tmp_path):
    evil = '<script>alert(1)</script><img src="x" onerror="alert(2)"/>'
    text = item3(
        "evil",
        declaration3("A,B"),
        f'<qti-order-interaction response-identifier="RESPONSE"><qti-prompt>{evil}Order'
        f'</qti-prompt><qti-simple-choice identifier="A">{evil}One</qti-simple-choice>'
        f'<qti-simple-choice identifier="B">Two<qti-feedback-inline outcome-identifier="F" '
        f'identifier="B">{evil}Why</qti-feedback-inline></qti-simple-choice>'
        "</qti-order-interaction>",
    )
    question = imported(capsys, exam, tmp_path, text)
    texts = [question.stem] + [o.text for o in question.options.all()]
    texts += [o.rationale.why for o in question.options.select_related("rationale")]
    # The script is gone; the image outside the package stands as its placeholder.
    image = "&#91;image: x&#93;"
    assert texts == [f"{image}Order", f"{image}One", "Two", "", f"{image}Why"]


def test_a_button_that_ends_the_attempt_is_left_out_and_its_answer_read(capsys, exam, tmp_path):
    """A hint or solution button is no answer: the choice beside it is the question."""
    end = '<qti-end-attempt-interaction response-identifier="HINTREQUEST" title="Show hint"/>'
    text = item3(
        "president",
        declaration3("C").replace('cardinality="multiple"', 'cardinality="single"')
        + '<qti-response-declaration identifier="HINTREQUEST" cardinality="single" '
        'base-type="boolean"/>',
        '<qti-choice-interaction response-identifier="RESPONSE" max-choices="1">'
        "<qti-prompt>Who was the President of Mexico from 2000 to 2006?</qti-prompt>"
        '<qti-simple-choice identifier="A">George W Bush</qti-simple-choice>'
        '<qti-simple-choice identifier="C">Vicente Fox</qti-simple-choice>'
        f"</qti-choice-interaction><p>{end}</p>",
    )
    lines, result = run(capsys, write(tmp_path, "hint.xml", text), "--exam", exam.slug)
    assert (result["imported"], result["errors"], result["skipped"]) == (1, [], [])
    question = Question.objects.get(topic__exam=exam)
    assert [(o.text, o.is_correct) for o in question.options.all()] == [
        ("George W Bush", False), ("Vicente Fox", True)
    ]  # fmt: skip
    assert "Show hint" not in question.stem
    assert any(
        "its button that ends the attempt (for a hint or the solution)" in line for line in lines
    )
    alone = item3("alone", "", f"<p>Nothing to answer. {end}</p>")
    _, result = run(capsys, write(tmp_path, "alone.xml", alone), "--exam", exam.slug)
    assert [item["type"] for item in result["skipped"]] == ["no interaction"]


def slider_item(identifier: str, mapping: str) -> str:
    return item3(
        identifier,
        '<qti-response-declaration identifier="RESPONSE" cardinality="single" '
        'base-type="integer"><qti-correct-response><qti-value>16</qti-value>'
        f'</qti-correct-response><qti-mapping default-value="0">{mapping}</qti-mapping>'
        "</qti-response-declaration>",
        "<p>The 2001 census counted Jedi Knights.</p>"
        '<qti-slider-interaction response-identifier="RESPONSE" lower-bound="0" '
        'upper-bound="100" step="1"><qti-prompt>What percentage had no religion?</qti-prompt>'
        "</qti-slider-interaction>",
        "map_response",
    )


def entries(**values: float) -> str:
    return "".join(
        f'<qti-map-entry map-key="{key.removeprefix("v")}" mapped-value="{value}"/>'
        for key, value in values.items()
    )


def test_a_slider_is_a_number_typed_in_its_right_values_one_range(capsys, exam, tmp_path):
    text = slider_item("jedi", entries(v13=0.5, v14=1, v15=1, v16=1, v17=1, v18=1, v19=0.5))
    lines, result = run(capsys, write(tmp_path, "slider.xml", text), "--exam", exam.slug)
    assert (result["imported"], result["errors"], result["skipped"]) == (1, [], [])
    question = Question.objects.get(topic__exam=exam)
    blank = question.parts.get()
    assert (question.kind, blank.number, blank.tolerance) == ("fillin", 16, 2)
    assert question.stem == (
        "<p>The 2001 census counted Jedi Knights.</p><p>What percentage had no religion?</p>"
        "<p>&#95;&#95;&#95;&#95;&#95; (a number from 0 to 100)</p>"
    )
    report = "\n".join(lines)
    assert "partial credit for 13 on the slider is not carried" in report
    assert "its slider is a number typed in" in report
    apart = slider_item("apart", entries(v14=1, v18=1))
    _, result = run(capsys, write(tmp_path, "apart.xml", apart), "--exam", exam.slug)
    assert [(item["type"], item["reason"].split(": ", 1)[1]) for item in result["skipped"]] == [
        ("slider", "its right values are apart on the scale: a blank takes one number and its "
         "tolerance")
    ]  # fmt: skip
