"""The practice builder: each choice draws what it says (questions built to tell them apart),
answers at the end reveal nothing before the end, pause and resume, the time limit held by
the server, and a practice, however exam-like, never taken for a mock exam."""

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from progress.mocks.models import MockExam, MockItem
from progress.practice.marks import Bookmark
from progress.practice.models import Attempt, Quiz, QuizItem
from progress.readiness.models import ExamAbility
from questions.models import Kind, Question, Status
from tests import items
from tests.factories import (
    ExamFactory,
    QuestionFactory,
    TopicFactory,
    UserFactory,
    answer_topic,
    record_answer,
    storage_and_serving_exam,
)

pytestmark = pytest.mark.django_db

START = reverse("quiz_start")
HOME = reverse("progress_home")


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def build(client, exam, **choices):
    """Post the builder's form as its page does (every item type ticked unless told)."""
    data = {
        "exam": exam.slug,
        "built": "1",
        "length": "10",
        "selection": "any",
        "kinds": list(Kind.values),
        "case_studies": "on",
        "feedback": "each",
        **choices,
    }
    return client.post(START, {k: v for k, v in data.items() if v is not None})


def drawn(learner) -> set[int]:
    quiz = Quiz.objects.filter(learner=learner).latest("created_at")
    return set(quiz.items.values_list("question_id", flat=True))


def key_of(question, right=True):
    return question.options.filter(is_correct=right).first().key


def answer(client, quiz, number, right=True, htmx=False):
    item = quiz.items.select_related("question").get(position=number - 1)
    headers = {"HX-Request": "true"} if htmx else {}
    url = reverse("quiz_item", args=[quiz.code, number])
    return client.post(url, {"choice": key_of(item.question, right)}, headers=headers)


# --- The filters -----------------------------------------------------------------------------


@pytest.fixture
def exam():
    exam = ExamFactory()
    for position in range(3):
        topic = TopicFactory(exam=exam, title=f"Area {position}", position=position)
        QuestionFactory.create_batch(3, topic=topic)
    return exam


def test_the_page_offers_every_choice_and_counts_what_they_give(client, learner, exam):
    page = client.get(f"{START}?exam={exam.slug}")
    assert page.status_code == 200
    text = text_of(page.text)
    for label in ("How many questions", "Time limit in minutes", "Area 0", "Area 2",
                  "Ordering (build list)", "Case studies", "Which questions",
                  "missed in my last", "not seen in my last", "At the end"):  # fmt: skip
        assert label in text
    assert "These choices give 9 questions." in text
    # Without JavaScript, "Count the questions" posts the choices and changes nothing.
    area = exam.topics.get(title="Area 1")
    counted = build(client, exam, topics=[area.slug], preview="1")
    assert "These choices give 3 questions." in text_of(counted.text)
    assert not Quiz.objects.exists()
    # With htmx, the line alone comes back.
    partial = client.post(
        START,
        {
            "exam": exam.slug,
            "built": "1",
            "length": "5",
            "selection": "any",
            "kinds": ["single"],
            "topics": [area.slug],
            "preview": "1",
        },
        headers={"HX-Request": "true"},
    )
    assert "<p" not in partial.text  # the text of the live region, which stays
    assert "These choices give 3 questions." in text_of(partial.text)
    assert not Quiz.objects.exists()


def test_several_topics(client, learner, exam):
    chosen = list(exam.topics.filter(title__in=["Area 0", "Area 2"]))
    response = build(client, exam, topics=[t.slug for t in chosen], length="20")
    quiz = Quiz.objects.get(learner=learner)
    assert response.url == reverse("quiz_item", args=[quiz.code, 1])
    assert drawn(learner) == set(
        Question.objects.filter(topic__in=chosen).values_list("pk", flat=True)
    )
    assert quiz.title == f"{exam.code}: Area 0, Area 2"


