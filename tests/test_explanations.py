"""Every readiness figure explains itself: what it rests on, what changed since the learner's
last visit and the answers that moved it most, on /progress/, on the instructor's drill-down,
and on the mock report (the forecast before the sitting, and how the sitting counted)."""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from progress.cohorts.models import Cohort, Membership
from progress.mocks.models import MockExam, MockItem
from progress.readiness.explain import difficulty_words, top_movers
from progress.readiness.models import ExamAbility, ReadinessVisit
from tests.factories import (
    InstructorFactory,
    answer_topic,
    record_answer,
    storage_and_serving_exam,
)

pytestmark = pytest.mark.django_db

HOME = reverse("progress_home")


@pytest.fixture
def exam():
    return storage_and_serving_exam()


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


# --- By hand ---------------------------------------------------------------------------------


def test_the_answers_that_moved_a_figure_most_come_first():
    kept = [
        [1, 10, 100, True, 2.0],
        [2, 10, 101, False, -5.0],
        [3, 11, 102, True, 1.0],
        [4, 10, 103, True, 5.0],
        [5, 11, 104, False, -0.5],
    ]
    # Largest movement first, up or down; of two equal, the newer answer first.
    assert [m[0] for m in top_movers(kept, after=0)] == [4, 2, 1]
    # Only answers after the last visit's newest one count.
    assert [m[0] for m in top_movers(kept, after=2)] == [4, 3, 5]
    # A topic's own.
    assert [m[0] for m in top_movers(kept, after=0, topic_id=11)] == [3, 5]
    assert top_movers(kept, after=5) == []


def test_difficulty_in_words():
    assert difficulty_words(0, 0.0) == ""
    assert difficulty_words(4, 0.41) == "harder than average"
    assert difficulty_words(4, -0.6) == "easier than average"
    assert difficulty_words(4, 0.1) == "about average"


# --- The learner's page ----------------------------------------------------------------------


def answer_both(learner, exam, count, right):
    for topic in exam.topics.all():
        answer_topic(learner, topic, count, right=right)


def test_the_pass_likelihood_says_what_it_rests_on(client, learner, exam):
    storage = exam.topics.get(title="Storage")
    answer_both(learner, exam, 6, right=True)
    record_answer(learner, storage.questions.order_by("pk")[6], False)
    page = text_of(client.get(HOME).text)
    assert f"13 answers to {exam.code} questions" in page
    assert "Answers to other exams do not move it" in page
    assert "Storage: 7 answers, 6 right" in page
    assert "Serving: 6 answers, 6 right" in page
    assert "No mock exam yet" in page
    # First visit: no baseline, the answers that moved it lately instead.
    assert "Lately" in page
    assert "Since your last visit" not in page
    # Each topic has its own "why", naming the topic for a screen reader.
    assert re.search(r"Why \d+% in Storage \?", page)


def test_the_answer_that_moved_readiness_most_is_named_first(client, learner, exam):
    answer_both(learner, exam, 5, right=True)
    storage = exam.topics.get(title="Storage")
    missed = storage.questions.order_by("pk")[5]
    record_answer(learner, missed, False)
    movers = ExamAbility.objects.get(learner=learner, exam=exam).movers
    assert [m[2] for m in movers][-1] == missed.pk
    assert len(movers) == 11
    # The first answer, while little is known, moves readiness most; the miss pulls down.
    assert movers[-1][3] == 0  # its score: wrong
    assert movers[-1][4] < 0
    biggest = max(movers, key=lambda m: abs(m[4]))
    assert biggest == movers[0]
    page = client.get(HOME).text
    listed = page.split("moved your readiness most")[1].split("</ul>")[0]
    first = storage.questions.get(pk=biggest[2])
    assert re.findall(r'<a href="/questions/([^/"]+)/">', listed)[0] == first.uid
    assert f"answered right: +{round(biggest[4])} points" in text_of(listed)


