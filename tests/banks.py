"""Bank documents built in code for the import, export and admin tests."""

import copy
import json
from pathlib import Path
from typing import Any

# The spec's sample lives in ../shared beside a checkout; a copy ships in tests/data for clones
# without it.
SHARED_SAMPLE = (
    Path(__file__).resolve().parents[2] / "shared" / "spec" / "examples" / "sample-bank.json"
)
SAMPLE_BANK = (
    SHARED_SAMPLE if SHARED_SAMPLE.exists() else Path(__file__).parent / "data" / "sample-bank.json"
)
DEMO_BANK = Path(__file__).resolve().parents[1] / "questions" / "demo" / "demo-bank.json"


def sample_bank() -> dict[str, Any]:
    return json.loads(SAMPLE_BANK.read_text(encoding="utf-8"))


def make_question(uid: str, topic: str, kind: str = "single", **extra: Any) -> dict[str, Any]:
    corrects = [True, False, False, False] if kind == "single" else [True, True, False, False]
    question: dict[str, Any] = {
        "uid": uid,
        "topic": topic,
        "kind": kind,
        "stem": f"Stem of {uid}: which option is right?",
        "explanation": f"Explanation of {uid}.",
        "status": "published",
        "options": [
            {
                "text": f"Option {letter} of {uid}",
                "correct": correct,
                "rationale": f"Why option {letter} of {uid} is {'right' if correct else 'wrong'}.",
                "tempting_because": f"Option {letter} looks familiar.",
            }
            for letter, correct in zip("ABCD", corrects, strict=True)
        ],
    }
    question.update(extra)
    return question


def make_bank(
    questions: int = 10, slug: str = "generated-exam", prefix: str = "gen"
) -> dict[str, Any]:
    """A valid bank of one exam with two topics and `questions` questions, each linked to the
    one before it."""
    items = []
    for n in range(questions):
        topic = "topic-a" if n % 2 == 0 else "topic-b"
        kind = "multiple" if n % 5 == 4 else "single"
        extra: dict[str, Any] = {"tags": ["generated"], "difficulty": "easy"}
        if n:
            extra["related"] = [f"{prefix}-{n - 1:05d}"]
        items.append(make_question(f"{prefix}-{n:05d}", topic, kind, **extra))
    return {
        "format": "courseiva-bank",
        "version": 1,
        "exams": [
            {
                "slug": slug,
                "code": "GEN",
                "title": "Generated exam",
                "mock_exam": {"question_count": 10, "duration_minutes": 20, "pass_percent": 70},
                "topics": [
                    {"slug": "topic-a", "title": "Topic A", "weight": 60},
                    {"slug": "topic-b", "title": "Topic B", "weight": 40},
                ],
                "questions": items,
            }
        ],
    }


def write(tmp_path: Path, document: Any, name: str = "bank.json") -> Path:
    path = tmp_path / name
    text = document if isinstance(document, str) else json.dumps(document)
    path.write_text(text, encoding="utf-8")
    return path


