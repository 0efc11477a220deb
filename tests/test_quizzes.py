"""Practice quizzes: starting one by each choice, answering, resuming, the summary, retrying."""

import re

import pytest
from django.db import connection
from django.urls import reverse

from progress.practice.marks import Bookmark, Note
from progress.practice.models import Attempt, Quiz, QuizItem
from progress.practice.pending import QUESTION_BATCH, PendingWork
from tests.factories import ExamFactory, QuestionFactory, TopicFactory, UserFactory

pytestmark = pytest.mark.django_db

START = reverse("quiz_start")


@pytest.fixture
def topic():
    topic = TopicFactory()
    QuestionFactory.create_batch(12, topic=topic)
    QuestionFactory(topic=topic, status="draft")
    return topic


def start(client, topic=None, exam=None, length="10", selection="any", **extra):
    exam = exam or topic.exam
    data = {"exam": exam.slug, "length": length, "selection": selection, **extra}
    if topic is not None:
        data["topic"] = topic.slug
    return client.post(START, data)


def correct_key(question):
    return question.options.get(is_correct=True).key


def wrong_key(question):
    return question.options.filter(is_correct=False).first().key


def quiz_of(user) -> Quiz:
    return Quiz.objects.filter(learner=user).latest("created_at")


def answer_item(client, quiz, number, right=True, htmx=False):
    item = quiz.items.get(position=number - 1)
    key = correct_key(item.question) if right else wrong_key(item.question)
    headers = {"HX-Request": "true"} if htmx else {}
    return client.post(
        reverse("quiz_item", args=[quiz.code, number]), {"choice": key}, headers=headers
    )


# Starting ------------------------------------------------------------------------------------


@pytest.mark.parametrize(("length", "expected"), [("10", 10), ("20", 12), ("all", 12)])
def test_lengths(client, learner, topic, length, expected):
    response = start(client, topic, length=length)
    quiz = quiz_of(learner)
    assert response.status_code == 302
    assert response.url == reverse("quiz_item", args=[quiz.code, 1])
    assert quiz.items.count() == expected
    assert not quiz.items.filter(question__status="draft").exists()
    assert set(quiz.items.values_list("question__topic", flat=True)) == {topic.pk}


def test_mixed_quiz_over_all_topics_of_the_exam(client, learner, topic):
    other_topic = TopicFactory(exam=topic.exam)
    QuestionFactory.create_batch(3, topic=other_topic)
    QuestionFactory.create_batch(3)  # another exam
    start(client, exam=topic.exam, length="all")
    quiz = quiz_of(learner)
    assert quiz.topic is None
    assert quiz.items.count() == 15
    assert {i.question.topic.exam_id for i in quiz.items.select_related("question__topic")} == {
        topic.exam_id
    }


def test_unanswered_selection(client, learner, topic):
    answered = list(topic.questions.published()[:9])
    for question in answered:
        Attempt.objects.create(
            learner=learner, question=question, question_uid=question.uid, chosen=[],
            is_correct=True, source="page",
        )  # fmt: skip
    start(client, topic, length="all", selection="unanswered")
    picked = set(quiz_of(learner).items.values_list("question", flat=True))
    assert picked == set(topic.questions.published().values_list("pk", flat=True)) - {
        q.pk for q in answered
    }


def test_wrong_last_time_selection(client, learner, topic):
    questions = list(topic.questions.published()[:3])
    made = {"fixed": (False, True), "still-wrong": (True, False), "only-wrong": (False,)}
    for question, (_, results) in zip(questions, made.items(), strict=True):
        for is_correct in results:
            Attempt.objects.create(
                learner=learner, question=question, question_uid=question.uid, chosen=[],
                is_correct=is_correct, source="page",
            )  # fmt: skip
    other = UserFactory()  # another learner's wrong answers do not count
    Attempt.objects.create(
        learner=other, question=questions[0], question_uid="x", chosen=[], is_correct=False,
        source="page",
    )  # fmt: skip
    start(client, topic, length="all", selection="wrong")
    picked = set(quiz_of(learner).items.values_list("question", flat=True))
    assert picked == {questions[1].pk, questions[2].pk}


