"""The learner's study goal: which exam, when, and how many questions a day."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from progress.accounts.http import AuthenticatedHttpRequest
from progress.readiness.forms import StudyGoalForm
from progress.readiness.models import StudyGoal


@require_http_methods(["GET", "POST"])
@login_required
def study_goal(request: AuthenticatedHttpRequest) -> HttpResponse:
    """GET: the form (the home page embeds it for a new learner). POST: set the goal for that
    exam, replacing an earlier one, and go to the exam to start practising."""
    if request.method == "GET":
        form = StudyGoalForm(initial={"exam": request.GET.get("exam")})
        return TemplateResponse(request, "progress/readiness/goal.html", {"form": form})
    form = StudyGoalForm(request.POST)
    if not form.is_valid():
        return TemplateResponse(request, "progress/readiness/goal.html", {"form": form}, status=400)
    exam = form.cleaned_data["exam"]
    goal, _ = StudyGoal.objects.update_or_create(
        learner=request.user,
        exam=exam,
        defaults={
            "target_date": form.cleaned_data["target_date"],
            "daily_questions": form.cleaned_data["daily_questions"],
            "updated_at": timezone.now(),
        },
    )
    days = goal.days_left
    when = "today" if days == 0 else f"in {days} day{'s' if days != 1 else ''}"
    messages.success(
        request,
        f"Your goal: {exam.code} on {goal.target_date.day} {goal.target_date:%B %Y}, {when}. "
        "Start with a quiz on any topic below.",
    )
    return redirect(exam.get_absolute_url())
