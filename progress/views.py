"""The learner's pages: their dashboard, practice quizzes and answer history.

Every view is for a signed-in learner and reaches rows only through that learner: another
learner's quiz is a 404, never a 403, so that codes are not confirmed.
"""

import random
from datetime import timedelta
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Count, Sum
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from courseiva.http import HtmxHttpRequest
from progress.accounts.models import User
from progress.charts import daily_chart
from progress.forms import HistoryFilterForm, QuizStartForm
from progress.mocks.models import MockExam
from progress.practice.models import (
    Attempt,
    LearnerDay,
    Note,
    Quiz,
    QuizItem,
    ReviewCard,
    Selection,
    Source,
)
from progress.readiness.standing import adaptive_question_ids, standings
from questions import extensions
from questions.forms import AnswerForm
from questions.markup import quick_snippet
from questions.models import Exam, Question, Topic
from questions.pages import QuestionPage, question_page

HISTORY_PAGE_SIZE = 25
# Days of daily totals read for the streak: a longer streak shows as this many days.
STREAK_HORIZON_DAYS = 400
QUESTION_TEMPLATE = "questions/question.html"


def _learner(request: HttpRequest) -> User:
    user = request.user
    assert isinstance(user, User)  # login_required ran first
    return user


def _get_quiz_for_learner(request: HttpRequest, code: str) -> Quiz:
    return get_object_or_404(
        Quiz.objects.select_related("exam", "topic"), code=code, learner=_learner(request)
    )


def _get_item_for_learner(request: HttpRequest, code: str, number: int) -> QuizItem:
    """Item `number` (1-based) of the learner's quiz, with its quiz, question and attempt."""
    return get_object_or_404(
        QuizItem.objects.select_related("quiz__exam", "quiz__topic", "question", "attempt"),
        quiz__code=code,
        quiz__learner=_learner(request),
        position=number - 1,
    )


@require_GET
@login_required
def progress_home(request: HttpRequest) -> HttpResponse:
    learner = _learner(request)
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
        "standings": [
            {"standing": standing, "chart": standing.chart()} for standing in standings(learner)
        ],
    }
    return TemplateResponse(request, "progress/home.html", context)


def study_analytics(learner: User, days_shown: int = 30) -> dict[str, Any]:
    """Totals, the current streak and the last days' answers, from the stored daily totals
    (never from the attempts). Two queries."""
    today = timezone.localdate()
    recent = {
        row.day: row
        for row in LearnerDay.objects.filter(
            learner=learner, day__gt=today - timedelta(days=STREAK_HORIZON_DAYS)
        )
    }
    totals = LearnerDay.objects.filter(learner=learner).aggregate(
        answers=Sum("answers"),
        right=Sum("right"),
        timed=Sum("timed_answers"),
        seconds=Sum("seconds"),
    )
    # The streak counts back from today, or from yesterday when today has no answer yet.
    day = today if today in recent else today - timedelta(days=1)
    streak = 0
    while day in recent and recent[day].answers:
        streak += 1
        day -= timedelta(days=1)
    series: list[dict[str, Any]] = []
    for offset in range(days_shown - 1, -1, -1):
        day = today - timedelta(days=offset)
        row = recent.get(day)
        series.append(
            {
                "day": day,
                "label": day.strftime("%d %b"),
                "answers": row.answers if row else 0,
                "right": row.right if row else 0,
                "accuracy": round(100 * row.right / row.answers) if row and row.answers else None,
            }
        )
    answers = totals["answers"] or 0
    return {
        "answers": answers,
        "accuracy": round(100 * (totals["right"] or 0) / answers) if answers else None,
        "seconds_per_answer": round((totals["seconds"] or 0) / totals["timed"])
        if totals["timed"]
        else None,
        "streak": streak,
        "series": series,
        "chart": daily_chart([(d["label"], d["answers"], d["right"]) for d in series]),
    }


