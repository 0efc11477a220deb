"""Accounts: sign up (an e-mail, then the link it gets), sign in (username or e-mail), lockout
after repeated failures, sign out, password change and password reset by e-mail."""

import re
import time
from base64 import urlsafe_b64decode

import pytest
from django.core import mail, signing
from django.test import Client
from django.urls import reverse

from progress.accounts import signup
from progress.accounts.models import User
from progress.accounts.signup import LINK_MAX_AGE, signup_token
from tests.factories import UserFactory
from tests.worker import queued, run_worker

pytestmark = pytest.mark.django_db

SIGNUP = reverse("signup")
LOGIN = reverse("login")
LOGOUT = reverse("logout")
HOME = reverse("progress_home")
PASSWORD = "correct horse battery staple"
NEW_PASSWORD = "a brand new passphrase 42"
LOCKED = "Sign-in is locked for 15 minutes because of repeated failed attempts"


def account_data(**overrides: str) -> dict[str, str]:
    return {"username": "newlearner", "password1": PASSWORD, "password2": PASSWORD, **overrides}


def confirm_url(email: str = "new.learner@example.com", next_url: str = HOME) -> str:
    return reverse("signup_confirm", args=[signup_token(email, next_url)])


def sign_in(client, username: str, password: str = PASSWORD, **extra):
    return client.post(LOGIN, {"username": username, "password": password}, **extra)


def signed_in_user(client):
    return client.session.get("_auth_user_id")


# Sign up -------------------------------------------------------------------------------------
# Whether an address is registered is never said here: see test_signup_privacy.py.


def test_signup_page_asks_for_the_email_only(client):
    response = client.get(SIGNUP)
    assert response.status_code == 200
    text = response.text
    assert 'name="csrfmiddlewaretoken"' in text
    assert '<label for="id_email">E-mail</label>' in text
    assert re.search(r'<input[^>]*autocomplete="email"[^>]*id="id_email"', text)
    assert 'name="password1"' not in text
    assert 'name="username"' not in text


def test_signup_form_carries_next_through(client):
    response = client.get(SIGNUP, {"next": "/exams/"})
    assert '<input type="hidden" name="next" value="/exams/">' in response.text


@pytest.mark.django_db(transaction=True)  # the worker commits what it does
def test_signup_mails_a_link_that_makes_the_account_and_signs_in(client):
    response = client.post(SIGNUP, {"email": "new.learner@example.com", "next": "/exams/"})
    assert response["Location"] == reverse("signup_sent")
    assert "Check your e-mail" in client.get(response["Location"]).text
    assert not User.objects.exists()
    assert signed_in_user(client) is None
    # The request only enqueues the mail; the worker sends it.
    assert mail.outbox == []
    run_worker()
    [message] = mail.outbox
    assert message.to == ["new.learner@example.com"]
    assert message.subject == "Finish creating your Courseiva account"
    link = re.search(r"http://testserver(/accounts/signup/confirm/\S+/)", message.body)
    assert link is not None

    form_page = client.get(link.group(1))
    assert "Your e-mail <strong>new.learner@example.com</strong> is confirmed" in form_page.text
    for field, autocomplete in [
        ("username", "username"),
        ("password1", "new-password"),
        ("password2", "new-password"),
    ]:
        assert f'<label for="id_{field}">' in form_page.text
        assert re.search(
            rf'<input[^>]*autocomplete="{autocomplete}"[^>]*id="id_{field}"', form_page.text
        )
    response = client.post(link.group(1), account_data())
    assert response.status_code == 302
    assert response["Location"] == "/exams/"  # where the sign-up was going
    user = User.objects.get(username="newlearner")
    assert user.email == "new.learner@example.com"
    assert user.is_active
    assert user.check_password(PASSWORD)
    assert signed_in_user(client) == str(user.pk)
    assert client.get(HOME).status_code == 200
    # The link works once.
    client.post(LOGOUT)
    used = client.get(link.group(1))
    assert used.status_code == 400
    assert "This link no longer works" in used.text
    assert client.post(link.group(1), account_data(username="second")).status_code == 400
    assert User.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_signup_ignores_an_external_next(client):
    client.post(SIGNUP, {"email": "o@example.com", "next": "https://evil.example/"})
    run_worker()
    link = re.search(r"http://testserver(/accounts/signup/confirm/\S+/)", mail.outbox[0].body)
    assert link is not None
    assert client.post(link.group(1), account_data())["Location"] == HOME


