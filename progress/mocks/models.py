"""Mock exams: a sitting drawn to the exam's shape (see `draw`), its items, the deadline kept
on the server, and the submission that grades it and records its answers once."""

import math
from collections.abc import Sequence
from dataclasses import asdict, replace
from datetime import datetime, timedelta
from decimal import Decimal

from django.db import IntegrityError, models, transaction
from django.db.models import (
    Count,
    Exists,
    F,
    OuterRef,
    Q,
    Subquery,
)
from django.utils import timezone

from progress.accounts.models import User
from progress.codes import new_code
from progress.engine import learner_model
from progress.mocks.allowances import Allowance, allowance_for, minutes_with
from progress.mocks.draw import draw_questions, draw_sections
from progress.mocks.sections import (
    NO_END,
    SittingSection,
    Window,
    read_sections,
    window_on_entering,
)
from progress.practice.models import Attempt, Source
from progress.practice.recording import answer_record, insert_answers
from progress.readiness.explain import MockTaken
from questions.models import Exam, Question, ScoreScale, Topic
from questions.pages.snapshot import question_pages


def seconds_until(moment: datetime) -> int:
    """The whole seconds from now to `moment`, rounded up; 0 once it has come."""
    return max(0, math.ceil((moment - timezone.now()).total_seconds()))


