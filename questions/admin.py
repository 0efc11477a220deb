"""The curation tool: exams with their blueprint, questions with the rows of their type
(questions.item_admin) and rationales, the bank import."""

from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.options import IS_POPUP_VAR
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html

# Registers the question images' admin (upload an image, copy its Markdown).
from questions.bank import upload_store
from questions.bank.foreign_import import UploadPlan, UploadRefused, import_upload
from questions.exam_admin import MockSectionInline
from questions.forms import BankUploadForm, ConfirmImportForm, QuestionForm
from questions.item_admin import (
    ALL_ROW_INLINES,
    KIND_GUIDES,
    PART_KINDS,
    ROW_INLINES,
    CaseStudyFilter,
    RowInline,
    drop_rows_of_other_kinds,
    kind_change_note,
    question_fieldsets,
)
from questions.item_forms import ItemCheck, RowFormSet
from questions.lint import panel as lint_panel
from questions.lint.bank import LintError, accept
from questions.media import admin as media_admin  # noqa: F401
from questions.models import (
    Author,
    Exam,
    Kind,
    Question,
    RelatedQuestion,
    Status,
    Topic,
    format_number,
)
from questions.pages.snapshot import forget_exam, forget_exams, forget_listings, forget_questions


def _listed_exams(request: HttpRequest) -> list[Exam]:
    """The exam the list is filtered to (?exam=slug), or every exam. One query."""
    exams = Exam.objects.order_by("position", "slug")
    slug = request.GET.get("exam")
    return list(exams.filter(slug=slug) if slug else exams)


class TopicInline(admin.StackedInline[Topic, Exam]):
    """Stacked, as every inline here: Django's tabular inline leaves its boxes without
    labels for screen readers (axe: "label", critical)."""

    model = Topic
    fields = ["position", "slug", "title", "weight", "description"]
    extra = 0
    show_change_link = True


@admin.register(Exam)
class ExamAdmin(admin.ModelAdmin[Exam]):
    list_display = [
        "code",
        "title",
        "vendor",
        "slug",
        "topics",
        "published",
        "weights",
        "mock_shape",
    ]
    list_display_links = ["code", "title"]
    search_fields = ["code", "title", "slug", "vendor"]
    inlines = [TopicInline, MockSectionInline]
    fieldsets = [
        (None, {"fields": ["slug", "code", "title", "vendor", "description", "position"]}),
        (
            "Mock exam shape",
            {
                "fields": [
                    "mock_question_count",
                    "mock_duration_minutes",
                    "mock_pass_percent",
                    "forward_only",
                ],
                "description": "The real exam's shape: mock exams draw this many questions, "
                "split by the topic weights below (and into the sections below, if any).",
            },
        ),
        (
            "Reported scale",
            {
                "fields": ["scale_min", "scale_max", "scale_pass"],
                "description": "Where the real exam reports a scaled score (e.g. 100 to "
                "1,000, a pass at 720): the report maps the mock's percentage onto it, the "
                "pass mark at the pass percent. Empty: a percentage.",
            },
        ),
    ]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Exam]:
        return Exam.objects.with_counts()

    @admin.display(description="Topics", ordering="topic_count")
    def topics(self, exam: Exam) -> int:
        return exam.topic_count  # type: ignore[attr-defined]

    @admin.display(description="Published questions", ordering="published_count")
    def published(self, exam: Exam) -> int:
        return exam.published_count  # type: ignore[attr-defined]

    @admin.display(description="Weights")
    def weights(self, exam: Exam) -> str:
        total = format_number(exam.weight_total)  # type: ignore[attr-defined]
        if total == "100":
            return "100%"
        return format_html('<strong class="errornote">{}% (not 100)</strong>', total)

    @admin.display(description="Mock exam")
    def mock_shape(self, exam: Exam) -> str:
        if exam.mock_pass_percent is None:
            return "-"
        return (
            f"{exam.mock_question_count} questions, {exam.mock_duration_minutes} min, "
            f"pass {format_number(exam.mock_pass_percent)}%"
        )

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        if request.method == "GET":
            exam = self.get_object(request, object_id)
            if exam is not None:
                self._warn_about_weights(request, exam)
        return super().change_view(request, object_id, form_url, extra_context)

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        forget_exam(form.instance.pk)  # every question page shows the exam's and topic's names
        self._warn_about_weights(request, form.instance)

    # Only exams without questions can go (their topics protect the questions); the catalog
    # lists them all the same.
    def delete_model(self, request: HttpRequest, obj: Exam) -> None:
        with transaction.atomic():
            super().delete_model(request, obj)
            forget_listings()

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Exam]) -> None:
        with transaction.atomic():
            super().delete_queryset(request, queryset)
            forget_listings()

    def _warn_about_weights(self, request: HttpRequest, exam: Exam) -> None:
        problem = exam.weight_problem()
        if problem:
            messages.warning(
                request,
                f"{exam.code}: {problem}. Mock exams split their questions by these weights; "
                "the importer refuses such an exam.",
            )


