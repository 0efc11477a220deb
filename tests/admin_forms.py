"""The admin's forms as a curator's browser posts them, for the tests of curation: the
question and exam change forms built from scratch, and the add page's question form read
back from the page, filled in and posted."""

import re
from html.parser import HTMLParser

from django.urls import reverse

from questions.models import Option, Part, Question, Rationale

ADD = reverse("admin:questions_question_add")


class _FormReader(HTMLParser):
    """The fields of the page's question form as a browser would post them untouched."""

    def __init__(self) -> None:
        super().__init__()
        self.data: dict[str, list[str]] = {}
        self._in_form = False
        self._select: str | None = None
        self._select_options: list[tuple[str, bool]] = []
        self._textarea: str | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {key: value or "" for key, value in attrs}
        if tag == "form" and a.get("id") == "question_form":
            self._in_form = True
        if not self._in_form or "__prefix__" in a.get("name", "__prefix__"):
            if tag == "option" and self._select is not None:
                self._select_options.append((a.get("value", ""), "selected" in a))
            return
        name = a["name"]
        if tag == "input":
            kind = a.get("type", "text")
            if kind in ("checkbox", "radio") and "checked" not in a:
                return
            if kind in ("file", "submit", "button"):
                return
            default = "on" if kind in ("checkbox", "radio") else ""
            self.data.setdefault(name, []).append(a.get("value", default))
        elif tag == "select":
            self._select, self._select_options = name, []
        elif tag == "textarea":
            self._textarea, self._text = name, []

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._in_form = False
        elif tag == "select" and self._select is not None:
            chosen = [value for value, selected in self._select_options if selected]
            if not chosen and self._select_options:
                chosen = [self._select_options[0][0]]
            self.data[self._select] = chosen
            self._select = None
        elif tag == "textarea" and self._textarea is not None:
            self.data[self._textarea] = ["".join(self._text).removeprefix("\n")]
            self._textarea = None

    def handle_data(self, data: str) -> None:
        if self._textarea is not None:
            self._text.append(data)


def form_of(response) -> dict[str, object]:
    assert response.status_code == 200, response.status_code
    reader = _FormReader()
    reader.feed(response.text)
    return {name: values[0] if len(values) == 1 else values for name, values in reader.data.items()}


def form_of_case_study(curator, url: str) -> dict[str, object]:
    text = curator.get(url).text
    reader = _FormReader()
    reader.feed(text.replace('id="casestudy_form"', 'id="question_form"'))
    return {name: values[0] for name, values in reader.data.items()}


def fill(data: dict[str, object], **fields: object) -> dict[str, object]:
    """Type into the form: a value, True to tick a box, False to untick it."""
    for name, value in fields.items():
        name = name.replace("__", "-")
        if value is False:
            data.pop(name, None)
        else:
            data[name] = "on" if value is True else value
    return data


def add_form(curator, kind: str, topic, **fields: object) -> dict[str, object]:
    data = form_of(curator.get(ADD, {"kind": kind}))
    return fill(
        data,
        uid=f"{kind}-0001",
        topic=str(topic.pk),
        status="published",
        stem="The scenario asks for this.",
        explanation="Because the scenario says so.",
        **fields,
    )


def add(curator, kind: str, data: dict[str, object]):
    return curator.post(f"{ADD}?kind={kind}", data)


def every_error(response) -> list[str]:
    """Each error list of the page, after the name of the field it belongs to (which follows
    it) or "-" at the top."""
    text = response.content.decode()
    found = []
    for match in re.finditer(r'<ul class="errorlist([^"]*)"[^>]*>(.*?)</ul>', text, re.S):
        names = re.findall(r' name="(?!initial-)([^"]+)"', text[match.end() : match.end() + 3000])
        field = "-" if "nonfield" in match.group(1) or not names else names[0]
        found.append(f"{field}: {match.group(2).strip()}")
    return found


