from django.urls import path

from progress import instructor

urlpatterns = [
    path("", instructor.instructor_home, name="instructor_home"),
    path("cohorts/new/", instructor.cohort_create, name="cohort_create"),
    path("exams/<slug:exam_slug>/items/", instructor.item_analysis, name="item_analysis"),
    path("cohorts/<str:code>/", instructor.cohort_detail, name="cohort_detail"),
    path("cohorts/<str:code>/topics/", instructor.cohort_topics, name="cohort_topics"),
    path("cohorts/<str:code>/export.csv", instructor.cohort_export, name="cohort_export"),
    path("cohorts/<str:code>/regenerate/", instructor.cohort_regenerate, name="cohort_regenerate"),
    path(
        "cohorts/<str:code>/instructors/",
        instructor.cohort_add_instructor,
        name="cohort_add_instructor",
    ),
    path(
        "cohorts/<str:code>/learners/<str:username>/",
        instructor.cohort_learner,
        name="cohort_learner",
    ),
    path(
        "cohorts/<str:code>/learners/<str:username>/remove/",
        instructor.cohort_remove_learner,
        name="cohort_remove_learner",
    ),
    path(
        "cohorts/<str:code>/learners/<str:username>/mocks/<str:mock_code>/",
        instructor.cohort_learner_mock,
        name="cohort_learner_mock",
    ),
]
