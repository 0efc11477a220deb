"""Probes for load balancers and orchestrators."""

from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET


@require_GET
@never_cache
def healthz(request: HttpRequest) -> HttpResponse:
    """The process answers. Touches no database: a database outage must not make a load
    balancer take every web process out at once."""
    return HttpResponse("ok", content_type="text/plain")


@require_GET
@never_cache
def readyz(request: HttpRequest) -> HttpResponse:
    """Ready to serve pages: the database answers."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError:
        return HttpResponse("database unavailable", content_type="text/plain", status=503)
    return HttpResponse("ok", content_type="text/plain")
