from django.urls import path

from questions.media import views as media_views
from questions.pages import views

urlpatterns = [
    path("", views.home, name="home"),
    path("exams/<slug:exam_slug>/", views.exam_detail, name="exam_detail"),
    path("exams/<slug:exam_slug>/<slug:topic_slug>/", views.topic_detail, name="topic_detail"),
    path("questions/<slug:uid>/", views.question_detail, name="question_detail"),
    path("media/q/<str:name>", media_views.media_file, name="question_media"),
]
