"""The admin's rows of a question, one kind of row per item type: choices, an ordering's
steps, a matching's pool and prompts, a yes/no series' statements, fill-in blanks, and the
gaps of drop-downs with their choices.

An item type's rules span its rows (a prompt names an answer of the pool, a choice its gap),
so a question's row formsets are checked together: the last one cleaned turns the rows kept
into item_rules' facts and refuses the save with item_problems' sentences, which the admin
shows once, at the top of the form (QuestionAdmin.render_change_form).

A row names another by its number in its list as shown, not by its id, so that a new prompt
can name a new answer of the pool, and a new choice a new gap, in the save that creates them
(Django's admin has no inlines within inlines). The number names the row, not its place
among those kept: a row removed in the same save leaves the others' numbers as they were."""

from collections.abc import Callable
from decimal import Decimal
from functools import cached_property
from typing import Any, ClassVar

from django import forms
from django.db.models import Model
from django.forms.models import BaseInlineFormSet

from questions.grading import MAX_MORE_NUMBERS, number_problem, parse_number
from questions.item_rules import MAX_PARTS, MAX_POOL, OptionFacts, PartFacts, item_problems
from questions.markup import quick_snippet
from questions.models import Option, Part, Question, Rationale, Status

RATIONALE_FIELDS = ("why", "tempting_because", "right_when")
REQUIRED_BEFORE_PUBLISHING = "This field is required."


def sentence(problem: str) -> str:
    """A rule's problem as the admin shows it: "A matching needs ... (this one has 1)."."""
    return problem[0].upper() + problem[1:] + "."


class ItemCheck:
    """The row formsets of one question form, in the order of its inlines."""

    def __init__(self) -> None:
        self.formsets: list[RowFormSet] = []
        self.problems: list[str] = []

    def rows_of(self, model: type[Model]) -> "RowFormSet | None":
        return next((formset for formset in self.formsets if formset.model is model), None)

    def check(self, question: Question) -> None:
        """The item's problems, as sentences, once every row formset is valid. The question
        form has already set the posted type, exhibit and scoring on `question`."""
        options, parts = self.rows_of(Option), self.rows_of(Part)
        problems = item_problems(
            question.kind,
            [form.option_facts() for form in options.kept()] if options else [],
            [form.part_facts() for form in parts.kept()] if parts else [],
            exhibit=question.exhibit,
            scoring=question.scoring,
            reuse=question.reuse_answers,
        )
        self.problems = [sentence(problem) for problem in problems]


class RowForm(forms.ModelForm[Any]):
    """One row of a question: it knows its formset, through which it finds the rows it names."""

    def __init__(self, *args: Any, rows: "RowFormSet | None" = None, **kwargs: Any) -> None:
        self.rows = rows
        super().__init__(*args, **kwargs)

    def option_facts(self) -> OptionFacts:
        return OptionFacts()

    def part_facts(self) -> PartFacts:
        return PartFacts()

    def resolve(self) -> None:
        """Point at the rows named by number, saved by now (their inline comes first)."""

    def _named(self) -> "RowFormSet | None":
        return self.rows.partner() if self.rows is not None else None

    def _number_field(
        self, name: str, limit: int, label: Callable[[int, Model | None], str]
    ) -> None:
        """Make `name` a select of the named rows' numbers up to `limit`, the stored ones with
        their text, and show the stored row this one names."""
        field = self.fields[name]
        assert isinstance(field, forms.TypedChoiceField)
        named = self._named()
        stored = named.stored_rows if named is not None else []
        field.choices = [("", "Choose…")] + [
            (str(n), label(n, stored[n - 1] if n <= len(stored) else None))
            for n in range(1, max(limit, len(stored)) + 1)
        ]


def _numbered() -> forms.TypedChoiceField:
    return forms.TypedChoiceField(coerce=int, empty_value=None, required=False)


def _text(rows: int = 2) -> forms.Textarea:
    return forms.Textarea(attrs={"rows": rows})


