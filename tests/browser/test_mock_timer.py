"""The mock exam's timer for everyone (WCAG 2.2.1): warnings at a tenth of the time and at
five minutes, announced by a live region, and a timer that can be hidden while it runs."""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from progress.mocks.models import MockExam
from tests.factories import ExamFactory, QuestionFactory, TopicFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def sit(page, minutes, seconds_left):
    exam = ExamFactory(mock_question_count=2, mock_duration_minutes=minutes, mock_pass_percent=70)
    QuestionFactory.create_batch(2, topic=TopicFactory(exam=exam, weight=100))
    learner = UserFactory(username="sitter")
    mock = MockExam.objects.start(learner=learner, exam=exam)
    MockExam.objects.filter(pk=mock.pk).update(
        deadline=timezone.now() + timedelta(seconds=seconds_left)
    )
    page.goto("/accounts/login/")
    page.get_by_label("Username or e-mail").fill("sitter")
    page.locator("#id_password").fill("correct horse battery staple")
    page.get_by_role("button", name="Sign in").click()
    page.goto(f"/progress/mocks/{mock.code}/1/")
    return mock


def test_a_tenth_of_the_time_left_is_announced(page):
    sit(page, minutes=100, seconds_left=602)  # a tenth: 600 seconds
    alert = page.get_by_role("alert")
    expect(alert).to_have_text("A tenth of your time is left: 10 minutes.", timeout=8_000)


def test_five_minutes_left_is_announced_once_per_sitting(page):
    mock = sit(page, minutes=30, seconds_left=302)
    expect(page.get_by_role("alert")).to_have_text("About 5 minutes left.", timeout=8_000)
    page.goto(f"/progress/mocks/{mock.code}/2/")  # another question: not said again
    page.wait_for_timeout(1500)
    expect(page.get_by_role("alert")).to_be_hidden()


def test_the_timer_can_be_hidden_and_keeps_running(page):
    mock = sit(page, minutes=30, seconds_left=1200)
    timer = page.get_by_role("timer")
    expect(timer).to_be_visible()
    page.get_by_role("button", name="Hide timer").click()
    expect(timer).to_be_hidden()
    expect(page.get_by_role("button", name="Show timer")).to_have_attribute("aria-pressed", "true")
    page.goto(f"/progress/mocks/{mock.code}/2/")  # hidden on the next question too
    expect(page.get_by_role("timer")).to_be_hidden()
    page.wait_for_timeout(2100)
    page.get_by_role("button", name="Show timer").click()
    value = page.locator(".timer-value").text_content() or ""
    minutes, seconds = (int(part) for part in value.split(":"))
    assert minutes * 60 + seconds <= 1198  # it ran while hidden