def test_item_types_and_case_studies(client, learner):
    topic = TopicFactory()
    single = QuestionFactory(topic=topic)
    multiple = QuestionFactory(topic=topic, kind=Kind.MULTIPLE, options=[True, True, False])
    ordering = items.ordering(topic)
    yes_no = items.yes_no(topic)
    case = items.case_study(topic, questions=2)
    in_case = set(case.questions.values_list("pk", flat=True))
    exam = topic.exam

    build(client, exam, kinds=["ordering", "yesno"], case_studies=None)
    assert drawn(learner) == {ordering.pk, yes_no.pk}
    # A case study's questions come together, whatever their own type.
    build(client, exam, kinds=["multiple"])
    assert drawn(learner) == {multiple.pk, *in_case}
    build(client, exam, kinds=[])
    quiz = Quiz.objects.filter(learner=learner).latest("created_at")
    assert list(quiz.items.values_list("question_id", flat=True)) == sorted(in_case)
    build(client, exam, kinds=["single"], case_studies=None)
    assert drawn(learner) == {single.pk}


def test_no_type_at_all_is_a_form_error(client, learner, exam):
    response = build(client, exam, kinds=[], case_studies=None)
    assert response.status_code == 400
    assert "Choose at least one item type, or the case studies." in response.text
    assert not Quiz.objects.exists()


def sitting_quiz(learner, client, questions, missed, days_ago):
    """A quiz of these questions, the `missed` ones answered wrong, the rest right, started
    `days_ago` days ago."""
    quiz = Quiz.objects.start(
        learner=learner, exam=questions[0].topic.exam, topic=None, selection="any",
        length=None, question_ids=[q.pk for q in questions],
    )  # fmt: skip
    for number, question in enumerate(questions, start=1):
        answer(client, quiz, number, right=question not in missed)
    Quiz.objects.filter(pk=quiz.pk).update(created_at=timezone.now() - timedelta(days=days_ago))
    return quiz


def sitting_mock(learner, questions, missed, days_ago):
    """A submitted mock exam of these questions, the `missed` ones answered wrong (the last
    left blank: missed too), started `days_ago` days ago."""
    started = timezone.now() - timedelta(days=days_ago)
    mock = MockExam.objects.create(
        learner=learner, exam=questions[0].topic.exam, question_count=len(questions),
        duration_minutes=30, pass_percent=70, started_at=started,
        deadline=started + timedelta(minutes=30),
    )  # fmt: skip
    for position, question in enumerate(questions):
        keys = [] if question == missed[-1] else [key_of(question, question not in missed)]
        MockItem.objects.create(
            mock=mock, position=position, question=question, topic=question.topic,
            chosen_keys=keys, answered_at=started,
        )  # fmt: skip
    mock.submit(at=started + timedelta(minutes=20))
    return mock


def test_missed_and_not_seen_in_the_last_sittings_quizzes_and_mocks(client, learner, exam):
    q = list(Question.objects.filter(topic__exam=exam).order_by("pk"))
    # Oldest first: a quiz missing q0, a mock missing q1 and q2 (left blank), a quiz missing
    # q3; q4 and q5 were answered right; q6 to q8 never seen.
    sitting_quiz(learner, client, [q[0], q[4]], missed=[q[0]], days_ago=3)
    sitting_mock(learner, [q[1], q[2], q[5]], missed=[q[1], q[2]], days_ago=2)
    sitting_quiz(learner, client, [q[3], q[4]], missed=[q[3]], days_ago=1)
    # Another learner's and another exam's sittings count for nothing.
    other = UserFactory()
    sitting_mock(other, [q[6], q[7]], missed=[q[6], q[7]], days_ago=0)

    build(client, exam, missed_in="1", length="20")
    assert drawn(learner) == {q[3].pk}
    build(client, exam, missed_in="2", length="20")
    assert drawn(learner) == {q[1].pk, q[2].pk, q[3].pk}
    build(client, exam, missed_in="3", length="20")
    assert drawn(learner) == {q[0].pk, q[1].pk, q[2].pk, q[3].pk}
    # Not seen: the quizzes just built are sittings too only once answered; none was.
    build(client, exam, unseen_in="1", length="20")
    assert drawn(learner) == {x.pk for x in q} - {q[3].pk, q[4].pk}
    build(client, exam, unseen_in="2", length="20")
    assert drawn(learner) == {x.pk for x in q} - {q[1].pk, q[2].pk, q[3].pk, q[4].pk, q[5].pk}
    # Together: missed in the last three, and not seen in the last one.
    build(client, exam, missed_in="3", unseen_in="1", length="20")
    assert drawn(learner) == {q[0].pk, q[1].pk, q[2].pk}