def test_bookmarked_selection(client, learner, topic):
    marked = list(topic.questions.published()[:2])
    for question in marked:
        Bookmark.objects.create(learner=learner, question=question)
    Bookmark.objects.create(learner=UserFactory(), question=topic.questions.published()[5])
    start(client, topic, length="all", selection="bookmarked")
    assert set(quiz_of(learner).items.values_list("question", flat=True)) == {q.pk for q in marked}


def test_nothing_to_practise_names_the_topic_and_offers_the_next_best(client, learner, topic):
    response = start(client, topic, selection="bookmarked")
    assert response.status_code == 200
    text = response.text
    assert f"No question of {topic.title} ({topic.exam.code}) is in “bookmarked” yet." in text
    assert not Quiz.objects.exists()
    # Nothing answered wrong or due either: the nearest choice with questions is "not yet
    # answered", all 12, offered as one button that starts it.
    assert "Practise “Not yet answered”: 12 questions" in text
    form = re.search(r'<section class="card next-best".*?</section>', text, re.S).group(0)
    fields = dict(re.findall(r'name="(\w+)" value="([^"]*)"', form))
    assert fields["selection"] == "unanswered"
    assert fields["topic"] == topic.slug
    client.post(START, {k: v for k, v in fields.items() if k != "csrfmiddlewaretoken"})
    assert quiz_of(learner).item_count == 10


def test_a_topic_without_questions_offers_the_whole_exam(client, learner, topic):
    empty = TopicFactory(exam=topic.exam, title="Empty so far")
    text = start(client, empty).text
    assert f"No question of Empty so far ({topic.exam.code})" in text
    assert f"Practise all topics of {topic.exam.code}" in text


@pytest.mark.parametrize(
    ("count", "offered"),
    [
        (6, ["All 6"]),
        (15, ["10 questions", "All 15"]),
        (25, ["10 questions", "20 questions", "All 25"]),
    ],
)
def test_the_topic_page_offers_the_lengths_it_can_fill(client, learner, count, offered):
    topic = TopicFactory()
    QuestionFactory.create_batch(count, topic=topic)
    text = client.get(reverse("topic_detail", args=[topic.exam.slug, topic.slug])).text
    form = text[text.index('class="quiz-start card"') :]
    labels = re.findall(r'name="length"[^>]*> ([^<]+)</label>', form)
    assert [label.strip() for label in labels] == offered
    assert 'name="length" value="' in form
    assert re.search(r'name="length" value="[^"]+"[^>]*checked', form)  # one is chosen


def test_a_quiz_shorter_than_asked_says_so(client, learner, topic):
    marked = list(topic.questions.published()[:4])
    for question in marked:
        Bookmark.objects.create(learner=learner, question=question)
    response = start(client, topic, selection="bookmarked", length="10")
    assert quiz_of(learner).item_count == 4
    text = client.get(response.url, follow=True).text
    assert "Only 4 questions matched: this quiz has all of them." in text


def test_a_quiz_can_be_stopped_and_its_answers_stay(client, learner, topic):
    start(client, topic, length="10")
    quiz = quiz_of(learner)
    first = quiz.items.select_related("question").get(position=0).question
    client.post(reverse("quiz_item", args=[quiz.code, 1]), {"choice": [correct_key(first)]})
    response = client.post(reverse("quiz_abandon", args=[quiz.code]))
    assert response.url == reverse("quiz_summary", args=[quiz.code])
    quiz.refresh_from_db()
    assert quiz.abandoned
    assert quiz.finished_at is not None
    summary = client.get(response.url).text
    assert "You stopped this quiz after 1 of 10 questions." in summary
    assert "Continue the quiz" not in summary
    assert Attempt.objects.filter(learner=learner).count() == 1
    # It no longer counts as in progress, and its questions cannot be answered any more.
    assert "Stop the quiz" not in client.get(reverse("progress_home")).text
    second = quiz.items.select_related("question").get(position=1).question
    item = client.post(reverse("quiz_item", args=[quiz.code, 2]), {"choice": [correct_key(second)]})
    assert item.url == reverse("quiz_summary", args=[quiz.code])
    assert Attempt.objects.filter(learner=learner).count() == 1
    resumed = client.get(reverse("quiz_resume", args=[quiz.code]))
    assert resumed.url == reverse("quiz_summary", args=[quiz.code])


