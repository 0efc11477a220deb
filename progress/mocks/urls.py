from django.urls import path

from progress.mocks import views

urlpatterns = [
    path("mock/<slug:exam_slug>/", views.mock_start, name="mock_start"),
    path("mocks/offline-worker.js", views.mock_offline_worker, name="mock_offline_worker"),
    path("mocks/<str:code>/", views.mock_resume, name="mock_resume"),
    path("mocks/<str:code>/submit/", views.mock_submit, name="mock_submit"),
    path("mocks/<str:code>/report/", views.mock_report, name="mock_report"),
    path("mocks/<str:code>/review/", views.mock_review, name="mock_review"),
    path("mocks/<str:code>/practise-missed/", views.mock_practise_missed, name="mock_practise"),
    path(
        "mocks/<str:code>/sections/<int:number>/finish/",
        views.mock_finish_section,
        name="mock_finish_section",
    ),
    path("mocks/<str:code>/<int:number>/", views.mock_item, name="mock_item"),
    path("mocks/<str:code>/<int:number>/move-on/", views.mock_move_on, name="mock_move_on"),
]
