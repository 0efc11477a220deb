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