def test_the_earlier_choices_still_narrow_and_combine(client, learner, exam):
    area = exam.topics.get(title="Area 0")
    first, second, _ = area.questions.order_by("pk")
    Bookmark.objects.create(learner=learner, question=first)
    Bookmark.objects.create(
        learner=learner, question=exam.topics.get(title="Area 1").questions.first()
    )
    build(client, exam, selection="bookmarked", topics=[area.slug])
    assert drawn(learner) == {first.pk}
    record_answer(learner, second, right=False)
    build(client, exam, selection="wrong")
    assert drawn(learner) == {second.pk}
    # Adaptive draws among what the other choices give.
    build(client, exam, selection="adaptive", topics=[area.slug], length="2")
    assert drawn(learner) <= set(area.questions.values_list("pk", flat=True))
    assert len(drawn(learner)) == 2


def test_choices_that_draw_nothing_say_so_on_the_form(client, learner, exam):
    response = build(client, exam, missed_in="5")
    assert response.status_code == 200
    assert 'role="alert"' in response.text
    assert "matches all of these choices" in response.text
    assert not Quiz.objects.exists()


@pytest.mark.parametrize(
    "bad",
    [
        {"topics": ["no-such-topic"]},
        {"kinds": ["essay"]},
        {"length": "0"},
        {"length": "10000"},
        {"length": "ten"},
        {"minutes": "0"},
        {"minutes": "601"},
        {"missed_in": "0"},
        {"missed_in": "21"},
        {"unseen_in": "-1"},
        {"unseen_in": "99"},
        {"feedback": "sometimes"},
    ],
)
def test_bad_choices_are_form_errors_that_change_nothing(client, learner, exam, bad):
    response = build(client, exam, **bad)
    assert response.status_code == 400
    assert 'role="alert"' in response.text
    assert not Quiz.objects.exists()
    assert not QuizItem.objects.exists()


def test_a_topic_of_another_exam_is_refused(client, learner, exam):
    other = TopicFactory()
    response = build(client, exam, topics=[other.slug])
    assert response.status_code == 400
    assert "not part of this exam" in response.text


def test_the_builder_page_needs_a_sign_in(client, exam):
    assert client.get(f"{START}?exam={exam.slug}").url.startswith(reverse("login"))
    assert build(client, exam).status_code == 302
    assert not Quiz.objects.exists()


@pytest.mark.parametrize("topics", [1, 8])
def test_the_builder_pages_queries_do_not_grow_with_topics(
    client, learner, topics, django_assert_num_queries
):
    exam = ExamFactory()
    for position in range(topics):
        QuestionFactory(topic=TopicFactory(exam=exam, position=position))
    url = f"{START}?exam={exam.slug}"
    client.get(url)  # the session's first read
    # The session with its user, the exam, its topics, the count.
    with django_assert_num_queries(4):
        assert client.get(url).status_code == 200
    # A preview: the form checks the exam and the topics chosen, then the page as above,
    # with the posted choices' count.
    with django_assert_num_queries(7):
        response = build(client, exam, preview="1", topics=[exam.topics.first().slug])
        assert "These choices give 1 question." in text_of(response.text)


# --- Answers at the end ----------------------------------------------------------------------


