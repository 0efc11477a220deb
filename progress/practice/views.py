"""The practice pages: quizzes, the answer history, bookmarks, and the learner's note, bookmark
and problem report on a question.

Every view is for a signed-in learner and reaches rows only through that learner: another
learner's quiz is a 404, never a 403, so that codes are not confirmed. Nothing a learner posts
about a question names another learner's row (the question's uid and the signed-in learner
find it), and a question a learner may not see (a draft, one in review, an unknown uid) is a
404 on every URL here.
"""

import random
from datetime import timedelta
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import OuterRef, Subquery
from django.http import Http404, HttpResponse, HttpResponseBadRequest, HttpResponseRedirect
from django.shortcuts import get_object_or_404, redirect
from django.template.defaultfilters import pluralize
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from courseiva.http import invalid_form_status
from courseiva.lib.shared_html import fill_slot
from progress.accounts.http import AuthenticatedHttpRequest
from progress.accounts.models import User
from progress.practice.builder import retry_missed
from progress.practice.finishing import as_post, finish, save_answer
from progress.practice.forms import HistoryFilterForm, NoteForm, ReportForm
from progress.practice.item_query import learner_item
from progress.practice.marks import Bookmark, Note, ProblemReport
from progress.practice.models import Attempt, Quiz, QuizItem, Selection, Source
from progress.practice.public_pages import PANEL_TEMPLATE, Panel
from progress.practice.recording import record_attempt
from progress.practice.today import goal_of, plan_of, todays_questions
from progress.templatetags.learner import seconds_as_clock
from questions.markup import quick_snippet
from questions.models import Exam, Question, Topic
from questions.pages.forms import AnswerForm
from questions.pages.snapshot import QUESTION_TEMPLATE, QuestionPage, page_html, question_page
from questions.pages.views import render_question

HISTORY_PAGE_SIZE = 25
BOOKMARKS_PAGE_SIZE = 25
QUESTION_TEXT_FIELDS = ("stem", "trap", "explanation", "references", "tags")


def _get_quiz_for_learner(request: AuthenticatedHttpRequest, code: str) -> Quiz:
    return get_object_or_404(
        Quiz.objects.select_related("exam", "topic"), code=code, learner=request.user
    )


def _get_item_for_learner(request: AuthenticatedHttpRequest, code: str, number: int) -> QuizItem:
    """Item `number` (1-based) of the learner's quiz, with its quiz, question and attempt,
    and the learner's bookmark and note on the question (`bookmarked`, `note_text`), for the
    panel under it: one query, written out (see item_query), the answer's most frequent."""
    item = learner_item(request.user.pk, code, number - 1) if number > 0 else None
    if item is None:
        raise Http404("No such quiz question")
    return item


def _get_question_for_learner(request: AuthenticatedHttpRequest, uid: str) -> tuple[User, Question]:
    """The signed-in learner and the question `uid`; drafts and questions in review exist
    only for staff, as on the question page. One query."""
    learner = request.user
    questions = Question.objects.all() if learner.is_staff else Question.objects.published()
    return learner, get_object_or_404(questions, uid=uid)


def _shown(question: Question | None) -> Question | None:
    """The question if learners may still see it: a deleted or withdrawn one shows nothing."""
    return question if question is not None and question.is_published else None


def _question_url(question: Question) -> str:
    return reverse("question_detail", args=[question.uid])


