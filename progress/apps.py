from django.apps import AppConfig


class ProgressConfig(AppConfig):
    name = "progress"
    verbose_name = "Learner progress"
