"""A visitor answers a question in a real browser: with htmx, without JavaScript, by keyboard
alone, and on a phone."""

import pytest
from playwright.sync_api import expect

from tests.factories import QuestionFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def question():
    return QuestionFactory(
        uid="sec-0001",
        stem="Which control stops **credential stuffing**?",
        explanation="Multi-factor authentication defeats replayed passwords.",
        options=[False, True, False],
    )


def option_label(page, index: int):
    return page.locator(f"label[for=choice-{index}]")


def test_answer_appears_without_a_page_load(page, question):
    page.goto(question.get_absolute_url())
    expect(page.get_by_text("Multi-factor authentication defeats")).to_have_count(0)
    page.evaluate("window.sameDocument = true")
    option_label(page, 2).click()
    page.get_by_role("button", name="Check answer").click()
    expect(page.get_by_role("heading", name="Correct", exact=True)).to_be_visible()
    expect(page.get_by_text("Multi-factor authentication defeats")).to_be_visible()
    expect(page.locator(".option-result")).to_have_count(3)
    assert page.evaluate("window.sameDocument") is True  # no reload happened
    # Focus moves to the result, for keyboard and screen-reader users.
    assert page.evaluate("document.activeElement.id") == "result"


@pytest.mark.parametrize("debug", [False, True], ids=["production", "make-run"])
def test_checking_without_a_choice_explains_why(page, question, settings, debug):
    # With DEBUG on (make run), django-htmx adds a helper that replaces the whole document
    # with the body of a 400: the error must still show in place, on the styled page.
    settings.DEBUG = debug
    page.goto(question.get_absolute_url())
    page.evaluate("window.sameDocument = true")
    page.get_by_role("button", name="Check answer").click()
    expect(page.get_by_role("alert")).to_have_text("Choose an answer before checking it.")
    assert page.evaluate("window.sameDocument") is True
    expect(page.get_by_role("link", name="Courseiva")).to_be_visible()  # the page is whole
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    # Focus moves to the reason, so that keyboard and screen-reader users meet it.
    assert page.evaluate("document.activeElement.id") == "answer-error"
    expect(page.get_by_text("Multi-factor authentication defeats")).to_have_count(0)


def test_the_same_flow_works_without_javascript(browser, live_server, question):
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(question.get_absolute_url())
        option_label(page, 1).click()
        with page.expect_navigation():
            page.get_by_role("button", name="Check answer").click()
        expect(page.get_by_role("heading", name="Not quite")).to_be_visible()
        expect(page.get_by_text("Your choice: wrong")).to_be_visible()
        expect(page.get_by_text("Multi-factor authentication defeats")).to_be_visible()
    finally:
        context.close()


def test_keyboard_only(page, question):
    page.goto(question.get_absolute_url())
    for _ in range(25):  # Tab from the top of the page to the first option
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.name") == "choice":
            break
    assert page.evaluate("document.activeElement.id") == "choice-1"
    page.keyboard.press("ArrowDown")  # radios: arrows move and select
    assert page.evaluate("document.activeElement.id") == "choice-2"
    assert page.locator("#choice-2").is_checked()
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Check answer"
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Correct", exact=True)).to_be_visible()
    assert page.evaluate("document.activeElement.id") == "result"


def test_select_all_that_apply_on_a_phone(page):
    question = QuestionFactory(
        kind="multiple", stem="Which two settings harden SSH?", options=[True, False, True]
    )
    page.set_viewport_size({"width": 375, "height": 740})
    page.goto(question.get_absolute_url())
    expect(page.get_by_text("Select all that apply.")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    option_label(page, 1).click()
    option_label(page, 2).click()
    page.get_by_role("button", name="Check answer").click()
    expect(page.get_by_text("You chose 1 of the 2 correct options and 1 wrong one")).to_be_visible()
    expect(page.get_by_text("You missed this one")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 375


def test_after_an_answer_the_page_names_the_answer_and_leads_on(page, question):
    following = QuestionFactory(
        topic=question.topic, uid="sec-0002", position=question.position + 1,
        stem="Which log shows failed sign-ins?", options=[True, False],
    )  # fmt: skip
    page.goto(question.get_absolute_url())
    expect(
        page.get_by_role("heading", name=f"{question.topic.exam.code} {question.topic.title} "
                         "Practice Question")
    ).to_be_visible()  # fmt: skip
    expect(page.get_by_role("heading", name="About these practice questions")).to_be_visible()
    expect(page.get_by_text("Written and reviewed by")).to_be_visible()
    option_label(page, 1).click()
    page.get_by_role("button", name="Check answer").click()
    expect(page.get_by_role("heading", name="Not quite")).to_be_visible()
    correct = question.options.get(is_correct=True)
    expect(page.locator(".correct-answer")).to_contain_text(f"Correct answer: B. {correct.text}")
    expect(page.get_by_role("heading", name="Why this is correct")).to_have_count(1)
    expect(page.get_by_role("heading", name="Why it\u2019s wrong here")).to_have_count(2)
    page.get_by_role("link", name="Next question").click()
    expect(page.get_by_text("Which log shows failed sign-ins?")).to_be_visible()
    assert page.url.endswith(following.get_absolute_url())
