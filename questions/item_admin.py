"""The admin's share of the item types: the rows each type shows under a question (its
inlines), the question's fields that fit it, what a change of type leaves behind, and the case
studies. QuestionAdmin (questions.admin) picks from here by the question's type."""

from typing import Any, ClassVar

from django.contrib import admin
from django.db import transaction
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from questions.forms import CaseStudyForm
from questions.item_forms import (
    RATIONALE_FIELDS,
    BlankForm,
    BlankFormSet,
    ChoiceFormSet,
    GapChoiceForm,
    GapChoiceFormSet,
    GapForm,
    GapFormSet,
    OptionForm,
    PoolAnswerForm,
    PoolFormSet,
    PromptForm,
    PromptFormSet,
    StatementForm,
    StatementFormSet,
    StepForm,
    StepFormSet,
)
from questions.item_rules import (
    MAX_PARTS,
    MAX_POOL,
    MAX_STEPS,
    MIN_PROMPTS,
    MIN_STATEMENTS,
    MIN_STEPS,
)
from questions.markup import quick_snippet
from questions.models import (
    MAX_OPTIONS,
    MIN_OPTIONS,
    CaseStudy,
    Kind,
    Option,
    Part,
    Question,
)
from questions.pages.snapshot import forget_questions

RATIONALE: Any = ("Rationale", {"fields": list(RATIONALE_FIELDS)})


class RowInline(admin.StackedInline[Any, Question]):
    """Stacked, not tabular: Django's tabular inline leaves its boxes without labels for screen
    readers. The add page offers a few blank rows beyond the type's minimum."""

    extra = 0
    add_extra: ClassVar[int] = 2

    def get_extra(self, request: HttpRequest, obj: Any = None, **kwargs: Any) -> int:
        return self.add_extra if obj is None else 0


class OptionRowInline(RowInline):
    model = Option

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return super().get_queryset(request).select_related("rationale")


class ChoiceInline(OptionRowInline):
    form = OptionForm
    formset = ChoiceFormSet
    # Counted again by the item's rules, with the same words as the importer.
    min_num = MIN_OPTIONS
    max_num = MAX_OPTIONS
    fieldsets = [(None, {"fields": [("position", "is_correct"), "text"]}), RATIONALE]


class StepInline(OptionRowInline):
    form = StepForm
    formset = StepFormSet
    min_num = MIN_STEPS
    max_num = MAX_STEPS
    fieldsets = [(None, {"fields": ["order", "text"]}), RATIONALE]
    verbose_name = "step"
    verbose_name_plural = "steps, each with its place in the order"


class PoolInline(RowInline):
    model = Option
    form = PoolAnswerForm
    formset = PoolFormSet
    min_num = 2
    max_num = MAX_POOL
    fields = ["text"]
    verbose_name = "answer"
    verbose_name_plural = "pool of answers (the prompts below name them by number)"


class PartRowInline(RowInline):
    model = Part


class PromptInline(PartRowInline):
    form = PromptForm
    formset = PromptFormSet
    min_num = MIN_PROMPTS
    max_num = MAX_PARTS
    fieldsets = [(None, {"fields": [("position", "pool_answer"), "prompt"]}), RATIONALE]
    verbose_name = "prompt"
    verbose_name_plural = "prompts, each with its answer from the pool"


class StatementInline(PartRowInline):
    form = StatementForm
    formset = StatementFormSet
    min_num = MIN_STATEMENTS
    max_num = MAX_PARTS
    fieldsets = [(None, {"fields": [("position", "is_yes"), "prompt"]}), RATIONALE]
    verbose_name = "statement"
    verbose_name_plural = "statements, each answered yes or no"


class BlankInline(PartRowInline):
    form = BlankForm
    formset = BlankFormSet
    min_num = 1
    max_num = MAX_PARTS
    add_extra = 1
    fieldsets = [
        (None, {"fields": ["position", "prompt"]}),
        ("Text answer", {"fields": ["accepted", ("match_case", "ignore_spaces", "wildcards")]}),
        ("Or a number", {"fields": [("number", "tolerance"), "more_numbers", "units"]}),
        ("Feedback on common wrong answers", {"fields": ["feedback"]}),
        RATIONALE,
    ]
    verbose_name = "blank"
    verbose_name_plural = "blanks, each accepting texts or a number"


