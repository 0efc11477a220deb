from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.http import HttpResponse
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET

from progress.accounts.http import AuthenticatedHttpRequest
from progress.mocks.models import MockExam
from progress.practice.analytics import study_analytics
from progress.practice.models import Quiz, ReviewCard
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
