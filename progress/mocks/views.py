"""Mock exams: start, sit (one question a page, a navigator, flags, a countdown kept on the
server), submit, then the score report and the full review.

During the sitting no response carries correctness: the pages show the stem and the option
texts only, and the answers are graded when the exam is submitted.
"""

from pathlib import Path
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.staticfiles import finders
from django.db.models import Exists, OuterRef, Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from courseiva.http import HtmxHttpRequest
from progress.accounts.http import AuthenticatedHttpRequest
from progress.mocks import item_query
from progress.mocks.allowances import allowance_for, minutes_with
from progress.mocks.draw import plan_mock
from progress.mocks.forms import MockAnswerForm
from progress.mocks.middleware import DEADLINE_SESSION_KEY, SITTING_SESSION_KEY
from progress.mocks.models import MockExam, MockItem, seconds_until
from progress.mocks.moving import go_towards, may_move, sitting_shape, way_ahead
from progress.mocks.report import report_context
from progress.mocks.sections import section_index
from progress.practice.models import Quiz, Selection
from progress.readiness.standing import standings
from questions.models import Exam, Question
from questions.pages.forms import stored_values
from questions.pages.snapshot import QuestionPage, question_page, question_pages


def _get_mock_for_learner(request: AuthenticatedHttpRequest, code: str) -> MockExam:
    """The learner's sitting (404 for anyone else's), submitted first if its time ran out."""
    mock = get_object_or_404(
        MockExam.objects.select_related("exam"), code=code, learner=request.user
    )
    mock.learner = request.user  # known already: the report's forecast reads it
    mock.close_expired_section()
    if not mock.is_submitted and mock.time_is_up:
        mock.submit(at=mock.deadline)
    return mock


def _get_submitted_mock_for_learner(
    request: AuthenticatedHttpRequest, code: str
) -> MockExam | None:
    """The learner's submitted sitting; None while it is still being sat (the caller sends the
    learner back to it)."""
    mock = _get_mock_for_learner(request, code)
    return mock if mock.is_submitted else None


# Sent by the sitting's offline worker (static/js/mock-offline-worker.js) when it fetches a
# question page to keep, not to show: a GET that must not move the sitting on.
KEEP_HEADER = "X-Keep-Offline"


def _time_up_response(request: HtmxHttpRequest, mock: MockExam) -> HttpResponse:
    """A post that arrived after the deadline or the submission: refused, saying why. An
    htmx post gets the status line that says it (a page that sends saves itself shows it)
    and the way to the report (htmx goes there)."""
    if request.htmx:
        response = TemplateResponse(
            request, "progress/mocks/item.html#closed", {"mock": mock}, status=409
        )
        response["HX-Redirect"] = reverse("mock_report", args=[mock.code])
        return response
    return TemplateResponse(request, "progress/mocks/closed.html", {"mock": mock}, status=409)


def remember_sitting(request: HttpRequest, mock: MockExam) -> None:
    """Keep the sitting in the learner's session (one query): its deadline, so that
    ExpiredMockMiddleware submits it on any later page once time is up, and its length and
    questions, so that a save needs no read of its item (_save_known_item). Neither changes
    during a sitting; what can (a submission, a withdrawn question) the save checks."""
    request.session[DEADLINE_SESSION_KEY] = mock.deadline.timestamp()
    uids = mock.items.order_by("position").values_list("question__uid", flat=True)
    request.session[SITTING_SESSION_KEY] = {
        "code": mock.code,
        "count": mock.question_count,
        "uids": list(uids),
        **sitting_shape(mock),
    }


