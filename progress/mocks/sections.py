"""A sitting's sections, as copied from the exam's shape when it starts, and the window of
questions open to the learner: plain Python, no queries.

A sitting is sat section by section, in order. The window is the run of positions the
learner may open and answer; the server keeps it on the sitting (`open_from`, `open_to`) and
every save checks it in its one statement. It opens on the first section. Moving on into the
next section widens it; leaving a section that closes (it locks, or it has minutes of its
own) moves its start past that section, for good. Forward-only, the window is one question:
the one being sat. A sitting of an exam without sections is one section that never closes,
the window every question: today's one list under one timer."""

from dataclasses import asdict, dataclass
from typing import Any

# The end of the window of a sitting with one section: past any position.
NO_END = 32767


@dataclass(frozen=True)
class SittingSection:
    title: str
    first: int  # its first question's position (0-based)
    count: int
    minutes: int | None = None  # its own time limit, under the learner's allowance
    locks: bool = False

    @property
    def end(self) -> int:
        return self.first + self.count

    @property
    def closes(self) -> bool:
        """Left once, closed for good: it locks, or its time is its own."""
        return self.locks or self.minutes is not None

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def read_sections(stored: list[dict[str, Any]], question_count: int) -> list[SittingSection]:
    """The sitting's sections; one that never closes, holding every question, when the exam
    had none."""
    if not stored:
        return [SittingSection(title="", first=0, count=question_count)]
    return [SittingSection(**section) for section in stored]


@dataclass(frozen=True)
class Window:
    open_from: int
    open_to: int


def window_on_entering(
    sections: list[SittingSection], index: int, current: Window, *, forward_only: bool
) -> Window:
    """The window once the learner enters section `index` from the one before it (or starts
    the sitting, index 0)."""
    section = sections[index]
    if forward_only:
        return Window(section.first, section.first + 1)
    left_closes = index > 0 and sections[index - 1].closes
    start = section.first if index == 0 or left_closes else current.open_from
    end = section.end if len(sections) > 1 else NO_END
    return Window(start, end)


def section_index(sections: list[SittingSection], position: int) -> int:
    """The section a question of the sitting belongs to."""
    return index_by_ends([section.end for section in sections], position)


def index_by_ends(ends: list[int], position: int) -> int:
    """The section a question belongs to, from where the sections end (the last takes
    anything beyond; 0 with none)."""
    for index, end in enumerate(ends):
        if position < end:
            return index
    return max(len(ends) - 1, 0)
