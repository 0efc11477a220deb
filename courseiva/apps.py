from django.apps import AppConfig


class CourseivaConfig(AppConfig):
    """The project package as an app only so that its deploy checks are registered."""

    name = "courseiva"
    verbose_name = "Courseiva"

    def ready(self) -> None:
        from courseiva import checks  # noqa: F401 - registers them
