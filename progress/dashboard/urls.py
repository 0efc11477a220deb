from django.urls import path

from progress.dashboard import views

urlpatterns = [
    path("", views.progress_home, name="progress_home"),
]