def test_answers_at_the_end_reveal_nothing_before_the_end(client, learner):
    topic = TopicFactory()
    QuestionFactory.create_batch(3, topic=topic)
    build(client, topic.exam, feedback="end", length="3")
    quiz = Quiz.objects.get(learner=learner)
    first = quiz.items.select_related("question").get(position=0).question
    explanation = first.explanation
    rationale = first.options.get(is_correct=True).rationale.why

    def leaks(html: str) -> list[str]:
        shown = text_of(html)
        words = ("Not quite", "Correct answer", explanation, rationale, "Option by option",
                 "Score so far", "✓", "✗")  # fmt: skip
        return [word for word in words if word in shown]

    # A wrong answer, then changed to the right one, then (htmx) to the wrong one again.
    saved = answer(client, quiz, 1, right=False)
    assert saved.url == reverse("quiz_item", args=[quiz.code, 2])
    answer(client, quiz, 1, right=True)
    again = answer(client, quiz, 1, right=False, htmx=True)
    assert again["HX-Redirect"] == reverse("quiz_item", args=[quiz.code, 2])
    assert leaks(again.text) == []
    page = client.get(reverse("quiz_item", args=[quiz.code, 1])).text
    assert leaks(page) == []
    assert "your answer to this question is saved" in text_of(page)
    assert re.search(rf'value="{key_of(first, right=False)}"[^>]*checked', page)
    answer(client, quiz, 2, right=True)
    for url in (
        reverse("quiz_summary", args=[quiz.code]),
        reverse("history"),
        HOME,
        reverse("quiz_item", args=[quiz.code, 2]),
        reverse("quiz_item", args=[quiz.code, 3]),
    ):
        assert leaks(client.get(url, follow=True).text) == [], url
    # Nothing was graded: no answer recorded, the readiness untouched.
    assert not Attempt.objects.exists()
    assert not ExamAbility.objects.filter(learner=learner).exists()
    assert "2 of 3 answered" in text_of(client.get(reverse("quiz_summary", args=[quiz.code])).text)

    done = client.post(reverse("quiz_finish", args=[quiz.code]))
    assert done.url == reverse("quiz_summary", args=[quiz.code])
    quiz.refresh_from_db()
    assert quiz.is_finished
    assert (quiz.answered_count, quiz.right_count) == (2, 1)
    attempts = Attempt.objects.filter(learner=learner).order_by("quiz_item__position")
    assert [a.is_correct for a in attempts] == [False, True]  # the last saved answer counts
    summary = text_of(client.get(done.url).text)
    assert "1 of 2 right" in summary
    assert "Not answered" in summary
    review = text_of(client.get(reverse("quiz_item", args=[quiz.code, 1])).text)
    assert "Not quite" in review
    assert explanation in review
    assert "Option by option" in review
    assert "Review question 2" in review  # the review goes on, question by question
    # Finished: its questions take no more answers.
    late = answer(client, quiz, 3)
    assert late.url == reverse("quiz_summary", args=[quiz.code])
    assert Attempt.objects.filter(learner=learner).count() == 2
    # And retrying the missed one answers it at the end too.
    retry = client.post(reverse("quiz_retry", args=[quiz.code]))
    assert Quiz.objects.get(retry_of=quiz).answers_at_end
    assert retry.status_code == 302


def test_after_each_question_stays_as_it_was(client, learner):
    topic = TopicFactory()
    QuestionFactory.create_batch(2, topic=topic)
    build(client, topic.exam)
    quiz = Quiz.objects.get(learner=learner)
    result = text_of(answer(client, quiz, 1, right=False, htmx=True).text)
    assert "Not quite" in result
    assert Attempt.objects.count() == 1


# --- Pause, resume and the time limit --------------------------------------------------------


def shift_clock(quiz, minutes):
    """As if the quiz's clock had run `minutes` longer than it has."""
    Quiz.objects.filter(pk=quiz.pk).update(
        clock_since=quiz.clock_since - timedelta(minutes=minutes)
    )
    quiz.refresh_from_db()


