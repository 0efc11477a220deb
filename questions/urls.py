from django.urls import path

from questions import views

urlpatterns = [
    path("", views.home, name="home"),
    path("questions/<slug:uid>/", views.question_detail, name="question_detail"),
]
