"""A question sent back to review (or draft) after learners met it disappears for them on every
path at once: quizzes skip it, mock exams count it as withdrawn, reviews and histories stop
showing it, and nothing posted to it is recorded or answered with its key and rationales.

Questions are withdrawn the way curators do it, with the admin's "send to review" action."""

import re
from datetime import timedelta

import pytest
from django.test import Client, TestCase
from django.urls import reverse
from django.utils import timezone

from progress.cohorts.item_statistics import compute_item_statistics
from progress.mocks.models import MockExam
from progress.practice.marks import Bookmark
from progress.practice.models import Attempt, Quiz, ReviewCard
from progress.readiness.models import ExamAbility, StudyGoal
from questions.models import Question
from tests.factories import (
    ExamFactory,
    InstructorFactory,
    QuestionFactory,
    StaffFactory,
    TopicFactory,
    UserFactory,
    answer_topic,
    record_answer,
    storage_and_serving_exam,
)

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:questions_question_changelist")


def curator_client() -> Client:
    curator = Client()
    curator.force_login(StaffFactory.create())
    return curator


def withdraw(*questions: Question) -> None:
    curator = curator_client()
    # The cached pages are dropped when the action's transaction commits.
    with TestCase.captureOnCommitCallbacks(execute=True):
        response = curator.post(
            CHANGELIST,
            {"action": "send_to_review", "_selected_action": [q.pk for q in questions]},
            follow=True,
        )
    assert f"Sent {len(questions)} question(s) to review." in response.text


def publish_again(question: Question) -> None:
    curator = curator_client()
    with TestCase.captureOnCommitCallbacks(execute=True):
        curator.post(CHANGELIST, {"action": "publish", "_selected_action": [question.pk]})


def secret_question(topic, **kwargs) -> Question:
    """A question whose every text is its own, so that a page can be searched for them."""
    n = Question.objects.count()
    return QuestionFactory.create(
        topic=topic,
        stem=f"Withdrawn stem {n}: which key rotates?",
        explanation=f"Withdrawn explanation {n}.",
        trap=f"Withdrawn trap {n}.",
        **kwargs,
    )


def secrets_of(question: Question) -> list[str]:
    texts = [question.stem, question.explanation, question.trap]
    for option in question.options.select_related("rationale"):
        texts += [option.key, option.text, option.rationale.why]
    return texts


def assert_hidden(response, question: Question, alone: bool = True) -> None:
    """Nothing of the question's content, its key or its rationales reaches the learner; on
    a page of this question `alone`, no result either."""
    for text in secrets_of(question):
        assert text not in response.text
    if alone:
        assert not re.search(r"mark-correct|is-correct|Why it is right", response.text)


def correct_key(question):
    return question.options.get(is_correct=True).key


def wrong_key(question):
    return question.options.filter(is_correct=False).first().key


@pytest.fixture
def topic():
    return TopicFactory()


@pytest.fixture
def three(topic):
    """Three published questions in bank order; the second one's texts are its own."""
    return [
        QuestionFactory(topic=topic, position=0),
        secret_question(topic, position=1),
        QuestionFactory(topic=topic, position=2),
    ]


def start_quiz(client, topic) -> Quiz:
    client.post(
        reverse("quiz_start"),
        {"exam": topic.exam.slug, "topic": topic.slug, "length": "all", "selection": "any"},
    )
    return Quiz.objects.latest("created_at")


def number_of(quiz: Quiz, question: Question) -> int:
    return quiz.items.get(question=question).position + 1


def item_url(quiz: Quiz, number: int) -> str:
    return reverse("quiz_item", args=[quiz.code, number])


# Quizzes --------------------------------------------------------------------------------------


def test_a_withdrawn_quiz_question_is_a_clear_410_page_without_its_content(
    client, learner, topic, three
):
    quiz = start_quiz(client, topic)
    withdrawn = three[1]
    number = number_of(quiz, withdrawn)
    withdraw(withdrawn)
    response = client.get(item_url(quiz, number))
    assert response.status_code == 410
    assert f"Question {number} was withdrawn" in response.text
    assert "the quiz skips it and is 2 questions long now" in response.text
    assert_hidden(response, withdrawn)


def test_answering_a_withdrawn_quiz_question_records_nothing_and_reveals_nothing(
    client, learner, topic, three
):
    quiz = start_quiz(client, topic)
    withdrawn = three[1]
    number = number_of(quiz, withdrawn)
    client.get(item_url(quiz, number))  # the question was open in a tab...
    withdraw(withdrawn)  # ...when a curator sent it back to review
    response = client.post(item_url(quiz, number), {"choice": correct_key(withdrawn)})
    assert response.status_code == 410
    assert_hidden(response, withdrawn)
    htmx = client.post(
        item_url(quiz, number), {"choice": correct_key(withdrawn)}, headers={"HX-Request": "true"}
    )
    assert htmx.headers["HX-Redirect"] == reverse("quiz_resume", args=[quiz.code])
    assert_hidden(htmx, withdrawn)
    assert not Attempt.objects.exists()
    assert not ReviewCard.objects.exists()
    quiz.refresh_from_db()
    assert (quiz.answered_count, quiz.withdrawn_count) == (0, 1)


