"""Uploads kept between an import's preview and its confirmation.

The file's bytes stay on the server, in a temporary directory, for KEEP_SECONDS; the page
carries a signed token naming them, the curator and what they chose (format, exam, topic).
Confirming reads the bytes again and runs the whole pipeline on them: nothing parsed is ever
taken back from the browser. A file on disk rather than the cache: the default cache is per
process, and the confirmation may reach another worker.
"""

import re
import secrets
import tempfile
import time
from pathlib import Path
from typing import Any

from django.core import signing

KEEP_SECONDS = 30 * 60
_SALT = "questions.bank.upload_store"
_KEY = re.compile(r"^[A-Za-z0-9_-]{32}$")


class UploadExpired(Exception):
    """The token is not ours, not this curator's, or its file is gone."""


def _directory() -> Path:
    directory = Path(tempfile.gettempdir()) / "courseiva-import-uploads"
    directory.mkdir(mode=0o700, exist_ok=True)
    return directory


def keep(raw: bytes, user_id: int | None, choices: dict[str, Any]) -> str:
    """Store the bytes; return the signed token that gives them back to this user."""
    directory = _directory()
    _prune(directory)
    key = secrets.token_urlsafe(24)
    (directory / key).write_bytes(raw)
    return signing.dumps({"key": key, "user": user_id, **choices}, salt=_SALT)


def take(token: str, user_id: int | None) -> tuple[bytes, dict[str, Any]]:
    """The bytes and the choices of a token, which must be this user's and fresh."""
    try:
        data = signing.loads(token, salt=_SALT, max_age=KEEP_SECONDS)
    except signing.BadSignature:
        raise UploadExpired from None
    key = data.pop("key", "")
    if data.pop("user", None) != user_id or not _KEY.match(key):
        raise UploadExpired
    try:
        raw = (_directory() / key).read_bytes()
    except OSError:
        raise UploadExpired from None
    return raw, data


def forget(token: str) -> None:
    """Delete a token's file once it is imported (the token is signed: no other file)."""
    try:
        key = signing.loads(token, salt=_SALT)["key"]
    except (signing.BadSignature, KeyError, TypeError):
        return
    if _KEY.match(key):
        (_directory() / key).unlink(missing_ok=True)


def _prune(directory: Path) -> None:
    cutoff = time.time() - KEEP_SECONDS
    for path in directory.iterdir():
        try:
            if path.stat().st_mtime < cutoff:
                path.unlink()
        except OSError:
            continue  # another worker pruned it first
