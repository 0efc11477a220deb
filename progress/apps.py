from django.apps import AppConfig


class ProgressConfig(AppConfig):
    name = "progress"
    verbose_name = "Learner progress"

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from progress.accounts.roles import learn_role
        from progress.cohorts.models import TimeAllowance
        from progress.cohorts.tasks import enqueue_exam_refresh, refresh_cohort_exams
        from progress.mocks import allowances
        from progress.mocks.sittings import latest_sittings
        from progress.practice import builder, pending
        from progress.practice.public_pages import LearnerQuestionPage
        from questions.pages import extensions

        extensions.register(LearnerQuestionPage())
        # Answers' batches enqueue the refresh of their exam's figures (when it is due), and a
        # refit refreshes them all: the cohorts room's work, which practice cannot import.
        pending.on_exam_answers(enqueue_exam_refresh)
        pending.on_refit(refresh_cohort_exams)
        # Extra time in mock exams is granted on cohorts, which the mocks room cannot read.
        allowances.on_lookup(TimeAllowance.objects.allowance_of)
        # The practice builder's "missed / not seen in my last N sittings" counts mock exams.
        builder.on_mock_sittings(latest_sittings)
        user_logged_in.connect(learn_role, dispatch_uid="progress.learn_role")
