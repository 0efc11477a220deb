"""Every page of every role, in Chromium: none scrolls sideways on a 375 px phone (wide tables
scroll in their own box), and axe-core finds no accessibility violation of any impact, on the
phone in the light scheme and on a desktop in the dark one.

axe-core comes with the axe-playwright-python package (its axe.min.js is injected into the
page): nothing is fetched from a CDN."""

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.core.management import call_command
from django.urls import reverse

from progress.accounts.signup import signup_token
from progress.cohorts.models import Cohort, Membership
from progress.mocks.models import MockExam
from progress.practice.marks import Bookmark, Note
from progress.practice.models import Quiz, Source
from progress.practice.recording import record_attempt
from progress.readiness.models import StudyGoal
from questions.bank.document_import import import_document
from questions.bank.formats.courseiva import read_document
from questions.grading import Grade
from questions.models import Exam, Kind, Question
from questions.pages.snapshot import QuestionPage, question_page
from tests import items
from tests.banks import DEMO_BANK
from tests.browser.parts import answer_every_part, answer_shown, check
from tests.factories import (
    InstructorFactory,
    QuestionFactory,
    StaffFactory,
    TopicFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 375, "height": 740}
DESKTOP = {"width": 1280, "height": 900}
PASSWORD = "correct horse battery staple"


@dataclass
class Visit:
    """A page to check: its URL, or a step that brings the browser there (an answer)."""

    name: str
    url: str
    then: Callable[..., None] | None = None


def answer_first_option(page) -> None:
    """Answers the question shown: its first option, or any answer to each of its parts."""
    if page.locator("#result").count():
        return  # answered on an earlier pass: the page shows the result
    answer_shown(page)
    check(page)


def answer_the_parts(page) -> None:
    answer_every_part(page)
    check(page)


def save_the_parts(page) -> None:
    """Answers a mock exam's question, saves it and opens it again, showing what was saved."""
    url = page.url
    answer_every_part(page)
    page.get_by_role("button", name="Review and submit").click()
    page.get_by_role("heading", name="Before you submit").wait_for()
    page.goto(url)


def open_every_why(page) -> None:
    """Opens every "why" of the readiness figures, so that their content is checked too."""
    for summary in page.locator("details.why > summary").all():
        summary.click()


def set_a_goal(page) -> None:
    """Submits the goal form: the exam page it leads to shows a success message."""
    import datetime

    page.get_by_label("Your exam").select_option(index=1)
    page.get_by_label("When you mean to sit it").fill(
        (datetime.date.today() + datetime.timedelta(days=60)).isoformat()
    )
    page.get_by_role("button", name="Set my goal").click()
    page.get_by_role("status").wait_for()


def some_grade(page: QuestionPage) -> Grade:
    """The grade of an answer to `page`: its first option (right or wrong), or the right
    answer to a question of another type."""
    if page.is_choice:
        return page.grade([page.options[0].key])
    return page.grade(items.right_response(page))


