"""The practice builder's page: the learner's choices of questions, length, time and when the
answers come (see builder.Plan), how many questions they give, and the start. Every view is
for a signed-in learner; what it draws reads only that learner's rows."""

import random
from dataclasses import replace
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.template.defaultfilters import pluralize
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from progress.accounts.http import AuthenticatedHttpRequest
from progress.practice.builder import Plan, next_best
from progress.practice.forms import QuizStartForm
from progress.practice.models import Selection
from questions.models import Exam


@require_http_methods(["GET", "POST"])
@login_required
def quiz_start(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The practice builder. GET: its form, for the exam named (the exam and topic pages link
    to it, and embed its short form). POST: draw the questions and start; with `preview`, only
    say how many questions the choices give (with htmx, that line alone)."""
    if request.method == "GET":
        form = QuizStartForm(initial={"built": True, **request.GET.dict()})
        return _render_quiz_start(request, form)
    form = QuizStartForm(request.POST)
    if "preview" in request.POST:
        return _render_quiz_start(request, form, preview=True)
    if not form.is_valid():
        return _render_quiz_start(request, form, status=400)
    plan: Plan = form.cleaned_data["plan"]
    rng = random.Random()  # noqa: S311 - a quiz's order, not a secret
    quiz = plan.build(request.user, rng)
    if quiz is None:
        return _nothing_matches(request, form, plan)
    if plan.length and quiz.item_count < plan.length:
        messages.info(
            request,
            f"Only {quiz.item_count} question{pluralize(quiz.item_count)} matched: "
            f"this quiz has all of them.",
        )
    return redirect(reverse("quiz_item", args=[quiz.code, 1]))


def _nothing_matches(
    request: AuthenticatedHttpRequest, form: QuizStartForm, plan: Plan
) -> HttpResponse:
    """The start form again, saying which exam and topics had nothing for those choices; when
    the choice of questions alone narrowed it, with the nearest choice that has questions to
    start at once."""
    exam, topic = plan.exam, plan.topic
    named = plan.label or (topic.title if topic else "")
    where = f"{named} ({exam.code})" if named else f"{exam.code}, all topics"
    context: dict[str, Any] = {"form": form}
    if plan.narrowed:
        form.add_error(
            None,
            f"No question of {where} matches all of these choices. Widen them: more topics "
            "or item types, more sittings, or any questions.",
        )
        return _render_quiz_start(request, form, context)
    selection = Selection(plan.selection)
    form.add_error("selection", f"No question of {where} is in “{selection.label.lower()}” yet.")
    base = replace(plan, selection=Selection.ANY).questions(request.user)
    found = next_best(selection, base, request.user)
    if found is not None:
        choice, count = found
        context["next_best"] = {"selection": choice, "label": choice.label, "count": count}
    elif topic is not None:
        context["whole_exam"] = exam  # the topic has no published question at all
    return _render_quiz_start(request, form, context)


def _render_quiz_start(
    request: AuthenticatedHttpRequest,
    form: QuizStartForm,
    context: dict[str, Any] | None = None,
    status: int = 200,
    preview: bool = False,
) -> HttpResponse:
    """The builder, for the exam the form names (or a choice of exams), with how many
    questions its choices give: the defaults' on a GET, the posted ones on a preview. Its
    queries do not grow with the exam's topics: the exam, its topics, the count (and those
    of the sitting filters)."""
    exam = Exam.objects.filter(slug=form["exam"].value() or None).first()
    context = {"form": form, "exam": exam, **(context or {})}
    if exam is None:
        context["exams"] = Exam.objects.only("slug", "code", "title").order_by("code")
    else:
        topics = list(exam.topics.order_by("position", "pk"))
        form.offer_topics(topics)
        chosen = set(form["topics"].value() or []) | {form["topic"].value() or ""}
        context["topic"] = next((t for t in topics if t.slug in chosen), None)
        if not form.is_bound:
            form.initial["topics"] = [t.slug for t in topics if t.slug in chosen]
            plan = Plan(exam=exam, topics=[t for t in topics if t.slug in chosen])
            context["match_count"] = plan.count(request.user)
        elif preview and form.is_valid():
            context["match_count"] = form.cleaned_data["plan"].count(request.user)
    if preview and request.htmx:
        template = "progress/practice/quiz_start.html#match_count"
        return TemplateResponse(request, template, context)
    if preview and form.errors:
        status = 400
    return TemplateResponse(request, "progress/practice/quiz_start.html", context, status=status)
