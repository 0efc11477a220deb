"""Moving a sitting on: into the next question of a forward-only exam, or into the next
section. Only a POST moves it (a save that goes on, a navigator button, the move-on page's
button); a GET of a question ahead of the window changes nothing and asks first. A link
prefetched, a page reloaded or an address typed must not close a question for good.

Plain functions over the sitting, no requests: the views say where each answer sends the
learner (progress/mocks/views.py)."""

from typing import Any

from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse

from progress.mocks.models import MockExam
from progress.mocks.sections import index_by_ends


def _item(mock: MockExam, position: int) -> str:
    return reverse("mock_item", args=[mock.code, position + 1])


def way_ahead(mock: MockExam, position: int) -> HttpResponse | None:
    """Where a question ahead of the window sends the learner without moving the sitting:
    the question being sat (forward-only does not skip ahead; a section is entered at its
    first question), or the warning before leaving a section that closes. None when moving
    on to it is what the learner may do next (`move_on`)."""
    section = mock.current_section
    if mock.forward_only and position != mock.open_from + 1:
        return redirect(_item(mock, mock.open_from))
    if position < section.end:
        return None if mock.forward_only else redirect(_item(mock, mock.open_from))
    if section.closes:
        return redirect(reverse("mock_finish_section", args=[mock.code, mock.section_at + 1]))
    return None


def move_on(mock: MockExam, position: int) -> HttpResponse:
    """Move the sitting on towards `position`, a question `way_ahead` allowed; then where
    the learner goes: that question, or the first of the section entered when it was further
    on (one section at a time)."""
    if position < mock.current_section.end:
        mock.step_to(position)  # a racing request that moved it first leaves it where it is
        return redirect(_item(mock, mock.open_from))
    mock.enter_next_section()
    if mock.is_open(position):
        return redirect(_item(mock, position))
    return redirect(_item(mock, max(mock.open_from, mock.current_section.first)))


def go_towards(mock: MockExam, position: int) -> HttpResponse | None:
    """After a save that goes to `position`: None when it is open (go there), else where to
    go, moving the sitting on when the learner may move there."""
    mock.close_expired_section()
    if mock.is_submitted:
        return redirect(reverse("mock_report", args=[mock.code]))
    if mock.is_open(position) or position < mock.open_from:
        return None  # open, or closed behind (its page says so)
    return way_ahead(mock, position) or move_on(mock, position)


def sitting_shape(mock: MockExam) -> dict[str, Any]:
    """What the session keeps of the sitting for `may_move`: forward-only or not, and where
    its sections end (none for one section)."""
    sections = mock.sitting_sections
    ends = [section.end for section in sections] if len(sections) > 1 else []
    return {"forward_only": mock.forward_only, "ends": ends}


def may_move(sitting: dict[str, Any] | None, number: int, target: int) -> bool:
    """Whether going from question `number` to `target` (1-based) might move the sitting on,
    from what the session keeps of it: a step ahead of a forward-only exam, or into a later
    section. False spares the save's page the read of the sitting; a session kept before
    the shape was (no "ends") always reads it."""
    if sitting is None or "ends" not in sitting:
        return True
    if target <= number:
        return False
    if sitting["forward_only"]:
        return True
    ends = sitting["ends"]
    return index_by_ends(ends, target - 1) > index_by_ends(ends, number - 1)
