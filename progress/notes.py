"""Bookmarks, private notes and problem reports on a question.

Every view reaches its rows through the signed-in learner and the question's uid: nothing a
learner posts names another learner's row, so there is nothing to tamper with. A question a
learner may not see (a draft, one in review, an unknown uid) is a 404 on every URL here.
"""

from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Exists, OuterRef, Subquery
from django.http import (
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    HttpResponseRedirect,
)
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from courseiva.http import HtmxHttpRequest
from progress.accounts.models import User
from progress.practice.models import Bookmark, Note, ProblemReport, ReportKind
from questions.forms import AnswerForm
from questions.markup import quick_snippet
from questions.models import Question, Status
from questions.pages import QuestionPage, question_page
from questions.views import render_question

PANEL_TEMPLATE = "progress/_question_panel.html"
NOTE_MAX_LENGTH = 5000
BOOKMARKS_PAGE_SIZE = 25


# Forms ----------------------------------------------------------------------------------------


class TextBoxField(forms.CharField):
    """Text from a textarea, with line breaks counted as browsers count them against
    maxlength (one character each), not as they post them (CRLF)."""

    def to_python(self, value: Any) -> str:
        return str(super().to_python(value)).replace("\r\n", "\n")


class NoteForm(forms.Form):
    text = TextBoxField(
        required=False,
        strip=True,
        max_length=NOTE_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 5}),
        error_messages={
            "max_length": "Your note is too long: keep it to %(limit_value)s characters "
            "(it has %(show_value)s). It was not saved."
        },
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "note-%s")
        super().__init__(*args, **kwargs)


