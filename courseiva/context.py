from django.conf import settings
from django.http import HttpRequest


def site(request: HttpRequest) -> dict[str, str]:
    """`site_url`: the public origin from the settings (empty: links stay relative). Never
    the request's Host header, which a client chooses and pages cached for everyone keep."""
    return {"site_url": settings.SITE_URL}
