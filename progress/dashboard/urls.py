from django.urls import path

from progress.dashboard import views

urlpatterns = [
    path("", views.progress_home, name="progress_home"),
    path("plan/<slug:exam_slug>/", views.study_plan, name="study_plan"),
]
