"""Sign-up tells nobody whether an e-mail address is registered (finding 7 of the security
review): a sign-up with an owner's address gets the answer a new address gets, byte for byte
but the CSRF token, after the same queries; only the mailbox learns which it was. A username
taken is said only behind a sign-up link, whose form is limited per link."""

import re

import pytest
from django.core import mail
from django.db import connection
from django.http.response import HttpResponseBase
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from progress.accounts.limits import ACCOUNT_FORMS_PER_LINK
from progress.accounts.models import User
from progress.accounts.signup import signup_token
from tests.factories import UserFactory
from tests.nonces import without_nonces
from tests.worker import queued, run_worker

pytestmark = pytest.mark.django_db

SIGNUP = reverse("signup")
PASSWORD = "correct horse battery staple"
CSRF_TOKEN = re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]+"')


def without_csrf_token(html: str) -> str:
    return CSRF_TOKEN.sub(r'\1…"', html)


def headers(response: HttpResponseBase) -> dict[str, str]:
    """never_cache's Expires header is the time of the answer: a second apart, two differ; the
    policy's nonce is new for every answer."""
    found = dict(response.headers)
    if "Expires" in found:
        found["Expires"] = "(the time of the answer)"
    for name in ("Content-Security-Policy", "Content-Security-Policy-Report-Only"):
        if name in found:
            found[name] = re.sub(r"'nonce-[^']+'", "'nonce-…'", found[name])
    return found


def sql_shape(sql: str) -> str:
    """A statement without its values: the address, and the task's id and times, differ."""
    return re.sub(r"'[^']*'|\b\d+\b", "?", sql)


def sign_up(email: str, address: str) -> dict[str, object]:
    """What a visitor sees of a sign-up with `email`, its answer and the page it lands on,
    through a fresh browser at `address` that sends the CSRF token as a real one does. (The
    first sign-up from an address starts its counter, the next ones count in it: visitors
    at two addresses do the same work.)"""
    browser = Client(enforce_csrf_checks=True, REMOTE_ADDR=address)
    browser.get(SIGNUP, {"next": "/exams/"})
    token = browser.cookies["csrftoken"].value
    with CaptureQueriesContext(connection) as queries:
        answer = browser.post(
            SIGNUP, {"email": email, "next": "/exams/", "csrfmiddlewaretoken": token}
        )
    # Read before the next request, which clears the connection's log.
    statements = [sql_shape(query["sql"]) for query in queries.captured_queries]
    landing = browser.get(answer["Location"])
    return {
        "status": answer.status_code,
        "headers": headers(answer),
        "body": answer.content,
        "cookies": {name: dict(morsel) for name, morsel in answer.cookies.items()},
        "session": dict(browser.session),
        "queries": statements,
        "landing status": landing.status_code,
        "landing headers": headers(landing),
        "landing": without_nonces(without_csrf_token(landing.text)),
    }


def test_a_registered_address_gets_the_answer_a_new_one_gets():
    UserFactory(username="owner", email="owner@example.com")
    new = sign_up("newcomer@example.com", "192.0.2.1")
    taken = sign_up("Owner@Example.com", "192.0.2.2")
    assert new == taken
    assert new["status"] == 302
    assert new["headers"]["Location"] == reverse("signup_sent")
    assert "Check your e-mail" in str(new["landing"])
    assert new["queries"]  # the sign-up was counted and its mail enqueued
    assert not any("progress_user" in query for query in new["queries"])  # nobody looked
    assert len(queued("send_signup_email")) == 2
    assert User.objects.count() == 1


@pytest.mark.django_db(transaction=True)  # the worker commits what it does
def test_only_the_mailbox_learns_whether_the_address_was_registered():
    owner = UserFactory(username="owner", email="owner@example.com")
    sign_up("newcomer@example.com", "192.0.2.1")
    sign_up("OWNER@example.com", "192.0.2.2")
    run_worker()
    to_new, to_owner = sorted(
        mail.outbox, key=lambda message: message.to[0] != "newcomer@example.com"
    )
    assert to_new.to == ["newcomer@example.com"]
    assert "/accounts/signup/confirm/" in to_new.body

    assert to_owner.to == ["owner@example.com"]  # as the account spells it
    assert to_owner.subject == "Someone tried to sign up to Courseiva with your e-mail"
    assert "your username is owner" in to_owner.body
    assert f"http://testserver{reverse('login')}" in to_owner.body
    assert f"http://testserver{reverse('password_reset')}" in to_owner.body
    assert "/accounts/signup/confirm/" not in to_owner.body
    # The note changes nothing: the owner's password, and one account for the address.
    owner.refresh_from_db()
    assert owner.check_password(PASSWORD)
    assert User.objects.filter(email__iexact="owner@example.com").count() == 1


def test_a_link_for_an_address_registered_since_is_refused(client):
    link = reverse("signup_confirm", args=[signup_token("late@example.com", "/progress/")])
    UserFactory(email="Late@example.com")
    response = client.post(link, {"username": "late", "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 400
    assert "This link no longer works" in response.text
    assert User.objects.count() == 1


def test_the_sign_up_page_asks_no_username_and_the_link_limits_asking(client):
    assert 'name="username"' not in client.get(SIGNUP).text
    UserFactory(username="taken")
    link = reverse("signup_confirm", args=[signup_token("prober@example.com", "/progress/")])
    allowed = int(ACCOUNT_FORMS_PER_LINK.split("/")[0])
    data = {"username": "taken", "password1": PASSWORD, "password2": PASSWORD}
    for _ in range(allowed):
        response = client.post(link, data)
        assert response.status_code == 400
        assert "A user with that username already exists." in response.text
    refused = client.post(link, {**data, "username": "free"})
    assert refused.status_code == 429
    assert "Too many tries with this link" in refused.text
    assert "already exists" not in refused.text
    assert not User.objects.filter(username="free").exists()
    # From another client address, the same link is still refused; another link is not.
    assert (
        client.post(link, {**data, "username": "free"}, REMOTE_ADDR="192.0.2.80").status_code == 429
    )
    other = reverse("signup_confirm", args=[signup_token("other@example.com", "/progress/")])
    assert client.post(other, {**data, "username": "free"}).status_code == 302
    assert User.objects.get(username="free").email == "other@example.com"