class ReportForm(forms.Form):
    kind = forms.ChoiceField(
        label="What is wrong?",
        choices=ReportKind.choices,
        widget=forms.RadioSelect,
        error_messages={"required": "Choose what is wrong with the question."},
    )
    details = TextBoxField(
        label="Details",
        required=False,
        strip=True,
        max_length=5000,
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text="What should it say instead? Required when you choose “Something else”.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "report-%s")
        super().__init__(*args, **kwargs)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if cleaned.get("kind") == ReportKind.OTHER and not cleaned.get("details"):
            self.add_error("details", "Tell us what is wrong when you choose “Something else”.")
        return cleaned


# What the panel shows, and the writes behind it -----------------------------------------------


@dataclass
class Panel:
    """The learner's panel under one question (templates/progress/_question_panel.html)."""

    uid: str
    bookmarked: bool
    note_form: NoteForm
    note_status: str = ""  # "Note saved." and the like, announced after an htmx save


def learner_marks(learner: User, question_id: int) -> tuple[bool, str | None]:
    """(bookmarked, note text or None) of this learner on this question. One query."""
    bookmark = Bookmark.objects.filter(learner=OuterRef("pk"), question_id=question_id)
    note = Note.objects.filter(learner=OuterRef("pk"), question_id=question_id)
    row = (
        User.objects.filter(pk=learner.pk)
        .annotate(bookmarked=Exists(bookmark), note_text=Subquery(note.values("text")[:1]))
        .values_list("bookmarked", "note_text")
        .first()
    )
    return (bool(row[0]), row[1]) if row else (False, None)


def set_bookmark(learner: User, question: Question, on: bool) -> None:
    """Idempotent: a double click or two tabs leave one bookmark (the unique constraint
    settles a race inside get_or_create)."""
    if on:
        Bookmark.objects.get_or_create(learner=learner, question=question)
    else:
        Bookmark.objects.filter(learner=learner, question=question).delete()


def write_note(learner: User, question: Question, text: str) -> Note | None:
    """Save the learner's note on the question; empty text deletes it. Returns the note, or
    None when there is none now."""
    if not text:
        Note.objects.filter(learner=learner, question=question).delete()
        return None
    note, _ = Note.objects.update_or_create(
        learner=learner, question=question, defaults={"text": text, "updated_at": timezone.now()}
    )
    return note


def panel_context(request: HttpRequest, page: QuestionPage) -> dict[str, object]:
    """The learner's bookmark and note for the question page's panel. One query."""
    return {"panel": _panel(_learner(request), page.question_id, page.uid)}


def _panel(
    learner: User, question_id: int, uid: str, note_form: NoteForm | None = None, status: str = ""
) -> Panel:
    """The panel as saved; `note_form` replaces the note's form (a rejected post). One query."""
    bookmarked, note_text = learner_marks(learner, question_id)
    return Panel(
        uid=uid,
        bookmarked=bookmarked,
        note_form=NoteForm(initial={"text": note_text or ""}) if note_form is None else note_form,
        note_status=status,
    )


# Access helpers -------------------------------------------------------------------------------


def _learner(request: HttpRequest) -> User:
    user = request.user
    assert isinstance(user, User)  # login_required ran first
    return user


def _get_question_for_learner(request: HttpRequest, uid: str) -> tuple[User, Question]:
    """The signed-in learner and the question `uid`; drafts and questions in review exist
    only for staff, as on the question page. One query."""
    learner = _learner(request)
    questions = Question.objects.all() if learner.is_staff else Question.objects.published()
    return learner, get_object_or_404(questions, uid=uid)


def _question_url(question: Question) -> str:
    return reverse("question_detail", args=[question.uid])


# Views ----------------------------------------------------------------------------------------


@require_POST
@login_required
def toggle_bookmark(request: HtmxHttpRequest, uid: str) -> HttpResponse:
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
    set_bookmark(learner, question, on)
    if request.htmx:
        panel = _panel(learner, question.pk, question.uid)
        return TemplateResponse(request, PANEL_TEMPLATE + "#bookmark", {"panel": panel})
    messages.success(request, "Bookmarked." if on else "Bookmark removed.")
    return HttpResponseRedirect(_question_url(question))


@require_POST
@login_required
def save_note(request: HtmxHttpRequest, uid: str) -> HttpResponse:
    learner, question = _get_question_for_learner(request, uid)
    form = NoteForm(request.POST)
    if not form.is_valid():
        panel = _panel(learner, question.pk, question.uid, note_form=form)
        if request.htmx:
            return TemplateResponse(request, PANEL_TEMPLATE + "#note", {"panel": panel}, status=400)
        return _question_page_with_panel(request, question, panel, status=400)
    note = write_note(learner, question, form.cleaned_data["text"])
    status = "Note saved." if note else "Note deleted."
    if request.htmx:
        panel = _panel(learner, question.pk, question.uid, status=status)
        return TemplateResponse(request, PANEL_TEMPLATE + "#note", {"panel": panel})
    messages.success(request, status)
    return HttpResponseRedirect(_question_url(question))


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
def report_problem(request: HttpRequest, uid: str) -> HttpResponse:
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
    return TemplateResponse(request, "progress/report.html", context, status=status)


@require_GET
@login_required
def bookmarks(request: HttpRequest) -> HttpResponse:
    """The learner's bookmarked questions, newest first, with their notes. Two queries (count
    and page) whatever the number of bookmarks."""
    learner = _learner(request)
    note = Note.objects.filter(learner=learner, question=OuterRef("question"))
    rows = (
        Bookmark.objects.filter(learner=learner)
        .select_related("question__topic__exam")
        .annotate(note_text=Subquery(note.values("text")[:1]))
        .order_by("-created_at", "-pk")
    )
    if not learner.is_staff:
        # A question taken back to draft stays bookmarked but is not shown until it returns.
        rows = rows.filter(question__status=Status.PUBLISHED)
    page = Paginator(rows, BOOKMARKS_PAGE_SIZE).get_page(request.GET.get("page"))
    items = [
        (bookmark, quick_snippet(bookmark.question.stem, 200)) for bookmark in page.object_list
    ]
    return TemplateResponse(request, "progress/bookmarks.html", {"page": page, "items": items})


def _question_page_with_panel(
    request: HtmxHttpRequest, question: Question, panel: Panel, status: int
) -> HttpResponse:
    """The whole question page with this panel (a plain post with an invalid note: the learner
    gets their text back with the reason)."""
    page = question_page(question.uid)
    if page is None:  # deleted since the access check
        return HttpResponseRedirect(reverse("home"))
    return render_question(request, page, AnswerForm(page), {"panel": panel}, status=status)
