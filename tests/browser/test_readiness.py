"""A learner practises a whole exam of the demo bank and finds their readiness: the pass
likelihood with its range, the topics weakest first, and "Practice this" starting an adaptive
quiz on the weakest one; in a real browser, on a phone-sized screen too."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from progress.accounts.models import User
from questions.bank.document_import import import_document
from questions.bank.formats.courseiva import read_document
from questions.models import Exam
from tests.banks import DEMO_BANK
from tests.browser.parts import answer_shown
from tests.factories import record_answer

pytestmark = pytest.mark.django_db(transaction=True)


def sign_in(page, user):
    page.goto("/accounts/login/")
    page.get_by_label("Username or e-mail").fill(user.username)
    page.get_by_label("Password").fill("a long and unusual passphrase 42")
    page.get_by_role("button", name="Sign in").click()


def test_readiness_after_practice_and_practice_the_weakest_topic(page):
    import_document(read_document(DEMO_BANK))
    exam = Exam.objects.get(code="CSA")
    user = User.objects.create_user(
        "reader", "reader@example.com", "a long and unusual passphrase 42"
    )
    sign_in(page, user)

    topics = list(exam.topics.order_by("position"))
    weakest = topics[-1]
    # One answer on a question page: the dashboard says what is missing instead of a number.
    first = topics[0].questions.published().order_by("-position").first()
    page.goto(f"/questions/{first.uid}/")
    answer_shown(page)
    page.get_by_role("button", name="Check answer").click()
    expect(page.locator("#result")).to_be_visible()
    page.goto("/progress/")
    expect(page.get_by_text(f"answer 4 more questions in {topics[0].title}")).to_be_visible()
    expect(page.get_by_text(f"answer 5 more questions in {weakest.title}")).to_be_visible()
    expect(page.get_by_text("likely to pass")).to_have_count(0)
    # Right on every topic but the last, wrong there: five answers a topic.
    for topic in topics:
        for question in topic.questions.published().order_by("position")[:5]:
            record_answer(user, question, right=topic != weakest)

    page.goto("/progress/")
    section = page.get_by_role("region", name=f"Readiness: {exam.code} {exam.title}")
    expect(section).to_be_visible()
    expect(
        section.get_by_text(re.compile(r"\d+% likely to pass a mock exam today"))
    ).to_be_visible()
    expect(section.get_by_text(re.compile(r"80% range \d+\u2013\d+%")).first).to_be_visible()
    expect(
        section.get_by_role("img", name=re.compile("Expected percent right per topic"))
    ).to_be_visible()
    first_row = section.locator("tbody tr").first
    expect(first_row.get_by_role("rowheader")).to_have_text(weakest.title)

    # Keyboard: "Practice this" on the weakest topic starts an adaptive quiz of that topic.
    button = section.get_by_role("button", name=f"Practice {weakest.title}")
    button.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_text(re.compile(r"Question 1 of \d+"))).to_be_visible()
    expect(page.get_by_text(weakest.title).first).to_be_visible()

    # On a phone the readiness table and chart fit the screen.
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto("/progress/")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375, f"the page scrolls sideways on a phone ({width} px)"


def test_a_learner_sets_a_goal_reads_why_and_starts_todays_practice(page):
    import_document(read_document(DEMO_BANK))
    exam = Exam.objects.get(code="CSA")
    user = User.objects.create_user(
        "planner", "planner@example.com", "a long and unusual passphrase 42"
    )
    for topic in exam.topics.order_by("position"):
        for question in topic.questions.published().order_by("position")[:5]:
            record_answer(user, question, right=question.position % 2 == 0)
    sign_in(page, user)

    page.goto("/progress/goal/")
    page.get_by_label("Your exam").select_option(label=str(exam))
    page.get_by_label("When you mean to sit it").fill(
        (timezone.localdate() + timedelta(days=21)).isoformat()
    )
    page.get_by_label("Questions a day you can do").fill("12")
    page.get_by_role("button", name="Set my goal").click()

    # The pass likelihood opens to say what it rests on and what moved it.
    page.goto("/progress/")
    section = page.get_by_role("region", name=f"Readiness: {exam.code} {exam.title}")
    why = section.locator("details.why").first
    why.locator("summary").click()
    expect(why.get_by_text("What it rests on")).to_be_visible()
    expect(
        why.get_by_text(f"{exam.topics.count() * 5} answers to {exam.code} questions")
    ).to_be_visible()
    expect(why.get_by_text(re.compile("moved your readiness most"))).to_be_visible()

    # The plan, from the goal; today's practice from there.
    page.get_by_role("link", name=re.compile(f"Your plan to .* for {exam.code}")).click()
    expect(page.get_by_role("heading", name=f"Your plan for {exam.code}")).to_be_visible()
    expect(page.get_by_text(re.compile(r"\d+% likely to pass on"))).to_be_visible()
    expect(
        page.get_by_role("img", name="Questions the plan gives each topic until the exam")
    ).to_be_visible()
    expect(page.get_by_role("table", name=re.compile("questions per topic"))).to_be_visible()
    page.set_viewport_size({"width": 375, "height": 800})
    page.reload()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375, f"the plan scrolls sideways on a phone ({width} px)"
    page.get_by_role("button", name="Start today's practice: 12 questions").click()
    expect(page.get_by_text("Question 1 of 12")).to_be_visible()