class OptionForm(RowForm):
    """An option with its rationale (a Rationale row), so that curators edit both at once."""

    # Required for published questions only (RowFormSet.clean): an imported question in
    # review may reach a curator without them.
    why = forms.CharField(label="Rationale", required=False, widget=_text())
    tempting_because = forms.CharField(required=False, widget=_text())
    right_when = forms.CharField(required=False, widget=_text())
    rationale_help: ClassVar[tuple[str, str, str]] = (
        "Why it is (or is not) right here; required before publishing.",
        "Why learners pick it.",
        "When it would be the right answer.",
    )

    class Meta:
        model = Option
        fields = ["position", "text", "is_correct"]
        widgets = {"text": _text()}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        rationale = self._stored_rationale()
        for name, help_text in zip(RATIONALE_FIELDS, self.rationale_help, strict=True):
            self.fields[name].help_text = help_text
            if rationale is not None:
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
            defaults={name: self.cleaned_data.get(name, "") for name in RATIONALE_FIELDS},
        )

    def option_facts(self) -> OptionFacts:
        return OptionFacts(is_correct=bool(self.cleaned_data.get("is_correct")))


class StepForm(OptionForm):
    """An ordering's step: its place in the right order, or none for a step that does not
    belong (choose K of N)."""

    rationale_help = (
        "Why it goes in this place (or why it is no step of this task); required before "
        "publishing.",
        "The usual misplacement, and why learners make it.",
        "When it would go elsewhere.",
    )

    class Meta:
        model = Option
        fields = ["text", "order"]
        widgets = {"text": _text()}
        labels = {"text": "Step"}
        help_texts = {
            "order": "1 for the first step. Leave it empty for a step that does not belong: "
            "learners must leave it out."
        }
        error_messages = {
            "order": {"min_value": "A place is 1 or more; leave it empty for a step that does not "
                      "belong."},
        }  # fmt: skip

    def option_facts(self) -> OptionFacts:
        return OptionFacts(order=self.cleaned_data.get("order"))


class PoolAnswerForm(RowForm):
    """An answer of a matching's pool: a prompt names it by its number. Its rationale is the
    prompt's (the pair's), so it has none of its own."""

    class Meta:
        model = Option
        fields = ["text"]
        widgets = {"text": _text()}
        labels = {"text": "Answer"}

    def save(self, commit: bool = True) -> Option:
        option = super().save(commit=commit)
        if commit:
            # Every write path gives an option its rationale row, if an empty one.
            Rationale.objects.get_or_create(option=option, defaults={"why": ""})
        return option


class GapChoiceForm(OptionForm):
    """A choice of a drop-down, in the gap it names by number."""

    gap = _numbered()
    rationale_help = (
        "Why it is (or is not) right in its gap.",
        "Why learners pick it.",
        "When it would be the right value.",
    )

    class Meta:
        model = Option
        fields = ["position", "text", "is_correct"]
        widgets = {"text": _text(1)}
        labels = {"text": "Choice"}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        gap = self.fields["gap"]
        gap.help_text = "[[1]] is the first gap below. A gap just added is listed by its number."
        self._number_field("gap", MAX_PARTS, _gap_label)
        named = self._named()
        if named is not None and self.instance.part_id is not None:
            self.initial.setdefault("gap", named.number_of(self.instance.part_id))

    def option_facts(self) -> OptionFacts:
        named = self._named()
        gap = named.kept_index(self.cleaned_data.get("gap")) if named is not None else None
        return OptionFacts(is_correct=bool(self.cleaned_data.get("is_correct")), gap=gap)

    def resolve(self) -> None:
        named = self._named()
        gap = named.row(self.cleaned_data.get("gap")) if named is not None else None
        self.instance.part = gap


def _gap_label(number: int, part: Model | None) -> str:
    label = quick_snippet(part.prompt, 60) if isinstance(part, Part) else ""
    return f"[[{number}]] {label}".strip()


def _answer_label(number: int, option: Model | None) -> str:
    text = quick_snippet(option.text, 60) if isinstance(option, Option) else ""
    return f"Answer {number}" + (f": {text}" if text else "")


PART_WIDGETS: dict[str, Any] = {"prompt": _text(), **{name: _text() for name in RATIONALE_FIELDS}}


class PartForm(RowForm):
    """A part (a prompt, statement, blank or gap) with its rationale, which is its own."""

    class Meta:
        model = Part
        fields = ["position", "prompt", *RATIONALE_FIELDS]
        widgets = PART_WIDGETS


