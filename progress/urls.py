from django.urls import include, path

from progress import views
from progress.cohorts.urls import membership_urlpatterns

urlpatterns = [
    path("", views.progress_home, name="progress_home"),
    path("history/", views.history, name="history"),
    path("quizzes/start/", views.quiz_start, name="quiz_start"),
    path("quizzes/<str:code>/", views.quiz_resume, name="quiz_resume"),
    path("quizzes/<str:code>/summary/", views.quiz_summary, name="quiz_summary"),
    path("quizzes/<str:code>/retry/", views.quiz_retry, name="quiz_retry"),
    path("quizzes/<str:code>/<int:number>/", views.quiz_item, name="quiz_item"),
    path("", include("progress.mocks.urls")),
    path("cohorts/", include(membership_urlpatterns)),
    path("", include("progress.notes_urls")),
]
