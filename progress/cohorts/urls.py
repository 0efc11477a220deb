from django.urls import path

from progress.cohorts import views

urlpatterns = [
    path("", views.instructor_home, name="instructor_home"),
    path("cohorts/new/", views.cohort_create, name="cohort_create"),
    path("digest/", views.digest_settings, name="digest_settings"),
    path("exams/<slug:exam_slug>/items/", views.item_analysis, name="item_analysis"),
    path("cohorts/<str:code>/", views.cohort_detail, name="cohort_detail"),
    path("cohorts/<str:code>/topics/", views.cohort_topics, name="cohort_topics"),
    path("cohorts/<str:code>/export.csv", views.cohort_export, name="cohort_export"),
    path("cohorts/<str:code>/regenerate/", views.cohort_regenerate, name="cohort_regenerate"),
    path(
        "cohorts/<str:code>/instructors/",
        views.cohort_add_instructor,
        name="cohort_add_instructor",
    ),
    path("cohorts/<str:code>/time/", views.cohort_allowance, name="cohort_allowance"),
    path(
        "cohorts/<str:code>/learners/<str:username>/time/",
        views.cohort_allowance,
        name="learner_allowance",
    ),
    path(
        "cohorts/<str:code>/learners/<str:username>/",
        views.cohort_learner,
        name="cohort_learner",
    ),
    path(
        "cohorts/<str:code>/learners/<str:username>/remove/",
        views.cohort_remove_learner,
        name="cohort_remove_learner",
    ),
    path(
        "cohorts/<str:code>/learners/<str:username>/mocks/<str:mock_code>/",
        views.cohort_learner_mock,
        name="cohort_learner_mock",
    ),
]

# The learner's side of cohorts, under /progress/cohorts/ (see progress.urls).
membership_urlpatterns = [
    path("", views.my_cohorts, name="my_cohorts"),
    path("join/<str:join_code>/", views.cohort_join, name="cohort_join"),
    path("<str:code>/leave/", views.cohort_leave, name="cohort_leave"),
]
