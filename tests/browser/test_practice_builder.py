"""A learner builds a practice on a phone (375 px): two topics, a time limit, the answers at
the end; sees how many questions the choices give before starting; answers, pauses, comes
back where they were, and finishes to see the answers. Everything found by role and label."""

import re

import pytest
from playwright.sync_api import expect

from progress.practice.models import Attempt, Quiz
from tests.factories import ExamFactory, QuestionFactory, TopicFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 375, "height": 740}


def test_build_a_timed_practice_with_the_answers_at_the_end_on_a_phone(page):
    exam = ExamFactory(code="BLD")
    for position, title in enumerate(("Storage", "Serving", "Security")):
        QuestionFactory.create_batch(
            3, topic=TopicFactory(exam=exam, title=title, position=position)
        )
    UserFactory(username="builder")
    page.set_viewport_size(PHONE)
    page.goto("/accounts/login/")
    page.get_by_label("Username or e-mail").fill("builder")
    page.locator("#id_password").fill("correct horse battery staple")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(lambda url: "/accounts/login/" not in url)

    page.goto(exam.get_absolute_url())
    page.get_by_role("link", name="Build your own practice").click()
    expect(page.get_by_role("heading", name="Build a practice: BLD")).to_be_visible()
    expect(page.get_by_role("status").filter(has_text="These choices give")).to_have_text(
        "These choices give 9 questions."
    )
    page.get_by_label("How many questions").fill("4")
    page.get_by_role("checkbox", name="Storage").check()
    page.get_by_role("checkbox", name="Security").check()
    # The count follows the choices as they change (htmx).
    expect(page.get_by_text("These choices give 6 questions.")).to_be_visible()
    page.get_by_label("Time limit in minutes").fill("15")
    page.get_by_role("radio", name="At the end, all together").check()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.get_by_role("button", name="Start").click()

    expect(page.get_by_text("Question 1 of 4")).to_be_visible()
    timer = page.get_by_role("timer")
    expect(timer).to_contain_text(re.compile(r"1[45]:\d\d"))
    page.get_by_role("button", name="Hide timer").click()
    expect(timer).to_be_hidden()
    page.get_by_role("button", name="Show timer").click()
    expect(timer).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]

    page.get_by_role("radio").first.check()
    page.get_by_role("button", name="Save answer").click()
    expect(page.get_by_text("Question 2 of 4")).to_be_visible()
    expect(page.get_by_text("Not quite")).to_have_count(0)
    expect(page.get_by_text("Correct answer")).to_have_count(0)

    page.get_by_role("button", name="Pause (the clock stops)").click()
    expect(page.get_by_text(re.compile(r"Quiz paused with 1[45]:\d\d left"))).to_be_visible()
    expect(page.get_by_text("(paused)")).to_be_visible()
    page.get_by_role("link", name="Continue").click()
    expect(page.get_by_text("Question 2 of 4")).to_be_visible()

    page.get_by_role("radio").first.check()
    page.get_by_role("button", name="Save answer").click()
    expect(page.get_by_text("Question 3 of 4")).to_be_visible()
    assert not Attempt.objects.exists()
    page.get_by_role("button", name="Finish and see the answers").click()
    expect(page.get_by_role("heading", name=re.compile(r"^Quiz results: BLD"))).to_be_visible()
    expect(page.locator(".quiz-row")).to_have_count(4)
    expect(page.get_by_text("Not answered")).to_have_count(2)
    quiz = Quiz.objects.get(learner__username="builder")
    assert quiz.is_finished
    assert quiz.answered_count == 2
    assert Attempt.objects.filter(quiz_item__quiz=quiz).count() == 2
    page.get_by_role("link", name="Review every question").click()
    expect(
        page.get_by_role("heading", name=re.compile(r"^Question \d: not answered"))
    ).to_have_count(2)
    expect(page.get_by_role("heading", name="Explanation")).to_have_count(4)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_a_practice_timer_announces_five_minutes_left_as_the_mock_exams_does(page):
    from datetime import timedelta

    from django.utils import timezone

    topic = TopicFactory()
    QuestionFactory.create_batch(2, topic=topic)
    learner = UserFactory(username="timed")
    quiz = Quiz.objects.start(
        learner=learner, exam=topic.exam, topic=None, selection="any", length=2,
        time_limit=timedelta(minutes=30),
    )  # fmt: skip
    assert quiz is not None
    # As if 25 minutes of the 30 had run, and a few seconds more.
    Quiz.objects.filter(pk=quiz.pk).update(
        clock_since=timezone.now() - timedelta(minutes=25, seconds=-2)
    )
    page.goto("/accounts/login/")
    page.get_by_label("Username or e-mail").fill("timed")
    page.locator("#id_password").fill("correct horse battery staple")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(lambda url: "/accounts/login/" not in url)
    page.goto(f"/progress/quizzes/{quiz.code}/1/")
    expect(page.get_by_role("alert")).to_have_text("About 5 minutes left.", timeout=8_000)
