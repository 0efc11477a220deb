"""Questions made of parts in a real browser: an ordering by mouse drag, by keyboard alone and
without JavaScript; a matching by drag and by taps; a yes/no series, blanks and drop-downs; a
case study on a phone and on a desktop; a mock exam, where a drag or a key saves the answer."""

import re

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from progress.mocks.models import MockExam
from questions.models import Scoring
from tests import items
from tests.browser.parts import PLACE_HERE, check, drag, slot, step, your_order
from tests.factories import TopicFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 375, "height": 740}


def answer(page, name: str):
    """A matching's answer in the pool."""
    return page.get_by_role("button", name=name, exact=True)


def order_is(page, *texts: str) -> None:
    """The build list's order, as a screen reader names its steps."""
    steps = your_order(page).get_by_role("button")
    expect(steps).to_have_count(len(texts))
    for place, text in enumerate(texts, 1):
        expect(steps.nth(place - 1)).to_have_accessible_name(f"Place {place}: {text}")


def test_an_ordering_by_mouse_drag(page):
    question = items.ordering(steps=4)
    page.goto(question.get_absolute_url())
    for text in ("Step 2", "Step 4", "Step 1"):
        drag(page, step(page, text), page.get_by_role("button", name=PLACE_HERE))
    order_is(page, "Step 2", "Step 4", "Step 1")
    # Onto a step's upper half: before it; its lower half: after it.
    drag(page, step(page, "Step 1"), step(page, "Step 2"), "top")
    order_is(page, "Step 1", "Step 2", "Step 4")
    drag(page, step(page, "Step 3"), step(page, "Step 2"), "bottom")
    order_is(page, "Step 1", "Step 2", "Step 3", "Step 4")
    expect(page.get_by_role("status")).to_have_text("Step 3 dropped, place 3 of 4.")
    # A step dragged back out of the order, and in again.
    drag(page, step(page, "Step 4"), page.get_by_text("Steps", exact=True))
    order_is(page, "Step 1", "Step 2", "Step 3")
    drag(page, step(page, "Step 4"), page.get_by_role("button", name=PLACE_HERE))
    check(page)
    expect(page.get_by_role("heading", name="Correct", exact=True)).to_be_visible()
    expect(page.get_by_text("You put 4 of the 4 steps in their place.")).to_be_visible()


def tab_to(page, target) -> None:
    """Presses Tab until `target` has the focus."""
    for _ in range(40):
        page.keyboard.press("Tab")
        if target.evaluate("element => element === document.activeElement"):
            return
    raise AssertionError("Tab never reached it")


def test_an_ordering_by_keyboard_alone(page):
    question = items.ordering(steps=3, extra=1)
    page.goto(question.get_absolute_url())
    status = page.get_by_role("status")
    tab_to(page, step(page, "Step 2"))
    page.keyboard.press("Space")
    expect(status).to_contain_text("Step 2 picked up, left out of your order.")
    page.keyboard.press("ArrowRight")
    expect(status).to_have_text("Step 2, place 1 of 3.")
    page.keyboard.press("Space")
    expect(status).to_have_text("Step 2 put down, place 1 of 3.")

    tab_to(page, step(page, "Step 1"))
    page.keyboard.press("Enter")
    page.keyboard.press("ArrowRight")
    expect(status).to_have_text("Step 1, place 2 of 3.")
    page.keyboard.press("ArrowUp")
    expect(status).to_have_text("Step 1, place 1 of 3.")
    page.keyboard.press("Enter")
    order_is(page, "Step 1", "Step 2")

    # Escape puts a step back where it was picked up.
    tab_to(page, step(page, "Distractor 1"))
    page.keyboard.press("Space")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowUp")
    expect(status).to_have_text("Distractor 1, place 2 of 3.")
    page.keyboard.press("Escape")
    expect(status).to_have_text("Move cancelled: Distractor 1 is back, left out of your order.")
    order_is(page, "Step 1", "Step 2")

    tab_to(page, step(page, "Step 3"))
    page.keyboard.press("Space")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Space")
    order_is(page, "Step 1", "Step 2", "Step 3")
    tab_to(page, page.get_by_role("button", name="Check answer"))
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Correct", exact=True)).to_be_visible()
    assert page.evaluate("document.activeElement.id") == "result"


def test_an_ordering_without_javascript(browser, live_server):
    question = items.ordering(steps=3, extra=1)
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(question.get_absolute_url())
        expect(your_order(page)).to_have_count(0)  # the selects, as they come
        page.get_by_label("Step 1", exact=True).select_option("Place 1")
        page.get_by_label("Step 2", exact=True).select_option("Place 3")
        page.get_by_label("Step 3", exact=True).select_option("Place 2")
        with page.expect_navigation():
            page.get_by_role("button", name="Check answer").click()
        expect(page.get_by_role("heading", name="Not quite")).to_be_visible()
        expect(page.get_by_text("You put 1 of the 3 steps in their place.")).to_be_visible()
    finally:
        context.close()