class PromptForm(PartForm):
    """A matching's prompt, with the answer of the pool that fits it."""

    pool_answer = _numbered()

    class Meta(PartForm.Meta):
        labels = {"prompt": "Prompt"}
        help_texts = {
            "why": "Why this answer fits this prompt; required before publishing.",
            "tempting_because": "The usual wrong match, and why learners make it.",
            "right_when": "When another answer would fit.",
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["pool_answer"]
        field.label = "Matching answer"
        field.help_text = "The answer of the pool above, by its number; one just added too."
        self._number_field("pool_answer", MAX_POOL, _answer_label)
        named = self._named()
        if named is not None and self.instance.answer_id is not None:
            self.initial.setdefault("pool_answer", named.number_of(self.instance.answer_id))

    def part_facts(self) -> PartFacts:
        named = self._named()
        answer = named.kept_index(self.cleaned_data.get("pool_answer")) if named else None
        return PartFacts(answer=answer)

    def resolve(self) -> None:
        named = self._named()
        answer = named.row(self.cleaned_data.get("pool_answer")) if named is not None else None
        self.instance.answer = answer


class YesNoSelect(forms.NullBooleanSelect):
    """Yes or no, and "Choose…" for a statement not answered yet (Django says "Unknown",
    which reads like an answer)."""

    def __init__(self, attrs: dict[str, Any] | None = None) -> None:
        super().__init__(attrs)
        self.choices = [("unknown", "Choose…"), ("true", "Yes"), ("false", "No")]


class StatementForm(PartForm):
    """A statement of a yes/no series, with its answer."""

    class Meta(PartForm.Meta):
        fields = ["position", "prompt", "is_yes", *RATIONALE_FIELDS]
        widgets = {**PART_WIDGETS, "is_yes": YesNoSelect}
        labels = {"prompt": "Statement", "is_yes": "Answer"}
        help_texts = {
            "why": "Why the answer is yes (or no) in this scenario; required before publishing.",
            "tempting_because": "Why learners answer the other way.",
            "right_when": "When the other answer would be right.",
        }

    def part_facts(self) -> PartFacts:
        return PartFacts(is_yes=self.cleaned_data.get("is_yes"))


# "7 ± 0.1", "7 +- 0.1", "7 +/- 0.1" or "7": a right number and its tolerance.
_RANGE_SIGNS = ("±", "+/-", "+-")


class NumberRangesField(forms.Field):
    """Other right numbers, one a line as "7 ± 0.1" (or "7" for exactly 7), kept as the
    model's list of {"number": "7", "tolerance": "0.1"}."""

    widget = forms.Textarea(attrs={"rows": 2})

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, list):
            return "\n".join(
                f"{item.get('number')} ± {item.get('tolerance', '0')}"
                if item.get("tolerance", "0") not in ("0", "")
                else str(item.get("number"))
                for item in value
                if isinstance(item, dict)
            )
        return value

    def to_python(self, value: Any) -> list[dict[str, str]]:
        if isinstance(value, list):
            return value
        ranges = []
        lines = [line.strip() for line in str(value or "").splitlines() if line.strip()]
        for number, line in enumerate(lines, 1):
            text, tolerance = line, "0"
            for sign in _RANGE_SIGNS:
                if sign in line:
                    text, _, tolerance = line.partition(sign)
                    break
            text, tolerance = text.strip(), tolerance.strip()
            problem = number_problem(text) or number_problem(tolerance, "tolerance")
            if problem:
                raise forms.ValidationError(f"Line {number}: {problem}.", code="range")
            ranges.append({"number": _plain(text), "tolerance": _plain(tolerance)})
        if len(ranges) > MAX_MORE_NUMBERS:
            raise forms.ValidationError(f"At most {MAX_MORE_NUMBERS} other right numbers.")
        return ranges


def _plain(text: str) -> str:
    """A number as written plainly: "7.50" is "7.5", "1e2" is "100"."""
    value = Decimal(text).normalize()
    return format(value, "f")


