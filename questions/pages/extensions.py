"""How the learner's side adds to the public question page without `questions` importing it.

`progress` registers one extension in its AppConfig.ready(). The question view asks every
extension for extra template context (only for requests that may carry a signed-in user), and
tells them about each valid answer so that it can be recorded; the exam and topic pages ask
for extra context about the exam (the learner's readiness).

The `questions` templates include the learner side's templates only by the names that this
context gives them (`learner_panel`, `mock_template`, ...): a slot with no name stays empty.
"""

from typing import TYPE_CHECKING, Protocol

from django.http import HttpRequest

if TYPE_CHECKING:
    from questions.models import Exam, Grade, Topic
    from questions.pages.forms import AnswerForm
    from questions.pages.snapshot import QuestionPage


class QuestionPageExtension(Protocol):
    def page_context(self, request: HttpRequest, page: "QuestionPage") -> dict[str, object]:
        """Extra context for the question page (the learner's bookmark, note, ...)."""
        ...

    def answered(
        self, request: HttpRequest, page: "QuestionPage", grade: "Grade", form: "AnswerForm"
    ) -> dict[str, object]:
        """A valid answer was posted: record it; return extra context for the result."""
        ...

    def exam_context(
        self, request: HttpRequest, exam: "Exam", topic: "Topic | None" = None
    ) -> dict[str, object]:
        """Extra context for an exam's blueprint (topic None) and its topic pages: the
        learner's readiness, and the templates of the pages' learner slots (`mock_template`,
        `practice_template`, `readiness_cell_template`, `readiness_line_template`)."""
        ...

    def home_context(self, request: HttpRequest) -> dict[str, object]:
        """Extra context for the home page: the learner's first step or their goals
        (`home_template`)."""
        ...


_extensions: list[QuestionPageExtension] = []


def register(extension: QuestionPageExtension) -> None:
    _extensions.append(extension)


def page_context(request: HttpRequest, page: "QuestionPage") -> dict[str, object]:
    context: dict[str, object] = {}
    for extension in _extensions:
        context.update(extension.page_context(request, page))
    return context


def answered(
    request: HttpRequest, page: "QuestionPage", grade: "Grade", form: "AnswerForm"
) -> dict[str, object]:
    context: dict[str, object] = {}
    for extension in _extensions:
        context.update(extension.answered(request, page, grade, form))
    return context


def exam_context(
    request: HttpRequest, exam: "Exam", topic: "Topic | None" = None
) -> dict[str, object]:
    context: dict[str, object] = {}
    for extension in _extensions:
        context.update(extension.exam_context(request, exam, topic))
    return context


def home_context(request: HttpRequest) -> dict[str, object]:
    context: dict[str, object] = {}
    for extension in _extensions:
        context.update(extension.home_context(request))
    return context
