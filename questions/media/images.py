"""Images in question text: what is accepted, how it is stored, named and removed.

An image is accepted when its bytes are PNG, JPEG, GIF or WebP (told by their magic numbers,
never by the file's name) and not larger than settings.QUESTION_MEDIA_MAX_BYTES. SVG is
refused: it is XML that can carry script and links, and certification exhibits are
screenshots and diagrams that export to PNG as well.

Files are stored through Django's storage API (`default_storage`: MEDIA_ROOT on the
filesystem, or any django-storages backend) as `q/<sha256>.<ext>`, so the same image
uploaded or imported twice is stored once. Question, option and rationale Markdown refers to
it as `![alt](/media/q/<sha256>.<ext>)`; the sanitiser (questions.markup) lets through no
other image source. An image that no text refers to any more is removed by
`remove_unused_media`, run daily (questions.media.tasks), and so is a file in the storage that
no row describes (`remove_orphan_files`: an import that stored it was rolled back).
"""

import base64
import binascii
import hashlib
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import UploadedFile
from django.db import IntegrityError, models, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from questions.models import (
    MEDIA_URL_PREFIX,
    CaseStudy,
    Option,
    Part,
    Question,
    QuestionMedia,
    Rationale,
)

# extension -> content type
TYPES = {"png": "image/png", "jpg": "image/jpeg", "gif": "image/gif", "webp": "image/webp"}
FILE_NAME = re.compile(r"^([0-9a-f]{64})\.(png|jpg|gif|webp)$")
# A reference in question text: the URL of one of our images.
REFERENCE = re.compile(re.escape(MEDIA_URL_PREFIX) + r"([0-9a-f]{64}\.(?:png|jpg|gif|webp))")
# An image stored this recently is kept even when nothing refers to it yet: a curator
# uploads it, then pastes its snippet into a question.
GRACE = timedelta(days=1)


class MediaError(ValueError):
    """Bytes that are not an image we accept: the message says why."""


@dataclass(frozen=True)
class Image:
    """Accepted bytes and the name they are stored and referred to by."""

    data: bytes
    extension: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @property
    def file_name(self) -> str:
        return f"{self.sha256}.{self.extension}"

    @property
    def url(self) -> str:
        return MEDIA_URL_PREFIX + self.file_name

    @property
    def content_type(self) -> str:
        return TYPES[self.extension]


def max_bytes() -> int:
    return int(settings.QUESTION_MEDIA_MAX_BYTES)