def test_another_learner_cannot_stop_my_quiz(client, learner, topic):
    start(client, topic)
    quiz = quiz_of(learner)
    client.force_login(UserFactory())
    assert client.post(reverse("quiz_abandon", args=[quiz.code])).status_code == 404
    quiz.refresh_from_db()
    assert not quiz.abandoned


def test_without_javascript_bookmarking_in_a_quiz_comes_back_to_it(client, learner, topic):
    start(client, topic)
    quiz = quiz_of(learner)
    item_url = reverse("quiz_item", args=[quiz.code, 1])
    page = client.get(item_url).text
    assert f'name="next" value="{item_url}"' in page
    question = quiz.items.select_related("question").get(position=0).question
    bookmark = reverse("bookmark_toggle", args=[question.uid])
    response = client.post(bookmark, {"bookmarked": "1", "next": item_url})
    assert response.url == item_url
    assert Bookmark.objects.filter(learner=learner, question=question).exists()
    note = client.post(
        reverse("note_save", args=[question.uid]), {"text": "Check the port", "next": item_url}
    )
    assert note.url == item_url
    # Back on the quiz page, the panel shows them (another learner's would not be shown).
    Note.objects.create(learner=UserFactory(), question=question, text="Someone else's")
    back = client.get(item_url).text
    assert 'aria-pressed="true"' in back
    assert "Check the port" in back
    assert "Someone else" not in back
    # A next that leaves the site is ignored: back to the question's own page.
    away = client.post(bookmark, {"bookmarked": "0", "next": "https://evil.example/"})
    assert away.url == question.get_absolute_url()


@pytest.mark.parametrize(
    "data",
    [
        {"exam": "nope", "length": "10", "selection": "any"},
        {"length": "10", "selection": "any"},
        {"exam": "EXAM", "topic": "nope", "length": "10", "selection": "any"},
        # The builder takes any length from 1 to 200 (a shorter quiz says so), not these.
        {"exam": "EXAM", "length": "0", "selection": "any"},
        {"exam": "EXAM", "length": "10000", "selection": "any"},
        {"exam": "EXAM", "length": "10", "selection": "everything"},
    ],
)
def test_bad_start_requests_are_400_and_create_nothing(client, learner, topic, data):
    data = {k: (topic.exam.slug if v == "EXAM" else v) for k, v in data.items()}
    response = client.post(START, data)
    assert response.status_code == 400
    assert 'role="alert"' in response.text
    assert not Quiz.objects.exists()


def test_topic_of_another_exam_is_refused(client, learner, topic):
    other = ExamFactory()
    response = start(client, topic, exam=other)
    assert response.status_code == 400
    assert "not part of this exam" in response.text


def test_anonymous_visitors_are_sent_to_sign_in(client, topic):
    response = start(client, topic)
    assert response.status_code == 302
    assert response.url.startswith(reverse("login"))
    assert not Quiz.objects.exists()


def test_topic_and_exam_pages_offer_the_quiz(client, learner, topic):
    text = client.get(reverse("topic_detail", args=[topic.exam.slug, topic.slug])).text
    assert "Practice this topic" in text
    assert 'value="unanswered"' in text
    text = client.get(reverse("exam_detail", args=[topic.exam.slug])).text
    assert "Practice all topics" in text


# Answering -----------------------------------------------------------------------------------


def test_one_question_at_a_time_with_progress_and_feedback(client, learner, topic):
    start(client, topic, length="10")
    quiz = quiz_of(learner)
    page = client.get(reverse("quiz_item", args=[quiz.code, 1]))
    assert page.status_code == 200
    assert "Question 1 of 10" in page.text
    assert ">Check answer</button>" in page.text
    assert f'action="{reverse("quiz_item", args=[quiz.code, 1])}"' in page.text
    result = answer_item(client, quiz, 1, right=True)
    assert result.status_code == 200
    assert "✓</span> Correct" in result.text
    assert "Option by option" in result.text
    assert "Next question" in result.text
    assert "Score so far: <strong>1</strong> right of 1 answered" in result.text
    answer_item(client, quiz, 2, right=False)
    page = client.get(reverse("quiz_resume", args=[quiz.code]), follow=True)
    assert "Question 3 of 10" in page.text
    assert "Score so far: <strong>1</strong> right of 2 answered" in page.text


