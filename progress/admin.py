"""The admin of the learner side: each room registers its own (imported here, where Django
looks), and the triage of problem reports. The question list's count of open reports is added
here, so that `questions` never imports `progress`."""

from django.contrib import admin, messages
from django.db.models import (
    BooleanField,
    Case,
    Count,
    FloatField,
    IntegerField,
    JSONField,
    OuterRef,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Coalesce
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.http import urlencode

from progress.accounts import admin as accounts_admin  # noqa: F401  (registers the User admin)
from progress.cohorts.models import ItemStatistic
from progress.practice.models import ProblemReport, ReportStatus
from progress.readiness.models import ReadinessFit
from questions.admin import QuestionAdmin  # registers it: replaced below
from questions.models import Question

DETAILS_EXCERPT = 120


@admin.register(ReadinessFit)
class ReadinessFitAdmin(admin.ModelAdmin[ReadinessFit]):
    """The learner model's parameters, newest (the one in use) first. Made by
    `manage.py rebuild_readiness`, never by hand: read-only here."""

    list_display = ["created_at", "summary", "answers", "learners", "last_attempt_id"]
    readonly_fields = ["created_at", "summary", "answers", "learners", "last_attempt_id"]
    exclude = ["params"]
    ordering = ["-pk"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: ReadinessFit | None = None) -> bool:
        return False


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


admin.site.unregister(Question)


@admin.register(Question)
class QuestionWithReportsAdmin(QuestionAdmin):
    """The questions' admin with a column of open problem reports."""

    list_display = [
        *QuestionAdmin.list_display,
        "open_report_count",
        "facility_shown",
        "discrimination_shown",
        "item_flags_shown",
    ]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Question]:
        # A subquery, not Count over a join: a join would multiply with any other annotation
        # over a relation. Served by the report_status_question index.
        open_reports = (
            ProblemReport.objects.filter(question=OuterRef("pk"), status=ReportStatus.OPEN)
            .order_by()
            .values("question")
            .annotate(n=Count("pk"))
            .values("n")
        )
        # The item statistics over everyone, as compute_item_statistics stored them.
        overall = ItemStatistic.objects.filter(question=OuterRef("pk"), cohort__isnull=True)
        return (
            super()
            .get_queryset(request)
            .annotate(
                open_reports=Coalesce(Subquery(open_reports, output_field=IntegerField()), 0),
                facility=Subquery(overall.values("facility")[:1], output_field=FloatField()),
                discrimination=Subquery(
                    overall.values("discrimination")[:1], output_field=FloatField()
                ),
                item_flags=Subquery(overall.values("flags")[:1], output_field=JSONField()),
                item_flagged=Subquery(overall.values("flagged")[:1], output_field=BooleanField()),
            )
        )

    @admin.display(description="Facility", ordering="facility")
    def facility_shown(self, question: Question) -> str:
        value: float | None = question.facility  # type: ignore[attr-defined]
        return self.get_empty_value_display() if value is None else f"{value:.0%}"

    @admin.display(description="Discrimination", ordering="discrimination")
    def discrimination_shown(self, question: Question) -> str:
        value: float | None = question.discrimination  # type: ignore[attr-defined]
        return self.get_empty_value_display() if value is None else f"{value:+.2f}"

    @admin.display(description="Item flags", ordering="item_flagged")
    def item_flags_shown(self, question: Question) -> str:
        flags = question.item_flags or []  # type: ignore[attr-defined]
        return "; ".join(reason for _, reason in flags)

    @admin.display(description="Open reports", ordering="open_reports")
    def open_report_count(self, question: Question) -> str:
        count: int = question.open_reports  # type: ignore[attr-defined]
        if not count:
            return "0"
        query = {"question__id__exact": str(question.pk), "status__exact": ReportStatus.OPEN.value}
        url = reverse("admin:progress_problemreport_changelist") + "?" + urlencode(query)
        return format_html('<a href="{}">{} open</a>', url, count)
