"""The item analysis of every question (facility, discrimination, option choices, median time,
flags), for everyone and for each cohort, stored as ItemStatistic rows that the pages and the
admin read, and the option shares of the question pages (Question.answered_by,
Option.chosen_by).

Every figure but the median is a sum, over learners, of what each learner's answers add
(`count_learner`): their answers and the options they chose; their first answer to each
question, right or not, with their score on the exam's other questions (the rest score) in the
sums of the discrimination's correlation. So the one formula serves two ways of computing: all
at once from every attempt (`compute_item_statistics`: nightly, and by hand), and an exam's
refresh, which takes away what the learners who answered since added to the stored sums and
adds what they add now (progress.cohorts.item_refresh)."""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from progress.cohorts.models import ItemStatistic, ItemStatisticsMark, Membership, item_flags
from progress.practice.models import Attempt
from questions.models import Exam, Option, Question
from questions.pages.snapshot import forget_questions

Scope = int | None  # a cohort's id; None: everyone


class LearnerAnswer(NamedTuple):
    """One attempt, as the item statistics read it (in the learner's id order)."""

    question_id: int
    exam_id: int | None
    score: float  # Attempt.score: 1 right, 0 wrong, a share for a partly right answer
    chosen: Any  # the attempt's [{"key": ..., ...}] of the options chosen, or of its parts
    spent: timedelta | None


class _Moments:
    """Running sums for a correlation and a mean."""

    __slots__ = ("n", "sx", "sxx", "sxy", "sy", "syy")

    def __init__(self) -> None:
        self.n = 0
        self.sx = self.sy = self.sxx = self.syy = self.sxy = 0.0

    def add(self, x: float, y: float, sign: int = 1) -> None:
        """Count the pair (x, y) in the sums; with sign -1, take it out of them."""
        self.n += sign
        self.sx += sign * x
        self.sy += sign * y
        self.sxx += sign * x * x
        self.syy += sign * y * y
        self.sxy += sign * x * y

    def merge(self, other: "_Moments") -> None:
        for name in self.__slots__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def as_dict(self) -> dict[str, float]:
        return {name: getattr(self, name) for name in self.__slots__}

    @classmethod
    def from_dict(cls, sums: Mapping[str, float]) -> "_Moments":
        moments = cls()
        for name in cls.__slots__:
            setattr(moments, name, sums.get(name, 0))
        return moments

    def correlation(self) -> float | None:
        if self.n < 2:
            return None
        vx = self.sxx - self.sx * self.sx / self.n
        vy = self.syy - self.sy * self.sy / self.n
        if vx <= 1e-12 or vy <= 1e-12:
            return None  # everyone right (or wrong), or every rest score alike
        return (self.sxy - self.sx * self.sy / self.n) / (vx * vy) ** 0.5


def _add_counts(counts: dict[str, int], change: Mapping[str, int]) -> None:
    for key, count in change.items():
        total = counts.get(key, 0) + count
        if total:
            counts[key] = total
        else:
            counts.pop(key, None)


@dataclass
class ItemTally:
    """What a question's figures in one scope are computed from (in a refresh, the change
    to what is stored)."""

    attempts: int = 0
    options: dict[str, int] = field(default_factory=dict)  # key -> answers that chose it
    seconds: list[float] = field(default_factory=list)  # the full recompute's times
    firsts: int = 0  # learners with a first answer
    right: int = 0  # of them, those fully right at it
    marks: float = 0.0  # their first answers' scores, summed (a partly right one its share)
    moments: _Moments = field(default_factory=_Moments)
    # Option key -> learners whose first answer chose it (what the question page shows).
    first_options: dict[str, int] = field(default_factory=dict)
    # Part key (a step's, for an ordering) -> learners whose first answer got that part right.
    parts: dict[str, int] = field(default_factory=dict)

    @classmethod
    def stored(cls, row: ItemStatistic) -> "ItemTally":
        """The sums a stored row keeps (not its times, nor the option shares)."""
        return cls(
            attempts=row.attempts, options=dict(row.option_counts), firsts=row.learners,
            right=row.right, marks=row.marks, moments=_Moments.from_dict(row.moments),
            parts=dict(row.part_right),
        )  # fmt: skip

    def merge(self, change: "ItemTally") -> None:
        self.attempts += change.attempts
        _add_counts(self.options, change.options)
        self.firsts += change.firsts
        self.right += change.right
        self.marks += change.marks
        self.moments.merge(change.moments)
        _add_counts(self.first_options, change.first_options)
        _add_counts(self.parts, change.parts)

    def statistic(
        self, question_id: int, scope: Scope, median: float | None, now: datetime
    ) -> ItemStatistic:
        """The row of these figures. Facility is the mean score of the first answers (the
        share right when there is no partial credit): a half-right first answer counts half,
        as a test's item analysis counts a partial-credit item's mean mark over its
        maximum. The marks are scores on the model's grid (learner_model.share), so the sum
        kept by a refresh, which adds and takes away, is the recompute's to the last bit."""
        facility = self.marks / self.firsts if self.firsts else None
        discrimination = self.moments.correlation()
        flags = item_flags(self.firsts, facility, discrimination)
        return ItemStatistic(
            question_id=question_id, cohort_id=scope, attempts=self.attempts,
            learners=self.firsts, right=self.right, marks=self.marks, facility=facility,
            discrimination=discrimination, option_counts=self.options, part_right=self.parts,
            median_seconds=median,
            flags=flags, flagged=bool(flags), moments=self.moments.as_dict(), computed_at=now,
        )  # fmt: skip


