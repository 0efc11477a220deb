"""A mock exam through a dropped connection: answers given offline are kept in the browser,
the learner moves between questions, and everything reaches the server once when the
connection returns; with the time up meanwhile, the late answers are refused, saying so."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from progress.mocks.models import MockExam, MockItem
from progress.practice.models import Attempt
from tests import items
from tests.factories import ExamFactory, QuestionFactory, TopicFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

KEPT = "Every question of this sitting is kept in this browser"


def sign_in(page, username):
    page.goto("/accounts/login/")
    page.get_by_label("Username or e-mail").fill(username)
    page.locator("#id_password").fill("correct horse battery staple")
    page.get_by_role("button", name="Sign in").click()


def sitting(page, questions=5, seconds_left=None):
    exam = ExamFactory(mock_question_count=questions, mock_duration_minutes=30)
    QuestionFactory.create_batch(questions, topic=TopicFactory(exam=exam, weight=100))
    learner = UserFactory(username="sitter")
    mock = MockExam.objects.start(learner=learner, exam=exam)
    if seconds_left is not None:
        deadline = timezone.now() + timedelta(seconds=seconds_left)
        MockExam.objects.filter(pk=mock.pk).update(deadline=deadline)
    sign_in(page, "sitter")
    page.goto(f"/progress/mocks/{mock.code}/")
    expect(page.get_by_text(f"Question 1 of {questions}")).to_be_visible()
    # The sitting's pages are kept before the connection is cut.
    expect(page.get_by_text(KEPT)).to_be_visible()
    return mock


def choose(page, option=2):
    """Ticks an option of the question shown; returns its key."""
    page.locator(f"label[for=choice-{option}]").click()
    return page.locator(f"#choice-{option}").get_attribute("value")


def stored(mock):
    return {
        item.position + 1: item.chosen_keys
        for item in MockItem.objects.filter(mock=mock).order_by("position")
    }


def test_three_answers_given_offline_are_stored_once_when_it_returns(page):
    mock = sitting(page)
    status = page.locator("#save-status")
    served = {}
    page.wait_for_timeout(1500)  # the kept pages' countdowns are a second or more behind now
    cut_at = timezone.now().timestamp() * 1000
    page.context.set_offline(True)
    chosen = {}
    for number in (1, 2, 3):
        chosen[number] = choose(page)
        expect(status).to_contain_text("Not saved yet")
        expect(page.get_by_role("button", name="Retry")).to_be_visible()
        page.get_by_role("button", name="Save and next").click()
        expect(page.get_by_text(f"Question {number + 1} of 5")).to_be_visible()
        form = page.locator("#mock-answer")
        assert form.get_attribute("data-kept-copy") is not None  # marked by the worker
        served[number + 1] = int(form.get_attribute("data-served-at"))
    # Each page came from the browser's copy, kept before the connection was cut...
    assert all(at < cut_at for at in served.values()), served
    # ...counting down from the server's deadline, not from the seconds it was kept with.
    kept = page.evaluate(
        "caches.keys().then(k => caches.open(k[0])).then(c => c.match(location.href))"
        ".then(r => r.text())"
    )
    kept_seconds = int(re.search(r'data-seconds-left="(\d+)"', kept).group(1))
    assert int(page.locator(".timer").get_attribute("data-seconds-left")) < kept_seconds
    # ...and shows the answers kept in the browser: the navigator and the count.
    expect(page.get_by_role("button", name="Question 3: answered")).to_be_visible()
    expect(page.locator("#answered-count")).to_have_text("3 answered")
    expect(status).to_have_text(re.compile(r"Not saved yet: questions 1, 2 and 3, no connection"))
    assert stored(mock) == {1: [], 2: [], 3: [], 4: [], 5: []}
    # Back to question 2 offline: the answer given is shown as chosen.
    page.get_by_role("button", name="Question 2: answered").click()
    expect(page.get_by_text("Question 2 of 5")).to_be_visible()
    expect(page.locator("#choice-2")).to_be_checked()

    page.context.set_offline(False)
    expect(status).to_have_text(re.compile(r"^Questions 1, 2 and 3 saved at "))
    expect(status).to_have_attribute("role", "status")  # announced, politely
    expect(page.get_by_role("button", name="Retry")).to_be_hidden()
    assert stored(mock) == {1: [chosen[1]], 2: [chosen[2]], 3: [chosen[3]], 4: [], 5: []}

    # A reload sends nothing again, and shows what the server holds.
    page.reload()
    expect(page.locator("#choice-2")).to_be_checked()
    expect(page.locator("#answered-count")).to_have_text("3 answered")
    page.get_by_role("button", name="Review and submit").first.click()
    expect(page.get_by_text("2 unanswered")).to_be_visible()
    page.get_by_role("button", name="Submit the exam").click()
    expect(page.get_by_role("heading", name=re.compile("score report"))).to_be_visible()
    answers = Attempt.objects.filter(mock_item__mock=mock)
    assert sorted(answers.values_list("mock_item__position", flat=True)) == [0, 1, 2]
    # The report reached, nothing of the sitting stays in the browser's caches.
    page.wait_for_function("caches.keys().then(k => k.length === 0)")


def test_answers_that_reach_the_server_after_the_deadline_are_refused_saying_so(page):
    mock = sitting(page)
    first = choose(page)
    expect(page.locator("#save-status")).to_contain_text("Question 1 saved at")
    page.get_by_role("button", name="Save and next").click()
    expect(page.get_by_text("Question 2 of 5")).to_be_visible()
    expect(page.locator("#save-status")).to_contain_text("Question 1 saved at")  # said again
    page.context.set_offline(True)
    for number in (2, 3):
        choose(page)
        page.get_by_role("button", name="Save and next").click()
        expect(page.get_by_text(f"Question {number + 1} of 5")).to_be_visible()
    # The time runs out while the connection is down.
    MockExam.objects.filter(pk=mock.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    page.context.set_offline(False)
    status = page.locator("#save-status")
    expect(status).to_contain_text(
        "Time ran out before the answers to questions 2 and 3 reached the server: "
        "they were not saved."
    )
    expect(status.get_by_role("link", name="See your score report")).to_be_visible()
    assert stored(mock) == {1: [first], 2: [], 3: [], 4: [], 5: []}
    mock.refresh_from_db()
    assert mock.submitted_at == mock.deadline
    assert Attempt.objects.filter(mock_item__mock=mock).count() == 1  # in time, kept


def test_a_page_whose_time_runs_out_offline_stays_to_say_what_was_lost(page):
    mock = sitting(page, questions=2, seconds_left=12)
    page.context.set_offline(True)
    choose(page)
    expect(page.locator("#save-status")).to_contain_text("Not saved yet: question 1")
    # At zero the page does not leave for a report it cannot reach: it stays, and says what
    # became of the answer once the connection returns.
    expect(page.locator(".timer-value")).to_have_text("0:00", timeout=15_000)
    page.wait_for_url(re.compile("#time-up$"))
    # The countdown shows whole seconds: the server's deadline may be a moment later still.
    mock.refresh_from_db()
    page.wait_for_timeout(max(0, (mock.deadline - timezone.now()).total_seconds()) * 1000 + 300)
    page.context.set_offline(False)
    expect(page.locator("#save-status")).to_contain_text(
        "Time ran out before the answer to question 1 reached the server: it was not saved."
    )
    page.locator("#save-status").get_by_role("link", name="See your score report").click()
    expect(page.get_by_role("heading", name=re.compile("score report"))).to_be_visible()
    assert stored(mock) == {1: [], 2: []}


def test_retry_by_keyboard_sends_an_answer_the_server_did_not_get(page):
    mock = sitting(page, questions=2)
    # The server cannot be reached (the browser still thinks it is online).
    page.route("**/progress/mocks/*/1/", lambda route: route.abort())
    chosen = choose(page)
    status = page.locator("#save-status")
    expect(status).to_contain_text("Not saved yet: question 1")
    page.unroute("**/progress/mocks/*/1/")
    page.get_by_role("button", name="Retry").focus()
    page.keyboard.press("Enter")
    expect(status).to_contain_text("Question 1 saved at")
    assert stored(mock)[1] == [chosen]


def test_a_reload_or_a_new_tab_resumes_with_the_answers_not_sent_yet(page):
    mock = sitting(page, questions=3)

    def unreachable(route):  # the server takes pages but no save reaches it
        if route.request.method == "POST":
            route.abort()
        else:
            route.continue_()

    page.context.route("**/progress/mocks/**", unreachable)
    chosen = choose(page, option=3)
    expect(page.locator("#save-status")).to_contain_text("Not saved yet: question 1")
    page.reload()  # served by the server, which does not have the answer
    expect(page.locator("#choice-3")).to_be_checked()
    expect(page.get_by_role("button", name="Question 1: answered")).to_be_visible()
    expect(page.locator("#save-status")).to_contain_text("Not saved yet: question 1")
    assert stored(mock)[1] == []
    page.context.unroute("**/progress/mocks/**")
    other = page.context.new_page()  # a new tab sends it
    other.goto(f"/progress/mocks/{mock.code}/2/")
    expect(other.locator("#save-status")).to_contain_text("Question 1 saved at")
    expect(other.get_by_role("button", name="Question 1: answered")).to_be_visible()
    assert stored(mock)[1] == [chosen]


def test_the_submission_sends_what_waits_before_it(page):
    mock = sitting(page, questions=2)
    page.context.route(
        "**/progress/mocks/*/1/",
        lambda route: route.abort() if route.request.method == "POST" else route.continue_(),
    )
    chosen = choose(page)
    expect(page.locator("#save-status")).to_contain_text("Not saved yet: question 1")
    page.context.unroute("**/progress/mocks/*/1/")
    page.goto(f"/progress/mocks/{mock.code}/submit/")
    # Sent on the way, and the summary counts it.
    expect(page.get_by_role("heading", name="1 unanswered")).to_be_visible()
    page.get_by_role("button", name="Submit the exam").click()
    expect(page.get_by_role("heading", name=re.compile("score report"))).to_be_visible()
    assert stored(mock)[1] == [chosen]
    assert Attempt.objects.filter(mock_item__mock=mock).count() == 1


def test_an_answer_the_server_refuses_says_why_and_keeps_the_learner_there(page):
    topic = TopicFactory()
    question = items.fill_in(topic)
    QuestionFactory(topic=topic)
    learner = UserFactory(username="sitter")
    mock = MockExam.objects.start(learner=learner, exam=topic.exam)
    number = mock.items.get(question=question).position + 1
    sign_in(page, "sitter")
    page.goto(f"/progress/mocks/{mock.code}/{number}/")
    status = page.locator("#save-status")
    page.get_by_label("Latency").fill("forty")
    page.keyboard.press("Tab")  # leaving the blank is a change: it is saved
    expect(status).to_contain_text(f"Question {number}: ")
    expect(status).to_contain_text("Nothing was saved.")
    page.get_by_role("button", name=re.compile("^Save and")).click()
    expect(page.get_by_text(f"Question {number} of 2")).to_be_visible()  # still here
    expect(status).to_be_focused()
    page.get_by_label("Latency").fill("40")
    page.keyboard.press("Tab")
    expect(status).to_contain_text(f"Question {number} saved at")
    assert len(MockItem.objects.get(mock=mock, position=number - 1).chosen_keys) == 1


def test_without_javascript_the_buttons_still_save_and_say_so(browser, live_server):
    exam = ExamFactory(mock_question_count=2, mock_duration_minutes=30)
    QuestionFactory.create_batch(2, topic=TopicFactory(exam=exam, weight=100))
    learner = UserFactory(username="plain")
    mock = MockExam.objects.start(learner=learner, exam=exam)
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    page = context.new_page()
    sign_in(page, "plain")
    page.goto(f"/progress/mocks/{mock.code}/1/")
    chosen = choose(page)
    page.get_by_role("button", name="Save and next").click()
    expect(page.get_by_text("Question 2 of 2")).to_be_visible()
    expect(
        page.get_by_text(re.compile(r"Question 1 saved at \d\d:\d\d:\d\d UTC\."))
    ).to_be_visible()
    assert stored(mock)[1] == [chosen]
    context.close()


def test_signing_out_drops_the_kept_pages(page):
    sitting(page, questions=2)
    assert page.evaluate("caches.keys().then(k => k.length)") == 1
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_function("caches.keys().then(k => k.length === 0)")
    registrations = page.evaluate("navigator.serviceWorker.getRegistrations().then(r => r.length)")
    assert registrations == 0
    assert page.evaluate("localStorage.length") == 0
