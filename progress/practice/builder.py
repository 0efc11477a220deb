"""The practice builder: a quiz of the learner's own making, as commercial simulators offer it
(MeasureUp's custom practice). Its choices (a `Plan`) narrow the exam's published questions
by topics, item types, the learner's earlier choices (`Selection`) and their recent sittings,
then draw; retrying a quiz's missed questions is a build too.

A sitting is a quiz with an answer or a submitted mock exam. Mock exams live in a room above
this one, so their sittings are looked up through a function that room hands in at start-up
(`on_mock_sittings`, progress/apps.py)."""

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import NamedTuple

from django.db.models import Exists, OuterRef, Q, QuerySet, Subquery

from progress.accounts.models import User
from progress.practice.models import Attempt, Feedback, Quiz, QuizItem, Selection
from progress.readiness.standing import adaptive_question_ids
from questions.case_studies import together
from questions.models import Exam, Kind, Question, Topic

# What to offer when a choice of questions matches none, nearest first.
NEXT_BEST: dict[str, tuple[Selection, ...]] = {
    Selection.WRONG: (Selection.DUE, Selection.UNANSWERED, Selection.ANY),
    Selection.DUE: (Selection.WRONG, Selection.UNANSWERED, Selection.ANY),
    Selection.BOOKMARKED: (Selection.WRONG, Selection.UNANSWERED, Selection.ANY),
    Selection.UNANSWERED: (Selection.WRONG, Selection.DUE, Selection.ANY),
}


class Sitting(NamedTuple):
    """One of the learner's sittings as the builder's filters read it: when it started, the
    questions it showed, and those not answered fully right (in a mock exam, an unanswered
    question counts as missed, as its score counts it)."""

    started_at: datetime
    seen: frozenset[int]
    missed: frozenset[int]


def _no_mock_sittings(learner_id: int, exam_id: int, count: int) -> list[Sitting]:
    return []


_mock_sittings: list[Callable[[int, int, int], list[Sitting]]] = [_no_mock_sittings]


def on_mock_sittings(lookup: Callable[[int, int, int], list[Sitting]]) -> None:
    """Hand in how the learner's latest submitted mock exams of an exam are read (the mocks
    room does): (learner id, exam id, how many) -> sittings, newest first."""
    _mock_sittings[0] = lookup


def quiz_sittings(learner_id: int, exam_id: int, count: int) -> list[Sitting]:
    """The learner's latest `count` quizzes of the exam with an answer (or, with the answers
    at the end, a saved one), newest first. One query."""
    with_saved = QuizItem.objects.filter(quiz=OuterRef("pk"), saved__isnull=False)
    latest = (
        Quiz.objects.filter(learner_id=learner_id, exam_id=exam_id)
        .filter(Q(answered_count__gt=0) | Exists(with_saved))
        .order_by("-created_at", "-pk")
        .values("pk")[:count]
    )
    rows = QuizItem.objects.filter(quiz__in=Subquery(latest), question__isnull=False).values_list(
        "quiz_id", "quiz__created_at", "question_id", "served_at", "saved", "attempt__is_correct"
    )
    found: dict[int, tuple[datetime, set[int], set[int]]] = {}
    for quiz_id, started_at, question_id, served_at, answer, is_correct in rows:
        _, seen, missed = found.setdefault(quiz_id, (started_at, set(), set()))
        if served_at is not None or answer is not None or is_correct is not None:
            seen.add(question_id)
        if is_correct is False:
            missed.add(question_id)
    return [Sitting(at, frozenset(seen), frozenset(missed)) for at, seen, missed in found.values()]


def recent_sittings(learner_id: int, exam_id: int, count: int) -> list[Sitting]:
    """The learner's latest `count` sittings of the exam, quizzes and mock exams together,
    newest first. Two queries."""
    sittings = quiz_sittings(learner_id, exam_id, count)
    sittings += _mock_sittings[0](learner_id, exam_id, count)
    sittings.sort(key=lambda sitting: sitting.started_at, reverse=True)
    return sittings[:count]


