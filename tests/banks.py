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
