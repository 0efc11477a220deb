"""QTI items that no one question of ours holds, read as a teacher would expect: several
interactions as a case study of one question each, a match whose prompts take two answers
or none as yes/no series, a key kept only in response processing, and items that cannot be
graded reported for what they are. The items are written here."""

import pytest

from questions.models import CaseStudy, Question
from tests.foreign_files import QTI3, QTI21, declaration3, exam_of_one_topic, item3, run, write

pytestmark = pytest.mark.django_db


@pytest.fixture
def exam():
    return exam_of_one_topic("qti-several")


def imports(capsys, exam, tmp_path, text: str) -> tuple[list[str], dict]:
    return run(capsys, write(tmp_path, "item.xml", text), "--exam", exam.slug)


def match3(response: str, prompt: str, pairs: str) -> tuple[str, str]:
    """A match of two routers to their roles, keyed by `pairs`; (declaration, interaction)."""

    def choice(identifier: str, text: str) -> str:
        return (
            f'<qti-simple-associable-choice identifier="{identifier}" match-max="2">{text}'
            "</qti-simple-associable-choice>"
        )

    interaction = (
        f'<qti-match-interaction response-identifier="{response}" max-associations="2">'
        + (f"<qti-prompt>{prompt}</qti-prompt>" if prompt else "")
        + f"<qti-simple-match-set>{choice('R1', 'R1')}{choice('R2', 'R2')}</qti-simple-match-set>"
        + f"<qti-simple-match-set>{choice('CORE', 'core')}{choice('EDGE', 'edge')}"
        "</qti-simple-match-set></qti-match-interaction>"
    )
    return declaration3(pairs, identifier=response, base="directedPair"), interaction


def test_several_matches_are_a_case_study_of_one_question_each(capsys, exam, tmp_path):
    first_declaration, first = match3(
        "RESPONSE1", "Match the routers of site A.", "R1 CORE,R2 EDGE"
    )
    second_declaration, second = match3("RESPONSE2", "Now those of site B.", "R1 EDGE,R2 CORE")
    body = (
        '<p>Two sites<script>alert("x")</script> each have <b>two</b> routers.</p>'
        f"{first}<p onclick=\"alert('y')\">Site B was rebuilt last year.</p>{second}"
    )
    text = item3("sites", first_declaration + second_declaration, body, "map_response")
    text = text.replace('title="sites"', 'title="Two sites"')
    lines, result = run(capsys, write(tmp_path, "sites.xml", text), "--exam", exam.slug)
    assert (result["imported"], result["skipped"], result["errors"]) == (2, [], [])
    case = CaseStudy.objects.get(exam=exam)
    # The text outside the interactions is the scenario, cleaned as every import is.
    assert case.title == "Two sites"
    assert case.scenario == (
        "<p>Two sites each have <b>two</b> routers.</p><p>Site B was rebuilt last year.</p>"
    )
    site_a, site_b = Question.objects.order_by("uid")
    assert "part-1-of-2" in site_a.uid
    assert "part-2-of-2" in site_b.uid
    for question in (site_a, site_b):
        assert (question.kind, question.scoring, question.case_study_id) == (
            "matching", "partial", case.pk
        )  # fmt: skip
    assert (site_a.stem, site_b.stem) == ("Match the routers of site A.", "Now those of site B.")
    assert [(p.prompt, p.answer.text) for p in site_a.parts.all()] == [
        ("R1", "core"), ("R2", "edge")
    ]  # fmt: skip
    assert [(p.prompt, p.answer.text) for p in site_b.parts.all()] == [
        ("R1", "edge"), ("R2", "core")
    ]  # fmt: skip
    assert any("its 2 interactions are 2 questions of a case study" in line for line in lines)
    # Importing again updates the same questions and case study.
    uids = sorted(Question.objects.values_list("uid", flat=True))
    _, again = run(capsys, write(tmp_path, "sites.xml", text), "--exam", exam.slug)
    assert (again["imported"], again["unchanged"]) == (0, 2)
    assert sorted(Question.objects.values_list("uid", flat=True)) == uids
    assert CaseStudy.objects.count() == 1