Tallies = dict[tuple[Scope, int], ItemTally]


def median(seconds: list[float]) -> float | None:
    if not seconds:
        return None
    ordered = sorted(seconds)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def count_learner(
    tallies: Tallies,
    answers: Sequence[LearnerAnswer],
    cohorts_by_exam: Mapping[int | None, Sequence[int]],
    *,
    sign: int = 1,
    times: bool = False,
) -> None:
    """Add to the tallies (with sign -1, take out of them) what one learner's answers, in id
    order, add to the figures: every answer to its question's, for everyone and for the
    learner's cohorts of the answer's exam (`cohorts_by_exam`: exam id -> cohort ids); the
    first answer to each question, with the learner's rest score on its exam (the mean score
    of their first answers to its other questions) and, for a question made of parts, which
    parts it got right. With `times`, the answers' times too (the full recompute's medians)."""
    # First answers per question, and the learner's score per exam over them.
    first: dict[int, float] = {}
    first_keys: dict[int, set[str]] = {}
    first_parts: dict[int, set[str]] = {}
    exam_of: dict[int, int | None] = {}
    for question_id, exam_id, score, chosen, spent in answers:
        for scope in [None, *cohorts_by_exam.get(exam_id, ())]:
            tally = tallies.get((scope, question_id))
            if tally is None:
                tally = tallies[(scope, question_id)] = ItemTally()
            tally.attempts += sign
            for choice in chosen or []:
                key = str(choice.get("key", ""))
                tally.options[key] = tally.options.get(key, 0) + sign
            if times and spent is not None:
                tally.seconds.append(spent.total_seconds())
        if question_id not in first:
            first[question_id] = float(score)
            first_keys[question_id] = {str(c.get("key", "")) for c in chosen or []}
            first_parts[question_id] = parts_right(chosen)
            exam_of[question_id] = exam_id
    totals: dict[int | None, list[float]] = {}
    for question_id, score in first.items():
        total = totals.setdefault(exam_of[question_id], [0.0, 0])
        total[0] += score
        total[1] += 1
    for question_id, score in first.items():
        exam_id = exam_of[question_id]
        marks, count = totals[exam_id]
        # The discrimination correlates the score (not only "fully right") with the rest.
        rest = (marks - score) / (count - 1) if count > 1 else None
        for scope in [None, *cohorts_by_exam.get(exam_id, ())]:
            tally = tallies[(scope, question_id)]
            tally.firsts += sign
            tally.right += sign * int(score >= 1)
            tally.marks += sign * score
            if rest is not None:
                tally.moments.add(score, rest, sign)
            for key in first_parts[question_id]:
                tally.parts[key] = tally.parts.get(key, 0) + sign
        overall = tallies[(None, question_id)]
        for key in first_keys[question_id]:
            overall.first_options[key] = overall.first_options.get(key, 0) + sign


def parts_right(chosen: Any) -> set[str]:
    """The keys of the parts an attempt got right (an ordering's steps placed right), from
    what it keeps of each ("<part key>=<value>" with a correct flag); none for a choice
    question, whose entries are the options chosen."""
    right = set()
    for entry in chosen or []:
        key, sep, _ = str(entry.get("key", "")).partition("=")
        if sep and entry.get("correct"):
            right.add(key)
    return right


