"""The Professional Machine Learning Engineer bank keeps the promises docs/pmle.md makes:
Google's sections and weights, enough original questions in proportion, mostly choice questions
with a few of the other types and a case study, every rationale part, Google Cloud references,
no retired product names, questions on Vertex Explainable AI saying it is going, no length cue,
a clean import, every question taking its right answer, and no open flag of the bank lint."""

import json
import re
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest
from django.core.management import call_command

from questions.bank.document_import import import_document
from questions.bank.formats.courseiva import read_document
from questions.lint.bank import bank_flags
from questions.models import Exam, Question
from tests import items

PMLE_BANK = Path(__file__).resolve().parents[1] / "questions" / "demo" / "pmle-bank.json"
GUIDE_URL = "https://cloud.google.com/learn/certification/guides/machine-learning-engineer"
REVIEWED_ON = date(2026, 12, 4)

# The six sections of Google's exam guide and their weights (percent of the exam).
SECTIONS = {
    "low-code-ai": ("Architecting low-code AI solutions", 13),
    "data-and-models": ("Collaborating within and across teams to manage data and models", 14),
    "scaling-prototypes": ("Scaling prototypes into ML models", 18),
    "serving-and-scaling": ("Serving and scaling models", 20),
    "pipelines-automation": ("Automating and orchestrating ML pipelines", 22),
    "monitoring-ai": ("Monitoring AI solutions", 13),
}
# A section's share of the questions may differ from its weight by this many points: with
# 150 to 200 questions one question is 0.5 to 0.7 points, so this allows three or four
# questions either way without letting a section drift away from the blueprint.
SHARE_TOLERANCE = 2.0

# Names that no longer name a current product. Retired: AI Platform (now the platform formerly
# called Vertex AI), Cloud ML Engine, AutoML Tables, the Data Labeling Service. Renamed: Vertex
# AI (Gemini Enterprise Agent Platform since April 2026), Dataproc Serverless (Serverless for
# Apache Spark), Cloud Functions (Cloud Run functions), TensorFlow Lite (LiteRT), Cloud DLP
# (Sensitive Data Protection). A sentence may name them only to say so.
OLD_NAMES = [
    r"\bAI Platform\b",
    r"\bCloud ML Engine\b",
    r"\bAutoML Tables\b",
    r"\bData Labeling Service\b",
    r"\bVertex AI\b",
    r"\bDataproc Serverless\b",
    r"\bCloud Functions\b",
    r"\bTensorFlow Lite\b",
    r"\bCloud DLP\b",
]
SAYS_OLD = re.compile(r"formerly|renamed|retired|was called|became|previous name|older", re.I)

# Vertex Explainable AI (so named still) is deprecated since March 16, 2026 and unavailable from
# March 16, 2027. A question that names it, its explanation spec or explain method, or cites
# its pages must cite the deprecation page and give the date it goes.
EXPLAINABLE_AI = re.compile(r"Explainable AI|explanation spec|explain method", re.I)
DEPRECATIONS_URL = "https://docs.cloud.google.com/vertex-ai/docs/deprecations"
EXPLAINABLE_AI_GOES = "March 16, 2027"


def bank() -> dict[str, Any]:
    return json.loads(PMLE_BANK.read_text(encoding="utf-8"))


def exam() -> dict[str, Any]:
    exams = bank()["exams"]
    assert len(exams) == 1
    return exams[0]


def questions() -> list[dict[str, Any]]:
    return exam()["questions"]


CHOICE_KINDS = {"single", "multiple"}
OTHER_KINDS = {"ordering", "matching", "yesno", "fillin", "dropdown"}


def parts_of(question: dict[str, Any]) -> list[dict[str, Any]]:
    """What carries the three rationale parts: options, steps, prompts, statements, blanks,
    gaps and each gap's choices (a matching's pool answers are explained by its prompts)."""
    names = ("options", "steps", "prompts", "statements", "blanks", "gaps")
    found = [element for name in names for element in question.get(name, [])]
    return found + [choice for gap in question.get("gaps", []) for choice in gap["choices"]]


