"""Readiness on the learner's page, the exam page and the topic page: the pass likelihood with
its range, readiness per topic weakest first, what is still missing, and the adaptive quiz."""

import re

import pytest
from django.urls import reverse

from progress.mocks.models import MockExam
from progress.practice.models import Quiz
from tests.factories import (
    ExamFactory,
    TopicFactory,
    UserFactory,
    answer_topic,
    storage_and_serving_exam,
)

pytestmark = pytest.mark.django_db

HOME = reverse("progress_home")


@pytest.fixture
def exam():
    return storage_and_serving_exam()


def topic_of(exam, title):
    return exam.topics.get(title=title)


def readiness_rows(text):
    """(topic, percent) of the readiness table, in the order shown."""
    return [
        (title, int(percent))
        for title, percent in re.findall(
            r'<th scope="row"><a href="[^"]+">([^<]+)</a></th>\s*<td>(\d+)%', text
        )
    ]


def test_no_answers_no_readiness_yet(client, learner, exam):
    text = client.get(HOME).text
    assert "Readiness:" not in text
    assert "likely to pass" not in text


def test_few_answers_say_what_is_missing(client, learner, exam):
    answer_topic(learner, topic_of(exam, "Storage"), 2, right=True)
    text = client.get(HOME).text
    assert f"Readiness: {exam.code}" in text
    assert "likely to pass" not in text
    assert "answer 3 more questions in Storage" in text
    assert "answer 5 more questions in Serving" in text


def test_many_answers_show_the_pass_likelihood_and_the_weakest_topic_first(client, learner, exam):
    answer_topic(learner, topic_of(exam, "Storage"), 8, right=True)
    answer_topic(learner, topic_of(exam, "Serving"), 8, right=False)
    text = client.get(HOME).text
    assert "more question" not in text
    likelihood = re.search(r"<strong>(\d+)%</strong> likely to pass a mock exam today", text)
    assert likelihood is not None
    expected = re.search(
        r"Expected score (\d+)% <span class=\"range\">\(80% range (\d+)\u2013(\d+)%\)", text
    )
    assert expected is not None
    score, low, high = map(int, expected.groups())
    assert low <= score <= high
    rows = readiness_rows(text)
    assert [title for title, _ in rows] == ["Serving", "Storage"]
    assert rows[0][1] < 50 < rows[1][1]
    # Half the exam known, half not: a score near 50%, well short of the 70% pass mark.
    assert int(likelihood.group(1)) < 30
    # "Practice this" starts an adaptive quiz on that topic; the chart has its title.
    assert 'name="selection" value="adaptive"' in text
    assert 'aria-label="Practice Serving"' in text
    assert "Expected percent right per topic, weakest first" in text
    assert re.search(
        r"<desc id=\"readiness-[^\"]+-desc\">Serving: \d+% \(\d+ to \d+%\); Storage", text
    )


def test_a_strong_learner_is_likely_to_pass_and_a_weak_one_is_not(client, exam):
    strong, weak = UserFactory(), UserFactory()
    for topic in exam.topics.all():
        answer_topic(strong, topic, 10, right=True)
        answer_topic(weak, topic, 10, right=False)

    def likelihood(user):
        client.force_login(user)
        text = client.get(HOME).text
        return int(re.search(r"<strong>(\d+)%</strong> likely to pass", text).group(1))

    assert likelihood(strong) > 80
    assert likelihood(weak) < 10


def test_the_dashboard_query_count_does_not_grow_with_answers(
    client, learner, exam, django_assert_num_queries
):
    answer_topic(learner, topic_of(exam, "Storage"), 1, right=True)
    # session with user, analytics (2), quizzes (2), reviews, mocks, goals; readiness: the
    # learner's topics, the fit in use, the learner's row, the exam's topics, its questions;
    # the explanations: the latest mocks, the last visits, the questions that moved readiness,
    # the visit recorded
    with django_assert_num_queries(17):
        client.get(HOME)
    for topic in exam.topics.all():
        answer_topic(learner, topic, 12, right=True)
    other = ExamFactory()
    answer_topic(learner, TopicFactory(exam=other), 0, right=True)
    MockExam.objects.start(learner=learner, exam=exam).submit()  # all left unanswered
    with django_assert_num_queries(17):
        assert "likely to pass" in client.get(HOME).text


def test_another_learners_readiness_is_never_shown(client, learner, exam):
    other = UserFactory()
    answer_topic(other, topic_of(exam, "Storage"), 8, right=True)
    answer_topic(other, topic_of(exam, "Serving"), 8, right=True)
    assert "Readiness:" not in client.get(HOME).text
    exam_page = client.get(reverse("exam_detail", args=[exam.slug])).text
    assert "Your pass likelihood today" not in exam_page
    assert exam_page.count("not practised yet") == 2
    storage = topic_of(exam, "Storage")
    topic_page = client.get(reverse("topic_detail", args=[exam.slug, storage.slug])).text
    assert re.search(
        r'Your readiness on this topic:\s*<span class="muted">not practised yet', topic_page
    )


def test_exam_and_topic_pages_show_the_learners_readiness(client, learner, exam):
    storage = topic_of(exam, "Storage")
    answer_topic(learner, storage, 6, right=True)
    answer_topic(learner, topic_of(exam, "Serving"), 6, right=True)
    exam_page = client.get(reverse("exam_detail", args=[exam.slug])).text
    assert "Your pass likelihood today: <strong>" in exam_page
    assert "Your readiness</th>" in exam_page
    topic_page = client.get(reverse("topic_detail", args=[exam.slug, storage.slug])).text
    assert re.search(r"Your readiness on this topic:\s*<strong>\d+%</strong>", topic_page)
    assert "from 6 answers" in topic_page
    # A visitor sees the blueprint without any of it.
    client.logout()
    public = client.get(reverse("exam_detail", args=[exam.slug])).text
    assert "Your readiness" not in public
    assert "pass likelihood" not in public


def test_an_exam_page_asks_for_what_is_missing(client, learner, exam):
    answer_topic(learner, topic_of(exam, "Storage"), 5, right=True)
    text = client.get(reverse("exam_detail", args=[exam.slug])).text
    assert "answer 5 more in Serving" in text


def test_the_adaptive_quiz_goes_where_practice_helps_most(client, learner, exam):
    storage, serving = topic_of(exam, "Storage"), topic_of(exam, "Serving")
    answer_topic(learner, storage, 10, right=True)
    answer_topic(learner, serving, 10, right=False)
    response = client.post(
        reverse("quiz_start"), {"exam": exam.slug, "length": "10", "selection": "adaptive"}
    )
    assert response.status_code == 302
    quiz = Quiz.objects.get(learner=learner)
    topics = [item.question.topic.title for item in quiz.items.select_related("question__topic")]
    assert len(topics) == 10
    # Equal weights, but Serving is far weaker: it gets most of the places.
    assert topics.count("Serving") >= 7


def test_an_adaptive_topic_quiz_stays_in_its_topic(client, learner, exam):
    serving = topic_of(exam, "Serving")
    response = client.post(
        reverse("quiz_start"),
        {"exam": exam.slug, "topic": serving.slug, "length": "10", "selection": "adaptive"},
    )
    assert response.status_code == 302
    quiz = Quiz.objects.get(learner=learner)
    assert quiz.item_count == 10
    assert set(quiz.items.values_list("question__topic", flat=True)) == {serving.pk}
