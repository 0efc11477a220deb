"""`manage.py seed_demo`: the demo bank and, only with DEBUG on, the demo users, the demo
class (simulated learners with six weeks of practice) and the demo learner's own history."""

import re
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth import authenticate
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.test import Client, RequestFactory
from django.urls import reverse

from progress.accounts.models import User
from progress.cohorts.models import Cohort, ItemStatistic, Membership
from progress.demo.site import DEMO_GROUP
from progress.mocks.models import MockExam, MockItem
from progress.practice.marks import Bookmark
from progress.practice.models import Attempt, LearnerDay, Quiz, ReviewCard
from progress.readiness.models import ExamReadiness, QuestionReadiness, StudyGoal
from questions.bank.checks import check_documents
from questions.bank.formats.courseiva import read_document
from questions.models import Exam, Option, Part, Question, Status
from questions.pages.snapshot import question_page
from tests import items
from tests.banks import DEMO_BANK

pytestmark = pytest.mark.django_db


def seed(*args: str) -> str:
    out = StringIO()
    call_command("seed_demo", *args, stdout=out)
    return out.getvalue()


def parts_of(question: dict[str, Any]) -> list[dict[str, Any]]:
    """Everything of a question that carries a rationale: options, steps, prompts,
    statements, blanks, gaps and each gap's choices."""
    names = ("options", "steps", "prompts", "statements", "blanks", "gaps")
    found = [element for name in names for element in question.get(name, [])]
    return found + [choice for gap in question.get("gaps", []) for choice in gap["choices"]]


def test_demo_bank_is_valid_and_rich_enough():
    document = read_document(DEMO_BANK)
    assert document["version"] == 2
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
        assert parts_of(question)
        assert all(part["rationale"].strip() for part in parts_of(question)), question["uid"]


@pytest.mark.parametrize("exam", read_document(DEMO_BANK)["exams"], ids=lambda e: e["slug"])
def test_each_demo_exam_has_every_type_and_a_case_study(exam):
    questions = exam["questions"]
    kinds = {q["kind"] for q in questions}
    assert kinds == {"single", "multiple", "ordering", "matching", "yesno", "fillin", "dropdown"}
    orderings = [q for q in questions if q["kind"] == "ordering"]
    assert any(all("place" in step for step in q["steps"]) for q in orderings)
    assert any(any("place" not in step for step in q["steps"]) for q in orderings)
    matchings = [q for q in questions if q["kind"] == "matching"]
    assert any(len(q["pool"]) > len({p["answer"] for p in q["prompts"]}) for q in matchings)
    blanks = [b for q in questions if q["kind"] == "fillin" for b in q["blanks"]]
    assert any("accepted" in b for b in blanks)
    assert any(b.get("tolerance") and b.get("units") for b in blanks)
    assert all("```" in q["exhibit"] for q in questions if q["kind"] == "dropdown")
    assert any(q.get("scoring") == "partial" for q in questions)
    assert all(q.get("trap") for q in questions if q["kind"] not in ("single", "multiple"))
    (case,) = exam["case_studies"]
    on_it = [q for q in questions if q.get("case_study") == case["slug"]]
    assert 2 <= len(on_it) <= 3
    assert len({q["kind"] for q in on_it}) == len(on_it)


def test_every_demo_question_takes_its_right_answer_on_its_page(client, settings):
    settings.DEBUG = False
    seed()
    for question in Question.objects.published():
        page = items.page_of(question)
        response = client.post(question.get_absolute_url(), items.right_post(page))
        assert response.status_code == 200, question.uid
        assert "✓</span> Correct" in response.text, question.uid


def test_seed_loads_the_bank_and_creates_users_with_printed_passwords(settings):
    settings.DEBUG = True
    out = seed("--learners", "3")
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
    # The demo cohort: the instructor follows the learner and the class, once however often
    # it is seeded (a second run replaces the class and keeps the learner's history).
    answers = Attempt.objects.filter(learner__username="learner").count()
    seed("--learners", "3")
    cohort = Cohort.objects.exclude(exam__slug="gcp-pmle").get(name="Demo class")
    assert [u.username for u in cohort.instructors.all()] == ["instructor"]
    assert "learner" in {u.username for u in cohort.learners.all()}
    assert cohort.learners.count() == 4
    assert Attempt.objects.filter(learner__username="learner").count() == answers


def test_seed_without_debug_creates_no_users(settings):
    settings.DEBUG = False
    out = seed()
    assert "demo users are not created" in out
    assert Exam.objects.count() >= 2
    assert not User.objects.exists()


def test_if_empty_leaves_an_existing_bank_alone(settings):
    settings.DEBUG = True
    seed("--learners", "2")
    count = Question.objects.count()
    Question.objects.filter(
        uid__in=list(Question.objects.values_list("uid", flat=True)[:1])
    ).update(stem="Edited by a curator")
    out = seed("--if-empty")
    assert "already has content" in out
    assert Question.objects.count() == count
    assert Question.objects.filter(stem="Edited by a curator").exists()


def signed_in(username: str) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=username))
    return client


