"""Case studies: a scenario shared by several questions, shown with each of them, drawn
together by quizzes and set apart whole in a mock exam."""

import pytest
from django.urls import reverse

from progress.mocks.models import MockExam
from progress.practice.models import Quiz
from questions.case_studies import together
from questions.models import CaseStudy
from tests import items
from tests.factories import ExamFactory, QuestionFactory, TopicFactory

pytestmark = pytest.mark.django_db


def test_the_scenario_is_shown_with_each_of_its_questions_and_linked_from_the_top(client):
    case = items.case_study(questions=2)
    for question in case.questions.all():
        text = client.get(question.get_absolute_url()).text
        assert "Case study: Contoso&#x27;s branch offices" in text
        assert "Riverside" in text
        assert "<table>" in text
        assert text.index('href="#case-study"') < text.index('id="case-study"')
        assert 'href="#question-heading">Back to the question' in text


def test_a_quiz_that_draws_one_question_of_a_case_study_gets_all_of_it_together(client, learner):
    topic = TopicFactory()
    QuestionFactory.create_batch(6, topic=topic)
    case = items.case_study(topic, questions=3)
    for _ in range(5):  # random draws: the case study's questions always sit together
        Quiz.objects.all().delete()
        quiz = Quiz.objects.start(
            learner=learner, exam=topic.exam, topic=topic, selection="any", length=10
        )
        assert quiz is not None
        order = list(quiz.items.values_list("question__case_study_id", flat=True))
        assert order.count(case.pk) == 3
        first = order.index(case.pk)
        assert order[first : first + 3] == [case.pk] * 3


def test_a_case_study_that_does_not_fit_leaves_room_for_single_questions(django_assert_num_queries):
    case = items.case_study(questions=4)
    ids = list(case.questions.values_list("pk", flat=True))
    singles = [q.pk for q in QuestionFactory.create_batch(3)]
    with django_assert_num_queries(1):
        drawn = together(
            [(singles[0], None), (ids[1], case.pk), (singles[1], None), (singles[2], None)], 4
        )
    assert drawn == singles
    with django_assert_num_queries(0):
        assert together([(1, None), (2, None)], 1) == [1]


def test_a_mock_exam_sets_one_case_study_apart_whole_at_the_end(learner):
    exam = ExamFactory(mock_question_count=8, mock_duration_minutes=30, mock_pass_percent=70)
    first, second = TopicFactory(exam=exam, weight=50), TopicFactory(exam=exam, weight=50)
    QuestionFactory.create_batch(6, topic=first)
    QuestionFactory.create_batch(6, topic=second)
    case = items.case_study(first, questions=2)
    too_big = items.case_study(second, questions=5, slug="too-big")
    mock = MockExam.objects.start(learner=learner, exam=exam)
    cases = list(mock.items.order_by("position").values_list("question__case_study_id", flat=True))
    assert len(cases) == 8
    assert cases[-2:] == [case.pk, case.pk]
    assert case.pk not in cases[:-2]
    assert too_big.pk not in cases
    topics = list(mock.items.values_list("topic_id", flat=True))
    assert topics.count(first.pk) == 4
    assert topics.count(second.pk) == 4


def test_the_mock_item_page_shows_the_scenario(client, learner):
    exam = ExamFactory(mock_question_count=2, mock_duration_minutes=30, mock_pass_percent=70)
    case = items.case_study(TopicFactory(exam=exam, weight=100), questions=2)
    client.post(reverse("mock_start", args=[exam.slug]))
    mock = MockExam.objects.get()
    text = client.get(reverse("mock_item", args=[mock.code, 1])).text
    assert "Case study: Contoso&#x27;s branch offices" in text
    assert CaseStudy.objects.get() == case
