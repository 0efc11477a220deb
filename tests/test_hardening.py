"""Findings of the security and reliability review, each closed with a test: NUL bytes (in the
address, a form, the session cookie), usernames of dots, formulas in the cohort CSV, personal
pages kept out of shared caches, the probes behind an HTTPS redirect, kept connections checked
after a database restart."""

import csv
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.urls import reverse

from progress.accounts.models import User
from progress.cohorts.models import Cohort, Membership
from tests.factories import InstructorFactory, UserFactory, answer_topic, storage_and_serving_exam

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("method", "url", "data"),
    [
        ("get", "/questions/q%00x/", None),
        ("get", "/", {"q": "a\x00b"}),
        ("post", "/accounts/login/", {"username": "a\x00", "password": "x"}),
    ],
)
def test_a_nul_byte_is_a_400_not_a_500(client, method, url, data):
    response = getattr(client, method)(url, data) if data else getattr(client, method)(url)
    assert response.status_code == 400
    assert "NUL character" in response.text


# What a browser sends, as the probe did: Django's cookie parser decodes the quoted octal
# escape into a NUL. The others are keys Django never makes (too long for the column, foreign
# characters).
@pytest.mark.parametrize(
    "cookie",
    ['sessionid="abcdefghij\\000klmnop"', f"sessionid={'a' * 41}", "sessionid=ABCDEFGHIJ'--"],
)
def test_a_session_key_django_never_makes_is_no_session_and_no_query(client, cookie):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from progress.accounts.models import Session

    session_table = connection.ops.quote_name(Session._meta.db_table)
    learner = UserFactory()
    client.force_login(learner)  # a real session too: the bad cookie replaces it
    with CaptureQueriesContext(connection) as captured:
        public = client.get(reverse("home"), HTTP_COOKIE=cookie)
        personal = client.get(reverse("progress_home"), HTTP_COOKIE=cookie)
    assert public.status_code == 200
    assert not public.wsgi_request.user.is_authenticated
    assert personal.status_code == 302
    assert personal.url.startswith(reverse("login"))
    assert [q["sql"] for q in captured.captured_queries if session_table in q["sql"]] == []


@pytest.mark.parametrize("username", [".", "..", "..."])
def test_usernames_of_dots_are_refused(client, username):
    from progress.accounts.signup import signup_token

    response = client.post(
        reverse("signup_confirm", args=[signup_token("dots@example.com", "/progress/")]),
        {
            "username": username,
            "password1": "a long and unusual passphrase 42",
            "password2": "a long and unusual passphrase 42",
        },
    )
    assert response.status_code == 400
    assert "more than dots" in response.text
    assert not User.objects.filter(email="dots@example.com").exists()


def test_the_cohort_csv_never_holds_a_formula(client):
    exam = storage_and_serving_exam()
    topic = exam.topics.get(title="Storage")
    topic.title = '=HYPERLINK("http://x.example")'
    topic.save()
    cohort = Cohort.objects.create(name="Evening", exam=exam)
    instructor = InstructorFactory()
    cohort.instructors.add(instructor)
    for name in ("+cmd", "-sum", "plain"):
        learner = UserFactory(username=name)
        Membership.objects.create(cohort=cohort, learner=learner)
        answer_topic(learner, topic, 2, right=True)
    client.force_login(instructor)
    response = client.get(reverse("cohort_export", args=[cohort.code]))
    assert response.status_code == 200
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert '\'=HYPERLINK("http://x.example") readiness %' in rows[0]
    names = sorted(row[0] for row in rows[1:])
    assert names == ["'+cmd", "'-sum", "plain"]
    assert "no-store" in response["Cache-Control"]


def test_personal_pages_stay_out_of_shared_caches(client):
    assert "no-store" not in client.get(reverse("home")).get("Cache-Control", "")
    client.force_login(UserFactory())
    for url in (reverse("progress_home"), reverse("history"), reverse("home")):
        control = client.get(url)["Cache-Control"]
        assert "private" in control
        assert "no-store" in control


