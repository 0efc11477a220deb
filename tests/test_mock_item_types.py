"""Mock exams with questions of every item type: an answer saved part by part (a part left
blank stays blank, as in the real exam), shown again, graded at submission with its score,
and reviewed part by part."""

import pytest
from django.urls import reverse

from progress.mocks.models import MockExam, MockItem
from progress.practice.models import Attempt
from questions.models import Scoring
from tests import items
from tests.factories import ExamFactory, TopicFactory

pytestmark = pytest.mark.django_db


def sitting(client, questions=None):
    exam = ExamFactory(mock_question_count=6, mock_duration_minutes=60, mock_pass_percent=70)
    topic = TopicFactory(exam=exam, weight=100)
    made = questions(topic) if questions else items.every_type(topic)
    client.post(reverse("mock_start", args=[exam.slug]))
    mock = MockExam.objects.get()
    return mock, {q.pk: q for q in made}


def number_of(mock, question):
    return mock.items.get(question=question).position + 1


def test_a_partly_answered_matching_is_saved_shown_again_and_scored(client, learner):
    mock, questions = sitting(
        client, lambda topic: [items.matching(topic, prompts=4, scoring=Scoring.PARTIAL)]
    )
    question = next(iter(questions.values()))
    page = items.page_of(question)
    right = items.right_post(page)
    half = dict(list(right.items())[:2])  # two prompts of four answered, both right
    number = number_of(mock, question)
    response = client.post(reverse("mock_item", args=[mock.code, number]), {**half, "go": "review"})
    assert response.status_code == 302
    item = MockItem.objects.get(question=question)
    assert len(item.chosen_keys) == 2
    text = client.get(reverse("mock_item", args=[mock.code, number])).text
    for name, _value in half.items():
        assert f'name="{name}"' in text
    assert text.count(" selected") == 2
    client.post(reverse("mock_submit", args=[mock.code]))
    item.refresh_from_db()
    assert item.score == 0.5
    assert item.is_correct is False
    attempt = Attempt.objects.get(mock_item=item)
    assert attempt.score == 0.5
    review = client.get(reverse("mock_review", args=[mock.code]) + "?show=all").text
    assert "Partly right: 50%" in review
    assert review.count("Your answer") == 4
    assert review.count("<em>no answer</em>") == 2


def test_a_mixed_exhibit_is_saved_typed_text_included_shown_again_and_scored(client, learner):
    mock, questions = sitting(
        client, lambda topic: [items.mixed_dropdown(topic, scoring=Scoring.PARTIAL)]
    )
    question = next(iter(questions.values()))
    page = items.page_of(question)
    right = items.right_post(page)
    region = f"gap-{page.parts[1].key}"
    data = {**right, region: "us-east1"}  # the drop-down and the number right
    number = number_of(mock, question)
    url = reverse("mock_item", args=[mock.code, number])
    assert client.post(url, {**data, "go": "review"}).status_code == 302
    item = MockItem.objects.get(question=question)
    assert len(item.chosen_keys) == 3
    text = client.get(url).text
    assert 'value="us-east1"' in text
    assert text.count(" selected") == 1
    assert "South Carolina" not in text  # no feedback before submission
    client.post(reverse("mock_submit", args=[mock.code]))
    item.refresh_from_db()
    assert item.score == pytest.approx(2 / 3)
    review = client.get(reverse("mock_review", args=[mock.code]) + "?show=all").text
    assert "Partly right: 67%" in review
    assert "That region is in South Carolina." in review


def test_every_type_answered_right_in_a_mock_scores_full_marks(client, learner):
    mock, questions = sitting(client)
    for question in questions.values():
        number = number_of(mock, question)
        data = items.right_post(items.page_of(question))
        response = client.post(
            reverse("mock_item", args=[mock.code, number]), {**data, "go": "next"}
        )
        assert response.status_code == 302, (question.kind, response.content[:500])
    client.post(reverse("mock_submit", args=[mock.code]))
    mock.refresh_from_db()
    assert mock.right_count == 6
    assert set(MockItem.objects.values_list("score", flat=True)) == {1.0}


def test_a_bad_part_in_a_mock_save_is_refused_and_saves_nothing(client, learner):
    mock, questions = sitting(client, lambda topic: [items.fill_in(topic)])
    question = next(iter(questions.values()))
    page = items.page_of(question)
    number = number_of(mock, question)
    data = {f"blank-{page.parts[1].key}": "forty", "go": "next"}
    response = client.post(reverse("mock_item", args=[mock.code, number]), data)
    assert response.status_code == 400
    assert "Give a number here" in response.text
    assert MockItem.objects.get(question=question).chosen_keys == []


def test_a_mock_save_of_parts_costs_what_a_choice_save_costs(
    client, learner, django_assert_num_queries
):
    for prompts in (2, 8):
        MockExam.objects.all().delete()
        mock, questions = sitting(
            client, lambda topic, prompts=prompts: [items.matching(topic, prompts=prompts)]
        )
        question = next(iter(questions.values()))
        url = reverse("mock_item", args=[mock.code, 1])
        client.get(url)
        data = items.right_post(items.page_of(question))
        with django_assert_num_queries(2):  # as tests/test_mocks.py: session, the update
            client.post(url, {**data, "go": "next"})
