"""HTML rendered once for many requests, kept, and filled in per request.

A page that is the same for every visitor but for its CSRF token and CSP nonce (a question's
form or result, a listing page) costs several times more to render than the rest of its
request. It is rendered once with slots where those go (`render_shared`), kept under a key
that holds the content's version (`keep`: in the cache, shared by the processes, and in
this process's latest renderings), and each request fills in its own token and nonce
(`filled`). A page may also keep a slot of its own (`fill_slot`): the quiz's way on under a
result shared by every learner who chose the same options.

A slot is text no author can write into a page: markup from authors is sanitised, which
drops comments and leaves the placeholders below as plain words no template prints."""

import threading
from collections import OrderedDict

from django.contrib.auth.models import AnonymousUser
from django.core.cache import cache
from django.http import HttpRequest
from django.middleware.csp import get_nonce
from django.middleware.csrf import get_token
from django.template.loader import render_to_string

# Stands in for the CSRF token in HTML rendered once for many visitors.
TOKEN_SLOT = "csrf-token-slot-not-a-token"  # noqa: S105 - a placeholder, not a secret
# And for the CSP nonce: a nonce served twice would let the second page's scripts be refused.
NONCE_SLOT = "csp-nonce-slot-not-a-nonce"


def render_shared(request: HttpRequest, template: str, context: dict[str, object]) -> str:
    """The template rendered as every visitor sees it: no user, no messages, slots for the
    token and the nonce. The context must hold nothing of one viewer's."""
    shared = {
        **context,
        "csrf_token": TOKEN_SLOT,
        "csp_nonce": NONCE_SLOT,
        "user": AnonymousUser(),
        "messages": (),
    }
    return render_to_string(template, shared, request=request)


def kept(key: str) -> str | None:
    """HTML kept under a versioned key: from this process's latest renderings (RecentHtml),
    else from the cache, and then kept here too. The key's version is new at every change,
    so a copy kept here is never stale; with Redis it saves a round trip."""
    html = _recent_html.get(key)
    if html is None:
        html = cache.get(key)
        if isinstance(html, str):
            _recent_html.put(key, html)
    return html if isinstance(html, str) else None


def keep(key: str, html: str, seconds: int) -> None:
    """Keep HTML under a versioned key, in the cache for `seconds` and in this process."""
    cache.set(key, html, seconds)
    _recent_html.put(key, html)


def filled(request: HttpRequest, html: str) -> str:
    """The shared HTML with this request's CSRF token and CSP nonce filled in."""
    if TOKEN_SLOT in html:
        html = html.replace(TOKEN_SLOT, get_token(request))
    nonce = get_nonce(request)
    if NONCE_SLOT in html and nonce is not None:
        html = html.replace(NONCE_SLOT, str(nonce))
    return html


def fill_slot(html: str, slot: str, content: str) -> str:
    """The shared HTML with its own `slot` (once) replaced by this request's `content`."""
    return html.replace(slot, content, 1)


class RecentHtml:
    """The HTML last rendered or read in this process, by key, the oldest dropped past
    `size`. The keys hold a version (the page snapshot's, new at every build; the listings'),
    so an entry never goes stale. Kept here, a visitor's answer skips the shared cache's
    round trip and unpickling (Redis in production): 1.7-1.9 ms in process instead of
    2.3-2.6."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()  # gunicorn's threaded workers share a process

    def get(self, key: str) -> str | None:
        with self._lock:
            html = self._entries.get(key)
            if html is not None:
                self._entries.move_to_end(key)
            return html

    def put(self, key: str, html: str) -> None:
        with self._lock:
            self._entries[key] = html
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)


# Results about 20 kB each, listing pages 4 to 12 kB: a few megabytes a process at most.
_recent_html = RecentHtml(256)