def test_htmx_answer_returns_the_result_and_updates_the_header(client, learner, topic):
    start(client, topic)
    quiz = quiz_of(learner)
    client.get(reverse("quiz_item", args=[quiz.code, 1]))
    response = answer_item(client, quiz, 1, htmx=True)
    assert "<html" not in response.text
    assert 'id="quiz-header" class="quiz-header" aria-label="Quiz progress" hx-swap-oob="true"' in (
        response.text
    )


def test_the_shared_htmx_result_carries_each_learners_own_quiz(client, learner, topic):
    """The result part is rendered once per question and choice for everyone; the quiz's part
    in it (the score, the way on, the header, the stop form's token) is each learner's."""
    from django.test import Client

    question = topic.questions.published().order_by("pk").first()
    other = UserFactory()
    other_client = Client()
    other_client.force_login(other)
    texts = {}
    for who, who_client, right_before in ((learner, client, 0), (other, other_client, 2)):
        ids = [q.pk for q in topic.questions.published().order_by("pk")[1:4]]
        quiz = Quiz.objects.start(
            learner=who, exam=topic.exam, topic=topic, selection="any", length=None,
            question_ids=[*ids[:right_before], question.pk, *ids[right_before:]],
        )  # fmt: skip
        for number in range(1, right_before + 1):
            answer_item(who_client, quiz, number, right=True)
        response = answer_item(who_client, quiz, right_before + 1, right=False, htmx=True)
        assert response.status_code == 200
        texts[who.pk] = (quiz, response.text)

    (mine, my_text), (theirs, their_text) = texts[learner.pk], texts[other.pk]
    for quiz, text in texts.values():
        assert "Not quite" in text
        assert "Option by option" in text
        assert reverse("quiz_summary", args=[quiz.code]) in text
        assert "quiz-next-slot" not in text
        assert "slot-not-a-token" not in text
        assert 'name="csrfmiddlewaretoken"' in text  # the stop form's, this request's
    assert reverse("quiz_summary", args=[theirs.code]) not in my_text
    assert reverse("quiz_summary", args=[mine.code]) not in their_text
    assert "Question 1 of 4" in my_text
    assert "Question 3 of 4" in their_text
    assert "<strong>0</strong> right of 1 answered" in my_text
    assert "<strong>2</strong> right of 3 answered" in their_text
    # Outside the slot, the two results are the one rendering.
    assert my_text.split('<p class="next-step">')[0] == their_text.split('<p class="next-step">')[0]


def test_the_whole_page_answer_carries_the_shared_result_and_the_quizs_own_parts(
    client, learner, topic
):
    start(client, topic)
    quiz = quiz_of(learner)
    text = answer_item(client, quiz, 1, right=False).text
    assert "<html" in text
    assert "Not quite" in text
    assert "Option by option" in text
    assert reverse("quiz_resume", args=[quiz.code]) in text  # the way on, this quiz's
    assert text.count('id="quiz-header"') == 1
    assert "hx-swap-oob" not in text
    assert "<strong>0</strong> right of 1 answered" in text
    assert "quiz-next-slot" not in text
    assert "Bookmark" in text  # the learner's panel under it


def test_time_spent_is_measured_on_the_server(client, learner, topic):
    from datetime import timedelta

    start(client, topic)
    quiz = quiz_of(learner)
    client.get(reverse("quiz_item", args=[quiz.code, 1]))
    QuizItem.objects.filter(quiz=quiz, position=0).update(
        served_at=QuizItem.objects.get(quiz=quiz, position=0).served_at - timedelta(seconds=42)
    )
    answer_item(client, quiz, 1)
    spent = Attempt.objects.get(quiz_item__quiz=quiz).time_spent
    assert timedelta(seconds=42) <= spent < timedelta(seconds=50)


def test_a_bad_answer_in_a_quiz_is_400_and_records_nothing(client, learner, topic):
    start(client, topic)
    quiz = quiz_of(learner)
    response = client.post(reverse("quiz_item", args=[quiz.code, 1]), {"choice": "forged"})
    assert response.status_code == 400
    assert "not one of this question" in response.text
    assert not Attempt.objects.exists()


def test_answering_twice_keeps_the_first_answer(client, learner, topic):
    start(client, topic)
    quiz = quiz_of(learner)
    answer_item(client, quiz, 1, right=False)
    again = answer_item(client, quiz, 1, right=True)
    assert again.status_code == 200
    assert "Not quite" in again.text  # the recorded answer, not the second one
    assert Attempt.objects.count() == 1


