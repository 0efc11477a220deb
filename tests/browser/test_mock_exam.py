"""A learner sits the demo exam's mock: answers, flags one, jumps with the navigator, submits
and reads the report."""

import pytest
from playwright.sync_api import expect

from progress.mocks.models import MockExam, MockItem
from questions.bank.document_import import import_document
from questions.bank.formats.courseiva import read_document
from questions.grading import CHOICE_KINDS
from questions.models import Exam
from tests import items
from tests.banks import DEMO_BANK
from tests.browser.parts import answer_fields, answer_shown
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def choice_questions_first(mock: MockExam, count: int) -> None:
    """Moves the first `count` choice questions of the mock's draw to its first places,
    swapping them with the questions there."""
    drawn = list(mock.items.order_by("position"))
    choices = mock.items.filter(question__kind__in=CHOICE_KINDS).order_by("position")[:count]
    spare = mock.question_count  # a place no item holds, for the swap
    for place, item in enumerate(choices):
        other, item_place = drawn[place], item.position
        if other.pk == item.pk:
            continue
        MockItem.objects.filter(pk=item.pk).update(position=spare)
        MockItem.objects.filter(pk=other.pk).update(position=item_place)
        MockItem.objects.filter(pk=item.pk).update(position=place)
        drawn[place], drawn[item_place] = item, other


def test_sit_a_mock_exam_and_read_the_report(page):
    import_document(read_document(DEMO_BANK))
    UserFactory(username="sitter")
    page.goto("/accounts/login/")
    page.get_by_label("Username or e-mail").fill("sitter")
    page.locator("#id_password").fill("correct horse battery staple")
    page.get_by_role("button", name="Sign in").click()

    page.goto("/exams/network-fundamentals/")
    page.get_by_role("link", name="Start mock exam").click()
    page.get_by_role("button", name="Start mock exam").click()
    total = MockExam.objects.get().question_count
    expect(page.get_by_text(f"Question 1 of {total}")).to_be_visible()
    expect(page.locator(".timer")).to_contain_text("Time left")
    expect(page.get_by_text("Common exam trap")).to_have_count(0)

    # The draw is random: each question is answered through the inputs of its type.
    answer_shown(page)
    page.get_by_role("button", name="Save and next").click()
    expect(page.get_by_text(f"Question 2 of {total}")).to_be_visible()
    answer_shown(page, option=2)
    page.get_by_label("Flag for review").check()
    given = answer_fields(page)
    page.get_by_role("button", name="Save and next").click()

    # Jump back with the navigator: question 2 shows as answered and flagged, the answer
    # given shown again.
    page.get_by_role("button", name="Question 2: answered, flagged").click()
    expect(page.get_by_text(f"Question 2 of {total}")).to_be_visible()
    expect(page.get_by_label("Flag for review")).to_be_checked()
    assert answer_fields(page) == given
    page.get_by_role("button", name=f"Question {total}: unanswered").click()
    expect(page.get_by_text(f"Question {total} of {total}")).to_be_visible()
    answer_shown(page)
    page.get_by_role("button", name="Save and review").click()

    expect(page.get_by_role("heading", name="Before you submit")).to_be_visible()
    expect(page.get_by_text(f"{total - 3} unanswered")).to_be_visible()
    expect(page.get_by_text("1 flagged for review")).to_be_visible()
    page.get_by_role("button", name="Submit the exam").click()

    expect(page.get_by_role("heading", name="NETF mock exam: score report")).to_be_visible()
    expect(page.locator(".score")).to_contain_text(f"of {total}")
    expect(page.get_by_role("heading", name="By blueprint domain")).to_be_visible()
    expect(page.locator("svg.chart")).to_be_visible()
    page.get_by_role("link", name="Review every question").click()
    expect(page.locator(".review-item")).to_have_count(total)


def test_enter_saves_and_goes_on_and_the_timer_stays_in_sight_on_a_phone(page):
    import_document(read_document(DEMO_BANK))
    UserFactory(username="phone")
    page.set_viewport_size({"width": 375, "height": 740})
    page.goto("/accounts/login/")
    page.get_by_label("Username or e-mail").fill("phone")
    page.locator("#id_password").fill("correct horse battery staple")
    page.get_by_role("button", name="Sign in").click()
    page.goto("/exams/network-fundamentals/")
    page.get_by_role("link", name="Start mock exam").click()
    page.get_by_role("button", name="Start mock exam").click()
    mock = MockExam.objects.get()
    total = mock.question_count
    # Enter sends a form from an option's radio: a choice question at each of the first two
    # places (the draw's order is random).
    choice_questions_first(mock, 2)
    page.reload()
    expect(page.get_by_text(f"Question 1 of {total}")).to_be_visible()
    # Choose and press Enter: the answer is saved and the next question opens, on every
    # question (from the second on, "Previous" is the form's first visible button).
    for number in (1, 2):
        page.locator("label[for=choice-2]").click()
        page.keyboard.press("Enter")
        expect(page.get_by_text(f"Question {number + 1} of {total}")).to_be_visible()
        assert MockExam.objects.get().items.get(position=number - 1).chosen_keys != []
    # Scrolled down to the navigator, the countdown is still on screen.
    page.get_by_role("navigation", name="All questions").scroll_into_view_if_needed()
    timer = page.locator(".timer")
    box = timer.bounding_box()
    assert box is not None
    assert box["y"] >= 0
    assert box["y"] + box["height"] <= 740
    assert page.evaluate("document.documentElement.scrollWidth") <= 375


def test_the_review_opens_on_the_missed_questions_one_line_each(page):
    import_document(read_document(DEMO_BANK))
    learner = UserFactory(username="reviewer")
    exam = Exam.objects.get(code="NETF")
    mock = MockExam.objects.start(learner=learner, exam=exam)
    first = mock.items.select_related("question").get(position=0)
    right = items.right_response(items.page_of(first.question)).keys()
    mock.items.filter(position=0).update(chosen_keys=right)
    mock.submit()
    page.goto("/accounts/login/")
    page.get_by_label("Username or e-mail").fill("reviewer")
    page.locator("#id_password").fill("correct horse battery staple")
    page.get_by_role("button", name="Sign in").click()
    page.goto(f"/progress/mocks/{mock.code}/report/")
    missed = mock.question_count - 1
    expect(page.get_by_text(f"0 answered wrong, {missed} left unanswered.")).to_be_visible()
    page.get_by_role("link", name=f"Review the {missed} you missed").click()
    rows = page.locator(".review-item")
    expect(rows).to_have_count(missed)  # the right one is left out
    # Each is one line until opened: the explanation shows only after a click.
    second = rows.first
    expect(second.get_by_role("heading", name="Explanation")).to_be_hidden()
    second.locator("summary").click()
    expect(second.get_by_role("heading", name="Explanation")).to_be_visible()
    expect(rows.nth(1).get_by_role("heading", name="Explanation")).to_be_hidden()