def test_a_quiz_pauses_with_its_clock_and_resumes_where_it_was(client, learner):
    topic = TopicFactory()
    QuestionFactory.create_batch(4, topic=topic)
    build(client, topic.exam, minutes="10", length="4")
    quiz = Quiz.objects.get(learner=learner)
    item = client.get(reverse("quiz_item", args=[quiz.code, 1])).text
    assert 'role="timer"' in item
    assert 'id="timer-toggle"' in item
    assert 'id="timer-warning"' in item
    answer(client, quiz, 1)
    answer(client, quiz, 2)
    quiz.refresh_from_db()
    shift_clock(quiz, 4)
    paused = client.post(reverse("quiz_pause", args=[quiz.code]))
    assert paused.url == HOME
    quiz.refresh_from_db()
    assert quiz.clock_since is None
    assert 4 * 60 <= quiz.time_used.total_seconds() < 5 * 60
    home = text_of(client.get(HOME).text)
    # Six minutes less a moment left: shown as a countdown shows it, rounded up.
    assert re.search(r"Quiz paused with (6:00|5:5\d) left", home), home
    assert "(paused)" in home
    # However long the pause, the time left stays.
    Quiz.objects.filter(pk=quiz.pk).update(created_at=timezone.now() - timedelta(days=2))
    assert quiz.seconds_left() == Quiz.objects.get(pk=quiz.pk).seconds_left()
    # Continuing opens question 3 and runs the clock again, from where it stopped.
    resume = client.get(reverse("quiz_resume", args=[quiz.code]))
    assert resume.url == reverse("quiz_item", args=[quiz.code, 3])
    client.get(resume.url)
    quiz.refresh_from_db()
    assert quiz.clock_since is not None
    assert 5 * 60 <= quiz.seconds_left() <= 6 * 60


def test_the_server_holds_the_time_limit(client, learner):
    topic = TopicFactory()
    QuestionFactory.create_batch(3, topic=topic)
    build(client, topic.exam, minutes="5", length="3")
    quiz = Quiz.objects.get(learner=learner)
    answer(client, quiz, 1)
    quiz.refresh_from_db()
    shift_clock(quiz, 6)
    late = answer(client, quiz, 2)
    assert late.status_code == 409
    assert "Time is up" in late.text
    assert Attempt.objects.filter(learner=learner).count() == 1
    quiz.refresh_from_db()
    assert quiz.is_finished
    assert quiz.finished_at <= quiz.created_at + timedelta(minutes=5, seconds=1)
    assert client.get(reverse("quiz_resume", args=[quiz.code])).url == reverse(
        "quiz_summary", args=[quiz.code]
    )


def test_time_up_with_the_answers_at_the_end_grades_what_was_saved_in_time(client, learner):
    topic = TopicFactory()
    QuestionFactory.create_batch(3, topic=topic)
    build(client, topic.exam, minutes="5", length="3", feedback="end")
    quiz = Quiz.objects.get(learner=learner)
    answer(client, quiz, 1, right=True)
    quiz.refresh_from_db()
    shift_clock(quiz, 6)
    late = answer(client, quiz, 2, htmx=True)
    assert late["HX-Redirect"] == reverse("quiz_summary", args=[quiz.code])
    assert [a.is_correct for a in Attempt.objects.filter(learner=learner)] == [True]
    quiz.refresh_from_db()
    assert quiz.is_finished
    assert quiz.answered_count == 1
    assert QuizItem.objects.get(quiz=quiz, position=1).saved is None


