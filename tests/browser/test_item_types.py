"""Questions made of parts in a real browser: a yes/no series, blanks and drop-downs in an
exhibit, answered as a person does, on a desktop and on a phone."""

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