def clone(document: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(document)


def _why(name: str) -> dict[str, str]:
    return {
        "rationale": f"Why {name} is so.",
        "tempting_because": f"Learners get {name} wrong this way.",
        "right_when": f"When {name} would be otherwise.",
    }


def item_questions(prefix: str = "item", topic: str = "topic-a") -> list[dict[str, Any]]:
    """One question of each type beyond choice, in version 2 of the format, every part with
    its rationale; the second ordering chooses 3 of 5 steps with partial credit, the
    matching's pool has a distractor, and two questions share the case study "acme"."""

    def question(n: int, kind: str, **fields: Any) -> dict[str, Any]:
        return {
            "uid": f"{prefix}-{n:02d}",
            "topic": topic,
            "kind": kind,
            "stem": f"Stem of the {kind} question {n}.",
            "explanation": f"Explanation of the {kind} question {n}.",
            "status": "published",
            **fields,
        }

    def steps() -> list[dict[str, Any]]:
        return [{"text": f"Step {n}", "place": n, **_why(f"step {n}")} for n in (1, 2, 3)]

    first, second, third = steps()
    return [
        question(1, "ordering", steps=steps(), case_study="acme"),
        question(
            2,
            "ordering",
            scoring="partial",
            steps=[
                third,
                {"text": "A step that does not belong", **_why("the decoy step")},
                first,
                {"text": "Another stray step", **_why("the other decoy")},
                second,
            ],
        ),
        question(
            3,
            "matching",
            case_study="acme",
            pool=[
                {"text": "Answer A", "rationale": "A fits prompt 2."},
                {"text": "Answer B"},
                {"text": "A distractor", "rationale": "It fits no prompt."},
            ],
            prompts=[
                {"text": "Prompt 1", "answer": 2, **_why("prompt 1")},
                {"text": "Prompt 2", "answer": 1, **_why("prompt 2")},
            ],
        ),
        question(
            4,
            "yesno",
            scoring="partial",
            statements=[
                {"text": "Statement 1", "answer": "yes", **_why("statement 1")},
                {"text": "Statement 2", "answer": "no", **_why("statement 2")},
            ],
        ),
        question(
            5,
            "fillin",
            blanks=[
                {
                    "label": "Region",
                    "accepted": ["us-central1", "Iowa"],
                    "match_case": True,
                    "ignore_spaces": True,
                    "feedback": [{"answer": "us-east1", "feedback": "That is South Carolina."}],
                    **_why("the region"),
                },
                {
                    "label": "Latency",
                    "number": 40,
                    "tolerance": 2.5,
                    "units": ["ms", "milliseconds"],
                    "feedback": [{"answer": "400 ms", "feedback": "Ten times too slow."}],
                    **_why("the latency"),
                },
            ],
        ),
        question(
            6,
            "dropdown",
            exhibit="```\nnetwork [[1]] area [[2]]\n```",
            gaps=[
                {
                    "label": "Network",
                    "choices": [
                        {"text": "10.0.0.0 0.0.0.255", "correct": True, **_why("the mask")},
                        {"text": "10.0.0.0 255.255.255.0", "correct": False, **_why("a mask")},
                    ],
                    **_why("gap 1"),
                },
                {
                    "label": "Area",
                    "choices": [
                        {"text": "0", "correct": True, "rationale": "The backbone."},
                        {"text": "1", "correct": False, "rationale": "Not the backbone."},
                        {"text": "51", "correct": False, "rationale": "No such area here."},
                    ],
                    **_why("gap 2"),
                },
            ],
        ),
    ]


def item_bank(prefix: str = "item") -> dict[str, Any]:
    """A version-2 bank: make_bank's exam with a case study and a question of each type."""
    bank = make_bank(2, prefix=f"{prefix}-choice")
    bank["version"] = 2
    exam = bank["exams"][0]
    exam["case_studies"] = [
        {"slug": "acme", "title": "Acme Corp", "scenario": "Acme runs **three** sites."}
    ]
    exam["questions"].extend(item_questions(prefix))
    return bank


def mixed_gaps_question(uid: str = "item-07", topic: str = "topic-a") -> dict[str, Any]:
    """A drop-down exhibit whose gaps are of different kinds: a drop-down, a text typed in
    and a number typed in (what a Moodle cloze or a QTI item of several interactions is)."""
    return {
        "uid": uid,
        "topic": topic,
        "kind": "dropdown",
        "scoring": "partial",
        "stem": "Complete the configuration.",
        "explanation": "Explanation of the mixed exhibit.",
        "status": "published",
        "exhibit": "```\nstorage: [[1]]\nregion: [[2]]\nlatency: [[3]]\n```",
        "gaps": [
            {
                "label": "Storage class",
                "choices": [
                    {"text": "ARCHIVE", "correct": True, **_why("archive")},
                    {"text": "STANDARD", "correct": False, **_why("standard")},
                ],
                **_why("the storage class"),
            },
            {
                "label": "Region",
                "accepted": ["us-central1", "Iowa"],
                "ignore_spaces": True,
                "feedback": [{"answer": "us-east1", "feedback": "That is South Carolina."}],
                **_why("the region"),
            },
            {
                "label": "Latency",
                "number": 40,
                "tolerance": 2.5,
                "units": ["ms"],
                **_why("the latency"),
            },
        ],
    }


def mixed_bank() -> dict[str, Any]:
    """item_bank with a mixed exhibit (mixed_gaps_question) after its other questions."""
    bank = item_bank()
    bank["exams"][0]["questions"].append(mixed_gaps_question())
    return bank
