"""The Content-Security-Policy (security finding 8): every page is sent with it, inline code
runs only with the page's nonce, and browsers' violation reports land in the log.

The browser suite (tests/browser/conftest.py) fails on any violation a page causes in Chromium;
these check the header, the nonces and the report endpoint through the HTTP client."""

import json
import logging
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from courseiva.csp import MAX_REPORT_BYTES
from tests.factories import QuestionFactory, StaffFactory, UserFactory, storage_and_serving_exam

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[1]
REPORT = {
    "csp-report": {
        "document-uri": "https://courseiva.example/exams/",
        "violated-directive": "script-src-elem",
        "effective-directive": "script-src-elem",
        "blocked-uri": "inline",
        "source-file": "https://courseiva.example/exams/",
        "line-number": 12,
        "disposition": "enforce",
    }
}


def policy(response) -> dict[str, list[str]]:
    header = response.headers["Content-Security-Policy"]
    directives = {}
    for part in header.split(";"):
        name, *values = part.split()
        directives[name] = values
    return directives


class InlineCode(HTMLParser):
    """What a page has that a CSP without 'unsafe-inline' would refuse, or admit by nonce."""

    def __init__(self) -> None:
        super().__init__()
        self.nonces: list[str] = []
        self.refused: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if "nonce" in values:
            self.nonces.append(values["nonce"] or "")
        for name, value in attrs:
            if name == "style" or name.startswith("on"):
                self.refused.append(f"<{tag} {name}=...>")
            if name in {"href", "src", "action"} and (value or "").startswith("javascript:"):
                self.refused.append(f"<{tag} {name}={value}>")
        inline_script = tag == "script" and "src" not in values and values.get("type") in {
            None, "", "module", "text/javascript"
        }  # fmt: skip
        if (inline_script or tag == "style") and "nonce" not in values:
            self.refused.append(f"<{tag}> without a nonce")


def inline_code(response) -> InlineCode:
    parser = InlineCode()
    parser.feed(response.text)
    return parser


@pytest.fixture
def staff(client):
    user = StaffFactory()
    client.force_login(user)
    return user


def test_a_public_page_is_sent_with_the_policy(client):
    exam = storage_and_serving_exam()
    response = client.get(exam.get_absolute_url())
    assert response.status_code == 200
    directives = policy(response)
    assert directives["default-src"] == ["'self'"]
    assert directives["script-src"][0] == "'self'"
    assert directives["style-src"][0] == "'self'"
    assert directives["img-src"] == ["'self'", "data:"]
    assert directives["object-src"] == ["'none'"]
    assert directives["base-uri"] == ["'self'"]
    assert directives["frame-ancestors"] == ["'none'"]
    assert directives["form-action"] == ["'self'"]
    assert directives["report-uri"] == [reverse("csp_report")]
    header = response.headers["Content-Security-Policy"]
    assert "unsafe-inline" not in header
    assert "unsafe-eval" not in header
    assert "Content-Security-Policy-Report-Only" not in response.headers


@pytest.mark.parametrize("who", ["visitor", "learner", "staff"])
def test_every_nonce_on_a_page_is_the_one_its_policy_admits(client, who):
    if who == "learner":
        client.force_login(UserFactory())
    elif who == "staff":
        client.force_login(StaffFactory())
    url = reverse("admin:questions_question_changelist") if who == "staff" else reverse("home")
    response = client.get(url)
    assert response.status_code == 200
    found = inline_code(response)
    assert found.nonces, "htmx's script tag carries the nonce"
    nonce = re.search(r"'nonce-([^']+)'", response.headers["Content-Security-Policy"])
    assert nonce is not None
    assert set(found.nonces) == {nonce.group(1)}
    assert f"'nonce-{nonce.group(1)}'" in policy(response)["style-src"]


def test_the_nonce_is_new_for_every_request(client):
    headers = [client.get(reverse("home")).headers["Content-Security-Policy"] for _ in range(3)]
    nonces = {nonce for header in headers for nonce in re.findall(r"'nonce-[^']+'", header)}
    assert len(nonces) == 3


@pytest.mark.parametrize("page", ["question", "catalog", "topic"])
def test_visitors_sharing_a_cached_page_each_get_their_own_nonce(page):
    """The question, catalog and topic pages are rendered once for all visitors
    (courseiva.lib.shared_html): the nonce in them is filled in per request, like the CSRF
    token."""
    question = QuestionFactory()
    url = {
        "question": question.get_absolute_url(),
        "catalog": reverse("home"),
        "topic": question.topic.get_absolute_url(),
    }[page]
    pages = [Client().get(url) for _ in range(3)]
    nonces = []
    for response in pages:
        assert response.status_code == 200
        [nonce] = set(re.findall(r"'nonce-([^']+)'", response.headers["Content-Security-Policy"]))
        assert set(inline_code(response).nonces) == {nonce}
        nonces.append(nonce)
    assert len(set(nonces)) == 3


