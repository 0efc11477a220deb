"""The question list of the bank's admin, with the learner side's figures: open problem reports
and the item statistics over everyone. Added here, so that `questions` never imports
`progress`."""

from django.contrib import admin
from django.db.models import (
    BooleanField,
    CharField,
    Count,
    FloatField,
    IntegerField,
    JSONField,
    OuterRef,
    QuerySet,
    StringAgg,
    Subquery,
    Value,
)
from django.db.models.functions import Cast, Coalesce, Concat
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.http import urlencode

from progress.cohorts.models import ItemStatistic
from progress.practice.marks import ProblemReport, ReportStatus
from questions.admin import QuestionAdmin  # registers it: replaced below
from questions.models import Option, Part, Question

admin.site.unregister(Question)


@admin.register(Question)
class QuestionWithReportsAdmin(QuestionAdmin):
    """The questions' admin with a column of open problem reports."""

    list_display = [
        *QuestionAdmin.list_display,
        "open_report_count",
        "facility_shown",
        "discrimination_shown",
        "part_facility_shown",
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
                part_right=Subquery(overall.values("part_right")[:1], output_field=JSONField()),
                first_answers=Subquery(overall.values("learners")[:1], output_field=IntegerField()),
                # The keys of its parts (an ordering's steps that belong) in their order, for
                # the facility per part: in the same query, whatever the number of parts.
                part_keys=Subquery(_keys(Part.objects.all()), output_field=CharField()),
                step_keys=Subquery(
                    _keys(Option.objects.filter(order__isnull=False)), output_field=CharField()
                ),
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

    @admin.display(description="Facility per part")
    def part_facility_shown(self, question: Question) -> str:
        """Each part's share of first answers that got it right, in the parts' order."""
        keys = question.part_keys or question.step_keys or ""  # type: ignore[attr-defined]
        learners: int | None = question.first_answers  # type: ignore[attr-defined]
        if not keys or not learners:
            return self.get_empty_value_display()
        right = question.part_right or {}  # type: ignore[attr-defined]
        return " · ".join(
            f"{n}: {right.get(key, 0) / learners:.0%}"
            for n, key in enumerate(_in_order(keys), start=1)
        )

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


def _keys(rows: QuerySet) -> QuerySet:
    """A question's rows (parts, or options) as "position:id:key", comma-separated in no
    order (SQLite before 3.44 orders no aggregate): `_in_order` sorts them. Keys are
    URL-safe tokens, with neither a comma nor a colon."""
    entry = Concat(
        Cast("position", CharField()), Value(":"), Cast("pk", CharField()), Value(":"), "key",
        output_field=CharField(),
    )  # fmt: skip
    return (
        rows.filter(question=OuterRef("pk"))
        .order_by()
        .values("question")
        .annotate(keys=StringAgg(entry, Value(",")))
        .values("keys")
    )


def _in_order(entries: str) -> list[str]:
    """The keys of `_keys`' entries, in the rows' order (position, then id)."""
    rows = [entry.split(":", 2) for entry in entries.split(",") if entry]
    return [key for _, _, key in sorted(rows, key=lambda row: (int(row[0]), int(row[1])))]
