"""Factories that keep related rows consistent: an option's question, a question's topic and a
topic's exam always belong together, and every option gets its rationale."""

from decimal import Decimal
from typing import Any, cast

import factory

from progress.accounts.models import User
from progress.cohorts.models import Cohort
from progress.practice.recording import record_attempt
from questions.models import Author, Exam, Kind, Option, Question, Rationale, Status, Topic


class UserFactory(factory.django.DjangoModelFactory[User]):
    class Meta:
        model = User
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda user: f"{user.username}@example.com")
    password = factory.django.Password("correct horse battery staple")


class InstructorFactory(UserFactory):
    """A user in the Instructors group (the instructor role)."""

    class Meta:
        skip_postgeneration_save = True

    @factory.post_generation
    def instructor_role(self: User, create: bool, extracted: Any, **kwargs: Any) -> None:
        from progress.accounts.models import instructors_group

        if create:
            self.groups.add(instructors_group())


class StaffFactory(UserFactory):
    is_staff = True
    is_superuser = True


class ExamFactory(factory.django.DjangoModelFactory[Exam]):
    class Meta:
        model = Exam

    slug = factory.Sequence(lambda n: f"exam-{n}")
    code = factory.Sequence(lambda n: f"EX{n}")
    title = factory.Sequence(lambda n: f"Practice exam {n}")
    vendor = "Example Cloud"
    mock_question_count = 20
    mock_duration_minutes = 30
    mock_pass_percent = Decimal("70")


class CohortFactory(factory.django.DjangoModelFactory[Cohort]):
    """A class preparing for an exam, followed by an instructor."""

    class Meta:
        model = Cohort
        skip_postgeneration_save = True

    name = factory.Sequence(lambda n: f"Class {n}")
    exam = factory.SubFactory(ExamFactory)

    @factory.post_generation
    def instructors(self: Cohort, create: bool, extracted: Any, **kwargs: Any) -> None:
        if create:
            self.instructors.add(*(extracted or [InstructorFactory()]))


class TopicFactory(factory.django.DjangoModelFactory[Topic]):
    class Meta:
        model = Topic

    exam = factory.SubFactory(ExamFactory)
    slug = factory.Sequence(lambda n: f"topic-{n}")
    title = factory.Sequence(lambda n: f"Topic {n}")
    weight = Decimal("100")
    position = factory.Sequence(lambda n: n)


class QuestionFactory(factory.django.DjangoModelFactory[Question]):
    """A valid published single-answer question with three options (the first correct);
    `options=[True, False, ...]` sets the options' correctness, `kind` the kind."""

    class Meta:
        model = Question
        skip_postgeneration_save = True

    uid = factory.Sequence(lambda n: f"q-{n:05d}")
    topic = factory.SubFactory(TopicFactory)
    kind = Kind.SINGLE
    stem = factory.Sequence(lambda n: f"Which setting fixes problem number {n}?")
    trap = "The obvious setting only hides the symptom."
    explanation = "Because the root cause is fixed there."
    difficulty = "medium"
    status = Status.PUBLISHED
    author = factory.SubFactory("tests.factories.AuthorFactory")

    @factory.post_generation
    def options(self: Question, create: bool, extracted: list[bool] | None, **kwargs: Any) -> None:
        if not create:
            return
        corrects = extracted if extracted is not None else [True, False, False]
        for position, correct in enumerate(corrects):
            OptionFactory(question=self, position=position, is_correct=correct)


class AuthorFactory(factory.django.DjangoModelFactory[Author]):
    class Meta:
        model = Author
        django_get_or_create = ("name",)

    name = "Test Author"
    credentials = "CISSP"
    role = "Security engineer"


class OptionFactory(factory.django.DjangoModelFactory[Option]):
    class Meta:
        model = Option
        skip_postgeneration_save = True

    question = factory.SubFactory(QuestionFactory, options=[])
    position = 0
    text = factory.Sequence(lambda n: f"Option text {n}")
    is_correct = False
    rationale = factory.RelatedFactory(
        "tests.factories.RationaleFactory", factory_related_name="option"
    )


class RationaleFactory(factory.django.DjangoModelFactory[Rationale]):
    class Meta:
        model = Rationale

    option = factory.SubFactory(OptionFactory, rationale=None)
    why = factory.Sequence(lambda n: f"Rationale {n}: it does not address the cause.")
    tempting_because = "It is the default."
    right_when = "When the cause is elsewhere."


def record_answer(learner: User, question: Question, right: bool) -> None:
    """Record an answer of the learner to the question (a right one, or a wrong one), as the
    question page does."""
    from questions.pages.snapshot import question_page

    page = question_page(question.uid)
    assert page is not None
    keys = [option.key for option in page.options if option.is_correct == right][:1]
    record_attempt(learner=learner, page=page, grade=page.grade(keys), source="page")


def storage_and_serving_exam() -> Exam:
    """An exam of two equally weighted topics, Storage and Serving, 12 published questions
    each, with a 10-question mock exam and a 70% pass mark: room for readiness to differ."""
    # factory-boy's types say a call returns the factory, not the row it makes.
    exam = cast(Exam, ExamFactory(mock_question_count=10, mock_pass_percent=Decimal("70")))
    for position, title in enumerate(("Storage", "Serving")):
        topic = TopicFactory(exam=exam, title=title, weight=Decimal("50"), position=position)
        QuestionFactory.create_batch(12, topic=topic)
    return exam


def answer_topic(learner: User, topic: Topic, count: int, right: bool) -> None:
    """The learner answers the topic's first `count` questions, all right or all wrong."""
    for question in topic.questions.order_by("pk")[:count]:
        record_answer(learner, question, right)