LEGEND = f"""<?xml version="1.0" encoding="UTF-8"?>
<assessmentItem xmlns="{QTI21}" identifier="legend" title="Legend">
  <responseDeclaration identifier="R1" cardinality="single" baseType="identifier">
    <correctResponse><value>A</value></correctResponse></responseDeclaration>
  <responseDeclaration identifier="R2" cardinality="single" baseType="identifier">
    <correctResponse><value>M</value></correctResponse></responseDeclaration>
  <responseDeclaration identifier="R3" cardinality="single" baseType="string">
    <correctResponse><value>king</value></correctResponse></responseDeclaration>
  <responseDeclaration identifier="R4" cardinality="multiple" baseType="directedPair">
    <correctResponse><value>F G1</value><value>H G2</value></correctResponse>
  </responseDeclaration>
  <itemBody>
    <blockquote><p>An outlaw still walks the forest at night.</p></blockquote>
    <choiceInteraction responseIdentifier="R1" maxChoices="1">
      <prompt>Why do people fear the forest?</prompt>
      <simpleChoice identifier="A">A ghost</simpleChoice>
      <simpleChoice identifier="B">The dark</simpleChoice>
    </choiceInteraction>
    <div>Her name was <inlineChoiceInteraction responseIdentifier="R2">
      <inlineChoice identifier="M">Marion</inlineChoice>
      <inlineChoice identifier="N">Maureen</inlineChoice>
    </inlineChoiceInteraction>, angry with the <textEntryInteraction responseIdentifier="R3"/>.
    </div>
    <gapMatchInteraction responseIdentifier="R4">
      <gapText identifier="F" matchMax="1">family</gapText>
      <gapText identifier="H" matchMax="1">horse</gapText>
      <p>He killed her <gap identifier="G1"/> and took her <gap identifier="G2"/>.</p>
    </gapMatchInteraction>
  </itemBody>
  <responseProcessing>
    <responseCondition><responseIf>
      <match><variable identifier="R1"/><correct identifier="R1"/></match>
      <setOutcomeValue identifier="SCORE">
        <baseValue baseType="float">1</baseValue></setOutcomeValue>
    </responseIf></responseCondition>
  </responseProcessing>
</assessmentItem>"""


def test_a_choice_drop_downs_a_typed_gap_and_a_gap_match_are_parts_of_a_case_study(
    capsys, exam, tmp_path
):
    lines, result = run(capsys, write(tmp_path, "legend.xml", LEGEND), "--exam", exam.slug)
    assert (result["imported"], result["skipped"], result["errors"]) == (3, [], [])
    case = CaseStudy.objects.get(exam=exam)
    assert (case.title, case.scenario) == (
        "Legend", "<blockquote><p>An outlaw still walks the forest at night.</p></blockquote>"
    )  # fmt: skip
    why, name, deeds = Question.objects.order_by("uid")
    assert (why.kind, why.stem) == ("single", "Why do people fear the forest?")
    assert [(o.text, o.is_correct) for o in why.options.all()] == [
        ("A ghost", True), ("The dark", False)
    ]  # fmt: skip
    # The inline choice and the text entry of one paragraph stay one question.
    assert (name.kind, name.exhibit) == (
        "dropdown", "Her name was [[1]], angry with the [[2]]."
    )  # fmt: skip
    marion, king = name.parts.all()
    assert [o.text for o in marion.options.all() if o.is_correct] == ["Marion"]
    assert king.accepted_texts == ["king"]
    assert (deeds.kind, deeds.exhibit) == (
        "dropdown", "<p>He killed her [[1]] and took her [[2]].</p>"
    )  # fmt: skip
    assert [[o.text for o in gap.options.all() if o.is_correct] for gap in deeds.parts.all()] == [
        ["family"], ["horse"]
    ]  # fmt: skip
    # What was assumed of its own response processing is said.
    assert any("each question is scored by its own interaction's key" in line for line in lines)
    assert {q.case_study_id for q in (why, name, deeds)} == {case.pk}


