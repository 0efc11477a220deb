"""The learner's marks on a question: bookmarks, private notes, and problem reports for the
curators."""

from django.db import models
from django.utils import timezone

from progress.accounts.models import User
from questions.models import Question


class BookmarkQuerySet(models.QuerySet["Bookmark"]):
    def set(self, learner: User, question: Question, on: bool) -> None:
        """Bookmark the question or not. Idempotent: a double click or two tabs leave one
        bookmark (the unique constraint settles a race inside get_or_create)."""
        if on:
            self.get_or_create(learner=learner, question=question)
        else:
            self.filter(learner=learner, question=question).delete()


class Bookmark(models.Model):
    learner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="bookmarks")
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    objects = BookmarkQuerySet.as_manager()

    class Meta:
        constraints = [
            # Its index also serves "this learner's bookmarks".
            models.UniqueConstraint(fields=["learner", "question"], name="bookmark_once"),
        ]

    def __str__(self) -> str:
        return f"{self.learner} ★ {self.question_id}"


class NoteQuerySet(models.QuerySet["Note"]):
    def write(self, learner: User, question: Question, text: str) -> "Note | None":
        """Save the learner's note on the question; empty text deletes it. Returns the note,
        or None when there is none now."""
        if not text:
            self.filter(learner=learner, question=question).delete()
            return None
        note, _ = self.update_or_create(
            learner=learner,
            question=question,
            defaults={"text": text, "updated_at": timezone.now()},
        )
        return note


class Note(models.Model):
    learner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="notes")
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+")
    text = models.TextField(max_length=5000)
    updated_at = models.DateTimeField(default=timezone.now)

    objects = NoteQuerySet.as_manager()

    class Meta:
        constraints = [
            # Its index also serves "this learner's notes on these questions".
            models.UniqueConstraint(fields=["learner", "question"], name="note_once"),
        ]

    def __str__(self) -> str:
        return f"{self.learner} on {self.question_id}: {self.text[:40]}"


class ReportKind(models.TextChoices):
    WRONG_KEY = "wrong-key", "The marked answer is wrong"
    UNCLEAR = "unclear", "The wording is unclear"
    OUTDATED = "outdated", "It is outdated"
    TYPO = "typo", "Typo or formatting"
    OTHER = "other", "Something else"


class ReportStatus(models.TextChoices):
    OPEN = "open", "Open"
    RESOLVED = "resolved", "Resolved"


class ProblemReport(models.Model):
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="problem_reports")
    reporter = models.ForeignKey(
        User, on_delete=models.SET_NULL, null=True, related_name="problem_reports"
    )
    kind = models.CharField(max_length=12, choices=ReportKind.choices)
    details = models.TextField(max_length=5000, blank=True)
    status = models.CharField(
        max_length=10, choices=ReportStatus.choices, default=ReportStatus.OPEN
    )
    created_at = models.DateTimeField(default=timezone.now)
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            # The admin's triage list (open first) and the open-report count per question.
            models.Index(fields=["status", "question"], name="report_status_question"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} on {self.question_id} ({self.status})"
