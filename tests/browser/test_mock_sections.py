"""Exam mode in a browser: the demo's Cloud Security Associate mock, its case study a locked
section of its own, the warning before leaving it, the scaled report, and the report printed."""

from datetime import timedelta

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from progress.mocks.models import MockExam
from questions.bank.document_import import import_document
from questions.bank.formats.courseiva import read_document
from questions.models import Exam, MockSection
from tests.banks import DEMO_BANK
from tests.browser.parts import answer_shown
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

CASE = "Case study: Northwind Clinics"


def sign_in(page, username):
    page.goto("/accounts/login/")
    page.get_by_label("Username or e-mail").fill(username)
    page.locator("#id_password").fill("correct horse battery staple")
    page.get_by_role("button", name="Sign in").click()


def test_sit_the_case_study_section_leave_it_for_good_and_print_the_report(page):
    import_document(read_document(DEMO_BANK))
    UserFactory(username="sectioned")
    sign_in(page, "sectioned")
    page.goto("/exams/cloud-security-associate/")
    page.get_by_role("link", name="Start mock exam").click()
    page.get_by_role("button", name="Start mock exam").click()
    mock = MockExam.objects.get()
    total = mock.question_count
    expect(page.get_by_text(f"Section 1 of 2: {CASE}")).to_be_visible()
    locking = page.get_by_role("heading", name=f"Section 1: {CASE} (locks when finished)")
    expect(locking).to_be_visible()

    for number in (1, 2):
        answer_shown(page)
        page.get_by_role("button", name="Save and next").click()
        expect(page.get_by_text(f"Question {number + 1} of {total}")).to_be_visible()
    answer_shown(page)
    # The last question of a locking section: the warning comes before it closes.
    page.get_by_role("button", name="Save and finish the section").click()
    expect(page.get_by_role("heading", name=f"Finish section 1: {CASE}?")).to_be_visible()
    expect(page.get_by_text("You cannot come back to this section.")).to_be_visible()
    expect(page.get_by_text("Every question of this section has an answer.")).to_be_visible()
    page.get_by_role("button", name="Finish this section and go to section 2: Questions").click()

    expect(page.get_by_text("Section 2 of 2: Questions")).to_be_visible()
    expect(page.get_by_text(f"Question 4 of {total}")).to_be_visible()
    closed = page.get_by_role("button", name="Question 1: answered, closed")
    expect(closed).to_be_disabled()
    page.goto(f"/progress/mocks/{mock.code}/1/")
    expect(page.get_by_role("heading", name="Question 1 is closed")).to_be_visible()
    page.get_by_role("link", name="Go to question 4").click()

    page.get_by_role("button", name="Review and submit").first.click()
    expect(page.get_by_role("heading", name="Before you submit")).to_be_visible()
    sections = page.get_by_role("table")
    expect(sections.get_by_role("row", name=f"1. {CASE}")).to_contain_text("closed")
    expect(sections.get_by_role("row", name="2. Questions")).to_contain_text("you are here")
    page.get_by_role("button", name="Submit the exam").click()

    expect(page.get_by_role("heading", name="CSA mock exam: score report")).to_be_visible()
    expect(page.locator(".scaled-score")).to_contain_text("a pass is 700 or more")
    expect(page.get_by_role("heading", name="By section")).to_be_visible()
    expect(page.get_by_role("heading", name="By blueprint domain")).to_be_visible()

    # The report's own button opens the browser's print dialog (recorded here, not opened).
    page.evaluate("window.print = () => { window.printed = true; }")
    page.get_by_role("button", name="Print this report").click()
    assert page.evaluate("window.printed === true")
    # Printed, in a dark scheme too: the report alone, black on white.
    page.emulate_media(media="print", color_scheme="dark")
    expect(page.get_by_role("button", name="Print this report")).to_be_hidden()
    expect(page.get_by_role("navigation", name="Site")).to_be_hidden()
    expect(page.get_by_role("navigation", name="Breadcrumb")).to_be_hidden()
    expect(page.get_by_role("link", name="Review every question")).to_be_hidden()
    expect(page.get_by_role("button", name="Sign out")).to_be_hidden()
    expect(page.locator(".site-footer")).to_be_hidden()
    expect(page.locator(".scaled-score")).to_be_visible()
    expect(page.get_by_role("heading", name="By section")).to_be_visible()
    white = "rgb(255, 255, 255)"
    for selector in ("html", "body", ".score-card", ".verdict"):
        background = page.eval_on_selector(selector, "e => getComputedStyle(e).backgroundColor")
        assert background in (white, "rgba(0, 0, 0, 0)"), (selector, background)
    assert page.eval_on_selector("html", "e => getComputedStyle(e).color") == "rgb(0, 0, 0)"
    pdf = page.pdf(format="A4")
    assert pdf.startswith(b"%PDF")
    page.emulate_media(media="screen", color_scheme="dark")
    expect(page.get_by_role("navigation", name="Site")).to_be_visible()