def test_a_prompt_less_ordering_takes_the_paragraph_before_it_as_its_question(
    capsys, exam, tmp_path
):
    declarations = declaration3("A,B", identifier="ORDER") + declaration3(
        "443", identifier="PORT", base="string"
    )
    body = (
        "<p>Put the messages in order.</p>"
        '<qti-order-interaction response-identifier="ORDER">'
        '<qti-simple-choice identifier="A">SYN</qti-simple-choice>'
        '<qti-simple-choice identifier="B">ACK</qti-simple-choice>'
        "</qti-order-interaction>"
        '<p>HTTPS listens on port <qti-text-entry-interaction response-identifier="PORT"/>.</p>'
    )
    _, result = imports(capsys, exam, tmp_path, item3("tcp", declarations, body))
    assert (result["imported"], result["skipped"], result["errors"]) == (2, [], [])
    order, port = Question.objects.order_by("uid")
    assert (order.kind, order.stem) == ("ordering", "<p>Put the messages in order.</p>")
    assert [(o.text, o.order) for o in order.options.all()] == [("SYN", 1), ("ACK", 2)]
    assert port.kind == "fillin"
    assert port.parts.get().accepted_texts == ["443"]
    # Nothing is left outside the two questions: no case study.
    assert not CaseStudy.objects.exists()
    assert {order.case_study_id, port.case_study_id} == {None}


def test_a_part_without_a_key_is_reported_and_the_others_imported(capsys, exam, tmp_path):
    first_declaration, first = match3("RESPONSE1", "Site A.", "R1 CORE,R2 EDGE")
    _, second = match3("RESPONSE2", "Site B.", "R1 CORE")
    declarations = first_declaration + (
        '<qti-response-declaration identifier="RESPONSE2" cardinality="multiple" '
        'base-type="directedPair"/>'
    )
    text = item3("layout", declarations, f"<p>Routers.</p>{first}{second}")
    _, result = run(capsys, write(tmp_path, "layout.xml", text), "--exam", exam.slug)
    assert result["imported"] == 1
    [skipped] = result["skipped"]
    assert skipped["type"] == "no key"
    assert "(part 2 of 2)" in skipped["reason"]
    assert "has no correct response" in skipped["reason"]
    assert Question.objects.get().stem == "Site A."


GRID = f"""<?xml version="1.0" encoding="UTF-8"?>
<assessmentItem xmlns="{QTI21}" identifier="towns" title="Towns">
  <responseDeclaration identifier="RESPONSE" cardinality="multiple" baseType="directedPair">
    <mapping defaultValue="0">{{entries}}</mapping>
  </responseDeclaration>
  <itemBody>
    <matchInteraction responseIdentifier="RESPONSE" maxAssociations="9">
      <prompt>Match the towns to their counties.</prompt>
      <simpleMatchSet>{{prompts}}</simpleMatchSet>
      <simpleMatchSet>{{answers}}</simpleMatchSet>
    </matchInteraction>
  </itemBody>
  <responseProcessing>
    <setOutcomeValue identifier="SCORE"><mapResponse identifier="RESPONSE"/></setOutcomeValue>
  </responseProcessing>
</assessmentItem>"""


def grid(prompts: int, answers: int, pairs: dict[str, str]) -> str:
    def choices(prefix: str, count: int) -> str:
        return "".join(
            f'<simpleAssociableChoice identifier="{prefix}{n}" matchMax="5">{prefix}{n}'
            "</simpleAssociableChoice>"
            for n in range(1, count + 1)
        )

    entries = "".join(
        f'<mapEntry mapKey="{key}" mappedValue="{value}"/>' for key, value in pairs.items()
    )
    return GRID.format(
        entries=entries, prompts=choices("T", prompts), answers=choices("C", answers)
    )


