from django.apps import AppConfig


class ProgressConfig(AppConfig):
    name = "progress"
    verbose_name = "Learner progress"

    def ready(self) -> None:
        from progress.practice.public_pages import LearnerQuestionPage
        from questions import extensions

        extensions.register(LearnerQuestionPage())
