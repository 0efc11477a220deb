"""The practice histories of the demo class, simulated: plain Python, no database. Each
learner is drawn from the true model of the readiness simulation (`progress.engine.simulation`:
an overall ability, an offset per topic, a difficulty per topic and per question, all on the
logit scale) and learns as the study plan assumes learners do (`FITTED_GAIN`, each learner at
their own rate). Six weeks of days are walked through: on a study day the learner does a few
quizzes (or sits a mock exam in the later weeks), answering each question right with the true
model's probability at that moment, so readiness spreads across the class and rises with
practice. A wrong answer is the one the site would record: a wrong option (the question's lure,
the one learners fall for most), or for the types made of parts or steps a response with one
part wrong (a swapped step, a distractor matched, a statement flipped, a common wrong answer
typed), encoded as `questions.grading` says. A few learners are given the histories that an
instructor must notice: one who stopped practising, one weak on the exam's heaviest topic, one
who started late or learns slowly, one who has only just joined.

Everything comes from one `random.Random`, so a seed gives the same histories; times are
counted from midnight of `today` and all fall on earlier days."""

from __future__ import annotations

import base64
import math
import random
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from decimal import Decimal

from progress.engine.forecast import largest_remainder
from progress.engine.learner_model import sigmoid
from progress.engine.learning_gain import FITTED_GAIN
from progress.engine.simulation import Population
from questions.grading import (
    DROPDOWN,
    FILL_IN,
    MATCHING,
    NO,
    ORDERING,
    YES,
    YES_NO,
    AnswerKey,
    KeyPart,
)

# The class practises over this many days before today.
DAYS = 42
# How much easier a question is on meeting it again (its explanation was read), per meeting,
# on the logit scale, diminishing as the learning gain does.
REPEAT_BONUS = 0.25
# The bank's difficulty label, as a shift of the question's true difficulty.
DIFFICULTY_SHIFT = {"easy": -0.7, "medium": 0.0, "hard": 0.7}

FIRST_NAMES = (
    "Amara", "Bastien", "Chen", "Dalia", "Emeka", "Farah", "Gustavo", "Hana", "Ivan", "Jonas",
    "Keiko", "Lars", "Maya", "Nikhil", "Olga", "Pedro", "Quinn", "Rania", "Sofia", "Tariq",
    "Uma", "Viktor", "Wen", "Ximena", "Yusuf", "Zara", "Aiko", "Bruno", "Carmen", "Dev",
    "Elif", "Felix", "Grace", "Hugo", "Ines", "Jamal", "Kofi", "Lena", "Mateo", "Nadia",
    "Oscar", "Priya", "Rafael", "Sana", "Tomas", "Valeria", "Wanjiru", "Yara",
)  # fmt: skip
LAST_NAMES = (
    "Okafor", "Lemaire", "Wei", "Haddad", "Eze", "Rahman", "Silva", "Sato", "Petrov", "Berg",
    "Tanaka", "Nilsson", "Cohen", "Rao", "Ivanova", "Costa", "Murphy", "Aziz", "Rossi",
    "Karimi", "Patel", "Novak", "Liu", "Reyes", "Demir", "Ali", "Mori", "Santos", "Vega",
    "Kapoor", "Yilmaz", "Weber", "Osei", "Dubois", "Mensah", "Fischer", "Alvarez", "Khan",
)  # fmt: skip


@dataclass(frozen=True)
class BankQuestion:
    """A published question as the simulation needs it: its topic (an index into the exam's
    topics), its options' keys in order with which are correct, its difficulty label. A
    question of parts or steps has no options here but its right response and the wrong ones
    learners give (see `responses`)."""

    pk: int
    topic: int
    options: tuple[tuple[str, bool], ...]
    difficulty: str = "medium"
    right: tuple[str, ...] = ()
    wrongs: tuple[tuple[str, ...], ...] = ()

    @property
    def correct_keys(self) -> tuple[str, ...]:
        return self.right or tuple(key for key, correct in self.options if correct)


