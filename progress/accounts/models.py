"""The user of every role: a learner, an instructor (the Instructors group) or an admin."""

from django.contrib.auth.models import AbstractUser, Group, Permission
from django.contrib.sessions.base_session import AbstractBaseSession
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower

# The group that carries the instructor role (created with its permission by a migration).
INSTRUCTORS_GROUP = "Instructors"


def instructors_group() -> Group:
    """The Instructors group with its permission. A migration makes it; this makes it again
    where its rows were wiped (a flushed test database, a restored dump without it)."""
    group, _ = Group.objects.get_or_create(name=INSTRUCTORS_GROUP)
    group.permissions.add(
        Permission.objects.get(content_type__app_label="progress", codename="instruct")
    )
    return group


class User(AbstractUser):
    """A learner; instructors and admins too. Roles are groups and permissions: the
    Instructors group carries `progress.instruct`, which only an admin can grant."""

    # An instructor's choice (on their cohorts page): the worker mails them each week.
    weekly_digest = models.BooleanField(
        default=True,
        help_text="E-mail a weekly digest of the user's cohorts (instructors only).",
    )

    class Meta(AbstractUser.Meta):
        swappable = "AUTH_USER_MODEL"
        permissions = [("instruct", "Can follow cohorts of learners as an instructor")]
        constraints = [
            # Sign-in by e-mail needs e-mails to be unique, whatever their case.
            models.UniqueConstraint(
                Lower("email"), condition=~Q(email=""), name="user_email_unique_ci"
            ),
        ]

    @property
    def is_instructor(self) -> bool:
        return self.has_perm("progress.instruct")


class Session(AbstractBaseSession):
    """A browser's session (Django's database session) with its signed-in user's id in a
    column: the session and its user are read by one query on every request
    (progress.accounts.sessions), and deleting a user ends their sessions."""

    # A copy of the id in the session's data, which stays the authority. No database
    # constraint: a session saved just as its user is deleted must not fail (Django retries
    # a failed insert of a new session for ever); the join then finds no user.
    user = models.ForeignKey(
        User,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        db_constraint=False,
        related_name="+",
    )


class LimitCount(models.Model):
    """One counter of a limit on sign-ups or password resets (progress.accounts.limits) in
    one window: the sign-ups from an address this hour, say. In the database, so that every
    process counts in the same row (without Redis; see progress.accounts.limit_store). The
    key names the limit, the counted value and the window: a new window is a new row, and
    the rows of ended windows are pruned (progress.accounts.tasks)."""

    key = models.CharField(max_length=250, primary_key=True)
    count = models.BigIntegerField()
    expires_at = models.DateTimeField()

    class Meta:
        indexes = [
            # The pruning's DELETE of the counters whose window has ended.
            models.Index(fields=["expires_at"], name="limitcount_expires_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.key}: {self.count} until {self.expires_at:%Y-%m-%d %H:%M}"
