from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from progress.accounts.models import User


@admin.register(User)
class LearnerAdmin(UserAdmin):
    """Django's user admin: granting the instructor role is adding the Instructors group,
    which needs the change-user permission (admins only)."""

    list_filter = ["is_staff", "is_superuser", "is_active", "groups"]