def responses(key: AnswerKey) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """The right response to a question of parts or steps and the wrong ones learners give,
    each with one part wrong: two neighbouring steps swapped or a step that does not belong
    put in; another answer of the pool (a distractor first); a statement flipped; a blank's
    common wrong answer (its first feedback's) or a near miss; another choice of a gap."""
    if key.kind == ORDERING:
        steps = list(key.correct)
        right = tuple(f"{step}={place}" for place, step in enumerate(steps, 1))
        wrongs = []
        for index in range(len(steps) - 1):
            swapped = steps[:]
            swapped[index], swapped[index + 1] = swapped[index + 1], swapped[index]
            wrongs.append(tuple(f"{step}={place}" for place, step in enumerate(swapped, 1)))
        for stray in (option for option in key.options if option not in steps):
            taken = steps[:]
            taken[len(taken) // 2] = stray
            wrongs.append(tuple(f"{step}={place}" for place, step in enumerate(taken, 1)))
        return right, tuple(wrongs)
    given = [_right_value(part) for part in key.parts]
    right = tuple(f"{part.key}={value}" for part, value in zip(key.parts, given, strict=True))
    wrongs = []
    for index, part in enumerate(key.parts):
        wrong = _wrong_value(key, part, given)
        if wrong is not None:
            values = [*given[:index], wrong, *given[index + 1 :]]
            wrongs.append(tuple(f"{p.key}={v}" for p, v in zip(key.parts, values, strict=True)))
    return right, tuple(wrongs)


def _right_value(part: KeyPart) -> str:
    if part.answer:
        return part.answer
    if part.number is not None:
        return _plain(part.number)
    return part.accepted[0] if part.accepted else ""


def _wrong_value(key: AnswerKey, part: KeyPart, given: list[str]) -> str | None:
    if key.kind == YES_NO:
        return NO if part.answer == YES else YES
    if key.kind == DROPDOWN and part.options:
        return next((option for option in part.options if option != part.answer), None)
    if key.kind == MATCHING:
        unused = [option for option in key.options if option not in given]
        others = [option for option in key.options if option != part.answer]
        return next(iter(unused or others), None)
    if key.kind in (FILL_IN, DROPDOWN):  # a blank, or a gap typed in
        if part.feedback:
            return part.feedback[0][0]
        if part.number is not None:
            # Past the highest right range, so that no other right number takes it.
            return _plain(max(n + t for n, t in part.ranges) + (part.tolerance or Decimal(1)))
        return "not sure"
    return None


def _plain(number: Decimal) -> str:
    return format(number.normalize(), "f")


@dataclass(frozen=True)
class BankExam:
    """The exam practised: its topics' blueprint weights (in blueprint order), its published
    questions, and its mock exam's shape."""

    topic_ids: tuple[int, ...]
    weights: tuple[Decimal, ...]
    questions: tuple[BankQuestion, ...]
    mock_questions: int
    mock_minutes: int

    def of_topic(self, topic: int) -> list[BankQuestion]:
        return [q for q in self.questions if q.topic == topic]


@dataclass(frozen=True)
class Profile:
    """A simulated learner: who they are (the account), what is true of them (abilities,
    learning rate) and how they study. Days are counted back from today (1: yesterday)."""

    username: str
    first_name: str
    last_name: str
    ability: float
    offsets: tuple[float, ...]
    rate: float  # how fast they learn, against a typical learner (1)
    first_day: int  # the first day they may practise
    last_day: int  # the last (1: yesterday; more: they stopped)
    keenness: float  # the chance that a weekday is a study day (weekends less)
    session: int  # answers in a typical study session
    hour: int  # when they usually start, local time
    kind: str  # "steady", or why an instructor should look at them


@dataclass
class Answer:
    question: BankQuestion
    chosen: tuple[str, ...]
    correct: bool
    answered_at: datetime
    seconds: int | None  # measured time on the question (none for a mock's answers)
    nonce: str = ""  # a question page's served-page token (page answers only)


@dataclass
class QuizRecord:
    code: str
    topic: int | None  # None: every topic
    selection: str
    created_at: datetime
    questions: list[BankQuestion]
    answers: list[Answer] = field(default_factory=list)  # the first len(answers) items
    finished_at: datetime | None = None
    abandoned: bool = False


@dataclass
class MockRecord:
    code: str
    started_at: datetime
    submitted_at: datetime
    questions: list[BankQuestion]
    answers: dict[int, Answer] = field(default_factory=dict)  # by position; others blank


@dataclass
class History:
    profile: Profile
    quizzes: list[QuizRecord] = field(default_factory=list)
    page_answers: list[Answer] = field(default_factory=list)
    mocks: list[MockRecord] = field(default_factory=list)
    bookmarks: list[tuple[BankQuestion, datetime]] = field(default_factory=list)

    @property
    def answers(self) -> int:
        return (
            sum(len(q.answers) for q in self.quizzes)
            + len(self.page_answers)
            + sum(len(m.answers) for m in self.mocks)
        )


@dataclass(frozen=True)
class Truth:
    """What is true of the exam: each topic's and question's difficulty, and for each
    question the wrong option learners fall for most (item analysis then has a distractor
    to show)."""

    topic_difficulty: tuple[float, ...]
    difficulty: dict[int, float]
    # question -> a weight per option (choice) or per wrong response (the other types)
    lure: dict[int, tuple[float, ...]]


def new_code(rng: random.Random) -> str:
    """A public code as `progress.codes.new_code` makes it, from the seeded generator."""
    return base64.urlsafe_b64encode(rng.randbytes(9)).decode()


def make_truth(exam: BankExam, rng: random.Random, population: Population) -> Truth:
    return Truth(
        topic_difficulty=tuple(
            rng.gauss(0.0, population.topic_difficulty_sd) for _ in exam.weights
        ),
        difficulty={
            q.pk: DIFFICULTY_SHIFT.get(q.difficulty, 0.0)
            + rng.gauss(0.0, population.item_difficulty_sd * 0.6)
            for q in exam.questions
        },
        lure={
            q.pk: tuple(0.0 if ok else rng.choice((0.5, 1.0, 4.0)) for _, ok in q.options)
            + tuple(rng.choice((0.5, 1.0, 4.0)) for _ in q.wrongs)
            for q in exam.questions
        },
    )


def class_profiles(
    count: int, exam: BankExam, rng: random.Random, population: Population
) -> list[Profile]:
    """`count` learners: most of them steady, of every stage of preparation and pace; a few
    whom the cohort page must flag, whatever the seed (given as kinds, in turn)."""
    heaviest = max(range(len(exam.weights)), key=lambda t: (exam.weights[t], -t))
    kinds = ["dropped out", "weak on the heaviest topic", "late starter", "just joined"]
    kinds += ["weak on the heaviest topic", "dropped out", "slow learner", "late starter"]
    kinds = (kinds[: max(1, count // 5)] + ["steady"] * count)[:count]
    rng.shuffle(kinds)
    names = rng.sample([(f, last) for f in FIRST_NAMES for last in LAST_NAMES], count)
    used: set[str] = set()
    profiles = []
    for kind, (first, last) in zip(kinds, names, strict=True):
        username = f"{first}.{last[0]}".lower()
        if username in used:
            username = f"{first}.{last}".lower()
        used.add(username)
        offsets = [rng.gauss(0.0, population.topic_offset_sd) for _ in exam.weights]
        ability = rng.uniform(-2.0, 0.6)
        rate = max(0.2, rng.gauss(1.0, FITTED_GAIN.spread))
        first_day = rng.randint(DAYS - 6, DAYS)
        last_day = 1 if rng.random() < 0.7 else rng.randint(1, 4)
        keenness = rng.uniform(0.35, 0.85)
        if kind == "dropped out":
            last_day = rng.randint(8, 16)
        elif kind == "weak on the heaviest topic":
            offsets[heaviest] = rng.uniform(-1.8, -1.3)
        elif kind == "late starter":
            first_day, keenness, ability = rng.randint(16, 21), 0.4, rng.uniform(-2.2, -1.2)
        elif kind == "slow learner":
            rate, ability = rng.uniform(0.2, 0.4), rng.uniform(-2.0, -1.0)
        elif kind == "just joined":
            first_day, last_day, keenness = 2, 1, 0.8
        profiles.append(
            Profile(
                username=username, first_name=first, last_name=last, ability=ability,
                offsets=tuple(offsets), rate=rate, first_day=first_day, last_day=last_day,
                keenness=keenness, session=5 if kind == "just joined" else rng.randint(6, 16),
                hour=rng.randint(7, 19),
                kind=kind,
            )
        )  # fmt: skip
    return profiles


class _Simulated:
    """One learner's practice as it unfolds: what they know now and what they did."""

    def __init__(
        self,
        profile: Profile,
        exam: BankExam,
        truth: Truth,
        rng: random.Random,
        today: date,
        zone: tzinfo,
    ) -> None:
        self.profile, self.exam, self.truth, self.rng = profile, exam, truth, rng
        self.today, self.zone = today, zone
        self.history = History(profile)
        self.wins = [0] * len(exam.weights)
        self.fails = [0] * len(exam.weights)
        self.seen: dict[int, int] = {}
        self.last_right: dict[int, bool] = {}

    def p_correct(self, question: BankQuestion) -> float:
        p, t = self.profile, question.topic
        logit = (
            p.ability
            + p.offsets[t]
            - self.truth.topic_difficulty[t]
            - self.truth.difficulty[question.pk]
            + p.rate * FITTED_GAIN.shift(self.wins[t], self.fails[t])
            + REPEAT_BONUS * math.log1p(self.seen.get(question.pk, 0))
        )
        return sigmoid(logit)

    def answer(self, question: BankQuestion, when: datetime, seconds: int | None) -> Answer:
        correct = self.rng.random() < self.p_correct(question)
        self.seen[question.pk] = self.seen.get(question.pk, 0) + 1
        self.last_right[question.pk] = correct
        if correct:
            self.wins[question.topic] += 1
        else:
            self.fails[question.topic] += 1
        return Answer(question, self._chosen(question, correct), correct, when, seconds)

    def _chosen(self, question: BankQuestion, correct: bool) -> tuple[str, ...]:
        right = question.correct_keys
        if correct:
            return right
        lures = self.truth.lure[question.pk]
        if question.wrongs:
            return self.rng.choices(question.wrongs, lures)[0]
        wrong = [(key, w) for (key, ok), w in zip(question.options, lures, strict=True) if not ok]
        lure = self.rng.choices([k for k, _ in wrong], [w for _, w in wrong])[0]
        if len(right) == 1:
            return (lure,)
        # A multiple-answer question: one right option missed, or a wrong one added.
        missed = self.rng.random() < 0.5
        kept = set(right) - {self.rng.choice(right)} if missed else {*right, lure}
        return tuple(key for key, _ in question.options if key in kept)

    def seconds(self, question: BankQuestion) -> int:
        return max(8, min(180, round(self.rng.lognormvariate(math.log(45), 0.5))))

    def moment(self, days_ago: int, hour: int) -> datetime:
        day = self.today - timedelta(days=days_ago)
        start = datetime.combine(day, time(hour, self.rng.randrange(60)), tzinfo=self.zone)
        # In UTC, as the site's clock gives them (the review scheduler insists on it).
        return (start + timedelta(seconds=self.rng.randrange(60))).astimezone(UTC)

    # -- a study day ------------------------------------------------------------------------

    def study_day(self, days_ago: int, allow_mock: bool) -> None:
        p, rng = self.profile, self.rng
        hour = max(6, min(20, p.hour + rng.randint(-2, 2)))
        now = self.moment(days_ago, hour)
        answered = self.history.answers
        mocks = len(self.history.mocks)
        if allow_mock and answered >= 60 and mocks < 3 and rng.random() < 0.12 + 0.1 * (mocks == 0):
            self.sit_mock(now)
            return
        budget = max(4, round(rng.gauss(p.session, p.session / 3)))
        while budget > 0:
            quiz = self.new_quiz(now, budget)
            now = self.take_quiz(quiz, now)
            budget -= len(quiz.questions)
            now += timedelta(minutes=rng.randint(1, 6))
        if rng.random() < 0.15:  # a question opened from the bank's pages
            question = rng.choice(self.exam.questions)
            seconds = self.seconds(question)
            now += timedelta(seconds=seconds)
            answer = self.answer(question, now, seconds)
            answer.nonce = f"{rng.getrandbits(128):032x}"
            self.history.page_answers.append(answer)

    def new_quiz(self, when: datetime, budget: int) -> QuizRecord:
        rng, exam = self.rng, self.exam
        wrong = [q for q in exam.questions if self.last_right.get(q.pk) is False]
        roll = rng.random()
        if wrong and roll < 0.2:
            questions, topic, selection = wrong, None, "wrong"
        elif roll < 0.55:
            # A topic the learner finds hard, more often than not.
            accuracy = [(w + 1) / (w + f + 2) for w, f in zip(self.wins, self.fails, strict=True)]
            weights = [float(exam.weights[t]) * (1.2 - accuracy[t]) for t in range(len(accuracy))]
            topic = rng.choices(range(len(weights)), weights)[0]
            questions, selection = exam.of_topic(topic), "any"
        else:
            questions, topic, selection = list(exam.questions), None, "any"
        length = 10 if budget <= 14 or rng.random() < 0.6 else 20
        drawn = rng.sample(questions, min(length, len(questions)))
        return QuizRecord(new_code(rng), topic, selection, when, drawn)

    def take_quiz(self, quiz: QuizRecord, now: datetime) -> datetime:
        for question in quiz.questions:
            seconds = self.seconds(question)
            now += timedelta(seconds=seconds + self.rng.randint(2, 12))
            quiz.answers.append(self.answer(question, now, seconds))
        quiz.finished_at = now
        self.history.quizzes.append(quiz)
        return now

    def sit_mock(self, start: datetime) -> None:
        rng, exam = self.rng, self.exam
        wanted = largest_remainder(exam.mock_questions, list(exam.weights))
        questions: list[BankQuestion] = []
        for topic, count in enumerate(wanted):
            questions += rng.sample(exam.of_topic(topic), min(count, len(exam.of_topic(topic))))
        deadline = start + timedelta(minutes=exam.mock_minutes)
        mock = MockRecord(new_code(rng), start, deadline, questions)
        # Some sittings run out of time before the last questions; a few questions are left
        # blank on purpose (unsure, meant to come back).
        out_of_time = rng.random() < 0.3
        now = start
        for position, question in enumerate(questions):
            now += timedelta(seconds=rng.randint(40, 120 if out_of_time else 80))
            if now >= deadline:
                break
            if rng.random() < 0.06:
                continue
            mock.answers[position] = self.answer(question, now, None)
        mock.submitted_at = deadline if now >= deadline else now + timedelta(seconds=30)
        self.history.mocks.append(mock)

    def bookmark(self) -> None:
        """A few of the questions missed, bookmarked as they were missed."""
        missed = [
            a for q in self.history.quizzes for a in q.answers if not a.correct
        ]  # fmt: skip
        seen: set[int] = set()
        for answer in self.rng.sample(missed, min(len(missed), self.rng.randint(0, 4))):
            if answer.question.pk not in seen:
                seen.add(answer.question.pk)
                self.history.bookmarks.append((answer.question, answer.answered_at))

    def walk(self) -> History:
        p, rng = self.profile, self.rng
        for days_ago in range(p.first_day, p.last_day - 1, -1):
            weekday = (self.today - timedelta(days=days_ago)).weekday()
            chance = p.keenness * (0.55 if weekday >= 5 else 1.0)
            # The first day is always a study day: it is when the learner started.
            if days_ago == p.first_day or days_ago == p.last_day or rng.random() < chance:
                self.study_day(days_ago, allow_mock=days_ago <= 24)
        self.bookmark()
        # Some learners leave their last quiz half done: it waits on their page.
        last = self.history.quizzes[-1] if self.history.quizzes else None
        if last is not None and len(last.answers) > 3 and rng.random() < 0.25:
            keep = rng.randint(1, len(last.answers) - 1)
            last.answers = last.answers[:keep]
            last.finished_at = None
        return self.history


def simulate_class(
    exam: BankExam, learners: int, seed: int, today: date, zone: tzinfo
) -> list[History]:
    """The demo class's histories: `learners` simulated learners, for a seed."""
    population = Population()
    rng = random.Random(f"demo-class/{seed}")  # noqa: S311 - reproducible demo data
    truth = make_truth(exam, random.Random(f"demo-exam/{seed}"), population)  # noqa: S311
    profiles = class_profiles(learners, exam, rng, population)
    return [_Simulated(p, exam, truth, rng, today, zone).walk() for p in profiles]


def simulate_learner(
    username: str, exam: BankExam, seed: int, today: date, zone: tzinfo
) -> History:
    """The demo learner's own three weeks: a learner near the pass mark, practising most
    days up to yesterday, with one mock exam sat, so that every page of theirs has something
    to show (a forecast, reviews due, a plan to the goal)."""
    population = Population()
    rng = random.Random(f"demo-learner/{seed}")  # noqa: S311
    truth = make_truth(exam, random.Random(f"demo-exam/{seed}"), population)  # noqa: S311
    offsets = [rng.gauss(0.0, population.topic_offset_sd) for _ in exam.weights]
    profile = Profile(
        username=username, first_name="", last_name="", ability=-0.9, offsets=tuple(offsets),
        rate=1.0, first_day=21, last_day=1, keenness=0.8, session=14, hour=18, kind="you",
    )  # fmt: skip
    simulated = _Simulated(profile, exam, truth, rng, today, zone)
    for days_ago in range(profile.first_day, 0, -1):
        if days_ago == 5:
            simulated.sit_mock(simulated.moment(days_ago, 19))
        elif days_ago in (21, 1) or rng.random() < profile.keenness:
            simulated.study_day(days_ago, allow_mock=False)
    simulated.bookmark()
    return simulated.history
