"""The learner's side: recorded attempts, practice quizzes, bookmarks, notes and problem
reports. Everything here belongs to one learner, and every view reaches it through that
learner (see `progress.views` and its access helpers)."""

import secrets
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import Decimal
from typing import Any

import fsrs
from django.db import IntegrityError, models, transaction
from django.db.models import (
    Case,
    Count,
    Exists,
    F,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
    When,
)
from django.db.models.functions import TruncDate
from django.urls import reverse
from django.utils import timezone

from progress.accounts.models import User
from progress.codes import new_code
from progress.engine.forecast import largest_remainder
from progress.readiness.models import LearnerReadiness
from questions.models import Exam, Grade, Option, Question, Status, Topic
from questions.pages import QuestionPage

# Time on one question beyond this is a learner who walked away, not one who was thinking.
MAX_TIME_SPENT = timedelta(hours=2)


class Selection(models.TextChoices):
    ANY = "any", "Any questions"
    UNANSWERED = "unanswered", "Not yet answered"
    WRONG = "wrong", "Answered wrong last time"
    BOOKMARKED = "bookmarked", "Bookmarked"
    DUE = "due", "Due for review"
    ADAPTIVE = "adaptive", "Adaptive: where practice helps most"

    @staticmethod
    def apply(
        selection: str, questions: "QuerySet[Question]", learner: "User"
    ) -> "QuerySet[Question]":
        """Narrow `questions` to the learner's choice. "Wrong" means the learner's latest
        answer to it was wrong: a question answered right since then has been learnt."""
        mine = Attempt.objects.filter(learner=learner, question=OuterRef("pk"))
        if selection == Selection.UNANSWERED:
            return questions.exclude(Exists(mine))
        if selection == Selection.WRONG:
            latest = mine.order_by("-answered_at", "-pk").values("is_correct")[:1]
            return questions.annotate(last_right=Subquery(latest)).filter(last_right=False)
        if selection == Selection.DUE:
            return questions.filter(
                Exists(
                    ReviewCard.objects.filter(
                        learner=learner, question=OuterRef("pk"), due__lte=timezone.now()
                    )
                )
            )
        if selection == Selection.BOOKMARKED:
            return questions.filter(
                Exists(Bookmark.objects.filter(learner=learner, question=OuterRef("pk")))
            )
        return questions


class Source(models.TextChoices):
    PAGE = "page", "Question page"
    QUIZ = "quiz", "Practice quiz"
    MOCK = "mock", "Mock exam"


class QuizQuerySet(models.QuerySet["Quiz"]):
    def for_learner(self, learner: User) -> "QuizQuerySet":
        return self.filter(learner=learner)

    def in_progress(self) -> "QuizQuerySet":
        return self.filter(finished_at__isnull=True)

    def start(
        self,
        *,
        learner: User,
        exam: Exam,
        topic: Topic | None,
        selection: str,
        length: int | None,
        questions: "QuerySet[Question] | None" = None,
        question_ids: Sequence[int] | None = None,
        retry_of: "Quiz | None" = None,
    ) -> "Quiz | None":
        """A new quiz of up to `length` (None: all) published questions of the topic (or of
        the whole exam), chosen by `selection`, in random order; None when none match. A
        caller that drew the questions itself (an adaptive draw) gives their ids instead, in
        the quiz's order. Three queries: the draw, the quiz, its items."""
        if question_ids is not None:
            ids = list(question_ids)
        else:
            if questions is None:
                questions = Question.objects.published().filter(topic__exam=exam)
                if topic is not None:
                    questions = questions.filter(topic=topic)
                questions = questions.order_by("?")
            questions = Selection.apply(selection, questions, learner)
            ids = list(questions.values_list("pk", flat=True)[:length])
        if not ids:
            return None
        with transaction.atomic():
            quiz = self.create(
                learner=learner,
                exam=exam,
                topic=topic,
                selection=selection,
                retry_of=retry_of,
                item_count=len(ids),
            )
            QuizItem.objects.bulk_create(
                QuizItem(quiz=quiz, position=position, question_id=pk)
                for position, pk in enumerate(ids)
            )
        return quiz