def test_a_quiz_skips_a_withdrawn_question_and_shrinks(client, learner, topic, three):
    quiz = start_quiz(client, topic)
    order = [item.question for item in quiz.items.order_by("position")]
    withdrawn = three[1]
    withdraw(withdrawn)
    for question in [q for q in order if q != withdrawn]:
        resumed = client.get(reverse("quiz_resume", args=[quiz.code]), follow=True)
        assert resumed.redirect_chain[-1][0] == item_url(quiz, number_of(quiz, question))
        assert_hidden(resumed, withdrawn, alone=False)
        client.post(item_url(quiz, number_of(quiz, question)), {"choice": correct_key(question)})
    # The first resume after the withdrawal said so once; the header says it on every question.
    kept = three[0]
    first = client.get(item_url(quiz, number_of(quiz, kept))).text
    assert "1 question withdrawn for review: skipped, the quiz is 2 long now" in first
    quiz.refresh_from_db()
    assert quiz.is_finished  # the last question still published finished it
    assert (quiz.answered_count, quiz.right_count, quiz.withdrawn_count) == (2, 2, 1)
    summary = client.get(reverse("quiz_summary", args=[quiz.code]))
    assert "2 of 2</strong> right" in summary.text
    assert "withdrawn for review before you reached it" in summary.text
    assert_hidden(summary, withdrawn, alone=False)


def test_the_quiz_tells_the_learner_when_it_shrinks(client, learner, topic, three):
    quiz = start_quiz(client, topic)
    withdraw(three[1])
    response = client.get(reverse("quiz_resume", args=[quiz.code]), follow=True)
    assert "1 question of this quiz was withdrawn for review" in response.text
    assert "is 2 long now" in response.text


def test_a_question_published_again_comes_back_into_the_quiz(client, learner, topic, three):
    quiz = start_quiz(client, topic)
    withdraw(three[1])
    client.get(reverse("quiz_resume", args=[quiz.code]))
    publish_again(three[1])
    client.get(reverse("quiz_resume", args=[quiz.code]))
    quiz.refresh_from_db()
    assert quiz.withdrawn_count == 0
    response = client.get(item_url(quiz, number_of(quiz, three[1])))
    assert response.status_code == 200
    assert three[1].stem in response.text


def test_an_answered_quiz_question_withdrawn_later_shows_neither_result_nor_rationales(
    client, learner, topic, three
):
    quiz = start_quiz(client, topic)
    withdrawn = three[1]
    number = number_of(quiz, withdrawn)
    client.post(item_url(quiz, number), {"choice": wrong_key(withdrawn)})
    withdraw(withdrawn)
    response = client.get(item_url(quiz, number))
    assert response.status_code == 410
    assert_hidden(response, withdrawn)
    # The answer stays in the learner's record (history, readiness), without the question.
    assert Attempt.objects.filter(question=withdrawn).count() == 1
    summary = client.get(reverse("quiz_summary", args=[quiz.code]))
    assert "A question withdrawn for review" in summary.text
    assert "Retry the" not in summary.text  # the one missed is no longer published
    assert_hidden(summary, withdrawn, alone=False)


def test_retry_draws_no_withdrawn_question(client, learner, topic, three):
    quiz = start_quiz(client, topic)
    for question in three:
        client.post(item_url(quiz, number_of(quiz, question)), {"choice": wrong_key(question)})
    withdraw(three[1])
    client.post(reverse("quiz_retry", args=[quiz.code]))
    retry = Quiz.objects.get(retry_of=quiz)
    assert set(retry.items.values_list("question_id", flat=True)) == {three[0].pk, three[2].pk}


def test_new_quizzes_of_every_choice_leave_withdrawn_questions_out(client, learner, topic, three):
    for question in three:
        record_answer(learner, question, right=False)  # wrong, due for review
    ReviewCard.objects.update(due=timezone.now() - timedelta(hours=1))
    Bookmark.objects.create(learner=learner, question=three[1])
    withdraw(three[1])
    for selection in ("any", "wrong", "due", "bookmarked", "adaptive"):
        client.post(
            reverse("quiz_start"),
            {"exam": topic.exam.slug, "topic": topic.slug, "length": "all", "selection": selection},
        )
    drawn = set(Quiz.objects.values_list("items__question_id", flat=True))
    assert three[1].pk not in drawn
    assert {three[0].pk, three[2].pk} <= drawn


