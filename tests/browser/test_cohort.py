"""An instructor creates a cohort, a learner joins from its link and practises, and the
instructor sees the learner's row change: in a real browser, two people side by side."""

import re

import pytest
from playwright.sync_api import expect

from questions.bank_import import import_document
from questions.formats.courseiva import read_document
from questions.models import Exam
from tests.banks import DEMO_BANK
from tests.factories import InstructorFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "a long and unusual passphrase 42"


def sign_in(page, username):
    page.goto("/accounts/login/")
    page.get_by_label("Username or e-mail").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()


def test_an_instructor_follows_a_learner_who_joins_and_practises(browser, live_server):
    import_document(read_document(DEMO_BANK))
    exam = Exam.objects.get(code="CSA")
    InstructorFactory(username="teacher", password=PASSWORD)
    UserFactory(username="pupil", password=PASSWORD)
    contexts = [
        browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900})
        for _ in range(2)
    ]
    teacher, pupil = (context.new_page() for context in contexts)
    for page in (teacher, pupil):
        page.set_default_timeout(15_000)

    sign_in(teacher, "teacher")
    teacher.goto("/instructor/")
    teacher.get_by_label("Name").fill("Evening class")
    teacher.get_by_label("Exam", exact=True).select_option(label=str(exam))
    teacher.get_by_role("button", name="Create cohort").click()
    expect(teacher.get_by_role("heading", name="Evening class")).to_be_visible()
    expect(teacher.get_by_text("No learners yet")).to_be_visible()
    join_link = teacher.locator("code.join-link").inner_text()

    sign_in(pupil, "pupil")
    pupil.goto(join_link)
    expect(pupil.get_by_text("will not see other exams or your private notes")).to_be_visible()
    pupil.get_by_role("button", name="Join Evening class").click()
    expect(pupil.get_by_text("You joined Evening class")).to_be_visible()

    teacher.reload()
    row = teacher.locator("tr", has=teacher.get_by_role("link", name="pupil"))
    expect(row).to_contain_text("no answers")
    expect(row).to_contain_text("at risk: no answers yet")

    # The learner practises a topic in a quiz: five questions, the first option each time.
    topic = exam.topics.order_by("position").first()
    pupil.goto(f"/exams/{exam.slug}/{topic.slug}/")
    pupil.get_by_role("button", name="Practice this topic").click()
    for number in range(1, 6):
        expect(pupil.get_by_text(re.compile(rf"Question {number} of \d+"))).to_be_visible()
        pupil.locator("label[for=choice-1]").click()
        pupil.get_by_role("button", name="Check answer").click()
        expect(pupil.locator("#result")).to_be_visible()
        if number < 5:
            pupil.get_by_role("link", name="Next question").click()

    teacher.reload()
    row = teacher.locator("tr", has=teacher.get_by_role("link", name="pupil"))
    expect(row).not_to_contain_text("no answers yet")
    expect(row).to_contain_text("more answers needed")
    cells = row.locator("td.heat")
    expect(cells.first).to_have_text(re.compile(r"\d+%"))  # the topic practised has a number
    expect(row.locator("td").nth(len(exam.topics.all()) + 1)).to_have_text("5")  # last 7 days

    # The drill-down shows what the learner sees, without their practice buttons.
    row.get_by_role("link", name="pupil").click()
    expect(teacher.get_by_role("heading", name="pupil")).to_be_visible()
    expect(teacher.get_by_text(re.compile(r"answer \d+ more questions? in"))).to_have_count(
        len(exam.topics.all()) - 1
    )
    expect(teacher.get_by_role("button", name=re.compile("Practice"))).to_have_count(0)
    for context in contexts:
        context.close()