class Quiz(models.Model):
    """A practice session: a fixed list of questions (QuizItem), answered one at a time."""

    code = models.CharField(max_length=20, unique=True, default=new_code, editable=False)
    learner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="quizzes")
    exam = models.ForeignKey(Exam, on_delete=models.CASCADE, related_name="+")
    topic = models.ForeignKey(
        Topic, on_delete=models.SET_NULL, null=True, blank=True, related_name="+",
        help_text="Empty for a mixed quiz over every topic of the exam.",
    )  # fmt: skip
    selection = models.CharField(max_length=12, choices=Selection.choices, default=Selection.ANY)
    retry_of = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Kept by Attempt.objects.record in the attempt's transaction, so that showing progress
    # never counts the items.
    item_count = models.PositiveIntegerField(default=0)
    answered_count = models.PositiveIntegerField(default=0)
    right_count = models.PositiveIntegerField(default=0)

    objects = QuizQuerySet.as_manager()

    class Meta:
        verbose_name_plural = "quizzes"
        indexes = [
            # "Your quizzes in progress" on the learner's pages.
            models.Index(fields=["learner", "finished_at"], name="quiz_learner_open"),
        ]

    def __str__(self) -> str:
        where = self.topic.title if self.topic_id and self.topic else "all topics"
        return f"Quiz {self.code} ({where})"

    def get_absolute_url(self) -> str:
        return reverse("quiz_resume", args=[self.code])

    @property
    def title(self) -> str:
        return self.topic.title if self.topic else f"{self.exam.code}: all topics"

    @property
    def is_finished(self) -> bool:
        return self.finished_at is not None

    def next_item(self) -> "QuizItem | None":
        """The first unanswered item (skipping questions deleted since). One query."""
        return (
            self.items.filter(attempt__isnull=True, question__isnull=False)
            .order_by("position")
            .first()
        )

    def tally(self) -> "Tally":
        """How far the learner got and how well: from the stored counters, no query."""
        return Tally(total=self.item_count, answered=self.answered_count, right=self.right_count)

    def finish_if_stuck(self) -> None:
        """Finish a quiz whose unanswered items all lost their question (deleted from the
        bank since): nothing is left to answer. One query."""
        if self.next_item() is None and self.finished_at is None:
            self.finished_at = timezone.now()
            Quiz.objects.filter(pk=self.pk).update(finished_at=self.finished_at)

    def retry_missed(self) -> "Quiz | None":
        """A new quiz of the questions this one got wrong, in the same order."""
        missed = Question.objects.filter(
            pk__in=self.items.filter(attempt__is_correct=False).values("question_id")
        ).order_by("pk")
        return Quiz.objects.start(
            learner=self.learner,
            exam=self.exam,
            topic=self.topic,
            selection=Selection.ANY,
            length=None,
            questions=missed,
            retry_of=self,
        )


@dataclass(frozen=True)
class Tally:
    total: int
    answered: int
    right: int

    @property
    def percent(self) -> int:
        return round(100 * self.right / self.answered) if self.answered else 0


