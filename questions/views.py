from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.views.decorators.http import require_GET

from questions.models import Exam, Question


def _get_question_for_viewer(request: HttpRequest, uid: str) -> Question:
    """The question with its topic and exam; drafts and questions in review only for staff."""
    question = get_object_or_404(Question.objects.select_related("topic__exam"), uid=uid)
    if not question.is_published and not request.user.is_staff:
        raise Http404("No such question")
    return question


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    exams = Exam.objects.with_counts()
    return TemplateResponse(request, "questions/home.html", {"exams": exams})


@require_GET
def question_detail(request: HttpRequest, uid: str) -> HttpResponse:
    question = _get_question_for_viewer(request, uid)
    # Only the option texts: which one is correct never reaches the page before an answer.
    options = list(question.options.order_by("position", "id").values_list("text", flat=True))
    return TemplateResponse(
        request, "questions/detail.html", {"question": question, "options": options}
    )