def test_an_answer_sent_back_with_a_reason_keeps_the_build_list(page):
    question = items.ordering(steps=3)
    page.goto(question.get_absolute_url())
    drag(page, step(page, "Step 1"), page.get_by_role("button", name=PLACE_HERE))
    check_button = page.get_by_role("button", name="Check answer")
    check_button.click()
    expect(page.get_by_role("alert")).to_contain_text("Places 2, 3 are still empty")
    # htmx swapped the form in again: the list is built anew from what was sent.
    order_is(page, "Step 1")
    for text in ("Step 2", "Step 3"):
        drag(page, step(page, text), page.get_by_role("button", name=PLACE_HERE))
    check(page)
    expect(page.get_by_role("heading", name="Correct", exact=True)).to_be_visible()


def test_a_matching_by_drag(page):
    question = items.matching(prompts=3, distractors=1)
    page.goto(question.get_absolute_url())
    drag(page, answer(page, "Answer 2"), slot(page, "Prompt 1"))
    expect(slot(page, "Prompt 1")).to_have_accessible_name("Prompt 1: Answer 2")
    expect(answer(page, "Answer 2")).to_be_hidden()  # used once at most: out of the pool
    # A placed answer dragged on to another prompt moves there.
    drag(page, slot(page, "Prompt 1"), slot(page, "Prompt 2"))
    expect(slot(page, "Prompt 1")).to_have_accessible_name("Prompt 1: no answer yet")
    expect(slot(page, "Prompt 2")).to_have_accessible_name("Prompt 2: Answer 2")
    drag(page, answer(page, "Decoy 1"), slot(page, "Prompt 3"))
    drag(page, answer(page, "Answer 3"), slot(page, "Prompt 3"))
    expect(page.get_by_role("status")).to_have_text(
        "Answer 3 is on Prompt 3. Decoy 1 went back to the answers."
    )
    drag(page, answer(page, "Answer 1"), slot(page, "Prompt 1"))
    check(page)
    expect(page.get_by_role("heading", name="Correct", exact=True)).to_be_visible()


def test_a_matching_by_taps_on_a_phone(browser, live_server):
    question = items.matching(prompts=3, distractors=1)
    context = browser.new_context(base_url=live_server.url, viewport=PHONE, has_touch=True)
    page = context.new_page()
    try:
        page.goto(question.get_absolute_url())
        answer(page, "Decoy 1").tap()
        expect(page.get_by_role("button", name="Decoy 1", exact=True, pressed=True)).to_be_visible()
        slot(page, "Prompt 1").tap()
        expect(slot(page, "Prompt 1")).to_have_accessible_name("Prompt 1: Decoy 1")
        page.get_by_role("button", name="Clear Decoy 1 from Prompt 1").tap()
        expect(answer(page, "Decoy 1")).to_be_visible()
        for n in (3, 1, 2):
            answer(page, f"Answer {n}").tap()
            slot(page, f"Prompt {n}").tap()
        expect(page.get_by_role("status")).to_have_text("Answer 2 is on Prompt 2.")
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        check(page)
        expect(page.get_by_role("heading", name="Correct", exact=True)).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    finally:
        context.close()


def test_an_answer_that_fits_several_prompts_stays_in_the_pool(page):
    question = items.matching(prompts=2, distractors=0, reuse_answers=True)
    page.goto(question.get_absolute_url())
    for prompt in ("Prompt 1", "Prompt 2"):
        answer(page, "Answer 1").click()
        slot(page, prompt).click()
        expect(slot(page, prompt)).to_have_accessible_name(f"{prompt}: Answer 1")
    expect(answer(page, "Answer 1")).to_be_visible()
    check(page)
    expect(page.get_by_text("You got 1 of the 2 parts right.")).to_be_visible()