def compute_item_statistics(
    progress: Callable[[int], None] | None = None, *, up_to: int | None = None
) -> int:
    """Recompute every question's statistics, for everyone and for each cohort (its learners'
    attempts on its exam), from the attempts up to this id (every one when None): one pass
    over them in learner order, then one transaction that replaces the stored figures and
    sets every exam's mark to what was counted. Returns the number of rows written.

    The nightly task counts up to the last batch's boundary, below which every attempt has
    committed; counting every attempt (by hand) may leave out one still committing, until the
    next recompute."""
    members = list(Membership.objects.values_list("cohort_id", "cohort__exam_id", "learner_id"))
    cohorts_of: dict[int, dict[int | None, list[int]]] = {}  # learner -> exam -> cohorts
    for cohort_id, exam_id, learner_id in members:
        cohorts_of.setdefault(learner_id, {}).setdefault(exam_id, []).append(cohort_id)
    if up_to is None:
        up_to = Attempt.objects.aggregate(last=Max("pk"))["last"] or 0
    tallies: Tallies = {}
    rows = (
        Attempt.objects.filter(question__isnull=False, pk__lte=up_to)
        .order_by("learner_id", "pk")
        .values_list("learner_id", "question_id", "exam_id", "score", "chosen", "time_spent")
        .iterator(chunk_size=10_000)
    )
    done = 0
    learner: list[LearnerAnswer] = []
    current: int | None = None
    for learner_id, *answer in rows:
        if learner_id != current:
            if current is not None:
                count_learner(tallies, learner, cohorts_of.get(current, {}), times=True)
            current, learner = learner_id, []
        learner.append(LearnerAnswer._make(answer))
        done += 1
        if progress is not None and done % 100_000 == 0:
            progress(done)
    if current is not None:
        count_learner(tallies, learner, cohorts_of.get(current, {}), times=True)
    now = timezone.now()
    statistics = [
        tally.statistic(question_id, scope, median(tally.seconds), now)
        for (scope, question_id), tally in tallies.items()
    ]
    with transaction.atomic():
        # The exams' refreshes lock their marks while they change the figures: they wait for
        # this one, and then count from where it stopped.
        list(ItemStatisticsMark.objects.select_for_update().order_by("pk"))
        ItemStatistic.objects.all().delete()
        ItemStatistic.objects.bulk_create(statistics, batch_size=2000)
        store_answer_shares({q: t for (scope, q), t in tallies.items() if scope is None})
        _mark_every_exam(up_to, members)
    if progress is not None:
        progress(done)
    return len(statistics)


def _mark_every_exam(up_to: int, members: Sequence[tuple[int, int, int]]) -> None:
    """Every exam's figures now count its attempts up to this id, and these members."""
    counted: dict[int, dict[str, list[int]]] = {}
    for cohort_id, exam_id, learner_id in members:
        counted.setdefault(exam_id, {}).setdefault(str(cohort_id), []).append(learner_id)
    ItemStatisticsMark.objects.bulk_create(
        [
            ItemStatisticsMark(exam_id=pk, last_attempt_id=up_to, members=counted.get(pk, {}))
            for pk in Exam.objects.values_list("pk", flat=True)
        ],
        update_conflicts=True,
        unique_fields=["exam"],
        update_fields=["last_attempt_id", "members"],
    )


def store_answer_shares(overall: Mapping[int, ItemTally], *, changes: bool = False) -> None:
    """Store on the questions and their options how many learners' first answers chose each
    option (what a question page shows after an answer), from the tallies of everyone: the
    counts of every question; with `changes`, changes to add to the stored counts of these
    questions only. Drops the cached pages of the questions whose figures changed. Two reads,
    the writes of what changed, and the cache's."""
    questions = Question.objects.all()
    options = Option.objects.all()
    if changes:
        questions = questions.filter(pk__in=list(overall))
        options = options.filter(question_id__in=list(overall))
    uids, changed_questions = {}, []
    for pk, uid, answered in questions.values_list("pk", "uid", "answered_by"):
        uids[pk] = uid
        tally = overall.get(pk)
        firsts = (answered if changes else 0) + (tally.firsts if tally else 0)
        if firsts != answered:
            changed_questions.append(Question(pk=pk, answered_by=firsts))
    changed_options = []
    touched = {question.pk for question in changed_questions}
    for pk, question_id, key, chosen_by in options.values_list(
        "pk", "question_id", "key", "chosen_by"
    ):
        tally = overall.get(question_id)
        count = (chosen_by if changes else 0) + (tally.first_options.get(key, 0) if tally else 0)
        if count != chosen_by:
            changed_options.append(Option(pk=pk, chosen_by=count))
            touched.add(question_id)
    Question.objects.bulk_update(changed_questions, ["answered_by"], batch_size=2000)
    Option.objects.bulk_update(changed_options, ["chosen_by"], batch_size=2000)
    forget_questions(uids[pk] for pk in touched)