def test_another_learners_quiz_is_404_everywhere(client, learner):
    topic = TopicFactory()
    QuestionFactory.create_batch(2, topic=topic)
    owner = UserFactory()
    quiz = Quiz.objects.start(
        learner=owner, exam=topic.exam, topic=None, selection="any", length=2,
        time_limit=timedelta(minutes=5), feedback="end",
    )  # fmt: skip
    for name in ("quiz_pause", "quiz_finish", "quiz_abandon"):
        assert client.post(reverse(name, args=[quiz.code])).status_code == 404
    assert client.get(reverse("quiz_item", args=[quiz.code, 1])).status_code == 404
    assert (
        client.post(reverse("quiz_item", args=[quiz.code, 1]), {"choice": "x"}).status_code == 404
    )
    quiz.refresh_from_db()
    assert not quiz.is_finished
    assert quiz.clock_since is not None
    assert not QuizItem.objects.filter(saved__isnull=False).exists()


# --- A practice is never a mock exam ---------------------------------------------------------


def pass_likelihood(html: str) -> str:
    found = re.search(r"(\d+%) likely to pass a mock exam today", text_of(html))
    assert found is not None
    return found.group(1)


def test_a_timed_practice_as_long_as_the_exam_is_not_a_mock_sitting(client, learner):
    exam = storage_and_serving_exam()
    twin = UserFactory()
    for who in (learner, twin):
        for topic in exam.topics.all():
            answer_topic(who, topic, 6, right=True)
    # The mock exam's shape: 10 questions in 30 minutes, answered in full against the clock.
    build(client, exam, length=str(exam.mock_question_count),
          minutes=str(exam.mock_duration_minutes), unseen_in=None)  # fmt: skip
    quiz = Quiz.objects.get(learner=learner)
    assert quiz.item_count == 10
    order = list(quiz.items.select_related("question").order_by("position"))
    for number, item in enumerate(order, start=1):
        answer(client, quiz, number, right=number % 3 != 0)
        # The twin gives the same answers on the questions' own pages.
        record_answer(twin, item.question, right=number % 3 != 0)
    quiz.refresh_from_db()
    assert quiz.is_finished
    assert not MockExam.objects.exists()
    home = client.get(HOME).text
    assert "No mock exam yet" in text_of(home)
    assert "The latest mock exam" not in text_of(home)
    client.force_login(twin)
    assert pass_likelihood(home) == pass_likelihood(client.get(HOME).text)
    # After a real mock exam, a later practice does not take its place in the explanation.
    client.force_login(learner)
    questions = list(exam.topics.first().questions.order_by("pk")[:2])
    sitting_mock(learner, questions, missed=[questions[1]], days_ago=1)
    build(client, exam, length="3", minutes="30")
    later = Quiz.objects.filter(learner=learner).latest("created_at")
    for number in range(1, 4):
        answer(client, later, number)
    explained = text_of(client.get(HOME).text)
    assert "The latest mock exam" in explained
    assert "(1 right, 0 wrong, 1 unanswered)" in explained


def test_the_progress_page_lists_quizzes_in_progress_with_their_mode(client, learner):
    topic = TopicFactory()
    QuestionFactory.create_batch(2, topic=topic, status=Status.PUBLISHED)
    build(client, topic.exam, feedback="end", minutes="20")
    home = text_of(client.get(HOME).text)
    assert re.search(r"0 of 2 answered, the answers at the end · (20:00|19:5\d) left", home)


@pytest.mark.parametrize("count", [2, 6])
def test_answers_at_the_end_keep_their_queries_whatever_the_length(
    client, learner, count, django_assert_num_queries
):
    topic = TopicFactory()
    QuestionFactory.create_batch(count, topic=topic)
    build(client, topic.exam, feedback="end", length=str(count))
    quiz = Quiz.objects.get(learner=learner)
    url = reverse("quiz_item", args=[quiz.code, 1])
    client.get(url)  # the question's page cached, as the learner's first visit leaves it
    # The session with its user, the item's one query, the save and its count in a
    # transaction, the message kept in the session.
    with django_assert_num_queries(8):
        answer(client, quiz, 1)
    for number in range(2, count + 1):
        answer(client, quiz, number)
    # Finishing grades every saved answer in a fixed number of statements (the answers'
    # writes go as one on PostgreSQL).
    writes = 0 if connection.vendor == "postgresql" else 3
    with django_assert_num_queries(FINISH_QUERIES + writes):
        client.post(reverse("quiz_finish", args=[quiz.code]))
    assert Attempt.objects.filter(learner=learner).count() == count