class QuizItem(models.Model):
    quiz = models.ForeignKey(Quiz, on_delete=models.CASCADE, related_name="items")
    position = models.PositiveSmallIntegerField()
    # A question deleted later leaves the item (and its attempt) in place, unanswerable.
    question = models.ForeignKey(
        Question, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # When the question was first shown: the start of the time spent on it.
    served_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["position"]
        constraints = [
            # Its index also serves "the items of this quiz, in order".
            models.UniqueConstraint(fields=["quiz", "position"], name="quiz_item_position"),
        ]

    def __str__(self) -> str:
        return f"{self.quiz.code} #{self.position + 1}"


class AttemptQuerySet(models.QuerySet["Attempt"]):
    def for_learner(self, learner: User) -> "AttemptQuerySet":
        return self.filter(learner=learner)

    def record(
        self,
        *,
        learner: User,
        page: QuestionPage,
        grade: Grade,
        source: str,
        served_at: datetime | None = None,
        quiz_item: "QuizItem | None" = None,
        nonce: str = "",
    ) -> tuple["Attempt", bool]:
        """Record an answer exactly once; returns (attempt, created). A second post of the same
        quiz item or the same served page (double click, resubmitted form, two tabs) hits a
        unique constraint and gets the attempt recorded first, on SQLite and PostgreSQL alike.
        Queries: savepoint, those of `insert_answers`, release; a duplicate: a rollback and a
        select."""
        now = timezone.now()
        spent = now - served_at if served_at else None
        if spent is not None and (spent < timedelta(0) or spent > MAX_TIME_SPENT):
            spent = None  # a clock oddity or a learner who walked away: not a measurement
        chosen = [
            {"key": option.key, "text": option.text, "correct": option.is_correct}
            for option in page.options
            if option.key in grade.chosen
        ]
        attempt = Attempt(
            learner=learner,
            question_id=page.question_id,
            question_uid=page.uid,
            exam_id=page.exam_id,
            topic_id=page.topic_id,
            chosen=chosen,
            is_correct=grade.is_correct,
            time_spent=spent,
            source=source,
            quiz_item=quiz_item,
            serve_nonce=nonce,
            answered_at=now,
        )
        try:
            with transaction.atomic():
                if quiz_item is not None:
                    _count_answer(quiz_item.quiz_id, grade.is_correct, now)
                self.insert_answers(learner.pk, [attempt], counted_at=now)
        except IntegrityError:
            if quiz_item is not None:
                return self.get(quiz_item=quiz_item), False
            if nonce:
                return self.get(learner=learner, serve_nonce=nonce), False
            raise
        return attempt, True

    def insert_answers(
        self, learner_id: int, attempts: list["Attempt"], *, counted_at: datetime
    ) -> None:
        """Insert a learner's new attempts and make every change an answer makes, in the
        caller's transaction: the readiness state, the review cards, the daily totals (the
        answers counted on the day of `counted_at`). The readiness rows are locked before the
        attempts get their ids, so that the id order is the order of the updates (see
        LearnerReadiness.objects.lock). Queries, whatever the number of attempts: the lock's,
        the learner's earlier answers to these questions, the insert, the review cards (read,
        then write those that change), the daily totals, the readiness update."""
        question_ids = [a.question_id for a in attempts if a.question_id is not None]
        readiness = LearnerReadiness.objects.lock(learner_id, question_ids)
        counts = self.question_counts(learner_id, question_ids)
        Attempt.objects.bulk_create(attempts)
        ReviewCard.objects.schedule(
            learner_id,
            [(a.question_id, a.is_correct, a.answered_at) for a in attempts if a.question_id],
        )
        LearnerDay.objects.count_answers(
            learner_id, [(counted_at, a.is_correct, a.time_spent) for a in attempts]
        )
        readiness.apply([(a.pk, a.question_id, a.topic_id, a.is_correct) for a in attempts], counts)

    def question_counts(self, learner_id: int, question_ids: Any) -> dict[int, list[int]]:
        """[right, wrong] answers of the learner to each of these questions (ids, or a query of
        them): an index-only count per question, on the attempt_learner_q index. The learner
        model reads them as features of a question met before; they are not kept in its
        stored state, which would then grow with every question answered."""
        if not isinstance(question_ids, QuerySet):
            question_ids = list(question_ids)
        rows = (
            self.filter(learner_id=learner_id, question_id__in=question_ids)
            .values("question_id")
            .annotate(
                right=Count("pk", filter=Q(is_correct=True)),
                wrong=Count("pk", filter=Q(is_correct=False)),
            )
            .order_by()
        )
        return {row["question_id"]: [row["right"], row["wrong"]] for row in rows}

    def answers_after(
        self, attempt_id: int
    ) -> Iterator[tuple[int, int, int | None, int | None, bool]]:
        """(attempt id, learner, question, topic, correct) of the attempts after this one, in
        id order: what the readiness rebuild replays (an AnswerLog)."""
        return (
            self.filter(pk__gt=attempt_id)
            .order_by("pk")
            .values_list("pk", "learner_id", "question_id", "topic_id", "is_correct")
            .iterator(chunk_size=5000)
        )


def _count_answer(quiz_id: int, is_correct: bool, now: datetime) -> None:
    """One more answered item of the quiz (and right one); finished with the last one. The
    row lock this UPDATE takes also queues two posts of the same item, so that the loser's
    insert fails on the unique constraint and its counting is rolled back with it."""
    Quiz.objects.filter(pk=quiz_id).update(
        answered_count=F("answered_count") + 1,
        right_count=F("right_count") + (1 if is_correct else 0),
        finished_at=Case(
            When(
                answered_count__gte=F("item_count") - 1, finished_at__isnull=True, then=Value(now)
            ),
            default=F("finished_at"),
        ),
    )


class Attempt(models.Model):
    """One answer. It keeps what was chosen as it was shown then (option texts and which were
    correct), so editing or deleting the question later changes nothing here."""

    learner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="attempts")
    question = models.ForeignKey(
        Question, on_delete=models.SET_NULL, null=True, blank=True, related_name="attempts"
    )
    question_uid = models.CharField(max_length=80)
    exam = models.ForeignKey(Exam, on_delete=models.SET_NULL, null=True, related_name="+")
    topic = models.ForeignKey(Topic, on_delete=models.SET_NULL, null=True, related_name="+")
    # [{"key": ..., "text": ..., "correct": bool}] for each chosen option.
    chosen = models.JSONField()
    is_correct = models.BooleanField()
    time_spent = models.DurationField(null=True, blank=True)
    source = models.CharField(max_length=8, choices=Source.choices)
    # Exactly once: a quiz item takes one attempt; a question page form carries a nonce that
    # takes one attempt per learner. Both enforced by the database.
    quiz_item = models.OneToOneField(
        QuizItem, on_delete=models.SET_NULL, null=True, blank=True, related_name="attempt"
    )
    mock_item = models.OneToOneField(
        "MockItem", on_delete=models.SET_NULL, null=True, blank=True, related_name="attempt"
    )
    serve_nonce = models.CharField(max_length=32, blank=True, default="")
    answered_at = models.DateTimeField(default=timezone.now)

    objects = AttemptQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["learner", "serve_nonce"],
                condition=~Q(serve_nonce=""),
                name="attempt_once_per_served_page",
            ),
        ]
        indexes = [
            # The history page: a learner's attempts, newest first.
            models.Index(fields=["learner", "-answered_at"], name="attempt_learner_recent"),
            # Quiz selection: which questions a learner answered, and got wrong.
            models.Index(fields=["learner", "question", "is_correct"], name="attempt_learner_q"),
        ]

    def __str__(self) -> str:
        return f"{self.learner} on {self.question_uid}: {'right' if self.is_correct else 'wrong'}"

    @property
    def chosen_texts(self) -> list[str]:
        return [str(item.get("text", "")) for item in self.chosen]


# Binary grades, as the product has them: a wrong answer is "again", a right one "good". The
# learning steps suit exam practice (see it again in ten minutes, then tomorrow); fuzzing
# spreads the reviews of questions missed together over neighbouring days.
SCHEDULER = fsrs.Scheduler(
    learning_steps=(timedelta(minutes=10), timedelta(days=1)),
    relearning_steps=(timedelta(days=1),),
    enable_fuzzing=True,
)


