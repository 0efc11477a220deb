"""Readiness recomputed from the recorded answers: a new fit of the learner model's
parameters, and the replay of every answer that rebuilds the stored state.

The answers come in as an `AnswerLog` (the attempts), so that readiness never imports the
practice room that records them."""

import json
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import NamedTuple, Protocol

from django.db import transaction
from django.utils import timezone

from progress.engine import fitting, learner_model
from progress.readiness.batches import learn_items, lock_out_answers, lock_out_batches
from progress.readiness.in_use import current_model
from progress.readiness.models import (
    MIN_FIT_ANSWERS,
    MIN_FIT_LEARNERS,
    MOVERS_KEPT,
    ExamAbility,
    Mover,
    QuestionBatch,
    QuestionReadiness,
    ReadinessFit,
    TopicReadiness,
    state_of,
)
from progress.readiness.update import ItemAnswer, ModelAnswer, replay_answers
from questions.models import Question

# How many times the replay outside the lock catches up with the batches made while it ran,
# before it takes the lock: the fit and the first replay take minutes on a big site, a
# catch-up seconds.
CATCH_UPS = 3
# The (learner, exam) sequences whose rows one transaction of the rebuild writes, outside the
# lock (see `rebuild_readiness`).
WRITE_CHUNK = 250


@dataclass
class RebuildReport:
    learners: int = 0
    answers: int = 0
    questions: int = 0
    fit: ReadinessFit | None = None
    fit_report: fitting.FitReport | None = None
    fit_seconds: float = 0.0  # the attempts read and the fit (which reads no clock itself)
    fit_skipped: str = ""  # why no fit was made, when one was asked for


class LoggedAnswer(NamedTuple):
    """One recorded answer, as the rebuild reads it from an AnswerLog."""

    attempt_id: int
    learner_id: int
    question_id: int | None  # None: a question deleted since
    topic_id: int | None
    exam_id: int | None
    score: float  # Attempt.score: 1 right, 0 wrong, a share for a partly right answer
    answered_at: datetime


class AnswerLog(Protocol):
    """Where the recorded answers are read from (the attempts: `Attempt.objects`)."""

    def answers_after(self, attempt_id: int) -> Iterator[LoggedAnswer]:
        """The answers with a greater id, in id order: the order they were recorded in,
        which is the order their updates were made in."""
        ...

    def sequence_lengths(self) -> dict[tuple[int, int], int]:
        """How many answers with a topic each learner gave to each exam, by (learner, exam)."""
        ...

    def keep_logits(self, logits: dict[int, float]) -> None:
        """Store these learner logits (by attempt id) on their attempts, for the next batch."""
        ...


def fit_on_attempts(
    log: AnswerLog, seed: int = 0
) -> tuple[ReadinessFit | None, fitting.FitReport | None, str]:
    """Fit the model's parameters on the site's attempts and store them as the fit in use;
    (None, None, why) when there are too few. A learner's answers to each exam are a sequence
    of their own, as readiness keeps them apart. Reads every attempt once."""
    sequences: dict[tuple[int, int | None], list[learner_model.Answer]] = {}
    last_id = 0
    for attempt_id, learner_id, question_id, topic_id, exam_id, score, _ in log.answers_after(0):
        last_id = attempt_id
        if topic_id is None:
            continue
        item = str(question_id) if question_id is not None else f"deleted-{attempt_id}"
        answer = learner_model.Answer(item, str(topic_id), score)
        sequences.setdefault((learner_id, exam_id), []).append(answer)
    learner_count = len({learner_id for learner_id, _ in sequences})
    answers = sum(len(s) for s in sequences.values())
    if learner_count < MIN_FIT_LEARNERS or answers < MIN_FIT_ANSWERS:
        return (
            None,
            None,
            (
                f"{answers} answers by {learner_count} learners are too few to fit on (at least "
                f"{MIN_FIT_ANSWERS} by {MIN_FIT_LEARNERS} are needed): the parameters in use stay."
            ),
        )
    model, report = fitting.fit(list(sequences.values()), seed=seed)
    params = model.params
    params.items = {k: v for k, v in params.items.items() if k.isdigit()}
    fit = ReadinessFit.objects.create(
        params=json.loads(params.to_json()),
        learners=learner_count,
        answers=answers,
        last_attempt_id=last_id,
        summary=(
            f"fitted on {answers:,} answers of {learner_count:,} learners, {report.epochs} of "
            f"{report.passes} passes kept ({report.stop}){_refit(report)}; "
            f"{_context_factor(report)}{'; ' if report.others else ''}{report.merged()}; "
            f"{report.forecast_kept()}"
        ),
    )
    return fit, report, ""


def _refit(report: fitting.FitReport) -> str:
    """The passes of the fit kept, on every learner (none without held-out learners)."""
    if not report.refit_passes:
        return ""
    return f", then refitted on every learner in {report.refit_passes}"


