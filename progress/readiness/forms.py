from datetime import date, timedelta
from typing import Any

from django import forms
from django.utils import timezone

from questions.models import Exam

# A goal further than this is a wish, not a plan.
LONGEST_GOAL = timedelta(days=730)


class StudyGoalForm(forms.Form):
    exam = forms.ModelChoiceField(
        label="Your exam",
        queryset=Exam.objects.order_by("position", "code"),
        empty_label="Choose an exam",
        error_messages={"required": "Choose the exam you are preparing for."},
    )
    target_date = forms.DateField(
        label="When you mean to sit it",
        widget=forms.DateInput(attrs={"type": "date"}),
        error_messages={"required": "Give the date of your exam (a guess is fine)."},
    )
    daily_questions = forms.IntegerField(
        label="Questions a day you can do",
        min_value=1,
        max_value=500,
        initial=20,
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "goal-%s")
        super().__init__(*args, **kwargs)

    def clean_target_date(self) -> date:
        target: date = self.cleaned_data["target_date"]
        today = timezone.localdate()
        if target < today:
            raise forms.ValidationError("That date has passed: give the day of your exam.")
        if target > today + LONGEST_GOAL:
            raise forms.ValidationError("Choose a date within the next two years.")
        return target
