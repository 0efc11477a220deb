"""The admin's share of an exam's mock shape: its sections, an inline on the exam, checked
together against the exam's question count and minutes."""

from typing import Any

from django import forms
from django.contrib import admin
from django.forms.models import BaseInlineFormSet

from questions.choices import Kind
from questions.exams import Exam, MockSection


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
            problems = section_problems(self.instance, sections)
            if problems:
                raise forms.ValidationError(problems)


def section_problems(exam: Exam, sections: list[dict[str, Any]]) -> list[str]:
    """What is wrong with these sections (cleaned rows) of `exam`'s mock exams, in the
    curator's words."""
    if exam.mock_question_count is None or exam.mock_duration_minutes is None:
        return ["Give the mock exam's question count, minutes and pass percent first."]
    problems = []
    total = sum(section["question_count"] for section in sections)
    if total != exam.mock_question_count:
        problems.append(
            f"The sections hold {total} questions but the mock exam has "
            f"{exam.mock_question_count}: make them add up."
        )
    minutes = sum(section["minutes"] or 0 for section in sections)
    if minutes > exam.mock_duration_minutes:
        problems.append(
            f"The sections' own minutes add up to {minutes}, more than the exam's "
            f"{exam.mock_duration_minutes}."
        )
    if sum(1 for section in sections if section["holds_case_study"]) > 1:
        problems.append("Only one section can hold the case study: a mock exam draws one.")
    named: dict[str, str] = {}
    for section in sections:
        for kind in section["kinds"]:
            if kind in named:
                problems.append(
                    f"“{Kind(kind).label}” is named by both “{named[kind]}” and "
                    f"“{section['title']}”: name it in one section."
                )
            named[kind] = section["title"]
    return problems


class MockSectionInline(admin.TabularInline[MockSection, Exam]):
    model = MockSection
    form = MockSectionForm
    formset = MockSectionFormSet
    extra = 0
    verbose_name = "mock exam section"
    verbose_name_plural = (
        "Mock exam sections (optional: without them a mock exam is one list under one timer)"
    )
