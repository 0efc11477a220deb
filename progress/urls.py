"""The learner's pages under /progress/, one line per room (accounts are under /accounts/ and
the instructor's pages under /instructor/: see courseiva/urls.py)."""

from django.urls import include, path

from progress.cohorts.urls import membership_urlpatterns

urlpatterns = [
    path("", include("progress.dashboard.urls")),
    path("", include("progress.practice.urls")),
    path("", include("progress.readiness.urls")),
    path("", include("progress.mocks.urls")),
    path("cohorts/", include(membership_urlpatterns)),
]