def test_a_link_to_an_external_next_still_lands_on_the_site(client):
    response = client.post(confirm_url(next_url="https://evil.example/"), account_data())
    assert response["Location"] == HOME


@pytest.mark.parametrize("email", ["", "not-an-address", "a@b@example.com"])
def test_signup_with_a_bad_address_is_a_400_and_mails_nothing(client, email):
    response = client.post(SIGNUP, {"email": email})
    assert response.status_code == 400
    assert 'role="alert"' in response.text
    assert (
        "This field is required." in response.text
        or "Enter a valid email address." in response.text
    )
    assert queued("send_signup_email") == []


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"password1": "password", "password2": "password"}, "This password is too common."),
        ({"password1": "x7#", "password2": "x7#"}, "This password is too short."),
        ({"password2": "correct horse battery stable"}, "The two password fields didn"),
        ({"username": ""}, "This field is required."),
        ({"username": "me@example.com"}, "A username cannot contain @."),
        (
            {"password1": "new.learner.example", "password2": "new.learner.example"},
            "The password is too similar to the email address.",
        ),
    ],
)
def test_account_form_with_bad_input_is_a_400_and_creates_nobody(client, overrides, message):
    response = client.post(confirm_url(), account_data(**overrides))
    assert response.status_code == 400
    assert message in response.text
    assert 'role="alert"' in response.text
    assert not User.objects.exists()
    assert signed_in_user(client) is None


def test_account_form_refuses_a_username_taken_in_another_case(client):
    UserFactory(username="newlearner")
    response = client.post(confirm_url(), account_data(username="NewLearner"))
    assert response.status_code == 400
    assert "A user with that username already exists." in response.text
    assert User.objects.count() == 1
    assert client.post(confirm_url(), account_data(username="newlearner2")).status_code == 302


def test_account_form_errors_are_tied_to_their_inputs(client):
    response = client.post(confirm_url(), account_data(password2="something else entirely"))
    assert 'aria-invalid="true"' in response.text
    assert 'id="id_password2_error"' in response.text
    assert '<a href="#id_password2">' in response.text


def test_a_tampered_link_is_refused(client):
    token = signup_token("new.learner@example.com", HOME)
    changed = token[:40] + ("A" if token[40] != "A" else "B") + token[41:]
    # A signed but readable claim, as links were before they were encrypted.
    readable = signing.dumps({"email": "eve@example.com", "next": HOME}, salt=signup._SALT)
    for forged in (changed, token[:-8], "not-a-token", readable):
        tampered = reverse("signup_confirm", args=[forged])
        for response in (client.get(tampered), client.post(tampered, account_data())):
            assert response.status_code == 400
            assert "This link no longer works" in response.text
    assert not User.objects.exists()


def test_the_link_does_not_reveal_the_address(client):
    """It is seen by whoever sees the link (an access log, the browser's history): the
    address and where it leads are encrypted in it."""
    token = signup_token("new.learner@example.com", "/cohorts/join/abc/")
    readable = urlsafe_b64decode(token + "=" * (-len(token) % 4))
    assert b"new.learner" not in readable
    assert b"example.com" not in readable
    assert b"cohorts" not in readable
    assert client.get(reverse("signup_confirm", args=[token])).status_code == 200