class ReviewCardQuerySet(models.QuerySet["ReviewCard"]):
    def due(self, learner: User, now: datetime | None = None) -> "ReviewCardQuerySet":
        return self.filter(learner=learner, due__lte=now or timezone.now())

    def schedule(self, learner_id: int, answers: Sequence[tuple[int, bool, datetime]]) -> None:
        """Reschedule the learner's cards after these answers (question id, right, when): a
        wrong answer makes a card if there was none; a right one moves an existing card on.
        A fixed number of queries however many answers: read the cards, insert, update."""
        if not answers:
            return
        cards = {
            card.question_id: card
            for card in self.select_for_update().filter(
                learner_id=learner_id, question_id__in={qid for qid, _, _ in answers}
            )
        }
        new: dict[int, ReviewCard] = {}
        changed: dict[int, ReviewCard] = {}
        for question_id, right, when in answers:
            card = cards.get(question_id) or new.get(question_id)
            if card is None:
                if right:
                    continue  # right first time: nothing to review
                card = ReviewCard(learner_id=learner_id, question_id=question_id)
                new[question_id] = card
            elif question_id in cards:
                changed[question_id] = card
            card.review(right, when)
        ReviewCard.objects.bulk_create(list(new.values()))
        ReviewCard.objects.bulk_update(list(changed.values()), ["card", "due", "reviews"])


class ReviewCard(models.Model):
    """A question the learner got wrong, coming back on a spaced-repetition schedule (FSRS)."""

    learner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="review_cards")
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+")
    card = models.JSONField(default=dict)  # fsrs.Card.to_dict()
    due = models.DateTimeField(default=timezone.now)
    reviews = models.PositiveIntegerField(default=0)

    objects = ReviewCardQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["learner", "question"], name="review_card_once"),
        ]
        indexes = [
            # "Review due questions (N)": a learner's cards due by now.
            models.Index(fields=["learner", "due"], name="review_card_learner_due"),
        ]

    def __str__(self) -> str:
        return f"{self.learner_id} reviews {self.question_id} on {self.due:%Y-%m-%d %H:%M}"

    def review(self, right: bool, when: datetime) -> None:
        card = fsrs.Card.from_dict(self.card) if self.card else fsrs.Card(due=when)
        rating = fsrs.Rating.Good if right else fsrs.Rating.Again
        card, _ = SCHEDULER.review_card(card, rating, review_datetime=when)
        self.card, self.due, self.reviews = card.to_dict(), card.due, self.reviews + 1


class LearnerDayQuerySet(models.QuerySet["LearnerDay"]):
    def count_answers(
        self, learner_id: int, answers: Sequence[tuple[datetime, bool, timedelta | None]]
    ) -> None:
        """Add answers (when, right, time spent) to the learner's daily totals, in the caller's
        transaction."""
        days: dict[date, list[int]] = {}
        for when, is_right, spent in answers:
            totals = days.setdefault(timezone.localdate(when), [0, 0, 0, 0])
            totals[0] += 1
            totals[1] += int(is_right)
            if spent is not None:
                totals[2] += 1
                totals[3] += round(spent.total_seconds())
        # The day's row first if missing (a no-op when it exists, race-free on both databases),
        # then the increments: two queries per day, whatever happened before.
        LearnerDay.objects.bulk_create(
            [LearnerDay(learner_id=learner_id, day=day) for day in days], ignore_conflicts=True
        )
        for day, (count, right, timed, seconds) in days.items():
            self.filter(learner_id=learner_id, day=day).update(
                answers=F("answers") + count,
                right=F("right") + right,
                timed_answers=F("timed_answers") + timed,
                seconds=F("seconds") + seconds,
            )

    def rebuild(self, learner_id: int | None = None) -> int:
        """Recompute the daily totals from the attempts (all learners, or one). Returns the
        number of rows written."""
        attempts = Attempt.objects.all()
        if learner_id is not None:
            attempts = attempts.filter(learner_id=learner_id)
        rows = (
            attempts.annotate(day=TruncDate("answered_at"))
            .values("learner_id", "day")
            .annotate(
                n=Count("pk"),
                r=Count("pk", filter=Q(is_correct=True)),
                t=Count("pk", filter=Q(time_spent__isnull=False)),
                s=Sum("time_spent"),
            )
        )
        with transaction.atomic():
            existing = self.all() if learner_id is None else self.filter(learner_id=learner_id)
            existing.delete()
            written = LearnerDay.objects.bulk_create(
                LearnerDay(
                    learner_id=row["learner_id"], day=row["day"], answers=row["n"],
                    right=row["r"], timed_answers=row["t"],
                    seconds=round(row["s"].total_seconds()) if row["s"] else 0,
                )
                for row in rows
            )  # fmt: skip
        return len(written)


