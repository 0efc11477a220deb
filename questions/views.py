"""The public pages: catalog, blueprint, topic, and the question page with answer-then-reveal."""

from django.core.exceptions import RequestDataTooBig, SuspiciousOperation, TooManyFieldsSent
from django.core.paginator import Paginator
from django.db.models import Count, Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import Resolver404, resolve
from django.views.decorators.http import require_GET, require_http_methods
from django_htmx.middleware import HtmxDetails

from questions.forms import AnswerForm
from questions.markup import quick_snippet
from questions.models import Exam, Question, Status, Topic
from questions.pages import QuestionPage, question_page


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


TOPIC_PAGE_SIZE = 25
QUESTION_TEMPLATE = "questions/question.html"


def _get_page_for_viewer(request: HttpRequest, uid: str) -> QuestionPage:
    """The question's page content; drafts and questions in review exist only for staff."""
    page = question_page(uid)
    if page is None or (not page.is_published and not request.user.is_staff):
        raise Http404("No such question")
    return page


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    exams = Exam.objects.with_counts()
    return TemplateResponse(request, "questions/home.html", {"exams": exams})


@require_GET
def exam_detail(request: HttpRequest, exam_slug: str) -> HttpResponse:
    exam = get_object_or_404(Exam, slug=exam_slug)
    topics = exam.topics.annotate(
        published_count=Count("questions", filter=Q(questions__status=Status.PUBLISHED))
    ).order_by("position", "slug")
    return TemplateResponse(request, "questions/exam.html", {"exam": exam, "topics": topics})


@require_GET
def topic_detail(request: HttpRequest, exam_slug: str, topic_slug: str) -> HttpResponse:
    topic = get_object_or_404(
        Topic.objects.select_related("exam"), exam__slug=exam_slug, slug=topic_slug
    )
    questions = (
        Question.objects.published()
        .filter(topic=topic)
        .only("uid", "stem", "kind", "difficulty")
        .order_by("position", "uid")
    )
    paginator = Paginator(questions, TOPIC_PAGE_SIZE)
    page = paginator.get_page(request.GET.get("page"))
    rows = [(question, quick_snippet(question.stem, 200)) for question in page.object_list]
    return TemplateResponse(
        request,
        "questions/topic.html",
        {"topic": topic, "exam": topic.exam, "page": page, "rows": rows},
    )


@require_http_methods(["GET", "HEAD", "POST"])
def question_detail(request: HtmxHttpRequest, uid: str) -> HttpResponse:
    page = _get_page_for_viewer(request, uid)
    if request.method != "POST":
        return _render_question(request, page, AnswerForm(page))
    try:
        form = AnswerForm(page, request.POST)
    except (RequestDataTooBig, TooManyFieldsSent):
        return answer_too_large(request, page)
    if not form.is_valid():
        return _render_question(request, page, form, status=400)
    grade = page.grade(form.chosen_keys)
    context = {"grade": grade, "breakdown": page.breakdown(grade)}
    return _render_question(request, page, form, context)


def _render_question(
    request: HtmxHttpRequest,
    page: QuestionPage,
    form: AnswerForm,
    extra: dict[str, object] | None = None,
    status: int = 200,
) -> HttpResponse:
    """The whole page, or for htmx only the answer area (the form, or the result): both come
    from the same partials of one template."""
    context = {"page": page, "form": form, "ticked": form.posted_keys(), **(extra or {})}
    if request.htmx:
        partial = "result" if "grade" in context else "answer_form"
        return TemplateResponse(request, f"{QUESTION_TEMPLATE}#{partial}", context, status=status)
    return TemplateResponse(request, QUESTION_TEMPLATE, context, status=status)


def answer_too_large(request: HtmxHttpRequest, page: QuestionPage) -> HttpResponse:
    # The body could not be read, so there is no bound form to carry the error.
    message = "That answer was too large to read. Choose an option and try again."
    return _render_question(request, page, AnswerForm(page), {"error": message}, status=400)


def bad_request(request: HtmxHttpRequest, exception: Exception | None = None) -> HttpResponse:
    """handler400. A post too large for Django to read fails before any view runs (the CSRF
    check reads the body first): on a question page, show the question again with a message."""
    if isinstance(exception, RequestDataTooBig | TooManyFieldsSent):
        try:
            match = resolve(request.path_info)
        except Resolver404:
            match = None
        if match is not None and match.url_name == "question_detail":
            page = question_page(match.kwargs["uid"])
            if page is not None and (page.is_published or request.user.is_staff):
                return answer_too_large(request, page)
    message = "That request was too large." if isinstance(exception, SuspiciousOperation) else ""
    return TemplateResponse(request, "400.html", {"message": message}, status=400)
