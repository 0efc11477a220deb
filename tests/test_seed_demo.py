"""`manage.py seed_demo`: the demo bank and, only with DEBUG on, the demo users."""

import re
from io import StringIO

import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command
from django.test import RequestFactory

from progress.accounts.models import User
from progress.cohorts.models import Cohort
from questions.bank_checks import check_documents
from questions.formats.courseiva import read_document
from questions.models import Exam, Question, Status
from tests.banks import DEMO_BANK

pytestmark = pytest.mark.django_db


def seed(*args: str) -> str:
    out = StringIO()
    call_command("seed_demo", *args, stdout=out)
    return out.getvalue()


def test_demo_bank_is_valid_and_rich_enough():
    document = read_document(DEMO_BANK)
    assert check_documents([document]) == [[]]
    exams = document["exams"]
    assert len(exams) >= 2
    for exam in exams:
        assert len(exam["topics"]) >= 4
        assert sum(topic["weight"] for topic in exam["topics"]) == 100
    questions = [q for exam in exams for q in exam["questions"]]
    published = [q for q in questions if q.get("status", "published") == "published"]
    assert len(published) >= 40
    assert any(q.get("status") in ("draft", "review") for q in questions)
    assert sum(1 for q in questions if q["kind"] == "multiple") >= 3
    for question in questions:
        assert question.get("trap") or len(question["explanation"]) > 80
        assert all(option["rationale"].strip() for option in question["options"])


def test_seed_loads_the_bank_and_creates_users_with_printed_passwords(settings):
    settings.DEBUG = True
    out = seed()
    assert Exam.objects.count() >= 2
    assert Question.objects.filter(status=Status.PUBLISHED).count() >= 40
    passwords = dict(re.findall(r"^\s+(learner|instructor|admin)\s+(\S+)$", out, re.M))
    assert set(passwords) == {"learner", "instructor", "admin"}
    for username, password in passwords.items():
        request = RequestFactory().post("/accounts/login/")
        assert authenticate(request, username=username, password=password) is not None
    assert User.objects.get(username="admin").is_superuser
    assert not User.objects.get(username="learner").is_staff
    assert User.objects.get(username="instructor").groups.filter(name="Instructors").exists()
    # The demo cohort: the instructor follows the learner, once however often it is seeded.
    seed()
    cohort = Cohort.objects.get(name="Demo class")
    assert [u.username for u in cohort.instructors.all()] == ["instructor"]
    assert [u.username for u in cohort.learners.all()] == ["learner"]


def test_seed_without_debug_creates_no_users(settings):
    settings.DEBUG = False
    out = seed()
    assert "demo users are not created" in out
    assert Exam.objects.count() >= 2
    assert not User.objects.exists()


def test_if_empty_leaves_an_existing_bank_alone(settings):
    settings.DEBUG = True
    seed()
    count = Question.objects.count()
    Question.objects.filter(
        uid__in=list(Question.objects.values_list("uid", flat=True)[:1])
    ).update(stem="Edited by a curator")
    out = seed("--if-empty")
    assert "already has content" in out
    assert Question.objects.count() == count
    assert Question.objects.filter(stem="Edited by a curator").exists()
