"""Author markdown renders, and nothing executable survives."""

import html
import re

import pytest

from questions.markup import quick_snippet, render_markdown, sanitise_html


def test_markdown_renders_emphasis_code_lists_and_tables():
    html = render_markdown(
        "Use **pipeline** `stages`:\n\n- one\n- two\n\n| a | b |\n|---|---|\n| 1 | 2 |"
    )
    assert "<strong>pipeline</strong>" in html
    assert "<code>stages</code>" in html
    assert "<li>one</li>" in html
    assert "<td>1</td>" in html


@pytest.mark.parametrize(
    "source",
    [
        "<script>alert('x')</script>",
        "<img src=x onerror=\"alert('x')\">",
        "[click](javascript:alert('x'))",
        '<a href="javascript:alert(1)">click</a>',
        '<p onclick="alert(1)">hi</p>',
        "<iframe src='https://evil.example'></iframe>",
        "<style>body{display:none}</style>",
        '<a href="data:text/html;base64,PHNjcmlwdD4=">x</a>',
    ],
)
def test_nothing_executable_survives(source):
    html = render_markdown(source).lower()
    for needle in ("<script", "onerror", "onclick", "javascript:", "<iframe", "<style", "data:"):
        assert needle not in html


def test_links_keep_safe_urls_and_gain_rel():
    html = render_markdown("[RFC 1918](https://www.rfc-editor.org/rfc/rfc1918)")
    assert 'href="https://www.rfc-editor.org/rfc/rfc1918"' in html
    assert 'rel="noopener noreferrer nofollow"' in html


def test_empty_text_renders_nothing():
    assert render_markdown("") == ""


@pytest.mark.parametrize(
    ("source", "sanitised"),
    [
        # Plain text, kept as it is (it is not parsed at all).
        ("Résumé: 3 * 4 = 12, `x` [y] \"quoted\" 'it' \t\n end", None),
        ("", None),
        # What parsing changes in text without a tag goes through the sanitiser all the same.
        ("a > b", "a &gt; b"),
        ("a & b &amp; c", "a &amp; b &amp; c"),
        ("line\r\nnext\rlast", "line\nnext\nlast"),
        ("no\xa0break", "no&nbsp;break"),
        ("\ufeffmarked", "marked"),
        ("nul\x00here", "nulhere"),
        ("<b>bold</b><script>x</script>", "<b>bold</b>"),
    ],
)
def test_imported_html_is_sanitised_and_plain_text_kept(source, sanitised):
    assert sanitise_html(source) == (source if sanitised is None else sanitised)


@pytest.mark.parametrize(
    ("source", "seen"),
    [
        # An importer's plain text: HTML's characters as entities, Markdown's escaped.
        (
            r"What &lt;b&gt; \# a\_b \* c \[x\] &amp; 1\. \> it?",
            "What <b> # a_b * c [x] & 1. > it?",
        ),
        ("Which **service** rotates `keys`?", "Which service rotates keys?"),
        ("# Heading\n\n<em>Kept</em> &#95;text&#95;", "Heading Kept _text_"),
        ("[a link](https://example.com) and more", "a link and more"),
    ],
)
def test_a_snippet_is_the_characters_the_reader_sees(source, seen):
    # Plain text for templates to escape once: the text of the rendered markdown.
    assert quick_snippet(source, 200) == seen
    blocks_apart = re.sub(r"</?(?:p|h\d)>", " ", str(render_markdown(source)))
    rendered = html.unescape(re.sub(r"<[^>]+>", "", blocks_apart))
    assert " ".join(rendered.split()) == seen