def test_a_link_made_before_a_key_rotation_opens_while_the_old_key_is_a_fallback(client, settings):
    link = confirm_url()
    settings.SECRET_KEY_FALLBACKS = [settings.SECRET_KEY]
    settings.SECRET_KEY = "a new secret key for this site, " * 2
    assert client.get(link).status_code == 200
    settings.SECRET_KEY_FALLBACKS = []
    assert client.get(link).status_code == 400


def test_a_link_older_than_three_days_is_refused(client, monkeypatch):
    with monkeypatch.context() as patch:
        now = time.time()
        patch.setattr(time, "time", lambda: now - LINK_MAX_AGE.total_seconds() - 60)
        old = confirm_url()
    response = client.post(old, account_data())
    assert response.status_code == 400
    assert "This link no longer works" in response.text
    assert not User.objects.exists()


def test_signed_in_user_visiting_signup_goes_to_their_progress(client):
    client.force_login(UserFactory())
    assert client.get(SIGNUP)["Location"] == HOME
    response = client.post(SIGNUP, {"email": "new.learner@example.com"})
    assert response["Location"] == HOME
    assert queued("send_signup_email") == []
    assert client.post(confirm_url(), account_data())["Location"] == HOME
    assert not User.objects.filter(username="newlearner").exists()


# Sign in -------------------------------------------------------------------------------------


def test_login_page_asks_for_username_or_email(client):
    response = client.get(LOGIN)
    assert response.status_code == 200
    assert '<label for="id_username">Username or e-mail</label>' in response.text
    assert 'autocomplete="current-password"' in response.text


@pytest.mark.parametrize("typed", ["alice", "alice@example.com", "Alice@Example.COM"])
def test_sign_in_with_username_or_email_in_any_case(client, typed):
    user = UserFactory(username="alice", email="alice@example.com")
    response = sign_in(client, typed)
    assert response.status_code == 302
    assert response["Location"] == HOME
    assert signed_in_user(client) == str(user.pk)


def test_sign_in_honours_a_safe_next_and_ignores_an_external_one(client):
    UserFactory(username="alice")
    response = client.post(LOGIN, {"username": "alice", "password": PASSWORD, "next": "/exams/"})
    assert response["Location"] == "/exams/"
    client.post(LOGOUT)
    response = client.post(
        LOGIN, {"username": "alice", "password": PASSWORD, "next": "https://evil.example/"}
    )
    assert response["Location"] == HOME


def test_wrong_password_shows_an_error_and_signs_nobody_in(client):
    UserFactory(username="alice")
    response = sign_in(client, "alice", "wrong password")
    assert response.status_code == 200
    assert "That username or e-mail and password do not match an account." in response.text
    assert 'role="alert"' in response.text
    assert "will lock sign-in" not in response.text
    assert signed_in_user(client) is None


def test_warning_of_the_lock_appears_when_two_attempts_are_left(client):
    UserFactory(username="alice")
    for _ in range(2):
        assert "will lock" not in sign_in(client, "alice", "wrong").text
    response = sign_in(client, "alice", "wrong")
    assert "2 more failed attempts will lock sign-in for 15 minutes." in response.text
    response = sign_in(client, "alice", "wrong")
    assert "1 more failed attempt will lock sign-in for 15 minutes." in response.text


def test_account_is_locked_after_five_failures_even_with_the_right_password(client):
    UserFactory(username="alice")
    for _ in range(4):
        assert sign_in(client, "alice", "wrong").status_code == 200
    fifth = sign_in(client, "alice", "wrong")
    assert fifth.status_code == 429
    assert LOCKED in fifth.text
    response = sign_in(client, "alice")
    assert response.status_code == 429
    assert LOCKED in response.text
    assert reverse("password_reset") in response.text
    assert signed_in_user(client) is None
    # The lock is the account's at this address: at home the learner signs in.
    assert sign_in(client, "alice", REMOTE_ADDR="10.0.0.9").status_code == 302


# A class behind one school's network: every browser comes from one address.
SCHOOL = "203.0.113.40"


