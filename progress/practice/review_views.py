"""The review of a finished quiz: every question with the learner's answer beside the right
one, its explanation, and the breakdown option by option or part by part, on one page (the
review a quiz with the answers at the end promises). For the signed-in learner's own quiz
only; another learner's is a 404, and a quiz not finished has nothing to review yet."""

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_GET

from progress.accounts.http import AuthenticatedHttpRequest
from progress.practice.models import Quiz
from questions.pages.snapshot import question_pages


@require_GET
@login_required
def quiz_review(request: AuthenticatedHttpRequest, code: str) -> HttpResponse:
    """Queries: the quiz, its items with their questions and answers; the questions' pages
    come from the cache (three queries for all the misses together)."""
    quiz = get_object_or_404(
        Quiz.objects.select_related("exam", "topic"), code=code, learner=request.user
    )
    if not quiz.is_finished:
        messages.info(request, "The review opens when the quiz is finished.")
        return redirect(reverse("quiz_summary", args=[quiz.code]))
    items = list(quiz.items.select_related("question", "attempt").order_by("position"))
    shown = [i for i in items if i.question is not None and i.question.is_published]
    pages = question_pages(item.question.uid for item in shown if item.question)
    rows: list[dict[str, Any]] = []
    for item in shown:
        assert item.question is not None
        page = pages.get(item.question.uid)
        if page is None:
            continue
        attempt = getattr(item, "attempt", None)
        # Unanswered, the right answer is shown as missed: graded as an empty answer.
        keys = [str(choice.get("key", "")) for choice in attempt.chosen] if attempt else []
        grade = page.grade(keys)
        rows.append(
            {"number": item.position + 1, "page": page, "attempt": attempt,
             **page.result_context(grade)}
        )  # fmt: skip
    context = {"quiz": quiz, "rows": rows, "left_out": len(items) - len(rows)}
    return TemplateResponse(request, "progress/practice/review.html", context)
