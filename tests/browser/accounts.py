"""Getting into the site in the browser as a person does: the admin's sign-in page, and the
link a sign-up mail carries."""

import re

from django.core import mail
from playwright.sync_api import expect

from tests.factories import StaffFactory
from tests.worker import run_worker


def sign_in_to_admin(page) -> None:
    StaffFactory(username="curator")
    page.goto("/admin/login/")
    page.get_by_label("Username").fill("curator")
    page.get_by_label("Password").fill("correct horse battery staple")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Question bank and learners")).to_be_visible()


def mail_to(address: str) -> mail.EmailMessage:
    """The last mail to `address`, once the worker has sent what the pages enqueued."""
    run_worker()
    return [message for message in mail.outbox if message.to == [address]][-1]


def sign_up_link(address: str) -> str:
    """The link of the sign-up mail sent to `address`."""
    found = re.search(r"https?://\S+/accounts/signup/confirm/\S+/", str(mail_to(address).body))
    assert found is not None, "no sign-up link in the mail"
    return found.group(0)
