"""MathML in imported items written out as the text our pages show (qti_math): the formula's
structure kept (powers, indices, fractions, roots, brackets), annotations left out."""

import pytest
from defusedxml.ElementTree import fromstring

from questions.bank.formats.qti_math import linear

M = 'xmlns="http://www.w3.org/1998/Math/MathML"'


@pytest.mark.parametrize(
    ("mathml", "written"),
    [
        # x² + y² = r², the LaTeX beside it not repeated
        (
            "<semantics><mrow><msup><mi>x</mi><mn>2</mn></msup><mo>+</mo><msup><mi>y</mi>"
            "<mn>2</mn></msup><mo>=</mo><msup><mi>r</mi><mn>2</mn></msup></mrow>"
            '<annotation encoding="LaTeX">x^2+y^2=r^2</annotation></semantics>',
            "x<sup>2</sup> + y<sup>2</sup> = r<sup>2</sup>",
        ),
        # a half, and a fraction whose sides are more than one term
        ("<mfrac><mn>1</mn><mn>2</mn></mfrac>", "1/2"),
        (
            "<mfrac><mrow><mi>a</mi><mo>+</mo><mi>b</mi></mrow><mn>2</mn></mfrac>",
            "(a + b)/2",
        ),
        (
            "<msqrt><msup><mi>b</mi><mn>2</mn></msup><mo>-</mo><mn>4</mn><mi>a</mi><mi>c</mi>"
            "</msqrt>",
            "√(b<sup>2</sup> - 4ac)",
        ),
        ("<mroot><mi>x</mi><mn>3</mn></mroot>", "<sup>3</sup>√(x)"),
        ("<msub><mi>log</mi><mn>2</mn></msub><mi>n</mi>", "log<sub>2</sub>n"),
        ("<msubsup><mi>x</mi><mi>i</mi><mn>2</mn></msubsup>", "x<sub>i</sub><sup>2</sup>"),
        ('<mfenced open="[" close="]"><mn>1</mn><mn>2</mn></mfenced>', "[1, 2]"),
        # text is escaped: markup inside MathML text stays text
        ("<mtext>&lt;script&gt;</mtext>", "&lt;script&gt;"),
    ],
)
def test_mathml_is_written_out_with_its_structure(mathml, written):
    assert linear(fromstring(f"<math {M}>{mathml}</math>")) == written