def texts(question: dict[str, Any]) -> list[str]:
    found = [question["stem"], question.get("exhibit", ""), question.get("trap", "")]
    found += [question["explanation"]]
    found += [reference["title"] for reference in question["references"]]
    for part in parts_of(question) + question.get("pool", []):
        found += [part.get(name, "") for name in ("text", "label", "rationale")]
        found += [part.get("tempting_because", ""), part.get("right_when", "")]
        found += [feedback["feedback"] for feedback in part.get("feedback", [])]
    return found


def test_the_exam_is_the_real_one_with_googles_sections_and_weights() -> None:
    data = exam()
    assert (data["slug"], data["code"], data["vendor"]) == ("gcp-pmle", "PMLE", "Google Cloud")
    assert data["title"] == "Google Cloud Professional Machine Learning Engineer"
    topics = {topic["slug"]: (topic["title"], topic["weight"]) for topic in data["topics"]}
    assert topics == SECTIONS
    assert GUIDE_URL in data["description"]


def test_the_mock_has_the_real_shape_and_the_pass_mark_is_called_an_estimate() -> None:
    data = exam()
    mock = data["mock_exam"]
    assert 50 <= mock["question_count"] <= 60
    assert mock["duration_minutes"] == 120
    assert f"{mock['pass_percent']} %" in data["description"]
    assert "our estimate" in data["description"]
    assert "publishes no passing score" in data["description"]


def test_there_are_enough_questions_in_proportion_to_the_weights() -> None:
    found = questions()
    assert len(found) >= 150
    assert [q["uid"] for q in found] == [f"pmle-{n:04d}" for n in range(1, len(found) + 1)]
    for slug, (_, weight) in SECTIONS.items():
        count = sum(1 for q in found if q["topic"] == slug)
        assert count >= 5, slug
        share = 100 * count / len(found)
        assert abs(share - weight) <= SHARE_TOLERANCE, f"{slug}: {share:.1f} % for {weight} %"


def test_most_questions_are_single_or_multiple_choice_as_on_the_real_exam() -> None:
    kinds = [q["kind"] for q in questions()]
    assert set(kinds) == CHOICE_KINDS | OTHER_KINDS
    assert kinds.count("single") > kinds.count("multiple")
    # The other types practise the same tasks differently; they stay a small share.
    assert sum(kinds.count(kind) for kind in OTHER_KINDS) <= 0.1 * len(kinds)


def test_the_case_study_shows_its_scenario_beside_its_questions() -> None:
    (case,) = exam()["case_studies"]
    assert bank()["version"] == 2
    assert (case["slug"], case["title"]) == ("larkspur-mobility", "Larkspur Mobility")
    assert "europe-west4" in case["scenario"]
    on_it = [q for q in questions() if q.get("case_study") == case["slug"]]
    assert [q["uid"] for q in on_it] == ["pmle-0170", "pmle-0171", "pmle-0172"]
    assert {q["kind"] for q in on_it} == {"single", "yesno", "multiple"}
    assert all("case_study" not in q for q in questions() if q not in on_it)


def test_every_question_is_complete_and_published_under_the_editorial_byline() -> None:
    found = questions()
    with_trap = [q for q in found if q.get("trap", "").strip()]
    assert len(with_trap) >= 0.8 * len(found)
    for q in found:
        where = q["uid"]
        assert q["explanation"].strip(), where
        assert q["difficulty"] in {"easy", "medium", "hard"}, where
        assert q["reviewed_on"] == REVIEWED_ON.isoformat(), where
        assert q["status"] == "published", where
        assert q["author"] == "Courseiva editorial team", where
        assert parts_of(q), where
        for element in parts_of(q):
            name = element.get("text") or element["label"]
            for part in ("rationale", "tempting_because", "right_when"):
                assert element[part].strip(), f"{where}: {name[:40]} has no {part}"


def test_every_question_cites_google_cloud_or_google_developers_documentation() -> None:
    for q in questions():
        hosts = {urlparse(reference["url"]).hostname for reference in q["references"]}
        assert all(reference["url"].startswith("https://") for reference in q["references"])
        assert any(
            host == "cloud.google.com"
            or host.endswith(".cloud.google.com")
            or host == "developers.google.com"
            for host in hosts
            if host
        ), q["uid"]


