"""The bank's vocabularies: the item types, their scoring, a question's status and
difficulty. Plain choices, imported by the exam's side (questions.exams) and the question's
(questions.models) alike."""

from django.db import models


class Kind(models.TextChoices):
    SINGLE = "single", "Single answer"
    MULTIPLE = "multiple", "Select all that apply"
    ORDERING = "ordering", "Ordering (build list)"
    MATCHING = "matching", "Matching"
    YES_NO = "yesno", "Yes/no series"
    FILL_IN = "fillin", "Fill-in (text or number)"
    DROPDOWN = "dropdown", "Drop-downs in an exhibit"


class Scoring(models.TextChoices):
    ALL = "all", "All or nothing"
    PARTIAL = "partial", "Partial credit per part"


class Status(models.TextChoices):
    DRAFT = "draft", "Draft"
    REVIEW = "review", "In review"
    PUBLISHED = "published", "Published"


class Difficulty(models.TextChoices):
    EASY = "easy", "Easy"
    MEDIUM = "medium", "Medium"
    HARD = "hard", "Hard"
