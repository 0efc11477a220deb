"""An exam's item statistics brought up to date by counting only what changed since their last
count: the learners who answered the exam since, or joined or left one of its cohorts, have
what their answers added to the stored sums taken away and what they add now added
(`count_learner` both ways, progress.cohorts.item_statistics), and the median times are read
again only for the questions they answered anew. So a refresh costs what those learners'
answers to the exam cost, whatever the exam's attempts: on 1,000,000 attempts, a class of 30
after a 20-question quiz is a small part of the whole bank's recompute (bench/item_refresh.py).

Exact: the attempts counted are those up to the last batch's boundary, all committed (see
progress.readiness.batches), and the exam's mark (ItemStatisticsMark: how far the figures go,
and the members they count) is locked while they change, so two refreshes, or a refresh and
the full recompute, never count an answer twice. What the attempts no longer show (an account
or a question deleted, a question moved to another exam) stays in the figures until the
nightly recompute starts them again from the attempts."""

from collections.abc import Collection, Iterator
from datetime import datetime

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from progress.cohorts.item_statistics import (
    ItemTally,
    LearnerAnswer,
    Scope,
    Tallies,
    count_learner,
    median,
    store_answer_shares,
)
from progress.cohorts.models import Cohort, ItemStatistic, ItemStatisticsMark, Membership
from progress.practice.models import Attempt
from questions.models import Exam, Option, Question
from questions.pages.snapshot import forget_questions


def refresh_exam_statistics(exam: Exam, *, up_to: int) -> int:
    """Bring the item statistics of the exam's questions (for everyone and for its cohorts)
    and their option shares up to the exam's attempts up to this id. Returns the rows
    written. One transaction; queries: the mark, the cohorts and their members, the learners
    who answered since, their answers to the exam, the times of the questions answered anew,
    the stored rows, their writes, the freshness of the others, the shares'
    (store_answer_shares), the mark's."""
    now = timezone.now()
    with transaction.atomic():
        mark, _ = ItemStatisticsMark.objects.select_for_update().get_or_create(exam=exam)
        if mark.last_attempt_id is None:
            _start_over(exam)
        since = mark.last_attempt_id or 0
        up_to = max(up_to, since)
        members = _members(exam)
        then = {int(cohort): set(them) for cohort, them in mark.members.items()}
        # Cohorts counted before that are gone, or of another exam now: their rows go.
        gone = set(then) - set(members)
        ItemStatistic.objects.filter(cohort_id__in=gone, question__topic__exam=exam).delete()
        then = {cohort: them for cohort, them in then.items() if cohort not in gone}
        changes, medians = _changes(exam, since, up_to, then, members)
        written = _write(changes, medians, now)
        # The figures of the other questions are as fresh: nothing changed them.
        ItemStatistic.objects.filter(question__topic__exam=exam).exclude(computed_at=now).update(
            computed_at=now
        )
        store_answer_shares(
            {question: change for (scope, question), change in changes.items() if scope is None},
            changes=True,
        )
        mark.last_attempt_id = up_to
        mark.members = {str(cohort): sorted(them) for cohort, them in members.items() if them}
        mark.save(update_fields=["last_attempt_id", "members"])
    return written


def _changes(
    exam: Exam,
    since: int,
    up_to: int,
    then: dict[int, set[int]],
    members: dict[int, set[int]],
) -> tuple[Tallies, dict[tuple[Scope, int], float | None]]:
    """What changes in the figures from the exam's attempts up to `since` counted with the
    members `then` to its attempts up to `up_to` with the members now, and the median times
    that change. The learners who answered since and those who joined or left a cohort are
    counted again, both ways; from nothing (`since` 0), every learner, once."""
    changes: Tallies = {}
    timed: set[tuple[Scope, int]] = set()  # whose answers' times changed
    # From nothing, every answer is new: their times come with them, not read again.
    fresh = since == 0
    learners = None
    if not fresh:
        learners = {
            learner
            for cohort, them in members.items()
            for learner in them ^ then.get(cohort, set())
        }
        learners.update(
            Attempt.objects.filter(exam=exam, pk__gt=since, pk__lte=up_to)
            .values_list("learner_id", flat=True)
            .distinct()
            .order_by()
        )
    for learner_id, answers in _answers_by_learner(exam, learners, up_to):
        before = [cohort for cohort, them in then.items() if learner_id in them]
        after = [cohort for cohort, them in members.items() if learner_id in them]
        earlier = [answer for pk, answer in answers if pk <= since]
        count_learner(changes, earlier, {exam.pk: before}, sign=-1)
        every = [answer for _, answer in answers]
        count_learner(changes, every, {exam.pk: after}, times=fresh)
        if fresh:
            continue
        switched = set(before) ^ set(after)  # cohorts joined or left
        for pk, answer in answers:
            if pk > since:
                timed.update((scope, answer.question_id) for scope in [None, *after])
            timed.update((scope, answer.question_id) for scope in switched)
    if fresh:
        return changes, {key: median(tally.seconds) for key, tally in changes.items()}
    return changes, _medians(timed, exam, members, up_to)


