from typing import Any

from django import forms

from questions.pages.snapshot import QuestionPage


class MockAnswerForm(forms.Form):
    """Saves the answer to one question of a sitting: its option keys (none clears it), the
    flag, and where to go next."""

    flagged = forms.BooleanField(required=False)
    go = forms.CharField(required=False, max_length=20)

    def __init__(self, page: QuestionPage, item_count: int, data: Any = None) -> None:
        super().__init__(data)
        self.page, self.item_count = page, item_count
        self.posted = data.getlist("choice") if data is not None else []

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        keys = self.page.option_keys
        if any(key not in keys for key in self.posted):
            raise forms.ValidationError("That answer is not one of this question's options.")
        if not self.page.is_multiple and len(self.posted) > 1:
            raise forms.ValidationError("This question takes one answer: choose one option.")
        go = data.get("go") or "next"
        if go not in {"next", "prev", "review"} and not (
            go.isdigit() and 1 <= int(go) <= self.item_count
        ):
            raise forms.ValidationError("Unknown destination.")
        data["go"] = go
        data["chosen"] = list(dict.fromkeys(self.posted))
        return data
