"""The site's own deploy checks (`manage.py check --deploy`, which `make serve` runs before it
starts gunicorn): settings that work, and so pass unnoticed, but trust anyone where only the
site's own host or its proxy should be trusted. Warnings, not errors: a trial behind a proxy
that checks the host itself may mean them."""

import os
from collections.abc import Sequence
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core import checks


@checks.register(checks.Tags.security, deploy=True)
def wildcards(app_configs: Sequence[AppConfig] | None, **kwargs: Any) -> list[checks.CheckMessage]:
    if settings.DEBUG:
        return []  # a developer's machine: any host will do
    found: list[checks.CheckMessage] = []
    if "*" in settings.ALLOWED_HOSTS:
        found.append(
            checks.Warning(
                "ALLOWED_HOSTS=* accepts any Host header: without SITE_URL the sign-up and "
                "password-reset mails link to whatever host a request named.",
                hint="Set ALLOWED_HOSTS to the host names the site is served on, e.g. "
                "ALLOWED_HOSTS=courseiva.example.",
                id="courseiva.W001",
            )
        )
    # gunicorn's own setting, read from the same environment when `make serve` starts it.
    if "*" in _items(os.environ.get("FORWARDED_ALLOW_IPS", "")):
        found.append(
            checks.Warning(
                "FORWARDED_ALLOW_IPS=* makes gunicorn trust X-Forwarded-Proto from any "
                "client: anyone can claim a plain-HTTP request came over HTTPS.",
                hint="Set FORWARDED_ALLOW_IPS to the TLS proxy's address (README, "
                '"Behind a TLS proxy").',
                id="courseiva.W002",
            )
        )
    if "*" in settings.TRUSTED_PROXIES:
        found.append(
            checks.Warning(
                "TRUSTED_PROXIES=* is no wildcard: it names no address, so behind a proxy "
                "sign-in lockouts count every client as the proxy and lock them out together.",
                hint="Set TRUSTED_PROXIES to the TLS proxy's address.",
                id="courseiva.W003",
            )
        )
    return found


def _items(value: str) -> list[str]:
    return [item.strip() for item in value.split(",")]