def rows(prefix: str, *filled: dict[str, object]) -> dict[str, object]:
    """Rows of an inline, as a curator types them into its blank forms (and more, as the
    "Add another" link gives)."""
    data: dict[str, object] = {f"{prefix}-TOTAL_FORMS": str(len(filled))}
    for n, row in enumerate(filled):
        for name, value in row.items():
            if value is True:
                value = "on"
            if value is not False:
                data[f"{prefix}-{n}-{name}"] = value
    return data


def with_rows(data: dict[str, object], prefix: str, *filled: dict[str, object]) -> dict:
    """`data` with the inline's rows replaced by `filled` (its other blank rows dropped)."""
    for name in [name for name in data if re.fullmatch(rf"{prefix}-\d+-.*", name)]:
        del data[name]
    data.update(rows(prefix, *filled))
    return data


def why(text: str) -> dict[str, str]:
    return {"why": f"Because {text}.", "tempting_because": "It sounds right.", "right_when": ""}


def row_counts() -> tuple[int, ...]:
    return tuple(model.objects.count() for model in (Question, Option, Part, Rationale))


def question_post(question=None, *, topic, options, related=(), **fields) -> dict:
    """The admin change form's POST: the question's fields, its options with their rationales
    and its related questions. `options` items: dicts with text/correct/why and optional id."""
    data = {
        "uid": "new-0001",
        "topic": topic.pk,
        "kind": "single",
        "status": "draft",
        "stem": "Which protocol resolves names to addresses?",
        "trap": "",
        "explanation": "DNS maps names to addresses.",
        "difficulty": "easy",
        "author": "",
        "reviewed_on": "",
        "tags": "[]",
        "references": "[]",
        "position": "0",
        "options-TOTAL_FORMS": str(len(options)),
        "options-INITIAL_FORMS": str(sum(1 for o in options if o.get("id"))),
        "options-MIN_NUM_FORMS": "2",
        "options-MAX_NUM_FORMS": "8",
        "related_links-TOTAL_FORMS": str(len(related)),
        "related_links-INITIAL_FORMS": "0",
        "related_links-MIN_NUM_FORMS": "0",
        "related_links-MAX_NUM_FORMS": "1000",
    }
    data.update(fields)
    for n, option in enumerate(options):
        prefix = f"options-{n}-"
        data[prefix + "id"] = option.get("id", "")
        data[prefix + "question"] = question.pk if question else ""
        data[prefix + "position"] = str(n)
        data[prefix + "text"] = option["text"]
        if option.get("correct"):
            data[prefix + "is_correct"] = "on"
        data[prefix + "why"] = option.get("why", "")
        data[prefix + "tempting_because"] = option.get("tempting_because", "")
        data[prefix + "right_when"] = option.get("right_when", "")
        if option.get("delete"):
            data[prefix + "DELETE"] = "on"
    for n, target in enumerate(related):
        data[f"related_links-{n}-from_question"] = question.pk if question else ""
        data[f"related_links-{n}-position"] = str(n)
        data[f"related_links-{n}-to_question"] = target.pk
    return data


def exam_post(exam, topics) -> dict:
    data = {
        "slug": exam.slug,
        "code": exam.code,
        "title": exam.title,
        "vendor": exam.vendor,
        "description": "",
        "position": "0",
        "mock_question_count": "20",
        "mock_duration_minutes": "30",
        "mock_pass_percent": "70",
        "topics-TOTAL_FORMS": str(len(topics)),
        "topics-INITIAL_FORMS": str(sum(1 for t in topics if t.get("id"))),
        "topics-MIN_NUM_FORMS": "0",
        "topics-MAX_NUM_FORMS": "1000",
        "mock_sections-TOTAL_FORMS": "0",
        "mock_sections-INITIAL_FORMS": "0",
        "mock_sections-MIN_NUM_FORMS": "0",
        "mock_sections-MAX_NUM_FORMS": "1000",
    }
    for n, topic in enumerate(topics):
        for name in ("id", "slug", "title", "weight", "description", "position"):
            data[f"topics-{n}-{name}"] = topic.get(name, "")
        data[f"topics-{n}-exam"] = exam.pk
    return data
