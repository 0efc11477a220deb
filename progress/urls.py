from django.urls import include, path

from progress import instructor, mocks, views

urlpatterns = [
    path("", views.progress_home, name="progress_home"),
    path("history/", views.history, name="history"),
    path("quizzes/start/", views.quiz_start, name="quiz_start"),
    path("quizzes/<str:code>/", views.quiz_resume, name="quiz_resume"),
    path("quizzes/<str:code>/summary/", views.quiz_summary, name="quiz_summary"),
    path("quizzes/<str:code>/retry/", views.quiz_retry, name="quiz_retry"),
    path("quizzes/<str:code>/<int:number>/", views.quiz_item, name="quiz_item"),
    path("mock/<slug:exam_slug>/", mocks.mock_start, name="mock_start"),
    path("mocks/<str:code>/", mocks.mock_resume, name="mock_resume"),
    path("mocks/<str:code>/submit/", mocks.mock_submit, name="mock_submit"),
    path("mocks/<str:code>/report/", mocks.mock_report, name="mock_report"),
    path("mocks/<str:code>/review/", mocks.mock_review, name="mock_review"),
    path("mocks/<str:code>/practise-missed/", mocks.mock_practise_missed, name="mock_practise"),
    path("mocks/<str:code>/<int:number>/", mocks.mock_item, name="mock_item"),
    path("cohorts/", instructor.my_cohorts, name="my_cohorts"),
    path("cohorts/join/<str:join_code>/", instructor.cohort_join, name="cohort_join"),
    path("cohorts/<str:code>/leave/", instructor.cohort_leave, name="cohort_leave"),
    path("", include("progress.notes_urls")),
]