class BlankForm(PartForm):
    """A fill-in blank: accepted texts with their case and space rules, or a number with its
    tolerance and units; feedback on common wrong answers."""

    tolerance = forms.DecimalField(
        max_digits=24,
        decimal_places=8,
        required=False,
        min_value=0,
        error_messages={"min_value": "The tolerance cannot be negative."},
        help_text="How far from the number an answer may be and still be right (0: exactly).",
    )
    more_numbers = NumberRangesField(
        label="Other right numbers",
        required=False,
        help_text="Number blanks: other numbers that are right too, one a line with its "
        "tolerance, e.g. “7 ± 0.1” (or “7” for exactly 7). An answer within any of them "
        "is right.",
    )

    class Meta(PartForm.Meta):
        fields = [
            "position", "prompt", "accepted", "match_case", "ignore_spaces", "wildcards",
            "number", "tolerance", "more_numbers", "units", "feedback", *RATIONALE_FIELDS,
        ]  # fmt: skip
        widgets = {**PART_WIDGETS, "accepted": _text(3), "feedback": _text(3)}
        labels = {"prompt": "Label"}
        help_texts = {
            "prompt": "What the blank asks for, shown beside it, e.g. “Region”.",
            "accepted": "Text blanks: one accepted answer per line.",
            "match_case": "Text blanks: an answer in other capitals is wrong.",
            "wildcards": "Text blanks: a * in an accepted answer stands for any run of "
            "characters (“colo*r” accepts “color” and “colour”); write \\* for a star itself.",
            "number": "Number blanks, instead of accepted texts: digits and a point, e.g. 2.5.",
            "units": "Number blanks: the units accepted after the number, comma-separated, "
            "e.g. “ms, milliseconds”.",
            "feedback": 'Optional: [{"answer": "us-east1", "feedback": "That region is in '
            'South Carolina."}] (JSON, double quotes).',
            "why": "Why this is the answer; required before publishing.",
            "tempting_because": "The usual wrong answer, and why learners give it.",
            "right_when": "When another answer would be right.",
        }
        error_messages = {
            "number": {"invalid": "The number must be a number: digits with a point for "
                       "decimals, e.g. 40 or 2.5."},
            "feedback": {"invalid": 'The feedback is not valid JSON: write a list of '
                         '{"answer": "...", "feedback": "..."} with double quotes.'},
        }  # fmt: skip

    def clean_tolerance(self) -> Decimal:
        return self.cleaned_data.get("tolerance") or Decimal(0)

    def clean_units(self) -> str:
        units: str = self.cleaned_data.get("units", "")
        if not units.strip():
            return ""
        listed = [unit.strip() for unit in units.split(",")]
        if ";" in units or not all(listed):
            raise forms.ValidationError(
                "Separate the units with commas, e.g. “ms, milliseconds”, with none empty."
            )
        if any(unit[0] in "+-.0123456789" for unit in listed):
            raise forms.ValidationError("A unit is a word after the number, not a number.")
        return ", ".join(listed)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if "number" in self.errors:
            return cleaned
        if cleaned.get("number") is None:
            if cleaned.get("tolerance"):
                self.add_error("tolerance", "A tolerance goes with a number.")
            if cleaned.get("more_numbers"):
                self.add_error("more_numbers", "Other right numbers go with a number.")
            if cleaned.get("units"):
                self.add_error("units", "Units go with a number.")
        else:
            if cleaned.get("wildcards"):
                self.add_error("wildcards", "Wildcards are for accepted texts, not a number.")
            units = [unit.strip() for unit in cleaned.get("units", "").split(",")]
            for item in cleaned.get("feedback") or []:
                answer = item.get("answer") if isinstance(item, dict) else None
                if isinstance(answer, str) and parse_number(answer, units) is None:
                    self.add_error(
                        "feedback",
                        f"A number blank's feedback is on wrong numbers: “{answer}” is not one.",
                    )
                    break
        return cleaned

    def part_facts(self) -> PartFacts:
        accepted = self.cleaned_data.get("accepted", "")
        return PartFacts(
            accepted=tuple(line.strip() for line in accepted.splitlines() if line.strip()),
            number=self.cleaned_data.get("number"),
            wildcards=bool(self.cleaned_data.get("wildcards")),
            more_numbers=len(self.cleaned_data.get("more_numbers") or []),
        )


class GapForm(BlankForm):
    """An exhibit's gap: [[n]] in the exhibit marks where the n-th gap goes. A drop-down with
    its choices (the choices' rows name it), or, without choices, a blank typed in place
    that accepts texts or a number as a fill-in's blank does."""

    class Meta(BlankForm.Meta):
        fields = [f for f in BlankForm.Meta.fields if f != "position"]
        labels = {"prompt": "Label"}
        help_texts = {
            **BlankForm.Meta.help_texts,
            "prompt": "What the gap sets, e.g. “Storage class”: screen readers name it so, "
            "and the result lists it.",
            "accepted": "A gap typed in (no choices name it): one accepted answer per line.",
            "number": "A gap typed in, instead of accepted texts: a number, e.g. 2.5.",
            "why": "Why its right choice is right here; required before publishing.",
            "tempting_because": "The usual wrong choice, and why learners make it.",
            "right_when": "When another choice would be right.",
        }