def sniff(data: bytes) -> str | None:
    """The extension of an image type we accept, from the bytes' magic number; else None."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "png"
    if data.startswith(b"\xff\xd8\xff"):
        return "jpg"
    if data.startswith((b"GIF87a", b"GIF89a")):
        return "gif"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    return None


def check_image(data: bytes, name: str = "") -> Image:
    """The bytes as an accepted image, or MediaError saying why not. Pure: stores nothing."""
    label = f"{name}: " if name else ""
    if len(data) > max_bytes():
        raise MediaError(
            f"{label}the file is {len(data) / 1e6:.1f} MB; images are accepted up to "
            f"{max_bytes() / 1e6:.1f} MB"
        )
    extension = sniff(data)
    if extension is None:
        head = data[:512].lstrip().lower()
        if head.startswith((b"<svg", b"<?xml")) and b"<svg" in head:
            raise MediaError(f"{label}SVG is not accepted (it can carry script): export it as PNG")
        raise MediaError(f"{label}not a PNG, JPEG, GIF or WebP image (judged by its content)")
    return Image(data, extension)


def check_upload(upload: UploadedFile) -> Image:
    """An uploaded file as an accepted image, or MediaError saying why not. Reads no more than
    an image may be; stores nothing."""
    if upload.size is not None and upload.size > max_bytes():
        raise MediaError(
            f"the file is {upload.size / 1e6:.1f} MB; images are accepted up to "
            f"{max_bytes() / 1e6:.1f} MB"
        )
    upload.seek(0)
    return check_image(upload.read(max_bytes() + 1))


def sentence(error: MediaError) -> str:
    """The error as a form shows it: capitalised, with a full stop."""
    text = str(error)
    return f"{text[:1].upper()}{text[1:]}."


def alt_text(text: str) -> str:
    """Text made safe to put between the brackets of `![...](url)`: one line, no brackets
    or backslashes (which would end or escape the Markdown)."""
    return " ".join(re.sub(r"[\[\]\\]", "", text).split())


def with_image(text: str, image: Image, alt: str) -> str:
    """Markdown text with the image shown after it, in a paragraph of its own."""
    snippet = f"![{alt_text(alt)}]({image.url})"
    return f"{text.rstrip()}\n\n{snippet}" if text.strip() else snippet


def decode_base64(text: str) -> bytes | None:
    """Base64 as found in XML (with line breaks and spaces), or None when it is not; refuses
    text that would decode to more than an image may be before decoding it."""
    compact = "".join(text.split())
    if len(compact) * 3 // 4 > max_bytes() + 3:
        return None
    try:
        return base64.b64decode(compact, validate=True)
    except (binascii.Error, ValueError):
        return None


def store(image: Image, original_name: str = "") -> QuestionMedia:
    """The stored image of these bytes: the existing one when the same bytes were stored
    before (by any name), else a new file and row. One or two queries and, when new, one
    write to the storage."""
    existing = QuestionMedia.objects.filter(sha256=image.sha256).first()
    if existing is not None:
        return existing
    name = f"q/{image.file_name}"
    if not default_storage.exists(name):
        # Content-addressed: a file already there (a row removed, a race) has these bytes.
        saved = default_storage.save(name, ContentFile(image.data))
        if saved != name:  # a backend that renamed instead of failing
            default_storage.delete(saved)
    media = QuestionMedia(
        sha256=image.sha256,
        file=name,
        original_name=original_name[:255],
        content_type=image.content_type,
        size=len(image.data),
    )
    try:
        # Two imports of the same image at once: the second finds the first's row.
        with transaction.atomic():
            media.save()
    except IntegrityError:
        return QuestionMedia.objects.get(sha256=image.sha256)
    return media


def store_all(images: Iterable[tuple[Image, str]]) -> list[QuestionMedia]:
    """Store images given with their original names; each content once."""
    unique = {image.sha256: (image, name) for image, name in images}
    return [store(image, name) for image, name in unique.values()]


def references(text: str) -> set[str]:
    """The file names (`<sha256>.<ext>`) of our images that a text refers to."""
    return set(REFERENCE.findall(text or ""))


def _texts() -> Iterator[str]:
    """Every Markdown text of the bank that shows an image: only rows with our URL in some
    field leave the database."""
    columns: list[tuple[type[models.Model], tuple[str, ...]]] = [
        (Question, ("stem", "exhibit", "trap", "explanation")),
        (Option, ("text",)),
        (Rationale, ("why", "tempting_because", "right_when")),
        (Part, ("prompt", "why", "tempting_because", "right_when")),
        (CaseStudy, ("scenario",)),
    ]
    for model, fields in columns:
        showing = Q()
        for name in fields:
            showing |= Q(**{f"{name}__contains": MEDIA_URL_PREFIX})
        rows = model._default_manager.filter(showing).values_list(*fields)
        yield from _column_texts(rows)


def _column_texts(rows: "QuerySet[Any, tuple[str, ...]]") -> Iterator[str]:
    for row in rows.iterator(chunk_size=2000):
        for text in row:
            if MEDIA_URL_PREFIX in text:
                yield text


def used_file_names() -> set[str]:
    """The images some question, option, rationale, part or case study refers to. Five
    queries, streamed."""
    used: set[str] = set()
    for text in _texts():
        used |= references(text)
    return used


def remove_unused_media(grace: timedelta = GRACE) -> int:
    """Delete the images no text refers to any more (stored longer than `grace` ago), rows
    and files. Returns how many were removed."""
    used = used_file_names()
    candidates = QuestionMedia.objects.filter(created_at__lt=timezone.now() - grace)
    unused = [media for media in candidates if media.file_name not in used]
    for media in unused:
        # The row first: a page rendered meanwhile shows a missing image rather than a row
        # whose file is gone.
        QuestionMedia.objects.filter(pk=media.pk).delete()
        default_storage.delete(media.storage_name)
    return len(unused)


def remove_orphan_files(grace: timedelta = GRACE) -> int:
    """Delete the files under `q/` in the storage that no row describes, stored longer than
    `grace` ago: an import whose transaction was rolled back after it stored an image leaves
    one. A file whose storage cannot tell its age is kept (it may be an import's, whose row is
    not committed yet). Returns how many were removed. One query and one listing."""
    try:
        files = default_storage.listdir("q")[1]
    except FileNotFoundError:
        return 0  # nothing stored yet
    # Listed before the rows are read: a file stored meanwhile is not listed; a row committed
    # meanwhile is read.
    ours = {name for name in files if FILE_NAME.match(name)}
    if not ours:
        return 0
    described = {
        name.rpartition("/")[2] for name in QuestionMedia.objects.values_list("file", flat=True)
    }
    cutoff = timezone.now() - grace
    removed = 0
    for name in sorted(ours - described):
        storage_name = f"q/{name}"
        try:
            modified = default_storage.get_modified_time(storage_name)
        except (NotImplementedError, OSError):
            continue
        if timezone.is_naive(modified):
            modified = timezone.make_aware(modified)
        if modified < cutoff:
            default_storage.delete(storage_name)
            removed += 1
    return removed


def media_for(file_names: Iterable[str]) -> dict[str, QuestionMedia]:
    """The stored images of these file names, by file name. One query (none for none)."""
    names = sorted({name for name in file_names if FILE_NAME.match(name)})
    if not names:
        return {}
    rows = QuestionMedia.objects.filter(sha256__in=[name.split(".")[0] for name in names])
    return {media.file_name: media for media in rows if media.file_name in names}


def read_bytes(media: QuestionMedia) -> bytes:
    with default_storage.open(media.storage_name, "rb") as stream:
        data: bytes = stream.read()
    return data


# In a courseiva-bank document ---------------------------------------------------------------


def document_entries(file_names: Iterable[str]) -> list[dict[str, str]]:
    """The document's top-level "media" list: the stored images of these file names, their
    bytes in base64, ordered by name. One query (none for none); names not stored are left
    out (the text then shows nothing for them, as on our pages)."""
    return [
        {
            "name": name,
            "content_type": stored.content_type,
            "original_name": stored.original_name,
            "data": base64.b64encode(read_bytes(stored)).decode("ascii"),
        }
        for name, stored in sorted(media_for(file_names).items())
    ]


def document_images(
    document: dict[str, Any],
) -> tuple[list[tuple[Image, str]], list[tuple[str, str]]]:
    """The images of a document's "media" list and, by JSON path, what is wrong with the
    others: not base64, not an image we accept, or a name that is not the bytes' hash."""
    images: list[tuple[Image, str]] = []
    problems: list[tuple[str, str]] = []
    entries = document.get("media")
    if not isinstance(entries, list):
        return images, problems
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or not isinstance(entry.get("data"), str):
            continue  # the schema reports it
        where = f"media[{index}]"
        data = decode_base64(entry["data"])
        if data is None:
            problems.append((f"{where}.data", "not base64, or larger than an image may be"))
            continue
        try:
            image = check_image(data)
        except MediaError as error:
            problems.append((f"{where}.data", str(error)))
            continue
        if entry.get("name") != image.file_name:
            problems.append(
                (f"{where}.name", f"the data's name is {image.file_name} (its SHA-256 and type)")
            )
            continue
        images.append((image, str(entry.get("original_name", ""))))
    return images, problems
