"""The exam's side of the bank: exams, their blueprint topics, and the shape of their mock
exams (question count, minutes, pass mark, sections, forward-only, the reported scale).
questions.models is the index Django imports: it imports this module, never the reverse."""

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.db.models import Count, F, OuterRef, Q, Subquery, Sum, Value
from django.db.models.functions import Coalesce
from django.urls import reverse

from questions.choices import Kind, Status

SLUG_PATTERN = r"^[a-z0-9]+(-[a-z0-9]+)*$"
slug_validator = RegexValidator(
    SLUG_PATTERN, "Use lowercase letters, digits and single hyphens (e.g. cloud-basics-01)."
)


WEIGHT_TOTAL = Decimal(100)


def weight_total_problem(weights: Sequence[Decimal]) -> str | None:
    """None when the blueprint weights add up to 100, else a sentence saying what they add to."""
    total = sum(weights, Decimal(0))
    if total == WEIGHT_TOTAL:
        return None
    return f"topic weights add up to {format_number(total)}, not 100"


def format_number(value: Decimal) -> str:
    """70 for Decimal('70.00'), 12.5 for Decimal('12.50')."""
    normalized = value.normalize()
    return f"{normalized:f}" if normalized != normalized.to_integral() else f"{int(normalized)}"


class ExamQuerySet(models.QuerySet["Exam"]):
    def with_counts(self) -> "ExamQuerySet":
        """Annotate topic count, published-question count and weight total.

        Subqueries rather than joins, so that the counts do not multiply each other and the
        whole list stays one query.
        """
        topics = Topic.objects.filter(exam=OuterRef("pk")).order_by().values("exam")
        return self.annotate(
            topic_count=Coalesce(Subquery(topics.annotate(n=Count("pk")).values("n")), 0),
            weight_total=Coalesce(
                Subquery(topics.annotate(total=Sum("weight")).values("total")),
                Value(Decimal(0)),
                output_field=models.DecimalField(max_digits=7, decimal_places=2),
            ),
            # Through the topics' reverse relation: the questions' module imports this one.
            published_count=Coalesce(
                Subquery(
                    topics.annotate(
                        n=Count("questions", filter=Q(questions__status=Status.PUBLISHED))
                    ).values("n")
                ),
                0,
            ),
        )


class Exam(models.Model):
    slug = models.CharField(max_length=80, unique=True, validators=[slug_validator])
    code = models.CharField(max_length=20, help_text="Short label shown in the UI, e.g. CMLE.")
    title = models.CharField(max_length=200)
    vendor = models.CharField(max_length=100, blank=True)
    description = models.TextField(blank=True, help_text="Markdown.")
    mock_question_count = models.PositiveSmallIntegerField(
        "mock exam questions",
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(500)],
    )
    mock_duration_minutes = models.PositiveSmallIntegerField(
        "mock exam minutes",
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(600)],
    )
    mock_pass_percent = models.DecimalField(
        "mock exam pass percent",
        max_digits=5,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0.01")), MaxValueValidator(100)],
    )
    forward_only = models.BooleanField(
        "forward-only",
        default=False,
        help_text="As Cisco's exams: no going back to an earlier question in a mock exam.",
    )
    # The real exam's reported scale (e.g. 100 to 1,000, a pass at 720), or none: then the
    # report gives a percentage. See ScoreScale for how marks map to it.
    scale_min = models.PositiveIntegerField("lowest scaled score", null=True, blank=True)
    scale_max = models.PositiveIntegerField("highest scaled score", null=True, blank=True)
    scale_pass = models.PositiveIntegerField("scaled pass mark", null=True, blank=True)
    position = models.PositiveIntegerField(
        default=0, help_text="Order in the catalog and in exported bank files."
    )
    # Bank-wide lint flags a curator accepted, by flag: {"longest-cue": "why it is fine"}.
    lint_notes = models.JSONField(default=dict, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ExamQuerySet.as_manager()

    class Meta:
        ordering = ["position", "slug"]
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(
                        mock_question_count__isnull=True,
                        mock_duration_minutes__isnull=True,
                        mock_pass_percent__isnull=True,
                    )
                    | Q(
                        mock_question_count__isnull=False,
                        mock_duration_minutes__isnull=False,
                        mock_pass_percent__isnull=False,
                    )
                ),
                name="exam_mock_shape_all_or_none",
                violation_error_message=(
                    "Give the mock exam's question count, minutes and pass percent together, "
                    "or none of them."
                ),
            ),
            models.CheckConstraint(
                condition=Q(mock_pass_percent__isnull=True)
                | Q(mock_pass_percent__gt=0, mock_pass_percent__lte=100),
                name="exam_pass_percent_range",
            ),
            models.CheckConstraint(
                condition=Q(scale_min__isnull=True, scale_max__isnull=True, scale_pass__isnull=True)
                | Q(
                    scale_min__lt=F("scale_pass"),
                    scale_pass__lte=F("scale_max"),
                    mock_pass_percent__isnull=False,
                ),
                name="exam_scale_in_order",
                violation_error_message=(
                    "Give the scale's lowest score, pass mark and highest score together, in "
                    "that order (lowest below the pass mark, the pass mark at most the "
                    "highest), with the mock exam's shape."
                ),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.code}: {self.title}"

    def get_absolute_url(self) -> str:
        return reverse("exam_detail", args=[self.slug])

    @property
    def has_mock_shape(self) -> bool:
        return self.mock_question_count is not None

    @property
    def scale(self) -> "ScoreScale | None":
        if self.scale_min is None or self.scale_max is None or self.scale_pass is None:
            return None
        return ScoreScale(self.scale_min, self.scale_max, self.scale_pass)

    def weight_problem(self) -> str | None:
        """Costs one query: the topics' weights."""
        return weight_total_problem(list(self.topics.values_list("weight", flat=True)))