@pytest.fixture
def site():
    """A small site with something on every page: the demo bank, a learner with answers,
    quizzes, a mock exam, marks and a goal; an instructor with a cohort; an admin."""
    import datetime

    from django.utils import timezone

    import_document(read_document(DEMO_BANK))
    exam = Exam.objects.get(code="CSA")
    learner = UserFactory(username="sweeper")
    others = [UserFactory(username=f"classmate{n}") for n in range(3)]
    questions = list(Question.objects.published().filter(topic__exam=exam).order_by("position"))
    for who in [learner, *others]:
        for question in questions[:12]:
            page = question_page(question.uid)
            record_attempt(learner=who, page=page, grade=some_grade(page), source=Source.PAGE)
    Bookmark.objects.create(learner=learner, question=questions[0])
    Note.objects.create(learner=learner, question=questions[0], text="Remember the <b>trap</b>.")
    StudyGoal.objects.create(
        learner=learner, exam=exam, target_date=timezone.localdate() + datetime.timedelta(days=30)
    )
    done = Quiz.objects.start(learner=learner, exam=exam, topic=None, selection="any", length=3)
    assert done is not None
    for item in done.items.select_related("question"):
        page = question_page(item.question.uid)
        record_attempt(
            learner=learner, page=page, grade=some_grade(page),
            source=Source.QUIZ, quiz_item=item,
        )  # fmt: skip
    open_quiz = Quiz.objects.start(
        learner=learner, exam=exam, topic=None, selection="any", length=5
    )
    assert open_quiz is not None
    # A practice of the builder's: timed, the answers at the end; its second question takes
    # several ticks (the sweep saves an answer to it on each of its two passes).
    published = Question.objects.published().filter(topic__exam=exam).order_by("pk")
    single = published.filter(kind=Kind.SINGLE).first()
    multiple = published.filter(kind=Kind.MULTIPLE).first()
    assert single is not None
    assert multiple is not None
    timed = Quiz.objects.start(
        learner=learner, exam=exam, topic=None, selection="any", length=None,
        time_limit=datetime.timedelta(minutes=20), feedback="end",
        question_ids=[single.pk, multiple.pk],
    )  # fmt: skip
    assert timed is not None
    mock = MockExam.objects.start(learner=learner, exam=exam)
    mock.items.filter(position__lt=5).update(chosen_keys=["x"])
    mock.submit()
    sitting = MockExam.objects.start(learner=learner, exam=exam)
    instructor = InstructorFactory(username="teacher")
    cohort = Cohort.objects.create(name="Evening class", exam=exam)
    cohort.instructors.add(instructor)
    for who in [learner, *others]:
        Membership.objects.create(cohort=cohort, learner=who)
    # A question of every type beyond choice, one in a case study, in an exam of their own
    # (the demo exam's mocks stay choice questions), and a mock exam of them.
    types = TopicFactory(title="Every item type")
    shaped = [
        *items.every_type(types),
        items.yes_no(types, case_study=items.case_study(types)),
        items.dropdown(types, gaps=1, exhibit="| Setting | Value |\n|---|---|\n| mode | [[1]] |"),
        items.mixed_dropdown(types),
    ]
    types_mock = MockExam.objects.start(learner=learner, exam=types.exam)
    # A forward-only exam's sitting moved on from its first question, which is now closed.
    onward = TopicFactory(
        title="Forward-only", weight=100,
        exam__mock_question_count=3, exam__mock_duration_minutes=10,
        exam__mock_pass_percent=70, exam__forward_only=True,
    )  # fmt: skip
    QuestionFactory.create_batch(3, topic=onward)
    forward = MockExam.objects.start(learner=learner, exam=onward.exam)
    forward.step_to(1)
    call_command("compute_item_statistics", verbosity=0)
    StaffFactory(username="boss")
    return {
        "exam": exam, "topic": questions[0].topic, "question": questions[0], "learner": learner,
        "quiz": open_quiz, "done": done, "timed": timed, "mock": mock, "sitting": sitting,
        "cohort": cohort,
        "join": Cohort.objects.create(name="Morning class", exam=exam),
        "shaped": shaped, "types_mock": types_mock, "forward": forward,
    }  # fmt: skip


def count_the_questions(page) -> None:
    page.get_by_role("checkbox", name="Single answer").uncheck()
    with page.expect_navigation():
        page.get_by_role("button", name="Count the questions").click()


def ask_for_no_question(page) -> None:
    page.get_by_label("How many questions").fill("0")
    with page.expect_navigation():
        page.get_by_role("button", name="Start").click()


def save_first_option(page) -> None:
    # The second pass finds the first pass's answer saved and shown: a tick clicked again
    # would untick a select-all-that-apply answer and leave nothing to save.
    page.locator("form.answer-form").wait_for()
    first = page.locator("input[name=choice]").first
    if not (first.count() and first.is_checked()):
        answer_shown(page)
    with page.expect_navigation():
        page.get_by_role("button", name="Save answer").click()


def public_pages(site) -> list[Visit]:
    exam, topic, question = site["exam"], site["topic"], site["question"]
    return [
        Visit("home", reverse("home")),
        Visit("exam", exam.get_absolute_url()),
        Visit("topic", topic.get_absolute_url()),
        Visit("question", question.get_absolute_url()),
        Visit("question answered", question.get_absolute_url(), answer_first_option),
        Visit("not found", "/questions/no-such-question/"),
    ]