# The review queue and the study plan ----------------------------------------------------------


def test_withdrawn_reviews_leave_the_queue_the_plan_and_todays_practice(client, learner):
    exam = ExamFactory()
    topic = TopicFactory(exam=exam)
    questions = [secret_question(topic, position=n) for n in range(3)]
    for question in questions[:2]:
        record_answer(learner, question, right=False)
    ReviewCard.objects.update(due=timezone.now() - timedelta(hours=1))
    StudyGoal.objects.create(
        learner=learner,
        exam=exam,
        target_date=timezone.localdate() + timedelta(days=10),
        daily_questions=5,
    )
    withdraw(questions[0])
    home = client.get(reverse("progress_home")).text
    assert "Review due questions (1)" in home
    assert ReviewCard.objects.due(learner).count() == 1
    plan = client.get(reverse("study_plan", args=[exam.slug])).text
    assert "(1 review)" in plan
    client.post(reverse("today_practice", args=[exam.slug]))
    quiz = Quiz.objects.get(learner=learner)
    assert questions[0].pk not in set(quiz.items.values_list("question_id", flat=True))
    assert questions[1].pk in set(quiz.items.values_list("question_id", flat=True))
    # The card stays: published again, the question comes back to review.
    assert ReviewCard.objects.filter(question=questions[0]).exists()


# Mock exams ----------------------------------------------------------------------------------


@pytest.fixture
def mock_exam():
    exam = ExamFactory(mock_question_count=4, mock_duration_minutes=30, mock_pass_percent=70)
    topic = TopicFactory(exam=exam, weight=100)
    for n in range(4):
        secret_question(topic, position=n)
    return exam


def start_mock(client, exam) -> MockExam:
    client.post(reverse("mock_start", args=[exam.slug]))
    return MockExam.objects.latest("started_at")


def mock_url(mock, number):
    return reverse("mock_item", args=[mock.code, number])


def test_a_mock_in_progress_drops_a_withdrawn_question_and_scores_without_it(
    client, learner, mock_exam
):
    mock = start_mock(client, mock_exam)
    items = list(mock.items.select_related("question").order_by("position"))
    withdrawn = items[1].question
    # Answered wrong before the withdrawal: neither saved later nor counted.
    client.post(mock_url(mock, 2), {"choice": wrong_key(withdrawn), "go": "next"})
    withdraw(withdrawn)
    page = client.get(mock_url(mock, 2))
    assert page.status_code == 200
    assert "withdrawn for review during the exam" in page.text
    assert_hidden(page, withdrawn)
    saved = client.post(mock_url(mock, 2), {"choice": correct_key(withdrawn), "go": "next"})
    assert saved.status_code == 410
    assert_hidden(saved, withdrawn)
    items[1].refresh_from_db()
    assert items[1].chosen_keys == [wrong_key(withdrawn)]  # untouched by the refused save
    for number in (1, 3, 4):
        question = items[number - 1].question
        other = client.get(mock_url(mock, number))
        assert "Question 2: withdrawn" in other.text  # the navigator
        assert_hidden(other, withdrawn)
        client.post(mock_url(mock, number), {"choice": correct_key(question), "go": "next"})
    before = client.get(reverse("mock_submit", args=[mock.code])).text
    assert "Every question has an answer." in before
    assert "Question 2 was withdrawn for review during the exam" in before
    client.post(reverse("mock_submit", args=[mock.code]))
    mock.refresh_from_db()
    assert (mock.right_count, mock.withdrawn_count, mock.percent) == (3, 1, 100.0)
    assert mock.passed
    assert not Attempt.objects.filter(question=withdrawn).exists()
    assert Attempt.objects.filter(learner=learner).count() == 3
    report = client.get(reverse("mock_report", args=[mock.code]))
    assert "3 of 3</strong> right (100%)" in report.text
    assert "0 answered wrong, 0 left unanswered" in report.text
    assert "1 question was withdrawn for review during the exam" in report.text
    home = client.get(reverse("progress_home")).text
    assert "100% (3 right, 0 wrong, 0 unanswered)" in home  # the readiness "why"
    assert_hidden(report, withdrawn, alone=False)
    for show in ("all", "wrong", "flagged"):
        review = client.get(reverse("mock_review", args=[mock.code]), {"show": show})
        assert_hidden(review, withdrawn, alone=False)
    review = client.get(reverse("mock_review", args=[mock.code]), {"show": "all"}).text
    assert "not counted in your score" in review
    assert review.count(">Withdrawn<") == 1
    # Practising the missed questions has none to practise: the withdrawn one is out.
    response = client.post(reverse("mock_practise", args=[mock.code]))
    assert response.url == reverse("mock_report", args=[mock.code])
    assert not Quiz.objects.exists()


