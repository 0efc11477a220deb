"""Cohorts: the instructor's pages (/instructor/) and the learner's side of joining one.

Only a cohort's instructors see it (and admins, who see everything); for anyone else a cohort
URL is a 404, so that codes are not confirmed. A learner is visible to an instructor only as a
member of one of the instructor's cohorts, and only for that cohort's exam.
"""

import csv
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db import IntegrityError, transaction
from django.db.models import F
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from progress.accounts.http import AuthenticatedHttpRequest
from progress.accounts.models import User
from progress.accounts.signup import INVITATION_SESSION_KEY
from progress.cohorts.forms import AllowanceForm, CohortForm, CoInstructorForm, DigestForm
from progress.cohorts.models import (
    MIN_FLAG_LEARNERS,
    Cohort,
    ItemStatistic,
    Membership,
    TimeAllowance,
)
from progress.cohorts.table import BANDS, SORTS, cohort_table, csv_rows, topic_spreads
from progress.mocks.allowances import Allowance
from progress.mocks.models import MockExam
from progress.mocks.report import report_context
from progress.readiness.explain import explain
from progress.readiness.standing import standings
from questions.markup import quick_snippet, render_markdown_inline
from questions.models import Exam, Kind, Option, Part, Question


def _instructor(request: AuthenticatedHttpRequest) -> User:
    """The signed-in user, who must be an instructor or an admin (403 otherwise)."""
    user = request.user
    if not (user.is_superuser or user.is_instructor):
        raise PermissionDenied("Only instructors follow cohorts.")
    return user


def _get_cohort_for_instructor(request: AuthenticatedHttpRequest, code: str) -> Cohort:
    """One of the user's cohorts (any, for an admin); a 404 for everyone else."""
    return get_object_or_404(
        Cohort.objects.for_instructor(request.user).select_related("exam"), code=code
    )


def _get_member_for_instructor(
    request: AuthenticatedHttpRequest, code: str, username: str
) -> tuple[Cohort, User]:
    """A learner of one of the user's cohorts, with that cohort; a 404 otherwise."""
    cohort = _get_cohort_for_instructor(request, code)
    membership = get_object_or_404(
        Membership.objects.select_related("learner"), cohort=cohort, learner__username=username
    )
    return cohort, membership.learner


@require_GET
@login_required
def instructor_home(request: AuthenticatedHttpRequest) -> HttpResponse:
    return _render_home(request, CohortForm())


def _render_home(
    request: AuthenticatedHttpRequest, form: CohortForm, status: int = 200
) -> HttpResponse:
    user = _instructor(request)
    mine = (
        Cohort.objects.for_instructor(user)
        .select_related("exam")
        .prefetch_related("instructors")
        .order_by("-created_at")
    )
    context = {"cohorts": list(mine), "form": form, "digest_form": DigestForm(instance=user)}
    return TemplateResponse(request, "progress/cohorts/home.html", context, status=status)


@require_POST
@login_required
def digest_settings(request: AuthenticatedHttpRequest) -> HttpResponse:
    """Turn the weekly digest e-mail on or off (an unticked box posts nothing: off)."""
    user = _instructor(request)
    form = DigestForm(request.POST, instance=user)
    form.save()
    if user.weekly_digest:
        messages.success(request, "You will get the weekly digest each Monday.")
    else:
        messages.success(request, "No more weekly digest: tick the box again to get it back.")
    return redirect(reverse("instructor_home"))


@require_POST
@login_required
def cohort_create(request: AuthenticatedHttpRequest) -> HttpResponse:
    user = _instructor(request)
    form = CohortForm(request.POST)
    if not form.is_valid():
        return _render_home(request, form, status=400)
    with transaction.atomic():
        cohort = form.save()
        cohort.instructors.add(user)
    messages.success(request, f"Cohort {cohort.name} created: share its join link below.")
    return redirect(cohort.get_absolute_url())


@require_GET
@login_required
def cohort_detail(request: AuthenticatedHttpRequest, code: str) -> HttpResponse:
    cohort = _get_cohort_for_instructor(request, code)
    return _render_cohort(request, cohort, CoInstructorForm(cohort=cohort))


