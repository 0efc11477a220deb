"""What search engines read: sitemap.xml (exams, topics, published questions only),
robots.txt, canonical links and Open Graph tags, and descriptions that never give the answer
away."""

import re

import pytest
from django.test import Client

from tests.factories import QuestionFactory, TopicFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def bank():
    topic = TopicFactory(slug="identity", exam__slug="scs-c02", exam__code="SCS-C02")
    published = QuestionFactory(uid="pub-1", topic=topic, stem="Which service **rotates** keys?")
    draft = QuestionFactory(uid="draft-1", topic=topic, status="draft")
    review = QuestionFactory(uid="review-1", topic=topic, status="review")
    return {"topic": topic, "published": published, "draft": draft, "review": review}


def locations(xml: str) -> list[str]:
    return re.findall(r"<loc>(.*?)</loc>", xml)


def test_the_sitemap_lists_exams_topics_and_published_questions_only(client, bank):
    index = client.get("/sitemap.xml")
    assert index.status_code == 200
    sections = locations(index.text)
    assert sections == [
        "http://testserver/sitemap-exams.xml",
        "http://testserver/sitemap-topics.xml",
        "http://testserver/sitemap-questions.xml",
    ]
    urls = [loc for section in sections for loc in locations(client.get(section).text)]
    assert "http://testserver/exams/scs-c02/" in urls
    assert "http://testserver/exams/scs-c02/identity/" in urls
    assert "http://testserver/questions/pub-1/" in urls
    assert not any("draft-1" in url or "review-1" in url for url in urls)
    questions = client.get("/sitemap-questions.xml").text
    assert "<lastmod>" in questions


def test_the_sitemap_names_the_configured_site(client, bank, settings):
    settings.SITE_URL = "https://courseiva.example"
    urls = locations(client.get("/sitemap-questions.xml").text)
    assert urls == ["https://courseiva.example/questions/pub-1/"]


def test_robots_keeps_crawlers_to_the_public_pages(client, settings):
    settings.SITE_URL = "https://courseiva.example"
    response = client.get("/robots.txt")
    assert response["Content-Type"].startswith("text/plain")
    lines = response.text.splitlines()
    for prefix in ("/admin/", "/accounts/", "/progress/", "/instructor/"):
        assert f"Disallow: {prefix}" in lines
    assert "Disallow: /questions/" not in lines
    assert "Sitemap: https://courseiva.example/sitemap.xml" in lines


def test_question_pages_carry_canonical_and_open_graph_without_the_answer(client, bank):
    question = bank["published"]
    text = client.get(question.get_absolute_url()).text
    assert '<link rel="canonical" href="/questions/pub-1/">' in text
    head = text[: text.index("</head>")]
    description = re.search(r'<meta name="description" content="([^"]*)"', head).group(1)
    og_description = re.search(r'<meta property="og:description" content="([^"]*)"', head)
    assert "Which service rotates keys?" in description
    assert og_description.group(1) == "Which service rotates keys?"
    assert '<meta property="og:title" content="SCS-C02 ' in head
    # Nothing in the head says which option is right or why.
    correct = question.options.select_related("rationale").get(is_correct=True)
    for secret in (question.explanation, correct.text, correct.rationale.why):
        assert secret not in head


def test_the_canonical_link_comes_from_the_settings_not_the_request(bank, settings):
    # The page is rendered once for every visitor: a Host header must not end up in it.
    settings.SITE_URL = "https://courseiva.example"
    settings.ALLOWED_HOSTS = ["courseiva.example", "alias.example"]
    url = bank["published"].get_absolute_url()
    Client().get(url, HTTP_HOST="alias.example")
    text = Client().get(url, HTTP_HOST="courseiva.example").text
    assert '<link rel="canonical" href="https://courseiva.example/questions/pub-1/">' in text
    assert "alias.example" not in text


def test_a_topics_later_pages_are_their_own_canonical(client, bank):
    for n in range(30):
        QuestionFactory(topic=bank["topic"], uid=f"more-{n:02d}")
    text = client.get("/exams/scs-c02/identity/?page=2").text
    assert '<link rel="canonical" href="/exams/scs-c02/identity/?page=2">' in text


# What the learner reads, as each format writes it. The importers keep a plain `<` as `&lt;`
# in the stem's markdown; the head and the listings showed `What &amp;lt;script&amp;gt;`.
SHOWN = "What <script>alert(1)</script> & <b> mean?"
FILES = {
    "aiken": ("q.txt", f"{SHOWN}\nA) One\nB) Two\nANSWER: A\n"),
    "gift-plain": ("q.gift", f"::q:: [plain]{SHOWN} {{=One ~Two}}\n"),
    "gift-html": (
        "q.gift",
        "::q:: [html]What &lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt; mean? "
        "{=One ~Two}\n",
    ),
    "moodle-xml": (
        "q.xml",
        '<?xml version="1.0"?><quiz><question type="multichoice"><name><text>q</text></name>'
        '<questiontext format="html"><text><![CDATA[<p>What &lt;script&gt;alert(1)&lt;/script&gt;'
        " &amp; &lt;b&gt; mean?</p>]]></text></questiontext><single>true</single>"
        '<answer fraction="100"><text>One</text></answer>'
        '<answer fraction="0"><text>Two</text></answer></question></quiz>',
    ),
    "qti": (
        "q.xml",
        '<assessmentItem xmlns="http://www.imsglobal.org/xsd/imsqti_v2p1" identifier="q">'
        '<responseDeclaration identifier="R" cardinality="single" baseType="identifier">'
        "<correctResponse><value>A</value></correctResponse></responseDeclaration><itemBody>"
        "<p>What &lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt; mean?</p>"
        '<choiceInteraction responseIdentifier="R" maxChoices="1"><simpleChoice identifier="A">'
        'One</simpleChoice><simpleChoice identifier="B">Two</simpleChoice></choiceInteraction>'
        "</itemBody></assessmentItem>",
    ),
}


@pytest.mark.parametrize("source", FILES)
def test_an_imported_stems_characters_are_escaped_once_in_the_head_and_lists(
    client, tmp_path, capsys, source
):
    from django.core.management import call_command

    from questions.models import Question, Status
    from tests.foreign_files import write

    topic = TopicFactory(slug="general", exam__slug="web", exam__code="WEB", weight=100)
    name, text = FILES[source]
    path = write(tmp_path, name, text)
    call_command("import_bank", str(path), "--exam", "web", "--topic", topic.slug)
    question = Question.objects.get()
    Question.objects.update(status=Status.PUBLISHED)  # imports are in review
    page = client.get(question.get_absolute_url()).text
    head = page[: page.index("</head>")]
    once = "What &lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt; mean?"
    assert re.search(r"<title>(.*?)</title>", head).group(1).startswith(f"{once} · WEB")
    description = re.search(r'<meta name="description" content="([^"]*)"', head).group(1)
    assert description.endswith(f"practice question: {once}")
    og = re.search(r'<meta property="og:description" content="([^"]*)"', head).group(1)
    assert og == once
    assert "&amp;lt;" not in page
    assert "&amp;amp;" not in page
    assert "<script>alert" not in page  # nothing injected
    assert "<b> mean" not in page
    listing = client.get("/exams/web/general/").text
    assert f">{once}</a>" in listing