@require_http_methods(["GET", "POST"])
@login_required
def quiz_start(request: HttpRequest) -> HttpResponse:
    """GET: the start form (the topic and exam pages embed it). POST: draw the questions."""
    if request.method == "GET":
        form = QuizStartForm(initial={**request.GET.dict()})
        return TemplateResponse(request, "progress/quiz_start.html", {"form": form})
    form = QuizStartForm(request.POST)
    if not form.is_valid():
        return TemplateResponse(request, "progress/quiz_start.html", {"form": form}, status=400)
    data = form.cleaned_data
    learner, exam, topic = _learner(request), data["exam_row"], data["topic_row"]
    drawn = None
    if data["selection"] == Selection.ADAPTIVE:
        # The learner model chooses, from where the learner stands (one query for their
        # earlier answers to the exam's questions, then those of `standings`).
        counts = Attempt.objects.question_counts(
            learner.pk, Question.objects.published().filter(topic__exam=exam).values("pk")
        )
        rng = random.Random()  # noqa: S311 - a quiz's order, not a secret
        drawn = adaptive_question_ids(learner, exam, topic, data["length_count"], rng, counts)
    quiz = Quiz.objects.start(
        learner=learner,
        exam=exam,
        topic=topic,
        selection=data["selection"],
        length=data["length_count"],
        question_ids=drawn,
    )
    if quiz is None:
        form.add_error("selection", "No questions match this choice yet: pick another one.")
        return TemplateResponse(request, "progress/quiz_start.html", {"form": form})
    return redirect(reverse("quiz_item", args=[quiz.code, 1]))


@require_GET
@login_required
def quiz_resume(request: HttpRequest, code: str) -> HttpResponse:
    """Where the learner left off: the first unanswered question, or the summary."""
    quiz = _get_quiz_for_learner(request, code)
    item = quiz.next_item()
    if item is None:
        quiz.finish_if_stuck()
        return redirect(reverse("quiz_summary", args=[quiz.code]))
    return redirect(reverse("quiz_item", args=[quiz.code, item.position + 1]))


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
def quiz_item(request: HtmxHttpRequest, code: str, number: int) -> HttpResponse:
    item = _get_item_for_learner(request, code, number)
    quiz = item.quiz
    if item.question is None:
        messages.info(request, "That question has been removed from the bank since.")
        return redirect(reverse("quiz_resume", args=[quiz.code]))
    page = question_page(item.question.uid)
    if page is None:  # deleted between the two lookups
        raise Http404("No such question")
    attempt = getattr(item, "attempt", None)
    if request.method == "POST" and attempt is None:
        form = AnswerForm(page, request.POST)
        if not form.is_valid():
            return _render_item(request, item, page, form, status=400)
        attempt, _ = Attempt.objects.record(
            learner=_learner(request),
            page=page,
            grade=page.grade(form.chosen_keys),
            source=Source.QUIZ,
            served_at=item.served_at,
            quiz_item=item,
        )
        quiz.refresh_from_db(fields=["answered_count", "right_count", "finished_at"])
    elif attempt is None and item.served_at is None:
        item.served_at = timezone.now()
        QuizItem.objects.filter(pk=item.pk, served_at__isnull=True).update(served_at=item.served_at)
    # Answered (now or before, in another tab): the recorded answer is what counts.
    return _render_item(request, item, page, AnswerForm(page), attempt=attempt)


