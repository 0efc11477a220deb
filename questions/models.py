"""The question bank: exams, their blueprint topics, questions, options and rationales.

This is the index Django imports: the exam's side (Exam, Topic, the mock exam's shape) lives
in questions.exams and the vocabularies in questions.choices, imported here so that every
model of the bank can be imported from this module.

The rules that every written question must keep (option counts, correct-option counts, topic
weights) live here as plain functions on the models so that the admin, the importer and any
later form enforce the same thing with the same words.
"""

import re
import secrets
from collections.abc import Iterable, Sequence
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import F, Max, Q
from django.urls import reverse
from django.utils import timezone

from questions.choices import Difficulty, Kind, Scoring, Status
from questions.exams import (
    SLUG_PATTERN,
    WEIGHT_TOTAL,
    Exam,
    ExamQuerySet,
    MockSection,
    ScoreScale,
    Topic,
    format_number,
    slug_validator,
    weight_total_problem,
)
from questions.grading import Grade, grade_answer, more_numbers_problems, more_ranges

__all__ = [
    "WEIGHT_TOTAL",
    "Difficulty",
    "Exam",
    "ExamQuerySet",
    "Grade",
    "Kind",
    "MockSection",
    "ScoreScale",
    "Scoring",
    "Status",
    "Topic",
    "format_number",
    "grade_answer",
    "slug_validator",
    "weight_total_problem",
]


def validate_tags(value: object) -> None:
    # Codes other than "invalid": JSONField would swap that message for "must be valid JSON".
    if not isinstance(value, list) or not all(isinstance(tag, str) for tag in value):
        raise ValidationError('Tags are a list of slugs, e.g. ["iam", "encryption"].', code="tags")
    for tag in value:
        if not re.fullmatch(SLUG_PATTERN, tag):
            raise ValidationError(
                f"Tag {tag!r}: use lowercase letters, digits and single hyphens.", code="tags"
            )


def validate_references(value: object) -> None:
    message = 'References are a list of {"title": "...", "url": "https://..."}.'
    if not isinstance(value, list):
        raise ValidationError(message, code="references")
    for reference in value:
        if not isinstance(reference, dict) or set(reference) != {"title", "url"}:
            raise ValidationError(message, code="references")
        title, url = reference["title"], reference["url"]
        if not isinstance(title, str) or not title.strip() or not isinstance(url, str):
            raise ValidationError(message, code="references")
        if not url.startswith(("https://", "http://")):
            raise ValidationError(
                f"Reference {title!r}: the URL must start with https:// or http://.",
                code="references",
            )


def validate_feedback(value: object) -> None:
    message = 'Feedback is a list of {"answer": "...", "feedback": "..."}.'
    if not isinstance(value, list) or not all(
        isinstance(item, dict)
        and set(item) == {"answer", "feedback"}
        and all(isinstance(text, str) and text.strip() for text in item.values())
        for item in value
    ):
        raise ValidationError(message, code="feedback")


def validate_more_numbers(value: object) -> None:
    problems = more_numbers_problems(value)
    if problems:
        # Code "numbers", not "invalid": JSONField would swap that for "must be valid JSON".
        raise ValidationError("; ".join(problems).capitalize() + ".", code="numbers")


MIN_OPTIONS = 2
MAX_OPTIONS = 8
# How other learners answered a question shows once this many have answered it: fewer say
# more about those few than about the question.
MIN_SHARE_LEARNERS = 20


def option_rule_problems(kind: str, corrects: Sequence[bool]) -> list[str]:
    """What is wrong with a question of `kind` whose options have these correctness flags."""
    problems = []
    count = len(corrects)
    if count < MIN_OPTIONS or count > MAX_OPTIONS:
        problems.append(
            f"a question needs {MIN_OPTIONS} to {MAX_OPTIONS} options (this one has {count})"
        )
    right = sum(1 for flag in corrects if flag)
    if kind == Kind.SINGLE and right != 1:
        problems.append(
            f"a single-answer question needs exactly one correct option (this one has {right})"
        )
    elif kind == Kind.MULTIPLE and right < 1:
        problems.append("a select-all-that-apply question needs at least one correct option")
    return problems


