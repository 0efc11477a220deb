"""Accounts: sign up, sign in (username or e-mail), lockout after repeated failures, sign out,
password change and password reset by e-mail."""

import re

import pytest
from django.core import mail
from django.urls import reverse

from progress.accounts.models import User
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


def signup_data(**overrides: str) -> dict[str, str]:
    return {
        "username": "newlearner",
        "email": "new.learner@example.com",
        "password1": PASSWORD,
        "password2": PASSWORD,
        **overrides,
    }


def sign_in(client, username: str, password: str = PASSWORD, **extra):
    return client.post(LOGIN, {"username": username, "password": password}, **extra)


def signed_in_user(client):
    return client.session.get("_auth_user_id")


# Sign up -------------------------------------------------------------------------------------


def test_signup_page_shows_the_form_with_labels_and_autocomplete(client):
    response = client.get(SIGNUP)
    assert response.status_code == 200
    text = response.text
    assert 'name="csrfmiddlewaretoken"' in text
    for field, autocomplete in [
        ("username", "username"),
        ("email", "email"),
        ("password1", "new-password"),
        ("password2", "new-password"),
    ]:
        assert f'<label for="id_{field}">' in text
        assert re.search(rf'<input[^>]*autocomplete="{autocomplete}"[^>]*id="id_{field}"', text)


def test_signup_creates_the_account_signs_in_and_redirects(client):
    response = client.post(SIGNUP, signup_data())
    assert response.status_code == 302
    assert response["Location"] == HOME
    user = User.objects.get(username="newlearner")
    assert user.email == "new.learner@example.com"
    assert user.check_password(PASSWORD)
    assert signed_in_user(client) == str(user.pk)
    assert client.get(HOME).status_code == 200


def test_signup_honours_a_safe_next_and_ignores_an_external_one(client):
    response = client.post(SIGNUP + "?next=/exams/", signup_data())
    assert response["Location"] == "/exams/"
    client.post(LOGOUT)
    response = client.post(
        SIGNUP, signup_data(username="other", email="o@example.com", next="https://evil.example/")
    )
    assert response["Location"] == HOME


def test_signup_form_carries_next_through(client):
    response = client.get(SIGNUP, {"next": "/exams/"})
    assert '<input type="hidden" name="next" value="/exams/">' in response.text


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"password1": "password", "password2": "password"}, "This password is too common."),
        ({"password1": "x7#", "password2": "x7#"}, "This password is too short."),
        ({"password2": "correct horse battery stable"}, "The two password fields didn"),
        ({"email": ""}, "This field is required."),
        ({"email": "not-an-address"}, "Enter a valid email address."),
        ({"username": "me@example.com"}, "A username cannot contain @."),
    ],
)
def test_signup_with_bad_input_is_a_400_and_creates_nobody(client, overrides, message):
    response = client.post(SIGNUP, signup_data(**overrides))
    assert response.status_code == 400
    assert message in response.text
    assert 'role="alert"' in response.text
    assert not User.objects.exists()
    assert signed_in_user(client) is None


def test_signup_with_a_taken_username_is_refused(client):
    UserFactory(username="newlearner")
    response = client.post(SIGNUP, signup_data(username="NewLearner"))
    assert response.status_code == 400
    assert "A user with that username already exists." in response.text
    assert User.objects.count() == 1


def test_signup_with_a_taken_email_in_another_case_is_refused(client):
    UserFactory(email="new.learner@example.com")
    response = client.post(SIGNUP, signup_data(email="New.Learner@EXAMPLE.com"))
    assert response.status_code == 400
    assert "An account with this e-mail already exists." in response.text
    assert User.objects.count() == 1


def test_signup_errors_are_tied_to_their_inputs(client):
    response = client.post(SIGNUP, signup_data(password2="something else entirely"))
    assert 'aria-invalid="true"' in response.text
    assert 'id="id_password2_error"' in response.text
    assert '<a href="#id_password2">' in response.text


def test_signed_in_user_visiting_signup_goes_to_their_progress(client):
    client.force_login(UserFactory())
    assert client.get(SIGNUP)["Location"] == HOME
    response = client.post(SIGNUP, signup_data())
    assert response["Location"] == HOME
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
    # From another address too: the account itself is locked.
    response = sign_in(client, "alice", REMOTE_ADDR="10.0.0.9")
    assert response.status_code == 429
    assert LOCKED in response.text
    assert reverse("password_reset") in response.text
    assert signed_in_user(client) is None


def test_an_address_is_locked_after_five_failures_for_different_accounts(client):
    UserFactory(username="alice")
    for number in range(5):
        sign_in(client, f"nobody{number}", "wrong", REMOTE_ADDR="10.0.0.7")
    response = sign_in(client, "alice", REMOTE_ADDR="10.0.0.7")
    assert response.status_code == 429
    assert LOCKED in response.text
    assert signed_in_user(client) is None
    # Another address signs in to the same account.
    assert sign_in(client, "alice", REMOTE_ADDR="10.0.0.8").status_code == 302


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
    for number, typed in enumerate(spellings):
        sign_in(client, typed, "wrong", REMOTE_ADDR=f"10.0.1.{number}")
    response = sign_in(client, "alice@EXAMPLE.com", "wrong", REMOTE_ADDR="10.0.1.9")
    assert response.status_code == 429
    assert sign_in(client, "alice", REMOTE_ADDR="10.0.1.10").status_code == 429


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