def test_a_prompt_with_two_answers_or_none_is_a_yes_no_series_of_every_pair(capsys, exam, tmp_path):
    # T1 is in two counties; T2 in none; a wrong pair scores below 0.
    text = grid(2, 3, {"T1 C1": "1", "T1 C3": "1", "T2 C2": "-0.5"})
    lines, result = run(capsys, write(tmp_path, "towns.xml", text), "--exam", exam.slug)
    assert (result["imported"], result["skipped"], result["errors"]) == (1, [], [])
    question = Question.objects.get()
    # Its own processing sets the score to the mapping: a share per statement.
    assert (question.kind, question.scoring) == ("yesno", "partial")
    assert question.stem == (
        "Match the towns to their counties.\n\n"
        "For each pair below, answer yes if they match and no if they do not."
    )
    assert [(p.prompt, p.is_yes) for p in question.parts.all()] == [
        ("T1 — C1", True), ("T1 — C2", False), ("T1 — C3", True),
        ("T2 — C1", False), ("T2 — C2", False), ("T2 — C3", False),
    ]  # fmt: skip
    said = "prompt 'T1' is matched to 2 answers: read as a yes/no series"
    assert any(said in line for line in lines)


def test_a_larger_grid_is_a_yes_no_series_per_prompt(capsys, exam, tmp_path):
    text = grid(4, 4, {"T1 C1": "1", "T1 C2": "1", "T2 C2": "1", "T3 C3": "1"})
    _, result = run(capsys, write(tmp_path, "towns.xml", text), "--exam", exam.slug)
    assert (result["imported"], result["skipped"], result["errors"]) == (4, [], [])
    case = CaseStudy.objects.get()
    assert (case.title, case.scenario) == ("Towns", "Match the towns to their counties.")
    rows = list(Question.objects.order_by("uid"))
    assert [row.stem for row in rows] == [
        f"T{n}: answer yes for each of these it matches, no for the others." for n in (1, 2, 3, 4)
    ]
    assert [[p.is_yes for p in row.parts.all()] for row in rows] == [
        [True, True, False, False],
        [False, True, False, False],
        [False, False, True, False],
        [False, False, False, False],
    ]
    assert {(row.kind, row.case_study_id) for row in rows} == {("yesno", case.pk)}


def test_a_grid_of_twelve_prompts_and_answers_is_a_series_per_prompt(capsys, exam, tmp_path):
    text = grid(12, 12, {"T1 C1": "1", "T1 C2": "1", "T12 C12": "1"})
    _, result = run(capsys, write(tmp_path, "towns.xml", text), "--exam", exam.slug)
    assert (result["imported"], result["skipped"]) == (12, [])
    last = Question.objects.get(stem__startswith="T12:")
    assert [p.is_yes for p in last.parts.all()] == [False] * 11 + [True]


def test_a_grid_of_more_prompts_than_a_case_study_holds_is_reported(capsys, exam, tmp_path):
    text = grid(13, 6, {"T1 C1": "1", "T1 C2": "1"})
    _, result = run(capsys, write(tmp_path, "towns.xml", text), "--exam", exam.slug)
    [skipped] = result["skipped"]
    assert skipped["type"] == "match"
    assert "prompt 'T1' is matched to 2 answers" in skipped["reason"]
    assert "13 prompts and 6 answers make 78 pairs: more than 12" in skipped["reason"]
    assert not Question.objects.exists()


def keyed_by_processing(declaration: str, interaction: str, condition: str) -> str:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<qti-assessment-item xmlns="{QTI3}" identifier="rp" title="Processing">
  {declaration}
  <qti-item-body>{interaction}</qti-item-body>
  <qti-response-processing><qti-response-condition><qti-response-if>{condition}
    <qti-set-outcome-value identifier="SCORE"><qti-base-value base-type="float">1</qti-base-value>
    </qti-set-outcome-value></qti-response-if><qti-response-else>
    <qti-set-outcome-value identifier="SCORE"><qti-base-value base-type="float">0</qti-base-value>
    </qti-set-outcome-value></qti-response-else></qti-response-condition>
  </qti-response-processing>