def test_no_retired_or_renamed_product_is_named_as_current() -> None:
    problems = []
    sentences = [exam()["description"]]
    for q in questions():
        sentences += texts(q)
    for text in sentences:
        for sentence in re.split(r"(?<=[.!?])\s+", text):
            for name in OLD_NAMES:
                if re.search(name, sentence) and not SAYS_OLD.search(sentence):
                    problems.append(f"{name}: {sentence[:100]}")
    assert problems == []


def test_a_question_on_vertex_explainable_ai_says_it_is_going() -> None:
    on_it = []
    for q in questions():
        urls = [reference["url"] for reference in q["references"]]
        cites_it = any("/explainable-ai/" in url for url in urls)
        if not cites_it and not any(EXPLAINABLE_AI.search(text) for text in texts(q)):
            continue
        on_it.append(q["uid"])
        assert DEPRECATIONS_URL in urls, q["uid"]
        assert EXPLAINABLE_AI_GOES in " ".join(texts(q)), q["uid"]
    # The bank tests explainability (section 6 of the guide), so some questions are on it.
    assert len(on_it) >= 5, on_it


def test_the_correct_option_is_not_the_longest_more_often_than_chance() -> None:
    longest = 0
    chance = 0.0
    for q in questions():
        if q["kind"] not in CHOICE_KINDS:
            continue
        options = q["options"]
        lengths = [len(option["text"]) for option in options]
        top = max(lengths)
        winners = [option for option in options if len(option["text"]) == top]
        if len(winners) == 1 and winners[0]["correct"]:
            longest += 1
            others = sorted(lengths)[-2]
            # A correct option half as long again as every other option is the classic cue.
            assert top < 1.5 * others, q["uid"]
        chance += sum(option["correct"] for option in options) / len(options)
    assert longest <= chance


def test_the_correct_option_is_spread_over_the_positions() -> None:
    positions: dict[int, int] = {}
    singles = [q for q in questions() if q["kind"] == "single"]
    for q in singles:
        place = next(i for i, option in enumerate(q["options"]) if option["correct"])
        positions[place] = positions.get(place, 0) + 1
    for place in range(4):
        assert positions.get(place, 0) >= 0.15 * len(singles), positions


def test_the_related_questions_exist() -> None:
    uids = {q["uid"] for q in questions()}
    for q in questions():
        assert set(q.get("related", [])) <= uids - {q["uid"]}, q["uid"]


@pytest.mark.django_db
def test_the_bank_imports(capsys: pytest.CaptureFixture[str]) -> None:
    call_command("import_bank", str(PMLE_BANK))
    assert f"Questions: {len(questions())} created" in capsys.readouterr().out
    imported = Exam.objects.get(slug="gcp-pmle")
    assert imported.mock_question_count == exam()["mock_exam"]["question_count"]
    assert [t.slug for t in imported.topics.all()] == list(SECTIONS)
    assert Question.objects.filter(topic__exam=imported, status="published").count() == len(
        questions()
    )


@pytest.mark.django_db
def test_every_question_takes_its_right_answer_on_its_page(client, settings) -> None:
    settings.DEBUG = False
    import_document(read_document(PMLE_BANK))
    published = Question.objects.published().filter(topic__exam__slug="gcp-pmle")
    assert published.count() == len(questions())
    for question in published:
        page = items.page_of(question)
        response = client.post(question.get_absolute_url(), items.right_post(page))
        assert response.status_code == 200, question.uid
        assert "✓</span> Correct" in response.text, question.uid


@pytest.mark.django_db
def test_the_bank_lint_finds_no_open_flag() -> None:
    import_document(read_document(PMLE_BANK))
    # Linted as of the review date: this checks the questions' writing; whether the review has
    # gone stale is for the command to say on the day it runs.
    flags = bank_flags([Exam.objects.get(slug="gcp-pmle")], today=REVIEWED_ON)
    assert [f"{flag.uid} {flag.code}: {flag.reason}" for flag in flags if not flag.accepted] == []
