"""The question images' one public page: an image by its content-addressed name."""

from django.core.files.storage import default_storage
from django.http import FileResponse, Http404, HttpRequest
from django.views.decorators.http import require_GET

from questions.media import images
from questions.models import QuestionMedia


@require_GET
def media_file(request: HttpRequest, name: str) -> FileResponse:
    """A question image (images.py) by its content-addressed name: one query. Served
    with its stored type, never sniffed, inline, and cached for a year (a name is its content,
    so it never changes). Unknown names and files gone from the storage are 404."""
    match = images.FILE_NAME.match(name)
    if match is None:
        raise Http404("No such image.")
    stored = QuestionMedia.objects.filter(sha256=match.group(1)).first()
    if stored is None or stored.file_name != name:
        raise Http404("No such image.")
    try:
        stream = default_storage.open(stored.storage_name, "rb")
    except FileNotFoundError:
        raise Http404("No such image.") from None
    response = FileResponse(stream, content_type=stored.content_type)
    response["Content-Length"] = str(stored.size)
    response["Content-Disposition"] = f'inline; filename="{name}"'
    response["X-Content-Type-Options"] = "nosniff"
    # Shown by <img> only: as a document of its own, it may load nothing and run nothing.
    response["Content-Security-Policy"] = "default-src 'none'; sandbox"
    response["Cache-Control"] = "public, max-age=31536000, immutable"
    return response
