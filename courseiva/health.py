"""Probes for load balancers and orchestrators."""

from django.db import DatabaseError
from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from courseiva.lib.sql import ping


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
        ping()
    except DatabaseError:
        return HttpResponse("database unavailable", content_type="text/plain", status=503)
    return HttpResponse("ok", content_type="text/plain")
