"""An instructor creates a cohort, a learner joins from its link and practises, and the
instructor sees the learner's row change: in a real browser, two people side by side."""

import re

import pytest
from playwright.sync_api import expect

from questions.bank.document_import import import_document
from questions.bank.formats.courseiva import read_document
from questions.models import Exam
from tests.banks import DEMO_BANK
from tests.browser.parts import answer_shown
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
    contexts[0].grant_permissions(["clipboard-read", "clipboard-write"])
    teacher.get_by_role("button", name="Copy link").click()
    expect(teacher.get_by_role("status").filter(has_text="Link copied.")).to_be_visible()
    assert teacher.evaluate("navigator.clipboard.readText()") == join_link

    # The pupil opens the link signed out: the sign-in page says what they are joining.
    pupil.goto(join_link)
    expect(pupil.get_by_role("heading", name="Sign in")).to_be_visible()
    expect(pupil.get_by_role("note")).to_contain_text("You are joining Evening class")
    expect(pupil.get_by_role("note")).to_contain_text("with teacher")
    pupil.get_by_label("Username or e-mail").fill("pupil")
    pupil.get_by_label("Password").fill(PASSWORD)
    pupil.get_by_role("button", name="Sign in").click()
    expect(pupil.get_by_text("will not see other exams or your private notes")).to_be_visible()
    pupil.get_by_role("button", name="Join Evening class").click()
    expect(pupil.get_by_text("You joined Evening class")).to_be_visible()
    expect(pupil.get_by_text(f"Next: start practising {exam.code}")).to_be_visible()
    expect(pupil.get_by_role("heading", level=1)).to_contain_text(exam.title)

    teacher.reload()
    row = teacher.locator("tr", has=teacher.get_by_role("link", name="pupil"))
    expect(row).to_contain_text("no answers")
    expect(row).to_contain_text("at risk: no answers yet")

    # The learner practises a topic in a quiz: five questions, whatever answer comes first.
    # A topic without a case study: one drawn comes whole, with its other topics' questions.
    topic = exam.topics.exclude(questions__case_study__isnull=False).order_by("position").first()
    pupil.goto(f"/exams/{exam.slug}/{topic.slug}/")
    pupil.get_by_role("button", name="Practice this topic").click()
    for number in range(1, 6):
        expect(pupil.get_by_text(re.compile(rf"Question {number} of \d+"))).to_be_visible()
        answer_shown(pupil)
        pupil.get_by_role("button", name="Check answer").click()
        expect(pupil.locator("#result")).to_be_visible()
        if number < 5:
            pupil.get_by_role("link", name="Next question").click()

    teacher.reload()
    row = teacher.locator("tr", has=teacher.get_by_role("link", name="pupil"))
    expect(row).not_to_contain_text("no answers yet")
    expect(row).to_contain_text("answers to go")
    cells = row.locator("td.heat")
    practised = list(exam.topics.order_by("position")).index(topic)
    expect(cells.nth(practised)).to_have_text(re.compile(r"\d+%"))  # the topic has a number
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


def test_the_heatmap_of_an_eight_topic_exam_fits_a_laptop_and_scrolls_on_a_phone(page):
    from decimal import Decimal

    from progress.cohorts.models import Cohort, Membership
    from tests.factories import ExamFactory, QuestionFactory, TopicFactory, answer_topic

    exam = ExamFactory(mock_question_count=40, mock_pass_percent=Decimal("70"))
    titles = [
        "Identity and access management", "Data protection and key management",
        "Cloud network security", "Logging, monitoring and incident response",
        "Governance, risk and compliance", "Application security",
        "Infrastructure security", "Incident response",
    ]  # fmt: skip
    topics = [
        TopicFactory(exam=exam, title=title, weight=Decimal("12.5"), position=position)
        for position, title in enumerate(titles)
    ]
    for topic in topics:
        QuestionFactory.create_batch(6, topic=topic)
    cohort = Cohort.objects.create(name="Evening class", exam=exam)
    cohort.instructors.add(InstructorFactory(username="teacher", password=PASSWORD))
    for n in range(4):
        learner = UserFactory(username=f"a-learner-with-a-long-name-{n}")
        Membership.objects.create(cohort=cohort, learner=learner)
        for topic in topics[: 2 * n + 2]:
            answer_topic(learner, topic, 5, right=n % 2 == 0)
    sign_in(page, "teacher")
    page.goto(cohort.get_absolute_url())
    table = page.get_by_role("region", name="Learners by topic")
    for title in titles:
        expect(table.get_by_role("columnheader", name=title, exact=True)).to_be_in_viewport()
    box = table.evaluate("box => [box.scrollWidth, box.clientWidth]")
    assert box[0] <= box[1], f"the heatmap scrolls at 1,280 px ({box})"

    page.set_viewport_size({"width": 375, "height": 800})
    page.reload()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 375, f"the cohort page scrolls sideways on a phone ({width} px)"
    # The table scrolls in its box, the learner column staying in view.
    table.evaluate("box => { box.scrollLeft = box.scrollWidth; }")
    learner = page.get_by_role("rowheader", name=re.compile("a-learner-with-a-long-name-0"))
    where = learner.bounding_box()
    assert where is not None
    assert 0 <= where["x"] < 60, f"the learner column scrolled away ({where})"


def test_removing_a_learner_asks_first_and_cancelling_keeps_them(page):
    from progress.cohorts.models import Cohort, Membership
    from tests.factories import ExamFactory

    cohort = Cohort.objects.create(name="Evening class", exam=ExamFactory())
    cohort.instructors.add(InstructorFactory(username="teacher", password=PASSWORD))
    Membership.objects.create(cohort=cohort, learner=UserFactory(username="pupil"))
    sign_in(page, "teacher")
    page.goto(cohort.get_absolute_url())
    remove = page.get_by_role("button", name="Remove pupil from the cohort")
    asked = []

    def answer(dialog, accept: bool) -> None:
        asked.append(dialog.message)
        dialog.accept() if accept else dialog.dismiss()

    page.once("dialog", lambda dialog: answer(dialog, accept=False))
    remove.click()
    assert asked == ["Remove pupil from this cohort?"]
    expect(remove).to_be_visible()
    assert Membership.objects.filter(cohort=cohort, learner__username="pupil").exists()

    page.once("dialog", lambda dialog: answer(dialog, accept=True))
    remove.click()
    expect(remove).to_have_count(0)
    assert not Membership.objects.filter(cohort=cohort, learner__username="pupil").exists()
