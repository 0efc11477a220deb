from typing import Any

from django import forms

from progress.accounts.models import User
from progress.cohorts.models import Cohort
from progress.mocks.allowances import Allowance


class CohortForm(forms.ModelForm["Cohort"]):
    class Meta:
        model = Cohort
        fields = ["name", "exam", "target_date"]
        widgets = {"target_date": forms.DateInput(attrs={"type": "date"})}
        labels = {"target_date": "Target exam date (optional)"}


class DigestForm(forms.ModelForm["User"]):
    class Meta:
        model = User
        fields = ["weekly_digest"]
        labels = {
            "weekly_digest": "Weekly digest: e-mail me each Monday who is at risk in my cohorts"
        }
        help_texts = {"weekly_digest": ""}


class CoInstructorForm(forms.Form):
    username = forms.CharField(label="Username of the co-instructor", max_length=150)

    def __init__(self, *args: Any, cohort: "Cohort", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.cohort = cohort

    def clean_username(self) -> "User":
        name = self.cleaned_data["username"].strip()
        user = User.objects.filter(username__iexact=name).first()
        if user is None:
            raise forms.ValidationError(f"There is no user called {name!r}.")
        if not user.is_instructor:
            raise forms.ValidationError(
                f"{user.get_username()} is not an instructor: an admin gives the role first."
            )
        if self.cohort.instructors.filter(pk=user.pk).exists():
            raise forms.ValidationError(f"{user.get_username()} already follows this cohort.")
        return user


class AllowanceForm(forms.Form):
    allowance = forms.ChoiceField(
        label="Time in mock exams",
        choices=Allowance.choices,
        error_messages={"invalid_choice": "Choose one of the times offered."},
    )
