"""Answering questions made of parts in the browser as a person does."""

from typing import Any

from playwright.sync_api import expect


def check(page: Any) -> None:
    page.get_by_role("button", name="Check answer").click()
    expect(page.locator("#result")).to_be_visible()
