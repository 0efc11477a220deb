"""The learner's part of the public pages (the questions app's extension): on a question page,
the served-at token that times an answer and makes it count once, the recorded attempt, and
the learner's panel (bookmark, note, report); on exam and topic pages, the learner's
readiness, the mock exam card and the quiz form; on the home page, the first step or the
learner's exams."""

import secrets
from dataclasses import dataclass
from datetime import datetime

from django.core import signing
from django.db.models import Exists, OuterRef, Subquery
from django.http import HttpRequest
from django.utils import timezone

from progress.accounts.models import User
from progress.practice.forms import NoteForm, QuizStartForm
from progress.practice.marks import Bookmark, Note
from progress.practice.models import Source
from progress.practice.recording import record_attempt
from progress.readiness.forms import StudyGoalForm
from progress.readiness.models import StudyGoal
from progress.readiness.standing import standings
from questions.models import Exam, Grade, Topic
from questions.pages.forms import AnswerForm
from questions.pages.snapshot import QuestionPage

PANEL_TEMPLATE = "progress/practice/_question_panel.html"
SERVE_SALT = "progress.served"
# A form older than this still records its answer, but untimed.
SERVE_MAX_AGE = 24 * 60 * 60


def serve_token(page: QuestionPage) -> str:
    """Signed (uid, nonce, served-at): the browser cannot change when it was served."""
    payload = {"q": page.uid, "n": secrets.token_hex(8), "t": timezone.now().timestamp()}
    return signing.dumps(payload, salt=SERVE_SALT, compress=False)


def read_serve_token(token: str, page: QuestionPage) -> tuple[str, datetime | None]:
    """(nonce, served_at) from a posted token; ("", None) when missing, forged, stale or for
    another question: the answer is then recorded untimed and without duplicate protection."""
    try:
        payload = signing.loads(token, salt=SERVE_SALT, max_age=SERVE_MAX_AGE)
    except signing.BadSignature:
        return "", None
    if not isinstance(payload, dict) or payload.get("q") != page.uid:
        return "", None
    served = datetime.fromtimestamp(float(payload.get("t", 0)), tz=timezone.get_current_timezone())
    return str(payload.get("n", "")), served


@dataclass
class Panel:
    """The learner's panel under one question (templates/progress/practice/_question_panel.html)."""

    uid: str
    bookmarked: bool
    note_form: NoteForm
    note_status: str = ""  # "Note saved." and the like, announced after an htmx save

    @classmethod
    def of(
        cls,
        learner: User,
        question_id: int,
        uid: str,
        note_form: NoteForm | None = None,
        status: str = "",
    ) -> "Panel":
        """The panel as saved; `note_form` replaces the note's form (a rejected post). One
        query."""
        bookmarked, note_text = learner_marks(learner, question_id)
        return cls(
            uid=uid,
            bookmarked=bookmarked,
            note_form=NoteForm(initial={"text": note_text or ""})
            if note_form is None
            else note_form,
            note_status=status,
        )


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


class LearnerQuestionPage:
    """Registered with questions.pages.extensions by ProgressConfig.ready()."""

    def page_context(self, request: HttpRequest, page: QuestionPage) -> dict[str, object]:
        """The served-at token and the learner's panel: their bookmark and note (one
        query); nothing for a visitor."""
        if not isinstance(request.user, User):
            return {}
        return {
            "serve_token": serve_token(page),
            "learner_panel": PANEL_TEMPLATE,
            "panel": Panel.of(request.user, page.question_id, page.uid),
        }

    def answered(
        self, request: HttpRequest, page: QuestionPage, grade: Grade, form: AnswerForm
    ) -> dict[str, object]:
        assert isinstance(request.user, User)
        if not page.is_published:
            return {}  # a curator's preview of a draft or a question in review: not an answer
        nonce, served_at = read_serve_token(str(request.POST.get("served", "")), page)
        attempt, created = record_attempt(
            learner=request.user,
            page=page,
            grade=grade,
            source=Source.PAGE,
            served_at=served_at,
            nonce=nonce,
        )
        return {"attempt": attempt, "attempt_was_recorded_before": not created}

    def exam_context(
        self, request: HttpRequest, exam: Exam, topic: Topic | None = None
    ) -> dict[str, object]:
        """The learner's parts of an exam page (topic None) or a topic page: the mock exam
        card and the quiz form (a visitor is asked to sign in), and the signed-in learner's
        readiness on the exam, `standing` (an ExamStanding) and `readiness_of` (topic id ->
        TopicStanding). Five queries for a learner, none for a visitor."""
        context: dict[str, object] = {
            "mock_template": "progress/mocks/_exam_card.html",
            "practice_template": "progress/practice/_quiz_start_form.html",
        }
        if not isinstance(request.user, User):
            return context
        standing = standings(request.user, [exam])[0]
        context.update(
            standing=standing,
            readiness_of={t.topic.pk: t for t in standing.topics},
            readiness_cell_template="progress/readiness/_blueprint_cell.html",
            readiness_line_template="progress/readiness/_topic_line.html",
            quiz_form=QuizStartForm.for_page(exam, topic),
        )
        return context

    def home_context(self, request: HttpRequest) -> dict[str, object]:
        """For a signed-in learner, the home page's first step (choose an exam and its date)
        or their upcoming exams. One query; none for a visitor."""
        if not isinstance(request.user, User):
            return {}
        goals = list(StudyGoal.objects.upcoming(request.user).select_related("exam"))
        return {
            "home_template": "progress/readiness/_home_goal.html",
            "goals": goals,
            "goal_form": None if goals else StudyGoalForm(),
        }
