"""The curator's main flows in a real browser: sign in, find a question, edit its options and
rationales, import a bank; and a visitor reading a question."""

import json

import pytest
from playwright.sync_api import expect

from questions.models import Question, Rationale
from tests.banks import SAMPLE_BANK, make_bank
from tests.browser.accounts import sign_in_to_admin
from tests.factories import QuestionFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_curator_finds_and_edits_a_question_with_its_rationales(page):
    QuestionFactory(uid="net-0001", stem="Which protocol leases addresses?")
    target = QuestionFactory(uid="net-0002", stem="Which record maps a name to IPv6?")
    sign_in_to_admin(page)
    page.goto("/admin/questions/question/")
    page.locator("#searchbar").fill("IPv6")
    page.keyboard.press("Enter")
    expect(page.get_by_role("link", name="net-0001")).to_have_count(0)
    page.get_by_role("link", name="net-0002").click()

    first_option = target.options.order_by("position").first()
    page.locator("#id_options-0-text").fill("AAAA record")
    page.locator("#id_options-0-why").fill("AAAA holds an IPv6 address.")
    page.locator("#id_options-0-right_when").fill("Never wrong for IPv6 names.")
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator(".messagelist")).to_contain_text("was changed successfully")

    first_option.refresh_from_db()
    assert first_option.text == "AAAA record"
    rationale = Rationale.objects.get(option=first_option)
    assert (rationale.why, rationale.right_when) == (
        "AAAA holds an IPv6 address.",
        "Never wrong for IPv6 names.",
    )


def test_curator_sees_rule_errors_on_the_question_page(page):
    question = QuestionFactory(uid="net-0003")
    sign_in_to_admin(page)
    page.goto(f"/admin/questions/question/{question.pk}/change/")
    page.locator("#id_options-1-is_correct").check()  # a second correct answer
    page.get_by_role("button", name="Save", exact=True).click()
    expect(page.locator(".errornote")).to_be_visible()
    expect(
        page.get_by_text("A single-answer question needs exactly one correct option")
    ).to_be_visible()
    assert question.options.filter(is_correct=True).count() == 1


def test_curator_imports_a_bank_and_sees_problems_of_a_broken_one(page, tmp_path):
    sign_in_to_admin(page)
    page.goto("/admin/questions/question/")
    page.get_by_role("link", name="Import question bank").click()

    broken = make_bank(2)
    broken["exams"][0]["topics"][0]["weight"] = 10
    broken_path = tmp_path / "broken.json"
    broken_path.write_text(json.dumps(broken))
    page.get_by_label("Question bank file").set_input_files(broken_path)
    page.get_by_role("button", name="Preview").click()
    expect(page.get_by_role("alert")).to_contain_text("The file was not imported: 1 problem.")
    expect(page.locator(".bank-problems")).to_contain_text("topic weights add up to 50, not 100")
    assert Question.objects.count() == 0

    page.get_by_role("link", name="Upload another file").click()
    page.get_by_label("Question bank file").set_input_files(SAMPLE_BANK)
    page.get_by_role("button", name="Preview").click()
    page.get_by_role("button", name="Import 8 questions").click()
    expect(page.locator(".messagelist")).to_contain_text("8 created")
    expect(page.get_by_role("link", name="cmle-0001")).to_be_visible()
    assert Question.objects.count() == 8