@require_http_methods(["GET", "POST"])
@login_required
def mock_start(request: AuthenticatedHttpRequest, exam_slug: str) -> HttpResponse:
    exam = get_object_or_404(Exam, slug=exam_slug, mock_question_count__isnull=False)
    learner = request.user
    MockExam.objects.submit_expired(learner)
    current = MockExam.objects.for_learner(learner).in_progress().filter(exam=exam).first()
    if request.method == "POST":
        # The forecast as it stands now, for the report to set the score against.
        before = None if current else standings(learner, [exam])[0].figures()
        mock = current or MockExam.objects.start(learner=learner, exam=exam, forecast_before=before)
        if mock.question_count == 0:
            mock.delete()
            messages.error(request, "This exam has no published questions yet.")
            return redirect(reverse("exam_detail", args=[exam.slug]))
        # mock_resume keeps the sitting in the session (remember_sitting).
        return redirect(reverse("mock_resume", args=[mock.code]))
    plan = plan_mock(exam)
    allowance = allowance_for(learner.pk, exam.pk)
    context = {
        "exam": exam,
        "allowance": allowance,
        "minutes": minutes_with(exam.mock_duration_minutes or 0, allowance),
        "plan": plan,
        "short": [draw for draw in plan if draw.short],
        "drawn": sum(draw.drawn for draw in plan),
        "current": current,
        "sections": list(exam.mock_sections.all()),
    }
    return TemplateResponse(request, "progress/mocks/start.html", context)


@require_GET
@login_required
def mock_resume(request: AuthenticatedHttpRequest, code: str) -> HttpResponse:
    mock = _get_mock_for_learner(request, code)
    if mock.is_submitted:
        return redirect(reverse("mock_report", args=[mock.code]))
    remember_sitting(request, mock)
    first_open = (
        mock.items.filter(chosen_keys=[], question__in=Question.objects.published())
        .filter(position__gte=mock.open_from, position__lt=mock.open_to)
        .order_by("position")
        .first()
    )
    number = (first_open.position if first_open else mock.open_from) + 1
    return redirect(reverse("mock_item", args=[mock.code, number]))


@require_http_methods(["GET", "POST"])
@login_required
def mock_item(request: AuthenticatedHttpRequest, code: str, number: int) -> HttpResponse:
    if request.method == "POST" and (saved := _save_known_item(request, code, number)):
        return saved
    item = item_query.learner_item(request.user.pk, code, number - 1) if number > 0 else None
    if item is None:
        raise Http404("No such mock exam question")
    mock = item.mock
    mock.close_expired_section()
    if not mock.is_submitted and mock.time_is_up:
        mock.submit(at=mock.deadline)
    if mock.is_submitted:
        if request.method == "POST":
            return _time_up_response(request, mock)
        return redirect(reverse("mock_report", args=[mock.code]))
    if not mock.is_open(item.position):
        if request.method == "POST" or item.position < mock.open_from:
            return _closed_response(request, mock, number)
        if request.headers.get(KEEP_HEADER):
            # The page's offline worker keeping the sitting's pages, not the learner moving:
            # a question ahead is not kept, and the sitting does not move on for it.
            return HttpResponse(status=204)
        # Only a POST moves the sitting on (progress/mocks/moving.py): asked for by a GET,
        # the question ahead is where the learner may go next, and the page asks first.
        return way_ahead(mock, item.position) or _move_on_page(request, mock, number)
    if item.question is not None and not item.question.is_published:
        # Sent back to review during the sitting: not shown, nothing saved, not scored.
        status = 410 if request.method == "POST" else 200
        return _render_mock_item(request, item, None, None, status=status, withdrawn=True)
    page = question_page(item.question.uid) if item.question else None
    if request.method == "POST":
        if page is None:
            return redirect(
                reverse("mock_item", args=[mock.code, min(number + 1, mock.question_count)])
            )
        form = MockAnswerForm(page, mock.question_count, request.POST)
        if not form.is_valid():
            if request.htmx:  # the reason, in the page's status line (422: htmx swaps it)
                context = {"mock": mock, "number": number, "form": form}
                return TemplateResponse(
                    request, "progress/mocks/item.html#saved", context, status=422
                )
            return _render_mock_item(request, item, page, form, status=400)
        chosen, flagged = form.cleaned_data["chosen"], form.cleaned_data["flagged"]
        # Serialised with the submission on the sitting's row (see item_query.save_answer).
        seq = form.cleaned_data["seq"]
        if item.answer_seq >= seq:  # sent again, or sent late after a later save
            return _after_save(
                request, mock.code, mock.question_count, mock.pk, number, form, item, mock=mock
            )
        if not item_query.save_answer(item, chosen, flagged=flagged, seq=seq):
            mock.refresh_from_db()
            if mock.is_submitted or mock.time_is_up:
                if not mock.is_submitted:
                    mock.submit(at=mock.deadline)
                return _time_up_response(request, mock)
            # A later save landed since the item was read: the stored answer stands.
            kept = MockItem.objects.get(pk=item.pk)
            return _after_save(
                request, mock.code, mock.question_count, mock.pk, number, form, kept, mock=mock
            )
        return _after_save(
            request, mock.code, mock.question_count, mock.pk, number, form, mock=mock
        )
    if request.session.get(SITTING_SESSION_KEY, {}).get("code") != mock.code:
        remember_sitting(request, mock)  # opened from another session: saves go short next
    return _render_mock_item(
        request,
        item,
        page,
        MockAnswerForm(page, mock.question_count, saved=stored_values(page, item.chosen_keys))
        if page
        else None,
    )


