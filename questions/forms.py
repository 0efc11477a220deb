"""The admin's forms of the question bank: they validate, the models and the bank modules do
the work. A question's rows (options, parts) have theirs in questions.item_forms; the
question page's answer form is the pages room's (questions.pages.forms)."""

from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from questions.media import images
from questions.models import CaseStudy, Exam, Kind, Question, Scoring, Topic


class QuestionForm(forms.ModelForm[Question]):
    """The admin's question form, with an image to show at the end of the stem: checked like
    any image (questions.media.images), stored only when the whole question is saved."""

    image = forms.FileField(
        label="Add an image",
        required=False,
        help_text="PNG, JPEG, GIF or WebP (told by the file's content; SVG is not accepted). "
        "Its Markdown is added at the end of the stem: move it where it belongs.",
    )
    image_alt = forms.CharField(
        label="Image description (alt text)",
        required=False,
        max_length=200,
        help_text="What the image shows, for learners who cannot see it. Required with an image.",
    )

    class Meta:
        model = Question
        fields: list[str] = []  # the admin's fieldsets name them (questions.item_admin)
        help_texts = {
            "kind": "The rows below follow it. A new type shows its own rows once you save: "
            "nothing is saved until they are filled in, and rows it has no place for go.",
        }

    new_image: images.Image | None = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if "scoring" in self.fields:
            # A question written before partial credit existed posts none: all or nothing.
            self.fields["scoring"].required = False
        if "exhibit" in self.fields and self.shown_kind == Kind.DROPDOWN:
            self.fields["exhibit"].help_text = (
                "Markdown: a table, code or configuration. Write [[1]] where the first gap's "
                "drop-down goes, [[2]] for the second, and so on, each once."
            )
        if "case_study" in self.fields:
            field = self.fields["case_study"]
            assert isinstance(field, forms.ModelChoiceField)
            case_studies = CaseStudy.objects.select_related("exam").order_by(
                "exam__position", "exam__slug", "position", "slug"
            )
            if self.instance.topic_id is not None:  # an exam's own, in the same query
                case_studies = case_studies.filter(exam__topics=self.instance.topic_id)
            field.queryset = case_studies

    @property
    def shown_kind(self) -> str:
        """The type whose rows the page shows: the one posted, else the one chosen first."""
        for kind in (self.data.get("kind"), self.initial.get("kind"), self.instance.kind):
            if kind in Kind.values:
                return str(kind)
        return Kind.SINGLE

    def clean_scoring(self) -> str:
        return self.cleaned_data.get("scoring") or Scoring.ALL

    def clean_image(self) -> Any:
        upload = self.cleaned_data.get("image")
        if upload:
            try:
                self.new_image = images.check_upload(upload)
            except images.MediaError as error:
                raise ValidationError(images.sentence(error)) from None
        return upload

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        kind = cleaned.get("kind")
        # What a type has no field for keeps no value of another type's.
        if kind == Kind.SINGLE:
            self.instance.scoring = cleaned["scoring"] = Scoring.ALL
        if kind != Kind.MATCHING:
            self.instance.reuse_answers = cleaned["reuse_answers"] = False
        case, topic = cleaned.get("case_study"), cleaned.get("topic")
        if case is not None and topic is not None and case.exam_id != topic.exam_id:
            self.add_error(
                "case_study",
                f"The case study “{case.title}” belongs to {case.exam.code}; this question's "
                f"topic is in {topic.exam.code}. Choose one of {topic.exam.code}, or none.",
            )
        if self.new_image is not None:
            if not images.alt_text(cleaned.get("image_alt", "")):
                self.add_error("image_alt", "Describe the image for learners who cannot see it.")
            elif "stem" in cleaned:
                cleaned["stem"] = images.with_image(
                    cleaned["stem"], self.new_image, cleaned["image_alt"]
                )
        return cleaned

    def save(self, commit: bool = True) -> Question:
        question = super().save(commit=commit)
        if commit:
            self._store_image()
        else:
            # The admin saves the form before it validates the inlines: store the image only
            # once the question is being saved with them.
            save_m2m = self.save_m2m

            def save_m2m_and_image() -> None:
                save_m2m()
                self._store_image()

            self.save_m2m = save_m2m_and_image  # type: ignore[method-assign]
        return question

    def _store_image(self) -> None:
        if self.new_image is not None:
            images.store(self.new_image, self.cleaned_data["image"].name or "")


class BankUploadForm(forms.Form):
    """A bank file to preview, with where its questions go when it is a foreign format."""

    # A bank of 10,000 questions with full rationales is about 30 MB of JSON; foreign files
    # have their own, lower limit (questions.bank.formats.foreign.MAX_FILE_BYTES).
    MAX_BYTES = 100 * 1024 * 1024

    bank_file = forms.FileField(
        label="Question bank file",
        help_text="courseiva-bank JSON, GIFT, Aiken, Moodle XML, a QTI item (XML) or a QTI "
        "content package (zip). Nothing is written before you confirm the preview.",
    )
    file_format = forms.ChoiceField(
        label="Format",
        choices=[
            ("auto", "Tell from the file"),
            ("json", "courseiva-bank JSON"),
            ("gift", "GIFT"),
            ("aiken", "Aiken"),
            ("moodle-xml", "Moodle XML"),
            ("qti", "QTI item or package"),
        ],
        initial="auto",
    )
    exam = forms.ModelChoiceField(
        queryset=Exam.objects.order_by("position", "slug"),
        to_field_name="slug",
        required=False,
        help_text="Required for GIFT, Aiken, Moodle XML and QTI: the exam their questions go "
        "into (a courseiva-bank JSON file names its own).",
    )
    topic = forms.ModelChoiceField(
        queryset=Topic.objects.select_related("exam").order_by(
            "exam__position", "exam__slug", "position"
        ),
        required=False,
        label="Topic for uncategorised questions",
        help_text="A topic of the exam above; by default a topic “Imported” (created when "
        "missing).",
    )

    def clean_bank_file(self) -> Any:
        upload = self.cleaned_data["bank_file"]
        if upload.size > self.MAX_BYTES:
            raise ValidationError(
                f"The file is {upload.size // (1024 * 1024)} MB; the admin takes banks up to "
                f"{self.MAX_BYTES // (1024 * 1024)} MB. Import larger ones with "
                "`manage.py import_bank`."
            )
        return upload

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        exam, topic = cleaned.get("exam"), cleaned.get("topic")
        if topic is not None and (exam is None or topic.exam_id != exam.pk):
            self.add_error("topic", "Choose a topic of the chosen exam.")
        return cleaned


class ConfirmImportForm(forms.Form):
    """The confirmation of a preview: the signed token of the upload kept on the server."""

    token = forms.CharField(widget=forms.HiddenInput)


class CaseStudyForm(forms.ModelForm[CaseStudy]):
    """A case study. Its questions must be of its exam, so its exam stays while they use it."""

    class Meta:
        model = CaseStudy
        fields: list[str] = []  # the admin names them

    def clean_exam(self) -> Exam:
        exam: Exam = self.cleaned_data["exam"]
        if self.instance.pk is not None and exam.pk != self.instance.exam_id:
            count = self.instance.questions.count()
            if count:
                raise ValidationError(
                    f"{count} question(s) of {self.instance.exam.code} use this case study: "
                    "choose another case study on them first, or keep its exam."
                )
        return exam
