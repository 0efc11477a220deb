"""The Content-Security-Policy in Chromium: an inline script or a style attribute that a page
did not carry the nonce for is refused, and the suite's listener (conftest.py), which fails
every browser test on a violation, sees both."""

import pytest
from django.conf import settings
from django.urls import reverse

from tests.browser.conftest import CheckedBrowser

pytestmark = pytest.mark.django_db(transaction=True)

INJECT = """() => {
  const script = document.createElement("script");
  script.textContent = "window.injected = true";
  document.head.append(script);
  document.body.setAttribute("style", "background-color: rgb(255, 0, 0)");
}"""


def test_injected_inline_script_and_style_are_refused_and_reported(chromium, live_server):
    checked = CheckedBrowser(chromium)
    context = checked.new_context(base_url=live_server.url)
    page = context.new_page()
    page.goto(reverse("login"))
    page.get_by_role("button", name="Sign in").wait_for()
    assert checked.violations == []  # the page itself breaks nothing

    page.evaluate(INJECT)
    for _ in range(50):
        if len(checked.violations) >= 2:
            break
        page.wait_for_timeout(100)
    context.close()

    assert any("script-src-elem" in violation for violation in checked.violations)
    assert any("style-src-attr" in violation for violation in checked.violations)
    if settings.CSP_MODE == "enforce":
        assert all(violation.startswith("enforce") for violation in checked.violations)


def test_an_injected_script_does_not_run_when_the_policy_is_enforced(chromium, live_server):
    if settings.CSP_MODE != "enforce":
        pytest.skip("CSP_MODE is not enforce: violations are only reported")
    checked = CheckedBrowser(chromium)
    context = checked.new_context(base_url=live_server.url)
    page = context.new_page()
    page.goto(reverse("login"))
    page.evaluate(INJECT)
    assert page.evaluate("window.injected === undefined")
    background = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background != "rgb(255, 0, 0)"
    context.close()