def _context_factor(report: fitting.FitReport) -> str:
    """What the fit did with the questions' own weights on the last answers: the factor, and
    whether the site's attempts were enough to choose it on their own learners."""
    factor = report.filter.get("context_scale", 0.0)
    if report.context_chosen:
        return f"question context factor {factor:g}, chosen on held-out learners"
    enough = fitting.FitConfig().tune_context_from
    return f"question context factor {factor:g}, set (chosen from {enough:,} answers)"


def rebuild_readiness(
    log: AnswerLog,
    *,
    fit: bool = True,
    progress: Callable[[int], None] | None = None,
    batch: Callable[[], object] | None = None,
) -> RebuildReport:
    """Recompute every learner's and question's state from the attempts (after an upgrade of
    the model, or to recover); first fit the parameters on the attempts when asked and there
    are enough. The replay is the incremental update run over the attempts in the order they
    were recorded, the questions' difficulties moved at the recorded batch boundaries
    (QuestionBatch) as the worker moved them, so its result equals the stored state it
    replaces; the answers after the last boundary are left to the next batch, with their
    logits as this replay computed them (new ones after a new fit). Answers recorded while it
    runs are replayed as batches cover them. The learners' rows are written outside the lock,
    a few hundred learners a transaction; the final transaction, which locks out answers and
    batches until it commits, replays the answers of the last seconds, writes again the rows
    of the learners who gave them, and writes the questions' rows. `batch` (the worker's
    batch of the questions' difficulties) runs before each catch-up, so that the answers after
    the last boundary are few."""
    report = RebuildReport()
    if fit:
        started = time.perf_counter()
        report.fit, report.fit_report, report.fit_skipped = fit_on_attempts(log)
        report.fit_seconds = time.perf_counter() - started
    in_use = current_model()
    states: dict[tuple[int, int], learner_model.LearnerState] = {}
    movers: dict[tuple[int, int], deque[Mover]] = {}
    # Only the last MOVERS_KEPT answers of each learner and exam are kept as movers, so only
    # they are measured (measuring doubles the cost of an answer).
    lengths = log.sequence_lengths()
    exam_counts: dict[tuple[int, int], int] = {}
    exam_last: dict[tuple[int, int], datetime] = {}
    topic_last: dict[tuple[int, int], datetime] = {}
    counts: dict[int, int] = {}
    sums: dict[tuple[int, int], float] = {}  # (learner, topic) -> difficulty_sum
    # The questions' states as the last boundary passed left them (a question not batched
    # yet: its starting state), and the answers waiting for the next boundary.
    items: dict[int, learner_model.ItemState] = {}
    batched: set[int] = set()
    waiting: list[ItemAnswer] = []
    boundaries = deque(
        QuestionBatch.objects.order_by("last_attempt_id").values_list("last_attempt_id", flat=True)
    )
    touched: set[tuple[int, int]] = set()  # the (learner, exam) sequences the replay moved

    def pass_boundaries(attempt_id: int) -> None:
        """Apply the waiting answers at each boundary before this attempt, as the batches did."""
        while boundaries and boundaries[0] < attempt_id:
            boundary = boundaries.popleft()
            done = [a for a in waiting if a.attempt_id <= boundary]
            learn_items(in_use, items, done)
            batched.update(a.question_id for a in done)
            del waiting[: len(done)]

    def replay(rows: Iterator[LoggedAnswer], up_to: int | None = None) -> int:
        last = 0
        for attempt_id, learner_id, question_id, topic_id, exam_id, score, at in rows:
            if up_to is not None and attempt_id > up_to:
                break  # read again, under the lock, by the final replay
            last = attempt_id
            pass_boundaries(attempt_id)
            if topic_id is None or exam_id is None:
                continue
            key = (learner_id, exam_id)
            touched.add(key)
            state = states.get(key)
            if state is None:
                state = states[key] = in_use.model.new_learner()
            if question_id is not None:
                if question_id not in items:
                    items[question_id] = in_use.starting_item(question_id)
                # As ReadinessUpdate.apply counts it: the difficulty before this answer.
                sums[(learner_id, topic_id)] = (
                    sums.get((learner_id, topic_id), 0.0) + items[question_id].difficulty
                )
            answer = ModelAnswer(question_id, topic_id, exam_id, score)
            done = exam_counts.get(key, 0)
            measure = done >= lengths.get(key, 0) - MOVERS_KEPT  # newer ones: always
            (effect,) = replay_answers(in_use, state, items, [answer], measure=measure)
            if effect.learner_logit is not None and question_id is not None:
                waiting.append(ItemAnswer(attempt_id, question_id, score, effect.learner_logit))
            if effect.points is not None:
                kept = movers.get(key)
                if kept is None:
                    kept = movers[key] = deque(maxlen=MOVERS_KEPT)
                kept.append(Mover(attempt_id, topic_id, question_id, score, effect.points))
            exam_counts[key] = done + 1
            # When each state last moved: the explanations say how recent the answers are.
            exam_last[key] = at
            topic_last[(learner_id, topic_id)] = at
            counts[learner_id] = counts.get(learner_id, 0) + 1
            report.answers += 1
            if progress is not None and report.answers % 10_000 == 0:
                progress(report.answers)
        return last

    def newer_boundaries() -> int:
        """Read the boundaries of the batches made since the last read (they come after the
        ones read); returns the last one."""
        seen = max(boundaries, default=0)
        boundaries.extend(
            QuestionBatch.objects.filter(last_attempt_id__gt=seen)
            .order_by("last_attempt_id")
            .values_list("last_attempt_id", flat=True)
        )
        return max(boundaries, default=0)

    # Outside the lock, only the answers up to the last boundary: a batch made meanwhile could
    # still cover the later ones, and the answers after it read what it left. While batches
    # come, the replay catches up with them (answers go on meanwhile); the rest, a few
    # seconds' answers at most, is replayed under the lock, with every boundary.
    last_id = replay(log.answers_after(0), up_to=max(boundaries, default=0))
    for _ in range(CATCH_UPS):
        if batch is not None:
            # The worker running this runs no batch meanwhile: without one of its own, every
            # answer since the fit began would be replayed under the lock.
            batch()
        caught_up = last_id
        last_id = max(last_id, replay(log.answers_after(last_id), up_to=newer_boundaries()))
        if last_id == caught_up:
            break

    def write_learners(keys: list[tuple[int, int]]) -> None:
        """Write the rows of these (learner, exam) sequences and of their topics over the
        stored ones, in key order (the order answers lock them in)."""
        now = timezone.now()
        ExamAbility.objects.bulk_create(
            (
                ExamAbility(
                    learner_id=learner_id, exam_id=exam_id, state=state_of(states[key]),
                    answers=exam_counts[key], movers=[list(m) for m in movers.get(key, ())],
                    updated_at=exam_last.get(key, now),
                )
                for key in keys
                for learner_id, exam_id in [key]
            ),
            update_conflicts=True,
            unique_fields=["learner", "exam"],
            update_fields=["state", "answers", "movers", "updated_at"],
            batch_size=2000,
        )  # fmt: skip
        TopicReadiness.objects.bulk_create(
            (
                TopicReadiness.from_state(
                    learner_id,
                    int(t),
                    topic,
                    topic_last.get((learner_id, int(t)), now),
                    sums.get((learner_id, int(t)), 0.0),
                )
                for learner_id, exam_id in keys
                for t, topic in sorted(states[(learner_id, exam_id)].topics.items())
            ),
            update_conflicts=True,
            unique_fields=["learner", "topic"],
            update_fields=[
                "state",
                "answers",
                "ability",
                "variance",
                "difficulty_sum",
                "updated_at",
            ],
            batch_size=2000,
        )

    # The learners' rows, outside the lock, a few hundred sequences a transaction: each locks
    # only its learners' rows, which an answer of one of them waits for a moment (or the
    # write waits for the answer). The sequences the final replay moves are written again
    # under the lock, so an answer that came in between is not lost.
    keys = sorted(states)
    for start in range(0, len(keys), WRITE_CHUNK):
        with transaction.atomic():
            write_learners(keys[start : start + WRITE_CHUNK])
    _delete_rows_not_in(states)
    with transaction.atomic():
        lock_out_batches()
        lock_out_answers()
        newer_boundaries()
        touched.clear()
        replay(log.answers_after(last_id))
        pass_boundaries(2**62)  # every boundary recorded, even after the last attempt
        write_learners(sorted(touched))
        QuestionReadiness.objects.all().delete()
        # Every question's id rather than a list of the batched ones: a big bank's list can
        # pass the parameters a query takes (32,766 in SQLite's own build, 65,535 on
        # PostgreSQL).
        existing = set(Question.objects.values_list("pk", flat=True))
        QuestionReadiness.objects.bulk_create(
            (
                QuestionReadiness.from_state(qid, items[qid])
                for qid in sorted(batched)
                if qid in existing
            ),
            batch_size=2000,
        )
        # The next batch applies the answers after the last boundary with these logits.
        log.keep_logits({a.attempt_id: a.learner_logit for a in waiting})
    report.learners, report.questions = len(counts), len(batched)
    if progress is not None:
        progress(report.answers)
    return report


def _delete_rows_not_in(states: dict[tuple[int, int], learner_model.LearnerState]) -> None:
    """Delete the stored rows of the learners, exams and topics that the replay did not give a
    state (their answers deleted, or without a topic)."""
    stale = [
        pk
        for pk, learner_id, exam_id in ExamAbility.objects.values_list("pk", "learner_id", "exam")
        if (learner_id, exam_id) not in states
    ]
    ExamAbility.objects.filter(pk__in=stale).delete()
    topics = {(key[0], int(t)) for key, state in states.items() for t in state.topics}
    stale = [
        pk
        for pk, learner_id, topic_id in TopicReadiness.objects.values_list(
            "pk", "learner_id", "topic_id"
        )
        if (learner_id, topic_id) not in topics
    ]
    TopicReadiness.objects.filter(pk__in=stale).delete()