def test_one_learners_typos_at_a_shared_address_lock_only_that_learner():
    """Five failures locked the address, and so the whole class, for 15 minutes."""
    learners = [UserFactory(username=f"learner{n}") for n in range(10)]
    typist, *classmates = (Client(REMOTE_ADDR=SCHOOL) for _ in learners)
    for _ in range(6):
        assert sign_in(typist, "learner0", "wrong").status_code in {200, 429}
    assert sign_in(typist, "learner0").status_code == 429
    for browser, learner in zip(classmates, learners[1:], strict=True):
        assert sign_in(browser, learner.username).status_code == 302


def test_many_failures_across_accounts_from_one_address_lock_the_address(client, settings):
    """Credential stuffing from one address: one guess per account never locks an account."""
    UserFactory(username="alice")
    for n in range(settings.AXES_ADDRESS_FAILURE_LIMIT - 1):
        assert sign_in(Client(), f"victim{n}", "guess", REMOTE_ADDR=SCHOOL).status_code == 200
    # Below the limit, the address still signs in (and a success does not clear its count).
    assert sign_in(Client(), "alice", REMOTE_ADDR=SCHOOL).status_code == 302
    assert sign_in(Client(), "victim-last", "guess", REMOTE_ADDR=SCHOOL).status_code == 429
    response = sign_in(client, "alice", REMOTE_ADDR=SCHOOL)
    assert response.status_code == 429
    assert LOCKED in response.text
    # Another address signs in to the same account.
    assert sign_in(client, "alice", REMOTE_ADDR="10.0.0.8").status_code == 302


def test_an_account_tried_from_many_addresses_locks_everywhere(client, settings):
    UserFactory(username="alice")
    limit = settings.AXES_ACCOUNT_FAILURE_LIMIT
    for n in range(limit - 1):
        sign_in(Client(), "alice", "guess", REMOTE_ADDR=f"198.51.100.{n + 1}")
    assert sign_in(Client(), "alice", REMOTE_ADDR="192.0.2.1").status_code == 302
    sign_in(Client(), "alice", "guess", REMOTE_ADDR=f"198.51.100.{limit}")
    response = sign_in(client, "alice", REMOTE_ADDR="192.0.2.1")
    assert response.status_code == 429
    assert LOCKED in response.text


def test_a_successful_sign_in_clears_the_count(client):
    UserFactory(username="alice")
    for _ in range(4):
        sign_in(client, "alice", "wrong")
    assert sign_in(client, "alice").status_code == 302
    client.post(LOGOUT)
    response = sign_in(client, "alice", "wrong")
    assert "will lock" not in response.text


def test_with_the_axes_username_callable_email_spellings_count_as_one_account(client, settings):
    settings.AXES_USERNAME_CALLABLE = "progress.accounts.lockout.axes_username"
    UserFactory(username="alice", email="alice@example.com")
    spellings = ["alice", "alice@example.com", "ALICE@example.com", "Alice@Example.com"]
    for typed in spellings:
        sign_in(client, typed, "wrong")
    response = sign_in(client, "alice@EXAMPLE.com", "wrong")
    assert response.status_code == 429
    assert sign_in(client, "alice").status_code == 429


# Sign out ------------------------------------------------------------------------------------


def test_nav_shows_sign_in_and_sign_up_to_visitors(client):
    response = client.get(reverse("home"))
    assert f'href="{LOGIN}"' in response.text
    assert f'href="{SIGNUP}"' in response.text
    assert f'action="{LOGOUT}"' not in response.text


def test_nav_shows_progress_and_sign_out_to_learners(client):
    client.force_login(UserFactory())
    response = client.get(reverse("home"))
    assert f'href="{HOME}"' in response.text
    assert f'action="{LOGOUT}"' in response.text
    assert f'href="{SIGNUP}"' not in response.text


