from django.contrib import admin
from django.urls import include, path

admin.site.site_header = "Courseiva curation"
admin.site.site_title = "Courseiva admin"
admin.site.index_title = "Question bank and learners"

urlpatterns = [
    path("admin/", admin.site.urls),
    path("", include("questions.urls")),
]