def test_resume_after_sign_out_and_in(client, learner, topic):
    start(client, topic, length="10")
    quiz = quiz_of(learner)
    for number in (1, 2, 3):
        answer_item(client, quiz, number)
    client.logout()
    assert client.get(reverse("quiz_resume", args=[quiz.code])).status_code == 302
    client.force_login(learner)
    home = client.get(reverse("progress_home"))
    assert "3 of 10 answered, 3 right" in home.text
    page = client.get(reverse("quiz_resume", args=[quiz.code]), follow=True)
    assert "Question 4 of 10" in page.text


def test_summary_retry_and_finish(client, learner, topic):
    start(client, topic, length="10")
    quiz = quiz_of(learner)
    for number in range(1, 11):
        answer_item(client, quiz, number, right=number % 3 != 0)  # 3, 6, 9 wrong
    quiz.refresh_from_db()
    assert quiz.is_finished
    last = client.get(reverse("quiz_item", args=[quiz.code, 10]))
    assert "See your results" in last.text
    summary = client.get(reverse("quiz_summary", args=[quiz.code]))
    assert summary.status_code == 200
    assert "<strong>7 of 10</strong> right (70%)" in summary.text
    assert summary.text.count("✓</span> Right") == 7
    assert summary.text.count("✗</span> Wrong") == 3
    assert f'href="{reverse("quiz_item", args=[quiz.code, 3])}"' in summary.text  # review
    review = client.get(reverse("quiz_item", args=[quiz.code, 3]))
    assert "Your choice: wrong" in review.text
    assert "Retry the 3 I missed" in summary.text
    response = client.post(reverse("quiz_retry", args=[quiz.code]))
    retry = quiz_of(learner)
    assert retry.retry_of == quiz
    assert response.url == reverse("quiz_item", args=[retry.code, 1])
    missed = {quiz.items.get(position=n).question_id for n in (2, 5, 8)}
    assert set(retry.items.values_list("question", flat=True)) == missed


def test_retry_with_nothing_missed(client, learner, topic):
    start(client, topic, length="10")
    quiz = quiz_of(learner)
    for number in range(1, 11):
        answer_item(client, quiz, number)
    response = client.post(reverse("quiz_retry", args=[quiz.code]), follow=True)
    assert "Nothing to retry" in response.text
    assert Quiz.objects.count() == 1


def test_a_question_deleted_mid_quiz_is_skipped(client, learner, topic):
    start(client, topic, length="10")
    quiz = quiz_of(learner)
    answer_item(client, quiz, 1)
    doomed = quiz.items.get(position=1).question
    doomed.options.all().delete()
    doomed.delete()
    page = client.get(reverse("quiz_resume", args=[quiz.code]), follow=True)
    assert "Question 3 of 10" in page.text
    assert Attempt.objects.count() == 1  # the answer given before stays


# Another learner's quiz: 404 on every URL --------------------------------------------------------


def test_other_learners_quizzes_are_404(client, learner, topic):
    owner = UserFactory()
    client.force_login(owner)
    start(client, topic)
    quiz = quiz_of(owner)
    answer_item(client, quiz, 1)
    client.force_login(learner)
    item_url = reverse("quiz_item", args=[quiz.code, 2])
    assert client.get(reverse("quiz_resume", args=[quiz.code])).status_code == 404
    assert client.get(item_url).status_code == 404
    key = correct_key(quiz.items.get(position=1).question)
    assert client.post(item_url, {"choice": key}).status_code == 404
    assert client.get(reverse("quiz_summary", args=[quiz.code])).status_code == 404
    assert client.post(reverse("quiz_retry", args=[quiz.code])).status_code == 404
    assert Attempt.objects.count() == 1
    assert Quiz.objects.count() == 1


def test_unknown_codes_and_numbers_are_404(client, learner, topic):
    start(client, topic)
    quiz = quiz_of(learner)
    assert client.get(reverse("quiz_resume", args=["nope"])).status_code == 404
    assert client.get(reverse("quiz_item", args=[quiz.code, 11])).status_code == 404
    assert client.get(reverse("quiz_item", args=[quiz.code, 0])).status_code == 404


