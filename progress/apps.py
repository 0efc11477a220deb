from django.apps import AppConfig


class ProgressConfig(AppConfig):
    name = "progress"
    verbose_name = "Learner progress"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from progress.accounts.roles import learn_role
        from progress.practice.public_pages import LearnerQuestionPage
        from questions import extensions

        extensions.register(LearnerQuestionPage())
        user_logged_in.connect(learn_role, dispatch_uid="progress.learn_role")