def _closed_response(request: HtmxHttpRequest, mock: MockExam, number: int) -> HttpResponse:
    """A question out of the sitting's window, asked for or posted to: refused, changing
    nothing, saying why and where the sitting is (htmx: the page is stale, its section
    closed under it: the status line says the answer was not saved, and htmx goes where the
    sitting is)."""
    if request.htmx:
        response = TemplateResponse(
            request, "progress/mocks/item.html#section_closed", {"mock": mock}, status=409
        )
        response["HX-Redirect"] = reverse("mock_resume", args=[mock.code])
        return response
    context = {"mock": mock, "number": number, "current": mock.open_from + 1}
    return TemplateResponse(request, "progress/mocks/closed_item.html", context, status=403)


def _move_on_page(request: HttpRequest, mock: MockExam, number: int) -> HttpResponse:
    """The question ahead that the learner may move on to, asked for by a GET: what moving
    on does, and the button that does it (mock_move_on). Nothing moves before the POST."""
    sections = mock.sitting_sections
    entering = number - 1 >= mock.current_section.end
    context = {
        "mock": mock,
        "number": number,
        "current": mock.open_from + 1,
        "next_section": sections[mock.section_at + 1] if entering else None,
        **_timer(mock),
    }
    return TemplateResponse(request, "progress/mocks/move_on.html", context)


@require_POST
@login_required
def mock_move_on(request: AuthenticatedHttpRequest, code: str, number: int) -> HttpResponse:
    """Move the sitting on to question `number`: the next one of a forward-only exam, or
    the first of the next section (progress/mocks/moving.py); else go where the sitting is."""
    mock = _get_mock_for_learner(request, code)
    if mock.is_submitted:
        return _time_up_response(request, mock)
    if not 1 <= number <= mock.question_count:
        raise Http404("No such mock exam question")
    moved = go_towards(mock, number - 1)
    return moved or redirect(reverse("mock_item", args=[mock.code, number]))


def _save_known_item(
    request: AuthenticatedHttpRequest, code: str, number: int
) -> HttpResponse | None:
    """The usual save, in one statement, for the sitting the session knows
    (remember_sitting): the answer is checked against the item's question's cached page and
    saved without reading the item (item_query.save_known_answer). None sends the
    request the full way, which says why it fails: another sitting, a question gone or
    withdrawn, an answer refused, the time up or the sitting submitted."""
    sitting = request.session.get(SITTING_SESSION_KEY)
    if not sitting or sitting["code"] != code or not 1 <= number <= len(sitting["uids"]):
        return None
    uid = sitting["uids"][number - 1]
    page = question_page(uid) if uid else None
    if page is None:
        return None
    form = MockAnswerForm(page, sitting["count"], request.POST)
    if not form.is_valid():
        return None
    chosen, flagged = form.cleaned_data["chosen"], form.cleaned_data["flagged"]
    mock_id = item_query.save_known_answer(
        request.user.pk,
        code,
        number - 1,
        uid,
        chosen,
        flagged=flagged,
        seq=form.cleaned_data["seq"],
    )
    if mock_id is None:
        return None
    return _after_save(request, code, sitting["count"], mock_id, number, form)