def test_the_default_demo_fills_every_dashboard(settings):
    settings.DEBUG = True
    out = seed()
    assert re.search(r"^Demo class: 40 learners, [\d,]+ answers over six weeks", out, re.M)
    cohort = Cohort.objects.exclude(exam__slug="gcp-pmle").get(name="Demo class")
    assert cohort.learners.count() == 41
    assert (cohort.target_date - cohort.created_at.date()).days == 21
    class_answers = Attempt.objects.exclude(learner__username="learner")
    assert class_answers.count() > 5000
    assert MockExam.objects.submitted().count() >= 20
    assert not MockExam.objects.in_progress().exists()
    assert MockItem.objects.filter(chosen_keys=[]).exists()  # some items left unanswered
    assert Bookmark.objects.count() >= 20
    # Six weeks, with days off: each learner practised on some days, not on every one.
    days = LearnerDay.objects.values_list("day", flat=True)
    assert (max(days) - min(days)).days >= 35
    first = cohort.exam  # on one exam; the PMLE practice falls on other days too
    practised = Attempt.objects.filter(learner__username="learner", exam=first)
    assert practised.dates("answered_at", "day").count() < 21

    instructor = signed_in("instructor")
    page = instructor.get(cohort.get_absolute_url())
    assert page.status_code == 200
    assert page.context["learners"] == 41
    assert 4 <= page.context["at_risk"] <= 25
    body = page.content.decode()
    assert "inactive for" in body
    assert re.search(r"pass likelihood \d+%, 21 days before the exam", body)
    assert "no pass likelihood yet" in body
    with_figures = [row for row in page.context["rows"] if row.pass_probability is not None]
    assert len(with_figures) >= 30
    likelihoods = [row.pass_probability for row in with_figures]
    # Readiness spreads across the class.
    assert min(likelihoods) < 0.2
    assert max(likelihoods) > 0.8
    topics = instructor.get(f"{cohort.get_absolute_url()}topics/")
    assert topics.status_code == 200
    assert "below 50%" in topics.content.decode()
    items = instructor.get(f"/instructor/exams/{cohort.exam.slug}/items/?cohort={cohort.code}")
    assert items.status_code == 200
    statistics = ItemStatistic.objects.filter(cohort=cohort)
    assert (
        statistics.count() == Question.objects.published().filter(topic__exam=cohort.exam).count()
    )
    assert all(s.facility is not None for s in statistics)
    assert statistics.filter(discrimination__isnull=False).count() >= 10

    learner = signed_in("learner")
    home = learner.get("/progress/")
    assert home.status_code == 200
    text = home.content.decode()
    assert "likely to pass a mock exam today" in text
    assert re.search(r"Review due questions \(\d+\)", text)
    goal = StudyGoal.objects.get(learner__username="learner", exam=cohort.exam)
    assert goal.days_left == 21
    plan = learner.get(f"/progress/plan/{goal.exam.slug}/")
    assert plan.status_code == 200
    assert "if you follow this plan" in plan.content.decode()


def snapshot() -> dict[str, Any]:
    """What the demo wrote, by names rather than ids: the answers, the figures, the reviews,
    the daily totals, the item statistics."""
    positions: dict[str, tuple[str | int, ...]] = {
        key: (uid, position)
        for key, uid, position in Option.objects.values_list("key", "question__uid", "position")
    }
    positions |= {
        key: (uid, "part", position)
        for key, uid, position in Part.objects.values_list("key", "question__uid", "position")
    }

    def named(response: str) -> tuple[Any, ...]:
        """An option key, or "<part or step key>=<value>" (questions.grading)."""
        key, _, value = response.partition("=")
        return (*positions[key], positions.get(value, value))

    return {
        "attempts": list(
            Attempt.objects.order_by("pk").values_list(
                "learner__username",
                "question_uid",
                "is_correct",
                "answered_at",
                "source",
                "time_spent",
            )
        ),
        "chosen": [
            [named(c["key"]) for c in chosen]
            for chosen in Attempt.objects.order_by("pk").values_list("chosen", flat=True)
        ],
        "scores": list(Attempt.objects.order_by("pk").values_list("score", flat=True)),
        "figures": sorted(
            ExamReadiness.objects.values_list(
                "learner__username", "pass_probability", "expected_percent", "answers"
            )
        ),
        "questions": sorted(
            QuestionReadiness.objects.values_list("question__uid", "difficulty", "answers")
        ),
        "reviews": sorted(
            ReviewCard.objects.values_list("learner__username", "question__uid", "due")
        ),
        "days": sorted(LearnerDay.objects.values_list("learner__username", "day", "answers")),
        "quizzes": sorted(
            Quiz.objects.values_list("learner__username", "code", "created_at", "right_count")
        ),
        "statistics": sorted(
            ItemStatistic.objects.values_list("question__uid", "cohort_id", "facility"),
            key=repr,
        ),
    }


