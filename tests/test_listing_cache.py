"""The catalog, blueprint and topic pages are read once per version of the bank's listings:
visitors share one rendering, signed-in learners get their own parts around cached content,
and every edit shows on the next request."""

from decimal import Decimal
from unittest import mock

import pytest
from django.contrib.messages import constants
from django.contrib.messages.storage.base import Message
from django.contrib.messages.storage.cookie import CookieStorage
from django.test import Client, RequestFactory
from django.urls import reverse

from questions.models import PageChange, Question, Topic
from questions.pages import snapshot as pages
from tests.admin_forms import exam_post, question_post
from tests.banks import make_bank
from tests.factories import ExamFactory, QuestionFactory, StaffFactory, TopicFactory, UserFactory
from tests.nonces import without_nonces

pytestmark = pytest.mark.django_db


@pytest.fixture
def topic():
    topic = TopicFactory(title="Identity", exam__title="Cloud Security Associate")
    for n in range(3):
        QuestionFactory(topic=topic, position=n, stem=f"Listed stem {n}")
    return topic


@pytest.fixture
def staff():
    staff = Client()
    staff.force_login(StaffFactory())
    return staff


@pytest.fixture
def commit(django_capture_on_commit_callbacks):
    """Runs what an edit does once its transaction commits (a test's never does)."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


def urls(topic: Topic) -> list[str]:
    return [
        reverse("home"),
        reverse("exam_detail", args=[topic.exam.slug]),
        reverse("topic_detail", args=[topic.exam.slug, topic.slug]),
    ]


# One rendering for every visitor --------------------------------------------------------------


def test_visitors_are_served_without_a_query_however_long_the_list(
    client, topic, django_assert_num_queries, commit
):
    for url in urls(topic):
        first = client.get(url)
        with django_assert_num_queries(0):
            again = client.get(url)
        assert again.status_code == 200
        assert without_nonces(again.text) == without_nonces(first.text)
        assert "Cookie" in again["Vary"]
    QuestionFactory.create_batch(40, topic=topic)
    TopicFactory.create_batch(5, exam=topic.exam)
    with commit():
        pages.forget_exams([topic.exam_id])
    # Built again once (a fixed few queries), then shared.
    for url, built in zip(urls(topic), [1, 2, 3], strict=True):
        with django_assert_num_queries(built):
            client.get(url)
        with django_assert_num_queries(0):
            client.get(url)


def test_a_listing_page_seen_again_is_read_from_this_process(client, topic, monkeypatch):
    """Its key holds the listings' version: with Redis, the page itself costs no second
    round trip once this process has it (only the version is read)."""
    from courseiva.lib import shared_html

    firsts = [client.get(url).text for url in urls(topic)]
    shared = mock.Mock(wraps=shared_html.cache)
    monkeypatch.setattr(shared_html, "cache", shared)
    for url, first in zip(urls(topic), firsts, strict=True):
        again = client.get(url)
        assert without_nonces(again.text) == without_nonces(first)
    shared.get.assert_not_called()


def test_a_learner_gets_cached_content_with_their_own_parts(
    client, topic, django_assert_num_queries, commit
):
    url = reverse("topic_detail", args=[topic.exam.slug, topic.slug])
    client.get(url)  # a visitor fills the cache
    learner = UserFactory(username="ada-learner")
    client.force_login(learner)
    # session with user, and the learner's own parts (their readiness, the quiz form's counts):
    # the listed content is the cached one
    with django_assert_num_queries(7):
        response = client.get(url)
    assert "Sign out" in response.text
    assert "Practice this topic" in response.text
    assert "Listed stem 0" in response.text
    QuestionFactory.create_batch(30, topic=topic)
    with commit():
        pages.forget_exams([topic.exam_id])
    Client().get(url)
    with django_assert_num_queries(7):
        assert "Page 1 of 2" in client.get(url).text


def test_a_visitor_sees_nothing_of_a_learner_who_came_first(client, topic):
    learner = Client()
    learner.force_login(UserFactory(username="ada-learner"))
    for url in urls(topic):
        assert "Sign out" in learner.get(url).text  # the learner's own page, first
        text = client.get(url).text
        assert "Sign out" not in text
        assert "ada-learner" not in text
        assert "csrfmiddlewaretoken" not in text
        assert "Your readiness" not in text
        assert "Sign in" in text
        assert client.cookies.get("csrftoken") is None  # nothing of the visit to protect


def test_a_learner_never_gets_the_visitors_page(client, topic):
    for url in urls(topic):
        assert "Sign out" not in client.get(url).text  # cached for visitors
    client.force_login(UserFactory())
    for url in urls(topic):
        text = client.get(url).text
        assert "Sign out" in text
        assert "Start practising free" not in text


def test_a_visitor_with_a_message_gets_it_and_shares_nothing(client, topic):
    url = reverse("home")
    shared = client.get(url).text
    storage = CookieStorage(RequestFactory().get(url))
    client.cookies[CookieStorage.cookie_name] = storage._encode(
        [Message(constants.INFO, "Your exam date was saved.")]
    )
    assert "Your exam date was saved." in client.get(url).text
    assert without_nonces(Client().get(url).text) == without_nonces(shared)


def test_request_headers_never_reach_the_shared_page(topic):
    for url in urls(topic):
        poisoned = Client().get(
            url,
            SCRIPT_NAME="/evil",
            HTTP_X_FORWARDED_HOST="evil.example",
            HTTP_X_FORWARDED_PREFIX="/evil",
        )
        assert poisoned.status_code == 200
        assert "evil" not in poisoned.text
        assert "evil" not in Client().get(url).text


def test_page_numbers_are_checked_against_the_list(client, topic):
    QuestionFactory.create_batch(30, topic=topic)
    url = reverse("topic_detail", args=[topic.exam.slug, topic.slug])
    assert "Page 2 of 2" in client.get(url, {"page": "999"}).text
    assert "Page 1 of 2" in client.get(url, {"page": "x"}).text
    assert "Page 1 of 2" in client.get(url, {"page": "01"}).text
    assert "Page 2 of 2" in client.get(url, {"page": "2"}).text


def test_unknown_slugs_stay_404(client, topic):
    assert client.get(reverse("exam_detail", args=["no-such-exam"])).status_code == 404
    missing = reverse("topic_detail", args=[topic.exam.slug, "no-such-topic"])
    assert client.get(missing).status_code == 404
    assert client.get(missing).status_code == 404


# An edit shows on the next request ------------------------------------------------------------


def test_publishing_and_withdrawing_show_on_the_next_request(client, topic, staff, commit):
    draft = QuestionFactory(topic=topic, status="draft", position=9, stem="Fresh draft stem")
    topic_url = reverse("topic_detail", args=[topic.exam.slug, topic.slug])
    assert "Fresh draft stem" not in client.get(topic_url).text
    assert "3 published questions" in client.get(reverse("home")).text
    changelist = reverse("admin:questions_question_changelist")
    with commit():
        staff.post(changelist, {"action": "publish", "_selected_action": [draft.pk]})
    assert "Fresh draft stem" in client.get(topic_url).text
    assert "4 published questions" in client.get(reverse("home")).text
    with commit():
        staff.post(changelist, {"action": "send_to_review", "_selected_action": [draft.pk]})
    assert "Fresh draft stem" not in client.get(topic_url).text
    assert "3 published questions" in client.get(reverse("home")).text


def test_an_edited_stem_shows_in_the_topic_list(client, topic, staff, commit):
    question = Question.objects.get(topic=topic, stem="Listed stem 0")
    url = reverse("topic_detail", args=[topic.exam.slug, topic.slug])
    assert "Listed stem 0" in client.get(url).text
    options = [
        {"id": o.pk, "text": o.text, "correct": o.is_correct, "why": o.rationale.why}
        for o in question.options.select_related("rationale")
    ]
    data = question_post(
        question, topic=topic, uid=question.uid, status="published", options=options,
        stem="Rewritten listed stem", position="0",
    )  # fmt: skip
    with commit():
        response = staff.post(reverse("admin:questions_question_change", args=[question.pk]), data)
    assert response.status_code == 302
    text = client.get(url).text
    assert "Rewritten listed stem" in text
    assert "Listed stem 0" not in text


def test_a_renamed_topic_shows_on_the_next_request(client, topic, staff, commit):
    for url in urls(topic):
        client.get(url)
    data = {
        "exam": topic.exam_id,
        "slug": topic.slug,
        "title": "Identity and access",
        "weight": "100",
        "description": "",
        "position": "0",
    }
    with commit():
        response = staff.post(reverse("admin:questions_topic_change", args=[topic.pk]), data)
    assert response.status_code == 302
    for url in urls(topic)[1:]:
        assert "Identity and access" in client.get(url).text


def test_an_exam_edit_shows_on_the_next_request(client, topic, staff, commit):
    exam = topic.exam
    for url in urls(topic):
        client.get(url)
    exam.title = "Cloud Security Professional"
    data = exam_post(
        exam,
        [{"id": topic.pk, "slug": topic.slug, "title": "Identity", "weight": "100", "position": 0}],
    )
    with commit():
        response = staff.post(reverse("admin:questions_exam_change", args=[exam.pk]), data)
    assert response.status_code == 302
    for url in urls(topic)[:2]:
        assert "Cloud Security Professional" in client.get(url).text


def test_deleting_an_empty_exam_or_topic_shows_on_the_next_request(client, topic, staff, commit):
    empty = ExamFactory(title="Soon gone exam")
    spare = TopicFactory(exam=topic.exam, title="Soon gone topic", weight=Decimal(0))
    assert "Soon gone exam" in client.get(reverse("home")).text
    exam_url = reverse("exam_detail", args=[topic.exam.slug])
    assert "Soon gone topic" in client.get(exam_url).text
    with commit():
        staff.post(reverse("admin:questions_exam_delete", args=[empty.pk]), {"post": "yes"})
        staff.post(reverse("admin:questions_topic_delete", args=[spare.pk]), {"post": "yes"})
    assert "Soon gone exam" not in client.get(reverse("home")).text
    assert "Soon gone topic" not in client.get(exam_url).text


def test_an_import_shows_on_the_next_request(client, commit):
    from questions.bank.document_import import import_document

    bank = make_bank(2)
    import_document(bank)
    assert "Generated exam" in client.get(reverse("home")).text
    bank["exams"][0]["title"] = "A retitled imported exam"
    with commit():
        import_document(bank)
    assert "A retitled imported exam" in client.get(reverse("home")).text


def test_another_process_edit_shows_after_the_next_poll(client, topic):
    """With each process's own cache, an edit in another process reaches this one through
    its PageChange row at the next poll (with Redis, at once: the version is shared)."""
    url = reverse("home")
    assert "Retitled elsewhere" not in client.get(url).text
    type(topic.exam).objects.filter(pk=topic.exam_id).update(title="Retitled elsewhere")
    PageChange.objects.create(uid=pages.LISTINGS_CHANGE)
    assert "Retitled elsewhere" not in client.get(url).text  # before the poll
    poll_due = pages._Poll.next_at + 1
    with mock.patch("questions.pages.snapshot.time.monotonic", return_value=poll_due):
        assert "Retitled elsewhere" in client.get(url).text
