"""Forms of the practice pages: they validate, the models do the work."""

from typing import Any

from django import forms

from progress.practice.marks import ReportKind
from progress.practice.models import Selection
from questions.models import Exam, Question, Topic

NOTE_MAX_LENGTH = 5000
LENGTHS = [("10", "10 questions"), ("20", "20 questions"), ("all", "All of them")]


def lengths_for(available: int) -> list[tuple[str, str]]:
    """The quiz lengths that `available` questions can fill: 10 and 20 when there are more,
    and all of them, counted ("All 6")."""
    fixed = [(value, label) for value, label in LENGTHS[:2] if int(value) < available]
    return [*fixed, ("all", f"All {available}")]


class QuizStartForm(forms.Form):
    exam = forms.SlugField()
    topic = forms.SlugField(required=False)
    length = forms.ChoiceField(
        label="How many questions", choices=LENGTHS, initial="10", widget=forms.RadioSelect
    )
    selection = forms.ChoiceField(
        label="Which questions",
        # Today's plan is drawn by the study plan's own button, not chosen here.
        choices=[(value, label) for value, label in Selection.choices if value != Selection.PLAN],
        initial=Selection.ANY,
    )

    @classmethod
    def for_page(cls, exam: Exam, topic: Topic | None) -> "QuizStartForm":
        """The form an exam page (topic None) or a topic page offers: the lengths its
        published questions can fill, its ids unique on the page. One query (the count)."""
        questions = Question.objects.published().filter(topic__exam=exam)
        if topic is not None:
            questions = questions.filter(topic=topic)
        available = questions.count()
        initial = {"exam": exam.slug, "topic": topic.slug if topic else ""}
        form = cls(initial=initial, auto_id=f"quiz-{topic.slug if topic else 'all'}-%s")
        form.offer_lengths(available)
        return form

    def offer_lengths(self, available: int) -> None:
        """Offer only the lengths that `available` questions can fill (a post may still name
        any: the quiz then holds what there is, and says so)."""
        choices = lengths_for(available)
        self.fields["length"].widget.choices = choices
        if self.initial.get("length", "10") not in {value for value, _ in choices}:
            self.initial["length"] = choices[0][0]

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
        required=False,
        choices=[
            ("", "Every answer"),
            ("right", "Right"),
            ("partly", "Partly right"),
            ("wrong", "Wrong"),
        ],
    )


class TextBoxField(forms.CharField):
    """Text from a textarea, with line breaks counted as browsers count them against
    maxlength (one character each), not as they post them (CRLF)."""

    def to_python(self, value: Any) -> str:
        return str(super().to_python(value)).replace("\r\n", "\n")


class NoteForm(forms.Form):
    text = TextBoxField(
        required=False,
        strip=True,
        max_length=NOTE_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 5}),
        error_messages={
            "max_length": "Your note is too long: keep it to %(limit_value)s characters "
            "(it has %(show_value)s). It was not saved."
        },
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "note-%s")
        super().__init__(*args, **kwargs)


class ReportForm(forms.Form):
    kind = forms.ChoiceField(
        label="What is wrong?",
        choices=ReportKind.choices,
        widget=forms.RadioSelect,
        error_messages={"required": "Choose what is wrong with the question."},
    )
    details = TextBoxField(
        label="Details",
        required=False,
        strip=True,
        max_length=5000,
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text="What should it say instead? Required when you choose “Something else”.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("auto_id", "report-%s")
        super().__init__(*args, **kwargs)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if cleaned.get("kind") == ReportKind.OTHER and not cleaned.get("details"):
            self.add_error("details", "Tell us what is wrong when you choose “Something else”.")
        return cleaned