# Speed ---------------------------------------------------------------------------------------


def test_quiz_answer_post_query_count_is_fixed(client, learner, topic, django_assert_num_queries):
    start(client, topic, length="10")
    quiz = quiz_of(learner)
    # A long history must not slow the answer down.
    for question in topic.questions.published():
        for _ in range(5):
            Attempt.objects.create(
                learner=learner, question=question, question_uid=question.uid, chosen=[],
                is_correct=False, source="page",
            )  # fmt: skip
    # A batch of the questions' difficulties is pending already (the first answer after a
    # batch opens the next one: one more query).
    PendingWork.objects.create(work=QUESTION_BATCH)
    counts = []
    for number in (1, 2):
        client.get(reverse("quiz_item", args=[quiz.code, number]))
        item = quiz.items.get(position=number - 1)
        key = correct_key(item.question)
        # session with user, item (with the panel's bookmark and note); savepoint, the learner's
        # exam row (upsert and lock), the question's side (one read), the writes (the insert,
        # the exam row, the topic's upsert, the day's upsert, a right answer first time
        # making no review card, and the quiz's counters, returned: no refresh; one statement
        # on PostgreSQL), release
        writes = 1 if connection.vendor == "postgresql" else 5
        with django_assert_num_queries(6 + writes) as captured:
            client.post(reverse("quiz_item", args=[quiz.code, number]), {"choice": key})
        counts.append(len(captured))
    assert counts[0] == counts[1]


def test_history_strip_of_ids_in_templates(client, learner, topic):
    start(client, topic)
    quiz = quiz_of(learner)
    text = client.get(reverse("quiz_item", args=[quiz.code, 1])).text
    assert not re.search(r"attempt|is_correct", text, re.I)


def test_the_learner_panel_is_on_quiz_pages_too(client, learner, topic):
    start(client, topic)
    quiz = quiz_of(learner)
    text = client.get(reverse("quiz_item", args=[quiz.code, 1])).text
    question = quiz.items.get(position=0).question
    assert reverse("bookmark_toggle", args=[question.uid]) in text
    assert reverse("report_problem", args=[question.uid]) in text
    assert 'name="served"' not in text


def test_the_written_out_item_query_reads_what_the_orm_reads(client, learner, topic):
    """learner_item is the ORM's select_related written by hand: every field it loads, with
    the database's conversions (JSON, durations, times, booleans), as the ORM gives them."""
    from progress.practice.item_query import learner_item

    start(client, topic)
    quiz = quiz_of(learner)
    client.get(reverse("quiz_item", args=[quiz.code, 1]))  # served: the answer is timed
    answer_item(client, quiz, 1, right=False)
    first = quiz.items.get(position=0)
    Bookmark.objects.create(learner=learner, question=first.question)
    Note.objects.create(learner=learner, question=first.question, text="Port 443, not 22")
    Note.objects.create(learner=UserFactory(), question=first.question, text="Someone else's")

    item = learner_item(learner.pk, quiz.code, 0)
    orm = QuizItem.objects.select_related("quiz__exam", "quiz__topic", "question", "attempt").get(
        pk=first.pk
    )
    assert item is not None
    for mine, theirs in [
        (item, orm),
        (item.quiz, orm.quiz),
        (item.attempt, orm.attempt),
        (item.quiz.topic, orm.quiz.topic),
    ]:
        for field in type(theirs)._meta.concrete_fields:
            assert getattr(mine, field.attname) == getattr(theirs, field.attname), field.name
    assert item.attempt.chosen
    assert item.attempt.is_correct is False
    assert item.attempt.time_spent is not None
    assert item.served_at is not None
    assert (item.quiz.exam.code, item.question.uid) == (orm.quiz.exam.code, orm.question.uid)
    assert item.question.is_published
    assert (item.bookmarked, item.note_text) == (True, "Port 443, not 22")

    unanswered = learner_item(learner.pk, quiz.code, 1)
    assert unanswered is not None
    assert getattr(unanswered, "attempt", None) is None
    assert (unanswered.bookmarked, unanswered.note_text) == (False, None)
    # Another learner's code, or a place past the end, finds nothing.
    assert learner_item(UserFactory().pk, quiz.code, 0) is None
    assert learner_item(learner.pk, quiz.code, 99) is None
