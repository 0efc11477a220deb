"""The public pages: catalog, blueprint, topic, and the question page with answer-then-reveal."""

from django.conf import settings
from django.contrib.messages.storage.cookie import CookieStorage
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation, TooManyFieldsSent
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import Resolver404, resolve, reverse
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_GET, require_http_methods

from courseiva.http import HtmxHttpRequest, invalid_form_status
from courseiva.lib import shared_html
from questions.models import Grade
from questions.pages import extensions, listings
from questions.pages.forms import AnswerForm
from questions.pages.listings import TOPIC_PAGE_SIZE
from questions.pages.snapshot import (
    CACHE_SECONDS,
    QUESTION_TEMPLATE,
    QuestionPage,
    form_html,
    listings_version,
    page_html,
    question_page,
)


def _get_page_for_viewer(request: HttpRequest, uid: str) -> QuestionPage:
    """The question's page content; drafts and questions in review exist only for staff."""
    page = question_page(uid)
    if page is None or (not page.is_published and not request.user.is_staff):
        raise Http404("No such question")
    return page


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    version = listings_version()
    key = listings.html_key(version, "catalog")
    if _without_own_state(request) and (html := shared_html.kept(key)) is not None:
        return _listing_response(request, html)
    context = {"exams": listings.catalog(version), **extensions.home_context(request)}
    if _without_own_state(request):
        return _render_listing(request, key, reverse("home"), "questions/home.html", context)
    return TemplateResponse(request, "questions/home.html", context)


@require_GET
def exam_detail(request: HttpRequest, exam_slug: str) -> HttpResponse:
    version = listings_version()
    key = listings.html_key(version, "exam", exam_slug)
    if _without_own_state(request) and (html := shared_html.kept(key)) is not None:
        return _listing_response(request, html)
    listing = listings.exam_listing(version, exam_slug)
    if listing is None:
        raise Http404("No such exam")
    exam = listing.exam
    context = {"exam": exam, "topics": listing.topics, **extensions.exam_context(request, exam)}
    if _without_own_state(request):
        return _render_listing(
            request, key, exam.get_absolute_url(), "questions/exam.html", context
        )
    return TemplateResponse(request, "questions/exam.html", context)


@require_GET
def topic_detail(request: HttpRequest, exam_slug: str, topic_slug: str) -> HttpResponse:
    version = listings_version()
    asked = request.GET.get("page") or "1"
    # Only a page number can name a kept page: anything else is not even looked up.
    numbered = asked.isascii() and asked.isdigit() and len(asked) <= 6
    key = listings.html_key(version, "topic", exam_slug, topic_slug, asked)
    if numbered and _without_own_state(request) and (html := shared_html.kept(key)) is not None:
        return _listing_response(request, html)
    listing = listings.topic_listing(version, exam_slug, topic_slug)
    if listing is None:
        raise Http404("No such topic")
    topic = listing.topic
    # The count alone is paginated: the page's rows are read (and cached) on their own.
    page = Paginator(range(listing.question_count), TOPIC_PAGE_SIZE).get_page(asked)
    context = {
        "topic": topic,
        "exam": topic.exam,
        "page": page,
        "rows": listings.topic_rows(version, listing, page.number),
        **extensions.exam_context(request, topic.exam, topic),
    }
    if _without_own_state(request) and asked == str(page.number):
        # Only a page number that names itself is kept: ?page=x and ?page=999 show a page
        # without adding entries to the cache.
        return _render_listing(
            request, key, topic.get_absolute_url(), "questions/topic.html", context
        )
    return TemplateResponse(request, "questions/topic.html", context)


def _render_listing(
    request: HttpRequest, key: str, path: str, template: str, context: dict[str, object]
) -> HttpResponse:
    """A listing page as every visitor sees it: rendered without anything of this request but
    its path, kept under `key` when the path is the page's own (it is in the canonical link)."""
    html = shared_html.render_shared(request, template, {**context, "teaches": False})
    if request.path == path:
        shared_html.keep(key, html, CACHE_SECONDS)
    return _listing_response(request, html)


def _listing_response(request: HttpRequest, html: str) -> HttpResponse:
    response = HttpResponse(shared_html.filled(request, html))
    # A session cookie makes the page a signed-in user's: shared caches keep them apart.
    patch_vary_headers(response, ["Cookie"])
    return response


@require_http_methods(["GET", "HEAD", "POST"])
def question_detail(request: HtmxHttpRequest, uid: str) -> HttpResponse:
    if request.method != "POST" and not request.htmx and _without_own_state(request):
        html = form_html(uid)
        if html is not None:  # a visitor's first look: rendered before, only the token new
            return HttpResponse(shared_html.filled(request, html))
    page = _get_page_for_viewer(request, uid)
    if request.method != "POST":
        return render_question(request, page, AnswerForm(page))
    try:
        form = AnswerForm(page, request.POST)
    except (RequestDataTooBig, TooManyFieldsSent):
        return answer_too_large(request, page)
    if not form.is_valid():
        return render_question(request, page, form, status=invalid_form_status(request))
    grade = page.grade(form.response)
    context = page.result_context(grade)
    if request.user.is_authenticated:
        context.update(extensions.answered(request, page, grade, form))
    return render_question(request, page, form, context)


def render_question(
    request: HtmxHttpRequest,
    page: QuestionPage,
    form: AnswerForm,
    extra: dict[str, object] | None = None,
    status: int = 200,
) -> HttpResponse:
    """The whole question page, or for htmx only the answer area (the form, or the result):
    both come from the same partials of one template. `extra` goes last, over what the page
    extensions add (a panel posted back with an error keeps the learner's text)."""
    context: dict[str, object] = {
        "page": page,
        "form": form,
        "ticked": form.posted_keys(),
        "answer_url": reverse("question_detail", args=[page.uid]),
    }
    extra = extra or {}
    answered = "grade" in extra
    template = QUESTION_TEMPLATE
    if request.htmx:
        template += "#result" if answered else "#answer_form"
    if status == 200 and _same_for_everyone(request, page):
        grade = extra.get("grade")
        variant = grade.variant if isinstance(grade, Grade) else "form"
        return HttpResponse(page_html(request, page, template, {**context, **extra}, variant))
    if not request.htmx:
        context.update(extensions.page_context(request, page))
    elif not answered:
        # The learner's extras (bookmark, note) sit outside the swapped answer area; only a
        # form shown again needs one of them, the served-at token.
        context["serve_token"] = extensions.page_context(request, page).get("serve_token")
    context.update(extra)
    return TemplateResponse(request, template, context, status=status)


def _same_for_everyone(request: HttpRequest, page: QuestionPage) -> bool:
    """A visitor with no session and no pending messages, on a published question: the page
    differs from anyone else's only by the CSRF token."""
    return page.is_published and _without_own_state(request)


def _without_own_state(request: HttpRequest) -> bool:
    """No session and no pending messages: decided from the cookies alone, without loading
    a session."""
    cookies = request.COOKIES
    return settings.SESSION_COOKIE_NAME not in cookies and CookieStorage.cookie_name not in cookies


def answer_too_large(request: HtmxHttpRequest, page: QuestionPage) -> HttpResponse:
    # The body could not be read, so there is no bound form to carry the error.
    message = "That answer was too large to read. Choose an option and try again."
    status = invalid_form_status(request)
    return render_question(request, page, AnswerForm(page), {"error": message}, status=status)


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
