"""Forms of the practice pages: they validate, the models do the work."""

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from django import forms

from progress.practice.builder import Plan
from progress.practice.marks import ReportKind
from progress.practice.models import Feedback, Selection
from questions.models import Exam, Kind, Question, Topic

NOTE_MAX_LENGTH = 5000
LENGTHS = [("10", "10 questions"), ("20", "20 questions"), ("all", "All of them")]
# The builder's bounds: a practice as long as the longest exam and then some, a time limit of
# up to ten hours, and the sittings looked back on.
MAX_LENGTH = 200
MAX_MINUTES = 600
MAX_SITTINGS = 20


def lengths_for(available: int) -> list[tuple[str, str]]:
    """The quiz lengths that `available` questions can fill: 10 and 20 when there are more,
    and all of them, counted ("All 6")."""
    fixed = [(value, label) for value, label in LENGTHS[:2] if int(value) < available]
    return [*fixed, ("all", f"All {available}")]


class SlugsField(forms.MultipleChoiceField):
    """Slugs checked against the exam in the form's clean (its choices are the page's)."""

    def valid_value(self, value: Any) -> bool:
        return bool(value) and len(str(value)) <= 50


class QuizStartForm(forms.Form):
    """The practice builder, and the short start form of the exam and topic pages (exam,
    topic, length, selection: what it does not post keeps its default). The builder's own
    page posts `built`, so that every item type left unticked means none."""

    exam = forms.SlugField()
    topic = forms.SlugField(required=False)
    built = forms.BooleanField(required=False, widget=forms.HiddenInput)
    length = forms.CharField(
        label="How many questions",
        initial="10",
        widget=forms.RadioSelect(choices=LENGTHS),
        help_text=f"From 1 to {MAX_LENGTH}, or all that match.",
    )
    topics = SlugsField(label="Topics", required=False, widget=forms.CheckboxSelectMultiple)
    kinds = forms.MultipleChoiceField(
        label="Item types",
        required=False,
        choices=Kind.choices,
        widget=forms.CheckboxSelectMultiple,
        error_messages={"invalid_choice": "%(value)s is not an item type."},
    )
    case_studies = forms.BooleanField(
        label="Case studies (their questions come together)", required=False
    )
    selection = forms.ChoiceField(
        label="Which questions",
        # Today's plan is drawn by the study plan's own button, not chosen here.
        choices=[(value, label) for value, label in Selection.choices if value != Selection.PLAN],
        initial=Selection.ANY,
    )
    missed_in = forms.IntegerField(
        label="Only questions I missed in my last … sittings",
        required=False,
        min_value=1,
        max_value=MAX_SITTINGS,
        help_text="Quizzes and mock exams of this exam. Leave empty for any.",
    )
    unseen_in = forms.IntegerField(
        label="Only questions I have not seen in my last … sittings",
        required=False,
        min_value=1,
        max_value=MAX_SITTINGS,
        help_text="Leave empty for any.",
    )
    minutes = forms.IntegerField(
        label="Time limit in minutes",
        required=False,
        min_value=1,
        max_value=MAX_MINUTES,
        help_text="Leave empty for untimed. You can pause a practice and its clock.",
    )
    feedback = forms.ChoiceField(
        label="Show the answer and explanation",
        choices=Feedback.choices,
        initial=Feedback.EACH,
        required=False,
        widget=forms.RadioSelect,
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

    def offer_topics(self, topics: Sequence[Topic]) -> None:
        field: forms.MultipleChoiceField = self.fields["topics"]  # type: ignore[assignment]
        field.choices = [(topic.slug, topic.title) for topic in topics]

    def clean_length(self) -> int | None:
        value = self.cleaned_data["length"].strip().lower()
        if value == "all":
            return None
        if not value.isdigit() or not 1 <= int(value) <= MAX_LENGTH:
            raise forms.ValidationError(
                f"Choose a number of questions from 1 to {MAX_LENGTH}, or all."
            )
        return int(value)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.errors:
            return data  # a field is already wrong: say that first
        exam = Exam.objects.filter(slug=data.get("exam")).first() if data.get("exam") else None
        if exam is None:
            raise forms.ValidationError("That exam does not exist.")
        slugs = set(data.get("topics") or [])
        if data.get("topic"):
            slugs.add(data["topic"])
        topics = list(Topic.objects.filter(exam=exam, slug__in=slugs).order_by("position", "pk"))
        if len(topics) != len(slugs):
            unknown = sorted(slugs - {topic.slug for topic in topics})
            error = "That topic is not part of this exam." if len(unknown) == 1 else (
                f"These topics are not part of this exam: {', '.join(unknown)}."
            )  # fmt: skip
            self.add_error("topics" if data.get("topics") else "topic", error)
            return data
        built = data.get("built")
        kinds = data.get("kinds") or ([] if built else list(Kind.values))
        case_studies = bool(data.get("case_studies")) if built else True
        if not kinds and not case_studies:
            self.add_error("kinds", "Choose at least one item type, or the case studies.")
            return data
        minutes = data.get("minutes")
        data["plan"] = Plan(
            exam=exam,
            topics=topics,
            kinds=kinds,
            case_studies=case_studies,
            selection=data["selection"],
            length=data["length"],
            missed_in=data.get("missed_in"),
            unseen_in=data.get("unseen_in"),
            time_limit=timedelta(minutes=minutes) if minutes else None,
            feedback=data.get("feedback") or Feedback.EACH,
        )
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