</qti-assessment-item>"""


CHOICE = (
    '<qti-choice-interaction response-identifier="RESPONSE" max-choices="1">'
    "<qti-prompt>Which port does DNS use?</qti-prompt>"
    '<qti-simple-choice identifier="A">25</qti-simple-choice>'
    '<qti-simple-choice identifier="B">53</qti-simple-choice></qti-choice-interaction>'
)
UNKEYED = (
    '<qti-response-declaration identifier="RESPONSE" cardinality="single" base-type="identifier"/>'
)


def test_a_key_kept_in_simple_response_processing_is_read(capsys, exam, tmp_path):
    condition = (
        '<qti-match><qti-variable identifier="RESPONSE"/>'
        '<qti-base-value base-type="identifier">B</qti-base-value></qti-match>'
    )
    text = keyed_by_processing(UNKEYED, CHOICE, condition)
    lines, result = run(capsys, write(tmp_path, "rp.xml", text), "--exam", exam.slug)
    assert (result["imported"], result["errors"]) == (1, [])
    question = Question.objects.get()
    assert [(o.text, o.is_correct) for o in question.options.all()] == [
        ("25", False), ("53", True)
    ]  # fmt: skip
    said = "the key of RESPONSE (B) is read from its response processing"
    assert any(said in line for line in lines)


def test_a_key_only_in_processing_not_run_is_said_so(capsys, exam, tmp_path):
    condition = (
        '<qti-equal tolerance-mode="exact"><qti-sum><qti-variable identifier="RESPONSE"/>'
        '<qti-base-value base-type="integer">1</qti-base-value></qti-sum>'
        '<qti-base-value base-type="integer">54</qti-base-value></qti-equal>'
    )
    text = keyed_by_processing(UNKEYED, CHOICE, condition)
    _, result = run(capsys, write(tmp_path, "rp.xml", text), "--exam", exam.slug)
    [skipped] = result["skipped"]
    assert skipped["type"] == "key in response processing"
    assert "its key is only in response processing we do not run (RESPONSE" in skipped["reason"]
    assert not Question.objects.exists()


def test_drop_downs_without_keys_are_counted_in_the_reason(capsys, exam, tmp_path):
    inline = (
        '<p>{n}: <qti-inline-choice-interaction response-identifier="R{n}">'
        '<qti-inline-choice identifier="A">a</qti-inline-choice>'
        '<qti-inline-choice identifier="B">b</qti-inline-choice>'
        "</qti-inline-choice-interaction></p>"
    )
    declarations = declaration3("A", identifier="R1") + "".join(
        f'<qti-response-declaration identifier="R{n}" cardinality="single" base-type="identifier"/>'
        for n in (2, 3)
    )
    body = "".join(inline.format(n=n) for n in (1, 2, 3))
    _, result = imports(capsys, exam, tmp_path, item3("widths", declarations, body))
    [skipped] = result["skipped"]
    assert (skipped["type"], skipped["reason"]) == (
        "no key",
        "item 'widths' (widths): 2 of its 3 interactions have no correct response (nor a "
        "mapping or scoring rule that gives a key): no machine can grade them",
    )


def gap_match(pairs: str) -> str:
    return item3(
        "chart",
        declaration3(pairs, base="directedPair"),
        '<qti-gap-match-interaction response-identifier="RESPONSE">'
        '<qti-gap-text identifier="circle" match-max="5">circle</qti-gap-text>'
        '<qti-gap-text identifier="star" match-max="5">star</qti-gap-text>'
        '<p>Round: <qti-gap identifier="G1"/>. Pointed: <qti-gap identifier="G2"/>.</p>'
        "</qti-gap-match-interaction>",
    )


def test_gap_match_pairs_written_gap_first_are_read(capsys, exam, tmp_path):
    _, result = imports(capsys, exam, tmp_path, gap_match("G1 circle,G2 star"))
    assert (result["imported"], result["errors"]) == (1, [])
    round_gap, pointed = Question.objects.get().parts.all()
    assert [o.text for o in round_gap.options.all() if o.is_correct] == ["circle"]
    assert [o.text for o in pointed.options.all() if o.is_correct] == ["star"]


def test_a_gap_to_hold_one_text_several_times_is_reported_as_a_count(capsys, exam, tmp_path):
    text = gap_match("G1 circle,G1 circle,G1 circle,G2 star")
    _, result = run(capsys, write(tmp_path, "chart.xml", text), "--exam", exam.slug)
    [skipped] = result["skipped"]
    assert skipped["type"] == "gap match"
    assert "gap 1 is to hold 'circle' 3 times" in skipped["reason"]


TICKS = (
    '<qti-choice-interaction response-identifier="RESPONSE" max-choices="0">'
    "<qti-prompt>Which are transport protocols?</qti-prompt>"
    '<qti-simple-choice identifier="A">TCP</qti-simple-choice>'
    '<qti-simple-choice identifier="B">IP</qti-simple-choice>'
    '<qti-simple-choice identifier="C">UDP</qti-simple-choice>'
    '<qti-simple-choice identifier="D">QUIC</qti-simple-choice></qti-choice-interaction>'
)
UNKEYED_TICKS = (
    '<qti-response-declaration identifier="RESPONSE" cardinality="multiple" '
    'base-type="identifier"/>'
)


def ticked(*identifiers: str) -> str:
    values = "".join(
        f'<qti-base-value base-type="identifier">{i}</qti-base-value>' for i in identifiers
    )
    return (
        '<qti-match><qti-variable identifier="RESPONSE"/>'
        f"<qti-multiple>{values}</qti-multiple></qti-match>"
    )


def test_one_set_of_choices_matched_in_processing_is_the_key(capsys, exam, tmp_path):
    text = keyed_by_processing(UNKEYED_TICKS, TICKS, ticked("C", "A"))
    lines, result = run(capsys, write(tmp_path, "rp.xml", text), "--exam", exam.slug)
    assert (result["imported"], result["errors"]) == (1, [])
    question = Question.objects.get()
    assert [o.text for o in question.options.all() if o.is_correct] == ["TCP", "UDP"]
    assert any("the key of RESPONSE (A, C) is read from its response" in x for x in lines)


def test_two_sets_of_choices_each_worth_full_marks_are_reported(capsys, exam, tmp_path):
    # The first set earns full marks in the if, the second in an else-if.
    text = keyed_by_processing(UNKEYED_TICKS, TICKS, ticked("A", "C")).replace(
        "</qti-response-if><qti-response-else>",
        f"</qti-response-if><qti-response-else-if>{ticked('A', 'C', 'D')}"
        '<qti-set-outcome-value identifier="SCORE"><qti-base-value base-type="float">1'
        "</qti-base-value></qti-set-outcome-value></qti-response-else-if><qti-response-else>",
    )
    _, result = run(capsys, write(tmp_path, "rp.xml", text), "--exam", exam.slug)
    [skipped] = result["skipped"]
    assert skipped["reason"].endswith(
        "two different sets of choices each earn full marks (RESPONSE); a question here has one key"
    )
    assert not Question.objects.exists()


def test_a_sum_of_two_sliders_is_reported_as_such(capsys, exam, tmp_path):
    sliders = "".join(
        f'<qti-response-declaration identifier="{r}" cardinality="single" base-type="integer"/>'
        for r in ("LEFT", "RIGHT")
    )
    body = (
        '<qti-slider-interaction response-identifier="LEFT" lower-bound="0" upper-bound="10" '
        'step="1"><qti-prompt>Make the two add up to 12.</qti-prompt></qti-slider-interaction>'
        '<qti-slider-interaction response-identifier="RIGHT" lower-bound="0" upper-bound="10" '
        'step="1"/>'
    )
    condition = (
        '<qti-equal tolerance-mode="exact"><qti-sum><qti-variable identifier="LEFT"/>'
        '<qti-variable identifier="RIGHT"/></qti-sum>'
        '<qti-base-value base-type="integer">12</qti-base-value></qti-equal>'
    )
    text = keyed_by_processing(sliders, body, condition)
    _, result = run(capsys, write(tmp_path, "rp.xml", text), "--exam", exam.slug)
    [skipped] = result["skipped"]
    assert skipped["reason"].endswith(
        "it scores the sum of its two sliders (LEFT, RIGHT), not each one; a question here "
        "keys each answer on its own"
    )
    assert not Question.objects.exists()


def test_an_adaptive_item_scoring_nothing_is_keyed_by_what_completes_it(capsys, exam, tmp_path):
    # "Keep trying until you get it right": no score, the right choice completes the item;
    # the response is also copied to an outcome that only picks the feedback shown.
    text = f"""<?xml version="1.0" encoding="UTF-8"?>