def item_type_pages(site) -> list[Visit]:
    """A question of every type, before and after answering."""
    return [
        visit
        for question in site["shaped"]
        for visit in (
            Visit(f"{question.kind} {question.uid}", question.get_absolute_url()),
            Visit(f"{question.kind} {question.uid} answered", question.get_absolute_url(),
                  answer_the_parts),
        )
    ]  # fmt: skip


def mock_type_pages(site) -> list[Visit]:
    """The mock exam of every type: each question, and those the script draws (the build
    list, the matching) after an answer was saved too."""
    mock = site["types_mock"]
    visits = []
    for item in mock.items.select_related("question").order_by("position"):
        url = reverse("mock_item", args=[mock.code, item.position + 1])
        visits.append(Visit(f"mock {item.question.kind} {item.question.uid}", url))
        if item.question.kind in (Kind.ORDERING, Kind.MATCHING):
            visits.append(Visit(f"mock {item.question.uid} saved", url, save_the_parts))
    return visits


def visitor_pages(site) -> list[Visit]:
    return [
        *public_pages(site),
        *item_type_pages(site),
        Visit("sign in", reverse("login")),
        Visit("sign up", reverse("signup")),
        Visit("sign-up mail sent", reverse("signup_sent")),
        Visit(
            "sign-up link",
            reverse("signup_confirm", args=[signup_token("visitor@example.com", "/progress/")]),
        ),
        Visit("password reset", reverse("password_reset")),
    ]


def learner_pages(site) -> list[Visit]:
    quiz, done, mock, sitting = site["quiz"], site["done"], site["mock"], site["sitting"]
    question = site["question"]
    return [
        *public_pages(site),
        Visit("dashboard", reverse("progress_home")),
        Visit("dashboard, every why opened", reverse("progress_home"), open_every_why),
        Visit("study plan", reverse("study_plan", args=[site["exam"].slug])),
        Visit("history", reverse("history")),
        Visit("bookmarks", reverse("bookmarks")),
        Visit("goal", reverse("study_goal")),
        Visit("a page with a message", reverse("study_goal"), set_a_goal),
        Visit("practice builder, no exam yet", reverse("quiz_start")),
        Visit("quiz start", reverse("quiz_start") + f"?exam={site['exam'].slug}"),
        Visit(
            "practice builder, counted",
            reverse("quiz_start") + f"?exam={site['exam'].slug}",
            count_the_questions,
        ),
        Visit(
            "practice builder, an error",
            reverse("quiz_start") + f"?exam={site['exam'].slug}",
            ask_for_no_question,
        ),
        Visit("timed practice question", reverse("quiz_item", args=[site["timed"].code, 1])),
        Visit(
            "timed practice, answer saved",
            reverse("quiz_item", args=[site["timed"].code, 2]),
            save_first_option,
        ),
        Visit("practice answers so far", reverse("quiz_summary", args=[site["timed"].code])),
        Visit("quiz question", reverse("quiz_item", args=[quiz.code, 1])),
        Visit("quiz answered", reverse("quiz_item", args=[quiz.code, 1]), answer_first_option),
        Visit("quiz summary", reverse("quiz_summary", args=[done.code])),
        Visit("quiz review", reverse("quiz_review", args=[done.code])),
        Visit("mock start", reverse("mock_start", args=[site["exam"].slug])),
        Visit("mock question", reverse("mock_item", args=[sitting.code, 2])),
        Visit("mock submit", reverse("mock_submit", args=[sitting.code])),
        # The demo's CSA exam has sections: its case study, first, locks.
        Visit("mock finish section", reverse("mock_finish_section", args=[sitting.code, 1])),
        Visit("mock question closed", reverse("mock_item", args=[site["forward"].code, 1])),
        # The next question asked for by a GET: the page that asks before moving on.
        Visit("mock move on", reverse("mock_item", args=[site["forward"].code, 3])),
        Visit("mock report", reverse("mock_report", args=[mock.code])),
        Visit("mock review", reverse("mock_review", args=[mock.code]) + "?show=all"),
        Visit("report a problem", reverse("report_problem", args=[question.uid])),
        Visit("my cohorts", reverse("my_cohorts")),
        Visit("join a cohort", reverse("cohort_join", args=[site["join"].join_code])),
        Visit("password change", reverse("password_change")),
        *mock_type_pages(site),
    ]