def test_the_same_seed_gives_the_same_demo(settings):
    settings.DEBUG = True
    seed("--learners", "8", "--seed", "7")
    first = snapshot()
    assert len(first["attempts"]) > 500
    User.objects.all().delete()  # everything of theirs goes with them
    seed("--learners", "8", "--seed", "7")
    assert snapshot() == first
    User.objects.all().delete()
    seed("--learners", "8", "--seed", "8")
    assert snapshot()["attempts"] != first["attempts"]


def test_the_demo_class_answers_every_type_as_the_site_grades_it(settings):
    settings.DEBUG = True
    seed("--learners", "6")
    exam = Exam.objects.order_by("position", "code").first()
    assert exam is not None
    attempts = Attempt.objects.filter(exam=exam).select_related("question")
    kinds = {a.question.kind for a in attempts if a.question}
    assert kinds == {"single", "multiple", "ordering", "matching", "yesno", "fillin", "dropdown"}
    partial = 0
    for attempt in attempts.exclude(question__kind__in=["single", "multiple"]):
        assert attempt.question is not None
        page = question_page(attempt.question.uid)
        assert page is not None
        grade = page.grade([c["key"] for c in attempt.chosen])
        assert (grade.is_correct, grade.score) == (attempt.is_correct, attempt.score)
        results = {result.key: result.correct for result in grade.parts}
        for given in attempt.chosen:
            assert given["correct"] == results[given["key"].partition("=")[0]]
        partial += 0 < attempt.score < 1
    assert partial > 0
    assert {a.is_correct for a in attempts} == {True, False}
    scored = MockItem.objects.filter(mock__exam=exam, answered_at__isnull=False)
    assert scored.exists()
    assert all(item.score is not None for item in scored)


def test_demo_accounts_cannot_sign_in_and_are_marked_in_the_admin(settings):
    settings.DEBUG = True
    seed("--learners", "5")
    demo = User.objects.filter(groups__name=DEMO_GROUP)
    assert demo.count() == 10  # five in each demo cohort: the first exam's and the PMLE one
    for user in demo:
        assert not user.has_usable_password()
        request = RequestFactory().post("/accounts/login/")
        assert authenticate(request, username=user.username, password="") is None
    assert not User.objects.get(username="learner").groups.filter(name=DEMO_GROUP).exists()
    admin = signed_in("admin")
    page = admin.get("/admin/progress/user/")
    assert DEMO_GROUP in page.content.decode()  # the group filter offers it
    group_id = Group.objects.get(name=DEMO_GROUP).pk
    filtered = admin.get(f"/admin/progress/user/?groups__id__exact={group_id}")
    assert filtered.context["cl"].result_count == 10


def test_clear_removes_the_demo_class_and_nothing_else(settings):
    settings.DEBUG = True
    seed("--learners", "6")
    learner = User.objects.get(username="learner")
    own = set(Attempt.objects.filter(learner=learner).values_list("pk", flat=True))
    own_quizzes = Quiz.objects.filter(learner=learner).count()
    assert own
    assert Attempt.objects.count() > len(own)
    out = seed("--clear")
    # six learners in each demo cohort: the first exam's and the PMLE one
    assert re.search(r"Removed the demo class: 12 learners, [\d,]+ answers", out)
    assert not User.objects.filter(groups__name=DEMO_GROUP).exists()
    assert set(User.objects.values_list("username", flat=True)) == {
        "learner", "instructor", "admin",
    }  # fmt: skip
    assert set(Attempt.objects.values_list("pk", flat=True)) == own
    assert Quiz.objects.count() == own_quizzes
    assert not MockExam.objects.exclude(learner=learner).exists()
    # the learner stays in the demo cohorts: the first exam's and the PMLE one
    assert set(Membership.objects.values_list("learner__username", flat=True)) == {"learner"}
    assert Membership.objects.count() == 2
    assert Exam.objects.count() >= 2
    # The figures their answers went into are recomputed without them.
    assert set(ItemStatistic.objects.values_list("learners", flat=True)) <= {0, 1}
    assert StudyGoal.objects.filter(learner=learner).exists()
    assert "No demo class" in seed("--clear")


def test_the_demo_practises_the_real_pmle_exam_too(settings):
    settings.DEBUG = True
    out = seed("--learners", "4")
    assert "The class and the learner practise PMLE too." in out
    pmle = Exam.objects.get(slug="gcp-pmle")
    assert Question.objects.published().for_exam(pmle).count() >= 150
    cohort = Cohort.objects.get(name="Demo class", exam=pmle)
    assert cohort.learners.count() == 5
    learner = User.objects.get(username="learner")
    assert Attempt.objects.filter(learner=learner, exam=pmle).count() > 50
    assert ExamReadiness.objects.filter(learner=learner, exam=pmle).exists()
    assert StudyGoal.objects.filter(learner=learner, exam=pmle).exists()
    instructor = signed_in("instructor")
    analysis = instructor.get(reverse("item_analysis", args=[pmle.slug]) + f"?cohort={cohort.code}")
    assert analysis.status_code == 200
    assert "pmle-0" in analysis.text
    plan = signed_in("learner").get(reverse("study_plan", args=[pmle.slug]))
    assert plan.status_code == 200