@dataclass(frozen=True)
class Plan:
    """The builder's choices, checked (see forms.QuizStartForm)."""

    exam: Exam
    topics: Sequence[Topic] = ()  # none: every topic of the exam
    # The item types of the questions outside case studies; a case study's questions come
    # together, included or left out as one (its scenario is read once for them all).
    kinds: Sequence[str] = field(default_factory=lambda: list(Kind.values))
    case_studies: bool = True
    selection: str = Selection.ANY
    length: int | None = 10  # None: all that match
    missed_in: int | None = None  # missed in the learner's last N sittings
    unseen_in: int | None = None  # not seen in the learner's last N sittings
    time_limit: timedelta | None = None  # None: untimed
    feedback: str = Feedback.EACH

    @property
    def topic(self) -> Topic | None:
        """The one topic chosen, if only one was: the quiz is named after it."""
        return self.topics[0] if len(self.topics) == 1 else None

    @property
    def label(self) -> str:
        """The quiz's name for several topics (one topic names it through `topic`)."""
        return ", ".join(topic.title for topic in self.topics) if len(self.topics) > 1 else ""

    @property
    def types_narrowed(self) -> bool:
        return set(self.kinds) != set(Kind.values) or not self.case_studies

    @property
    def narrowed(self) -> bool:
        """Whether more than the topics and the choice of questions narrow the draw."""
        return self.types_narrowed or bool(self.missed_in or self.unseen_in)

    def questions(self, learner: User) -> "QuerySet[Question]":
        """The published questions these choices give the learner, unordered. No query when
        no sitting filter is chosen; the two of `recent_sittings` otherwise."""
        questions = Question.objects.published().filter(topic__exam=self.exam)
        if self.topics:
            questions = questions.filter(topic__in=self.topics)
        if self.types_narrowed:
            types = Q(case_study__isnull=True, kind__in=list(self.kinds))
            if self.case_studies:
                types |= Q(case_study__isnull=False)
            questions = questions.filter(types)
        if self.missed_in or self.unseen_in:
            wanted = max(self.missed_in or 0, self.unseen_in or 0)
            sittings = recent_sittings(learner.pk, self.exam.pk, wanted)
            if self.missed_in:
                missed = set().union(*(s.missed for s in sittings[: self.missed_in]))
                questions = questions.filter(pk__in=missed)
            if self.unseen_in:
                seen = set().union(*(s.seen for s in sittings[: self.unseen_in]))
                questions = questions.exclude(pk__in=seen)
        return Selection.apply(self.selection, questions, learner)

    def count(self, learner: User) -> int:
        """How many questions the choices give (a case study drawn brings the rest of its
        questions too). One query, and those of the sitting filters."""
        return self.questions(learner).count()

    def draw(self, learner: User, rng: random.Random) -> list[int]:
        """The quiz's question ids, in its order: at random, each case study met whole; or,
        adaptive, chosen by the learner model among the questions the choices give."""
        questions = self.questions(learner)
        if self.selection == Selection.ADAPTIVE:
            # The learner's earlier answers to the exam's questions, then the queries of
            # `standings`: the model predicts the questions met before as such.
            counts = Attempt.objects.question_counts(
                learner.pk, Question.objects.published().filter(topic__exam=self.exam).values("pk")
            )
            among = set(questions.values_list("pk", flat=True))
            return adaptive_question_ids(
                learner, self.exam, self.topic, self.length, rng, counts, among=among
            )
        # Drawn with a margin, so that a case study that does not fit leaves room for others.
        drawn = questions.order_by("?").values_list("pk", "case_study_id")
        return together(list(drawn[: 2 * self.length] if self.length else drawn), self.length)

    def build(self, learner: User, rng: random.Random) -> Quiz | None:
        """A new quiz of these choices; None when they give no question."""
        ids = self.draw(learner, rng)
        if not ids:
            return None
        return Quiz.objects.start(
            learner=learner,
            exam=self.exam,
            topic=self.topic,
            selection=self.selection,
            length=self.length,
            question_ids=ids,
            feedback=self.feedback,
            time_limit=self.time_limit,
            label=self.label,
        )


def next_best(
    selection: str, questions: "QuerySet[Question]", learner: User
) -> tuple[Selection, int] | None:
    """When `selection` matches none of `questions`: the nearest choice that matches some,
    with how many it matches; None when none does. A count per choice tried."""
    for other in NEXT_BEST.get(selection, ()):
        count = Selection.apply(other, questions, learner).count()
        if count:
            return other, count
    return None


def retry_missed(quiz: Quiz) -> Quiz | None:
    """A new quiz of the questions `quiz` got wrong, in the same order, answered as that one
    was (after each question, or at the end), untimed."""
    missed = (
        Question.objects.published()
        .filter(pk__in=quiz.items.filter(attempt__is_correct=False).values("question_id"))
        .order_by("pk")
    )
    return Quiz.objects.start(
        learner=quiz.learner,
        exam=quiz.exam,
        topic=quiz.topic,
        selection=Selection.ANY,
        length=None,
        questions=missed,
        retry_of=quiz,
        feedback=quiz.feedback,
        label=quiz.label,
    )
