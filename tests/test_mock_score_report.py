"""The score report like the real one: a scaled score where the exam reports one, the score by
section and by blueprint domain."""

import pytest
from django.urls import reverse

from progress.mocks.models import MockExam
from questions.models import MockSection, ScoreScale
from tests.factories import ExamFactory, QuestionFactory, TopicFactory

pytestmark = pytest.mark.django_db

AWS = ScoreScale(low=100, high=1000, passing=720)


@pytest.mark.parametrize(
    ("percent", "scaled"),
    [(0, 100), (36, 410), (72, 720), (86, 860), (100, 1000), (71.9, 719)],
)
def test_the_scale_is_linear_on_each_side_of_the_pass_mark(percent, scaled):
    # 100 + 620 x 36/72 = 410; 720 + 280 x 14/28 = 860; just under the pass is under 720.
    assert AWS.scaled(percent, 72) == scaled


@pytest.fixture
def exam():
    """Four questions, two per domain, in two sections; reported on AWS's scale."""
    exam = ExamFactory(
        mock_question_count=4, mock_duration_minutes=30, mock_pass_percent=72,
        scale_min=100, scale_max=1000, scale_pass=720,
    )  # fmt: skip
    for position, title in enumerate(["Design resilient", "Secure workloads"]):
        topic = TopicFactory(exam=exam, weight=50, title=title, position=position)
        QuestionFactory.create_batch(2, topic=topic)
    MockSection.objects.create(exam=exam, position=0, title="First half", question_count=2)
    MockSection.objects.create(exam=exam, position=1, title="Second half", question_count=2)
    return exam


def sit(client, exam, right):
    """Answer the first `right` questions right and the rest wrong, then submit."""
    client.post(reverse("mock_start", args=[exam.slug]))
    mock = MockExam.objects.latest("started_at")
    for item in mock.items.select_related("question").order_by("position"):
        options = item.question.options.filter(is_correct=item.position < right)
        url = reverse("mock_item", args=[mock.code, item.position + 1])
        client.get(url)
        client.post(url, {"choice": [options[0].key], "go": "next"})
    client.post(reverse("mock_submit", args=[mock.code]))
    mock.refresh_from_db()
    return mock


def test_the_report_gives_the_scaled_score_and_each_section_and_domain(client, learner, exam):
    mock = sit(client, exam, right=3)  # 75 %: 720 + 280 x 3/28 = 750
    page = client.get(reverse("mock_report", args=[mock.code])).text
    assert "Scaled score: <strong>750</strong>; a pass is 720 or more" in page
    assert "on a scale of 100 to 1000" in page
    assert "Pass" in page
    by_section = page[page.index('id="by-section"') : page.index('id="by-topic"')]
    assert "1. First half" in by_section
    assert "2 of 2" in by_section
    assert "1 of 2" in by_section
    by_domain = page[page.index('id="by-topic"') : page.index('id="trend-heading"')]
    assert "By blueprint domain" in by_domain
    assert "Design resilient" in by_domain
    assert "Secure workloads" in by_domain


def test_below_the_pass_mark_the_scaled_score_is_below_too(client, learner, exam):
    mock = sit(client, exam, right=2)  # 50 %: 100 + 620 x 50/72 = 530.5, down to 530
    page = client.get(reverse("mock_report", args=[mock.code])).text
    assert "Scaled score: <strong>530</strong>" in page
    assert "Not yet a pass" in page


def test_an_exam_without_a_scale_reports_a_percentage(client, learner):
    exam = ExamFactory(mock_question_count=2, mock_duration_minutes=30, mock_pass_percent=70)
    QuestionFactory.create_batch(2, topic=TopicFactory(exam=exam, weight=100))
    mock = sit(client, exam, right=1)
    page = client.get(reverse("mock_report", args=[mock.code])).text
    assert "Scaled score" not in page
    assert "(50%)" in page
    assert 'id="by-section"' not in page


def test_the_sectioned_report_costs_what_the_plain_one_does(
    client, learner, exam, django_assert_num_queries
):
    mock = sit(client, exam, right=4)
    # As tests/test_mocks.py pins it: the sections are the sitting's own, read with it.
    with django_assert_num_queries(10):
        client.get(reverse("mock_report", args=[mock.code]))


def test_the_review_names_each_questions_section(client, learner, exam):
    mock = sit(client, exam, right=0)
    page = client.get(reverse("mock_review", args=[mock.code]) + "?show=all").text
    assert "Question 1 · First half · " in page
    assert "Question 4 · Second half · " in page
