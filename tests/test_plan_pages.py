"""The study plan as a learner meets it: the plan page to the exam date, "Today's practice"
one click away on /progress/, and the quiz it starts (reviews due first, then the topics the
plan chose)."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from progress.practice.models import Quiz, ReviewCard, Selection
from progress.readiness.models import StudyGoal
from tests.factories import UserFactory, answer_topic, record_answer, storage_and_serving_exam

pytestmark = pytest.mark.django_db

HOME = reverse("progress_home")


@pytest.fixture
def exam():
    return storage_and_serving_exam()


def goal(learner, exam, days=30, per_day=8):
    return StudyGoal.objects.create(
        learner=learner,
        exam=exam,
        target_date=timezone.localdate() + timedelta(days=days),
        daily_questions=per_day,
    )


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def plan_url(exam):
    return reverse("study_plan", args=[exam.slug])


def test_without_a_goal_the_plan_asks_for_the_date(client, learner, exam):
    for response in (
        client.get(plan_url(exam)),
        client.post(reverse("today_practice", args=[exam.slug])),
    ):
        assert response.status_code == 302
        assert response.url == f"{reverse('study_goal')}?exam={exam.slug}"
    assert not Quiz.objects.exists()


def test_another_learners_goal_gives_no_plan(client, learner, exam):
    goal(UserFactory(), exam)
    assert client.get(plan_url(exam)).status_code == 302


def test_the_plan_page_shows_the_projection_and_the_days(client, learner, exam):
    for topic in exam.topics.all():
        answer_topic(learner, topic, 6, right=True)
    goal(learner, exam, days=10, per_day=8)
    page = text_of(client.get(plan_url(exam)).text)
    assert "10 days to" in page
    assert re.search(r"\d+% likely to pass on .+ if you follow this plan \(today: \d+%\)", page)
    assert re.search(r"Projected score \d+% \(80% range \d+\u2013\d+%\)", page)
    assert "Start today's practice: 8 questions" in page
    # Seven days shown, the other three folded away; every day holds the day's budget.
    days = re.findall(
        r"<th scope=\"row\">([^<]+)</th>\s*<td>(\d+)</td>", client.get(plan_url(exam)).text
    )
    assert len(days) == 10
    assert days[0][0] == "Today"
    assert {count for _, count in days} == {"8"}
    assert "The 3 days after that" in page


def test_the_projection_waits_for_answers_in_every_topic(client, learner, exam):
    answer_topic(learner, exam.topics.get(title="Storage"), 6, right=True)
    goal(learner, exam)
    page = text_of(client.get(plan_url(exam)).text)
    assert "likely to pass on" not in page
    assert "answer 5 more questions in Serving" in page


def test_todays_practice_is_one_click_from_progress(client, learner, exam):
    for topic in exam.topics.all():
        answer_topic(learner, topic, 6, right=True)
    goal(learner, exam, per_day=6)
    home = client.get(HOME).text
    assert f'action="{reverse("today_practice", args=[exam.slug])}"' in home
    assert "Today's practice" in home
    response = client.post(reverse("today_practice", args=[exam.slug]))
    quiz = Quiz.objects.get(learner=learner)
    assert response.url == reverse("quiz_item", args=[quiz.code, 1])
    assert quiz.selection == Selection.PLAN
    assert quiz.item_count == 6
    # New practice goes to questions never answered while there are some.
    answered = set(learner.attempts.values_list("question_id", flat=True))
    assert not answered & set(quiz.items.values_list("question_id", flat=True))


def test_reviews_due_come_into_todays_practice(client, learner, exam):
    storage = exam.topics.get(title="Storage")
    for topic in exam.topics.all():
        answer_topic(learner, topic, 6, right=True)
    missed = storage.questions.order_by("pk")[7]
    record_answer(learner, missed, False)  # a wrong answer schedules a review
    ReviewCard.objects.filter(learner=learner).update(due=timezone.now() - timedelta(hours=1))
    assert ReviewCard.objects.due(learner).count() == 1
    goal(learner, exam, per_day=5)
    client.post(reverse("today_practice", args=[exam.slug]))
    quiz = Quiz.objects.get(learner=learner)
    assert quiz.item_count == 5
    assert missed.pk in set(quiz.items.values_list("question_id", flat=True))
    page = text_of(client.get(plan_url(exam)).text)
    assert "Storage" in page
    assert "(1 review)" in page


def test_todays_practice_is_a_post(client, learner, exam):
    goal(learner, exam)
    assert client.get(reverse("today_practice", args=[exam.slug])).status_code == 405


def test_the_plan_page_query_count_does_not_grow(client, learner, exam, django_assert_num_queries):
    for topic in exam.topics.all():
        answer_topic(learner, topic, 5, right=True)
    mine = goal(learner, exam, days=7)
    # session with user, goal; standing: topics, fit, state, exam topics, questions; reviews due,
    # questions answered per topic
    with django_assert_num_queries(9):
        client.get(plan_url(exam))
    for topic in exam.topics.all():
        answer_topic(learner, topic, 11, right=False)
    StudyGoal.objects.filter(pk=mine.pk).update(target_date=mine.target_date + timedelta(days=53))
    with django_assert_num_queries(9):
        assert "The 53 days after that" in client.get(plan_url(exam)).text
