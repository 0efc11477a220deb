import time
from typing import Any

from django import forms
from django.http import QueryDict
from django.utils.safestring import SafeString

from questions.pages.forms import PartInput, exhibit_rows, part_inputs, read_parts
from questions.pages.snapshot import QuestionPage


class MockAnswerForm(forms.Form):
    """Saves the answer to one question of a sitting: its option keys (none clears it), or
    for an ordering or a question of parts what was given of it (a part left blank stays
    blank, as in the real exam), the flag, and where to go next."""

    flagged = forms.BooleanField(required=False)
    go = forms.CharField(required=False, max_length=20)

    def __init__(
        self,
        page: QuestionPage,
        item_count: int,
        data: Any = None,
        saved: dict[str, str] | None = None,
    ) -> None:
        super().__init__(data)
        self.page, self.item_count = page, item_count
        self.posted = data.getlist("choice") if data is not None else []
        self.saved = saved
        self._inputs: list[PartInput] | None = None

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.page.is_choice:
            keys = self.page.option_keys
            if any(key not in keys for key in self.posted):
                raise forms.ValidationError("That answer is not one of this question's options.")
            if not self.page.is_multiple and len(self.posted) > 1:
                raise forms.ValidationError("This question takes one answer: choose one option.")
            data["chosen"] = list(dict.fromkeys(self.posted))
        else:
            assert isinstance(self.data, QueryDict)
            response, self._inputs, problems = read_parts(self.page, self.data, require_all=False)
            problems += [f"Part {item.number}: {item.error}" for item in self.inputs if item.error]
            if problems:
                raise forms.ValidationError(problems)
            data["chosen"] = response.keys()
        go = data.get("go") or "next"
        if go not in {"next", "prev", "review"} and not (
            go.isdigit() and 1 <= int(go) <= self.item_count
        ):
            raise forms.ValidationError("Unknown destination.")
        data["go"] = go
        data["seq"] = self._seq()
        return data

    def _seq(self) -> int:
        """The save's place in the order of this answer's saves (MockItem.answer_seq): the
        page sends it; a plain post has none and takes the server's clock."""
        raw = self.data.get("seq") if self.data is not None else None
        if not raw:
            return int(time.time() * 1000)
        if not (raw.isascii() and raw.isdigit() and len(raw) < 19 and int(raw) > 0):
            raise forms.ValidationError("That save's number is not a whole number from 1 up.")
        return int(raw)

    @property
    def inputs(self) -> list[PartInput]:
        if self._inputs is None:
            self._inputs = [] if self.page.is_choice else part_inputs(self.page, self.saved)
        return self._inputs

    @property
    def exhibit(self) -> list[tuple[SafeString, PartInput | None]]:
        return exhibit_rows(self.page, self.inputs)
