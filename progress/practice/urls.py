from django.urls import path

from progress.practice import builder_views, review_views, views

urlpatterns = [
    path("history/", views.history, name="history"),
    path("quizzes/start/", builder_views.quiz_start, name="quiz_start"),
    path("plan/<slug:exam_slug>/today/", views.today_practice, name="today_practice"),
    path("quizzes/<str:code>/", views.quiz_resume, name="quiz_resume"),
    path("quizzes/<str:code>/summary/", views.quiz_summary, name="quiz_summary"),
    path("quizzes/<str:code>/retry/", views.quiz_retry, name="quiz_retry"),
    path("quizzes/<str:code>/stop/", views.quiz_abandon, name="quiz_abandon"),
    path("quizzes/<str:code>/pause/", views.quiz_pause, name="quiz_pause"),
    path("quizzes/<str:code>/finish/", views.quiz_finish, name="quiz_finish"),
    path("quizzes/<str:code>/review/", review_views.quiz_review, name="quiz_review"),
    path("quizzes/<str:code>/<int:number>/", views.quiz_item, name="quiz_item"),
    path("bookmarks/", views.bookmarks, name="bookmarks"),
    path("questions/<slug:uid>/bookmark/", views.toggle_bookmark, name="bookmark_toggle"),
    path("questions/<slug:uid>/note/", views.save_note, name="note_save"),
    path("questions/<slug:uid>/report/", views.report_problem, name="report_problem"),
]