def _back_url(request: AuthenticatedHttpRequest, question: Question) -> str:
    """Where a plain post from the learner's panel returns: the page it came from (a quiz
    question) when it says so and stays on this site, else the question's own page."""
    candidate = request.POST.get("next", "")
    if candidate and url_has_allowed_host_and_scheme(
        candidate, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return candidate
    return _question_url(question)


@require_POST
@login_required
def today_practice(request: AuthenticatedHttpRequest, exam_slug: str) -> HttpResponse:
    """Start today's part of the learner's study plan for the exam as a quiz."""
    learner = request.user
    goal = goal_of(learner, exam_slug)
    if goal is None:
        messages.info(request, "Set the date of your exam first: the plan is built to it.")
        return redirect(f"{reverse('study_goal')}?exam={exam_slug}")
    standing, planned = plan_of(learner, goal)
    rng = random.Random()  # noqa: S311 - a quiz's order, not a secret
    chosen = todays_questions(learner, standing, planned, rng)
    quiz = None
    if chosen:
        quiz = Quiz.objects.start(
            learner=learner,
            exam=goal.exam,
            topic=None,
            selection=Selection.PLAN,
            length=len(chosen),
            question_ids=chosen,
        )
    if quiz is None:
        messages.info(
            request,
            "Nothing is planned for today: it is exam day. Good luck!"
            if planned.today is None
            else f"{goal.exam.code} has no published questions to practise yet.",
        )
        return redirect(reverse("study_plan", args=[goal.exam.slug]))
    return redirect(reverse("quiz_item", args=[quiz.code, 1]))


def _settle(request: AuthenticatedHttpRequest, quiz: Quiz) -> None:
    """End a quiz whose time limit ran out (the learner may never have come back), at its
    deadline on the server's clock: its saved answers, with the answers at the end, are
    graded then. Nothing when it is untimed, paused with time left, or over."""
    left = quiz.seconds_left()
    if quiz.is_finished or left is None or left > 0:
        return
    assert quiz.time_limit is not None
    at = timezone.now()
    if quiz.clock_since is not None:
        at = min(at, quiz.clock_since + quiz.time_limit - quiz.time_used)
    if finish(quiz, at=at):
        messages.info(request, "Time is up: the quiz ended at its time limit.")


@require_GET
@login_required
def quiz_resume(request: AuthenticatedHttpRequest, code: str) -> HttpResponse:
    """Where the learner left off: the first question not answered (with the answers at the
    end, not saved), or the summary."""
    quiz = _get_quiz_for_learner(request, code)
    _settle(request, quiz)
    _note_withdrawn(request, quiz)
    item = None if _closed(quiz) else quiz.next_item()
    if item is None:
        if not quiz.answers_at_end:
            quiz.finish_if_stuck()
        return redirect(reverse("quiz_summary", args=[quiz.code]))
    return redirect(reverse("quiz_item", args=[quiz.code, item.position + 1]))


@require_POST
@login_required
def quiz_pause(request: AuthenticatedHttpRequest, code: str) -> HttpResponse:
    """Leave the quiz for now, its clock stopped: it waits in the quizzes in progress."""
    quiz = _get_quiz_for_learner(request, code)
    _settle(request, quiz)
    if not quiz.is_finished:
        quiz.run_clock(False)
        left = quiz.seconds_left()
        clock = f" with {seconds_as_clock(left)} left on its clock" if left is not None else ""
        messages.success(
            request, f"Quiz paused{clock}: continue it from “Quizzes in progress” when you like."
        )
    return redirect(reverse("progress_home"))


@require_POST
@login_required
def quiz_finish(request: AuthenticatedHttpRequest, code: str) -> HttpResponse:
    """End a quiz with the answers at the end: its saved answers are graded, and the results
    with every question's answer and explanation are shown."""
    quiz = _get_quiz_for_learner(request, code)
    _settle(request, quiz)
    if not quiz.is_finished and finish(quiz):
        messages.success(request, "Quiz finished: here are your answers, graded.")
    return redirect(reverse("quiz_summary", args=[quiz.code]))


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
def quiz_item(request: AuthenticatedHttpRequest, code: str, number: int) -> HttpResponse:
    item = _get_item_for_learner(request, code, number)
    quiz = item.quiz
    _settle(request, quiz)
    if item.question is None:
        messages.info(request, "That question has been removed from the bank since.")
        return redirect(reverse("quiz_resume", args=[quiz.code]))
    if not item.question.is_published:
        return _withdrawn_item(request, item)
    page = question_page(item.question.uid)
    if page is None:  # deleted between the two lookups
        raise Http404("No such question")
    attempt = getattr(item, "attempt", None)
    if attempt is None and _closed(quiz):
        return _closed_item(request, quiz, posted=request.method == "POST")
    if quiz.answers_at_end and not quiz.is_finished:
        return _item_for_the_end(request, item, page)
    if request.method == "POST" and attempt is None:
        form = AnswerForm(page, request.POST)
        if not form.is_valid():
            return _render_item(request, item, page, form, status=invalid_form_status(request))
        attempt, _ = record_attempt(
            learner=request.user,
            page=page,
            grade=page.grade(form.response),
            source=Source.QUIZ,
            served_at=item.served_at,
            quiz_item=item,
        )  # it sets the quiz's counters as the answer left them
    elif attempt is None:
        quiz.run_clock(True)  # opening a paused quiz runs its clock again
        if item.served_at is None:
            item.served_at = timezone.now()
            QuizItem.objects.filter(pk=item.pk, served_at__isnull=True).update(
                served_at=item.served_at
            )
    # Answered (now or before, in another tab): the recorded answer is what counts.
    return _render_item(request, item, page, AnswerForm(page), attempt=attempt)


def _closed(quiz: Quiz) -> bool:
    """Over for good: stopped, out of time, or finished with the answers at the end (an
    unanswered question of those cannot be answered any more)."""
    return quiz.is_finished and (quiz.abandoned or bool(quiz.time_limit) or quiz.answers_at_end)


def _closed_item(request: AuthenticatedHttpRequest, quiz: Quiz, *, posted: bool) -> HttpResponse:
    """An unanswered question of a quiz that is over: a visit, or an answer to a quiz the
    learner stopped, goes to the results; an answer after the time limit is refused and
    changes nothing (409), said on the page."""
    out_of_time = quiz.time_limit is not None and quiz.time_used >= quiz.time_limit
    if quiz.abandoned:
        text = "You stopped this quiz: the answers you gave are kept."
    elif not out_of_time:
        text = "This quiz is finished: its unanswered questions stay unanswered."
    else:
        text = "Time is up: the quiz ended at its time limit, and this answer was not recorded."
    if not (posted and out_of_time and not quiz.abandoned):
        messages.info(request, text.replace(", and this answer was not recorded", ""))
        return redirect(reverse("quiz_summary", args=[quiz.code]))
    if request.htmx:
        messages.info(request, text)
        return HttpResponseClientRedirect(reverse("quiz_summary", args=[quiz.code]))
    context = {"quiz": quiz, "text": text}
    return TemplateResponse(request, "progress/practice/closed.html", context, status=409)


def _item_for_the_end(
    request: AuthenticatedHttpRequest, item: QuizItem, page: QuestionPage
) -> HttpResponse:
    """A question of a quiz with the answers at the end, before it is finished: the answer
    is saved (and may be changed) but not graded, and the page shows no verdict, correct
    answer or explanation; a saved answer goes on to the next question."""
    quiz = item.quiz
    if request.method == "POST":
        form = AnswerForm(page, request.POST)
        if not form.is_valid():
            return _render_item(request, item, page, form, status=invalid_form_status(request))
        if not save_answer(item, request.POST):  # the quiz ended a moment ago
            return _closed_item(request, quiz, posted=True)
        number = item.position + 1
        after = (
            reverse("quiz_item", args=[quiz.code, number + 1])
            if number < quiz.item_count
            else reverse("quiz_summary", args=[quiz.code])
        )
        messages.success(request, f"Answer {number} saved.")
        return HttpResponseClientRedirect(after) if request.htmx else redirect(after)
    quiz.run_clock(True)
    if item.served_at is None:
        item.served_at = timezone.now()
        QuizItem.objects.filter(pk=item.pk, served_at__isnull=True).update(served_at=item.served_at)
    form = AnswerForm(page, as_post(item.saved)) if item.saved is not None else AnswerForm(page)
    return _render_item(request, item, page, form)


def _note_withdrawn(request: AuthenticatedHttpRequest, quiz: Quiz) -> None:
    """Count the quiz's questions withdrawn since it started, and tell the learner when that
    shortened it."""
    before = quiz.withdrawn_count
    if quiz.count_withdrawn() > before and not quiz.is_finished:
        count = quiz.withdrawn_count
        messages.info(
            request,
            f"{count} question{pluralize(count)} of this quiz {pluralize(count, 'was,were')} "
            "withdrawn for review: the quiz skips "
            f"{pluralize(count, 'it,them')} and is {quiz.tally().to_answer} long now.",
        )


def _withdrawn_item(request: AuthenticatedHttpRequest, item: QuizItem) -> HttpResponse:
    """A quiz question sent back to review or draft since the quiz started: nothing of it is
    shown and nothing posted to it is recorded (410). An htmx answer, whose error would not be
    swapped in, is sent on to the next question with a message saying why."""
    quiz = item.quiz
    quiz.count_withdrawn()
    if request.htmx:
        messages.info(
            request,
            f"Question {item.position + 1} was withdrawn for review: your answer was not kept, "
            "and the quiz skips it.",
        )
        return HttpResponseClientRedirect(reverse("quiz_resume", args=[quiz.code]))
    context = {"quiz": quiz, "item_number": item.position + 1, "tally": quiz.tally()}
    return TemplateResponse(request, "progress/practice/withdrawn.html", context, status=410)


def _render_item(
    request: AuthenticatedHttpRequest,
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
        # The question page's learner slots: the quiz's progress above, the way on below.
        "quiz_header_template": "progress/practice/_quiz_header.html",
        "quiz_next_template": "progress/practice/_quiz_next.html",
        "item": item,
        "seconds_left": None if quiz.is_finished else quiz.seconds_left(),
        "total_seconds": int(quiz.time_limit.total_seconds()) if quiz.time_limit else 0,
    }
    if quiz.answers_at_end and not quiz.is_finished:
        context["answer_button"] = "Save answer"
    if attempt is not None:
        grade = page.grade(str(choice.get("key", "")) for choice in attempt.chosen)
        context.update(page.result_context(grade), attempt=attempt)
    template = QUESTION_TEMPLATE
    shared_result = attempt is not None and status == 200 and page.is_published
    if request.htmx and shared_result:
        return HttpResponse(_quiz_result(request, page, context, oob=True))
    if shared_result:
        # The whole page around the same result: our rendering, authors' markup sanitised.
        result = _quiz_result(request, page, context, oob=False)
        context["result_html"] = mark_safe(result)  # noqa: S308
    if request.htmx:
        template += "#result" if attempt is not None else "#answer_form"
        context["quiz_header_oob"] = True
    else:
        # The learner's panel (bookmark, note, report) as on the question's own page, from
        # the item's own query; the quiz item times the answer itself, so no served-at token.
        context["learner_panel"] = PANEL_TEMPLATE
        context["panel"] = Panel(
            uid=page.uid,
            bookmarked=bool(getattr(item, "bookmarked", False)),
            note_form=NoteForm(initial={"text": getattr(item, "note_text", None) or ""}),
        )
        # Without JavaScript, bookmarking or saving a note comes back to the quiz.
        context["panel_next"] = request.path
    return TemplateResponse(request, template, context, status=status)


QUIZ_NEXT_SLOT = "<!-- quiz-next-slot -->"


def _quiz_result(
    request: AuthenticatedHttpRequest, page: QuestionPage, context: dict[str, Any], *, oob: bool
) -> str:
    """An answered quiz question's result: what the htmx form swaps in, and the middle of the
    whole page. It is the same for every learner who chose the same options, so it is
    rendered once per question version and choice (as the visitor's result is), with a slot
    where this quiz's own part goes: the way on (and for htmx the header, out of band),
    rendered for this request. Authors' markup is sanitised, which drops comments, so the
    slot cannot come from a question."""
    grade = context["grade"]
    shared = {
        "page": page,
        "grade": grade,
        "breakdown": context["breakdown"],
        "part_rows": context["part_rows"],
        "quiz_next_template": "progress/practice/_quiz_next_slot.html",
    }
    variant = "quiz:" + grade.variant
    html = page_html(request, page, f"{QUESTION_TEMPLATE}#result", shared, variant)
    own = render_to_string(
        "progress/practice/_quiz_next.html", {**context, "quiz_header_oob": oob}, request=request
    )
    return fill_slot(html, QUIZ_NEXT_SLOT, own)


@require_GET
@login_required
def quiz_summary(request: AuthenticatedHttpRequest, code: str) -> HttpResponse:
    quiz = _get_quiz_for_learner(request, code)
    _settle(request, quiz)
    _note_withdrawn(request, quiz)
    items = list(quiz.items.select_related("question", "attempt").order_by("position"))
    answered = [item for item in items if getattr(item, "attempt", None) is not None]
    right = sum(1 for item in answered if item.attempt.is_correct)
    partly_right = sum(1 for item in answered if item.attempt.is_partly_right)
    marks = sum(item.attempt.score for item in answered)
    spent = sum((item.attempt.time_spent or timedelta(0) for item in answered), timedelta(0))
    rows = []
    retry_count = 0  # retrying draws only the questions still published
    for item in items:
        # Answers given before a question was withdrawn stay in the score; its text goes.
        attempt: Attempt | None = getattr(item, "attempt", None)
        shown = _shown(item.question)
        rows.append(
            {
                "number": item.position + 1,
                "item": item,
                "attempt": attempt,
                "withdrawn": item.question is not None and shown is None,
                "snippet": quick_snippet(shown.stem, 140) if shown else "",
            }
        )
        retry_count += bool(shown and attempt and not attempt.is_correct)
    context = {
        "quiz": quiz,
        "rows": rows,
        # With the answers at the end, before the end: which are saved, nothing graded.
        "pending": quiz.answers_at_end and not quiz.is_finished,
        "seconds_left": None if quiz.is_finished else quiz.seconds_left(),
        "saved_count": sum(1 for item in items if item.saved is not None),
        "total": len(items) - quiz.withdrawn_count,
        "withdrawn": quiz.withdrawn_count,
        "answered": len(answered),
        "right": right,
        "partly_right": partly_right,
        "wrong": len(answered) - right - partly_right,
        "retry_count": retry_count,
        # The score: a partly right answer counts its share.
        "percent": round(100 * marks / len(answered)) if answered else 0,
        "time_spent": spent,
        "next_item": quiz.next_item() if not quiz.is_finished else None,
    }
    return TemplateResponse(request, "progress/practice/quiz_summary.html", context)


@require_POST
@login_required
def quiz_abandon(request: AuthenticatedHttpRequest, code: str) -> HttpResponse:
    """Stop a quiz in progress: its answers stay, it leaves the quizzes in progress."""
    quiz = _get_quiz_for_learner(request, code)
    _settle(request, quiz)
    if quiz.answers_at_end and not quiz.is_finished:
        finish(quiz)  # the answers saved so far are graded, as at the end
        Quiz.objects.filter(pk=quiz.pk).update(abandoned=True)
        quiz.abandoned = True
        count = quiz.answered_count
        messages.success(
            request, f"Quiz stopped: your {count} saved answer{pluralize(count)} "
            f"{pluralize(count, 'is,are')} graded."
        )  # fmt: skip
    elif quiz.abandon():
        messages.success(
            request, f"Quiz stopped after {quiz.answered_count} of {quiz.item_count}: "
            "the answers you gave are kept."
        )  # fmt: skip
    return redirect(reverse("quiz_summary", args=[quiz.code]))


@require_POST
@login_required
def quiz_retry(request: AuthenticatedHttpRequest, code: str) -> HttpResponse:
    quiz = _get_quiz_for_learner(request, code)
    retry = retry_missed(quiz)
    if retry is None:
        messages.info(request, "Nothing to retry: you missed none of these questions.")
        return redirect(reverse("quiz_summary", args=[quiz.code]))
    return redirect(reverse("quiz_item", args=[retry.code, 1]))


@require_GET
@login_required
def history(request: AuthenticatedHttpRequest) -> HttpResponse:
    learner = request.user
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
        if data["result"] == "right":
            attempts = attempts.filter(is_correct=True)
        elif data["result"] == "partly":  # some credit, not all: a question with parts
            attempts = attempts.filter(is_correct=False, score__gt=0)
        elif data["result"] == "wrong":
            attempts = attempts.filter(is_correct=False, score=0)
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
    rows = []
    for attempt in shown:
        # The answer stays in the history; a withdrawn question's text and options do not.
        question = _shown(attempt.question)
        withdrawn = attempt.question is not None and question is None
        rows.append(
            {
                "attempt": attempt,
                "withdrawn": withdrawn,
                "snippet": quick_snippet(question.stem, 120) if question else "",
                "chosen": []
                if withdrawn
                else [quick_snippet(text, 80) for text in attempt.chosen_texts],
                "note": notes.get(attempt.question_id) if attempt.question_id else None,
            }
        )
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
    return TemplateResponse(request, "progress/practice/history.html", context, status=status)


@require_POST
@login_required
def toggle_bookmark(request: AuthenticatedHttpRequest, uid: str) -> HttpResponse:
    """Posts the wanted state ("bookmarked" 1 or 0), so that a repeated post does not flip it
    back; without it, flips the current state."""
    learner, question = _get_question_for_learner(request, uid)
    wanted = request.POST.get("bookmarked")
    if wanted not in (None, "0", "1"):
        return HttpResponseBadRequest("bookmarked must be 0 or 1")
    if wanted is None:
        on = not Bookmark.objects.filter(learner=learner, question=question).exists()
    else:
        on = wanted == "1"
    Bookmark.objects.set(learner, question, on)
    if request.htmx:
        panel = Panel.of(learner, question.pk, question.uid)
        context = {"panel": panel, "panel_next": request.POST.get("next", "")}
        return TemplateResponse(request, PANEL_TEMPLATE + "#bookmark", context)
    messages.success(request, "Bookmarked." if on else "Bookmark removed.")
    return HttpResponseRedirect(_back_url(request, question))


@require_POST
@login_required
def save_note(request: AuthenticatedHttpRequest, uid: str) -> HttpResponse:
    learner, question = _get_question_for_learner(request, uid)
    form = NoteForm(request.POST)
    if not form.is_valid():
        panel = Panel.of(learner, question.pk, question.uid, note_form=form)
        if request.htmx:
            return TemplateResponse(
                request,
                PANEL_TEMPLATE + "#note",
                {"panel": panel},
                status=invalid_form_status(request),
            )
        return _question_page_with_panel(request, question, panel, status=400)
    note = Note.objects.write(learner, question, form.cleaned_data["text"])
    status = "Note saved." if note else "Note deleted."
    if request.htmx:
        panel = Panel.of(learner, question.pk, question.uid, status=status)
        context = {"panel": panel, "panel_next": request.POST.get("next", "")}
        return TemplateResponse(request, PANEL_TEMPLATE + "#note", context)
    messages.success(request, status)
    return HttpResponseRedirect(_back_url(request, question))


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
def report_problem(request: AuthenticatedHttpRequest, uid: str) -> HttpResponse:
    learner, question = _get_question_for_learner(request, uid)
    form = ReportForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        ProblemReport.objects.create(
            question=question,
            reporter=learner,
            kind=form.cleaned_data["kind"],
            details=form.cleaned_data["details"],
        )
        messages.success(request, "Thank you: your report was sent to the question's curators.")
        return HttpResponseRedirect(_question_url(question))
    context = {"question": question, "snippet": quick_snippet(question.stem, 200), "form": form}
    status = 400 if form.is_bound else 200
    return TemplateResponse(request, "progress/practice/report.html", context, status=status)


@require_GET
@login_required
def bookmarks(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The learner's bookmarked questions, newest first, with their notes. Two queries (count
    and page) whatever the number of bookmarks."""
    learner = request.user
    note = Note.objects.filter(learner=learner, question=OuterRef("question"))
    rows = (
        Bookmark.objects.filter(learner=learner)
        .select_related("question__topic__exam")
        .annotate(note_text=Subquery(note.values("text")[:1]))
        .order_by("-created_at", "-pk")
    )
    if not learner.is_staff:
        # A question taken back to draft stays bookmarked but is not shown until it returns.
        rows = rows.filter(question__in=Question.objects.published())
    page = Paginator(rows, BOOKMARKS_PAGE_SIZE).get_page(request.GET.get("page"))
    items = [
        (bookmark, quick_snippet(bookmark.question.stem, 200)) for bookmark in page.object_list
    ]
    return TemplateResponse(
        request, "progress/practice/bookmarks.html", {"page": page, "items": items}
    )


def _question_page_with_panel(
    request: AuthenticatedHttpRequest, question: Question, panel: Panel, status: int
) -> HttpResponse:
    """The whole question page with this panel (a plain post with an invalid note: the learner
    gets their text back with the reason)."""
    page = question_page(question.uid)
    if page is None:  # deleted since the access check
        return HttpResponseRedirect(reverse("home"))
    return render_question(request, page, AnswerForm(page), {"panel": panel}, status=status)