def _after_save(
    request: HtmxHttpRequest,
    code: str,
    count: int,
    mock_id: int,
    number: int,
    form: MockAnswerForm,
    kept: MockItem | None = None,
    mock: MockExam | None = None,
) -> HttpResponse:
    """Where a saved answer leaves the learner: with htmx (a ticked option, the flag, or a
    save the page sends itself) the page stays, and only what the save changes is sent: the
    status line, this question's navigator cell and the answered count (one query); else
    the page `go` asked for, with a message that says it was saved. `kept` is the item as
    stored when this save was not applied because it was no later than the stored one."""
    chosen, flagged = form.cleaned_data["chosen"], form.cleaned_data["flagged"]
    superseded = kept is not None and kept.answer_seq > form.cleaned_data["seq"]
    if kept is not None:
        chosen, flagged = kept.chosen_keys, kept.flagged
    saved_at = timezone.now()
    if request.htmx:
        context = {
            "number": number,
            "saved_answer": bool(chosen),
            "saved_at": saved_at,
            "superseded": superseded,
            "cell": {"number": number, "answered": bool(chosen), "flagged": flagged},
            # Counted as the navigator counts: a withdrawn question's answer is not kept.
            "answered": MockItem.objects.filter(mock_id=mock_id)
            .exclude(chosen_keys=[])
            .filter(Q(question__isnull=True) | Q(question__in=Question.objects.published()))
            .count(),
        }
        return TemplateResponse(request, "progress/mocks/item.html#saved", context)
    if superseded:
        messages.info(
            request, f"Question {number} already had a later answer saved: this one was not kept."
        )
    else:
        at = timezone.localtime(saved_at).strftime("%H:%M:%S %Z")
        messages.success(request, f"Question {number} saved at {at}.")
    go = form.cleaned_data["go"]
    named = {"next": number + 1, "prev": number - 1, "review": count + 1}
    target = named[go] if go in named else int(go)
    if target > count:
        return redirect(reverse("mock_submit", args=[code]))
    target = max(target, 1)
    if mock is None:
        # Read the sitting only when the session's copy of its shape says going on might
        # move it (or the session keeps another): most saves go where it is open already.
        sitting = request.session.get(SITTING_SESSION_KEY)
        known = sitting if sitting and sitting.get("code") == code else None
        if may_move(known, number, target):
            mock = MockExam.objects.get(pk=mock_id)
    if mock is not None and (moved := go_towards(mock, target - 1)):
        return moved
    return redirect(reverse("mock_item", args=[code, target]))


def _navigator(mock: MockExam) -> list[dict[str, Any]]:
    """Every question's state, for the navigator; a withdrawn question is neither answered
    nor open; a closed one (a finished section, or passed in a forward-only exam) cannot be
    opened again. One query, whatever the exam length."""
    live = Exists(Question.objects.published().filter(pk=OuterRef("question_id")))
    rows = (
        mock.items.annotate(live=live)
        .order_by("position")
        .values_list("position", "chosen_keys", "flagged", "question_id", "live")
    )
    return [
        {
            "number": position + 1,
            "answered": bool(chosen) and (live or question_id is None),
            "flagged": flagged,
            "withdrawn": question_id is not None and not live,
            "closed": position < mock.open_from,
        }
        for position, chosen, flagged, question_id, live in rows
    ]