class MockExamQuerySet(models.QuerySet["MockExam"]):
    def for_learner(self, learner: User) -> "MockExamQuerySet":
        return self.filter(learner=learner)

    def in_progress(self) -> "MockExamQuerySet":
        return self.filter(submitted_at__isnull=True)

    def submitted(self) -> "MockExamQuerySet":
        return self.filter(submitted_at__isnull=False)

    def latest_taken(self, learner: User, exams: Sequence[Exam]) -> dict[int, MockTaken]:
        """The learner's latest submitted sitting of each of these exams, by exam id, as the
        readiness explanation tells it. One query."""
        latest = (
            MockExam.objects.filter(learner=learner, exam=OuterRef("exam"))
            .submitted()
            .order_by("-submitted_at", "-pk")
            .values("pk")[:1]
        )
        rows = (
            self.filter(learner=learner, exam__in=exams)
            .submitted()
            .annotate(
                latest=Subquery(latest),
                unanswered=Count(
                    "items", filter=Q(items__chosen_keys=[], items__is_correct__isnull=False)
                ),
            )
            .filter(pk=F("latest"))
        )
        return {
            mock.exam_id: MockTaken(
                code=mock.code,
                submitted_at=mock.submitted_at or mock.started_at,
                percent=mock.percent,
                right=mock.right_count,
                partly_right=mock.partly_right_count,
                wrong=mock.counted - mock.right_count - mock.partly_right_count - mock.unanswered,
                unanswered=mock.unanswered,
            )
            for mock in rows
        }

    def submit_expired(self, learner: User) -> int:
        """Submit, as they stood at their deadline, the learner's mock exams whose time ran out
        (the learner may never have come back). Returns how many."""
        expired = list(self.for_learner(learner).in_progress().filter(deadline__lte=timezone.now()))
        for mock in expired:
            mock.submit(at=mock.deadline)
        return len(expired)

    def start(
        self, *, learner: User, exam: Exam, forecast_before: dict[str, float] | None = None
    ) -> "MockExam":
        """Resume the learner's mock exam of `exam` in progress, or draw a new one: per topic
        by the blueprint weights, at random within a topic, questions this learner has not met
        in earlier mock exams first."""
        self.submit_expired(learner)
        current = self.for_learner(learner).in_progress().filter(exam=exam).first()
        if current is not None:
            return current
        seen = Exists(MockItem.objects.filter(mock__learner=learner, question=OuterRef("pk")))
        shape = list(exam.mock_sections.all())
        now = timezone.now()
        allowance = allowance_for(learner.pk, exam.pk)
        minutes = minutes_with(exam.mock_duration_minutes or 0, allowance)
        sections: list[SittingSection] = []
        if shape:
            chosen, drawn = draw_sections(exam, seen, shape)
            # A section's own minutes are under the allowance too, as the exam's are.
            sections = [
                replace(s, minutes=minutes_with(s.minutes, allowance)) if s.minutes else s
                for s in drawn
            ]
        else:
            chosen = draw_questions(exam, seen)
        deadline = now + timedelta(minutes=minutes)
        window = window_on_entering(
            read_sections([s.as_json() for s in sections], len(chosen)),
            0,
            Window(0, NO_END),
            forward_only=exam.forward_only,
        )
        scale = exam.scale
        try:
            with transaction.atomic():
                mock = self.create(
                    learner=learner,
                    exam=exam,
                    question_count=len(chosen),
                    duration_minutes=minutes,
                    allowance=allowance,
                    pass_percent=exam.mock_pass_percent or Decimal(0),
                    started_at=now,
                    deadline=deadline,
                    forecast_before=forecast_before,
                    sections=[section.as_json() for section in sections],
                    forward_only=exam.forward_only,
                    scale=asdict(scale) if scale else None,
                    open_from=window.open_from,
                    open_to=window.open_to,
                    section_deadline=section_deadline(sections[0], now, deadline)
                    if sections
                    else None,
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
    # The exam's minutes under the learner's allowance (see allowances), when it started.
    duration_minutes = models.PositiveIntegerField()
    allowance = models.CharField(
        max_length=10, choices=Allowance.choices, default=Allowance.STANDARD
    )
    pass_percent = models.DecimalField(max_digits=5, decimal_places=2)
    started_at = models.DateTimeField()
    deadline = models.DateTimeField()
    submitted_at = models.DateTimeField(null=True, blank=True)
    right_count = models.PositiveSmallIntegerField(default=0)  # fully right
    # Partly right answers (to questions with partial credit), and the marks of all: a right
    # answer 1, a partly right one its score. The score is the marks over the questions, as
    # on exams that give partial credit, and as the pass likelihood forecasts it.
    partly_right_count = models.PositiveSmallIntegerField(default=0)
    marks = models.FloatField(default=0.0)
    # Questions no longer published when the sitting was submitted: not scored (see submit).
    withdrawn_count = models.PositiveSmallIntegerField(default=0)
    # The forecast the learner had when the sitting started, for the report to set the score
    # against: {"pass_probability", "expected_percent", "low_percent", "high_percent",
    # "answers"}; null when there was none yet (topics short of answers).
    forecast_before = models.JSONField(null=True, blank=True)
    # The exam's sections as drawn (progress.mocks.sections.SittingSection's fields), [] when
    # it has none; whether it is forward-only; its reported scale (ScoreScale's fields) or null.
    sections = models.JSONField(default=list, blank=True)
    forward_only = models.BooleanField(default=False)
    scale = models.JSONField(null=True, blank=True)
    # The window of positions the learner may open and answer (see progress.mocks.sections):
    # every save checks it in its one statement.
    open_from = models.PositiveSmallIntegerField(default=0)
    open_to = models.PositiveSmallIntegerField(default=NO_END)
    # The section the learner is in, and when its own time runs out (null: none of its own).
    section_at = models.PositiveSmallIntegerField(default=0)
    section_deadline = models.DateTimeField(null=True, blank=True)

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
    def total_seconds(self) -> int:
        return 60 * self.duration_minutes

    @property
    def is_untimed(self) -> bool:
        return self.allowance == Allowance.UNTIMED

    @property
    def seconds_left(self) -> int:
        """What the countdown starts from; the server's deadline decides, not the page. Whole
        seconds rounded up, so that a page at zero has reached the deadline, not a second
        before it (it then asks the server, which must find the time up)."""
        return seconds_until(self.deadline)

    @property
    def counted(self) -> int:
        """The questions the score is out of: those drawn, less those withdrawn."""
        return self.question_count - self.withdrawn_count

    @property
    def percent(self) -> float:
        return 100 * self.marks / self.counted if self.counted else 0.0

    @property
    def passed(self) -> bool:
        return self.is_submitted and Decimal(str(self.percent)) >= self.pass_percent

    @property
    def time_used(self) -> timedelta:
        end = self.submitted_at or timezone.now()
        return min(end, self.deadline) - self.started_at

    @property
    def scaled_score(self) -> int | None:
        if not self.scale:
            return None
        return ScoreScale(**self.scale).scaled(self.percent, float(self.pass_percent))

    @property
    def sitting_sections(self) -> list[SittingSection]:
        return read_sections(self.sections, self.question_count)

    @property
    def current_section(self) -> SittingSection:
        return self.sitting_sections[self.section_at]

    @property
    def is_last_section(self) -> bool:
        return self.section_at + 1 >= len(self.sitting_sections)

    def is_open(self, position: int) -> bool:
        return self.open_from <= position < self.open_to

    def enter_next_section(self, at: datetime | None = None) -> bool:
        """Move the learner on from the section they are in to the next: the window widens
        to it, and closes behind a section that closes. One UPDATE, which only the first of
        two racing requests makes (the other finds the sitting moved on)."""
        sections = self.sitting_sections
        index = self.section_at + 1
        if index >= len(sections):
            return False
        at = at or timezone.now()
        window = window_on_entering(
            sections, index, Window(self.open_from, self.open_to), forward_only=self.forward_only
        )
        changes = {
            "section_at": index,
            "open_from": window.open_from,
            "open_to": window.open_to,
            "section_deadline": section_deadline(sections[index], at, self.deadline),
        }
        moved = MockExam.objects.filter(
            pk=self.pk, section_at=self.section_at, submitted_at__isnull=True
        ).update(**changes)
        if moved:
            for name, value in changes.items():
                setattr(self, name, value)
        else:
            self.refresh_from_db()
        return bool(moved)

    def step_to(self, position: int) -> bool:
        """Forward-only: move on from the question being sat to `position`, the next one of
        its section, for good. One UPDATE, made once."""
        if position != self.open_from + 1 or position >= self.current_section.end:
            return False
        moved = MockExam.objects.filter(
            pk=self.pk, open_from=self.open_from, submitted_at__isnull=True
        ).update(open_from=position, open_to=position + 1)
        if moved:
            self.open_from, self.open_to = position, position + 1
        return bool(moved)

    def close_expired_section(self) -> None:
        """A section whose own time ran out closes, and the learner moves on to the next (at
        the moment it ran out); the last one's running out submits the exam as it stood."""
        while (
            not self.is_submitted
            and self.section_deadline is not None
            and timezone.now() >= self.section_deadline
        ):
            ran_out = self.section_deadline
            if self.is_last_section:
                self.submit(at=ran_out)
            else:
                self.enter_next_section(at=ran_out)

    def submit(self, at: datetime | None = None) -> bool:
        """Grade every item and record the answers as attempts, once: the first caller to
        flip `submitted_at` does it, in one transaction; a second (another tab, the deadline
        sweep) finds it done and returns False. A question no longer published (sent back to
        review or draft during the sitting) is withdrawn: not graded (`is_correct` stays
        None), not recorded, out of the score's count. Queries: a fixed handful; the questions'
        pages come from the cache (three queries for all the misses together)."""
        at = at or timezone.now()
        with transaction.atomic():
            won = MockExam.objects.filter(pk=self.pk, submitted_at__isnull=True).update(
                submitted_at=at
            )
            if not won:
                self.refresh_from_db()
                return False
            items = list(self.items.select_related("question__topic"))
            # Graded as the question page grades: from the cached pages, one round trip.
            pages = question_pages(item.question.uid for item in items if item.question)
            attempts: list[Attempt] = []
            withdrawn = 0
            for item in items:
                if item.question is not None and not item.question.is_published:
                    withdrawn += 1
                    continue
                page = pages.get(item.question.uid) if item.question else None
                grade = page.grade(item.chosen_keys) if page and item.chosen_keys else None
                item.is_correct = grade is not None and grade.is_correct
                item.score = learner_model.share(grade.score) if grade is not None else 0.0
                if grade is None or page is None or item.question is None:
                    continue  # unanswered: it counts as wrong, but no answer was given
                attempts.append(
                    Attempt(
                        learner_id=self.learner_id,
                        question=item.question,
                        question_uid=item.question.uid,
                        exam_id=self.exam_id,
                        topic_id=item.topic_id,
                        chosen=answer_record(page, grade),
                        is_correct=item.is_correct,
                        score=item.score,
                        source=Source.MOCK,
                        mock_item=item,
                        answered_at=item.answered_at or at,
                    )
                )
            MockItem.objects.bulk_update(items, ["is_correct", "score"])
            insert_answers(self.learner_id, attempts, counted_at=at)
            scored = [item for item in items if item.score is not None]
            self.right_count = sum(1 for item in scored if item.is_correct)
            self.partly_right_count = sum(1 for i in scored if not i.is_correct and i.score)
            self.marks = sum(item.score or 0.0 for item in scored)  # exact: see share
            self.withdrawn_count = withdrawn
            self.submitted_at = at
            MockExam.objects.filter(pk=self.pk).update(
                right_count=self.right_count, partly_right_count=self.partly_right_count,
                marks=self.marks, withdrawn_count=self.withdrawn_count,
            )  # fmt: skip
        return True


def section_deadline(
    section: SittingSection, entered: datetime, deadline: datetime
) -> datetime | None:
    """When a section entered at `entered` closes: its own minutes later, never after the
    exam's deadline; None for a section without minutes of its own."""
    if section.minutes is None:
        return None
    return min(entered + timedelta(minutes=section.minutes), deadline)


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
    # The order of this answer's saves: when the stored answer was chosen, in milliseconds
    # of the server's clock (as the page reckons it; a plain post, the server's own). A save
    # whose number is not above it changes nothing, so that one sent twice is stored once
    # and one held back by a dropped connection cannot overwrite a later answer.
    answer_seq = models.BigIntegerField(default=0)
    is_correct = models.BooleanField(null=True)  # set at submission
    score = models.FloatField(null=True)  # set at submission: 0 to 1 (see Attempt.score)

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

    @property
    def is_withdrawn(self) -> bool:
        """Its question left publication: withdrawn at submission (never graded), or since
        (its content is no longer shown). Reads the question, loaded with the item."""
        if self.mock.is_submitted and self.is_correct is None:
            return True
        return self.question is not None and not self.question.is_published