class GapInline(PartRowInline):
    form = GapForm
    formset = GapFormSet
    min_num = 1
    max_num = MAX_PARTS
    add_extra = 1
    fieldsets = [
        (None, {"fields": ["prompt"]}),
        ("Typed in instead of chosen: a text answer", {
            "fields": ["accepted", ("match_case", "ignore_spaces", "wildcards")],
            "classes": ["collapse"],
        }),
        ("Or a number", {
            "fields": [("number", "tolerance"), "more_numbers", "units"], "classes": ["collapse"]
        }),
        ("Feedback on common wrong answers typed", {
            "fields": ["feedback"], "classes": ["collapse"]
        }),
        RATIONALE,
    ]  # fmt: skip
    verbose_name = "gap"
    verbose_name_plural = "gaps: the first is [[1]] in the exhibit, the second [[2]], …"


class GapChoiceInline(OptionRowInline):
    form = GapChoiceForm
    formset = GapChoiceFormSet
    # A gap typed in has no choices; the item's rules count each drop-down's.
    min_num = 0
    add_extra = 4
    fieldsets = [
        (None, {"fields": [("gap", "position", "is_correct"), "text"]}),
        ("Rationale (optional: learners read the gap's)", {
            "fields": list(RATIONALE_FIELDS), "classes": ["collapse"]
        }),
    ]  # fmt: skip
    verbose_name = "drop-down choice"
    verbose_name_plural = "drop-down choices, each in the gap it names"


# The rows of each type, in the order they are saved: rows named by number come first.
ROW_INLINES: dict[str, list[type[RowInline]]] = {
    Kind.SINGLE: [ChoiceInline],
    Kind.MULTIPLE: [ChoiceInline],
    Kind.ORDERING: [StepInline],
    Kind.MATCHING: [PoolInline, PromptInline],
    Kind.YES_NO: [StatementInline],
    Kind.FILL_IN: [BlankInline],
    Kind.DROPDOWN: [GapInline, GapChoiceInline],
}
ALL_ROW_INLINES = list(dict.fromkeys(inline for row in ROW_INLINES.values() for inline in row))

# What the page asks of each type, on the add page's choice and above the rows.
KIND_GUIDES: dict[str, str] = {
    Kind.SINGLE: "Options, exactly one of them correct, each with its rationale.",
    Kind.MULTIPLE: "Options, one or more of them correct. Partial credit gives each correct "
    "option its share, less the wrong ones ticked.",
    Kind.ORDERING: "Steps, each with its place in the right order (1 first); learners see "
    "them shuffled. A step without a place does not belong: learners must leave it out "
    "(choose K of N).",
    Kind.MATCHING: "A pool of answers, distractors included, then prompts, each with its "
    "answer from the pool, named by its number. Learners see the pool shuffled.",
    Kind.YES_NO: "Statements about one scenario, each answered yes or no, each with its rationale.",
    Kind.FILL_IN: "Blanks, each accepting texts (with case and space rules) or a number (with "
    "a tolerance and units), and feedback on common wrong answers.",
    Kind.DROPDOWN: "An exhibit (a table, code or configuration) with drop-downs in place: "
    "gaps marked [[1]], [[2]], … in the exhibit, each with its choices, one of them correct. "
    "A gap without choices is typed in instead: give it accepted texts or a number.",
}

# What a type's rows are called, for the note after a change of type.
ROW_NAMES: dict[str, str] = {
    Kind.SINGLE: "options",
    Kind.MULTIPLE: "options",
    Kind.ORDERING: "steps",
    Kind.MATCHING: "pool and prompts",
    Kind.YES_NO: "statements",
    Kind.FILL_IN: "blanks",
    Kind.DROPDOWN: "gaps and their choices",
}


def question_fieldsets(kind: str) -> list[tuple[str | None, dict[str, Any]]]:
    """The question's fields for a type: those that do not apply to it are not shown."""
    answering: list[str] = []
    content = ["stem", "image", "image_alt", "exhibit", "trap", "explanation"]
    if kind == Kind.DROPDOWN:
        content.remove("exhibit")
        answering.append("exhibit")
    if kind != Kind.SINGLE:
        answering.append("scoring")
    if kind == Kind.MATCHING:
        answering.append("reuse_answers")
    fieldsets: list[tuple[str | None, dict[str, Any]]] = [
        (None, {"fields": ["uid", "topic", "kind", "status", "case_study"]}),
        ("Content", {"fields": content}),
    ]
    if answering:
        label = Kind(kind).label
        fieldsets.append((label, {"fields": answering, "description": KIND_GUIDES[kind]}))
    fieldsets.append(
        (
            "Curation",
            {"fields": ["difficulty", "author", "reviewed_on", "tags", "references", "position"]},
        )
    )
    return fieldsets


def kind_change_note(kind: str) -> str:
    return (
        f"The type is now {Kind(kind).label}: fill in its {ROW_NAMES[kind]} below, then save. "
        "Nothing was saved."
    )


