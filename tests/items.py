"""Questions of every item type, built in code for the tests: each published, with its parts'
rationales, and helpers to post a right (or a chosen) answer to it, with the served-at token
a signed-in learner's form carries."""

import re
from decimal import Decimal
from typing import Any, cast

from questions.grading import Response
from questions.models import CaseStudy, Kind, Option, Part, Question, Rationale, Scoring, Topic
from questions.pages.snapshot import QuestionPage, question_page
from tests.factories import QuestionFactory, TopicFactory


def _question(kind: str, topic: Topic | None = None, **fields: Any) -> Question:
    topic = topic or cast(Topic, TopicFactory())
    return cast(Question, QuestionFactory(kind=kind, topic=topic, options=[], **fields))


def _option(question: Question, position: int, text: str, **fields: Any) -> Option:
    option = Option.objects.create(question=question, position=position, text=text, **fields)
    Rationale.objects.create(
        option=option,
        why=f"Why {text} goes there.",
        tempting_because=f"Learners put {text} first.",
        right_when="When the order of the pipeline differs.",
    )
    return option


def _part(question: Question, position: int, **fields: Any) -> Part:
    fields.setdefault("why", f"Part {position + 1} is so because of the scenario.")
    fields.setdefault("tempting_because", "The other answer sounds familiar.")
    fields.setdefault("right_when", "When the scenario says otherwise.")
    return Part.objects.create(question=question, position=position, **fields)


def ordering(topic: Topic | None = None, steps: int = 4, extra: int = 0, **fields: Any) -> Question:
    """Steps "Step 1" to "Step N" that belong in that order, entered in it, and `extra`
    steps that do not belong."""
    question = _question(Kind.ORDERING, topic, **fields)
    for n in range(steps):
        _option(question, n, f"Step {n + 1}", order=n + 1)
    for n in range(extra):
        _option(question, steps + n, f"Distractor {n + 1}")
    return question


def matching(
    topic: Topic | None = None, prompts: int = 3, distractors: int = 1, **fields: Any
) -> Question:
    """Prompt n matches "Answer n"; the pool also holds distractors."""
    question = _question(Kind.MATCHING, topic, **fields)
    answers = [_option(question, n, f"Answer {n + 1}") for n in range(prompts)]
    for n in range(distractors):
        _option(question, prompts + n, f"Decoy {n + 1}")
    for n, answer in enumerate(answers):
        _part(question, n, prompt=f"Prompt {n + 1}", answer=answer)
    return question


def yes_no(
    topic: Topic | None = None, answers: tuple[bool, ...] = (True, False, True), **fields: Any
) -> Question:
    question = _question(Kind.YES_NO, topic, **fields)
    for n, is_yes in enumerate(answers):
        _part(question, n, prompt=f"Statement {n + 1}", is_yes=is_yes)
    return question


def fill_in(topic: Topic | None = None, **fields: Any) -> Question:
    """Blank 1 accepts "us-central1" or "Iowa"; blank 2 is 40 ± 2 ms."""
    question = _question(Kind.FILL_IN, topic, **fields)
    _part(
        question,
        0,
        prompt="Region",
        accepted="us-central1\nIowa",
        feedback=[{"answer": "us-east1", "feedback": "That region is in South Carolina."}],
    )
    _part(
        question,
        1,
        prompt="Latency",
        number=Decimal(40),
        tolerance=Decimal(2),
        units="ms, milliseconds",
        feedback=[{"answer": "400", "feedback": "That is ten times too slow."}],
    )
    return question


def dropdown(topic: Topic | None = None, gaps: int = 2, **fields: Any) -> Question:
    """An exhibit of `gaps` drop-downs (a code block, unless `exhibit=` gives another);
    "Right n" is gap n's right choice."""
    marks = "\n".join(f"setting_{n + 1}: [[{n + 1}]]" for n in range(gaps))
    fields.setdefault("exhibit", f"```\n{marks}\n```")
    question = _question(Kind.DROPDOWN, topic, **fields)
    for n in range(gaps):
        part = _part(question, n, prompt=f"Setting {n + 1}")
        _option(question, 2 * n, f"Wrong {n + 1}", part=part)
        _option(question, 2 * n + 1, f"Right {n + 1}", part=part, is_correct=True)
    return question


