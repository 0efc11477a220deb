"""Browser tests: Playwright driving Debian's Chromium (/usr/bin/chromium) against the live
test server. `make test` installs Chromium with apt when it is missing."""

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# Flags for a sandboxed CI machine without network: no first-run, no background traffic.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# Playwright's sync API runs an event loop in the test thread; the ORM calls the tests make
# around it are plain synchronous calls and safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if Path(CHROMIUM).exists() or shutil.which(CHROMIUM):
        return
    skip = pytest.mark.skip(
        reason=f"{CHROMIUM} not found: install Debian's chromium (scripts/ensure-chromium as root)"
    )
    for item in items:
        if "tests/browser" in str(item.fspath):
            item.add_marker(skip)


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser, live_server):
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(15_000)
    page = context.new_page()
    yield page
    context.close()
