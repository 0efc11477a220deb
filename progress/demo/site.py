"""The demo site's people and their history, written to the database: the demo users, the
demo class (simulated learners in the instructor's cohort, see `history`) and the demo
learner's own practice. Only `seed_demo` calls this, and only with DEBUG on.

The simulated answers are written as the site's own writers would have left them: quizzes
with their items and counters, mock sittings with their items, attempts with what was chosen
(option keys, texts, correctness), the time spent and the source, in the order they would
have been recorded. What an answer updates on the way (review cards, daily totals, the
readiness state) is then computed by the functions that rebuild it from the attempts
(`ReviewCard.objects.schedule`, `LearnerDay.objects.rebuild`, `rebuild_readiness` and a batch
of the questions' difficulties), and the figures the pages read (the cohort's
`ExamReadiness`, the item statistics) by the functions the pages and the nightly job use: the
same state as ten thousand answers posted one by one, in a few seconds."""

import random
import secrets
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal

from django.contrib.auth.models import Group
from django.db import transaction
from django.utils import timezone

from progress.accounts.models import User, instructors_group
from progress.cohorts.item_statistics import compute_item_statistics
from progress.cohorts.models import Cohort, Membership
from progress.cohorts.table import cohort_table
from progress.demo.history import (
    Answer,
    BankExam,
    BankQuestion,
    History,
    responses,
    simulate_class,
    simulate_learner,
)
from progress.mocks.models import MockExam, MockItem
from progress.practice.marks import Bookmark
from progress.practice.models import Attempt, LearnerDay, Quiz, QuizItem, ReviewCard, Source
from progress.practice.recording import answer_record
from progress.readiness.batches import apply_question_batch
from progress.readiness.models import StudyGoal
from progress.readiness.rebuild import rebuild_readiness
from progress.readiness.standing import refresh_exam_readiness
from questions.grading import Grade
from questions.models import Exam, Option, Question
from questions.pages.snapshot import QuestionPage, question_pages

# The group that marks the demo class's accounts, in the admin's user list filter.
DEMO_GROUP = "Demo data"
DEMO_COHORT = "Demo class"
CLASS_SIZE = 40
# The cohort's exam date, and the demo learner's goal: three weeks ahead.
TARGET_DAYS = 21

Say = Callable[[str], None]


@dataclass
class DemoSummary:
    learners: int = 0
    answers: int = 0
    quizzes: int = 0
    mocks: int = 0
    bookmarks: int = 0
    at_risk: int = 0
    learner_answers: int = 0
    learner_reviews_due: int = 0
    learner_kept: bool = False  # the demo learner had practised already: history left alone
    other_exams: list[str] = field(default_factory=list)  # practised too, by the same class

    def line(self) -> str:
        own = (
            "the learner's own history kept"
            if self.learner_kept
            else f"the learner: {self.learner_answers:,} answers, "
            f"{self.learner_reviews_due} reviews due, a mock exam and a goal"
        )
        also = (
            f" The class and the learner practise {', '.join(self.other_exams)} too."
            if self.other_exams
            else ""
        )
        return (
            f"Demo class: {self.learners} learners, {self.answers:,} answers over six weeks, "
            f"{self.quizzes:,} quizzes, {self.mocks} mock exams, {self.bookmarks} bookmarks, "
            f"{self.at_risk} at risk; {own}.{also}"
        )


def demo_group() -> Group:
    group, _ = Group.objects.get_or_create(name=DEMO_GROUP)
    return group


def create_demo_users() -> tuple[dict[str, User], list[tuple[str, str]]]:
    """The learner, the instructor and the admin, with new random passwords (returned)."""
    instructors = instructors_group()
    users, passwords = {}, []
    for username, staff in (("learner", False), ("instructor", False), ("admin", True)):
        password = secrets.token_urlsafe(9)
        user, _ = User.objects.get_or_create(
            username=username, defaults={"email": f"{username}@example.com"}
        )
        user.is_staff = user.is_superuser = staff
        user.set_password(password)
        user.save()
        if username == "instructor":
            user.groups.add(instructors)
        users[username] = user
        passwords.append((username, password))
    return users, passwords


def demo_cohort(exam: Exam, instructor: User, learner: User) -> Cohort:
    """The instructor's Demo class on `exam`, with the learner in it, its exam three weeks
    from today."""
    cohort = Cohort.objects.filter(name=DEMO_COHORT, exam=exam).first()
    if cohort is None:
        cohort = Cohort.objects.create(name=DEMO_COHORT, exam=exam)
    cohort.target_date = timezone.localdate() + timedelta(days=TARGET_DAYS)
    cohort.save(update_fields=["target_date"])
    cohort.instructors.add(instructor)
    Membership.objects.get_or_create(cohort=cohort, learner=learner)
    return cohort