def mixed_dropdown(topic: Topic | None = None, **fields: Any) -> Question:
    """An exhibit whose gaps are of different kinds: [[1]] a drop-down ("Right 1" is right),
    [[2]] a text typed in ("us-central1" or "Iowa"), [[3]] a number (40 ± 2 ms)."""
    fields.setdefault("exhibit", "```\nstorage: [[1]]\nregion: [[2]]\nlatency: [[3]]\n```")
    question = _question(Kind.DROPDOWN, topic, **fields)
    part = _part(question, 0, prompt="Storage class")
    _option(question, 0, "Wrong 1", part=part)
    _option(question, 1, "Right 1", part=part, is_correct=True)
    _part(
        question,
        1,
        prompt="Region",
        accepted="us-central1\nIowa",
        feedback=[{"answer": "us-east1", "feedback": "That region is in South Carolina."}],
    )
    _part(question, 2, prompt="Latency", number=Decimal(40), tolerance=Decimal(2), units="ms")
    return question


# Long enough to scroll beside its question on a desktop, with a table wider than a phone.
SCENARIO = """Contoso runs a head office and three branch offices. Each branch reaches the
head office over a site-to-site VPN; the head office hosts the file servers and the
directory.

| Office | Users | Uplink | VPN peer address | Backup window |
|---|---|---|---|---|
| Head office | 400 | 1 Gbit/s fibre | 203.0.113.10 | 01:00-03:00 |
| Riverside | 60 | 100 Mbit/s cable | 198.51.100.20 | 02:00-04:00 |
| Harbour | 25 | 50 Mbit/s DSL | 192.0.2.30 | 02:30-04:30 |

The company plans to move its file servers to the cloud next year. Until then the branches
complain that opening large drawings takes minutes in the afternoon.

""" + "\n\n".join(
    f"Requirement {n}: the change must keep working when one office's link is down."
    for n in range(1, 9)
)


def case_study(
    topic: Topic | None = None,
    title: str = "Contoso's branch offices",
    questions: int = 0,
    slug: str = "",
    **fields: Any,
) -> CaseStudy:
    """A scenario of `topic`'s exam, with `questions` single-answer questions on it (give
    it to more with `case_study=`)."""
    topic = topic or cast(Topic, TopicFactory())
    slug = slug or f"contoso-{CaseStudy.objects.count() + 1}"
    case = CaseStudy.objects.create(exam=topic.exam, slug=slug, title=title, scenario=SCENARIO)
    for _ in range(questions):
        QuestionFactory(topic=topic, case_study=case, **fields)
    return case


def every_type(topic: Topic | None = None) -> list[Question]:
    topic = topic or cast(Topic, TopicFactory())
    return [
        ordering(topic),
        ordering(topic, steps=3, extra=2, scoring=Scoring.PARTIAL),
        matching(topic),
        yes_no(topic),
        fill_in(topic),
        dropdown(topic),
    ]


def right_post(page: QuestionPage) -> dict[str, Any]:
    """The form fields of the right answer to `page`."""
    if page.is_choice:
        keys = [option.key for option in page.options if option.is_correct]
        return {"choice": keys if page.is_multiple else keys[0]}
    if page.kind == Kind.ORDERING:
        return {f"place-{o.key}": str(o.order) for o in page.options if o.order is not None}
    data = {}
    for part in page.parts:
        if page.kind == Kind.DROPDOWN and not part.choice_views:
            data[f"gap-{part.key}"] = (
                str(part.answer.number) if part.is_numeric else part.answer.accepted[0]
            )
        elif page.kind == Kind.FILL_IN:
            data[f"blank-{part.key}"] = (
                str(part.answer.number) if part.is_numeric else part.answer.accepted[0]
            )
        else:
            prefix = {"matching": "match-", "yesno": "yesno-", "dropdown": "gap-"}[page.kind]
            data[prefix + part.key] = part.answer.answer
    return data


def right_response(page: QuestionPage) -> Response:
    """The right answer to `page` as it is graded and stored (a mock item's keys)."""
    if page.is_choice:
        return Response(choices=tuple(sorted(o.key for o in page.options if o.is_correct)))
    fields = right_post(page).items()
    return Response(values=tuple((name.split("-", 1)[1], value) for name, value in fields))


def page_of(question: Question) -> QuestionPage:
    page = question_page(question.uid)
    assert page is not None
    return page


def served_form(client, question) -> dict[str, str]:
    text = client.get(question.get_absolute_url()).text
    token = re.search(r'name="served" value="([^"]+)"', text)
    assert token, "a signed-in learner's form carries the served-at token"
    return {"served": token.group(1)}
