"""What a page may not show of a question before the learner has answered it: its
explanation, its options' rationales, and the words that would mark an option right."""

from questions.models import Question


def secrets_of(question: Question) -> list[str]:
    """Everything that must stay hidden until an answer: explanation, rationales, and words
    that would mark an option correct."""
    hidden = [question.explanation, "correct", "is_correct", "rationale", "missed"]
    for option in question.options.select_related("rationale"):
        hidden += [
            option.rationale.why,
            option.rationale.tempting_because,
            option.rationale.right_when,
        ]
    return [text for text in hidden if text]


def assert_nothing_revealed(response, question: Question) -> None:
    text = response.content.decode()
    for secret in secrets_of(question):
        assert secret.lower() not in text.lower(), f"{secret!r} leaked"