def instructor_pages(site) -> list[Visit]:
    cohort, learner, mock = site["cohort"], site["learner"], site["mock"]
    return [
        Visit("instructor home", reverse("instructor_home")),
        Visit("cohort", cohort.get_absolute_url()),
        Visit("cohort by topic", reverse("cohort_topics", args=[cohort.code])),
        Visit("learner drill-down", reverse("cohort_learner", args=[cohort.code, "sweeper"])),
        Visit(
            "learner drill-down, every why opened",
            reverse("cohort_learner", args=[cohort.code, "sweeper"]),
            open_every_why,
        ),
        Visit(
            "learner's mock report",
            reverse("cohort_learner_mock", args=[cohort.code, learner.username, mock.code]),
        ),
        Visit("item analysis", reverse("item_analysis", args=[site["exam"].slug])),
    ]


def admin_pages(site) -> list[Visit]:
    question = site["question"]
    return [
        Visit("admin home", reverse("admin:index")),
        Visit("admin questions", reverse("admin:questions_question_changelist")),
        Visit("admin question", reverse("admin:questions_question_change", args=[question.pk])),
        Visit("admin import", reverse("admin:questions_question_import")),
        Visit("admin images", reverse("admin:questions_questionmedia_changelist")),
        Visit("admin image upload", reverse("admin:questions_questionmedia_add")),
        Visit("admin exams", reverse("admin:questions_exam_changelist")),
        Visit("admin exam", reverse("admin:questions_exam_change", args=[question.topic.exam_id])),
        *(
            Visit(
                f"admin {shaped.kind} question",
                reverse("admin:questions_question_change", args=[shaped.pk]),
            )
            for shaped in site["shaped"]
        ),
        Visit("admin authors", reverse("admin:questions_author_changelist")),
        Visit("admin reports", reverse("admin:progress_problemreport_changelist")),
        Visit("admin users", reverse("admin:progress_user_changelist")),
    ]


ROLES = {
    "visitor": (None, visitor_pages),
    "learner": ("sweeper", learner_pages),
    "instructor": ("teacher", instructor_pages),
    "admin": ("boss", admin_pages),
}


def problems_on(page, visit: Visit, viewport: dict[str, int]) -> list[str]:
    page.set_viewport_size(viewport)
    response = page.goto(visit.url)
    assert response is not None
    if response.status >= 400 and visit.name not in {"not found", "mock question closed"}:
        return [f"{visit.name}: HTTP {response.status}"]
    if visit.then is not None:
        visit.then(page)
    found = []
    width = page.evaluate("document.documentElement.scrollWidth")
    if width > viewport["width"]:
        found.append(f"{visit.name}: {width} px wide at {viewport['width']} px")
    results = Axe().run(page, options={"resultTypes": ["violations"]})
    for violation in results.response["violations"]:
        targets = [" ".join(node["target"]) for node in violation["nodes"]][:3]
        found.append(
            f"{visit.name} ({viewport['width']} px): {violation['id']} [{violation['impact']}] "
            f"{targets}"
        )
    return found


@pytest.mark.parametrize("role", list(ROLES))
def test_every_page_fits_a_phone_and_passes_axe(browser, live_server, site, role):
    username, pages = ROLES[role]
    found: list[str] = []
    for scheme, viewport in (("light", PHONE), ("dark", DESKTOP)):
        context = browser.new_context(base_url=live_server.url, color_scheme=scheme)
        context.set_default_timeout(15_000)
        page = context.new_page()
        if username is not None:
            page.goto(reverse("login"))
            page.get_by_label("Username or e-mail").fill(username)
            page.locator("#id_password").fill(PASSWORD)
            page.get_by_role("button", name="Sign in").click()
            page.wait_for_url(lambda url: "/accounts/login/" not in url)
        for visit in pages(site):
            found += [f"[{scheme}] {problem}" for problem in problems_on(page, visit, viewport)]
        context.close()
    assert not found, "\n" + "\n".join(found)
