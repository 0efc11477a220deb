"""The catalog, an exam's blueprint and a topic's question list."""

from decimal import Decimal

import pytest
from django.urls import reverse

from questions.pages.snapshot import forget_exams
from tests.factories import ExamFactory, QuestionFactory, TopicFactory
from tests.nonces import without_nonces

pytestmark = pytest.mark.django_db


@pytest.fixture
def on_commit(django_capture_on_commit_callbacks):
    # An edit drops the cached listings once its transaction commits; a test's never does.
    return django_capture_on_commit_callbacks


def test_catalog_lists_exams_with_counts_and_links(client, django_assert_num_queries):
    topic = TopicFactory(exam__code="CSA", exam__title="Cloud Security Associate")
    QuestionFactory.create_batch(2, topic=topic)
    QuestionFactory(topic=topic, status="draft")
    QuestionFactory(topic=topic, status="review")
    with django_assert_num_queries(1):
        response = client.get(reverse("home"))
    assert response.status_code == 200
    assert "Cloud Security Associate" in response.text
    assert "2 published questions in 1 topic" in response.text
    assert f'href="{reverse("exam_detail", args=[topic.exam.slug])}"' in response.text
    with django_assert_num_queries(0):  # rendered once for every visitor
        assert without_nonces(client.get(reverse("home")).text) == without_nonces(response.text)


def test_catalog_query_count_is_flat(client, django_assert_num_queries, on_commit):
    ExamFactory.create_batch(2)
    with django_assert_num_queries(1):
        client.get(reverse("home"))
    exams = ExamFactory.create_batch(10)
    for exam in exams:
        QuestionFactory(topic=TopicFactory(exam=exam))
    with on_commit(execute=True):
        forget_exams(exam.pk for exam in exams)
    with django_assert_num_queries(1):
        assert exams[-1].title in client.get(reverse("home")).text
    with django_assert_num_queries(0):
        client.get(reverse("home"))


def test_blueprint_shows_topics_in_order_with_weight_counts_and_mock_shape(
    client, django_assert_num_queries, on_commit
):
    exam = ExamFactory(mock_question_count=65, mock_duration_minutes=90, mock_pass_percent=72)
    second = TopicFactory(exam=exam, title="Networking", weight=Decimal("37.5"), position=2)
    first = TopicFactory(exam=exam, title="Identity", weight=Decimal("62.5"), position=1)
    QuestionFactory.create_batch(3, topic=first)
    QuestionFactory(topic=second, status="draft")
    with django_assert_num_queries(2):
        response = client.get(reverse("exam_detail", args=[exam.slug]))
    with django_assert_num_queries(0):
        assert without_nonces(
            client.get(reverse("exam_detail", args=[exam.slug])).text
        ) == without_nonces(response.text)
    assert response.status_code == 200
    text = response.text
    assert text.index("Identity") < text.index("Networking")
    assert "62.5%" in text
    assert "37.5%" in text
    row = text[text.index("Networking") :]
    assert "<td>0</td>" in row[:600]  # drafts are not counted
    for fact in ("<dd>65</dd>", "<dd>90 minutes</dd>", "<dd>72%</dd>"):
        assert fact in text
    TopicFactory.create_batch(6, exam=exam, weight=0)
    with on_commit(execute=True):
        forget_exams([exam.pk])
    with django_assert_num_queries(2):
        client.get(reverse("exam_detail", args=[exam.slug]))


def test_exam_without_mock_shape_hides_it(client):
    exam = ExamFactory(mock_question_count=None, mock_duration_minutes=None, mock_pass_percent=None)
    response = client.get(reverse("exam_detail", args=[exam.slug]))
    assert "The real exam" not in response.text


def test_topic_page_lists_published_questions_paginated(client, django_assert_num_queries):
    topic = TopicFactory(description="All about **keys**.")
    questions = [
        QuestionFactory(topic=topic, position=n, stem=f"Stem **number** {n:02d}") for n in range(30)
    ]
    QuestionFactory(topic=topic, status="draft", stem="A hidden draft")
    url = reverse("topic_detail", args=[topic.exam.slug, topic.slug])
    with django_assert_num_queries(3):
        response = client.get(url)
    assert response.status_code == 200
    assert "All about <strong>keys</strong>." in response.text
    assert "Stem number 00" in response.text  # markdown stripped from the list
    assert "Stem number 24" in response.text
    assert "Stem number 25" not in response.text
    assert "A hidden draft" not in response.text
    assert f'href="{questions[0].get_absolute_url()}"' in response.text
    assert "Page 1 of 2" in response.text
    with django_assert_num_queries(0):
        assert without_nonces(client.get(url, {"page": 1}).text) == without_nonces(response.text)
    with django_assert_num_queries(1):  # the topic is known: only the second page's rows
        second = client.get(url, {"page": 2})
    assert "Stem number 29" in second.text
    assert "Stem number 00" not in second.text
    assert "Page 2 of 2" in second.text


def test_topic_page_with_bad_page_number_shows_a_page(client):
    topic = TopicFactory()
    QuestionFactory(topic=topic)
    url = reverse("topic_detail", args=[topic.exam.slug, topic.slug])
    assert client.get(url, {"page": "x"}).status_code == 200
    assert client.get(url, {"page": "999"}).status_code == 200


@pytest.mark.parametrize(
    "url",
    ["/exams/no-such-exam/", "/exams/no-such-exam/no-topic/", "/questions/no-such-question/"],
)
def test_unknown_slugs_get_a_friendly_404(client, url):
    response = client.get(url)
    assert response.status_code == 404
    assert "We could not find that page" in response.text
    assert "Browse the practice exams" in response.text


def test_topic_of_another_exam_is_404(client):
    topic = TopicFactory()
    other = ExamFactory()
    assert client.get(reverse("topic_detail", args=[other.slug, topic.slug])).status_code == 404
