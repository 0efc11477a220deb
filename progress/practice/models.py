"""Practice: the answers a learner gives (attempts, recorded exactly once), quizzes, the
spaced-review cards and the daily totals behind the study analytics; the learner's marks on a
question (bookmarks, notes, problem reports) are in `marks`. Everything here belongs to one
learner, and every view reaches it through that learner."""

import math
from collections.abc import Iterator, Sequence
from datetime import date, datetime, timedelta
from typing import Any

import fsrs
from django.db import models, transaction
from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Subquery, Sum
from django.db.models.functions import TruncDate
from django.urls import reverse
from django.utils import timezone

from courseiva.lib.sql import Statement, run_together, upsert, upsert_values
from progress.accounts.models import User
from progress.codes import new_code
from progress.practice import logit_query
from progress.practice.marks import Bookmark
from progress.practice.tally import Tally
from progress.readiness.batches import BatchAnswer
from progress.readiness.rebuild import LoggedAnswer
from questions.case_studies import together
from questions.models import Exam, Question, Topic

# Time on one question beyond this is a learner who walked away, not one who was thinking.
MAX_TIME_SPENT = timedelta(hours=2)


class Selection(models.TextChoices):
    ANY = "any", "Any questions"
    UNANSWERED = "unanswered", "Not yet answered"
    WRONG = "wrong", "Answered wrong last time"
    BOOKMARKED = "bookmarked", "Bookmarked"
    DUE = "due", "Due for review"
    ADAPTIVE = "adaptive", "Adaptive: where practice helps most"
    # Drawn by the study plan (today's practice), never chosen on the start form.
    PLAN = "plan", "Today's plan"

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


