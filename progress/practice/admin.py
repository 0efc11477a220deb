"""The triage of learners' problem reports."""

from django.contrib import admin, messages
from django.db.models import (
    Case,
    QuerySet,
    Value,
    When,
)
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html

from progress.practice.marks import ProblemReport, ReportStatus
from questions.models import Question

DETAILS_EXCERPT = 120


def _question_links(question: Question) -> str:
    return format_html(
        '<a href="{}">{}</a> (<a href="{}">public page</a>)',
        reverse("admin:questions_question_change", args=[question.pk]),
        question.uid,
        question.get_absolute_url(),
    )


@admin.register(ProblemReport)
class ProblemReportAdmin(admin.ModelAdmin[ProblemReport]):
    """Learners' reports, open ones first. Curators fix the question, then mark the report
    resolved; what the learner wrote is never edited here."""

    list_display = ["created_at", "kind", "status", "question_link", "reporter", "details_excerpt"]
    list_display_links = ["created_at"]
    list_filter = ["status", "kind"]
    list_select_related = ["question", "reporter"]
    search_fields = ["question__uid", "details"]
    # Open first (whatever the statuses' names sort like), then newest.
    ordering = [
        Case(When(status=ReportStatus.OPEN, then=Value(0)), default=Value(1)).asc(),
        "-created_at",
    ]
    actions = ["mark_resolved", "reopen"]
    fields = ["question_link", "reporter", "kind", "details", "created_at", "status", "resolved_at"]
    readonly_fields = ["question_link", "reporter", "kind", "details", "created_at", "resolved_at"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # reports come from learners, on the question page

    @admin.display(description="Question", ordering="question__uid")
    def question_link(self, report: ProblemReport) -> str:
        return _question_links(report.question)

    @admin.display(description="Details")
    def details_excerpt(self, report: ProblemReport) -> str:
        details = " ".join(report.details.split())
        return details[:DETAILS_EXCERPT] + ("…" if len(details) > DETAILS_EXCERPT else "")

    def save_model(
        self, request: HttpRequest, obj: ProblemReport, form: object, change: bool
    ) -> None:
        # The status edited by hand: keep resolved_at in step, as the actions do.
        if obj.status == ReportStatus.RESOLVED and obj.resolved_at is None:
            obj.resolved_at = timezone.now()
        elif obj.status == ReportStatus.OPEN:
            obj.resolved_at = None
        super().save_model(request, obj, form, change)

    @admin.action(description="Mark selected reports resolved")
    def mark_resolved(self, request: HttpRequest, queryset: QuerySet[ProblemReport]) -> None:
        count = queryset.filter(status=ReportStatus.OPEN).update(
            status=ReportStatus.RESOLVED, resolved_at=timezone.now()
        )
        self.message_user(request, f"Marked {count} report(s) resolved.", messages.SUCCESS)

    @admin.action(description="Reopen selected reports")
    def reopen(self, request: HttpRequest, queryset: QuerySet[ProblemReport]) -> None:
        count = queryset.exclude(status=ReportStatus.OPEN).update(
            status=ReportStatus.OPEN, resolved_at=None
        )
        self.message_user(request, f"Reopened {count} report(s).", messages.SUCCESS)