def test_pages_with_bars_and_forms_that_confirm_need_no_inline_style_or_handler(client, staff):
    """The bars (a topic's weight) were style="width: N%" and removing a learner from a class
    asked in an onsubmit: the policy refuses both, so they are an SVG rect and data-confirm."""
    exam = storage_and_serving_exam()
    for url in [
        exam.get_absolute_url(),
        reverse("admin:index"),
        reverse("admin:questions_question_import"),
        reverse("admin:questions_questionmedia_changelist"),
    ]:
        response = client.get(url)
        assert response.status_code == 200, url
        assert inline_code(response).refused == [], url
    assert '<rect width="' in client.get(exam.get_absolute_url()).text


def test_a_violation_report_is_logged(client, caplog):
    csrf_checking = Client(enforce_csrf_checks=True)
    with caplog.at_level(logging.WARNING, logger="courseiva.csp"):
        response = csrf_checking.post(
            reverse("csp_report"), json.dumps(REPORT), content_type="application/csp-report"
        )
    assert response.status_code == 204
    [record] = caplog.records
    assert "script-src-elem" in record.getMessage()
    assert "https://courseiva.example/exams/" in record.getMessage()


def test_a_reporting_api_report_is_logged_and_a_forged_log_line_is_not(client, caplog):
    body = [
        {
            "type": "csp-violation",
            "body": {
                "documentURL": "https://courseiva.example/\nERROR forged line",
                "effectiveDirective": "style-src-attr",
                "blockedURL": "inline",
            },
        }
    ]
    with caplog.at_level(logging.WARNING, logger="courseiva.csp"):
        response = client.post(
            reverse("csp_report"), json.dumps(body), content_type="application/reports+json"
        )
    assert response.status_code == 204
    [record] = caplog.records
    assert "style-src-attr" in record.getMessage()
    assert "\n" not in record.getMessage()


@pytest.mark.parametrize(
    "body",
    [
        "not json",
        "{}",
        '{"csp-report": "x"}',
        '{"csp-report": {"document-uri": "https://courseiva.example/"}}',
        "[]",
        '[{"type": "deprecation", "body": {}}]',
        json.dumps({"csp-report": {**REPORT["csp-report"], "x": "a" * MAX_REPORT_BYTES}}),
    ],
    ids=["text", "empty", "no-object", "no-directive", "empty-list", "other-type", "too-large"],
)
def test_anything_but_a_report_is_refused_and_nothing_is_logged(client, caplog, body):
    with caplog.at_level(logging.WARNING, logger="courseiva.csp"):
        response = client.post(reverse("csp_report"), body, content_type="application/csp-report")
    assert response.status_code == 400
    assert [r for r in caplog.records if r.name == "courseiva.csp"] == []


def test_reports_are_only_posted(client):
    assert client.get(reverse("csp_report")).status_code == 405


def test_one_address_sending_reports_without_end_is_stopped(client, caplog):
    statuses = [
        client.post(
            reverse("csp_report"), json.dumps(REPORT), content_type="application/csp-report"
        ).status_code
        for _ in range(61)
    ]
    assert statuses[:60] == [204] * 60
    assert statuses[60] == 429


def settings_in(**variables: str) -> str:
    """The CSP settings a process started with this environment has."""
    env = {key: value for key, value in os.environ.items() if key != "CSP_MODE"}
    env.update({"DEBUG": "1", **variables})
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            "from courseiva import settings as s; "
            "print(bool(s.SECURE_CSP), bool(s.SECURE_CSP_REPORT_ONLY))",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return (result.stdout + result.stderr).strip()


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ({}, "True False"),
        ({"CSP_MODE": "enforce"}, "True False"),
        ({"CSP_MODE": "report-only"}, "False True"),
        ({"CSP_MODE": "off"}, "False False"),
    ],
)
def test_csp_mode_enforces_reports_or_sends_nothing(mode, expected):
    assert settings_in(**mode) == expected


def test_an_unknown_csp_mode_stops_start_up():
    assert "CSP_MODE='strict': use enforce, report-only or off." in settings_in(CSP_MODE="strict")
