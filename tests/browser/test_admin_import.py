"""A curator previews a foreign bank file in the admin, then confirms its import."""

from pathlib import Path

import pytest
from playwright.sync_api import expect

from questions.models import Question, Status
from tests.browser.accounts import sign_in_to_admin
from tests.factories import ExamFactory, TopicFactory

pytestmark = pytest.mark.django_db(transaction=True)

GIFT = Path(__file__).parent.parent / "data" / "foreign" / "moodle-questions.gift.txt"


def test_curator_previews_a_gift_file_then_imports_it(page):
    exam = ExamFactory(slug="moodle-basics", code="MDL", title="Moodle basics")
    TopicFactory(exam=exam, slug="general", title="General", weight=100)
    sign_in_to_admin(page)
    page.goto("/admin/questions/question/")
    page.get_by_role("link", name="Import question bank").click()

    page.get_by_label("Question bank file").set_input_files(GIFT)
    page.get_by_label("Format").select_option(label="GIFT")
    page.get_by_label("Exam").select_option(label=str(exam))
    page.get_by_role("button", name="Preview").click()

    expect(page.get_by_role("status")).to_contain_text("8 questions to import")
    choice = page.get_by_role("article").filter(has_text="single answer").first
    expect(choice.get_by_role("list", name="Options")).to_contain_text("✔ Correct: yellow")
    expect(choice).to_contain_text("Feedback: wrong, it's yellow")
    # Matching, missing word, numerical and short answer come in as their item types; only
    # the essay, which a person marks, is left out.
    matching = page.get_by_role("article").first
    expect(matching).to_contain_text("matching")
    expect(matching).to_contain_text("A bank of record entries which participants can add to.")
    expect(page.get_by_role("table", name="Skipped")).to_contain_text("essay")
    assert Question.objects.count() == 0

    page.get_by_role("button", name="Import 8 questions").click()
    expect(page.locator(".messagelist")).to_contain_text("Imported moodle-questions.gift.txt")
    assert Question.objects.filter(status=Status.REVIEW).count() == 8