class LearnerDay(models.Model):
    """A learner's answers of one day: what the study analytics read, kept up to date by every
    recorded answer so that no page counts attempts."""

    learner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="days")
    day = models.DateField()
    answers = models.PositiveIntegerField(default=0)
    right = models.PositiveIntegerField(default=0)
    timed_answers = models.PositiveIntegerField(default=0)
    seconds = models.PositiveIntegerField(default=0)

    objects = LearnerDayQuerySet.as_manager()

    class Meta:
        constraints = [
            # Its index also serves the analytics: a learner's days, by date.
            models.UniqueConstraint(fields=["learner", "day"], name="learner_day_once"),
        ]

    def __str__(self) -> str:
        return f"{self.learner_id} on {self.day}: {self.right}/{self.answers}"


class Bookmark(models.Model):
    learner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="bookmarks")
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            # Its index also serves "this learner's bookmarks".
            models.UniqueConstraint(fields=["learner", "question"], name="bookmark_once"),
        ]

    def __str__(self) -> str:
        return f"{self.learner} ★ {self.question_id}"


class Note(models.Model):
    learner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="notes")
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+")
    text = models.TextField(max_length=5000)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            # Its index also serves "this learner's notes on these questions".
            models.UniqueConstraint(fields=["learner", "question"], name="note_once"),
        ]

    def __str__(self) -> str:
        return f"{self.learner} on {self.question_id}: {self.text[:40]}"


class ReportKind(models.TextChoices):
    WRONG_KEY = "wrong-key", "The marked answer is wrong"
    UNCLEAR = "unclear", "The wording is unclear"
    OUTDATED = "outdated", "It is outdated"
    TYPO = "typo", "Typo or formatting"
    OTHER = "other", "Something else"


class ReportStatus(models.TextChoices):
    OPEN = "open", "Open"
    RESOLVED = "resolved", "Resolved"


class ProblemReport(models.Model):
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="problem_reports")
    reporter = models.ForeignKey(
        User, on_delete=models.SET_NULL, null=True, related_name="problem_reports"
    )
    kind = models.CharField(max_length=12, choices=ReportKind.choices)
    details = models.TextField(max_length=5000, blank=True)
    status = models.CharField(
        max_length=10, choices=ReportStatus.choices, default=ReportStatus.OPEN
    )
    created_at = models.DateTimeField(default=timezone.now)
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            # The admin's triage list (open first) and the open-report count per question.
            models.Index(fields=["status", "question"], name="report_status_question"),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} on {self.question_id} ({self.status})"


@dataclass(frozen=True)
class TopicDraw:
    topic: Topic
    wanted: int
    available: int

    @property
    def drawn(self) -> int:
        return min(self.wanted, self.available)

    @property
    def short(self) -> bool:
        return self.available < self.wanted


def plan_mock(exam: Exam) -> list[TopicDraw]:
    """How many questions each topic gives to a mock exam of `exam`'s shape, and how many it
    has. Two queries."""
    topics = list(
        exam.topics.annotate(
            available=Count("questions", filter=Q(questions__status=Status.PUBLISHED))
        ).order_by("position", "slug")
    )
    counts = largest_remainder(exam.mock_question_count or 0, [t.weight for t in topics])
    return [
        TopicDraw(topic=topic, wanted=count, available=topic.available)
        for topic, count in zip(topics, counts, strict=True)
    ]


class MockExamQuerySet(models.QuerySet["MockExam"]):
    def for_learner(self, learner: User) -> "MockExamQuerySet":
        return self.filter(learner=learner)

    def in_progress(self) -> "MockExamQuerySet":
        return self.filter(submitted_at__isnull=True)

    def submit_expired(self, learner: User) -> int:
        """Submit, as they stood at their deadline, the learner's mock exams whose time ran out
        (the learner may never have come back). Returns how many."""
        expired = list(self.for_learner(learner).in_progress().filter(deadline__lte=timezone.now()))
        for mock in expired:
            mock.submit(at=mock.deadline)
        return len(expired)

    def start(self, *, learner: User, exam: Exam) -> "MockExam":
        """Resume the learner's mock exam of `exam` in progress, or draw a new one: per topic
        by the blueprint weights, at random within a topic, questions this learner has not met
        in earlier mock exams first."""
        self.submit_expired(learner)
        current = self.for_learner(learner).in_progress().filter(exam=exam).first()
        if current is not None:
            return current
        seen = MockItem.objects.filter(mock__learner=learner, question=OuterRef("pk"))
        chosen: list[Question] = []
        for draw in plan_mock(exam):
            if draw.drawn:
                chosen += list(
                    Question.objects.published()
                    .filter(topic=draw.topic)
                    .annotate(seen=Exists(seen))
                    .order_by("seen", "?")[: draw.drawn]
                )
        now = timezone.now()
        minutes = exam.mock_duration_minutes or 0
        try:
            with transaction.atomic():
                mock = self.create(
                    learner=learner,
                    exam=exam,
                    question_count=len(chosen),
                    duration_minutes=minutes,
                    pass_percent=exam.mock_pass_percent or Decimal(0),
                    started_at=now,
                    deadline=now + timedelta(minutes=minutes),
                )
                MockItem.objects.bulk_create(
                    MockItem(mock=mock, position=position, question=q, topic_id=q.topic_id)
                    for position, q in enumerate(chosen)
                )
        except IntegrityError:  # started in another tab at the same moment: that one wins
            return self.for_learner(learner).in_progress().get(exam=exam)
        return mock


