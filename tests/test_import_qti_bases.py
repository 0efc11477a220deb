"""QTI text entries that ask for an integer typed in another base (`base="16"`): imported as
a text blank of the key written in that base, graded as QTI grades it (letter case and
leading zeros do not matter). Items written here, in QTI 2.1's spelling."""

import re

import pytest

from questions.models import Question
from tests import items
from tests.foreign_files import QTI21, exam_of_one_topic, run, write

pytestmark = pytest.mark.django_db


@pytest.fixture
def exam():
    return exam_of_one_topic("qti-bases")


def item(body: str, declarations: str, *, templated: str = "", processing: str = "") -> str:
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<assessmentItem xmlns="{QTI21}" '
        'identifier="bases" title="Bases" adaptive="false" timeDependent="false">'
        f"{declarations}{templated}<itemBody>{body}</itemBody>{processing}</assessmentItem>"
    )


def integer(identifier: str, correct: str = "") -> str:
    key = f"<correctResponse><value>{correct}</value></correctResponse>" if correct else ""
    return (
        f'<responseDeclaration identifier="{identifier}" cardinality="single" '
        f'baseType="integer">{key}</responseDeclaration>'
    )


def answers(question: Question, *typed: str) -> list[bool]:
    """Whether each typed answer to the question's one blank is graded right."""
    page = items.page_of(question)
    (part,) = page.parts
    return [page.grade([f"{part.key}={text}"]).is_correct for text in typed]


def test_a_hexadecimal_entry_accepts_the_key_in_hexadecimal(capsys, exam, tmp_path):
    text = item(
        '<p>200 in hexadecimal: <textEntryInteraction responseIdentifier="HEX" base="16" '
        'expectedLength="4"/></p>',
        integer("HEX", "200"),
        processing='<responseProcessing template="http://www.imsglobal.org/question/qti_v2p1/'
        'rptemplates/match_correct"/>',
    )
    lines, result = run(capsys, write(tmp_path, "hex.xml", text), "--exam", exam.slug)
    assert (result["imported"], result["skipped"]) == (1, [])
    question = Question.objects.get(topic__exam=exam)
    # As QTI reads a number typed in base 16: any letter case, leading zeros or not.
    assert answers(question, "c8", "C8", "0c8", "00C8", "200", "c9", "0x c8") == [
        True,
        True,
        True,
        True,
        False,
        False,
        False,
    ]
    assert any("typed in base 16: a text blank that accepts c8 / 0c8 / 00c8 /" in x for x in lines)


def test_a_template_key_is_typed_in_binary(capsys, exam, tmp_path):
    # No correct response: the processing compares the answer with the drawn N.
    text = item(
        '<p><printedVariable identifier="N"/> in binary: '
        '<textEntryInteraction responseIdentifier="BITS" base="2"/></p>',
        integer("BITS")
        + '<outcomeDeclaration identifier="SCORE" cardinality="single" baseType="float"/>'
        '<templateDeclaration identifier="N" cardinality="single" baseType="integer"/>',
        templated='<templateProcessing><setTemplateValue identifier="N">'
        '<randomInteger min="8" max="15"/></setTemplateValue></templateProcessing>',
        processing="<responseProcessing><responseCondition><responseIf>"
        '<equal toleranceMode="exact"><variable identifier="BITS"/><variable identifier="N"/>'
        '</equal><setOutcomeValue identifier="SCORE"><baseValue baseType="float">1</baseValue>'
        "</setOutcomeValue></responseIf></responseCondition></responseProcessing>",
    )
    _, result = run(capsys, write(tmp_path, "bits.xml", text), "--exam", exam.slug)
    assert (result["imported"], result["skipped"]) == (1, [])
    question = Question.objects.get(topic__exam=exam)
    number = int(re.search(r"(\d+) in binary", question.stem).group(1))
    bits = format(number, "b")
    # 8 to 15 in base 10 is never the same number read in base 2.
    assert answers(question, bits, "0" + bits, str(number), format(number + 1, "b")) == [
        True,
        True,
        False,
        False,
    ]


@pytest.mark.parametrize(
    ("base", "kind", "reason"),
    [
        ("40", "integer", "typed in base 40, which is no base"),
        ("16", "float", "typed in base 16, a float response"),
    ],
)
def test_entries_in_a_base_not_read_are_refused(capsys, exam, tmp_path, base, kind, reason):
    text = item(
        f'<p><textEntryInteraction responseIdentifier="R" base="{base}"/></p>',
        f'<responseDeclaration identifier="R" cardinality="single" baseType="{kind}">'
        "<correctResponse><value>12</value></correctResponse></responseDeclaration>",
    )
    _, result = run(capsys, write(tmp_path, "refused.xml", text), "--exam", exam.slug)
    assert result["imported"] == 0
    assert reason in result["skipped"][0]["reason"]
    assert not Question.objects.exists()
