"""Answering questions made of parts in the browser as a person does: dragging with the mouse,
tapping, choosing in drop-downs and boxes found by their labels."""

import re
from typing import Any

from playwright.sync_api import expect

PLACE_HERE = re.compile(r"drop or tap here|drop a step here")


def drag(page: Any, source: Any, target: Any, where: str = "middle") -> None:
    """Drags `source` onto `target` with the mouse, in small steps, letting go on its
    middle, or its top or bottom quarter."""
    start, end = source.bounding_box(), target.bounding_box()
    assert start is not None
    assert end is not None
    page.mouse.move(start["x"] + start["width"] / 2, start["y"] + start["height"] / 2)
    page.mouse.down()
    fraction = {"top": 0.25, "middle": 0.5, "bottom": 0.75}[where]
    page.mouse.move(end["x"] + end["width"] / 2, end["y"] + end["height"] * fraction, steps=8)
    page.mouse.up()


def step(page: Any, text: str) -> Any:
    """A step of a build list, wherever it is (its name says its place once placed)."""
    return page.get_by_role("button", name=re.compile(rf"(^|: ){re.escape(text)}$"))


def your_order(page: Any) -> Any:
    return page.get_by_role("list", name=re.compile(r"^Your order"))


def slot(page: Any, prompt: str) -> Any:
    """A matching prompt's place for its answer."""
    return page.get_by_role("button", name=re.compile(rf"^{re.escape(prompt)}: "))


def answer_every_part(page: Any) -> None:
    """Gives every part of the question shown an answer, not necessarily the right one: taps
    the steps into the order and answers onto the prompts (the alternative to dragging),
    says Yes to every statement, writes 1 in every blank and typed gap, takes every
    drop-down's first choice."""
    # The build list and the matching are drawn by a script: wait until it ran (the page
    # shows its text before).
    page.wait_for_load_state()
    if page.locator(".build-list").count():
        for _ in range(page.locator(".arrange-step").count()):
            zone = page.get_by_role("button", name=PLACE_HERE)
            if not zone.is_visible():
                break
            page.locator(".build-pool .arrange-step").first.click()
            zone.click()
    for prompt_slot in page.locator(".match-slot").all():
        page.locator(".match-answer-item:not([hidden]) .match-answer").first.click()
        prompt_slot.click()
    for statement in page.locator(".parts-yesno fieldset").all():
        statement.get_by_text("Yes", exact=True).click()
    for blank in page.locator(".parts-fillin input").all():
        blank.fill("1")
    for gap in page.locator("select.gap").all():
        gap.select_option(index=1)
    for typed in page.locator("input.gap-typed").all():
        typed.fill("1")


def answer_shown(page: Any, option: int = 1) -> None:
    """Answers the question shown, whatever its type, as a person would: ticks the option
    numbered `option` of a choice question (right or wrong), or gives every part of another
    an answer (answer_every_part)."""
    page.locator("form.answer-form").wait_for()
    if page.locator("input[name=choice]").count():
        page.locator(f"label[for=choice-{option}]").click()
    else:
        answer_every_part(page)


def answer_fields(page: Any) -> list[list[str]]:
    """The (name, value) pairs the answer form would post, without its CSRF token: to see
    that an answer saved is the one shown again."""
    fields: list[list[str]] = page.locator("form.answer-form").evaluate(
        "form => [...new FormData(form)].filter(([name]) => name !== 'csrfmiddlewaretoken')"
    )
    return fields


def check(page: Any) -> None:
    page.get_by_role("button", name="Check answer").click()
    expect(page.locator("#result")).to_be_visible()