class MockExam(models.Model):
    """One sitting of a mock exam. The shape is copied from the exam when it starts, so that
    a later change of the exam does not change a sitting in progress or its report."""

    code = models.CharField(max_length=20, unique=True, default=new_code, editable=False)
    learner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="mock_exams")
    exam = models.ForeignKey(Exam, on_delete=models.CASCADE, related_name="+")
    question_count = models.PositiveSmallIntegerField()
    duration_minutes = models.PositiveSmallIntegerField()
    pass_percent = models.DecimalField(max_digits=5, decimal_places=2)
    started_at = models.DateTimeField()
    deadline = models.DateTimeField()
    submitted_at = models.DateTimeField(null=True, blank=True)
    right_count = models.PositiveSmallIntegerField(default=0)

    objects = MockExamQuerySet.as_manager()

    class Meta:
        constraints = [
            # One mock exam in progress per exam and learner: starting again resumes it.
            models.UniqueConstraint(
                fields=["learner", "exam"],
                condition=Q(submitted_at__isnull=True),
                name="mock_exam_one_in_progress",
            ),
        ]
        indexes = [
            # The learner's earlier sittings of an exam, for the report's trend.
            models.Index(fields=["learner", "exam", "started_at"], name="mock_exam_learner_exam"),
        ]

    def __str__(self) -> str:
        return f"Mock exam {self.code} of {self.exam_id}"

    @property
    def is_submitted(self) -> bool:
        return self.submitted_at is not None

    @property
    def time_is_up(self) -> bool:
        return timezone.now() >= self.deadline

    @property
    def seconds_left(self) -> int:
        """What the countdown starts from; the server's deadline decides, not the page."""
        return max(0, int((self.deadline - timezone.now()).total_seconds()))

    @property
    def percent(self) -> float:
        return 100 * self.right_count / self.question_count if self.question_count else 0.0

    @property
    def passed(self) -> bool:
        return self.is_submitted and Decimal(str(self.percent)) >= self.pass_percent

    @property
    def time_used(self) -> timedelta:
        end = self.submitted_at or timezone.now()
        return min(end, self.deadline) - self.started_at

    def submit(self, at: datetime | None = None) -> bool:
        """Grade every item and record the answers as attempts, once: the first caller to
        flip `submitted_at` does it, in one transaction; a second (another tab, the deadline
        sweep) finds it done and returns False. Queries: a fixed handful plus the answered
        questions' options, fetched in one."""
        at = at or timezone.now()
        with transaction.atomic():
            won = MockExam.objects.filter(pk=self.pk, submitted_at__isnull=True).update(
                submitted_at=at
            )
            if not won:
                self.refresh_from_db()
                return False
            items = list(self.items.select_related("question__topic"))
            correct: dict[int, set[str]] = {}
            texts: dict[str, str] = {}
            for option in Option.objects.filter(
                question__in=[i.question_id for i in items if i.question_id]
            ):
                texts[option.key] = option.text
                if option.is_correct:
                    correct.setdefault(option.question_id, set()).add(option.key)
            attempts = []
            for item in items:
                chosen, right = set(item.chosen_keys), correct.get(item.question_id or 0, set())
                item.is_correct = bool(chosen) and chosen == right
                if not chosen or item.question is None:
                    continue  # unanswered: it counts as wrong, but no answer was given
                attempts.append(
                    Attempt(
                        learner_id=self.learner_id,
                        question=item.question,
                        question_uid=item.question.uid,
                        exam_id=self.exam_id,
                        topic_id=item.topic_id,
                        chosen=[
                            {"key": key, "text": texts.get(key, ""), "correct": key in right}
                            for key in item.chosen_keys
                        ],
                        is_correct=item.is_correct,
                        source=Source.MOCK,
                        mock_item=item,
                        answered_at=item.answered_at or at,
                    )
                )
            MockItem.objects.bulk_update(items, ["is_correct"])
            Attempt.objects.insert_answers(self.learner_id, attempts, counted_at=at)
            self.right_count = sum(1 for item in items if item.is_correct)
            self.submitted_at = at
            MockExam.objects.filter(pk=self.pk).update(right_count=self.right_count)
        return True