def test_a_yes_no_series_blanks_and_drop_downs(page):
    topic = TopicFactory()
    series = items.yes_no(topic, answers=(True, False, True))
    page.goto(series.get_absolute_url())
    for n in (1, 2, 3):
        page.get_by_role("group", name=f"{n}. Statement {n}").get_by_label("Yes").check()
    check(page)
    expect(page.get_by_role("heading", name="Not quite")).to_be_visible()
    expect(page.get_by_text("You got 2 of the 3 parts right.")).to_be_visible()
    wrong = page.locator(".part-breakdown > li").nth(1)
    expect(wrong).to_contain_text("Wrong")
    expect(wrong.get_by_role("definition").last).to_have_text("No")  # the right answer

    blanks = items.fill_in(topic)
    page.goto(blanks.get_absolute_url())
    page.get_by_label("Region").fill("iowa")
    latency = page.get_by_label("Latency")
    expect(latency).to_have_accessible_description("unit, if you give one: ms, milliseconds")
    latency.fill("41 ms")
    check(page)
    expect(page.get_by_role("heading", name="Correct", exact=True)).to_be_visible()

    # On a phone, a code exhibit wider than the screen scrolls in its own box.
    code = "listen_address: 0.0.0.0  # every interface of the host, IPv4 only\n"
    gaps = items.dropdown(
        topic, scoring=Scoring.PARTIAL, exhibit=f"```\n{code}mode: [[1]]\nretries: [[2]]\n```"
    )
    page.set_viewport_size(PHONE)
    page.goto(gaps.get_absolute_url())
    exhibit = page.locator(".exhibit pre")
    assert exhibit.evaluate("box => box.scrollWidth > box.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.get_by_label("Drop-down 1: Setting 1").select_option("Right 1")
    page.get_by_label("Drop-down 2: Setting 2").select_option("Wrong 2")
    check(page)
    expect(page.get_by_role("heading", name="Partly right: 50%")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


def test_a_mixed_exhibit_on_a_phone_without_javascript(browser, live_server):
    """A drop-down and two gaps typed in, each found by its accessible name."""
    question = items.mixed_dropdown(scoring=Scoring.PARTIAL)
    context = browser.new_context(
        base_url=live_server.url, viewport=PHONE, java_script_enabled=False
    )
    page = context.new_page()
    try:
        page.goto(question.get_absolute_url())
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        page.get_by_label("Drop-down 1: Storage class").select_option("Right 1")
        page.get_by_label("Blank 2: Region").fill("us-east1")
        latency = page.get_by_label("Blank 3: Latency")
        expect(latency).to_have_accessible_description("(unit: ms)")
        latency.fill("41 ms")
        with page.expect_navigation():
            page.get_by_role("button", name="Check answer").click()
        expect(page.get_by_role("heading", name="Partly right: 67%")).to_be_visible()
        expect(page.get_by_text("That region is in South Carolina.")).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    finally:
        context.close()


def test_a_case_study_is_one_tap_away_on_a_phone(browser, live_server):
    topic = TopicFactory()
    question = items.yes_no(topic, case_study=items.case_study(topic))
    context = browser.new_context(base_url=live_server.url, viewport=PHONE, has_touch=True)
    page = context.new_page()
    try:
        page.goto(question.get_absolute_url())
        scenario = page.get_by_role("heading", name="Case study: Contoso's branch offices")
        expect(scenario).not_to_be_in_viewport()
        page.get_by_role("link", name=re.compile("^Read the case study")).tap()
        expect(scenario).to_be_in_viewport()
        # Its table scrolls in its own box; the page does not scroll sideways.
        table = page.get_by_role("complementary", name=re.compile("^Case study")).get_by_role(
            "table"
        )
        assert table.evaluate("table => table.scrollWidth > table.clientWidth")
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        page.get_by_role("link", name="Back to the question").tap()
        expect(page.get_by_role("heading", level=1)).to_be_in_viewport()
        expect(scenario).not_to_be_in_viewport()
    finally:
        context.close()


def test_a_case_study_stays_beside_its_question_on_a_desktop(page):
    topic = TopicFactory()
    question = items.matching(topic, prompts=8, case_study=items.case_study(topic))
    page.set_viewport_size({"width": 1280, "height": 700})
    page.goto(question.get_absolute_url())
    article = page.get_by_role("article").bounding_box()
    scenario_box = page.get_by_role("complementary", name=re.compile("^Case study"))
    beside = scenario_box.bounding_box()
    assert article is not None
    assert beside is not None
    assert beside["x"] >= article["x"] + article["width"]  # to the right
    assert abs(beside["y"] - article["y"]) < 2  # at the same height
    assert beside["height"] <= page.viewport_size["height"]  # it scrolls on its own
    assert scenario_box.evaluate("box => box.scrollHeight > box.clientHeight")
    # Down the question, past its heading: the scenario stays in view.
    page.mouse.move(article["x"] + 20, 400)
    page.mouse.wheel(0, 300)
    scenario = page.get_by_role("heading", name="Case study: Contoso's branch offices")
    expect(scenario).to_be_in_viewport()
    expect(page.get_by_role("heading", level=1)).not_to_be_in_viewport()


def test_in_a_mock_exam_a_drag_or_a_key_saves_the_answer(page):
    topic = TopicFactory()
    items.ordering(topic, steps=3, case_study=items.case_study(topic))
    learner = UserFactory(username="sitter")
    mock = MockExam.objects.start(learner=learner, exam=topic.exam)
    page.goto(reverse("login"))
    page.get_by_label("Username or e-mail").fill("sitter")
    page.locator("#id_password").fill("correct horse battery staple")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(lambda url: "/accounts/login/" not in url)
    page.goto(reverse("mock_item", args=[mock.code, 1]))
    expect(page.get_by_role("complementary", name=re.compile("^Case study"))).to_be_visible()

    saved = page.locator("#save-status")
    drag(page, step(page, "Step 2"), page.get_by_role("button", name=PLACE_HERE))
    expect(saved).to_have_text(re.compile(r"^Question 1 saved at "))
    expect(page.get_by_role("button", name="Question 1: answered")).to_be_visible()
    step(page, "Step 1").focus()
    page.evaluate("document.querySelector('#save-status').textContent = ''")
    page.keyboard.press("Space")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowUp")
    page.keyboard.press("Space")
    expect(saved).to_have_text(re.compile(r"^Question 1 saved at "))

    page.reload()  # the saved answer, as the build list shows it
    order_is(page, "Step 1", "Step 2")
    assert len(mock.items.get().chosen_keys) == 2