def test_the_probes_answer_behind_an_https_redirect_and_connections_are_checked(tmp_path):
    code = (
        "import django; django.setup();"
        "from django.conf import settings; from django.test import Client;"
        "c = Client();"
        "print(c.get('/healthz').status_code, c.get('/readyz').status_code,"
        " c.get('/robots.txt').status_code, settings.DATABASES['default']['CONN_HEALTH_CHECKS'])"
    )
    env = {key: value for key, value in os.environ.items() if key != "DEBUG"}
    env.update(
        DJANGO_SETTINGS_MODULE="courseiva.settings",
        DEBUG="0",
        SECRET_KEY="a-production-secret-key-that-is-long-enough-0123456789",
        ALLOWED_HOSTS="testserver",
        SECURE_SSL_REDIRECT="1",
        DATABASE_URL=f"sqlite:///{tmp_path / 'probe.sqlite3'}",
        EMAIL_URL="smtp://mail.example:25",
    )
    result = subprocess.run(  # noqa: S603 - our own interpreter, our own code
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["200", "200", "301", "True"]


def test_a_script_name_header_never_prefixes_the_links_of_a_cached_page(client):
    from tests.factories import QuestionFactory

    question = QuestionFactory()
    poisoned = client.get(question.get_absolute_url(), SCRIPT_NAME="/evil")
    assert poisoned.status_code == 200
    assert "/evil" not in poisoned.text
    # The next visitor gets the page as cached, with its own links.
    assert "/evil" not in client.get(question.get_absolute_url()).text


def test_behind_the_proxy_one_clients_failures_lock_only_that_client(client, settings):
    settings.TRUSTED_PROXIES = ["10.0.0.2"]
    settings.AXES_ADDRESS_FAILURE_LIMIT = 5  # failures across accounts that lock an address
    login = reverse("login")

    def sign_in(username, forwarded, remote="10.0.0.2"):
        return client.post(
            login,
            {"username": username, "password": "wrong"},
            REMOTE_ADDR=remote,
            HTTP_X_FORWARDED_FOR=forwarded,
        )

    # An attacker at 203.0.113.9 tries many accounts through the proxy, and writes a fake
    # address at the left of the header: it is not believed.
    for n in range(settings.AXES_ADDRESS_FAILURE_LIMIT + 1):
        sign_in(f"victim{n}", "198.51.100.7, 203.0.113.9")
    assert sign_in("someone", "198.51.100.7, 203.0.113.9").status_code == 429
    # Everyone else behind the same proxy still signs in.
    UserFactory(username="honest")
    ok = client.post(
        login,
        {"username": "honest", "password": "correct horse battery staple"},
        REMOTE_ADDR="10.0.0.2",
        HTTP_X_FORWARDED_FOR="192.0.2.44",
    )
    assert ok.status_code == 302
    # Without the proxy in between, the header is not believed at all.
    assert sign_in("other", "192.0.2.44", remote="203.0.113.9").status_code == 429


def test_sign_ups_from_one_address_are_limited(client):
    from progress.accounts.limits import SIGNUPS_PER_ADDRESS
    from tests.worker import queued

    allowed = int(SIGNUPS_PER_ADDRESS.split("/")[0])
    for n in range(allowed):
        client.post(reverse("signup"), {"email": f"bot{n}@example.com"})
    assert len(queued("send_signup_email")) == allowed
    refused = client.post(reverse("signup"), {"email": "one-more@example.com"})
    assert refused.status_code == 429
    assert "Too many sign-ups from here" in refused.text
    assert len(queued("send_signup_email")) == allowed  # no mail for it
    # Another address still signs up.
    other = client.post(
        reverse("signup"), {"email": "neighbour@example.com"}, REMOTE_ADDR="192.0.2.80"
    )
    assert other.status_code == 302
    assert len(queued("send_signup_email")) == allowed + 1


@pytest.mark.django_db(transaction=True)  # the worker commits what it does
def test_password_resets_are_limited_per_account(client, mailoutbox):
    from progress.accounts.limits import RESETS_PER_EMAIL
    from tests.worker import run_worker

    UserFactory(username="owner", email="owner@example.com")
    allowed = int(RESETS_PER_EMAIL.split("/")[0])
    for n in range(allowed):
        response = client.post(
            reverse("password_reset"), {"email": "owner@example.com"},
            REMOTE_ADDR=f"192.0.2.{n + 1}",
        )  # fmt: skip
        assert response.status_code == 302
    refused = client.post(
        reverse("password_reset"), {"email": "owner@example.com"}, REMOTE_ADDR="192.0.2.99"
    )
    assert refused.status_code == 429
    assert "Too many password-reset requests" in refused.text
    run_worker()
    assert len(mailoutbox) == allowed
