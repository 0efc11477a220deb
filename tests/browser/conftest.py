"""Browser tests: Playwright driving Debian's Chromium (/usr/bin/chromium) against the live
test server. `make test` installs Chromium with apt when it is missing.

Every page of every test listens for Content-Security-Policy violations, enforced or (with
CSP_MODE=report-only) only reported, and a test during which any page had one fails: a page
that needs an inline script, style or handler the policy refuses is broken for our users."""

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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


# Runs in every page before its own scripts: the browser fires securitypolicyviolation at the
# document for each refused (or, report-only, reported) script, style, handler or source.
CSP_LISTENER = """
document.addEventListener("securitypolicyviolation", (event) => {
  window.cspViolation([
    event.disposition, event.effectiveDirective, "blocked " + (event.blockedURI || "?"),
    "at " + (event.sourceFile || event.documentURI) + ":" + event.lineNumber,
    event.sample ? "sample " + JSON.stringify(event.sample) : "",
  ].join(" ").trim());
}, true);
"""


class CheckedBrowser:
    """The session's browser, whose every new context reports the CSP violations of its pages
    into `violations` (the event above, and Chromium's console message "Refused to ...")."""

    def __init__(self, browser: Any) -> None:
        self._browser = browser
        self.violations: list[str] = []

    def new_context(self, **options: Any) -> Any:
        context = self._browser.new_context(**options)
        context.expose_function("cspViolation", self._record)
        context.add_init_script(CSP_LISTENER)
        context.on("console", self._console)
        return context

    def _record(self, text: str) -> None:
        if text not in self.violations:
            self.violations.append(text)

    def _console(self, message: Any) -> None:
        if "Refused to" in message.text and "Content Security Policy" in message.text:
            self._record(message.text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser, name)


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def browser(chromium: Any) -> Iterator[CheckedBrowser]:
    checked = CheckedBrowser(chromium)
    yield checked
    assert not checked.violations, "Content-Security-Policy violations:\n" + "\n".join(
        checked.violations
    )


@pytest.fixture
def page(browser, live_server):
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(15_000)
    page = context.new_page()
    yield page
    context.close()