class WeightNotSetFilter(admin.SimpleListFilter):
    """Topics an import created with weight 0, for a curator to give their blueprint weight."""

    title = "blueprint weight"
    parameter_name = "weight"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("unset", "weight not set (0)")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.filter(weight=0) if self.value() == "unset" else queryset


@admin.register(Topic)
class TopicAdmin(admin.ModelAdmin[Topic]):
    list_display = ["title", "exam", "slug", "weight", "position"]
    list_filter = ["exam", WeightNotSetFilter]
    list_select_related = ["exam"]
    search_fields = ["title", "slug", "exam__code", "exam__title"]
    ordering = ["exam__position", "exam__slug", "position"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Topic]:
        # Topic.__str__ shows the exam's code: autocompletes list topics through here.
        return super().get_queryset(request).select_related("exam")

    def save_model(self, request: HttpRequest, obj: Topic, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        forget_exam(obj.exam_id)

    # Only topics without questions can go; the blueprint and the catalog count them.
    def delete_model(self, request: HttpRequest, obj: Topic) -> None:
        with transaction.atomic():
            super().delete_model(request, obj)
            forget_listings()

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Topic]) -> None:
        with transaction.atomic():
            super().delete_queryset(request, queryset)
            forget_listings()


class RelatedInline(admin.StackedInline[RelatedQuestion, Question]):
    """Stacked, not tabular: Django's tabular inline leaves its position and delete boxes
    without labels for screen readers."""

    model = RelatedQuestion
    fk_name = "from_question"
    fields = ["position", "to_question"]
    autocomplete_fields = ["to_question"]
    extra = 0
    verbose_name = "related question"
    verbose_name_plural = "related questions (shown as “Related to this question”)"


class ExamFilter(admin.SimpleListFilter):
    title = "exam"
    parameter_name = "exam"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(exam.slug, exam.code) for exam in Exam.objects.only("slug", "code")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        return queryset.filter(topic__exam__slug=self.value()) if self.value() else queryset


class TopicFilter(admin.SimpleListFilter):
    """Topics of the chosen exam (all topics, labelled with their exam, when none is chosen)."""

    title = "topic"
    parameter_name = "topic"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        topics = Topic.objects.select_related("exam").order_by(
            "exam__position", "exam__slug", "position"
        )
        exam = request.GET.get("exam")
        if exam:
            topics = topics.filter(exam__slug=exam)
        return [(str(topic.pk), str(topic)) for topic in topics]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        value = self.value()
        if not value:
            return queryset
        if not value.isdigit():
            return queryset.none()
        return queryset.filter(topic_id=int(value))


# Questions shown in full on an import's preview; a larger file is counted, then imported whole.
PREVIEW_LIMIT = 500

# A change of these changes every page of the exam (see QuestionAdmin.save_related).
LISTED_FIELDS = {"status", "topic", "position"}


