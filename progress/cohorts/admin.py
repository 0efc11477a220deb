"""The question list of the bank's admin, with the learner side's figures: open problem reports
and the item statistics over everyone. Added here, so that `questions` never imports
`progress`."""

from django.contrib import admin
from django.db.models import (
    BooleanField,
    Count,
    FloatField,
    IntegerField,
    JSONField,
    OuterRef,
    QuerySet,
    Subquery,
)
from django.db.models.functions import Coalesce
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.http import urlencode

from progress.cohorts.models import ItemStatistic
from progress.practice.marks import ProblemReport, ReportStatus
from questions.admin import QuestionAdmin  # registers it: replaced below
from questions.models import Question

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
        # The item statistics over everyone, as the worker keeps them (cohorts.item_statistics).
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