def _start_over(exam: Exam) -> None:
    """Nothing of the exam counted yet: drop what its questions show (figures of a recompute
    from before the marks, which kept no sums to add to)."""
    questions = Question.objects.filter(topic__exam=exam)
    ItemStatistic.objects.filter(question__in=questions).delete()
    Option.objects.filter(question__in=questions).exclude(chosen_by=0).update(chosen_by=0)
    forget_questions(questions.exclude(answered_by=0).values_list("uid", flat=True))
    questions.exclude(answered_by=0).update(answered_by=0)


def _members(exam: Exam) -> dict[int, set[int]]:
    """The exam's cohorts with their learners. Two queries."""
    members: dict[int, set[int]] = {
        pk: set() for pk in Cohort.objects.filter(exam=exam).values_list("pk", flat=True)
    }
    for cohort_id, learner_id in Membership.objects.filter(cohort__exam=exam).values_list(
        "cohort_id", "learner_id"
    ):
        members[cohort_id].add(learner_id)
    return members


def _answers_by_learner(
    exam: Exam, learners: Collection[int] | None, up_to: int
) -> Iterator[tuple[int, list[tuple[int, LearnerAnswer]]]]:
    """Each learner's (of these, or every one's) answers to the exam up to this attempt, as
    (attempt id, answer) in id order. One query, read in chunks."""
    rows = Attempt.objects.filter(question__isnull=False, pk__lte=up_to)
    if learners is None:
        rows = rows.filter(exam=exam)
    else:
        # By the learners' index, their other exams' answers left out here: with the exam in
        # the query, SQLite walked (and sorted) every attempt of the exam for them.
        rows = rows.filter(learner_id__in=sorted(learners))
    current: int | None = None
    answers: list[tuple[int, LearnerAnswer]] = []
    for learner_id, pk, *fields in (
        rows.order_by("learner_id", "pk")
        .values_list("learner_id", "pk", "question_id", "exam_id", "score", "chosen", "time_spent")
        .iterator(chunk_size=10_000)
    ):
        if learner_id != current:
            if current is not None:
                yield current, answers
            current, answers = learner_id, []
        answer = LearnerAnswer._make(fields)
        if answer.exam_id == exam.pk:
            answers.append((pk, answer))
    if current is not None:
        yield current, answers


def _medians(
    wanted: set[tuple[Scope, int]], exam: Exam, members: dict[int, set[int]], up_to: int
) -> dict[tuple[Scope, int], float | None]:
    """The median time of these questions' answers up to this attempt, in these scopes: over
    everyone, every answer to the question; over a cohort, its members' answers on the exam
    (as the full recompute counts them). One query, the questions' timed answers."""
    cohorts_of: dict[int, list[int]] = {}
    for cohort, learners in members.items():
        for learner in learners:
            cohorts_of.setdefault(learner, []).append(cohort)
    seconds: dict[tuple[Scope, int], list[float]] = {key: [] for key in wanted}
    rows = Attempt.objects.filter(
        question_id__in=sorted({question for _, question in wanted}),
        pk__lte=up_to,
        time_spent__isnull=False,
    ).values_list("question_id", "learner_id", "exam_id", "time_spent")
    for question_id, learner_id, exam_id, spent in rows.iterator(chunk_size=10_000):
        cohorts = cohorts_of.get(learner_id, []) if exam_id == exam.pk else []
        for scope in [None, *cohorts]:
            times = seconds.get((scope, question_id))
            if times is not None and spent is not None:
                times.append(spent.total_seconds())
    return {key: median(times) for key, times in seconds.items()}


def _write(changes: Tallies, medians: dict[tuple[Scope, int], float | None], now: datetime) -> int:
    """Add the changes to the stored rows (locked, in one order for every writer), with the
    medians read again, and write the rows again (a delete and one insert: the ORM's bulk
    update of a few hundred rows took seconds to compile); a row left without attempts goes.
    Returns the rows written."""
    questions = {question for _, question in changes}
    cohorts = {scope for scope, _ in changes if scope is not None}
    stored = {
        (row.cohort_id, row.question_id): row
        for row in ItemStatistic.objects.select_for_update()
        .filter(question_id__in=sorted(questions))
        .filter(Q(cohort__isnull=True) | Q(cohort_id__in=sorted(cohorts)))
        .order_by("pk")
    }
    replaced, written = [], []
    for (scope, question_id), change in changes.items():
        row = stored.get((scope, question_id))
        tally = ItemTally()
        if row is not None:
            tally = ItemTally.stored(row)
            replaced.append(row.pk)
        tally.merge(change)
        if tally.attempts <= 0:
            continue
        kept = row.median_seconds if row is not None else None
        median = medians.get((scope, question_id), kept)
        written.append(tally.statistic(question_id, scope, median, now))
    ItemStatistic.objects.filter(pk__in=replaced).delete()
    ItemStatistic.objects.bulk_create(written, batch_size=500)
    return len(written)