def _by_section(mock: MockExam, cells: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The navigator's cells grouped by the sitting's sections (one group, untitled, when
    the exam has none), each with what the review screen says of it."""
    groups = []
    for index, section in enumerate(mock.sitting_sections):
        mine = cells[section.first : section.end]
        groups.append(
            {
                "number": index + 1,
                "section": section,
                "cells": mine,
                "answered": sum(1 for cell in mine if cell["answered"]),
                "closed": bool(mine) and all(cell["closed"] for cell in mine),
                "current": index == mock.section_at,
                "ahead": index > mock.section_at,
            }
        )
    return groups


def _timer(mock: MockExam) -> dict[str, Any]:
    """The countdown: the exam's time, or the section's own when it runs out first; and the
    moment it counts to, in milliseconds, from which a page kept offline counts down."""
    seconds = mock.seconds_left
    if mock.section_deadline is not None:
        section_seconds = seconds_until(mock.section_deadline)
        if section_seconds < seconds:
            return {
                "seconds_left": section_seconds,
                "timer_total": 60 * (mock.current_section.minutes or 0),
                "timer_of_section": True,
                "deadline_at": int(mock.section_deadline.timestamp() * 1000),
            }
    return {"seconds_left": seconds, "deadline_at": int(mock.deadline.timestamp() * 1000)}


def _render_mock_item(
    request: HttpRequest,
    item: MockItem,
    page: QuestionPage | None,
    form: MockAnswerForm | None,
    status: int = 200,
    withdrawn: bool = False,
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
        "groups": _by_section(mock, navigator),
        "section": mock.current_section,
        "section_number": mock.section_at + 1,
        "can_go_back": item.position > mock.open_from,
        "ends_section": item.position + 1 == mock.current_section.end and not mock.is_last_section,
        "withdrawn": withdrawn,
        **_timer(mock),
        # On the server's clock, in milliseconds: the page orders its saves by it and
        # counts down from the deadline even when it was kept for offline use.
        "served_at": int(timezone.now().timestamp() * 1000),
    }
    return TemplateResponse(request, "progress/mocks/item.html", context, status=status)


@require_http_methods(["GET", "POST"])
@login_required
def mock_submit(request: AuthenticatedHttpRequest, code: str) -> HttpResponse:
    mock = _get_mock_for_learner(request, code)
    if mock.is_submitted:
        if request.method == "POST":
            return _time_up_response(request, mock)
        return redirect(reverse("mock_report", args=[mock.code]))
    if request.method == "POST":
        mock.submit()
        request.session.pop(DEADLINE_SESSION_KEY, None)
        request.session.pop(SITTING_SESSION_KEY, None)
        return redirect(reverse("mock_report", args=[mock.code]))
    navigator = _navigator(mock)
    context = {
        "mock": mock,
        "navigator": navigator,
        "groups": _by_section(mock, navigator),
        "unanswered": [c for c in navigator if not c["answered"] and not c["withdrawn"]],
        "flagged": [cell for cell in navigator if cell["flagged"] and not cell["withdrawn"]],
        "withdrawn": [cell for cell in navigator if cell["withdrawn"]],
        **_timer(mock),
    }
    return TemplateResponse(request, "progress/mocks/submit.html", context)


@require_http_methods(["GET", "POST"])
@login_required
def mock_finish_section(request: AuthenticatedHttpRequest, code: str, number: int) -> HttpResponse:
    """The warning before leaving a section (it locks, or its time is its own), and the
    POST that leaves it. Works without JavaScript: a page and a form."""
    mock = _get_mock_for_learner(request, code)
    if mock.is_submitted:
        if request.method == "POST":
            return _time_up_response(request, mock)
        return redirect(reverse("mock_report", args=[mock.code]))
    if number != mock.section_at + 1:
        # Finished already (another tab, its time ran out), or not reached yet.
        return redirect(reverse("mock_resume", args=[mock.code]))
    if request.method == "POST":
        if mock.is_last_section:
            return redirect(reverse("mock_submit", args=[mock.code]))
        mock.enter_next_section()
        return redirect(reverse("mock_item", args=[mock.code, mock.current_section.first + 1]))
    navigator = _navigator(mock)
    section = mock.current_section
    cells = navigator[section.first : section.end]
    context = {
        "mock": mock,
        "section": section,
        "section_number": number,
        "unanswered": [c for c in cells if not c["answered"] and not c["withdrawn"]],
        "flagged": [c for c in cells if c["flagged"] and not c["withdrawn"]],
        "next_section": None if mock.is_last_section else mock.sitting_sections[number],
        **_timer(mock),
    }
    return TemplateResponse(request, "progress/mocks/finish_section.html", context)


@require_GET
@login_required
def mock_report(request: AuthenticatedHttpRequest, code: str) -> HttpResponse:
    mock = _get_submitted_mock_for_learner(request, code)
    if mock is None:
        return redirect(reverse("mock_resume", args=[code]))
    return TemplateResponse(request, "progress/mocks/report.html", report_context(mock))


@require_GET
@login_required
def mock_review(request: AuthenticatedHttpRequest, code: str) -> HttpResponse:
    mock = _get_submitted_mock_for_learner(request, code)
    if mock is None:
        return redirect(reverse("mock_resume", args=[code]))
    # The review opens on what needs attention: the questions answered wrong or left blank.
    show = request.GET.get("show", "wrong")
    topic_slug = request.GET.get("topic", "")
    if show not in {"all", "wrong", "flagged"}:
        show = "wrong"
    selected = mock.items.select_related("question", "topic").order_by("position")
    if show == "wrong":
        selected = selected.filter(is_correct=False)
    elif show == "flagged":
        selected = selected.filter(flagged=True)
    if topic_slug:
        selected = selected.filter(topic__slug=topic_slug)
    items = list(selected)
    # Withdrawn at submission (not scored) or since: nothing of the question is shown.
    withdrawn = {item.pk for item in items if item.is_withdrawn}
    pages = question_pages(
        item.question.uid for item in items if item.question and item.pk not in withdrawn
    )
    rows = []
    sections = mock.sitting_sections
    for item in items:
        page = pages.get(item.question.uid) if item.question else None
        grade = page.grade(item.chosen_keys) if page else None
        rows.append(
            {
                "number": item.position + 1,
                "item": item,
                "section": sections[section_index(sections, item.position)].title,
                "withdrawn": item.pk in withdrawn,
                "page": page,
                "grade": grade,
                **(page.result_context(grade) if page and grade else {"breakdown": []}),
                "snippet": page.snippet if page else "",
            }
        )
    context = {
        "mock": mock,
        "rows": rows,
        "show": show,
        "topic_slug": topic_slug,
        "topics": list(mock.exam.topics.order_by("position").only("slug", "title")),
    }
    return TemplateResponse(request, "progress/mocks/review.html", context)


@require_POST
@login_required
def mock_practise_missed(request: AuthenticatedHttpRequest, code: str) -> HttpResponse:
    mock = _get_mock_for_learner(request, code)
    if not mock.is_submitted:
        return _time_up_response(request, mock)
    missed = (
        Question.objects.published()
        .filter(pk__in=mock.items.exclude(is_correct=True).values("question_id"))
        .order_by("pk")
    )
    quiz = Quiz.objects.start(
        learner=request.user,
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


@require_GET
def mock_offline_worker(request: HttpRequest) -> HttpResponse:
    """The service worker that keeps a sitting's question pages for offline use
    (static/js/mock-offline-worker.js). Served here rather than under /static/ because a
    worker can only control pages at or below its own address, and each sitting registers
    it with the sitting's address as its scope. The same for everyone: no personal data."""
    response = HttpResponse(_offline_worker_source(), content_type="text/javascript")
    response["Cache-Control"] = "no-cache"  # a new version is picked up at the next visit
    return response


def _offline_worker_source() -> bytes:
    """Read at each request (a few kilobytes, no query): an edit shows without a restart."""
    path = finders.find("js/mock-offline-worker.js")
    assert isinstance(path, str), "static/js/mock-offline-worker.js is missing"
    return Path(path).read_bytes()
