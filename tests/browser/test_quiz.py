"""A newcomer signs up (an e-mail, then the link mailed to it), practises a topic of the demo
bank, reads the summary and retries the questions they missed: the learner's main flow, in a
real browser."""

import pytest
from playwright.sync_api import expect

from questions.bank.document_import import import_document
from questions.bank.formats.courseiva import read_document
from questions.models import Topic
from tests.banks import DEMO_BANK
from tests.browser.accounts import sign_up_link
from tests.browser.parts import answer_shown

pytestmark = pytest.mark.django_db(transaction=True)


def test_sign_up_practise_five_questions_and_retry_the_missed(page):
    import_document(read_document(DEMO_BANK))
    topic = next(
        t
        for t in Topic.objects.select_related("exam").order_by("exam__position", "position")
        if t.questions.published().count() == 5
    )

    page.goto("/accounts/signup/")
    page.get_by_label("E-mail").fill("newlearner@example.com")
    page.get_by_role("button", name="Continue").click()
    expect(page.get_by_role("heading", name="Check your e-mail")).to_be_visible()
    page.goto(sign_up_link("newlearner@example.com"))
    page.get_by_label("Username").fill("newlearner")
    page.locator("#id_password1").fill("a long and unusual passphrase 42")
    page.locator("#id_password2").fill("a long and unusual passphrase 42")
    page.get_by_role("button", name="Create account").click()
    expect(page.get_by_role("heading", name="Your progress")).to_be_visible()

    page.goto(f"/exams/{topic.exam.slug}/{topic.slug}/")
    page.get_by_label("All").check()
    page.get_by_role("button", name="Practice this topic").click()

    for number in range(1, 6):
        expect(page.get_by_text(f"Question {number} of 5")).to_be_visible()
        answer_shown(page)  # the first option, or any answer to each part: some are wrong
        page.get_by_role("button", name="Check answer").click()
        expect(page.locator("#result")).to_be_visible()
        expect(page.get_by_text(f"right of {number} answered")).to_be_visible()
        if number < 5:
            page.get_by_role("link", name="Next question").click()
    page.get_by_role("link", name="See your results").click()

    expect(page.get_by_role("heading", name=f"Quiz results: {topic.title}")).to_be_visible()
    score = page.locator(".score").inner_text()
    right = int(score.split(" of ")[0])
    expect(page.locator(".quiz-row")).to_have_count(5)
    missed = 5 - right
    assert missed > 0, "the answers given to the demo topic are not all right"
    page.get_by_role("button", name=f"Retry the {missed} I missed").click()
    expect(page.get_by_text(f"Question 1 of {missed}")).to_be_visible()


@pytest.mark.parametrize(
    "viewport",
    [{"width": 1280, "height": 900}, {"width": 375, "height": 740}],
    ids=["desktop", "phone"],
)
def test_the_next_button_is_right_under_the_verdict(page, viewport):
    from progress.practice.models import Quiz
    from tests.factories import UserFactory

    import_document(read_document(DEMO_BANK))
    topic = Topic.objects.order_by("exam__position", "position").first()
    learner = UserFactory(username="quizzer")
    quiz = Quiz.objects.start(
        learner=learner, exam=topic.exam, topic=topic, selection="any", length=3
    )
    page.set_viewport_size(viewport)
    page.goto("/accounts/login/")
    page.get_by_label("Username or e-mail").fill("quizzer")
    page.locator("#id_password").fill("correct horse battery staple")
    page.get_by_role("button", name="Sign in").click()
    page.goto(f"/progress/quizzes/{quiz.code}/1/")
    answer_shown(page)
    page.get_by_role("button", name="Check answer").click()
    verdict = page.locator("#result-heading")
    expect(verdict).to_be_visible()
    # Without scrolling further than the answer's own focus did, the way on is on screen.
    next_link = page.get_by_role("link", name="Next question")
    box = next_link.bounding_box()
    assert box is not None
    assert box["y"] + box["height"] <= viewport["height"]
    assert box["y"] > verdict.bounding_box()["y"]


def test_a_quiz_can_be_stopped_from_its_header(page):
    from progress.practice.models import Quiz
    from tests.factories import UserFactory

    import_document(read_document(DEMO_BANK))
    topic = Topic.objects.order_by("exam__position", "position").first()
    learner = UserFactory(username="stopper")
    quiz = Quiz.objects.start(
        learner=learner, exam=topic.exam, topic=topic, selection="any", length=5
    )
    page.goto("/accounts/login/")
    page.get_by_label("Username or e-mail").fill("stopper")
    page.locator("#id_password").fill("correct horse battery staple")
    page.get_by_role("button", name="Sign in").click()
    page.goto(f"/progress/quizzes/{quiz.code}/1/")
    answer_shown(page)
    page.get_by_role("button", name="Check answer").click()
    expect(page.locator("#result")).to_be_visible()
    page.get_by_role("button", name="Stop this quiz").click()
    expect(page.get_by_text("Quiz stopped after 1 of 5")).to_be_visible()
    expect(page.get_by_text("You stopped this quiz after 1 of 5 questions.")).to_be_visible()
    expect(page.get_by_role("link", name="Continue the quiz")).to_have_count(0)
