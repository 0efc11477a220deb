"""Signing up in a real browser: the e-mail first, then the link mailed to it, where the
newcomer chooses a username and a password. A newcomer from a cohort's join link comes back
to that cohort after the round-trip through the mailbox; an owner of the address who signs up
again sees the page a newcomer sees, and gets a note instead of a link."""

import pytest
from playwright.sync_api import expect

from progress.cohorts.models import Cohort, Membership
from tests.browser.accounts import mail_to, sign_up_link
from tests.factories import ExamFactory, InstructorFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "a long and unusual passphrase 42"


def test_a_newcomer_from_a_join_link_signs_up_and_joins(page):
    cohort = Cohort.objects.create(name="Evening class", exam=ExamFactory())
    cohort.instructors.add(InstructorFactory(username="teacher"))

    page.goto(cohort.join_url())
    expect(page.get_by_role("note")).to_contain_text("You are joining Evening class")
    page.get_by_role("link", name="Create an account").click()
    expect(page.get_by_role("heading", name="Create an account")).to_be_visible()
    expect(page.get_by_role("note")).to_contain_text("You are joining Evening class")
    page.get_by_label("E-mail").fill("newcomer@example.com")
    page.get_by_role("button", name="Continue").click()
    expect(page.get_by_role("heading", name="Check your e-mail")).to_be_visible()

    page.goto(sign_up_link("newcomer@example.com"))
    expect(page.get_by_text("Your e-mail newcomer@example.com is confirmed")).to_be_visible()
    expect(page.get_by_role("note")).to_contain_text("You are joining Evening class")
    page.get_by_label("Username").fill("newcomer")
    page.locator("#id_password1").fill(PASSWORD)
    page.locator("#id_password2").fill(PASSWORD)
    page.get_by_role("button", name="Create account").click()
    page.get_by_role("button", name="Join Evening class").click()
    expect(page.get_by_text("You joined Evening class")).to_be_visible()
    assert Membership.objects.filter(cohort=cohort, learner__username="newcomer").exists()


def test_an_owner_signing_up_again_sees_the_same_page_and_gets_a_note(page):
    UserFactory(username="owner", email="owner@example.com")
    page.goto("/accounts/signup/")
    page.get_by_label("E-mail").fill("owner@example.com")
    page.get_by_role("button", name="Continue").click()
    expect(page.get_by_role("heading", name="Check your e-mail")).to_be_visible()
    note = mail_to("owner@example.com")
    assert "your username is owner" in note.body
    assert "/accounts/signup/confirm/" not in note.body
