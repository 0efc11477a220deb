"""Questions made of parts in a real browser: a yes/no series, blanks and drop-downs in an
exhibit, answered as a person does, on a desktop and on a phone; a case study beside its
question on a desktop, a tap away on a phone."""

import re

import pytest
from playwright.sync_api import expect

from questions.models import Scoring
from tests import items
from tests.browser.parts import check
from tests.factories import TopicFactory

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 375, "height": 740}


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
