"""Study analytics on the learner's page: stored daily totals, never a scan of attempts."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from progress.practice.models import LearnerDay
from tests.factories import QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db

HOME = reverse("progress_home")


def test_no_answers_yet(client, learner):
    text = client.get(HOME).text
    assert "No answers yet" in text
    assert '<svg class="chart' not in text


def test_answers_update_the_daily_totals(client, learner):
    questions = QuestionFactory.create_batch(3)
    for question, right in zip(questions, (True, False, True), strict=True):
        option = question.options.filter(is_correct=right).first()
        client.post(question.get_absolute_url(), {"choice": option.key})
    day = LearnerDay.objects.get(learner=learner)
    assert (day.answers, day.right, day.day) == (3, 2, timezone.localdate())
    text = client.get(HOME).text
    assert "<dt>Answers</dt><dd>3</dd>" in text
    assert "<dt>Right</dt><dd>67%</dd>" in text
    assert "<dt>Streak</dt><dd>1 day</dd>" in text
    assert 'role="img"' in text
    assert "The last 30 days as a table" in text
    assert f"<td>{timezone.localdate():%a %-d %b}</td><td>3</td><td>2</td><td>67%</td>" in text


def test_streak_and_time_per_question_on_hand_made_days(client, learner):
    today = timezone.localdate()
    for offset, (answers, right, timed, seconds) in {
        1: (4, 3, 4, 120), 2: (2, 1, 2, 60), 3: (1, 1, 0, 0), 5: (9, 9, 9, 90),
    }.items():  # fmt: skip
        LearnerDay.objects.create(
            learner=learner, day=today - timedelta(days=offset), answers=answers,
            right=right, timed_answers=timed, seconds=seconds,
        )  # fmt: skip
    text = client.get(HOME).text
    # Nothing today yet: the streak runs back from yesterday over 3 days (day 4 is empty).
    assert "<dt>Streak</dt><dd>3 days</dd>" in text
    assert "<dt>Answers</dt><dd>16</dd>" in text
    assert "<dt>Right</dt><dd>88%</dd>" in text  # 14 of 16
    assert "<dt>Time per question</dt><dd>18 s</dd>" in text  # 270 s over 15 timed answers


def test_rebuild_equals_the_incremental_totals(client, learner):
    questions = QuestionFactory.create_batch(4)
    for n, question in enumerate(questions):
        option = question.options.filter(is_correct=n % 2 == 0).first()
        client.post(question.get_absolute_url(), {"choice": option.key})
    incremental = list(LearnerDay.objects.values_list("learner", "day", "answers", "right"))
    LearnerDay.objects.rebuild()
    assert list(LearnerDay.objects.values_list("learner", "day", "answers", "right")) == (
        incremental
    )


def test_the_dashboard_query_count_is_flat(client, learner, django_assert_num_queries):
    # session with user, analytics (2), quizzes (2), reviews, mocks, goals, readiness (the
    # learner's topics: none yet; tests/test_dashboard.py pins the rest)
    with django_assert_num_queries(9) as few:
        client.get(HOME)
    today = timezone.localdate()
    LearnerDay.objects.bulk_create(
        LearnerDay(learner=learner, day=today - timedelta(days=n), answers=10, right=5)
        for n in range(200)
    )
    with django_assert_num_queries(len(few)):
        client.get(HOME)


def test_another_learner_sees_only_their_own(client, learner):
    other = UserFactory()
    LearnerDay.objects.create(learner=other, day=timezone.localdate(), answers=50, right=50)
    assert "No answers yet" in client.get(HOME).text


def test_rebuild_command(client, learner, capsys):
    from django.core.management import call_command

    question = QuestionFactory()
    client.post(question.get_absolute_url(), {"choice": question.options.first().key})
    LearnerDay.objects.all().delete()
    call_command("rebuild_progress")
    assert "Rebuilt 1 daily totals for 1 learners." in capsys.readouterr().out
    assert LearnerDay.objects.get(learner=learner).answers == 1