# The types with a list of options, and those with a list of parts.
OPTION_KINDS = {k for k, inlines in ROW_INLINES.items() if any(i.model is Option for i in inlines)}
PART_KINDS = {k for k, inlines in ROW_INLINES.items() if any(i.model is Part for i in inlines)}


def drop_rows_of_other_kinds(question: Question) -> None:
    """After a change of type: the rows the new type shows no list for would stay unseen and
    unchecked, so they go, and what an option or a part kept for another type (a place, a
    gap, a correct flag, a matching answer, a blank's rules) is cleared."""
    kind = question.kind
    options = Option.objects.filter(question=question)
    parts = Part.objects.filter(question=question)
    if kind in OPTION_KINDS:
        cleared: dict[str, Any] = {}
        if kind != Kind.ORDERING:
            cleared["order"] = None
        if kind != Kind.DROPDOWN:
            cleared["part"] = None
        if kind in (Kind.ORDERING, Kind.MATCHING):
            cleared["is_correct"] = False
        options.update(**cleared)
    else:
        options.delete()
    if kind in PART_KINDS:
        cleared = {}
        if kind != Kind.MATCHING:
            cleared["answer"] = None
        if kind != Kind.YES_NO:
            cleared["is_yes"] = None
        if kind not in (Kind.FILL_IN, Kind.DROPDOWN):
            cleared |= {"accepted": "", "match_case": False, "ignore_spaces": False}
            cleared |= {"wildcards": False, "more_numbers": []}
            cleared |= {"number": None, "tolerance": 0, "units": "", "feedback": []}
        parts.update(**cleared)
    else:
        parts.delete()


class CaseStudyFilter(admin.SimpleListFilter):
    """Case studies of the chosen exam (all, labelled with their exam, when none is chosen)."""

    title = "case study"
    parameter_name = "case_study"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        case_studies = CaseStudy.objects.select_related("exam").order_by(
            "exam__position", "exam__slug", "position", "slug"
        )
        exam = request.GET.get("exam")
        if exam:
            case_studies = case_studies.filter(exam__slug=exam)
        return [("none", "none"), *((str(case.pk), str(case)) for case in case_studies)]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        if not value:
            return queryset
        if value == "none":
            return queryset.filter(case_study__isnull=True)
        if not value.isdigit():
            return queryset.none()
        return queryset.filter(case_study_id=int(value))


@admin.register(CaseStudy)
class CaseStudyAdmin(admin.ModelAdmin[CaseStudy]):
    """Scenarios that several questions of an exam share (testlets)."""

    form = CaseStudyForm
    list_display = ["title", "exam", "slug", "question_count", "position"]
    list_filter = ["exam"]
    list_select_related = ["exam"]
    search_fields = ["title", "slug", "scenario", "exam__code", "exam__title"]
    ordering = ["exam__position", "exam__slug", "position", "slug"]
    prepopulated_fields = {"slug": ["title"]}
    fields = ["exam", "title", "slug", "scenario", "position", "questions_using_it"]
    readonly_fields = ["questions_using_it"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[CaseStudy]:
        return super().get_queryset(request).annotate(questions_sharing=Count("questions"))

    @admin.display(description="Questions", ordering="questions_sharing")
    def question_count(self, case: CaseStudy) -> int:
        return case.questions_sharing  # type: ignore[attr-defined]

    @admin.display(description="Questions that use it")
    def questions_using_it(self, case: CaseStudy) -> SafeString | str:
        """One query: the questions, each linked to its page in the admin."""
        if case.pk is None:
            return "None yet: choose this case study on each of its questions."
        questions = case.questions.order_by("position", "uid").only("pk", "uid", "kind", "stem")
        if not questions:
            return "None yet: choose this case study on each of its questions."
        return format_html(
            "<ul>{}</ul>",
            format_html_join(
                "",
                '<li><a href="{}">{}</a> ({}): {}</li>',
                (
                    (
                        reverse("admin:questions_question_change", args=[question.pk]),
                        question.uid,
                        question.get_kind_display(),
                        quick_snippet(question.stem, 90),
                    )
                    for question in questions
                ),
            ),
        )

    def save_model(self, request: HttpRequest, obj: CaseStudy, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        forget_questions(obj.questions.values_list("uid", flat=True))  # their pages show it

    def delete_model(self, request: HttpRequest, obj: CaseStudy) -> None:
        with transaction.atomic():
            forget_questions(obj.questions.values_list("uid", flat=True))
            super().delete_model(request, obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[CaseStudy]) -> None:
        with transaction.atomic():
            forget_questions(
                Question.objects.filter(case_study__in=queryset).values_list("uid", flat=True)
            )
            super().delete_queryset(request, queryset)
