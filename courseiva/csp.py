"""Where browsers send Content-Security-Policy violation reports (the policy's report-uri,
see CONTENT_SECURITY_POLICY in settings): each is logged as a warning, nothing is stored.

Anyone can post here, so what is read and written is bounded: a body of at most
MAX_REPORT_BYTES, a few reports a body, a few short fields a report, and REPORTS_PER_ADDRESS
bodies a minute from one address."""

import json
import logging

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST
from django_ratelimit.core import is_ratelimited

from courseiva.lib.client import client_address

logger = logging.getLogger(__name__)

MAX_REPORT_BYTES = 16 * 1024
MAX_REPORTS_A_BODY = 10
REPORTS_PER_ADDRESS = "60/m"
FIELD_CHARS = 200
# The fields worth a line in the log, by their name in the two formats browsers send:
# report-uri's {"csp-report": {...}} and the Reporting API's [{"type": "csp-violation",
# "body": {...}}].
FIELDS = {
    "page": ("document-uri", "documentURL"),
    "directive": ("effective-directive", "effectiveDirective", "violated-directive"),
    "blocked": ("blocked-uri", "blockedURL"),
    "source": ("source-file", "sourceFile"),
    "line": ("line-number", "lineNumber"),
    "disposition": ("disposition",),
    "sample": ("script-sample", "sample"),
}


class NotAReport(ValueError):
    pass


@csrf_exempt
@require_POST
def csp_report(request: HttpRequest) -> HttpResponse:
    """204 for a report (logged), 400 for anything else, 429 past the rate."""
    if is_ratelimited(
        request,
        group="csp-report",
        key=lambda group, request: client_address(request) or "",
        rate=REPORTS_PER_ADDRESS,
        method="POST",
        increment=True,
    ):
        return HttpResponse("Too many reports.", content_type="text/plain", status=429)
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = -1
    if not 0 < length <= MAX_REPORT_BYTES:
        return _refused(f"A report is a JSON body of at most {MAX_REPORT_BYTES} bytes.")
    try:
        reports = violations(json.loads(request.read(MAX_REPORT_BYTES)))
    except (ValueError, NotAReport):
        return _refused("Not a Content-Security-Policy report.")
    for report in reports:
        # A dict is logged as its repr: a posted newline cannot start a forged log line.
        logger.warning("Content-Security-Policy violation: %s", report)
    return HttpResponse(status=204)


def violations(document: object) -> list[dict[str, str]]:
    """The violations a report body names, each cut to FIELDS; NotAReport if it names none."""
    if isinstance(document, dict) and isinstance(document.get("csp-report"), dict):
        bodies = [document["csp-report"]]
    elif isinstance(document, list) and document:
        bodies = [
            entry.get("body")
            for entry in document[:MAX_REPORTS_A_BODY]
            if isinstance(entry, dict) and entry.get("type") == "csp-violation"
        ]
    else:
        raise NotAReport
    if not bodies or not all(isinstance(body, dict) for body in bodies):
        raise NotAReport
    reports = [_fields(body) for body in bodies if isinstance(body, dict)]
    if not all(report.get("directive") for report in reports):
        raise NotAReport
    return reports


def _fields(body: dict[str, object]) -> dict[str, str]:
    found = {}
    for field, names in FIELDS.items():
        value = next((body[name] for name in names if body.get(name) not in (None, "")), None)
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            found[field] = str(value)[:FIELD_CHARS]
    return found


def _refused(reason: str) -> HttpResponse:
    return HttpResponseBadRequest(reason, content_type="text/plain")