def _render_cohort(
    request: AuthenticatedHttpRequest, cohort: Cohort, co_form: CoInstructorForm, status: int = 200
) -> HttpResponse:
    sort = request.GET.get("sort", "")
    descending = request.GET.get("order") == "desc"
    table = cohort_table(
        cohort, sort=sort, descending=descending, page_number=request.GET.get("page")
    )
    rows, topics = table.rows, table.topics
    columns = [(key, label) for key, (label, _) in SORTS.items() if key != "name"]
    query = request.GET.copy()
    query.pop("page", None)
    context: dict[str, Any] = {
        "cohort": cohort,
        "rows": rows,
        "page": table.page,
        "query": query.urlencode(),
        "learners": table.learners,
        "topic_columns": [(topic, f"topic-{topic.pk}") for topic in topics],
        "at_risk": table.at_risk,
        "updated_at": table.updated_at,
        "sort": sort,
        "descending": descending,
        "columns": columns,
        "bands": BANDS,
        "join_link": request.build_absolute_uri(cohort.join_url()),
        "instructors": list(cohort.instructors.order_by("username")),
        "co_form": co_form,
        "allowance_form": AllowanceForm(initial={"allowance": _granted(cohort, None)}),
    }
    return TemplateResponse(request, "progress/cohorts/cohort.html", context, status=status)


@require_GET
@login_required
def cohort_topics(request: AuthenticatedHttpRequest, code: str) -> HttpResponse:
    cohort = _get_cohort_for_instructor(request, code)
    table = cohort_table(cohort, page_size=None)
    rows = table.rows
    context = {
        "cohort": cohort,
        "spreads": topic_spreads(rows),
        "learners": len(rows),
        "updated_at": table.updated_at,
    }
    return TemplateResponse(request, "progress/cohorts/topics.html", context)


@require_GET
@login_required
def cohort_export(request: AuthenticatedHttpRequest, code: str) -> HttpResponse:
    cohort = _get_cohort_for_instructor(request, code)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    filename = f"cohort-{cohort.code}-{timezone.localdate():%Y-%m-%d}.csv"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    rows = cohort_table(cohort, page_size=None).rows
    csv.writer(response).writerows(csv_rows(rows))
    return response


@require_POST
@login_required
def cohort_regenerate(request: AuthenticatedHttpRequest, code: str) -> HttpResponse:
    cohort = _get_cohort_for_instructor(request, code)
    cohort.regenerate_join_code()
    messages.success(request, "New join code: the old link no longer works.")
    return redirect(cohort.get_absolute_url())


@require_POST
@login_required
def cohort_add_instructor(request: AuthenticatedHttpRequest, code: str) -> HttpResponse:
    cohort = _get_cohort_for_instructor(request, code)
    form = CoInstructorForm(request.POST, cohort=cohort)
    if not form.is_valid():
        return _render_cohort(request, cohort, form, status=400)
    co_instructor = form.cleaned_data["username"]
    cohort.instructors.add(co_instructor)
    messages.success(request, f"{co_instructor.get_username()} now follows this cohort too.")
    return redirect(cohort.get_absolute_url())


@require_POST
@login_required
def cohort_remove_learner(
    request: AuthenticatedHttpRequest, code: str, username: str
) -> HttpResponse:
    cohort, learner = _get_member_for_instructor(request, code, username)
    Membership.objects.filter(cohort=cohort, learner=learner).delete()
    messages.success(request, f"{learner.get_username()} is no longer in this cohort.")
    return redirect(cohort.get_absolute_url())


@require_GET
@login_required
def cohort_learner(request: AuthenticatedHttpRequest, code: str, username: str) -> HttpResponse:
    """The learner's readiness on the cohort's exam as they see it, and their mock exams of
    that exam. Nothing of other exams, and never their notes."""
    cohort, learner = _get_member_for_instructor(request, code, username)
    standing = standings(learner, [cohort.exam])[0]
    mocks = list(
        MockExam.objects.for_learner(learner)
        .submitted()
        .filter(exam=cohort.exam)
        .order_by("-started_at")
    )
    context = {
        "cohort": cohort,
        "learner": learner,
        "standing": standing,
        "chart": standing.chart(),
        # The explanation the learner sees; looking does not move their last visit on.
        "why": explain(
            learner, [standing], MockExam.objects.latest_taken(learner, [cohort.exam]), record=False
        )[cohort.exam.pk],
        "mocks": mocks,
        "allowance_form": AllowanceForm(
            initial={"allowance": _granted(cohort, learner)}, auto_id="learner-time-%s"
        ),
    }
    return TemplateResponse(request, "progress/cohorts/learner.html", context)


def _granted(cohort: Cohort, learner: User | None) -> str:
    """The allowance granted on the cohort to the learner (None: to the cohort). One query."""
    grant = TimeAllowance.objects.filter(cohort=cohort, learner=learner).first()
    return grant.allowance if grant else Allowance.STANDARD


