from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.http import HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_GET

from progress.accounts.http import AuthenticatedHttpRequest
from progress.charts import allocation_chart
from progress.mocks.models import MockExam
from progress.practice.analytics import study_analytics
from progress.practice.models import Quiz, ReviewCard
from progress.practice.today import goal_of, plan_of
from progress.readiness.explain import explain
from progress.readiness.models import StudyGoal
from progress.readiness.standing import standings


@require_GET
@login_required
def progress_home(request: AuthenticatedHttpRequest) -> HttpResponse:
    learner = request.user
    mine = standings(learner)
    exams = [standing.exam for standing in mine]
    whys = explain(learner, mine, MockExam.objects.latest_taken(learner, exams), record=True)
    quizzes = Quiz.objects.for_learner(learner).select_related("exam", "topic")
    context = {
        "learner": learner,
        "analytics": study_analytics(learner),
        "open_quizzes": list(quizzes.in_progress().order_by("-created_at")[:10]),
        "finished_quizzes": list(
            quizzes.filter(finished_at__isnull=False).order_by("-finished_at")[:10]
        ),
        "due_reviews": list(
            ReviewCard.objects.due(learner)
            .values("question__topic__exam__slug", "question__topic__exam__code")
            .annotate(count=Count("pk"))
            .order_by("question__topic__exam__code")
        ),
        "mocks": list(
            MockExam.objects.for_learner(learner)
            .select_related("exam")
            .order_by("-started_at")[:10]
        ),
        "goals": list(StudyGoal.objects.upcoming(learner).select_related("exam")),
        "standings": [
            {"standing": standing, "chart": standing.chart(), "why": whys[standing.exam.pk]}
            for standing in mine
        ],
    }
    return TemplateResponse(request, "progress/dashboard/home.html", context)


@require_GET
@login_required
def study_plan(request: AuthenticatedHttpRequest, exam_slug: str) -> HttpResponse:
    """The learner's plan to their exam date: the projection on the day, where the questions
    go, and day by day how many from which topics (reviews first), from stored state."""
    learner = request.user
    goal = goal_of(learner, exam_slug)
    if goal is None:
        messages.info(request, "Set the date of your exam first: the plan is built to it.")
        return redirect(f"{reverse('study_goal')}?exam={exam_slug}")
    exam = goal.exam
    standing, planned = plan_of(learner, goal)
    totals = planned.topic_totals()
    context = {
        "goal": goal,
        "exam": exam,
        "standing": standing,
        "planned": planned,
        "plan": planned.plan,
        "week": planned.days[:7],
        "later": planned.days[7:],
        "totals": totals,
        "chart": allocation_chart(
            [(topic.title, count) for topic, count in totals], f"plan-{exam.slug}"
        ),
    }
    return TemplateResponse(request, "progress/dashboard/plan.html", context)