def clear_demo_class() -> dict[str, int]:
    """Delete the demo class's accounts and everything of theirs (their rows cascade), then
    recompute the figures their answers went into: the readiness state of every question and
    learner, the item statistics. Returns what was deleted, by model name (none: {})."""
    with transaction.atomic():
        _, deleted = User.objects.filter(groups__name=DEMO_GROUP).delete()
        if deleted:
            rebuild_readiness(Attempt.objects, fit=False)
            apply_question_batch(Attempt.objects)
            compute_item_statistics()
    return {label.rpartition(".")[2]: n for label, n in deleted.items() if n}


def bank_exam(exam: Exam, pages: dict[str, QuestionPage]) -> BankExam:
    """The exam as the simulation sees it, its questions' answers read from their pages (a
    question of parts or steps answers as the page would take it). Two queries."""
    topics = list(exam.topics.order_by("position", "slug"))
    index = {topic.pk: i for i, topic in enumerate(topics)}
    options: dict[int, list[tuple[str, bool]]] = {}
    for question_id, key, correct in (
        Option.objects.filter(question__topic__exam=exam)
        .order_by("question_id", "position", "pk")
        .values_list("question_id", "key", "is_correct")
    ):
        options.setdefault(question_id, []).append((key, correct))
    questions = []
    for pk, uid, topic_id, difficulty in (
        Question.objects.published()
        .filter(topic__exam=exam)
        .order_by("position", "uid")
        .values_list("pk", "uid", "topic_id", "difficulty")
    ):
        page = pages[uid]
        if page.is_choice:
            questions.append(
                BankQuestion(pk, index[topic_id], tuple(options.get(pk, ())), difficulty)
            )
        else:
            right, wrongs = responses(page.answer_key)
            questions.append(BankQuestion(pk, index[topic_id], (), difficulty, right, wrongs))
    return BankExam(
        topic_ids=tuple(t.pk for t in topics),
        weights=tuple(Decimal(t.weight) for t in topics),
        questions=tuple(questions),
        mock_questions=exam.mock_question_count or 0,
        mock_minutes=exam.mock_duration_minutes or 30,
    )


@contextmanager
def seeded_scheduling(seed: int) -> Iterator[None]:
    """The review scheduler fuzzes intervals with the `random` module's own generator: seed
    it while the demo's cards are scheduled (the same due dates for the same seed), and give
    it back as it was."""
    state = random.getstate()
    random.seed(f"demo-reviews/{seed}")
    try:
        yield
    finally:
        random.setstate(state)


@dataclass
class _Plan:
    """One exam's part of the demo: its class's histories and the demo learner's own."""

    exam: Exam
    cohort: Cohort
    bank: BankExam
    pages: dict[str, QuestionPage]
    histories: list[History]
    own: History | None


