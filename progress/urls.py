from django.urls import include, path

from progress import views

urlpatterns = [
    path("", views.progress_home, name="progress_home"),
    path("", include("progress.notes_urls")),
]