@admin.register(Author)
class AuthorAdmin(admin.ModelAdmin[Author]):
    """The people whose byline the question pages show: chosen on each question."""

    list_display = ["name", "credentials", "role", "question_count"]
    search_fields = ["name", "credentials", "role"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Author]:
        return super().get_queryset(request).annotate(questions_written=Count("questions"))

    @admin.display(description="Questions", ordering="questions_written")
    def question_count(self, author: Author) -> int:
        return author.questions_written  # type: ignore[attr-defined]

    def save_model(self, request: HttpRequest, obj: Author, form: Any, change: bool) -> None:
        super().save_model(request, obj, form, change)
        forget_questions(obj.questions.values_list("uid", flat=True))  # their bylines


@admin.register(Question)
class QuestionAdmin(admin.ModelAdmin[Question]):
    list_display = ["uid", "short_stem", "exam", "topic_title", "status", "kind",
                    "case_study_title", "reviewed_on", "public_page"]  # fmt: skip
    list_select_related = ["topic__exam", "case_study"]
    list_filter = [ExamFilter, TopicFilter, "status", "difficulty", "kind", CaseStudyFilter,
                   "reviewed_on"]  # fmt: skip
    search_fields = ["uid", "stem"]
    # Exam by exam, each in its bank order (the model's own ordering interleaves exams).
    ordering = ["topic__exam__position", "topic__exam__slug", "position", "uid"]
    list_per_page = 50
    autocomplete_fields = ["topic", "author"]
    form = QuestionForm
    # Every type's rows, for Django's checks; a page shows its type's (get_inlines).
    inlines = [*ALL_ROW_INLINES, RelatedInline]
    actions = ["publish", "send_to_review", "mark_reviewed_today"]
    change_list_template = "admin/questions/question/change_list.html"

    @staticmethod
    def shown_kind(request: HttpRequest, obj: Question | None) -> str:
        """The type whose fields and rows the page has: the one posted (a changed type's rows
        are then those checked and shown again), else the stored one, else the one chosen
        before adding."""
        posted = request.POST.get("kind") if request.method == "POST" else None
        chosen = request.GET.get("kind") if obj is None else obj.kind
        for kind in (posted, chosen):
            if kind in Kind.values:
                return str(kind)
        return Kind.SINGLE

    def get_fieldsets(self, request: HttpRequest, obj: Question | None = None) -> Any:
        return question_fieldsets(self.shown_kind(request, obj))

    def get_inlines(self, request: HttpRequest, obj: Question | None) -> Any:
        return [*ROW_INLINES[self.shown_kind(request, obj)], RelatedInline]

    def get_formsets_with_inlines(self, request: HttpRequest, obj: Question | None = None) -> Any:
        # The rows' formsets of one request share one check: an item's rules span them.
        check = ItemCheck()
        for formset, inline in super().get_formsets_with_inlines(request, obj):
            if issubclass(formset, RowFormSet):
                formset = type(formset.__name__, (formset,), {"item": check})
            yield formset, inline

    def get_formset_kwargs(
        self, request: HttpRequest, obj: Question, inline: Any, prefix: str
    ) -> dict[str, Any]:
        kwargs = super().get_formset_kwargs(request, obj, inline, prefix)
        posted = f"{prefix}-TOTAL_FORMS" in request.POST
        if request.method == "POST" and isinstance(inline, RowInline) and not posted:
            # The page had no such rows: the type changed. They are shown as stored, to be
            # filled in; unbound, they are not valid, so nothing is saved.
            kwargs.pop("data", None)
            kwargs.pop("files", None)
        return kwargs

    def render_change_form(
        self,
        request: HttpRequest,
        context: dict[str, Any],
        add: bool = False,
        change: bool = False,
        form_url: str = "",
        obj: Question | None = None,
    ) -> HttpResponse:
        if request.method == "POST":
            # The item's problems concern all its rows: at the top of the form, said once.
            form = context["adminform"].form
            rows = [
                inline.formset
                for inline in context["inline_admin_formsets"]
                if isinstance(inline.formset, RowFormSet)
            ]
            notes = [kind_change_note(form.shown_kind)] if any(not f.is_bound for f in rows) else []
            check = rows[0].item if rows else None
            for message in [*notes, *(check.problems if check else [])]:
                form.add_error(None, message)
                context["errors"].append(message)
        return super().render_change_form(request, context, add, change, form_url, obj)

    def add_view(
        self, request: HttpRequest, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        """A new question's type comes first, so that the form shows its rows."""
        if request.method == "GET" and request.GET.get("kind") not in Kind.values:
            if not self.has_add_permission(request):
                raise PermissionDenied
            choices = []
            for kind in Kind:
                query = request.GET.copy()
                query["kind"] = kind.value
                choices.append((f"?{query.urlencode()}", kind.label, KIND_GUIDES[kind]))
            context = {
                **self.admin_site.each_context(request),
                "opts": self.opts,
                "title": "Add question: choose its type",
                "choices": choices,
                "is_popup": IS_POPUP_VAR in request.GET,
            }
            return TemplateResponse(request, "admin/questions/question/choose_kind.html", context)
        return super().add_view(request, form_url, extra_context)

    def save_model(self, request: HttpRequest, obj: Question, form: Any, change: bool) -> None:
        if not change and not form.cleaned_data.get("position"):
            # A question added by hand goes last in its exam's bank order.
            obj.position = Question.objects.next_position(obj.topic.exam)
        super().save_model(request, obj, form, change)
        if form.new_image is not None:
            messages.info(request, "The image is shown at the end of the stem: move it if need be.")

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        question = form.instance
        if change and "kind" in form.changed_data:
            drop_rows_of_other_kinds(question)
        if not change or LISTED_FIELDS & set(form.changed_data):
            # Every page of the exam (and of the one it left) shows what changed: the count
            # of published questions, the previous and next questions of the topic.
            old_topic = form.initial.get("topic")
            exams = {question.topic.exam_id}
            if old_topic and old_topic != question.topic_id:
                exams |= set(Topic.objects.filter(pk=old_topic).values_list("exam_id", flat=True))
            forget_exams(exams)
        # The uid may have been edited: the page under the old one goes too. The topic page
        # lists its stem, kind and difficulty.
        forget_questions({question.uid, form.initial.get("uid") or question.uid}, listings=True)

    def delete_model(self, request: HttpRequest, obj: Question) -> None:
        with transaction.atomic():
            forget_exams([obj.topic.exam_id])  # before: the links to it go with it
            super().delete_model(request, obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Question]) -> None:
        with transaction.atomic():
            forget_exams(queryset.values_list("topic__exam_id", flat=True).distinct())
            super().delete_queryset(request, queryset)

    @staticmethod
    def _update(queryset: QuerySet[Question], *, listed: bool, **values: Any) -> int:
        """Bulk-update the selected questions and drop their cached pages once committed:
        every page of their exams when what changes is which ones are published (`listed`)."""
        with transaction.atomic():
            count = queryset.update(**values)
            if listed:
                forget_exams(queryset.values_list("topic__exam_id", flat=True).distinct())
            else:
                forget_questions(queryset.values_list("uid", flat=True))
        return count

    @admin.display(description="Stem")
    def short_stem(self, question: Question) -> str:
        stem = " ".join(question.stem.split())
        return stem[:90] + ("…" if len(stem) > 90 else "")

    @admin.display(description="Exam", ordering="topic__exam__code")
    def exam(self, question: Question) -> str:
        return question.topic.exam.code

    @admin.display(description="Topic", ordering="topic__title")
    def topic_title(self, question: Question) -> str:
        return question.topic.title

    @admin.display(description="Case study", ordering="case_study__title")
    def case_study_title(self, question: Question) -> str:
        return question.case_study.title if question.case_study else "-"

    @admin.display(description="Public page")
    def public_page(self, question: Question) -> str:
        label = "View" if question.is_published else "Preview"
        return format_html('<a href="{}">{}</a>', question.get_absolute_url(), label)

    @admin.action(description="Publish selected questions")
    def publish(self, request: HttpRequest, queryset: QuerySet[Question]) -> None:
        # Imported questions may lack an explanation or rationales; they stay unpublished.
        # The rationales are those the page shows: the options' (a choice's, a step's), or
        # the parts' (a prompt's, a statement's, a blank's, a gap's).
        incomplete = queryset.filter(
            Q(explanation="")
            | (~Q(kind__in=PART_KINDS) & Q(options__rationale__why=""))
            | Q(kind__in=PART_KINDS, parts__why="")
        )
        held = set(incomplete.values_list("pk", flat=True))
        count = self._update(
            queryset.exclude(pk__in=held),
            listed=True,
            status=Status.PUBLISHED,
            updated_at=timezone.now(),
        )
        self.message_user(request, f"Published {count} question(s).", messages.SUCCESS)
        if held:
            self.message_user(
                request,
                f"Not published: {len(held)} question(s) without an explanation or with an "
                "option or part without a rationale. Write them first.",
                messages.WARNING,
            )

    @admin.action(description="Send selected questions to review")
    def send_to_review(self, request: HttpRequest, queryset: QuerySet[Question]) -> None:
        count = self._update(queryset, listed=True, status=Status.REVIEW, updated_at=timezone.now())
        self.message_user(request, f"Sent {count} question(s) to review.", messages.SUCCESS)

    @admin.action(description="Mark selected questions reviewed today")
    def mark_reviewed_today(self, request: HttpRequest, queryset: QuerySet[Question]) -> None:
        today = timezone.localdate()
        count = self._update(queryset, listed=False, reviewed_on=today, updated_at=timezone.now())
        self.message_user(
            request, f"Marked {count} question(s) reviewed on {today:%Y-%m-%d}.", messages.SUCCESS
        )

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        """The list, with the bank checks' summary of the exam it lists (or of all)."""
        extra_context = {
            **(extra_context or {}),
            "lint": lint_panel.summary(_listed_exams(request)),
        }
        extra_context["lint_url"] = reverse("admin:questions_question_lint") + (
            f"?exam={request.GET['exam']}" if request.GET.get("exam") else ""
        )
        return super().changelist_view(request, extra_context)

    def lint_view(self, request: HttpRequest) -> HttpResponse:
        """Every flag of the listed exam (or of all), each with a form to accept it with a
        note; POST accepts one (an empty note withdraws an acceptance)."""
        if not self.has_change_permission(request):
            raise PermissionDenied
        if request.method == "POST":
            uid, key = request.POST.get("uid", ""), request.POST.get("key", "")
            note = request.POST.get("note", "").strip()
            try:
                if not note and request.POST.get("withdraw") != "1":
                    raise LintError("say why the flag is fine: the note is what accepts it")
                accept(uid, key, note)
            except LintError as error:
                self.message_user(request, f"Nothing changed: {error}.", messages.ERROR)
                return HttpResponseRedirect(request.get_full_path(), status=303)
            done = "accepted" if note else "open again"
            self.message_user(request, f"{uid}: {key} {done}.", messages.SUCCESS)
            return HttpResponseRedirect(request.get_full_path())
        exams = _listed_exams(request)
        lint = lint_panel.summary(exams)
        urls = {
            uid: reverse("admin:questions_question_change", args=[pk])
            for uid, pk in Question.objects.filter(topic__exam__in=exams).values_list("uid", "pk")
        }
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": "Bank checks",
            "lint": lint,
            "exams": exams,
            "open_rows": [(flag, urls.get(flag.uid)) for flag in lint.open],
            "accepted_rows": [(flag, urls.get(flag.uid)) for flag in lint.accepted],
        }
        return TemplateResponse(request, "admin/questions/question/lint.html", context)

    def get_urls(self) -> list[URLPattern]:
        return [
            path(
                "import/",
                self.admin_site.admin_view(self.import_view),
                name="questions_question_import",
            ),
            path(
                "checks/",
                self.admin_site.admin_view(self.lint_view),
                name="questions_question_lint",
            ),
            *super().get_urls(),
        ]

    def import_view(self, request: HttpRequest) -> HttpResponse:
        """Upload a bank file (POST without a token): its preview, the upload kept on the
        server under a signed token. Confirm (POST with the token): the same file read, checked
        and imported again from the kept bytes, then back to the list."""
        if not (self.has_add_permission(request) and self.has_change_permission(request)):
            raise PermissionDenied
        context: dict[str, Any] = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": "Import question bank",
            "preview_limit": PREVIEW_LIMIT,
        }
        form = BankUploadForm()
        if request.method == "POST" and "token" in request.POST:
            return self._confirm_import(request, context)
        if request.method == "POST":
            form = BankUploadForm(request.POST, request.FILES)
            if form.is_valid():
                upload = form.cleaned_data["bank_file"]
                raw = upload.read()
                choices = {
                    "name": upload.name,
                    "format": form.cleaned_data["file_format"],
                    "exam": form.cleaned_data["exam"].slug if form.cleaned_data["exam"] else None,
                    "topic": form.cleaned_data["topic"].slug
                    if form.cleaned_data["topic"]
                    else None,
                }
                try:
                    plan = self._plan(raw, choices, dry_run=True)
                except UploadRefused as error:
                    form.add_error(error.field, str(error))
                else:
                    context["plan"] = plan
                    if plan.questions:
                        token = upload_store.keep(raw, request.user.pk, choices)
                        context["confirm"] = ConfirmImportForm(initial={"token": token})
                    status = 400 if plan.errors and not plan.questions else 200
                    return TemplateResponse(
                        request, "admin/questions/question/import.html", context, status=status
                    )
        context["form"] = form
        return TemplateResponse(
            request,
            "admin/questions/question/import.html",
            context,
            status=400 if form.errors else 200,
        )

    def _confirm_import(self, request: HttpRequest, context: dict[str, Any]) -> HttpResponse:
        confirm = ConfirmImportForm(request.POST)
        try:
            if not confirm.is_valid():
                raise upload_store.UploadExpired
            token = confirm.cleaned_data["token"]
            raw, choices = upload_store.take(token, request.user.pk)
        except upload_store.UploadExpired:
            context["form"] = BankUploadForm()
            context["refused"] = "This preview has expired or is not yours: upload the file again."
            return TemplateResponse(
                request, "admin/questions/question/import.html", context, status=400
            )
        try:
            plan = self._plan(raw, choices, dry_run=False)
        except UploadRefused as error:
            context["form"] = BankUploadForm()
            context["refused"] = f"Nothing imported: {error}"
            return TemplateResponse(
                request, "admin/questions/question/import.html", context, status=400
            )
        if not plan.written:  # the bank changed since the preview: a problem now
            context["plan"] = plan
            return TemplateResponse(
                request, "admin/questions/question/import.html", context, status=400
            )
        upload_store.forget(token)
        self.message_user(
            request,
            f"Imported {plan.label}: {plan.created} created, {plan.updated} updated, "
            f"{plan.unchanged} unchanged; {len(plan.skipped)} skipped."
            + (" Imported questions are in review." if plan.format != "json" else ""),
            messages.SUCCESS,
        )
        return HttpResponseRedirect(reverse("admin:questions_question_changelist"))

    @staticmethod
    def _plan(raw: bytes, choices: dict[str, Any], *, dry_run: bool) -> UploadPlan:
        return import_upload(
            choices["name"],
            raw,
            choices["format"],
            choices["exam"],
            choices["topic"],
            dry_run=dry_run,
        )
