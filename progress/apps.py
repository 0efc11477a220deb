from django.apps import AppConfig


class ProgressConfig(AppConfig):
    name = "progress"
    verbose_name = "Learner progress"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from progress.accounts.roles import learn_role
        from progress.cohorts.tasks import refresh_exam_figures, update_question_difficulties
        from progress.practice import pending
        from progress.practice.public_pages import LearnerQuestionPage
        from questions import extensions

        extensions.register(LearnerQuestionPage())
        # Answers enqueue the refresh of their exam's cohort figures, a task of the cohorts
        # room, which practice cannot import.
        pending.on_exam_answers(refresh_exam_figures)
        pending.on_question_batch(update_question_difficulties)
        user_logged_in.connect(learn_role, dispatch_uid="progress.learn_role")
