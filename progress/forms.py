"""Forms of the learner's pages: they validate, the models do the work."""

from typing import Any

from django import forms

from progress.practice.models import Selection
from questions.models import Exam, Topic

LENGTHS = [("10", "10 questions"), ("20", "20 questions"), ("all", "All of them")]


class QuizStartForm(forms.Form):
    exam = forms.SlugField()
    topic = forms.SlugField(required=False)
    length = forms.ChoiceField(choices=LENGTHS, initial="10", widget=forms.RadioSelect)
    selection = forms.ChoiceField(
        label="Which questions", choices=Selection.choices, initial=Selection.ANY
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.errors:
            return data  # a field is already wrong: say that first
        exam = Exam.objects.filter(slug=data.get("exam")).first() if data.get("exam") else None
        if exam is None:
            raise forms.ValidationError("That exam does not exist.")
        topic = None
        if data.get("topic"):
            topic = Topic.objects.filter(exam=exam, slug=data["topic"]).first()
            if topic is None:
                raise forms.ValidationError("That topic is not part of this exam.")
        data["exam_row"], data["topic_row"] = exam, topic
        data["length_count"] = None if data.get("length") == "all" else int(data["length"])
        return data


class HistoryFilterForm(forms.Form):
    exam = forms.SlugField(required=False)
    topic = forms.SlugField(required=False)
    result = forms.ChoiceField(
        required=False, choices=[("", "Right and wrong"), ("right", "Right"), ("wrong", "Wrong")]
    )
