from django.urls import path

from progress.readiness import views

urlpatterns = [
    path("goal/", views.study_goal, name="study_goal"),
]
