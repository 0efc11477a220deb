from django.contrib import admin
from django.contrib.sitemaps import views as sitemap_views
from django.urls import include, path

from courseiva import csp, health, seo
from questions.pages.sitemaps import SITEMAPS

admin.site.site_header = "Courseiva curation"
admin.site.site_title = "Courseiva admin"
admin.site.index_title = "Question bank and learners"

urlpatterns = [
    path("healthz", health.healthz, name="healthz"),
    path("readyz", health.readyz, name="readyz"),
    # The policy's report-uri (settings.CONTENT_SECURITY_POLICY) names this path.
    path("csp-report", csp.csp_report, name="csp_report"),
    path("robots.txt", seo.robots_txt, name="robots_txt"),
    path("sitemap.xml", sitemap_views.index, {"sitemaps": SITEMAPS}, name="sitemap"),
    path(
        "sitemap-<section>.xml",
        sitemap_views.sitemap,
        {"sitemaps": SITEMAPS},
        name="django.contrib.sitemaps.views.sitemap",
    ),
    path("admin/", admin.site.urls),
    path("accounts/", include("progress.accounts.urls")),
    path("progress/", include("progress.urls")),
    path("instructor/", include("progress.cohorts.urls")),
    path("", include("questions.urls")),
]

handler400 = "questions.pages.views.bad_request"