class RowFormSet(BaseInlineFormSet[Any, Question, Any]):
    """The rows of one list of a question (its options, or its parts)."""

    # The question's row formsets of this request (set by QuestionAdmin per request).
    item: ClassVar[ItemCheck | None] = None
    # Curators order the rows by position; otherwise they keep the order shown, new ones
    # last (steps and the pool are shuffled for learners; gaps are numbered as shown).
    by_position: ClassVar[bool] = True
    # A published question needs each row's rationale: the page shows it after an answer.
    rationale_required: ClassVar[bool] = True
    # The model of the rows this one's rows name by number (a prompt's answer, a choice's gap).
    names: ClassVar[type[Model] | None] = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.item is not None:
            self.item.formsets.append(self)
        self._new_position: int | None = None

    def get_form_kwargs(self, index: int | None) -> dict[str, Any]:
        return {**super().get_form_kwargs(index), "rows": self}

    def partner(self) -> "RowFormSet | None":
        """The formset of the rows these rows name by number."""
        if self.item is None or self.names is None:
            return None
        return self.item.rows_of(self.names)

    @cached_property
    def stored_rows(self) -> list[Model]:
        """The stored rows, in the order shown: the formset's own query, run once."""
        return list(self.get_queryset())

    def number_of(self, pk: int) -> int | None:
        """The number (1 the first) shown for the stored row `pk`."""
        return next((n for n, row in enumerate(self.stored_rows, 1) if row.pk == pk), None)

    def row(self, number: int | None) -> Model | None:
        """The row shown as `number`, as this save left it."""
        if number is None or not 1 <= number <= len(self.forms):
            return None
        return self.forms[number - 1].instance

    def kept(self) -> list[RowForm]:
        """The rows that stay, in their stored order once saved."""
        rows = [
            (index, form)
            for index, form in enumerate(self.forms)
            if form.cleaned_data and not (self.can_delete and form.cleaned_data.get("DELETE"))
        ]
        if self.by_position:
            # Stored rows sort by (position, id), and new rows get the highest ids.
            new = float("inf")
            rows.sort(
                key=lambda row: (
                    row[1].cleaned_data.get("position") or 0,
                    row[1].instance.pk or new,
                    row[0],
                )
            )
        return [form for _, form in rows]

    def kept_index(self, number: int | None) -> int | None:
        """Where the row shown as `number` comes among the rows kept (None: not kept)."""
        if number is None or not 1 <= number <= len(self.forms):
            return None
        form = self.forms[number - 1]
        return next((i for i, kept in enumerate(self.kept()) if kept is form), None)

    def clean(self) -> None:
        super().clean()
        if any(self.errors):
            return  # each row's own errors come first
        kept = self.kept()
        if self.rationale_required and self.instance.status == Status.PUBLISHED:
            for form in kept:
                if not form.cleaned_data.get("why", "").strip():
                    form.add_error("why", REQUIRED_BEFORE_PUBLISHING)
        if any(form.errors for form in kept) or self.item is None:
            return
        others = [formset for formset in self.item.formsets if formset is not self]
        if self is self.item.formsets[-1] and all(
            formset.is_bound and formset.is_valid() for formset in others
        ):
            self.item.check(self.instance)

    def is_valid(self) -> bool:
        # The item's problems concern all its rows; the admin shows them above the form.
        return super().is_valid() and not (self.item is not None and self.item.problems)

    def save_new(self, form: Any, commit: bool = True) -> Any:
        self._prepare(form)
        return super().save_new(form, commit=commit)

    def save_existing(self, form: Any, obj: Any, commit: bool = True) -> Any:
        self._prepare(form)
        return super().save_existing(form, obj, commit=commit)

    def _prepare(self, form: RowForm) -> None:
        form.resolve()
        if not self.by_position and form.instance.pk is None:
            if self._new_position is None:
                stored = [kept.instance.position for kept in self.kept() if kept.instance.pk]
                self._new_position = max(stored, default=-1) + 1
            form.instance.position = self._new_position
            self._new_position += 1


class ChoiceFormSet(RowFormSet):
    pass


class StepFormSet(RowFormSet):
    by_position = False


class PoolFormSet(RowFormSet):
    by_position = False
    rationale_required = False


class GapChoiceFormSet(RowFormSet):
    rationale_required = False  # the page shows the gap's rationale
    names = Part


class PromptFormSet(RowFormSet):
    names = Option


class StatementFormSet(RowFormSet):
    pass


class BlankFormSet(RowFormSet):
    pass


class GapFormSet(RowFormSet):
    by_position = False
