"""Extra time in mock exams (WCAG 2.2.1): granted by a cohort's instructors to the cohort or
to one learner, shown to the learner before starting, held by the server's deadline."""

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from progress.cohorts.models import Cohort, Membership, TimeAllowance
from progress.mocks.models import MockExam, MockItem
from tests.factories import (
    ExamFactory,
    InstructorFactory,
    QuestionFactory,
    TopicFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def exam():
    exam = ExamFactory(mock_question_count=3, mock_duration_minutes=90, mock_pass_percent=70)
    QuestionFactory.create_batch(3, topic=TopicFactory(exam=exam, weight=100))
    return exam


@pytest.fixture
def instructor():
    return InstructorFactory()


@pytest.fixture
def cohort(exam, instructor):
    cohort = Cohort.objects.create(name="Evening class", exam=exam)
    cohort.instructors.add(instructor)
    return cohort


def as_user(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def member(cohort):
    learner = UserFactory()
    Membership.objects.create(cohort=cohort, learner=learner)
    return learner


def test_a_cohort_granted_half_as_much_again_sees_135_minutes_and_saves_at_minute_100(
    exam, cohort, instructor
):
    learner, outsider = member(cohort), UserFactory()
    response = as_user(instructor).post(
        reverse("cohort_allowance", args=[cohort.code]), {"allowance": "1.5"}
    )
    assert response.status_code == 302
    page = as_user(learner).get(reverse("mock_start", args=[exam.slug])).text
    assert "135 minutes (90 \u00d7 1.5" in page
    assert "Your time" not in as_user(outsider).get(reverse("mock_start", args=[exam.slug])).text
    client = as_user(learner)
    client.post(reverse("mock_start", args=[exam.slug]))
    mock = MockExam.objects.get(learner=learner)
    assert mock.deadline - mock.started_at == timedelta(minutes=135)
    # 100 minutes in: past the standard 90, within the 135.
    MockExam.objects.filter(pk=mock.pk).update(
        started_at=timezone.now() - timedelta(minutes=100),
        deadline=timezone.now() + timedelta(minutes=35),
    )
    item = mock.items.select_related("question").get(position=0)
    key = item.question.options.filter(is_correct=True).first().key
    response = client.post(reverse("mock_item", args=[mock.code, 1]), {"choice": key})
    assert response.status_code == 302
    assert MockItem.objects.get(pk=item.pk).chosen_keys == [key]


def test_one_learners_grant_and_the_cohorts_the_more_generous_holds(exam, cohort, instructor):
    learner = member(cohort)
    teacher = as_user(instructor)
    url = reverse("learner_allowance", args=[cohort.code, learner.username])
    teacher.post(url, {"allowance": "2"})
    teacher.post(reverse("cohort_allowance", args=[cohort.code]), {"allowance": "1.25"})
    assert TimeAllowance.objects.allowance_of(learner.pk, exam.pk) == "2"
    assert (
        'value="2" selected'
        in teacher.get(reverse("cohort_learner", args=[cohort.code, learner.username])).text
    )
    teacher.post(url, {"allowance": "1"})  # standard: the grant is withdrawn
    assert TimeAllowance.objects.allowance_of(learner.pk, exam.pk) == "1.25"


def test_untimed_sittings_show_no_countdown(exam, cohort, instructor):
    learner = member(cohort)
    as_user(instructor).post(
        reverse("cohort_allowance", args=[cohort.code]), {"allowance": "untimed"}
    )
    client = as_user(learner)
    assert (
        "untimed: take the time you need"
        in client.get(reverse("mock_start", args=[exam.slug])).text
    )
    client.post(reverse("mock_start", args=[exam.slug]))
    mock = MockExam.objects.get(learner=learner)
    text = client.get(reverse("mock_item", args=[mock.code, 1])).text
    assert "Untimed: take the time you need." in text
    assert "data-seconds-left" not in text


def test_leaving_the_cohort_ends_its_extra_time(exam, cohort, instructor):
    learner = member(cohort)
    as_user(instructor).post(reverse("cohort_allowance", args=[cohort.code]), {"allowance": "2"})
    Membership.objects.filter(learner=learner).delete()
    assert TimeAllowance.objects.allowance_of(learner.pk, exam.pk) == "1"


def test_only_the_cohorts_instructors_may_grant_and_bad_input_changes_nothing(
    exam, cohort, instructor
):
    learner = member(cohort)
    url = reverse("cohort_allowance", args=[cohort.code])
    assert as_user(learner).post(url, {"allowance": "2"}).status_code == 403
    assert as_user(InstructorFactory()).post(url, {"allowance": "2"}).status_code == 404
    own = reverse("learner_allowance", args=[cohort.code, learner.username])
    assert as_user(learner).post(own, {"allowance": "untimed"}).status_code == 403
    response = as_user(instructor).post(url, {"allowance": "3"})
    assert response.status_code == 400
    assert "Choose one of the times offered." in response.text
    stranger = UserFactory()
    other = reverse("learner_allowance", args=[cohort.code, stranger.username])
    assert as_user(instructor).post(other, {"allowance": "2"}).status_code == 404
    assert not TimeAllowance.objects.exists()
    assert as_user(instructor).get(url).status_code == 405
