from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    """A request that went through django-htmx's middleware (for type checking)."""

    htmx: HtmxDetails


def invalid_form_status(request: HttpRequest) -> int:
    """The status of a form sent back with its errors: 400 to a plain post, 422 to htmx.
    htmx swaps a 422 in place like any answer (see base.html's htmx-config), while with DEBUG
    on, django-htmx's error helper replaces the whole document with a 400's fragment."""
    return 422 if getattr(request, "htmx", False) else 400
