"""Site-wide request and response rules that belong to no app."""

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.utils.cache import patch_cache_control


class RejectNulBytes:
    """A NUL byte in the path, the query or a posted form value is a 400: PostgreSQL refuses
    it in text, which made such a request a 500 wherever it reached a query."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if "\x00" in request.path or _has_nul(request.GET):
            return _refused()
        return self.get_response(request)

    def process_view(self, request: HttpRequest, *args: object) -> HttpResponse | None:
        # The posted form is looked at after the CSRF check has read it (this middleware
        # comes after it), so that a body too large to read fails where it always has.
        if request.method == "POST" and _has_nul(request.POST):
            return _refused()
        return None


def _refused() -> HttpResponse:
    return HttpResponseBadRequest(
        "A NUL character is not allowed in an address or a form.", content_type="text/plain"
    )


def _has_nul(values: object) -> bool:
    lists = getattr(values, "lists", None)
    if lists is None:
        return False
    return any("\x00" in key or any("\x00" in v for v in vs) for key, vs in lists())


class PrivatePages:
    """A page served to a signed-in user holds their data: no shared cache (a proxy, a CDN)
    may keep it, and the browser not beyond the visit (`private, no-store`), unless the view
    set its own policy."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and not response.has_header("Cache-Control"):
            patch_cache_control(response, private=True, no_store=True)
        return response
