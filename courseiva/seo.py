"""robots.txt: the public pages are for search engines; the accounts, the learners' and the
instructors' pages and the admin are not."""

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_GET

PRIVATE_PREFIXES = ["/admin/", "/accounts/", "/progress/", "/instructor/"]


@require_GET
@cache_control(max_age=86400, public=True)
def robots_txt(request: HttpRequest) -> HttpResponse:
    lines = ["User-agent: *", *(f"Disallow: {prefix}" for prefix in PRIVATE_PREFIXES)]
    sitemap = reverse("sitemap")
    origin = settings.SITE_URL or f"{request.scheme}://{request.get_host()}"
    lines.append(f"Sitemap: {origin}{sitemap}")
    return HttpResponse("\n".join(lines) + "\n", content_type="text/plain; charset=utf-8")