def build_demo(
    exams: Sequence[tuple[Exam, Cohort]],
    learner: User,
    *,
    seed: int = 0,
    size: int = CLASS_SIZE,
    say: Say = lambda message: None,
) -> DemoSummary:
    """Replace the demo classes with `size` simulated learners (for the seed) in each of
    `exams`' cohorts and, on each exam the demo learner has not practised yet, give them a
    history of their own; then recompute what the answers feed. One transaction. The summary
    counts the first exam's class."""
    summary = DemoSummary()
    today, zone = timezone.localdate(), timezone.get_current_timezone()
    plans: list[_Plan] = []
    for index, (exam, cohort) in enumerate(exams):
        pages = question_pages(
            Question.objects.published().for_exam(exam).values_list("uid", flat=True)
        )
        bank = bank_exam(exam, pages)
        if not bank.questions:
            continue
        say(f"Simulating six weeks of practice of {size} learners on {exam.code}")
        histories = simulate_class(bank, size, seed + index, today, zone)
        own = None
        if not Attempt.objects.filter(learner=learner, exam=exam).exists():
            own = simulate_learner(learner.username, bank, seed + index, today, zone)
        plans.append(_Plan(exam, cohort, bank, pages, histories, own))
    if not plans:
        return summary
    summary.learner_kept = all(plan.own is None for plan in plans)
    with transaction.atomic():
        # The class is replaced; what its answers fed is recomputed below.
        User.objects.filter(groups__name=DEMO_GROUP).delete()
        group = demo_group()
        first = plans[0]
        # Each exam has its own class: the first exam's learners by their names, the other
        # exams' with the exam's code after it (their simulated lives differ).
        people: list[User] = []
        classes: list[list[User]] = []
        for plan in plans:
            suffix = "" if plan is first else f"-{plan.exam.code.lower()}"
            accounts = _accounts(plan.histories, group, plan.cohort, suffix)
            classes.append([accounts[h.profile.username + suffix] for h in plan.histories])
            people += classes[-1]
        attempts: list[Attempt] = []
        for plan, members in zip(plans, classes, strict=True):
            pairs = list(zip(members, plan.histories, strict=True))
            if plan.own is not None:
                pairs.append((learner, plan.own))
                started = min(_times(plan.own))
                Membership.objects.filter(cohort=plan.cohort, learner=learner).update(
                    joined_at=started - timedelta(days=1)
                )
                StudyGoal.objects.update_or_create(
                    learner=learner, exam=plan.exam,
                    defaults={"target_date": today + timedelta(days=TARGET_DAYS),
                              "daily_questions": 20},
                )  # fmt: skip
            total = sum(h.answers for _, h in pairs)
            say(f"Writing {total:,} answers on {plan.exam.code}, their quizzes and mock exams")
            attempts += _write(plan.exam, plan.bank, pairs, plan.pages)
        say("Scheduling reviews and counting days")
        mine: dict[int, list[Attempt]] = {}
        for attempt in sorted(attempts, key=lambda a: a.pk or 0):
            mine.setdefault(attempt.learner_id, []).append(attempt)
        with seeded_scheduling(seed):
            for user in [*people, learner]:
                ReviewCard.objects.schedule(
                    user.pk,
                    [
                        (a.question_id, a.score, a.answered_at)
                        for a in mine.get(user.pk, [])
                        if a.question_id
                    ],
                )
                LearnerDay.objects.rebuild(user.pk)
        say("Replaying every answer through the readiness model")
        rebuild_readiness(Attempt.objects, fit=False)
        # The questions' difficulties, as the worker's next batch would move them.
        apply_question_batch(Attempt.objects)
        for plan in plans:
            refresh_exam_readiness(
                Membership.objects.filter(cohort=plan.cohort).values("learner_id"), plan.exam
            )
        say("Computing the item statistics")
        compute_item_statistics()
    histories = first.histories
    summary.learners = len(histories)
    summary.answers = sum(h.answers for h in histories)
    summary.quizzes = sum(len(h.quizzes) for h in histories)
    summary.mocks = sum(len(h.mocks) for h in histories)
    summary.bookmarks = sum(len(h.bookmarks) for h in histories)
    summary.at_risk = cohort_table(first.cohort, page_size=None).at_risk
    summary.other_exams = [plan.exam.code for plan in plans[1:]]
    if first.own is not None:
        summary.learner_answers = first.own.answers
        summary.learner_reviews_due = ReviewCard.objects.due(learner).count()
    return summary


def _times(history: History) -> Iterator[datetime]:
    for quiz in history.quizzes:
        yield quiz.created_at
    for mock in history.mocks:
        yield mock.started_at
    for answer in history.page_answers:
        yield answer.answered_at


def _accounts(
    histories: list[History], group: Group, cohort: Cohort, suffix: str = ""
) -> dict[str, User]:
    """The class's accounts (their usernames with `suffix`): no usable password (nobody
    signs in as them), in the Demo data group, members of the cohort since the day before
    their first answer."""
    users = []
    for history in histories:
        p = history.profile
        username = p.username + suffix
        user = User(
            username=username, first_name=p.first_name, last_name=p.last_name,
            email=f"{username}@demo.example.com",
            date_joined=min(_times(history)) - timedelta(days=1),
        )  # fmt: skip
        user.set_unusable_password()
        users.append(user)
    User.objects.bulk_create(users)
    created = {u.username: u for u in User.objects.filter(username__in=[u.username for u in users])}
    group.user_set.add(*created.values())
    Membership.objects.bulk_create(
        Membership(cohort=cohort, learner=user, joined_at=user.date_joined)
        for user in created.values()
    )
    return created


