"""Mock exams: start, sit (one question a page, a navigator, flags, a countdown kept on the
server), submit, then the score report and the full review.

During the sitting no response carries correctness: the pages show the stem and the option
texts only, and the answers are graded when the exam is submitted.
"""

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from progress.accounts.models import User
from progress.charts import trend_chart
from progress.middleware import DEADLINE_SESSION_KEY
from progress.models import MockExam, MockItem, plan_mock
from progress.practice.models import Quiz, Selection
from questions.models import Exam, Question
from questions.pages import QuestionPage, question_page, question_pages


def _learner(request: HttpRequest) -> User:
    user = request.user
    assert isinstance(user, User)  # login_required ran first
    return user


def _get_mock_for_learner(request: HttpRequest, code: str) -> MockExam:
    """The learner's sitting (404 for anyone else's), submitted first if its time ran out."""
    mock = get_object_or_404(
        MockExam.objects.select_related("exam"), code=code, learner=_learner(request)
    )
    if not mock.is_submitted and mock.time_is_up:
        mock.submit(at=mock.deadline)
    return mock


def _get_submitted_mock_for_learner(request: HttpRequest, code: str) -> MockExam | None:
    """The learner's submitted sitting; None while it is still being sat (the caller sends the
    learner back to it)."""
    mock = _get_mock_for_learner(request, code)
    return mock if mock.is_submitted else None


def _time_up_response(request: HttpRequest, mock: MockExam) -> HttpResponse:
    """A post that arrived after the deadline or the submission: refused, saying why."""
    return TemplateResponse(request, "progress/mock_closed.html", {"mock": mock}, status=409)


def remember_deadline(request: HttpRequest, mock: MockExam) -> None:
    # Lets ExpiredMockMiddleware submit the sitting on any later page once time is up.
    request.session[DEADLINE_SESSION_KEY] = mock.deadline.timestamp()


class MockAnswerForm(forms.Form):
    """Saves the answer to one question of a sitting: its option keys (none clears it), the
    flag, and where to go next."""

    flagged = forms.BooleanField(required=False)
    go = forms.CharField(required=False, max_length=20)

    def __init__(self, page: QuestionPage, item_count: int, data: Any = None) -> None:
        super().__init__(data)
        self.page, self.item_count = page, item_count
        self.posted = data.getlist("choice") if data is not None else []

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        keys = self.page.option_keys
        if any(key not in keys for key in self.posted):
            raise forms.ValidationError("That answer is not one of this question's options.")
        if not self.page.is_multiple and len(self.posted) > 1:
            raise forms.ValidationError("This question takes one answer: choose one option.")
        go = data.get("go") or "next"
        if go not in {"next", "prev", "review"} and not (
            go.isdigit() and 1 <= int(go) <= self.item_count
        ):
            raise forms.ValidationError("Unknown destination.")
        data["go"] = go
        data["chosen"] = list(dict.fromkeys(self.posted))
        return data


@require_http_methods(["GET", "POST"])
@login_required
def mock_start(request: HttpRequest, exam_slug: str) -> HttpResponse:
    exam = get_object_or_404(Exam, slug=exam_slug, mock_question_count__isnull=False)
    learner = _learner(request)
    MockExam.objects.submit_expired(learner)
    current = MockExam.objects.for_learner(learner).in_progress().filter(exam=exam).first()
    if request.method == "POST":
        mock = current or MockExam.objects.start(learner=learner, exam=exam)
        if mock.question_count == 0:
            mock.delete()
            messages.error(request, "This exam has no published questions yet.")
            return redirect(reverse("exam_detail", args=[exam.slug]))
        remember_deadline(request, mock)
        return redirect(reverse("mock_resume", args=[mock.code]))
    plan = plan_mock(exam)
    context = {
        "exam": exam,
        "plan": plan,
        "short": [draw for draw in plan if draw.short],
        "drawn": sum(draw.drawn for draw in plan),
        "current": current,
    }
    return TemplateResponse(request, "progress/mock_start.html", context)