def test_sign_out_is_post_only_and_ends_the_session(client):
    client.force_login(UserFactory())
    assert client.get(LOGOUT).status_code == 405
    assert signed_in_user(client) is not None
    response = client.post(LOGOUT)
    assert response.status_code == 302
    assert response["Location"] == reverse("home")
    assert signed_in_user(client) is None
    assert client.get(HOME).status_code == 302


# Password change -----------------------------------------------------------------------------


def test_password_change_needs_sign_in(client):
    url = reverse("password_change")
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"] == f"{LOGIN}?next={url}"


def test_password_change_flow(client):
    user = UserFactory(username="alice")
    client.force_login(user)
    url = reverse("password_change")
    response = client.get(url)
    assert response.status_code == 200
    assert 'autocomplete="current-password"' in response.text
    assert 'autocomplete="new-password"' in response.text
    response = client.post(
        url,
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert response["Location"] == reverse("password_change_done")
    assert "Password changed" in client.get(response["Location"]).text
    client.post(LOGOUT)
    assert sign_in(client, "alice", PASSWORD).status_code == 200
    assert sign_in(client, "alice", NEW_PASSWORD).status_code == 302


def test_password_change_with_a_wrong_old_password_changes_nothing(client):
    user = UserFactory()
    client.force_login(user)
    response = client.post(
        reverse("password_change"),
        {"old_password": "wrong", "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert "Your old password was entered incorrectly." in response.text
    user.refresh_from_db()
    assert user.check_password(PASSWORD)


# Password reset ------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_password_reset_by_email_sets_a_new_password(client):
    UserFactory(username="alice", email="alice@example.com")
    response = client.post(reverse("password_reset"), {"email": "Alice@Example.com"})
    assert response["Location"] == reverse("password_reset_done")
    # The request only enqueues the mail; the worker sends it.
    assert mail.outbox == []
    assert len(queued("send_email")) == 1
    run_worker()
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["alice@example.com"]
    assert message.subject == "Reset your Courseiva password"
    link = re.search(r"http://testserver(/accounts/reset/\S+/)", message.body)
    assert link is not None

    # The link redirects to a URL without the token, which shows the form.
    form_page = client.get(link.group(1), follow=True)
    assert "Choose a new password" in form_page.text
    set_url = form_page.redirect_chain[-1][0]
    response = client.post(set_url, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
    assert response["Location"] == reverse("password_reset_complete")

    assert sign_in(client, "alice", NEW_PASSWORD).status_code == 302
    client.post(LOGOUT)
    assert sign_in(client, "alice", PASSWORD).status_code == 200
    # The link works once.
    assert "This link no longer works" in client.get(link.group(1), follow=True).text


def test_password_reset_for_an_unknown_email_sends_nothing_and_looks_the_same(client):
    UserFactory(email="alice@example.com")
    response = client.post(reverse("password_reset"), {"email": "nobody@example.com"}, follow=True)
    assert response.redirect_chain == [(reverse("password_reset_done"), 302)]
    assert "If an account uses that e-mail" in response.text
    assert mail.outbox == []
    assert queued("send_email") == []


def test_password_reset_with_a_bad_link_says_so(client):
    response = client.get(reverse("password_reset_confirm", args=["Mg", "bad-token"]))
    assert response.status_code == 200
    assert "This link no longer works" in response.text


# The session and the user, read by written-out queries on every signed-in request ---------


def test_a_signed_in_session_reads_back_its_user_on_the_next_request(client, learner):
    response = client.get(reverse("progress_home"))
    assert response.status_code == 200
    assert response.wsgi_request.user == learner
    assert response.wsgi_request.user.date_joined == learner.date_joined  # a datetime, converted


def test_an_expired_session_signs_the_learner_out(client, learner):
    from datetime import timedelta

    from django.utils import timezone

    from progress.accounts.models import Session

    Session.objects.update(expire_date=timezone.now() - timedelta(seconds=1))
    response = client.get(reverse("progress_home"))
    assert response.status_code == 302
    assert reverse("login") in response.url


@pytest.mark.parametrize("change", ["deactivate", "delete"])
def test_a_deactivated_or_deleted_user_is_signed_out(client, learner, change):
    if change == "deactivate":
        learner.is_active = False
        learner.save()
    else:
        learner.delete()
    response = client.get(reverse("progress_home"))
    assert response.status_code == 302
    assert not response.wsgi_request.user.is_authenticated


def test_a_session_names_its_user_and_is_read_with_it_in_one_query(client):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from progress.accounts.models import Session

    learner = UserFactory(username="ada")
    assert sign_in(client, "ada").status_code == 302
    assert Session.objects.get(session_key=client.session.session_key).user_id == learner.pk
    with CaptureQueriesContext(connection) as captured:
        response = client.get(HOME)
    assert response.wsgi_request.user == learner
    user_table = connection.ops.quote_name(User._meta.db_table)
    reads = [q["sql"] for q in captured.captured_queries if user_table in q["sql"]]
    assert len(reads) == 1  # the session's read: the user has no read of its own
    assert "JOIN" in reads[0]
    client.post(LOGOUT)
    assert not Session.objects.filter(user=learner).exists()


def test_a_password_changed_on_one_device_signs_the_others_out(client):
    """The user read with the session is checked against it as Django checks any user."""
    from django.test import Client

    UserFactory(username="ada")
    other = Client()
    assert sign_in(client, "ada").status_code == 302
    assert sign_in(other, "ada").status_code == 302
    client.post(
        reverse("password_change"),
        {"old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )
    assert client.get(HOME).status_code == 200  # the device that changed it stays in
    response = other.get(HOME)
    assert response.status_code == 302
    assert not response.wsgi_request.user.is_authenticated


def test_deleting_a_user_ends_their_sessions(client, learner):
    from progress.accounts.models import Session

    assert Session.objects.filter(user=learner).count() == 1
    learner.delete()
    assert not Session.objects.exists()


def test_the_user_read_with_a_session_serves_only_that_user_and_that_request(client, learner):
    from progress.accounts.sessions import SessionStore, user_read_with_session

    store = SessionStore(client.session.session_key)
    store.load()
    other = UserFactory()
    assert user_read_with_session(other.pk) is None  # another id: the caller reads its own
    store.load()
    SessionStore()  # the next request's store
    assert user_read_with_session(learner.pk) is None
    store.load()
    assert user_read_with_session(learner.pk) == learner
    assert user_read_with_session(learner.pk) is None  # taken once


@pytest.mark.django_db(transaction=True)
def test_sessions_open_before_the_change_move_with_their_users():
    """Migration 0014 moves Django's session rows into the table that names their users:
    nobody is signed out by it."""
    from datetime import timedelta
    from importlib import import_module

    from django.apps import apps
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore as DjangoStore
    from django.contrib.sessions.models import Session as DjangoSession
    from django.test import Client
    from django.utils import timezone

    from progress.accounts.models import Session

    learner = UserFactory()
    signed_in = DjangoStore()
    signed_in.update(
        {
            SESSION_KEY: str(learner.pk),
            BACKEND_SESSION_KEY: "progress.accounts.backends.UsernameOrEmailBackend",
            HASH_SESSION_KEY: learner.get_session_auth_hash(),
        }
    )
    signed_in.create()
    visitor = DjangoStore()
    visitor["seen"] = True
    visitor.create()
    expired = DjangoStore()
    expired.create()
    DjangoSession.objects.filter(session_key=expired.session_key).update(
        expire_date=timezone.now() - timedelta(days=1)
    )
    migration = import_module("progress.migrations.0014_sessions_name_their_user")
    migration.move_sessions_here(apps, None)

    assert not DjangoSession.objects.exists()
    moved = dict(Session.objects.values_list("session_key", "user_id"))
    assert moved == {signed_in.session_key: learner.pk, visitor.session_key: None}
    browser = Client()
    browser.cookies["sessionid"] = signed_in.session_key
    assert browser.get(HOME).wsgi_request.user == learner