def _render_item(
    request: HtmxHttpRequest,
    item: QuizItem,
    page: QuestionPage,
    form: AnswerForm,
    attempt: Attempt | None = None,
    status: int = 200,
) -> HttpResponse:
    quiz = item.quiz
    context: dict[str, Any] = {
        "page": page,
        "form": form,
        "ticked": form.posted_keys(),
        "answer_url": reverse("quiz_item", args=[quiz.code, item.position + 1]),
        "quiz": quiz,
        "item_number": item.position + 1,
        "tally": quiz.tally(),
    }
    if attempt is not None:
        grade = page.grade(str(choice.get("key", "")) for choice in attempt.chosen)
        context.update(grade=grade, breakdown=page.breakdown(grade), attempt=attempt)
    template = QUESTION_TEMPLATE
    if request.htmx:
        template += "#result" if attempt is not None else "#answer_form"
        context["quiz_header_oob"] = True
    else:
        # The learner's panel (bookmark, note, report) as on the question's own page; the
        # quiz item times the answer itself, so no served-at token.
        extras = extensions.page_context(request, page)
        extras.pop("serve_token", None)
        context.update(extras)
    return TemplateResponse(request, template, context, status=status)


@require_GET
@login_required
def quiz_summary(request: HttpRequest, code: str) -> HttpResponse:
    quiz = _get_quiz_for_learner(request, code)
    items = list(quiz.items.select_related("question", "attempt").order_by("position"))
    answered = [item for item in items if getattr(item, "attempt", None) is not None]
    right = sum(1 for item in answered if item.attempt.is_correct)
    spent = sum((item.attempt.time_spent or timedelta(0) for item in answered), timedelta(0))
    rows = [
        {
            "number": item.position + 1,
            "item": item,
            "attempt": getattr(item, "attempt", None),
            "snippet": quick_snippet(item.question.stem, 140) if item.question else "",
        }
        for item in items
    ]
    context = {
        "quiz": quiz,
        "rows": rows,
        "total": len(items),
        "answered": len(answered),
        "right": right,
        "wrong": len(answered) - right,
        "percent": round(100 * right / len(answered)) if answered else 0,
        "time_spent": spent,
        "next_item": quiz.next_item() if not quiz.is_finished else None,
    }
    return TemplateResponse(request, "progress/quiz_summary.html", context)


@require_POST
@login_required
def quiz_retry(request: HttpRequest, code: str) -> HttpResponse:
    quiz = _get_quiz_for_learner(request, code)
    retry = quiz.retry_missed()
    if retry is None:
        messages.info(request, "Nothing to retry: you missed none of these questions.")
        return redirect(reverse("quiz_summary", args=[quiz.code]))
    return redirect(reverse("quiz_item", args=[retry.code, 1]))


@require_GET
@login_required
def history(request: HttpRequest) -> HttpResponse:
    learner = _learner(request)
    form = HistoryFilterForm(request.GET)
    attempts = (
        Attempt.objects.for_learner(learner)
        .select_related("question", "exam", "topic")
        .order_by("-answered_at", "-pk")
    )
    status = 200
    if form.is_valid():
        data = form.cleaned_data
        if data["exam"]:
            attempts = attempts.filter(exam__slug=data["exam"])
        if data["topic"]:
            attempts = attempts.filter(topic__slug=data["topic"])
        if data["result"]:
            attempts = attempts.filter(is_correct=data["result"] == "right")
    else:
        status = 400
        attempts = attempts.none()
    page = Paginator(attempts, HISTORY_PAGE_SIZE).get_page(request.GET.get("page"))
    shown = list(page.object_list)
    notes = dict(
        Note.objects.filter(
            learner=learner, question_id__in={a.question_id for a in shown if a.question_id}
        ).values_list("question_id", "text")
    )
    rows = [
        {
            "attempt": attempt,
            "snippet": quick_snippet(attempt.question.stem, 120) if attempt.question else "",
            "chosen": [quick_snippet(text, 80) for text in attempt.chosen_texts],
            "note": notes.get(attempt.question_id) if attempt.question_id else None,
        }
        for attempt in shown
    ]
    exams = list(Exam.objects.only("slug", "code", "title"))
    topics = list(
        Topic.objects.filter(exam__slug=form.data.get("exam") or None).only("slug", "title")
    )
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "form": form,
        "page": page,
        "rows": rows,
        "exams": exams,
        "topics": topics,
        "query": query.urlencode(),
    }
    return TemplateResponse(request, "progress/history.html", context, status=status)