@require_GET
@login_required
def mock_resume(request: HttpRequest, code: str) -> HttpResponse:
    mock = _get_mock_for_learner(request, code)
    if mock.is_submitted:
        return redirect(reverse("mock_report", args=[mock.code]))
    remember_deadline(request, mock)
    first_open = mock.items.filter(chosen_keys=[]).order_by("position").first()
    number = first_open.position + 1 if first_open else 1
    return redirect(reverse("mock_item", args=[mock.code, number]))


@require_http_methods(["GET", "POST"])
@login_required
def mock_item(request: HttpRequest, code: str, number: int) -> HttpResponse:
    item = get_object_or_404(
        MockItem.objects.select_related("mock__exam", "question"),
        mock__code=code,
        mock__learner=_learner(request),
        position=number - 1,
    )
    mock = item.mock
    if not mock.is_submitted and mock.time_is_up:
        mock.submit(at=mock.deadline)
    if mock.is_submitted:
        if request.method == "POST":
            return _time_up_response(request, mock)
        return redirect(reverse("mock_report", args=[mock.code]))
    page = question_page(item.question.uid) if item.question else None
    if request.method == "POST":
        if page is None:
            return redirect(
                reverse("mock_item", args=[mock.code, min(number + 1, mock.question_count)])
            )
        form = MockAnswerForm(page, mock.question_count, request.POST)
        if not form.is_valid():
            return _render_mock_item(request, item, page, form, status=400)
        chosen = form.cleaned_data["chosen"]
        MockItem.objects.filter(pk=item.pk).update(
            chosen_keys=chosen,
            flagged=form.cleaned_data["flagged"],
            answered_at=timezone.now() if chosen else None,
        )
        go = form.cleaned_data["go"]
        if go == "review":
            return redirect(reverse("mock_submit", args=[mock.code]))
        target = {"next": number + 1, "prev": number - 1}.get(go) or int(go)
        if target > mock.question_count:
            return redirect(reverse("mock_submit", args=[mock.code]))
        return redirect(reverse("mock_item", args=[mock.code, max(target, 1)]))
    return _render_mock_item(
        request, item, page, MockAnswerForm(page, mock.question_count) if page else None
    )


def _navigator(mock: MockExam) -> list[dict[str, Any]]:
    """Every question's state, for the navigator. One query, whatever the exam length."""
    return [
        {"number": position + 1, "answered": bool(chosen), "flagged": flagged}
        for position, chosen, flagged in mock.items.order_by("position").values_list(
            "position", "chosen_keys", "flagged"
        )
    ]


def _render_mock_item(
    request: HttpRequest,
    item: MockItem,
    page: QuestionPage | None,
    form: MockAnswerForm | None,
    status: int = 200,
) -> HttpResponse:
    mock = item.mock
    navigator = _navigator(mock)
    ticked = set(item.chosen_keys) if form is None or not form.is_bound else set(form.posted)
    context = {
        "mock": mock,
        "item": item,
        "number": item.position + 1,
        "page": page,
        "form": form,
        "ticked": ticked,
        "navigator": navigator,
        "answered": sum(1 for cell in navigator if cell["answered"]),
        "seconds_left": mock.seconds_left,
    }
    return TemplateResponse(request, "progress/mock_item.html", context, status=status)


@require_http_methods(["GET", "POST"])
@login_required
def mock_submit(request: HttpRequest, code: str) -> HttpResponse:
    mock = _get_mock_for_learner(request, code)
    if mock.is_submitted:
        if request.method == "POST":
            return _time_up_response(request, mock)
        return redirect(reverse("mock_report", args=[mock.code]))
    if request.method == "POST":
        mock.submit()
        request.session.pop(DEADLINE_SESSION_KEY, None)
        return redirect(reverse("mock_report", args=[mock.code]))
    navigator = _navigator(mock)
    context = {
        "mock": mock,
        "navigator": navigator,
        "unanswered": [cell for cell in navigator if not cell["answered"]],
        "flagged": [cell for cell in navigator if cell["flagged"]],
        "seconds_left": mock.seconds_left,
    }
    return TemplateResponse(request, "progress/mock_submit.html", context)