class Author(models.Model):
    """Who wrote and reviewed questions: a curated record, chosen on each question in the
    admin, that the question page shows as its byline."""

    name = models.CharField(max_length=200, unique=True)
    credentials = models.CharField(
        max_length=200, blank=True, help_text="Certifications held, e.g. CISSP, CCNP Security."
    )
    role = models.CharField(
        max_length=200, blank=True, help_text="What they do, e.g. Cloud security architect."
    )
    bio = models.TextField(
        max_length=600, blank=True, help_text="Two or three sentences shown under the byline."
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class CaseStudy(models.Model):
    """A scenario (a testlet) that several questions of an exam share: the company, its
    situation, its exhibits (tables, code, images in markdown). Learners see it beside each
    of its questions, quizzes draw its questions together, and a mock exam sets them apart.
    It must give no answer away: it is shown before answering."""

    exam = models.ForeignKey(Exam, on_delete=models.CASCADE, related_name="case_studies")
    slug = models.CharField(max_length=80, validators=[slug_validator])
    title = models.CharField(max_length=200)
    scenario = models.TextField(help_text="Markdown: the situation, with its exhibits.")
    position = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name_plural = "case studies"
        ordering = ["position", "slug"]
        constraints = [
            models.UniqueConstraint(fields=["exam", "slug"], name="case_study_unique_slug"),
        ]

    def __str__(self) -> str:
        return f"{self.exam.code} · {self.title}"


class QuestionQuerySet(models.QuerySet["Question"]):
    def published(self) -> "QuestionQuerySet":
        """The questions learners may see, answer and be shown the answer to: the one rule
        for every learner's path. Rows of other models filter on it through their question
        (`question__in=Question.objects.published()`), so that a question sent back to
        review or draft disappears from quizzes, mocks and reviews at once."""
        return self.filter(status=Status.PUBLISHED)

    def for_exam(self, exam: Exam) -> "QuestionQuerySet":
        return self.filter(topic__exam=exam)

    def next_position(self, exam: Exam) -> int:
        """The position that puts a new question last in its exam. One query."""
        last = self.for_exam(exam).aggregate(last=Max("position"))["last"]
        return 0 if last is None else last + 1


class Question(models.Model):
    uid = models.CharField(
        "UID",
        max_length=80,
        unique=True,
        validators=[slug_validator],
        help_text="Stable public id, e.g. cmle-0001: re-importing a bank updates by it.",
    )
    topic = models.ForeignKey(Topic, on_delete=models.PROTECT, related_name="questions")
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.SINGLE)
    scoring = models.CharField(
        max_length=10,
        choices=Scoring.choices,
        default=Scoring.ALL,
        help_text="Partial credit gives each part (or correct option) its share of the mark.",
    )
    case_study = models.ForeignKey(
        CaseStudy,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="questions",
        help_text="The scenario it shares with other questions, shown beside it.",
    )
    stem = models.TextField(help_text="Markdown.")
    exhibit = models.TextField(
        blank=True,
        help_text="Markdown shown under the stem: a table, code or configuration. For "
        "drop-downs, [[1]], [[2]], ... mark where each gap's drop-down goes.",
    )
    reuse_answers = models.BooleanField(
        "answers may be used more than once",
        default=False,
        help_text="Matching: one answer of the pool may fit several prompts.",
    )
    trap = models.TextField("common exam trap", blank=True, help_text="Markdown.")
    explanation = models.TextField(help_text="Markdown: why the correct answer is correct.")
    difficulty = models.CharField(max_length=10, choices=Difficulty.choices, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    author = models.ForeignKey(
        Author,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="questions",
        help_text="Who wrote and reviewed it: the page's byline.",
    )
    reviewed_on = models.DateField("last reviewed", null=True, blank=True)
    references = models.JSONField(
        default=list,
        blank=True,
        validators=[validate_references],
        help_text='A list of {"title": ..., "url": "https://..."}.',
    )
    tags = models.JSONField(
        default=list, blank=True, validators=[validate_tags], help_text='A list of slugs: ["iam"].'
    )
    # Lint flags a curator accepted, by flag key, with the note (questions.lint).
    lint_notes = models.JSONField(default=dict, blank=True, editable=False)
    related = models.ManyToManyField(
        "self",
        through="RelatedQuestion",
        through_fields=("from_question", "to_question"),
        symmetrical=False,
        related_name="+",
        blank=True,
    )
    position = models.PositiveIntegerField(
        default=0, help_text="Order within its exam in exported bank files."
    )
    # Learners whose first answer to it is known, as the item statistics last counted them:
    # how other learners answered shows from MIN_SHARE_LEARNERS on (see Option.chosen_by).
    answered_by = models.PositiveIntegerField(default=0, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    # Set explicitly by the importer's bulk updates too: it keys cached renderings.
    updated_at = models.DateTimeField(auto_now=True)

    objects = QuestionQuerySet.as_manager()

    class Meta:
        ordering = ["position", "uid"]
        indexes = [
            # The topic page: published questions of one topic, in bank order.
            models.Index(fields=["topic", "status", "position"], name="question_topic_status_pos"),
            # The admin list's "last reviewed" filter and "stale questions" sort.
            models.Index(fields=["reviewed_on"], name="question_reviewed_on"),
        ]
        constraints = [
            models.CheckConstraint(condition=Q(kind__in=Kind.values), name="question_kind_valid"),
            models.CheckConstraint(
                condition=Q(scoring__in=Scoring.values), name="question_scoring_valid"
            ),
            models.CheckConstraint(
                condition=Q(status__in=Status.values), name="question_status_valid"
            ),
            models.CheckConstraint(
                condition=Q(difficulty__in=[*Difficulty.values, ""]),
                name="question_difficulty_valid",
            ),
        ]

    def __str__(self) -> str:
        stem = " ".join(self.stem.split())
        return f"{self.uid}: {stem[:70]}{'…' if len(stem) > 70 else ''}"

    def get_absolute_url(self) -> str:
        return reverse("question_detail", args=[self.uid])

    @property
    def is_published(self) -> bool:
        # The row-by-row form of QuestionQuerySet.published(): keep the two alike.
        return self.status == Status.PUBLISHED

    def check_answer(self, chosen_keys: Iterable[str]) -> Grade:
        """Grade an answer given as option keys. Costs one query (the correct options' keys).

        The keys must already be validated as this question's (the answer form does that).
        """
        correct = self.options.filter(is_correct=True).values_list("key", flat=True)
        return grade_answer(correct, chosen_keys)


def new_option_key() -> str:
    return secrets.token_urlsafe(6)


class Option(models.Model):
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="options")
    # The value an answer form posts: random, so that neither ids nor their order say which
    # option is correct.
    key = models.CharField(max_length=16, default=new_option_key, editable=False)
    position = models.PositiveSmallIntegerField(default=0)
    text = models.TextField(help_text="Markdown.")
    is_correct = models.BooleanField("correct", default=False)
    # Ordering: the place where this step belongs (1 first); none for a step that does not.
    order = models.PositiveSmallIntegerField(
        "place in the order", null=True, blank=True, validators=[MinValueValidator(1)]
    )
    # Drop-downs: the gap whose drop-down offers it.
    part = models.ForeignKey(
        "Part", on_delete=models.CASCADE, null=True, blank=True, related_name="options"
    )
    # Of the question's answered_by learners, those whose first answer chose this option.
    chosen_by = models.PositiveIntegerField(default=0, editable=False)

    class Meta:
        # No unique (question, position): the admin lets curators swap two positions in one
        # save, which a unique constraint would reject half-way through.
        ordering = ["position", "id"]
        constraints = [
            # Its index also serves "the options of this question" (question_id comes first).
            models.UniqueConstraint(fields=["question", "key"], name="option_unique_key"),
        ]

    def __str__(self) -> str:
        return self.text[:80]


class Rationale(models.Model):
    """Why an option is right or wrong here, why learners pick it, when it would be right."""

    option = models.OneToOneField(
        Option, on_delete=models.CASCADE, primary_key=True, related_name="rationale"
    )
    why = models.TextField("rationale", help_text="Markdown: why it is (or is not) right here.")
    tempting_because = models.TextField(blank=True, help_text="Markdown: why learners pick it.")
    right_when = models.TextField(
        blank=True, help_text="Markdown: the situation in which it would be the right answer."
    )

    def __str__(self) -> str:
        return self.why[:80]


class Part(models.Model):
    """One part of a question made of parts: a matching prompt, a yes/no statement, a fill-in
    blank or an exhibit's drop-down gap, with what it accepts and its rationale: why the
    answer is right here, why learners get it wrong, and when another answer would be right.
    A drop-down gap's choices are Options that name it."""

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="parts")
    # Posted by the answer form: random, so that it says nothing of the answer.
    key = models.CharField(max_length=16, default=new_option_key, editable=False)
    position = models.PositiveSmallIntegerField(default=0)
    prompt = models.TextField(
        blank=True,
        help_text="Markdown: the prompt to match, the statement to judge, the blank's or "
        "the gap's label.",
    )
    answer = models.ForeignKey(
        Option,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name="matching answer",
        help_text="Matching: the answer of the pool that fits this prompt.",
    )
    is_yes = models.BooleanField("answer is yes", null=True, blank=True)
    accepted = models.TextField(
        "accepted answers", blank=True, help_text="Fill-in text: one accepted answer per line."
    )
    match_case = models.BooleanField(default=False)
    ignore_spaces = models.BooleanField(
        default=False, help_text="Compare without any spaces (otherwise runs of spaces are one)."
    )
    wildcards = models.BooleanField(
        default=False,
        help_text="A * in an accepted answer stands for any run of characters (\\* is a star).",
    )
    number = models.DecimalField(
        max_digits=24, decimal_places=8, null=True, blank=True, help_text="Fill-in number."
    )
    tolerance = models.DecimalField(
        max_digits=24,
        decimal_places=8,
        default=Decimal(0),
        validators=[MinValueValidator(0)],
        help_text="How far from the number an answer may be and still be right.",
    )
    # Decimals as strings, so that 0.1 stays 0.1: [{"number": "7", "tolerance": "0.1"}].
    more_numbers = models.JSONField(
        "other right numbers",
        default=list,
        blank=True,
        validators=[validate_more_numbers],
        help_text="Fill-in number: other numbers that are right too, each with its tolerance.",
    )
    units = models.CharField(
        max_length=200, blank=True, help_text="Units accepted after the number, comma-separated."
    )
    feedback = models.JSONField(
        "feedback on common wrong answers",
        default=list,
        blank=True,
        validators=[validate_feedback],
        help_text='A list of {"answer": "...", "feedback": "..."}.',
    )
    why = models.TextField("rationale", blank=True, help_text="Markdown: why the answer fits.")
    tempting_because = models.TextField(
        blank=True, help_text="Markdown: the usual wrong answer and why learners give it."
    )
    right_when = models.TextField(
        blank=True, help_text="Markdown: when another answer would be right."
    )

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["question", "key"], name="part_unique_key"),
        ]

    def __str__(self) -> str:
        return self.prompt[:80] or f"Part {self.position + 1}"

    @property
    def accepted_texts(self) -> list[str]:
        return [line.strip() for line in self.accepted.splitlines() if line.strip()]

    @property
    def more_ranges(self) -> tuple[tuple[Decimal, Decimal], ...]:
        """The other right numbers as (number, tolerance) pairs."""
        return more_ranges(self.more_numbers)

    @property
    def unit_list(self) -> list[str]:
        return [unit.strip() for unit in self.units.split(",") if unit.strip()]


