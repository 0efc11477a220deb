"""The address a request comes from, behind the trusted proxies (TRUSTED_PROXIES)."""

from django.conf import settings
from django.http import HttpRequest


def client_address(request: HttpRequest) -> str | None:
    """The address a request comes from, for every count kept per address (django-axes'
    failed sign-ins through AXES_CLIENT_IP_CALLABLE, the sign-up and reset limits, the CSP
    reports). Behind the TLS proxy every request comes from the proxy's address, and
    counting there would lock everyone out together; so when the socket's address is one of
    TRUSTED_PROXIES, the client is the right-most address of X-Forwarded-For that is not a
    trusted proxy (each proxy appends the address it got the request from; what a client
    wrote further left is not trusted). From anywhere else, the socket's address, whatever
    the headers say."""
    remote = request.META.get("REMOTE_ADDR")
    trusted = set(settings.TRUSTED_PROXIES)
    if remote not in trusted:
        return remote
    forwarded = [part.strip() for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    for address in reversed(forwarded):
        if address and address not in trusted:
            return address
    return remote
