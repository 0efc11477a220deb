from django.contrib import admin
from django.http import HttpRequest

from progress.readiness.models import ReadinessFit


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
