from django.contrib import admin
from django.urls import include, path

from courseiva import health

admin.site.site_header = "Courseiva curation"
admin.site.site_title = "Courseiva admin"
admin.site.index_title = "Question bank and learners"

urlpatterns = [
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    path("admin/", admin.site.urls),
    path("accounts/", include("progress.accounts.urls")),
    path("progress/", include("progress.urls")),
    path("instructor/", include("progress.cohorts.urls")),
    path("", include("questions.urls")),
]

handler400 = "questions.views.bad_request"
