"""Forms of the question bank: they validate, the models and `questions.bank` do the work."""

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.forms.models import BaseInlineFormSet

from questions.models import Option, Question, Rationale, option_rule_problems


class OptionForm(forms.ModelForm[Option]):
    """An option together with its rationale, so that curators edit both in one row."""

    why = forms.CharField(
        label="Rationale",
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Why it is (or is not) right here.",
    )
    tempting_because = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Why learners pick it.",
    )
    right_when = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="When it would be the right answer.",
    )

    class Meta:
        model = Option
        fields = ["position", "text", "is_correct"]
        widgets = {"text": forms.Textarea(attrs={"rows": 2})}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        rationale = self._stored_rationale()
        if rationale is not None:
            for name in ("why", "tempting_because", "right_when"):
                self.fields[name].initial = getattr(rationale, name)

    def _stored_rationale(self) -> Rationale | None:
        if self.instance.pk is None:
            return None
        try:
            return self.instance.rationale
        except Rationale.DoesNotExist:
            return None

    def save(self, commit: bool = True) -> Option:
        option = super().save(commit=commit)
        if commit:
            self._save_rationale(option)
        else:
            save_m2m = self.save_m2m

            def save_m2m_and_rationale() -> None:
                save_m2m()
                self._save_rationale(option)

            self.save_m2m = save_m2m_and_rationale  # type: ignore[method-assign]
        return option

    def _save_rationale(self, option: Option) -> None:
        Rationale.objects.update_or_create(
            option=option,
            defaults={
                name: self.cleaned_data.get(name, "")
                for name in ("why", "tempting_because", "right_when")
            },
        )


class OptionFormSet(BaseInlineFormSet[Option, Question, forms.ModelForm[Option]]):
    """Keeps the option rules of `option_rule_problems` for the question being saved."""

    def clean(self) -> None:
        super().clean()
        if any(self.errors):
            return  # each form's own errors come first
        kept = [
            form
            for form in self.forms
            if form.cleaned_data
            and not form.cleaned_data.get("DELETE")
            and (form.instance.pk is not None or form.has_changed())
        ]
        corrects = [bool(form.cleaned_data.get("is_correct")) for form in kept]
        # The question form has already set the posted kind on the instance.
        problems = option_rule_problems(self.instance.kind, corrects)
        if problems:
            raise ValidationError([problem[0].upper() + problem[1:] + "." for problem in problems])


class BankUploadForm(forms.Form):
    # A bank of 10,000 questions with full rationales is about 30 MB of JSON.
    MAX_BYTES = 100 * 1024 * 1024

    bank_file = forms.FileField(
        label="Question bank file (JSON)",
        help_text="A courseiva-bank document, version 1. Nothing is written unless the whole "
        "file is valid.",
        widget=forms.ClearableFileInput(attrs={"accept": ".json,application/json"}),
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
