from django.apps import AppConfig


class ProgressConfig(AppConfig):
    name = "progress"
    verbose_name = "Learner progress"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from progress.accounts.roles import learn_role
        from progress.cohorts.tasks import refresh_cohort_exams, refresh_exam_figures
        from progress.practice import pending
        from progress.practice.public_pages import LearnerQuestionPage
        from questions.pages import extensions

        extensions.register(LearnerQuestionPage())
        # Answers' batches enqueue the refresh of their exam's cohort figures, and a refit
        # refreshes them all: the cohorts room's work, which practice cannot import.
        pending.on_exam_answers(refresh_exam_figures)
        pending.on_refit(refresh_cohort_exams)
        user_logged_in.connect(learn_role, dispatch_uid="progress.learn_role")