# The session with its user, the quiz, its end and the saved items in a transaction, the
# answers' writes (insert_answers), the quiz's score, the message kept in the session.
FINISH_QUERIES = 11


@pytest.mark.parametrize("count", [2, 6])
def test_the_review_shows_every_question_with_its_breakdown(
    client, learner, count, django_assert_num_queries
):
    topic = TopicFactory()
    QuestionFactory.create_batch(count, topic=topic)
    ordering = items.ordering(topic)
    build(client, topic.exam, feedback="end", length=str(count + 1))
    quiz = Quiz.objects.get(learner=learner)
    review = reverse("quiz_review", args=[quiz.code])
    # Nothing to review before the end.
    assert client.get(review).url == reverse("quiz_summary", args=[quiz.code])
    choices = quiz.items.select_related("question").exclude(question=ordering).order_by("position")
    first, *_ = choices
    answer(client, quiz, first.position + 1, right=False)
    client.post(reverse("quiz_finish", args=[quiz.code]))
    assert client.get(reverse("quiz_review", args=[quiz.code]), follow=True).status_code == 200
    with django_assert_num_queries(3):  # the session with its user, the quiz, its items
        text = text_of(client.get(review).text)
    assert f"Question {first.position + 1}: wrong" in text
    assert text.count("not answered") == count
    assert text.count("Because the root cause is fixed there.") == count + 1
    assert text.count("Option by option") == count
    assert "Step by step, in the right order" in text
    other = UserFactory()
    client.force_login(other)
    assert client.get(review).status_code == 404


def test_the_results_page_ends_a_quiz_out_of_time(client, learner):
    topic = TopicFactory()
    QuestionFactory.create_batch(2, topic=topic)
    build(client, topic.exam, minutes="5", length="2", feedback="end")
    quiz = Quiz.objects.get(learner=learner)
    summary = reverse("quiz_summary", args=[quiz.code])
    assert "and the clock runs" in text_of(client.get(summary).text)
    answer(client, quiz, 1)
    quiz.refresh_from_db()
    shift_clock(quiz, 5)
    text = text_of(client.get(summary).text)
    assert "Time is up: the quiz ended at its time limit." in text
    assert "Quiz results" in text
    assert Attempt.objects.filter(learner=learner).count() == 1


def test_a_quiz_finished_in_time_is_not_said_to_be_out_of_time(client, learner):
    topic = TopicFactory()
    QuestionFactory.create_batch(2, topic=topic)
    build(client, topic.exam, minutes="30", length="2", feedback="end")
    quiz = Quiz.objects.get(learner=learner)
    client.post(reverse("quiz_finish", args=[quiz.code]))
    late = answer(client, quiz, 1)
    assert late.url == reverse("quiz_summary", args=[quiz.code])
    text = text_of(client.get(late.url).text)
    assert "This quiz is finished: its unanswered questions stay unanswered." in text
    assert "Time is up" not in text
    assert not QuizItem.objects.filter(saved__isnull=False).exists()


def test_stopping_a_quiz_with_the_answers_at_the_end_grades_what_was_saved(client, learner):
    topic = TopicFactory()
    QuestionFactory.create_batch(3, topic=topic)
    build(client, topic.exam, length="3", feedback="end")
    quiz = Quiz.objects.get(learner=learner)
    answer(client, quiz, 1, right=False)
    stopped = client.post(reverse("quiz_abandon", args=[quiz.code]))
    text = text_of(client.get(stopped.url).text)
    assert "Quiz stopped: your 1 saved answer is graded." in text
    assert "You stopped this quiz after 1 of 3 questions." in text
    assert [a.is_correct for a in Attempt.objects.filter(learner=learner)] == [False]