def test_a_finished_mocks_review_hides_a_question_withdrawn_since(client, learner, mock_exam):
    mock = start_mock(client, mock_exam)
    items = list(mock.items.select_related("question").order_by("position"))
    for number, item in enumerate(items, start=1):
        client.post(mock_url(mock, number), {"choice": wrong_key(item.question), "go": "next"})
    client.post(reverse("mock_submit", args=[mock.code]))
    withdrawn = items[0].question
    before = client.get(reverse("mock_review", args=[mock.code]), {"show": "all"})
    assert withdrawn.explanation in before.text
    withdraw(withdrawn)
    for show in ("all", "wrong"):
        review = client.get(reverse("mock_review", args=[mock.code]), {"show": show})
        assert_hidden(review, withdrawn, alone=False)
        assert "withdrawn for review since you sat the exam" in review.text
    # The score given at submission stands; the withdrawn one is not drawn for practice.
    mock.refresh_from_db()
    assert (mock.right_count, mock.withdrawn_count) == (0, 0)
    client.post(reverse("mock_practise", args=[mock.code]))
    drawn = set(Quiz.objects.get(learner=learner).items.values_list("question_id", flat=True))
    assert drawn == {item.question_id for item in items[1:]}


def test_a_new_mock_draws_no_withdrawn_question(client, learner, mock_exam):
    withdrawn = mock_exam.topics.get().questions.first()
    withdraw(withdrawn)
    mock = start_mock(client, mock_exam)
    assert mock.question_count == 3
    assert not mock.items.filter(question=withdrawn).exists()


# The question page, the learner's lists ------------------------------------------------------


def test_the_question_page_of_a_withdrawn_question_is_404_and_records_nothing(
    client, learner, topic
):
    question = secret_question(topic)
    url = reverse("question_detail", args=[question.uid])
    assert client.get(url).status_code == 200
    withdraw(question)
    assert client.get(url).status_code == 404
    response = client.post(url, {"choice": correct_key(question)})
    assert response.status_code == 404
    assert_hidden(response, question)
    assert not Attempt.objects.exists()


def test_a_curators_preview_answer_is_not_recorded(client, topic):
    question = secret_question(topic, status="review")
    client.force_login(StaffFactory())
    url = reverse("question_detail", args=[question.uid])
    response = client.post(url, {"choice": correct_key(question)})
    assert response.status_code == 200
    assert "Preview" in response.text or "preview" in response.text
    assert not Attempt.objects.exists()


def test_history_keeps_the_answer_but_not_the_withdrawn_question(client, learner, topic):
    question = secret_question(topic)
    record_answer(learner, question, right=True)
    withdraw(question)
    response = client.get(reverse("history"))
    assert f'{question.uid} <span class="muted">(withdrawn for review)</span>' in response.text
    assert "✓</span> Right" in response.text
    for text in secrets_of(question):
        assert text not in response.text


def test_bookmarks_hide_a_withdrawn_question(client, learner, topic):
    question = secret_question(topic)
    Bookmark.objects.create(learner=learner, question=question)
    withdraw(question)
    response = client.get(reverse("bookmarks"))
    assert_hidden(response, question)


def test_dashboard_counts_a_quiz_without_its_withdrawn_questions(client, learner, topic, three):
    quiz = start_quiz(client, topic)
    withdraw(three[1])
    client.get(reverse("quiz_resume", args=[quiz.code]))
    assert "0 of 2 answered" in client.get(reverse("progress_home")).text


def test_an_instructor_who_is_not_staff_sees_no_withdrawn_question_in_item_analysis(client):
    topic = TopicFactory()
    kept, withdrawn = QuestionFactory(topic=topic), secret_question(topic)
    for _ in range(3):
        learner = UserFactory()
        record_answer(learner, kept, right=True)
        record_answer(learner, withdrawn, right=False)
    compute_item_statistics()
    withdraw(withdrawn)
    client.force_login(InstructorFactory())
    response = client.get(reverse("item_analysis", args=[topic.exam.slug]))
    assert response.status_code == 200
    assert kept.stem in response.text
    assert_hidden(response, withdrawn, alone=False)


def test_the_readiness_why_names_a_withdrawn_question_without_a_link(client, learner):
    exam = storage_and_serving_exam()
    for topic in exam.topics.all():
        answer_topic(learner, topic, 5, right=True)
    movers = ExamAbility.objects.get(learner=learner, exam=exam).movers
    moved = Question.objects.get(pk=max(movers, key=lambda m: abs(m[4]))[2])
    withdraw(moved)
    page = client.get(reverse("progress_home")).text
    listed = page.split("moved your readiness most")[1].split("</ul>")[0]
    assert f"{moved.uid} (withdrawn for review)" in listed
    assert reverse("question_detail", args=[moved.uid]) not in page
