"""The limits on sign-ups and password resets hold whatever the number of processes: they
count in the database that every process shares (in Redis with CACHE_URL, tests/test_cache.py),
not in each process's memory, and their ended windows are pruned. A class behind one address
signs up through its cohort's join link, which counts against the link instead."""

import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import parse_qs, urlsplit

import pytest
from django.http.response import HttpResponseBase
from django.test import Client
from django.urls import reverse

from progress.accounts import limits
from progress.accounts.limits import (
    RESETS_PER_EMAIL,
    SIGNUPS_PER_ADDRESS,
    TOO_MANY_SIGNUPS,
)
from progress.accounts.models import LimitCount
from progress.accounts.tasks import prune_limit_counts
from tests.factories import CohortFactory, UserFactory
from tests.server import served
from tests.worker import queued, run_worker

SIGNUP = reverse("signup")
RESET = reverse("password_reset")


def allowed(rate: str) -> int:
    return int(rate.split("/")[0])


def at_once(post, count: int) -> list[int]:
    """`count` posts, several at a time: each server process takes some."""
    with ThreadPoolExecutor(max_workers=8) as pool:
        return list(pool.map(post, range(count)))


@pytest.mark.django_db(transaction=True)  # the server sees only what is committed
def test_limits_hold_across_the_processes_of_the_server(mailoutbox):
    """Counted per process, 20 resets for one e-mail from one address mailed 9 links with
    three processes, and 15 sign-ups from one address were all let through."""
    UserFactory(email="owner@example.com")
    with served(workers=3, form_page=SIGNUP) as server:
        resets = at_once(lambda n: server.post(RESET, {"email": "owner@example.com"}), 20)
        signups = at_once(lambda n: server.post(SIGNUP, {"email": f"pupil{n}@example.com"}), 15)
    assert sorted(resets) == [302] * allowed(RESETS_PER_EMAIL) + [429] * 17
    assert sorted(signups) == [302] * allowed(SIGNUPS_PER_ADDRESS) + [429] * 5
    assert len(queued("send_signup_email")) == allowed(SIGNUPS_PER_ADDRESS)
    run_worker()
    resets_sent = [m for m in mailoutbox if m.to == ["owner@example.com"]]
    assert len(resets_sent) == allowed(RESETS_PER_EMAIL)


@pytest.mark.django_db
def test_an_hour_on_an_address_signs_up_again_and_old_counts_are_pruned(client, monkeypatch):
    for n in range(allowed(SIGNUPS_PER_ADDRESS)):
        assert client.post(SIGNUP, {"email": f"pupil{n}@example.com"}).status_code == 302
    assert client.post(SIGNUP, {"email": "one-more@example.com"}).status_code == 429
    counted = LimitCount.objects.count()  # the address's, and each e-mail's
    assert counted == allowed(SIGNUPS_PER_ADDRESS) + 2

    an_hour_on = time.time() + 3660
    monkeypatch.setattr(time, "time", lambda: an_hour_on)
    assert client.post(SIGNUP, {"email": "next-lesson@example.com"}).status_code == 302
    assert LimitCount.objects.count() == counted + 2  # a new window, new counters
    prune_limit_counts.call()
    # Only the new window's counters are left: the address's and the last e-mail's.
    assert LimitCount.objects.count() == 2
    assert client.post(SIGNUP, {"email": "and-another@example.com"}).status_code == 302


# A class behind one school's network: every browser comes from one address.
SCHOOL = "203.0.113.40"


def sign_up_through(join_link: str, email: str) -> HttpResponseBase:
    """A student opening the join link in their own browser, then signing up from there."""
    browser = Client(REMOTE_ADDR=SCHOOL)
    sign_in_page = browser.get(join_link)["Location"]
    next_url = parse_qs(urlsplit(sign_in_page).query)["next"][0]
    return browser.post(SIGNUP, {"email": email, "next": next_url})


@pytest.mark.django_db
def test_a_class_behind_one_address_all_sign_up_through_their_join_link():
    join_link = CohortFactory().join_url()
    answers = [sign_up_through(join_link, f"student{n}@school.example") for n in range(40)]
    assert [answer.status_code for answer in answers] == [302] * 40
    assert len(queued("send_signup_email")) == 40


@pytest.mark.django_db
def test_plain_sign_ups_from_one_address_stop_at_the_address_limit():
    script = Client(REMOTE_ADDR=SCHOOL)
    answers = [script.post(SIGNUP, {"email": f"bot{n}@example.com"}) for n in range(40)]
    statuses = [answer.status_code for answer in answers]
    assert statuses == [302] * allowed(SIGNUPS_PER_ADDRESS) + [429] * 30
    assert all(TOO_MANY_SIGNUPS in answer.text for answer in answers[10:])
    assert len(queued("send_signup_email")) == allowed(SIGNUPS_PER_ADDRESS)


@pytest.mark.django_db
def test_naming_a_join_page_without_opening_it_counts_against_the_address():
    join_link = CohortFactory().join_url()
    script = Client(REMOTE_ADDR=SCHOOL)
    for n in range(allowed(SIGNUPS_PER_ADDRESS)):
        script.post(SIGNUP, {"email": f"bot{n}@example.com", "next": join_link})
    refused = script.post(SIGNUP, {"email": "one-more@example.com", "next": join_link})
    assert refused.status_code == 429


@pytest.mark.django_db
def test_sign_ups_through_one_join_link_are_limited_too(monkeypatch):
    monkeypatch.setattr(limits, "SIGNUPS_PER_INVITATION", "5/h")
    join_link = CohortFactory().join_url()
    answers = [sign_up_through(join_link, f"student{n}@school.example") for n in range(6)]
    assert [answer.status_code for answer in answers] == [302] * 5 + [429]
    # Another class's link, from the same school, still lets its students in.
    assert sign_up_through(CohortFactory().join_url(), "other@school.example").status_code == 302