class Topic(models.Model):
    exam = models.ForeignKey(Exam, on_delete=models.CASCADE, related_name="topics")
    slug = models.CharField(max_length=80, validators=[slug_validator])
    title = models.CharField(max_length=200)
    weight = models.DecimalField(
        max_digits=5,
        decimal_places=2,
        validators=[MinValueValidator(0), MaxValueValidator(100)],
        help_text="Blueprint weight in percent; the weights of an exam add up to 100.",
    )
    description = models.TextField(blank=True, help_text="Markdown.")
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["position", "slug"]
        constraints = [
            # Its index also serves "the topics of this exam" (exam_id is its first column).
            models.UniqueConstraint(fields=["exam", "slug"], name="topic_unique_slug_per_exam"),
            models.CheckConstraint(
                condition=Q(weight__gte=0, weight__lte=100), name="topic_weight_percent"
            ),
        ]

    def __str__(self) -> str:
        # Used by autocompletes and filters: every queryset that shows topics selects the exam.
        return f"{self.exam.code} · {self.title}"

    def get_absolute_url(self) -> str:
        return reverse("topic_detail", args=[self.exam.slug, self.slug])


@dataclass(frozen=True)
class ScoreScale:
    """A vendor's reported scale. Vendors publish the scale and the pass mark, not how raw
    marks map to it; what they imply is a map that keeps the pass mark where the raw pass
    mark is. So: linear from the lowest score at 0 % to the pass mark at the exam's pass
    percent, and linear again from there to the highest score at 100 %. A sitting passes on
    the scale exactly when it passes on the percentage."""

    low: int
    high: int
    passing: int

    def scaled(self, percent: float, pass_percent: float) -> int:
        percent = min(max(percent, 0.0), 100.0)
        if percent < pass_percent:
            share = percent / pass_percent
            return int(self.low + (self.passing - self.low) * share)  # down: never a false pass
        if pass_percent >= 100:
            return self.passing
        share = (percent - pass_percent) / (100 - pass_percent)
        return round(self.passing + (self.high - self.passing) * share)


def validate_kinds(value: object) -> None:
    if not isinstance(value, list) or any(kind not in Kind.values for kind in value):
        raise ValidationError(f"Item types are a list of {', '.join(Kind.values)}.", code="kinds")


def section_problems(
    question_count: int | None, minutes: int | None, sections: list[dict[str, Any]]
) -> list[str]:
    """What is wrong with these sections of an exam whose mock exams have `question_count`
    questions in `minutes`, in a curator's words: the admin's and the bank import's. A
    section is a dict of MockSection's fields (title, kinds, holds_case_study,
    question_count, minutes)."""
    if question_count is None or minutes is None:
        return ["Give the mock exam's question count, minutes and pass percent first."]
    problems = []
    total = sum(section["question_count"] for section in sections)
    if total != question_count:
        problems.append(
            f"The sections hold {total} questions but the mock exam has "
            f"{question_count}: make them add up."
        )
    own = sum(section.get("minutes") or 0 for section in sections)
    if own > minutes:
        problems.append(
            f"The sections' own minutes add up to {own}, more than the exam's {minutes}."
        )
    if sum(1 for section in sections if section.get("holds_case_study")) > 1:
        problems.append("Only one section can hold the case study: a mock exam draws one.")
    named: dict[str, str] = {}
    for section in sections:
        for kind in section.get("kinds", []):
            if kind in named:
                problems.append(
                    f"“{Kind(kind).label}” is named by both “{named[kind]}” and "
                    f"“{section['title']}”: name it in one section."
                )
            named[kind] = section["title"]
    return problems


class MockSection(models.Model):
    """A section of an exam's mock exams, as Microsoft's exams have them: sat in order, of
    the item types it names (any when none) and, where it says so, a case study whole; with
    its own minutes if it has them, and closed for good once finished if it locks. The
    sections' question counts add up to the exam's (checked in the admin); an exam without
    sections is sat as one list under one timer."""

    exam = models.ForeignKey(Exam, on_delete=models.CASCADE, related_name="mock_sections")
    position = models.PositiveSmallIntegerField(default=0)
    title = models.CharField(max_length=120)
    kinds = models.JSONField(
        "item types",
        default=list,
        blank=True,
        validators=[validate_kinds],
        help_text="The item types it holds; none: those no other section names.",
    )
    holds_case_study = models.BooleanField(
        "holds a case study",
        default=False,
        help_text="A case study comes whole into this section, its questions counted in it.",
    )
    question_count = models.PositiveSmallIntegerField(
        "questions", validators=[MinValueValidator(1), MaxValueValidator(500)]
    )
    minutes = models.PositiveSmallIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(600)],
        help_text="Its own time limit, within the exam's; empty: none of its own.",
    )
    locks = models.BooleanField(
        "locks when finished",
        default=False,
        help_text="Once the learner finishes it (after a warning), its questions are closed.",
    )

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            # Its index also serves "the sections of this exam, in order" (exam_id first).
            models.UniqueConstraint(fields=["exam", "position"], name="mock_section_position"),
        ]

    def __str__(self) -> str:
        return self.title