class MockItem(models.Model):
    mock = models.ForeignKey(MockExam, on_delete=models.CASCADE, related_name="items")
    position = models.PositiveSmallIntegerField()
    question = models.ForeignKey(
        Question, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # The topic it was drawn for: the report scores by it even if the question moves later.
    topic = models.ForeignKey(Topic, on_delete=models.SET_NULL, null=True, related_name="+")
    chosen_keys = models.JSONField(default=list)
    flagged = models.BooleanField(default=False)
    answered_at = models.DateTimeField(null=True, blank=True)
    is_correct = models.BooleanField(null=True)  # set at submission

    class Meta:
        ordering = ["position"]
        constraints = [
            # Its index also serves "the items of this sitting, in order" (the navigator).
            models.UniqueConstraint(fields=["mock", "position"], name="mock_item_position"),
        ]

    def __str__(self) -> str:
        return f"{self.mock.code} #{self.position + 1}"

    @property
    def is_answered(self) -> bool:
        return bool(self.chosen_keys)


# --- Cohorts: instructors following learners preparing for one exam -------------------------


def new_join_code() -> str:
    # Short enough to read out in a classroom, long enough not to be guessed.
    return secrets.token_urlsafe(6)


class CohortQuerySet(models.QuerySet["Cohort"]):
    def for_instructor(self, user: User) -> "CohortQuerySet":
        """The cohorts `user` may see as an instructor: their own; every cohort for an admin."""
        if user.is_superuser:
            return self.all()
        return self.filter(instructors=user)


class Cohort(models.Model):
    """A class preparing for one exam, followed by one or more instructors. Learners join
    with the join code (which an instructor can replace) and may leave."""

    code = models.CharField(max_length=20, unique=True, default=new_code, editable=False)
    name = models.CharField(max_length=120)
    exam = models.ForeignKey(Exam, on_delete=models.CASCADE, related_name="+")
    target_date = models.DateField(
        null=True, blank=True, help_text="The day the class means to sit the real exam."
    )
    join_code = models.CharField(max_length=20, unique=True, default=new_join_code)
    instructors = models.ManyToManyField(User, related_name="teaching")
    learners = models.ManyToManyField(User, through="Membership", related_name="cohorts")
    created_at = models.DateTimeField(default=timezone.now)

    objects = CohortQuerySet.as_manager()

    def __str__(self) -> str:
        return f"{self.name} ({self.exam_id})"

    def get_absolute_url(self) -> str:
        return reverse("cohort_detail", args=[self.code])

    def join_url(self) -> str:
        return reverse("cohort_join", args=[self.join_code])

    def regenerate_join_code(self) -> None:
        """A new join code: the old link stops working; learners who joined stay."""
        self.join_code = new_join_code()
        Cohort.objects.filter(pk=self.pk).update(join_code=self.join_code)


class Membership(models.Model):
    cohort = models.ForeignKey(Cohort, on_delete=models.CASCADE, related_name="memberships")
    learner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="memberships")
    joined_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            # Its index also serves "the learners of this cohort".
            models.UniqueConstraint(fields=["cohort", "learner"], name="membership_once"),
        ]
        indexes = [
            # "Your cohorts" on the learner's page.
            models.Index(fields=["learner"], name="membership_learner"),
        ]

    def __str__(self) -> str:
        return f"{self.learner_id} in {self.cohort_id}"


# --- Item analysis ---------------------------------------------------------------------------

# Below this many learners, a question's figures are shown but not flagged: too few to judge.
MIN_FLAG_LEARNERS = 10


class ItemStatistic(models.Model):
    """A question's statistics over the attempts of everyone (cohort empty) or of one cohort's
    learners, as `compute_item_statistics` last computed them (pages read these, never the
    attempts). Facility and discrimination are over each learner's first answer to the
    question, as in a test: facility is the share right; discrimination is the correlation
    of that answer with the learner's score on the exam's other questions (the "rest of the
    test" of Moodle's quiz statistics)."""

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="statistics")
    cohort = models.ForeignKey(
        Cohort, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    attempts = models.PositiveIntegerField(default=0)  # every answer, repeats included
    learners = models.PositiveIntegerField(default=0)  # learners with a first answer
    facility = models.FloatField(null=True)  # 0..1
    discrimination = models.FloatField(null=True)  # -1..1; None when it cannot be computed
    # Option key -> how many answers chose it (an answer may choose several).
    option_counts = models.JSONField(default=dict)
    median_seconds = models.FloatField(null=True)
    flags = models.JSONField(default=list)  # [[code, reason], ...]
    flagged = models.BooleanField(default=False)  # any flag: what "flags first" sorts on
    computed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            # Its index also serves "this cohort's figures for these questions".
            models.UniqueConstraint(fields=["cohort", "question"], name="item_statistic_once"),
            models.UniqueConstraint(
                fields=["question"],
                condition=Q(cohort__isnull=True),
                name="item_statistic_once_overall",
            ),
        ]

    def __str__(self) -> str:
        return f"Statistics of {self.question_id} ({self.cohort_id or 'everyone'})"

    @property
    def flag_codes(self) -> list[str]:
        return [code for code, _ in self.flags]


def item_flags(
    learners: int, facility: float | None, discrimination: float | None
) -> list[list[str]]:
    """[code, reason] for a question whose figures look wrong; none below MIN_FLAG_LEARNERS."""
    if learners < MIN_FLAG_LEARNERS or facility is None:
        return []
    flags = []
    if discrimination is not None and discrimination < 0:
        flags.append(
            [
                "check-key",
                f"check the key: learners who do well on the rest of the exam get it wrong "
                f"more often (discrimination {discrimination:+.2f})",
            ]
        )
    if facility < 0.10:
        flags.append(["too-hard", f"too hard: {facility:.0%} right (or the key is wrong)"])
    elif facility > 0.95:
        flags.append(["too-easy", f"too easy: {facility:.0%} right"])
    return flags