def test_a_later_visit_says_what_changed_since_the_last(client, learner, exam):
    answer_both(learner, exam, 6, right=True)
    client.get(HOME)
    visit = ReadinessVisit.objects.get(learner=learner, exam=exam)
    assert visit.since_at is None
    assert visit.pass_probability is not None
    # A reload within the visit keeps no baseline yet.
    assert "Since your last visit" not in client.get(HOME).text
    # The next day: the learner answers two wrong in Serving, then comes back.
    ReadinessVisit.objects.filter(pk=visit.pk).update(seen_at=visit.seen_at - timedelta(hours=7))
    serving = exam.topics.get(title="Serving")
    new = list(serving.questions.order_by("pk")[6:8])
    for question in new:
        record_answer(learner, question, False)
    page = client.get(HOME).text
    assert "Since your last visit on" in page
    since = page.split("Since your last visit on")[1].split("</details>")[0]
    # Only the two new answers are listed, both wrong, both lowering readiness.
    listed = re.findall(r'<a href="/questions/([^/"]+)/">', since)
    assert sorted(listed) == sorted(q.uid for q in new)
    assert since.count("answered wrong") == 2
    assert "answered right" not in since
    assert re.search(r"Pass likelihood \d+% → \d+% \(\u2212\d+ points\)", text_of(since))
    # Reloading later in the same visit still compares with the day before.
    assert "Since your last visit on" in client.get(HOME).text


# --- Instructors -----------------------------------------------------------------------------


def test_instructors_see_the_same_explanation_without_moving_the_visit(client, learner, exam):
    answer_both(learner, exam, 6, right=True)
    client.get(HOME)
    seen = ReadinessVisit.objects.get(learner=learner, exam=exam).seen_at
    instructor = InstructorFactory()
    cohort = Cohort.objects.create(name="Evening", exam=exam)
    cohort.instructors.add(instructor)
    Membership.objects.create(cohort=cohort, learner=learner)
    client.force_login(instructor)
    url = reverse("cohort_learner", args=[cohort.code, learner.get_username()])
    page = text_of(client.get(url).text)
    assert f"12 answers to {exam.code} questions" in page
    assert "the answers that moved their readiness most" in page.lower()
    assert ReadinessVisit.objects.get(learner=learner, exam=exam).seen_at == seen


# --- Mock exams ------------------------------------------------------------------------------


def test_the_mock_report_sets_the_score_against_the_forecast_before(client, learner, exam):
    answer_both(learner, exam, 6, right=True)
    client.post(reverse("mock_start", args=[exam.slug]))
    mock = MockExam.objects.get(learner=learner)
    before = mock.forecast_before
    assert before is not None
    assert 0 < before["pass_probability"] < 1
    assert before["answers"] == 12
    # Three answered right, one wrong, the other six left blank.
    items = list(mock.items.select_related("question").order_by("position"))
    for item, right in zip(items[:4], (True, True, True, False), strict=True):
        keys = item.question.options.filter(is_correct=right).values_list("key", flat=True)
        MockItem.objects.filter(pk=item.pk).update(chosen_keys=list(keys)[:1])
    mock.submit()
    page = text_of(client.get(reverse("mock_report", args=[mock.code])).text)
    assert f"Forecast when you started {round(100 * before['pass_probability'])}% likely" in page
    assert "30%: 3 right, 1 wrong, 6 unanswered" in page
    assert "the 6 left unanswered cost 60 points here" in page
    assert "its 4 answered questions count like any practice answers" in page
    assert "The 6 unanswered questions are not counted" in page
    # The learner's readiness took in the four answers, and only those.
    assert ExamAbility.objects.get(learner=learner, exam=exam).answers == 16
    # The progress page tells the same story of the latest mock.
    home = text_of(client.get(HOME).text)
    assert "The latest mock exam" in home
    assert "(3 right, 1 wrong, 6 unanswered)" in home
    assert "the unanswered questions are not counted" in home


def test_a_mock_started_before_any_forecast_says_so(client, learner, exam):
    client.post(reverse("mock_start", args=[exam.slug]))
    mock = MockExam.objects.get(learner=learner)
    assert mock.forecast_before is None
    mock.submit()
    page = text_of(client.get(reverse("mock_report", args=[mock.code])).text)
    assert "none yet: some topics had too few answers" in page


def test_after_a_rebuild_the_dates_are_those_of_the_answers(client, learner, exam):
    import io

    from django.core.management import call_command

    from progress.practice.models import Attempt
    from progress.readiness.models import TopicReadiness

    answer_both(learner, exam, 6, right=True)
    long_ago = timezone.now() - timedelta(days=40)
    Attempt.objects.filter(learner=learner).update(answered_at=long_ago)
    call_command("rebuild_readiness", "--no-fit", stdout=io.StringIO(), stderr=io.StringIO())
    assert {row.updated_at for row in TopicReadiness.objects.filter(learner=learner)} == {long_ago}
    assert ExamAbility.objects.get(learner=learner, exam=exam).updated_at == long_ago
    page = text_of(client.get(HOME).text)
    assert f"the latest on {long_ago:%-d %b %Y}" in page
    assert f"Storage: 6 answers, 6 right, the latest on {long_ago:%-d %b}" in page