class Feedback(models.TextChoices):
    EACH = "each", "After each question"
    END = "end", "At the end, all together"


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
        feedback: str = Feedback.EACH,
        time_limit: timedelta | None = None,
        label: str = "",
    ) -> "Quiz | None":
        """A new quiz of up to `length` (None: all) published questions of the topic (or of
        the whole exam), chosen by `selection`, in random order; None when none match. A
        caller that drew the questions itself (an adaptive draw) gives their ids instead, in
        the quiz's order. Three queries: the draw, the quiz, its items; one more when a case
        study is drawn, whose questions all come, one after the other."""
        if question_ids is not None:
            ids = list(question_ids)
        else:
            if questions is None:
                questions = Question.objects.published().filter(topic__exam=exam)
                if topic is not None:
                    questions = questions.filter(topic=topic)
                questions = questions.order_by("?")
            questions = Selection.apply(selection, questions, learner)
            # A case study drawn comes whole (questions.case_studies); drawn with a margin,
            # so that a case study that does not fit leaves room for single questions.
            drawn = questions.values_list("pk", "case_study_id")
            ids = together(list(drawn[: 2 * length] if length else drawn), length)
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
                feedback=feedback,
                label=label,
                time_limit=time_limit,
                clock_since=timezone.now() if time_limit else None,
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
    # Stopped by the learner before the last question (finished_at is then when).
    abandoned = models.BooleanField(default=False)
    # Kept by recording.record_attempt in the attempt's transaction, so that showing progress
    # never counts the items.
    item_count = models.PositiveIntegerField(default=0)
    answered_count = models.PositiveIntegerField(default=0)
    right_count = models.PositiveIntegerField(default=0)  # fully right
    # Partly right answers (to questions with partial credit), and the marks of every answer:
    # a right one 1, a partly right one its score.
    partly_right_count = models.PositiveIntegerField(default=0)
    marks = models.FloatField(default=0.0)
    # Unanswered items whose question left publication since: skipped, they shorten the quiz.
    withdrawn_count = models.PositiveIntegerField(default=0)
    # The builder's choices (progress.practice.builder): the topics' names when several, when
    # the answers are shown, and a time limit the learner set (None: untimed), the server's
    # clock: the time used before `clock_since`, which is empty while the quiz is paused.
    label = models.CharField(max_length=200, blank=True)
    feedback = models.CharField(max_length=4, choices=Feedback.choices, default=Feedback.EACH)
    time_limit = models.DurationField(null=True, blank=True)
    time_used = models.DurationField(default=timedelta(0))
    clock_since = models.DateTimeField(null=True, blank=True)

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
        if self.label:
            return f"{self.exam.code}: {self.label}"
        return self.topic.title if self.topic else f"{self.exam.code}: all topics"

    @property
    def is_finished(self) -> bool:
        return self.finished_at is not None

    @property
    def answers_at_end(self) -> bool:
        return self.feedback == Feedback.END

    def seconds_left(self) -> int | None:
        """What is left of the learner's time limit (None: untimed), on the server's clock."""
        if self.time_limit is None:
            return None
        left = self.time_limit - self.time_used
        if self.clock_since is not None:
            left -= timezone.now() - self.clock_since
        # Rounded up, as a mock's: a countdown at zero has reached the limit.
        return max(0, math.ceil(left.total_seconds()))

    def run_clock(self, running: bool) -> None:
        """Run or pause the time limit, keeping the time used so far. A timer the learner set
        may pause (a mock exam's never does). One query when it changes; a second tab that
        changed it first wins (the update is conditional on what was read)."""
        since = self.clock_since
        if self.time_limit is None or self.is_finished or running == (since is not None):
            return
        now = timezone.now()
        used = self.time_used if since is None else self.time_used + (now - since)
        changed = Quiz.objects.filter(pk=self.pk, clock_since=since, finished_at=None).update(
            clock_since=now if running else None, time_used=used
        )
        if changed:
            self.clock_since, self.time_used = (now if running else None), used

    def next_item(self) -> "QuizItem | None":
        """The first item neither answered nor saved, of a question still published. One
        query."""
        return (
            self.items.filter(
                attempt__isnull=True, saved__isnull=True, question__in=Question.objects.published()
            )
            .order_by("position")
            .first()
        )

    def tally(self) -> "Tally":
        """How far the learner got and how well: from the stored counters, no query."""
        return Tally(
            self.item_count, self.answered_count, self.right_count, self.withdrawn_count,
            self.partly_right_count, self.marks,
        )  # fmt: skip

    def count_withdrawn(self) -> int:
        """Count again the unanswered items whose question went back to review or draft (they
        are skipped; published again, they return). One query; two when it changed."""
        count = (
            self.items.filter(attempt__isnull=True, question__isnull=False)
            .exclude(question__in=Question.objects.published())
            .count()
        )
        if count != self.withdrawn_count:
            self.withdrawn_count = count
            Quiz.objects.filter(pk=self.pk).update(withdrawn_count=count)
        return count

    def finish_if_stuck(self) -> None:
        """Finish a quiz whose unanswered items all lost their question (deleted or withdrawn
        since): nothing is left to answer. One query."""
        if self.next_item() is None and self.finished_at is None:
            self.finished_at = timezone.now()
            Quiz.objects.filter(pk=self.pk).update(finished_at=self.finished_at)

    def abandon(self) -> bool:
        """Stop the quiz where it stands: its answers stay, it leaves the quizzes in progress.
        False when it had finished already (the last answer, or another tab, came first).
        One query."""
        now = timezone.now()
        stopped = Quiz.objects.filter(pk=self.pk, finished_at__isnull=True).update(
            finished_at=now, abandoned=True
        )
        if stopped:
            self.finished_at, self.abandoned = now, True
        return bool(stopped)