class RelatedQuestion(models.Model):
    """An ordered "go deeper" link from one question to another."""

    from_question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="related_links"
    )
    to_question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="+", verbose_name="related question"
    )
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            # Its index also serves "the related questions of this question".
            models.UniqueConstraint(
                fields=["from_question", "to_question"], name="related_question_once"
            ),
            models.CheckConstraint(
                condition=~Q(from_question=F("to_question")), name="related_question_not_self"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.from_question_id} → {self.to_question_id}"


class PageChange(models.Model):
    """A question whose public page changed. Each server process reads the rows newer than its
    last look (every few seconds, see questions.pages.snapshot) and drops those pages from its own
    cache: a per-process cache then learns of another process's write within seconds, and a
    cached page can live long instead of being rebuilt every minute."""

    uid = models.CharField(max_length=80)
    changed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [
            # The poll: changes since a moment; and the pruning of old rows.
            models.Index(fields=["changed_at"], name="page_change_changed_at"),
        ]

    def __str__(self) -> str:
        return f"{self.uid} at {self.changed_at:%Y-%m-%d %H:%M:%S}"


class QuestionMedia(models.Model):
    """An image that question text shows (an exhibit: a diagram, a screenshot), stored once
    per content through Django's storage API under `q/<sha256>.<ext>` and referred to from
    Markdown by its URL, `/media/q/<sha256>.<ext>` (questions.media.images)."""

    sha256 = models.CharField(max_length=64, unique=True, editable=False)
    file = models.FileField(upload_to="q/", max_length=100, editable=False)
    original_name = models.CharField(max_length=255, blank=True)
    content_type = models.CharField(max_length=40, editable=False)
    size = models.PositiveIntegerField(editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "question image"
        ordering = ["-created_at"]
        indexes = [
            # The removal of unused images: those stored before a moment.
            models.Index(fields=["created_at"], name="question_media_created_at"),
        ]

    def __str__(self) -> str:
        return self.original_name or self.file_name

    @property
    def storage_name(self) -> str:
        """`q/<sha256>.<ext>`: its name in the storage."""
        return self.file.name or ""

    @property
    def file_name(self) -> str:
        """`<sha256>.<ext>`: the last part of its URL and of its storage name."""
        return self.storage_name.rpartition("/")[2]

    @property
    def url(self) -> str:
        return f"{MEDIA_URL_PREFIX}{self.file_name}"

    @property
    def markdown(self) -> str:
        """What a curator pastes into question text to show it."""
        alt = re.sub(r"[\[\]\\]", "", self.original_name.rpartition(".")[0]) or "image"
        return f"![{alt}]({self.url})"


# Question text refers to an image by this prefix and the image's `<sha256>.<ext>`.
MEDIA_URL_PREFIX = "/media/q/"
