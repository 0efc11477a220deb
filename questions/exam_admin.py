"""The admin's share of an exam's mock shape: its sections, an inline on the exam, checked
together against the exam's question count and minutes."""

from django import forms
from django.contrib import admin
from django.forms.models import BaseInlineFormSet

from questions.choices import Kind
from questions.exams import Exam, MockSection, section_problems


class MockSectionForm(forms.ModelForm[MockSection]):
    kinds = forms.MultipleChoiceField(
        label="Item types",
        choices=Kind.choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="None ticked: the item types no other section names.",
    )

    class Meta:
        model = MockSection
        fields = ["position", "title", "kinds", "holds_case_study", "question_count", "minutes",
                  "locks"]  # fmt: skip


class MockSectionFormSet(BaseInlineFormSet[MockSection, Exam, forms.ModelForm[MockSection]]):
    def clean(self) -> None:
        super().clean()
        if any(self.errors):
            return
        sections = [
            form.cleaned_data
            for form in self.forms
            if form.cleaned_data and not form.cleaned_data.get("DELETE")
        ]
        if sections:
            problems = section_problems(
                self.instance.mock_question_count, self.instance.mock_duration_minutes, sections
            )
            if problems:
                raise forms.ValidationError(problems)


class MockSectionInline(admin.StackedInline[MockSection, Exam]):
    """Stacked for its labels, as the topics (questions.admin.TopicInline)."""

    model = MockSection
    form = MockSectionForm
    formset = MockSectionFormSet
    extra = 0
    verbose_name = "mock exam section"
    verbose_name_plural = (
        "Mock exam sections (optional: without them a mock exam is one list under one timer)"
    )