class QuizItem(models.Model):
    quiz = models.ForeignKey(Quiz, on_delete=models.CASCADE, related_name="items")
    position = models.PositiveSmallIntegerField()
    # A question deleted later leaves the item (and its attempt) in place, unanswerable.
    question = models.ForeignKey(
        Question, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    # When the question was first shown: the start of the time spent on it.
    served_at = models.DateTimeField(null=True, blank=True)
    # With the answers at the end, the answer's fields as posted: graded when the quiz ends.
    saved = models.JSONField(null=True, blank=True)

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

    def answered_per_topic(self, learner: User, exam: Exam) -> dict[int, int]:
        """How many different questions of each of the exam's topics the learner has
        answered (the study plan gives new questions where there are some left). One query."""
        rows = (
            self.filter(learner=learner, exam=exam, question__isnull=False)
            .values("topic_id")
            .annotate(questions=Count("question_id", distinct=True))
            .order_by()
        )
        return {row["topic_id"]: row["questions"] for row in rows}

    def question_counts(self, learner_id: int, question_ids: Any) -> dict[int, list[float]]:
        """[right, wrong] answers of the learner to each of these questions (ids, or a query of
        them), a partly right answer counting its score as right and the rest as wrong (as
        the learner model counts it): index-only, on the attempt_learner_q index. The learner
        model reads them as features of a question met before; they are not kept in its
        stored state, which would then grow with every question answered. The same figures
        as the answer's read (answer_query.read_question_side)."""
        if not isinstance(question_ids, QuerySet):
            question_ids = list(question_ids)
        rows = (
            self.filter(learner_id=learner_id, question_id__in=question_ids)
            .values("question_id")
            .annotate(answers=Count("pk"), marks=Sum("score"))
            .order_by()
        )
        return {
            row["question_id"]: marks_counts(row["marks"] or 0.0, row["answers"]) for row in rows
        }

    def answers_after(self, attempt_id: int) -> Iterator[LoggedAnswer]:
        """The attempts after this one, in id order: what the readiness rebuild replays (an
        AnswerLog)."""
        rows = (
            self.filter(pk__gt=attempt_id)
            .order_by("pk")
            .values_list(
                "pk",
                "learner_id",
                "question_id",
                "topic_id",
                "exam_id",
                "score",
                "answered_at",
            )
            .iterator(chunk_size=5000)
        )
        return map(LoggedAnswer._make, rows)

    def _batched(self, after: int) -> "AttemptQuerySet":
        """The answers after this one that move a question's difficulty: not those without
        a learner logit (recorded before the batches, which moved their question at once),
        which would stop every batch after them."""
        return self.filter(
            pk__gt=after,
            question__isnull=False,
            topic__isnull=False,
            exam__isnull=False,
            learner_logit__isnull=False,
        )

    def batch_answers_after(self, attempt_id: int, *, few: bool = False) -> Iterator[BatchAnswer]:
        """The answers after this one that move a question's difficulty, in id order: what a
        batch applies (a BatchLog). Read in chunks (a server-side cursor on PostgreSQL, three
        round trips), or with `few` in one query."""
        rows = (
            self._batched(attempt_id)
            .order_by("pk")
            .values_list("pk", "question_id", "exam_id", "score", "learner_logit")
        )
        return map(BatchAnswer._make, iter(rows) if few else rows.iterator(chunk_size=5000))

    def batch_answer_count(self, after: int, up_to: int) -> int:
        """How many answers with ids in (after, up_to] move a question's difficulty: whether
        one committed after a batch read them (a BatchLog). One query."""
        return self._batched(after).filter(pk__lte=up_to).count()

    def keep_logits(self, logits: dict[int, float]) -> None:
        """Store these learner logits (attempt id -> logit), those that changed (a rebuild's
        new fit): the next batch reads them. How, and why so, in `logit_query`."""
        logit_query.keep_logits(self, logits)

    def sequence_lengths(self) -> dict[tuple[int, int], int]:
        """Answers with a topic per (learner, exam): how long each sequence the rebuild
        replays is (an AnswerLog). One aggregate query."""
        rows = (
            self.filter(topic__isnull=False, exam__isnull=False)
            .values_list("learner_id", "exam_id")
            .annotate(answers=Count("pk"))
            .order_by()
        )
        return {(learner_id, exam_id): count for learner_id, exam_id, count in rows}


def marks_counts(marks: float, answers: int) -> list[float]:
    """[right, wrong] from a learner's marks on a question (their scores summed) and answers,
    as the learner model counts them (its `observe`): whole numbers as ints. The scores are
    on the model's grid (learner_model.share), so their sum is exact in any order."""
    right = float(marks)
    wrong = answers - right
    return [
        int(right) if right.is_integer() else right,
        int(wrong) if wrong.is_integer() else wrong,
    ]


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
    # [{"key": ..., "text": ..., "correct": bool}] for each chosen option; for the types
    # made of parts, one per part (key "<part key>=<value>") or per step of an ordering, in
    # the order given (see questions.grading).
    chosen = models.JSONField()
    is_correct = models.BooleanField()
    # The mark, 0 to 1: 1 when right, a share of it for a partly right answer to a question
    # with partial credit, on the learner model's grid (learner_model.share, so that its sums
    # are exact). is_correct stays "fully right".
    score = models.FloatField(default=0.0)
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
    # The learner model's logit of this answer without the question's difficulty, as the
    # answer computed it: the batched update of the question's difficulty reads it (see
    # progress.readiness.batches). Empty for an answer without a topic, and for the answers
    # recorded before the batches, which moved their questions at once.
    learner_logit = models.FloatField(null=True, blank=True)

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
            # Quiz selection: which questions a learner answered, and got wrong; with the
            # score, the learner's marks on a question, for the learner model (index-only).
            models.Index(
                fields=["learner", "question", "is_correct", "score"], name="attempt_learner_q"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.learner} on {self.question_uid}: {self.verdict}"

    @property
    def chosen_texts(self) -> list[str]:
        return [str(item.get("text", "")) for item in self.chosen]

    @property
    def is_partly_right(self) -> bool:
        """Partly right: some credit, not all (a question with partial credit)."""
        return not self.is_correct and self.score > 0

    @property
    def verdict(self) -> str:
        """ "right", "wrong", or "partly right, 50%"."""
        if self.is_correct:
            return "right"
        return f"partly right, {self.score:.0%}" if self.is_partly_right else "wrong"


def review_rating(score: float) -> fsrs.Rating:
    """The review's grade: right is "good", at least half right "hard" (recalled, with
    effort: the card comes back sooner than after a right answer, without starting again),
    less than half "again" (as a wrong answer)."""
    if score >= 1:
        return fsrs.Rating.Good
    return fsrs.Rating.Hard if score >= 0.5 else fsrs.Rating.Again


# The learning steps suit exam practice (see it again in ten minutes, then tomorrow); fuzzing
# spreads the reviews of questions missed together over neighbouring days.
SCHEDULER = fsrs.Scheduler(
    learning_steps=(timedelta(minutes=10), timedelta(days=1)),
    relearning_steps=(timedelta(days=1),),
    enable_fuzzing=True,
)


class ReviewCardQuerySet(models.QuerySet["ReviewCard"]):
    def due(self, learner: User, now: datetime | None = None) -> "ReviewCardQuerySet":
        mine = self.filter(learner=learner, question__in=Question.objects.published())
        return mine.filter(due__lte=now or timezone.now())

    def due_within(self, learner: User, days: int) -> "ReviewCardQuerySet":
        """The learner's reviews of published questions falling due before the end of the
        `days`-th day from today (1: today's, those overdue included)."""
        mine = self.filter(learner=learner, question__in=Question.objects.published())
        end = datetime.combine(timezone.localdate() + timedelta(days=days), datetime.min.time())
        return mine.filter(due__lt=timezone.make_aware(end))

    def due_by_day(self, learner: User, exam: Exam, days: int) -> dict[int, dict[str, int]]:
        """The learner's reviews of the exam's questions falling due over the next `days`
        days, by day (0 is today, with those overdue) and topic id, as the study plan takes
        them. One query."""
        today = timezone.localdate()
        result: dict[int, dict[str, int]] = {}
        for due, topic_id in (
            self.due_within(learner, days)
            .filter(question__topic__exam=exam)
            .values_list("due", "question__topic_id")
        ):
            day = max(0, (timezone.localdate(due) - today).days)
            by_topic = result.setdefault(day, {})
            by_topic[str(topic_id)] = by_topic.get(str(topic_id), 0) + 1
        return result

    def schedule(self, learner_id: int, answers: Sequence[tuple[int, float, datetime]]) -> None:
        """Reschedule the learner's cards after these answers (question id, score, when), in
        the caller's transaction, reading the cards first. Two queries."""
        if not answers:
            return
        cards: dict[int, ReviewCard] = {
            card.question_id: card
            for card in ReviewCard.objects.select_for_update().filter(
                learner_id=learner_id, question_id__in={qid for qid, _, _ in answers}
            )
        }
        run_together([self.upsert(self.reviewed(learner_id, cards, answers))])

    def reviewed(
        self,
        learner_id: int,
        cards: dict[int, "ReviewCard"],
        answers: Sequence[tuple[int, float, datetime]],
    ) -> list["ReviewCard"]:
        """The learner's `cards` (by question id, as read by the caller under the learner's
        lock) rescheduled after these answers (question id, score, when), to be written (see
        `upsert`): an answer not fully right makes a card if there was none (a partly right
        one too: some of it was missed); every answer moves an existing card on, graded by
        `review_rating`. None changes on a right first answer. No query."""
        touched: dict[int, ReviewCard] = {}
        for question_id, score, when in answers:
            card = touched.get(question_id) or cards.get(question_id)
            if card is None:
                if score >= 1:
                    continue  # right first time: nothing to review
                card = ReviewCard(learner_id=learner_id, question_id=question_id)
            card.review(score, when)
            touched[question_id] = card
        return list(touched.values())

    def upsert(self, cards: Sequence["ReviewCard"]) -> Statement | None:
        """The upsert of the learner's rescheduled review cards (`reviewed`), found by learner
        and question; None when no card changed. Not run: for the caller to send with the
        answer's other writes."""
        if not cards:
            return None
        written = ["card", "due", "reviews"]
        return upsert(self.model, ["learner_id", "question_id"], written, cards)


class ReviewCard(models.Model):
    """A question the learner got wrong (or partly wrong), coming back on a spaced-repetition
    schedule (FSRS)."""

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

    def review(self, score: float, when: datetime) -> None:
        # A new card is named by its question: without an id fsrs takes the clock's
        # milliseconds and sleeps one to keep the next unique, in the answer's request.
        card = (
            fsrs.Card.from_dict(self.card)
            if self.card
            else fsrs.Card(card_id=self.question_id, due=when)
        )
        card, _ = SCHEDULER.review_card(card, review_rating(score), review_datetime=when)
        self.card, self.due, self.reviews = card.to_dict(), card.due, self.reviews + 1


class LearnerDayQuerySet(models.QuerySet["LearnerDay"]):
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
                p=Count("pk", filter=Q(is_correct=False, score__gt=0)),
                m=Sum("score"),
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
                    right=row["r"], partly_right=row["p"], marks=row["m"] or 0.0,
                    timed_answers=row["t"],
                    seconds=round(row["s"].total_seconds()) if row["s"] else 0,
                )
                for row in rows
            )  # fmt: skip
        return len(written)

    def add(self, learner_id: int, days: dict[date, list[float]]) -> Statement | None:
        """The upsert adding these totals ([answers, right, partly right, marks, timed answers,
        seconds] by day) to the learner's days: a day's row made with them, or its totals
        increased. None with no days. Not run: for the caller to send with the answer's other
        writes."""
        if not days:
            return None
        rows = [(learner_id, day, *totals) for day, totals in sorted(days.items())]
        columns = ["learner_id", "day", "answers", "right", "partly_right", "marks"]
        columns += ["timed_answers", "seconds"]
        return upsert_values(self.model, columns[:2], columns, rows, add=columns[2:])


class LearnerDay(models.Model):
    """A learner's answers of one day: what the study analytics read, kept up to date by every
    recorded answer so that no page counts attempts."""

    learner = models.ForeignKey(User, on_delete=models.CASCADE, related_name="days")
    day = models.DateField()
    answers = models.PositiveIntegerField(default=0)
    right = models.PositiveIntegerField(default=0)  # fully right
    # Partly right answers, and the marks of all (a right answer 1, a partly right its score).
    partly_right = models.PositiveIntegerField(default=0)
    marks = models.FloatField(default=0.0)
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