@require_GET
@login_required
def mock_report(request: HttpRequest, code: str) -> HttpResponse:
    mock = _get_submitted_mock_for_learner(request, code)
    if mock is None:
        return redirect(reverse("mock_resume", args=[code]))
    return TemplateResponse(request, "progress/mock_report.html", report_context(mock))


def report_context(mock: MockExam) -> dict[str, Any]:
    """A submitted sitting's report: the score by topic and the learner's trend on the exam
    (their own page, and their instructors' view of it). Three queries."""
    items = list(mock.items.values_list("topic_id", "is_correct"))
    topics = []
    for topic in mock.exam.topics.order_by("position", "slug"):
        drawn = [correct for topic_id, correct in items if topic_id == topic.pk]
        right = sum(1 for correct in drawn if correct)
        topics.append(
            {
                "topic": topic,
                "drawn": len(drawn),
                "right": right,
                "percent": round(100 * right / len(drawn)) if drawn else None,
            }
        )
    history = list(
        MockExam.objects.filter(
            learner_id=mock.learner_id, exam=mock.exam, submitted_at__isnull=False
        ).order_by("started_at")
    )
    return {
        "mock": mock,
        "topics": topics,
        "history": history,
        "chart": trend_chart(history, mock),
        "wrong": sum(1 for _, correct in items if not correct),
    }


@require_GET
@login_required
def mock_review(request: HttpRequest, code: str) -> HttpResponse:
    mock = _get_submitted_mock_for_learner(request, code)
    if mock is None:
        return redirect(reverse("mock_resume", args=[code]))
    show = request.GET.get("show", "all")
    topic_slug = request.GET.get("topic", "")
    if show not in {"all", "wrong", "flagged"}:
        show = "all"
    selected = mock.items.select_related("question", "topic").order_by("position")
    if show == "wrong":
        selected = selected.exclude(is_correct=True)
    elif show == "flagged":
        selected = selected.filter(flagged=True)
    if topic_slug:
        selected = selected.filter(topic__slug=topic_slug)
    items = list(selected)
    pages = question_pages(item.question.uid for item in items if item.question)
    rows = []
    for item in items:
        page = pages.get(item.question.uid) if item.question else None
        grade = page.grade(item.chosen_keys) if page else None
        rows.append(
            {
                "number": item.position + 1,
                "item": item,
                "page": page,
                "grade": grade,
                "breakdown": page.breakdown(grade) if page and grade else [],
            }
        )
    context = {
        "mock": mock,
        "rows": rows,
        "show": show,
        "topic_slug": topic_slug,
        "topics": list(mock.exam.topics.order_by("position").only("slug", "title")),
    }
    return TemplateResponse(request, "progress/mock_review.html", context)


@require_POST
@login_required
def mock_practise_missed(request: HttpRequest, code: str) -> HttpResponse:
    mock = _get_mock_for_learner(request, code)
    if not mock.is_submitted:
        return _time_up_response(request, mock)
    missed = Question.objects.filter(
        pk__in=mock.items.exclude(is_correct=True).values("question_id")
    ).order_by("pk")
    quiz = Quiz.objects.start(
        learner=_learner(request),
        exam=mock.exam,
        topic=None,
        selection=Selection.ANY,
        length=None,
        questions=missed,
    )
    if quiz is None:
        messages.info(request, "You missed nothing in this exam: well done.")
        return redirect(reverse("mock_report", args=[mock.code]))
    return redirect(reverse("quiz_item", args=[quiz.code, 1]))
