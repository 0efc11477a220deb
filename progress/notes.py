"""Bookmarks, private notes and problem reports on a question."""

from django.http import HttpRequest

from questions.pages import QuestionPage


def panel_context(request: HttpRequest, page: QuestionPage) -> dict[str, object]:
    """The learner's bookmark and note for the question page's panel."""
    return {}