class _Moments:
    """Running sums for a correlation and a mean."""

    __slots__ = ("n", "sx", "sxx", "sxy", "sy", "syy")

    def __init__(self) -> None:
        self.n = 0
        self.sx = self.sy = self.sxx = self.syy = self.sxy = 0.0

    def add(self, x: float, y: float) -> None:
        self.n += 1
        self.sx += x
        self.sy += y
        self.sxx += x * x
        self.syy += y * y
        self.sxy += x * y

    def correlation(self) -> float | None:
        if self.n < 2:
            return None
        vx = self.sxx - self.sx * self.sx / self.n
        vy = self.syy - self.sy * self.sy / self.n
        if vx <= 1e-12 or vy <= 1e-12:
            return None  # everyone right (or wrong), or every rest score alike
        return (self.sxy - self.sx * self.sy / self.n) / (vx * vy) ** 0.5


@dataclass
class _ItemTally:
    attempts: int = 0
    options: dict[str, int] = field(default_factory=dict)
    seconds: list[float] = field(default_factory=list)
    firsts: int = 0
    right: int = 0
    moments: _Moments = field(default_factory=_Moments)


def compute_item_statistics(progress: Callable[[int], None] | None = None) -> int:
    """Recompute every question's statistics, for everyone and for each cohort (its learners'
    attempts on its exam), from the attempts: one pass over them in learner order, then one
    transaction that replaces the stored figures. Returns the number of rows written."""
    cohorts_of: dict[int, list[tuple[int, int]]] = {}  # learner -> [(cohort, exam)]
    for cohort_id, exam_id, learner_id in Membership.objects.values_list(
        "cohort_id", "cohort__exam_id", "learner_id"
    ):
        cohorts_of.setdefault(learner_id, []).append((cohort_id, exam_id))
    tallies: dict[tuple[int | None, int], _ItemTally] = {}
    rows = (
        Attempt.objects.filter(question__isnull=False)
        .order_by("learner_id", "pk")
        .values_list("learner_id", "question_id", "exam_id", "is_correct", "chosen", "time_spent")
        .iterator(chunk_size=10_000)
    )
    done = 0
    learner: list[tuple[int, int | None, bool, Any, timedelta | None]] = []
    current: int | None = None

    def flush(learner_id: int | None) -> None:
        if learner_id is None:
            return
        scopes_by_exam: dict[int | None, list[int | None]] = {}
        for cohort_id, cohort_exam in cohorts_of.get(learner_id, []):
            scopes_by_exam.setdefault(cohort_exam, []).append(cohort_id)
        # First answers per question, and the learner's score per exam over them.
        first: dict[int, bool] = {}
        exam_of: dict[int, int | None] = {}
        for question_id, exam_id, correct, chosen, spent in learner:
            scopes: list[int | None] = [None, *scopes_by_exam.get(exam_id, [])]
            for scope in scopes:
                tally = tallies.get((scope, question_id))
                if tally is None:
                    tally = tallies[(scope, question_id)] = _ItemTally()
                tally.attempts += 1
                for choice in chosen or []:
                    key = str(choice.get("key", ""))
                    tally.options[key] = tally.options.get(key, 0) + 1
                if spent is not None:
                    tally.seconds.append(spent.total_seconds())
            if question_id not in first:
                first[question_id] = correct
                exam_of[question_id] = exam_id
        totals: dict[int | None, list[int]] = {}
        for question_id, correct in first.items():
            total = totals.setdefault(exam_of[question_id], [0, 0])
            total[0] += int(correct)
            total[1] += 1
        for question_id, correct in first.items():
            exam_id = exam_of[question_id]
            right, count = totals[exam_id]
            rest = (right - int(correct)) / (count - 1) if count > 1 else None
            for scope in [None, *scopes_by_exam.get(exam_id, [])]:
                tally = tallies[(scope, question_id)]
                tally.firsts += 1
                tally.right += int(correct)
                if rest is not None:
                    tally.moments.add(float(correct), rest)

    for learner_id, question_id, exam_id, correct, chosen, spent in rows:
        if learner_id != current:
            flush(current)
            current, learner = learner_id, []
        learner.append((question_id, exam_id, correct, chosen, spent))
        done += 1
        if progress is not None and done % 100_000 == 0:
            progress(done)
    flush(current)
    now = timezone.now()
    statistics = []
    for (scope, question_id), tally in tallies.items():
        facility = tally.right / tally.firsts if tally.firsts else None
        discrimination = tally.moments.correlation()
        seconds = sorted(tally.seconds)
        median = None
        if seconds:
            middle = len(seconds) // 2
            median = (
                seconds[middle] if len(seconds) % 2 else (seconds[middle - 1] + seconds[middle]) / 2
            )
        flags = item_flags(tally.firsts, facility, discrimination)
        statistics.append(
            ItemStatistic(
                question_id=question_id, cohort_id=scope, attempts=tally.attempts,
                learners=tally.firsts, facility=facility, discrimination=discrimination,
                option_counts=tally.options, median_seconds=median,
                flags=flags, flagged=bool(flags), computed_at=now,
            )
        )  # fmt: skip
    with transaction.atomic():
        ItemStatistic.objects.all().delete()
        ItemStatistic.objects.bulk_create(statistics, batch_size=2000)
    if progress is not None:
        progress(done)
    return len(statistics)