<assessmentItem xmlns="{QTI21}" identifier="tries" title="Tries" adaptive="true"
    timeDependent="false">
  <responseDeclaration identifier="RESPONSE" cardinality="single" baseType="identifier"/>
  <outcomeDeclaration identifier="FEEDBACK" cardinality="multiple" baseType="identifier"/>
  <itemBody><choiceInteraction responseIdentifier="RESPONSE" maxChoices="1">
    <prompt>Which port does DNS use?</prompt>
    <simpleChoice identifier="A">25</simpleChoice><simpleChoice identifier="B">53</simpleChoice>
  </choiceInteraction></itemBody>
  <responseProcessing>
    <setOutcomeValue identifier="FEEDBACK"><multiple><variable identifier="RESPONSE"/>
    </multiple></setOutcomeValue>
    <responseCondition><responseIf><match><variable identifier="RESPONSE"/>
      <baseValue baseType="identifier">B</baseValue></match>
      <setOutcomeValue identifier="completionStatus"><baseValue baseType="identifier">complete
      </baseValue></setOutcomeValue></responseIf></responseCondition>
  </responseProcessing>
  <modalFeedback outcomeIdentifier="FEEDBACK" identifier="A" showHide="show">SMTP's.
  </modalFeedback>
</assessmentItem>"""
    lines, result = run(capsys, write(tmp_path, "tries.xml", text), "--exam", exam.slug)
    assert (result["imported"], result["errors"], result["skipped"]) == (1, [], [])
    question = Question.objects.get()
    assert [(o.text, o.is_correct) for o in question.options.all()] == [
        ("25", False), ("53", True)
    ]  # fmt: skip
    said = "the key of RESPONSE (B) is read from its response processing (the answer that"
    assert any(said in line for line in lines)


def test_an_item_scoring_every_answer_alike_is_said_to_have_no_key(capsys, exam, tmp_path):
    # A demonstration: the answer is copied for its feedback and the score is always 1.
    text = f"""<?xml version="1.0" encoding="UTF-8"?>
<qti-assessment-item xmlns="{QTI3}" identifier="demo" title="Demo">
  <qti-response-declaration identifier="RESPONSE" cardinality="single" base-type="string"/>
  <qti-outcome-declaration identifier="SCORE" cardinality="single" base-type="float"/>
  <qti-outcome-declaration identifier="COPY" cardinality="single" base-type="string"/>
  <qti-item-body><p>Type anything: <qti-text-entry-interaction response-identifier="RESPONSE"/>
  </p></qti-item-body>
  <qti-response-processing>
    <qti-set-outcome-value identifier="COPY"><qti-variable identifier="RESPONSE"/>
    </qti-set-outcome-value>
    <qti-set-outcome-value identifier="SCORE"><qti-base-value base-type="float">1
    </qti-base-value></qti-set-outcome-value>
  </qti-response-processing>
</qti-assessment-item>"""
    _, result = run(capsys, write(tmp_path, "demo.xml", text), "--exam", exam.slug)
    [skipped] = result["skipped"]
    assert skipped["reason"].endswith(
        "it gives every answer the same score, under no condition: it has no key to grade"
    )
    assert not Question.objects.exists()