def test_a_forward_only_sitting_has_no_way_back(page):
    import_document(read_document(DEMO_BANK))
    Exam.objects.filter(slug="network-fundamentals").update(forward_only=True)
    UserFactory(username="forward")
    sign_in(page, "forward")
    page.goto("/exams/network-fundamentals/")
    page.get_by_role("link", name="Start mock exam").click()
    page.get_by_role("button", name="Start mock exam").click()
    expect(page.get_by_text("Forward-only, as the real exam")).to_be_visible()
    expect(page.get_by_role("navigation", name="All questions")).to_have_count(0)
    answer_shown(page)
    page.get_by_role("button", name="Save and next").click()
    expect(page.get_by_text("Question 2 of")).to_be_visible()
    expect(page.get_by_role("button", name="Previous")).to_have_count(0)
    page.go_back()
    expect(page.get_by_role("heading", name="Question 1 is closed")).to_be_visible()
    expect(page.get_by_text("This exam is forward-only")).to_be_visible()
    # The next question opened by its address (a bookmark, a link prefetched): the sitting
    # stays on question 2 until the learner chooses to move on.
    mock = MockExam.objects.get()
    page.goto(f"/progress/mocks/{mock.code}/3/")
    expect(page.get_by_role("heading", name="Move on to question 3?")).to_be_visible()
    page.get_by_role("link", name="Back to question 2").click()
    expect(page.get_by_text("Question 2 of")).to_be_visible()
    page.goto(f"/progress/mocks/{mock.code}/3/")
    page.get_by_role("button", name="Move on to question 3").press("Enter")
    expect(page.get_by_text("Question 3 of")).to_be_visible()
    mock.refresh_from_db()
    assert mock.open_from == 2


def test_a_sections_own_time_running_out_moves_the_learner_on(page):
    import_document(read_document(DEMO_BANK))
    MockSection.objects.filter(exam__slug="cloud-security-associate", position=0).update(minutes=5)
    UserFactory(username="timed")
    sign_in(page, "timed")
    page.goto("/exams/cloud-security-associate/")
    page.get_by_role("link", name="Start mock exam").click()
    expect(page.get_by_text("5 minutes of its own")).to_be_visible()
    page.get_by_role("button", name="Start mock exam").click()
    expect(page.locator(".timer")).to_contain_text("Time left in this section")
    # The section's time nearly gone (as the server holds it): the page counts down and,
    # at zero, the server closes the section and opens the next.
    mock = MockExam.objects.get()
    MockExam.objects.filter(pk=mock.pk).update(
        section_deadline=timezone.now() + timedelta(seconds=3)
    )
    page.reload()
    expect(page.get_by_text("Section 2 of 2: Questions")).to_be_visible(timeout=15_000)
    expect(page.get_by_role("button", name="Question 1: unanswered, closed")).to_be_disabled()
