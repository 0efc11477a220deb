"""A quiz's progress and score as its pages show them, from the quiz's stored counters."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Tally:
    total: int
    answered: int
    right: int  # fully right
    withdrawn: int = 0
    partly_right: int = 0
    marks: float | None = None  # None: as many as the right answers

    @property
    def to_answer(self) -> int:
        return self.total - self.withdrawn

    @property
    def percent(self) -> int:
        """The score: the marks (a partly right answer its share) over the answers."""
        marks = self.right if self.marks is None else self.marks
        return round(100 * marks / self.answered) if self.answered else 0