@require_GET
@login_required
def cohort_learner_mock(
    request: AuthenticatedHttpRequest, code: str, username: str, mock_code: str
) -> HttpResponse:
    cohort, learner = _get_member_for_instructor(request, code, username)
    mock = get_object_or_404(
        MockExam.objects.submitted().select_related("exam"),
        code=mock_code,
        learner=learner,
        exam=cohort.exam,
    )
    mock.learner = learner
    context = {
        **report_context(mock),
        "cohort": cohort,
        "learner": learner,
        "instructor_view": True,
    }
    return TemplateResponse(request, "progress/mocks/report.html", context)


@require_POST
@login_required
def cohort_allowance(
    request: AuthenticatedHttpRequest, code: str, username: str | None = None
) -> HttpResponse:
    """Grant extra time in mock exams to the cohort, or to one of its learners: only the
    cohort's instructors (and admins) may. A sitting already started keeps its time."""
    _instructor(request)
    if username is None:
        cohort, learner = _get_cohort_for_instructor(request, code), None
        back = cohort.get_absolute_url()
    else:
        cohort, learner = _get_member_for_instructor(request, code, username)
        back = reverse("cohort_learner", args=[cohort.code, learner.get_username()])
    form = AllowanceForm(request.POST)
    if not form.is_valid():
        context = {"message": " ".join(str(e) for e in form.errors["allowance"]), "back": back}
        return TemplateResponse(request, "400.html", context, status=400)
    TimeAllowance.grant(cohort, learner, form.cleaned_data["allowance"], request.user)
    who = learner.get_username() if learner else f"everyone in {cohort.name}"
    label = Allowance(form.cleaned_data["allowance"]).label.lower()
    messages.success(
        request, f"Mock exams of {cohort.exam.code} for {who}: {label}, from the next sitting on."
    )
    return redirect(back)


# --- The learner's side ----------------------------------------------------------------------


@require_GET
@login_required
def my_cohorts(request: AuthenticatedHttpRequest) -> HttpResponse:
    memberships = (
        Membership.objects.filter(learner=request.user)
        .select_related("cohort__exam")
        .prefetch_related("cohort__instructors")
        .order_by("-joined_at")
    )
    return TemplateResponse(request, "progress/cohorts/mine.html", {"memberships": memberships})


@require_http_methods(["GET", "POST"])
def cohort_join(request: HttpRequest, join_code: str) -> HttpResponse:
    """GET: what joining means (who will see what); POST: join, then start practising. A
    visitor signs in (or up) first, the pages on the way saying which cohort they join."""
    cohort = get_object_or_404(Cohort.objects.select_related("exam"), join_code=join_code)
    instructors = list(cohort.instructors.order_by("username"))
    if not request.user.is_authenticated:
        request.session[INVITATION_SESSION_KEY] = {
            "path": request.path,
            "cohort": cohort.name,
            "exam": f"{cohort.exam.code} {cohort.exam.title}",
            "instructors": ", ".join(person.get_username() for person in instructors),
        }
        return redirect_to_login(request.get_full_path())
    learner = request.user
    if Membership.objects.filter(cohort=cohort, learner=learner).exists():
        messages.info(request, f"You are already in {cohort.name}.")
        return redirect(reverse("my_cohorts"))
    if request.method == "POST":
        try:
            with transaction.atomic():
                Membership.objects.create(cohort=cohort, learner=learner)
        except IntegrityError:  # joined in another tab a moment ago
            pass
        request.session.pop(INVITATION_SESSION_KEY, None)
        messages.success(
            request,
            f"You joined {cohort.name}. Next: start practising {cohort.exam.code}, "
            "with a quiz on any topic below.",
        )
        return redirect(cohort.exam.get_absolute_url())
    context = {"cohort": cohort, "instructors": instructors}
    return TemplateResponse(request, "progress/cohorts/join.html", context)


@require_POST
@login_required
def cohort_leave(request: AuthenticatedHttpRequest, code: str) -> HttpResponse:
    membership = get_object_or_404(
        Membership.objects.select_related("cohort"), cohort__code=code, learner=request.user
    )
    membership.delete()
    messages.success(request, f"You left {membership.cohort.name}.")
    return redirect(reverse("my_cohorts"))


# --- Item analysis ---------------------------------------------------------------------------