def _write(
    exam: Exam, bank: BankExam, pairs: list[tuple[User, History]], pages: dict[str, QuestionPage]
) -> list[Attempt]:
    """The quizzes, mock sittings, bookmarks and attempts of these histories. The attempts are
    inserted in the order the site would have recorded them (a quiz's or a page's answer when
    given, a mock sitting's at its submission), which is the order the readiness rebuild
    replays; each answer graded and kept as the site keeps it (its score, what was given of
    each part). Returns the attempts, with their ids."""
    uids = dict(Question.objects.filter(topic__exam=exam).values_list("pk", "uid"))
    page_of = {pk: pages[uid] for pk, uid in uids.items() if uid in pages}
    grades: dict[tuple[int, tuple[str, ...]], Grade] = {}

    def graded(answer: Answer) -> Grade:
        """The answer's grade: learners give the same few answers, each graded once."""
        key = (answer.question.pk, answer.chosen)
        if key not in grades:
            grades[key] = page_of[answer.question.pk].grade(answer.chosen)
        return grades[key]

    quizzes, mocks = [], []
    for user, history in pairs:
        for record in history.quizzes:
            quizzes.append(
                Quiz(
                    code=record.code, learner=user, exam=exam,
                    topic_id=None if record.topic is None else bank.topic_ids[record.topic],
                    selection=record.selection,
                    created_at=record.created_at, finished_at=record.finished_at,
                    item_count=len(record.questions), answered_count=len(record.answers),
                    right_count=sum(a.correct for a in record.answers),
                    marks=float(sum(a.correct for a in record.answers)),
                )
            )  # fmt: skip
        for sitting in history.mocks:
            mocks.append(
                MockExam(
                    code=sitting.code, learner=user, exam=exam,
                    question_count=len(sitting.questions),
                    duration_minutes=exam.mock_duration_minutes or 0,
                    pass_percent=exam.mock_pass_percent or Decimal(0),
                    scale=asdict(exam.scale) if exam.scale else None,
                    started_at=sitting.started_at,
                    deadline=sitting.started_at
                    + timedelta(minutes=exam.mock_duration_minutes or 0),
                    submitted_at=sitting.submitted_at,
                    right_count=sum(a.correct for a in sitting.answers.values()),
                    marks=float(sum(a.correct for a in sitting.answers.values())),
                )
            )  # fmt: skip
    Quiz.objects.bulk_create(quizzes, batch_size=1000)
    MockExam.objects.bulk_create(mocks, batch_size=1000)
    quiz_of = {q.code: q for q in quizzes}
    mock_of = {m.code: m for m in mocks}
    quiz_items = [
        QuizItem(
            quiz=quiz_of[record.code], position=position, question_id=question.pk,
            served_at=(
                record.answers[position].answered_at
                - timedelta(seconds=record.answers[position].seconds or 0)
                if position < len(record.answers)
                else None
            ),
        )
        for _, history in pairs
        for record in history.quizzes
        for position, question in enumerate(record.questions)
    ]  # fmt: skip
    QuizItem.objects.bulk_create(quiz_items, batch_size=2000)
    mock_items = [
        MockItem(
            mock=mock_of[sitting.code], position=position, question_id=question.pk,
            topic_id=bank.topic_ids[question.topic],
            chosen_keys=list(sitting.answers[position].chosen) if position in sitting.answers
            else [],
            answered_at=sitting.answers[position].answered_at if position in sitting.answers
            else None,
            is_correct=position in sitting.answers and sitting.answers[position].correct,
            score=graded(sitting.answers[position]).score if position in sitting.answers
            else 0.0,
        )
        for _, history in pairs
        for sitting in history.mocks
        for position, question in enumerate(sitting.questions)
    ]  # fmt: skip
    MockItem.objects.bulk_create(mock_items, batch_size=2000)
    item_of = {(i.quiz.code, i.position): i for i in quiz_items}
    mock_item_of = {(i.mock.code, i.position): i for i in mock_items}

    def attempt(user: User, answer: Answer, source: str, **links: object) -> Attempt:
        q = answer.question
        grade = graded(answer)
        return Attempt(
            learner=user, question_id=q.pk, question_uid=uids[q.pk], exam=exam,
            topic_id=bank.topic_ids[q.topic],
            chosen=answer_record(page_of[q.pk], grade),
            is_correct=grade.is_correct, score=grade.score,
            time_spent=timedelta(seconds=answer.seconds) if answer.seconds is not None else None,
            source=source, serve_nonce=answer.nonce, answered_at=answer.answered_at, **links,
        )  # fmt: skip

    recorded: list[tuple[datetime, int, Attempt]] = []
    for user, history in pairs:
        for record in history.quizzes:
            for position, answer in enumerate(record.answers):
                link = item_of[(record.code, position)]
                a = attempt(user, answer, Source.QUIZ, quiz_item=link)
                recorded.append((answer.answered_at, len(recorded), a))
        for answer in history.page_answers:
            recorded.append((answer.answered_at, len(recorded), attempt(user, answer, Source.PAGE)))
        for sitting in history.mocks:
            for position, answer in sorted(sitting.answers.items()):
                mock_link = mock_item_of[(sitting.code, position)]
                a = attempt(user, answer, Source.MOCK, mock_item=mock_link)
                recorded.append((sitting.submitted_at, len(recorded), a))
    recorded.sort(key=lambda row: (row[0], row[1]))
    attempts = [a for _, _, a in recorded]
    Attempt.objects.bulk_create(attempts, batch_size=2000)
    Bookmark.objects.bulk_create(
        Bookmark(learner=user, question_id=question.pk, created_at=when)
        for user, history in pairs
        for question, when in history.bookmarks
    )
    return attempts
