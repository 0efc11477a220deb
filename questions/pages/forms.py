"""The question page's one form: an answer, validated against the page's own options."""

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.http import QueryDict

from questions.pages.snapshot import QuestionPage


class AnswerForm(forms.Form):
    """An answer to one question: the posted option keys must be that question's, one for a
    single-answer question, at least one for select-all-that-apply. The page template draws
    the inputs itself (labels hold rendered markdown); this form only validates."""

    def __init__(self, page: QuestionPage, data: QueryDict | None = None) -> None:
        super().__init__(data)
        self.page = page
        self.posted = data.getlist("choice") if data is not None else []
        choices = [(option.key, option.key) for option in page.options]
        unknown = "That answer is not one of this question's options. Choose again."
        if page.is_multiple:
            self.fields["choice"] = forms.MultipleChoiceField(
                choices=choices,
                error_messages={
                    "required": "Choose at least one option before checking your answer.",
                    "invalid_choice": unknown,
                },
            )
        else:
            self.fields["choice"] = forms.ChoiceField(
                choices=choices,
                error_messages={
                    "required": "Choose an answer before checking it.",
                    "invalid_choice": unknown,
                },
            )

    def clean_choice(self) -> Any:
        if not self.page.is_multiple and len(self.posted) > 1:
            raise ValidationError(
                "This question takes one answer: choose a single option.", code="several"
            )
        return self.cleaned_data["choice"]

    @property
    def chosen_keys(self) -> frozenset[str]:
        value = self.cleaned_data["choice"]
        return frozenset([value] if isinstance(value, str) else value)

    def posted_keys(self) -> frozenset[str]:
        """What was ticked, among this question's options: to tick it again on a 400."""
        return frozenset(self.posted) & self.page.option_keys
