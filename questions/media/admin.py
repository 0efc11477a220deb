"""The admin's question images: upload one, copy the Markdown that shows it in a question.

Images are stored once per content (questions.media.images): uploading the same bytes again gives
the image already stored. They are not edited or deleted here: an image no question shows
any more is removed by the daily task (questions.media.tasks), so deleting one cannot break a
question that still shows it.
"""

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.files.uploadedfile import UploadedFile
from django.http import HttpRequest
from django.utils.html import format_html

from questions.media import images
from questions.models import QuestionMedia


class MediaUploadForm(forms.ModelForm[QuestionMedia]):
    upload = forms.FileField(
        label="Image",
        help_text="PNG, JPEG, GIF or WebP (told by the file's content; SVG is not accepted).",
    )

    class Meta:
        model = QuestionMedia
        fields: list[str] = []

    def clean_upload(self) -> UploadedFile:
        upload: UploadedFile = self.cleaned_data["upload"]
        try:
            self.image = images.check_upload(upload)
        except images.MediaError as error:
            raise forms.ValidationError(images.sentence(error)) from None
        return upload


@admin.register(QuestionMedia)
class QuestionMediaAdmin(admin.ModelAdmin[QuestionMedia]):
    list_display = ["preview", "original_name", "snippet", "content_type", "size", "created_at"]
    search_fields = ["original_name", "sha256"]
    readonly_fields = ["preview", "snippet", "original_name", "content_type", "size", "created_at"]
    form = MediaUploadForm

    class Media:
        css = {"all": ["css/admin.css"]}  # the thumbnails' size: no style attribute (CSP)

    def get_fields(self, request: HttpRequest, obj: QuestionMedia | None = None) -> Any:
        if obj is None:
            return ["upload"]
        return self.readonly_fields

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # stored by content: nothing to edit

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # removed when no question shows it (questions.media.tasks)

    @admin.display(description="Image")
    def preview(self, stored: QuestionMedia) -> str:
        return format_html('<img src="{}" alt="" class="media-preview">', stored.url)

    @admin.display(description="Markdown to paste into a question")
    def snippet(self, stored: QuestionMedia) -> str:
        return format_html("<code>{}</code>", stored.markdown)

    def save_model(self, request: HttpRequest, obj: QuestionMedia, form: Any, change: bool) -> None:
        upload: UploadedFile = form.cleaned_data["upload"]
        stored = images.store(form.image, upload.name or "")
        # The admin goes on with `obj` (its log entry, its page): make it the stored row.
        obj.__dict__.update({k: v for k, v in stored.__dict__.items() if k != "_state"})
        obj._state.adding = False
        messages.info(request, format_html("Paste <code>{}</code> into a question.", obj.markdown))
