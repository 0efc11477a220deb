"""The home page says what Courseiva is and leads to practice; a new learner's first step is
choosing their exam and its date, which the home page and the dashboard then count down."""

import datetime

import pytest
from django.urls import reverse
from django.utils import timezone

from progress.readiness.models import StudyGoal
from questions.pages.snapshot import forget_exams
from tests.factories import ExamFactory, QuestionFactory, TopicFactory, UserFactory

pytestmark = pytest.mark.django_db

HOME = reverse("home")
GOAL = reverse("study_goal")


@pytest.fixture
def exam():
    exam = ExamFactory(code="SAA-C03", title="Solutions Architect Associate", slug="saa-c03")
    QuestionFactory.create_batch(3, topic=TopicFactory(exam=exam))
    return exam


def in_days(days: int) -> str:
    return (timezone.localdate() + datetime.timedelta(days=days)).isoformat()


def test_a_visitor_learns_what_courseiva_is_and_is_asked_to_sign_up(client, exam):
    text = client.get(HOME).text
    assert "Practise for your IT certification" in text
    assert f'href="{reverse("signup")}">Start practising free</a>' in text
    assert "3 published questions in 1 topic" in text
    assert f'href="{exam.get_absolute_url()}">Practise SAA-C03</a>' in text
    assert "Your first step" not in text


def test_a_new_learner_is_offered_the_first_step(client, learner, exam):
    text = client.get(HOME).text
    assert "Your first step: which exam, and when?" in text
    assert f'<option value="{exam.pk}">' in text
    assert 'type="date"' in text
    assert "Start practising free" not in text


def test_setting_the_goal_leads_to_the_exam(client, learner, exam):
    response = client.post(
        GOAL, {"exam": exam.pk, "target_date": in_days(42), "daily_questions": 25}
    )
    assert response.status_code == 302
    assert response.url == exam.get_absolute_url()
    goal = StudyGoal.objects.get(learner=learner)
    assert (goal.exam, goal.days_left, goal.daily_questions) == (exam, 42, 25)
    page = client.get(response.url).text
    assert "Your goal: SAA-C03 on" in page
    assert "in 42 days" in page
    # The home page and the dashboard now count the days down.
    assert "SAA-C03 Solutions Architect Associate</a>:\n      in 42 days" in client.get(HOME).text
    assert "in 42 days" in client.get(reverse("progress_home")).text
    # Setting it again for the same exam replaces it.
    client.post(GOAL, {"exam": exam.pk, "target_date": in_days(10), "daily_questions": 25})
    assert StudyGoal.objects.get(learner=learner).days_left == 10


@pytest.mark.parametrize(
    ("days", "message"),
    [(-1, "That date has passed"), (800, "within the next two years")],
)
def test_a_goal_date_in_the_past_or_too_far_is_refused(client, learner, exam, days, message):
    response = client.post(GOAL, {"exam": exam.pk, "target_date": in_days(days)})
    assert response.status_code == 400
    assert message in response.text
    assert not StudyGoal.objects.exists()


def test_a_goal_needs_an_exam_that_exists(client, learner):
    response = client.post(GOAL, {"exam": 999, "target_date": in_days(5), "daily_questions": 5})
    assert response.status_code == 400
    assert not StudyGoal.objects.exists()


def test_goals_are_personal(client, learner, exam):
    other = UserFactory()
    StudyGoal.objects.create(
        learner=other, exam=exam, target_date=timezone.localdate() + datetime.timedelta(days=3)
    )
    text = client.get(HOME).text
    assert "in 3 days" not in text
    assert "Your first step" in text


def test_visitors_are_sent_to_sign_in_to_set_a_goal(client, exam):
    response = client.get(GOAL)
    assert response.status_code == 302
    assert reverse("login") in response.url


def test_the_home_page_query_count_does_not_grow_with_exams(
    client, learner, django_assert_num_queries, django_capture_on_commit_callbacks
):
    ExamFactory()
    # session with user, the exams with their counts, the learner's goals, the exams to choose
    with django_assert_num_queries(4) as few:
        client.get(HOME)
    exams = [QuestionFactory(topic=TopicFactory(exam=ExamFactory())).topic.exam for _ in range(5)]
    with django_capture_on_commit_callbacks(execute=True):
        forget_exams(exam.pk for exam in exams)
    with django_assert_num_queries(len(few)):
        client.get(HOME)
    # The exams with their counts are the same for everyone: read once, until the next edit.
    with django_assert_num_queries(len(few) - 1):
        client.get(HOME)