ITEM_PAGE_SIZE = 50
ITEM_SORTS = {
    "flags": "Flags first",
    "attempts": "Attempts",
    "facility": "Facility",
    "discrimination": "Discrimination",
    "time": "Median time",
}


@require_GET
@login_required
def item_analysis(request: AuthenticatedHttpRequest, exam_slug: str) -> HttpResponse:
    """Per question of the exam, the stored statistics over everyone, or over one of the
    user's cohorts (`?cohort=CODE`): instructors and admins only. Questions with flags come
    first unless another order is asked for. Fixed queries, whatever the number of rows."""
    user = _instructor(request)
    exam = get_object_or_404(Exam, slug=exam_slug)
    cohort = None
    if request.GET.get("cohort"):
        cohort = get_object_or_404(
            Cohort.objects.for_instructor(user), code=request.GET["cohort"], exam=exam
        )
    sort = request.GET.get("sort", "flags")
    if sort not in ITEM_SORTS:
        sort = "flags"
    rows = ItemStatistic.objects.filter(question__topic__exam=exam, cohort=cohort).select_related(
        "question__topic"
    )
    if not user.is_staff:  # questions still in review are the curators' business
        rows = rows.filter(question__in=Question.objects.published())
    orders: dict[str, list[Any]] = {
        "flags": ["-flagged", F("discrimination").asc(nulls_last=True), "question__position"],
        "attempts": ["-attempts", "question__position"],
        "facility": [F("facility").asc(nulls_last=True), "question__position"],
        "discrimination": [F("discrimination").asc(nulls_last=True), "question__position"],
        "time": [F("median_seconds").desc(nulls_last=True), "question__position"],
    }
    order = orders[sort]
    page = Paginator(rows.order_by(*order), ITEM_PAGE_SIZE).get_page(request.GET.get("page"))
    statistics = list(page.object_list)
    options: dict[int, list[Option]] = {}
    for option in Option.objects.filter(question__in=[s.question_id for s in statistics]):
        options.setdefault(option.question_id, []).append(option)
    parts: dict[int, list[Part]] = {}
    for part in Part.objects.filter(question__in=[s.question_id for s in statistics]):
        parts.setdefault(part.question_id, []).append(part)
    items = []
    for statistic in statistics:
        # The share of answers that chose the option (several per answer when the question
        # takes more than one).
        answers = statistic.attempts or 1
        items.append(
            {
                "statistic": statistic,
                "snippet": quick_snippet(statistic.question.stem, 160),
                "options": [
                    {
                        "option": option,
                        # Authors write options in Markdown: shown rendered (and sanitised).
                        "text": render_markdown_inline(option.text),
                        "count": statistic.option_counts.get(option.key, 0),
                        "share": round(100 * statistic.option_counts.get(option.key, 0) / answers),
                    }
                    for option in sorted(options.get(statistic.question_id, []), key=_position)
                ],
                "parts": _part_facility(
                    statistic,
                    parts.get(statistic.question_id, []),
                    options.get(statistic.question_id, []),
                ),
            }
        )
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "exam": exam,
        "cohort": cohort,
        "cohorts": list(Cohort.objects.for_instructor(user).filter(exam=exam)),
        "page": page,
        "items": items,
        "sort": sort,
        "sorts": ITEM_SORTS,
        "query": query.urlencode(),
        "computed_at": statistics[0].computed_at if statistics else None,
        "min_flag_learners": MIN_FLAG_LEARNERS,
    }
    return TemplateResponse(request, "progress/cohorts/item_analysis.html", context)


def _position(option: Option | Part) -> int:
    return option.position


def _part_facility(
    statistic: ItemStatistic, parts: list[Part], options: list[Option]
) -> list[dict[str, Any]]:
    """A question made of parts: each part with the share of learners whose first answer got
    it right (an ordering's parts are its steps that belong, each put in its place). Empty
    for a choice question. No query: the parts and options are read for the whole page."""
    if statistic.question.kind == Kind.ORDERING:
        shown: list[tuple[str, str]] = [
            (o.key, o.text) for o in sorted(options, key=_position) if o.order is not None
        ]
    else:
        shown = [(p.key, p.prompt or f"Part {n}") for n, p in
                 enumerate(sorted(parts, key=_position), start=1)]  # fmt: skip
    learners = statistic.learners or 1
    return [
        {
            # Authors write prompts and steps in Markdown: shown rendered (and sanitised).
            "text": render_markdown_inline(text),
            "share": round(100 * statistic.part_right.get(key, 0) / learners),
        }
        for key, text in shown
    ]
