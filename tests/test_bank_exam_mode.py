"""The bank format's version 2 carries an exam's exam mode: its sections, forward-only and
its reported scale, exported and imported alike, checked as the admin checks them."""

import copy

import pytest

from questions.bank.checks import BankError
from questions.bank.document_import import import_document
from questions.bank.formats.courseiva import export_document, read_document
from questions.models import Exam
from tests.banks import DEMO_BANK

pytestmark = pytest.mark.django_db


def demo():
    return read_document(DEMO_BANK)


def shape(document, slug="cloud-security-associate"):
    return next(exam for exam in document["exams"] if exam["slug"] == slug)["mock_exam"]


def test_sections_forward_only_and_the_scale_go_out_and_back_in():
    document = demo()
    shape(document, "network-fundamentals")["forward_only"] = True
    import_document(document)
    exam = Exam.objects.get(slug="cloud-security-associate")
    assert (exam.scale_min, exam.scale_max, exam.scale_pass) == (100, 1000, 700)
    assert list(exam.mock_sections.values_list("title", "holds_case_study", "locks")) == [
        ("Case study: Northwind Clinics", True, True),
        ("Questions", False, False),
    ]
    assert Exam.objects.get(slug="network-fundamentals").forward_only
    exported = export_document()
    assert shape(exported) == shape(document)
    assert shape(exported, "network-fundamentals") == shape(document, "network-fundamentals")


def test_a_file_that_names_sections_replaces_them_and_one_that_does_not_keeps_them():
    import_document(demo())
    changed = demo()
    shape(changed)["sections"] = [
        {"title": "All of it", "question_count": 20, "item_types": ["single"], "minutes": 25}
    ]
    import_document(changed)
    exam = Exam.objects.get(slug="cloud-security-associate")
    assert list(exam.mock_sections.values_list("title", "kinds", "minutes")) == [
        ("All of it", ["single"], 25)
    ]
    silent = demo()
    del shape(silent)["sections"]
    import_document(silent)
    assert exam.mock_sections.count() == 1


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda m: m["sections"][1].update(question_count=10), "hold 13 questions but the mock"),
        (lambda m: m["sections"][1].update(minutes=40), "more than the exam's 30"),
        (lambda m: m["sections"][1].update(case_study=True), "Only one section can hold"),
        (lambda m: m["scale"].update({"pass": 1000, "max": 900}), "the pass mark"),
    ],
)
def test_a_bad_shape_is_refused_where_it_is_and_nothing_is_written(change, message):
    document = demo()
    change(shape(document))
    with pytest.raises(BankError) as refused:
        import_document(document)
    assert any(message in problem.message for problem in refused.value.problems)
    assert not Exam.objects.exists()


def test_version_1_has_no_exam_mode():
    document = copy.deepcopy(demo())
    document["version"] = 1
    for exam in document["exams"]:
        exam.pop("case_studies", None)
        for question in exam["questions"]:
            question.pop("case_study", None)
    with pytest.raises(BankError) as refused:
        import_document(document)
    places = {problem.path for problem in refused.value.problems}
    assert "exams[0].mock_exam.scale" in places
    assert "exams[0].mock_exam.sections" in places
