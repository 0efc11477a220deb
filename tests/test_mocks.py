"""Mock exams: the blueprint draw, sitting with a server-kept deadline, submission, the report
and the review."""

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from progress.engine.forecast import largest_remainder
from progress.mocks import item_query
from progress.mocks.middleware import DEADLINE_SESSION_KEY
from progress.mocks.models import MockExam, MockItem
from progress.practice.models import Attempt, Quiz
from tests.factories import ExamFactory, QuestionFactory, TopicFactory, UserFactory
from tests.mock_exams import bigger_exam, item_url, keys, start

pytestmark = pytest.mark.django_db


def test_largest_remainder_adds_up_exactly():
    weights = [Decimal(w) for w in (30, 25, 25, 20)]
    assert largest_remainder(10, weights) == [3, 3, 2, 2]
    assert largest_remainder(65, weights) == [20, 16, 16, 13]
    for total in range(0, 60):
        assert sum(largest_remainder(total, weights)) == total
    assert largest_remainder(3, [Decimal("33.33"), Decimal("33.33"), Decimal("33.34")]) == [1, 1, 1]
    assert largest_remainder(5, [Decimal(0), Decimal(100)]) == [0, 5]


@pytest.fixture
def exam():
    """Five questions: topic A (60%) gives 3, topic B (40%) gives 2."""
    exam = ExamFactory(mock_question_count=5, mock_duration_minutes=30, mock_pass_percent=70)
    first = TopicFactory(exam=exam, weight=60, title="Alpha topic", slug="alpha", position=0)
    second = TopicFactory(exam=exam, weight=40, title="Beta topic", slug="beta", position=1)
    QuestionFactory.create_batch(6, topic=first)
    QuestionFactory.create_batch(4, topic=second)
    return exam


def save(client, mock, number, choice, go="next", flagged=False, **headers):
    data = {"choice": choice, "go": go}
    if flagged:
        data["flagged"] = "on"
    return client.post(item_url(mock, number), data, **headers)


# Starting ------------------------------------------------------------------------------------


def test_draw_follows_the_blueprint(client, learner, exam):
    mock = start(client, exam)
    assert mock.question_count == 5
    topics = list(mock.items.values_list("topic__slug", flat=True))
    assert topics.count("alpha") == 3
    assert topics.count("beta") == 2
    assert mock.deadline - mock.started_at == timedelta(minutes=30)
    assert mock.items.filter(question__status="published").count() == 5


def test_unseen_questions_are_preferred(client, learner, exam):
    first = start(client, exam)
    client.post(reverse("mock_submit", args=[first.code]))
    second = start(client, exam)
    seen = set(first.items.values_list("question", flat=True))
    again = set(second.items.values_list("question", flat=True))
    # 6 + 4 questions, 5 drawn each time: the second sitting takes the 5 unseen ones.
    assert not seen & again


def test_too_few_questions_are_announced_and_what_there_is_is_used(client, learner):
    exam = ExamFactory(mock_question_count=10, mock_duration_minutes=20, mock_pass_percent=70)
    big = TopicFactory(exam=exam, weight=50, title="Big")
    small = TopicFactory(exam=exam, weight=50, title="Small")
    QuestionFactory.create_batch(6, topic=big)
    QuestionFactory.create_batch(2, topic=small)
    page = client.get(reverse("mock_start", args=[exam.slug]))
    assert "Small has 2 of the 5 it should give" in page.text
    assert "This mock exam will have 7 questions" in page.text
    mock = start(client, exam)
    assert mock.question_count == 7


def test_one_in_progress_starting_again_resumes(client, learner, exam):
    first = start(client, exam)
    page = client.get(reverse("mock_start", args=[exam.slug]))
    assert "Resume your mock exam" in page.text
    assert start(client, exam).pk == first.pk
    assert MockExam.objects.count() == 1


def test_exam_page_offers_the_mock(client, learner, exam):
    text = client.get(reverse("exam_detail", args=[exam.slug])).text
    assert f'href="{reverse("mock_start", args=[exam.slug])}"' in text


# Sitting -------------------------------------------------------------------------------------


def test_nothing_about_correctness_is_sent_during_the_exam(client, learner, exam):
    mock = start(client, exam)
    responses = [client.get(reverse("mock_resume", args=[mock.code]), follow=True)]
    for number in range(1, 6):
        responses.append(client.get(item_url(mock, number)))
        item = mock.items.get(position=number - 1)
        responses.append(save(client, mock, number, keys(item, correct=False)[0]))
    responses.append(save(client, mock, 1, "forged"))
    responses.append(client.get(reverse("mock_submit", args=[mock.code])))
    for response in responses:
        text = response.content.decode().lower()
        assert "correct" not in text, response.request["PATH_INFO"]
        for item in mock.items.select_related("question"):
            assert item.question.explanation.lower() not in text
            assert item.question.trap.lower() not in text
            for option in item.question.options.select_related("rationale"):
                assert option.rationale.why.lower() not in text


def test_answer_change_flag_and_navigator(client, learner, exam):
    mock = start(client, exam)
    first = mock.items.get(position=0)
    wrong, right = keys(first, correct=False)[0], keys(first)[0]
    response = save(client, mock, 1, wrong, flagged=True)
    assert response.url == item_url(mock, 2)
    save(client, mock, 1, right, go="3")
    first.refresh_from_db()
    assert first.chosen_keys == [right]
    assert not first.flagged  # the flag box was left unticked this time
    save(client, mock, 2, [], flagged=True, go="1")
    text = client.get(item_url(mock, 1)).text
    assert (
        f'value="{right}" id="choice-1" checked' in text or f'value="{right}" id="choice-' in text
    )
    assert 'aria-label="Question 1: answered"' in text
    assert 'aria-label="Question 2: unanswered, flagged"' in text
    assert 'aria-label="Question 3: unanswered"' in text
    assert "1 answered" in text
    summary = client.get(reverse("mock_submit", args=[mock.code])).text
    assert "4 unanswered" in summary
    assert "1 flagged for review" in summary
    assert f'href="{item_url(mock, 2)}"' in summary


def test_an_htmx_save_answers_with_what_changed_only(client, learner, exam):
    mock = start(client, exam)
    save(client, mock, 1, keys(mock.items.get(position=0))[0])
    second = mock.items.get(position=1)
    page = client.get(item_url(mock, 2)).text
    # The page's script sends its saves as htmx does, to the form's own address.
    assert 'action="' + item_url(mock, 2) + '"' in page
    assert 'id="save-status"' in page
    response = save(client, mock, 2, keys(second)[0], flagged=True, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    text = response.text
    assert "<html" not in text
    assert "Time left" not in text  # the page's own countdown keeps running
    assert 'id="save-status"' in text
    assert re.search(
        r"Question 2 saved at <time datetime=\"[^\"]+\">[\d:]+</time>, flagged for review\.", text
    )
    assert '<span id="answered-count" hx-swap-oob="true">2 answered</span>' in text
    assert 'id="nav-cell-2"' in text
    assert 'aria-label="Question 2: answered, flagged"' in text
    assert 'hx-swap-oob="true"' in text.split('id="nav-cell-2"')[1].split(">")[0]
    second.refresh_from_db()
    assert second.chosen_keys == keys(second)[:1]
    assert second.flagged
    # Cleared, it says so; the page shown next has it as saved.
    cleared = save(client, mock, 2, [], HTTP_HX_REQUEST="true").text
    assert re.search(r"Question 2 saved at <time .*</time>, without an answer\.", cleared)
    assert "1 answered" in cleared
    assert "1 answered" in client.get(item_url(mock, 2)).text


def test_a_bad_htmx_save_says_why_and_saves_nothing(client, learner, exam):
    mock = start(client, exam)
    response = save(client, mock, 1, "forged", HTTP_HX_REQUEST="true")
    assert response.status_code == 422
    assert "not one of this question" in response.text
    assert "Nothing was saved." in response.text
    assert mock.items.get(position=0).chosen_keys == []


def test_an_htmx_save_after_the_deadline_goes_to_the_report(client, learner, exam):
    mock = start(client, exam)
    first = mock.items.get(position=0)
    MockExam.objects.filter(pk=mock.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    response = save(client, mock, 1, keys(first)[0], HTTP_HX_REQUEST="true")
    assert response["HX-Redirect"] == reverse("mock_report", args=[mock.code])
    first.refresh_from_db()
    assert first.chosen_keys == []
    mock.refresh_from_db()
    assert mock.is_submitted


def test_an_htmx_saved_answer_is_graded_and_shown_in_the_review(client, learner, exam):
    mock = start(client, exam)
    first = mock.items.get(position=0)
    wrong = keys(first, correct=False)[0]
    assert save(client, mock, 1, wrong, HTTP_HX_REQUEST="true").status_code == 200
    client.post(reverse("mock_submit", args=[mock.code]))
    first.refresh_from_db()
    assert first.is_correct is False
    assert Attempt.objects.get(mock_item=first).chosen[0]["key"] == wrong
    review = client.get(reverse("mock_review", args=[mock.code])).text
    first_row = review.split('id="q1"')[1].split("</article>")[0]
    assert "✗</span> Wrong" in first_row
    assert "Your choice: wrong" in first_row


@pytest.mark.parametrize(
    "data",
    [
        {"choice": "forged"},
        {"choice": "OTHER"},
        {"go": "99"},
        {"go": "somewhere"},
    ],
)
def test_tampered_posts_are_400_and_change_nothing(client, learner, exam, data):
    mock = start(client, exam)
    other = QuestionFactory()
    if data.get("choice") == "OTHER":
        data = {"choice": other.options.first().key}
    response = client.post(item_url(mock, 1), data)
    assert response.status_code == 400
    assert 'role="alert"' in response.text
    assert not MockItem.objects.exclude(chosen_keys=[]).exists()


def test_several_answers_to_a_single_question_are_400(client, learner, exam):
    mock = start(client, exam)
    item = mock.items.get(position=0)
    all_keys = list(item.question.options.values_list("key", flat=True))
    assert save(client, mock, 1, all_keys[:2]).status_code == 400


def test_other_learners_mocks_are_404_everywhere(client, learner, exam):
    owner = UserFactory()
    client.force_login(owner)
    mock = start(client, exam)
    client.force_login(learner)
    key = keys(mock.items.get(position=0))[0]
    assert client.get(reverse("mock_resume", args=[mock.code])).status_code == 404
    assert client.get(item_url(mock, 1)).status_code == 404
    assert client.post(item_url(mock, 1), {"choice": key}).status_code == 404
    assert client.get(reverse("mock_submit", args=[mock.code])).status_code == 404
    assert client.post(reverse("mock_submit", args=[mock.code])).status_code == 404
    assert client.get(reverse("mock_report", args=[mock.code])).status_code == 404
    assert client.get(reverse("mock_review", args=[mock.code])).status_code == 404
    assert client.post(reverse("mock_practise", args=[mock.code])).status_code == 404
    mock.refresh_from_db()
    assert not mock.is_submitted
    assert not MockItem.objects.exclude(chosen_keys=[]).exists()


# The deadline is the server's ------------------------------------------------------------


def expire(mock):
    MockExam.objects.filter(pk=mock.pk).update(
        started_at=timezone.now() - timedelta(minutes=31),
        deadline=timezone.now() - timedelta(minutes=1),
    )


def test_a_late_answer_is_refused_and_the_exam_is_submitted_as_it_stood(client, learner, exam):
    mock = start(client, exam)
    first = mock.items.get(position=0)
    save(client, mock, 1, keys(first)[0])
    expire(mock)
    second = mock.items.get(position=1)
    response = save(client, mock, 2, keys(second)[0])
    assert response.status_code == 409
    assert "time ran out" in response.text
    mock.refresh_from_db()
    assert mock.submitted_at == mock.deadline
    assert mock.right_count == 1
    assert MockItem.objects.get(pk=second.pk).chosen_keys == []
    assert client.get(item_url(mock, 1)).url == reverse("mock_report", args=[mock.code])


def test_a_learner_who_never_comes_back_finds_it_submitted_on_any_page(client, learner, exam):
    mock = start(client, exam)
    save(client, mock, 1, keys(mock.items.get(position=0))[0])
    expire(mock)
    session = client.session
    session[DEADLINE_SESSION_KEY] = (timezone.now() - timedelta(minutes=1)).timestamp()
    session.save()
    client.get(reverse("home"))
    mock.refresh_from_db()
    assert mock.is_submitted
    assert Attempt.objects.filter(source="mock").count() == 1


def test_resume_after_sign_out_keeps_the_time_running(client, learner, exam):
    mock = start(client, exam)
    save(client, mock, 1, keys(mock.items.get(position=0))[0])
    client.logout()
    client.force_login(learner)
    response = client.get(reverse("mock_resume", args=[mock.code]))
    assert response.url == item_url(mock, 2)
    text = client.get(item_url(mock, 2)).text
    seconds = int(re.search(r'data-seconds-left="(\d+)"', text).group(1))
    assert 0 < seconds <= 30 * 60


def test_a_browser_clock_changes_nothing(client, learner, exam):
    mock = start(client, exam)
    # Whatever the page is told, only the server's deadline counts: a post with a forged
    # "seconds left" field is just an unknown field.
    response = client.post(item_url(mock, 1), {"choice": [], "seconds_left": "99999"})
    assert response.status_code == 302
    mock.refresh_from_db()
    assert mock.deadline - mock.started_at == timedelta(minutes=30)


# Submission, report, review ------------------------------------------------------------------


def sit(client, exam, right_numbers, flag_numbers=()):
    mock = start(client, exam)
    for item in mock.items.select_related("question").order_by("position"):
        number = item.position + 1
        if number in right_numbers:
            choice = keys(item)[0]
        elif number == 5:
            choice = []  # one left unanswered
        else:
            choice = keys(item, correct=False)[0]
        save(client, mock, number, choice, flagged=number in flag_numbers)
    client.post(reverse("mock_submit", args=[mock.code]))
    mock.refresh_from_db()
    return mock


def test_submission_records_each_answer_once(client, learner, exam):
    mock = sit(client, exam, right_numbers={1, 2})
    attempts = Attempt.objects.filter(learner=learner)
    assert attempts.count() == 4  # the unanswered one is not an answer
    assert set(attempts.values_list("source", flat=True)) == {"mock"}
    assert attempts.filter(is_correct=True).count() == 2
    again = client.post(reverse("mock_submit", args=[mock.code]))
    assert again.status_code == 409
    assert Attempt.objects.count() == 4
    assert not mock.submit()  # a second submission, however it comes, does nothing


def test_report_on_a_hand_computed_case(client, learner, exam):
    # Items 1-3 are topic alpha, 4-5 beta. Right: 1, 2 (alpha) and 4 (beta): 3 of 5 = 60%.
    mock = sit(client, exam, right_numbers={1, 2, 4})
    assert mock.right_count == 3
    text = client.get(reverse("mock_report", args=[mock.code])).text
    assert "Not yet a pass" in text
    assert "<strong>3 of 5</strong> right (60%); the pass mark is 70%." in text
    alpha = text[text.index("Alpha topic") :]
    assert "<td>60%</td>" in alpha[:300]
    assert "<td>2 of 3</td>" in alpha[:400]
    assert '<span class="weight">67%</span>' in alpha[:500]
    beta = text[text.index("Beta topic") :]
    assert "<td>1 of 2</td>" in beta[:400]
    assert '<span class="weight">50%</span>' in beta[:500]
    assert "<svg" in text
    assert "Scores by sitting" in text


def test_the_report_separates_wrong_from_unanswered(client, learner, exam):
    # Right: 1 and 4; left unanswered: 5 (beta); wrong: 2 and 3 (alpha).
    mock = sit(client, exam, right_numbers={1, 4})
    text = client.get(reverse("mock_report", args=[mock.code])).text
    assert "2 answered wrong, 1 left unanswered." in text
    assert "Review the 3 you missed" in text
    assert "Practise the 3 I missed" in text
    beta = text[text.index("Beta topic") :]
    assert re.search(r"<td>1 of 2</td>\s*<td>1</td>", beta[:500])  # one right, one blank


def test_each_reviewed_question_is_one_line_until_opened(client, learner, exam):
    mock = sit(client, exam, right_numbers={1, 2, 4})
    text = client.get(reverse("mock_review", args=[mock.code])).text
    items = re.findall(r'<article class="question card review-item".*?</article>', text, re.S)
    assert len(items) == 2
    for item in items:
        summary = re.search(r"<summary>(.*?)</summary>", item, re.S).group(1)
        assert re.search(r"Question \d · \w+ topic", summary)
        assert "Wrong" in summary or "Unanswered" in summary
        assert "<details>" in item  # closed at first
        assert "<details open" not in item
        assert "Explanation" not in summary


def test_a_review_with_nothing_missed_says_so(client, learner, exam):
    mock = sit(client, exam, right_numbers={1, 2, 3, 4})
    mock.items.filter(position=4).update(is_correct=True, chosen_keys=["x"])
    text = client.get(reverse("mock_review", args=[mock.code])).text
    assert "every question was right" in text
    assert "?show=all" in text


def test_a_pass_and_the_trend_of_sittings(client, learner, exam):
    sit(client, exam, right_numbers={1})
    second = sit(client, exam, right_numbers={1, 2, 3, 4})
    text = client.get(reverse("mock_report", args=[second.code])).text
    assert "✓</span> Pass" in text
    assert text.count("<circle") == 2
    assert "(this one)" in text
    assert "20%" in text
    assert "80%" in text


def test_review_filters(client, learner, exam):
    mock = sit(client, exam, right_numbers={1, 2, 4}, flag_numbers={2})
    url = reverse("mock_review", args=[mock.code])
    text = client.get(url, {"show": "all"}).text
    assert text.count('class="question card review-item"') == 5
    assert "Your choice: right" in text
    # It opens on what needs attention: the wrong and the unanswered ones.
    wrong = client.get(url).text
    assert re.findall(r'id="q(\d)"', wrong) == ["3", "5"]
    assert client.get(url, {"show": "wrong"}).text.count("review-item") == 2
    flagged = client.get(url, {"show": "flagged"}).text
    assert re.findall(r'id="q(\d)"', flagged) == ["2"]
    beta = client.get(url, {"topic": "beta", "show": "all"}).text
    assert re.findall(r'id="q(\d)"', beta) == ["4", "5"]
    item = mock.items.select_related("question").get(position=2)
    assert item.question.explanation in wrong


def test_practise_the_missed_ones(client, learner, exam):
    mock = sit(client, exam, right_numbers={1, 2, 4})
    response = client.post(reverse("mock_practise", args=[mock.code]))
    quiz = Quiz.objects.get()
    assert response.url == reverse("quiz_item", args=[quiz.code, 1])
    missed = set(mock.items.filter(position__in=[2, 4]).values_list("question", flat=True))
    assert set(quiz.items.values_list("question", flat=True)) == missed


# Speed ---------------------------------------------------------------------------------------


def test_saving_and_moving_cost_a_fixed_number_of_queries(
    client, learner, django_assert_num_queries
):
    for count in (5, 30):
        mock = start(client, bigger_exam(count))
        item = mock.items.select_related("question").get(position=1)
        client.get(item_url(mock, 2))  # the question's page content is cached from here
        key = keys(item)[0]
        # session with user, one update (which checks and locks the sitting): the session
        # knows the sitting's questions, the page cache the question's options
        with django_assert_num_queries(2):
            save(client, mock, 2, key)
        # with htmx, the same and the answered count: no page follows
        with django_assert_num_queries(3):
            save(client, mock, 2, key, HTTP_HX_REQUEST="true")
        with django_assert_num_queries(3):  # session with user, item, navigator
            client.get(item_url(mock, 2))
        client.post(reverse("mock_submit", args=[mock.code]))


def test_report_and_review_query_counts_are_flat(client, learner, django_assert_num_queries):
    counts = []
    for count in (5, 30):
        mock = start(client, bigger_exam(count))
        client.post(reverse("mock_submit", args=[mock.code]))
        # session with user, the sitting, its items, the exam's topics, the trend; the forecast now:
        # the learner's topics, the fit, their state on the exam, the topics, the questions
        with django_assert_num_queries(10) as report:
            client.get(reverse("mock_report", args=[mock.code]))
        # session with user, the sitting, its items, the topics: the submission graded from
        # the questions' pages, which it left cached
        with django_assert_num_queries(4) as review:
            client.get(reverse("mock_review", args=[mock.code]))
        counts.append((len(report), len(review)))
    assert counts[0] == counts[1]


@pytest.mark.django_db(transaction=True)
def test_concurrent_submissions_record_each_answer_once():
    from django.test import Client

    from tests.threads import run_at_once

    learner = UserFactory()
    exam = ExamFactory(mock_question_count=4, mock_duration_minutes=30, mock_pass_percent=50)
    QuestionFactory.create_batch(4, topic=TopicFactory(exam=exam, weight=100))
    mock = MockExam.objects.start(learner=learner, exam=exam)
    for item in mock.items.select_related("question"):
        MockItem.objects.filter(pk=item.pk).update(chosen_keys=keys(item)[:1])
    statuses = []

    def submit():
        client = Client()
        client.force_login(learner)
        statuses.append(client.post(reverse("mock_submit", args=[mock.code])).status_code)

    assert run_at_once([submit] * 5, timeout=60) == []
    # A double click lands on the report (302) or, once the first has committed, is told the
    # exam was already submitted (409); either way the answers are recorded once.
    assert set(statuses) <= {302, 409}
    assert 302 in statuses
    assert Attempt.objects.filter(source="mock").count() == 4
    mock.refresh_from_db()
    assert mock.right_count == 4


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("known", [True, False], ids=["session-knows-the-sitting", "full-path"])
def test_a_save_racing_the_submission_never_lands_after_the_grading(known):
    from django.test import Client

    from tests.threads import run_at_once

    learner = UserFactory()
    exam = ExamFactory(mock_question_count=3, mock_duration_minutes=30, mock_pass_percent=50)
    QuestionFactory.create_batch(3, topic=TopicFactory(exam=exam, weight=100))
    for _ in range(4):
        mock = MockExam.objects.start(learner=learner, exam=exam)
        first = mock.items.select_related("question").get(position=0)
        right = keys(first)[0]
        saver = Client()
        saver.force_login(learner)
        if known:  # the page, opened first, keeps the sitting in the session
            saver.get(item_url(mock, 1))

        def save_it(mock=mock, right=right, saver=saver):
            response = saver.post(item_url(mock, 1), {"choice": right, "go": "next"})
            assert response.status_code in {302, 409}

        def submit_it(mock=mock):
            client = Client()
            client.force_login(learner)
            client.post(reverse("mock_submit", args=[mock.code]))

        assert run_at_once([save_it, submit_it]) == []
        mock.refresh_from_db()
        first.refresh_from_db()
        # What the review shows is what the score counted: saved before the grading (right,
        # counted, recorded) or refused after it (unanswered everywhere).
        recorded = Attempt.objects.filter(source="mock", question=first.question).exists()
        if first.chosen_keys:
            assert first.is_correct
            assert mock.right_count == 1
            assert recorded
        else:
            assert mock.right_count == 0
            assert not recorded
        Attempt.objects.filter(learner=learner).delete()


def test_the_written_out_mock_item_query_reads_what_the_orm_reads(client, learner, exam):
    """item_query.learner_item is the ORM's select_related written by hand: every field,
    with the database's conversions (decimals, times, JSON), as the ORM gives them."""
    mock = start(client, exam)
    first = mock.items.get(position=0)
    save(client, mock, 1, keys(first)[0], flagged=True)

    item = item_query.learner_item(learner.pk, mock.code, 0)
    orm = MockItem.objects.select_related("mock__exam", "question").get(pk=first.pk)
    assert item is not None
    for mine, theirs in [(item, orm), (item.mock, orm.mock), (item.mock.exam, orm.mock.exam)]:
        for field in type(theirs)._meta.concrete_fields:
            assert getattr(mine, field.attname) == getattr(theirs, field.attname), field.name
    assert item.chosen_keys == [keys(first)[0]]
    assert item.flagged is True
    assert item.question.uid == orm.question.uid
    # Another learner's code, or a place past the end, finds nothing.
    assert item_query.learner_item(UserFactory().pk, mock.code, 0) is None
    assert item_query.learner_item(learner.pk, mock.code, 999) is None


def test_a_session_that_does_not_know_the_sitting_saves_and_learns_it(client, learner, exam):
    """Signed in on another device mid-sitting: the first save reads the item, the page it
    opens keeps the sitting in this session, and later saves need no read."""
    from django.test import Client

    mock = start(client, exam)
    item = mock.items.select_related("question").get(position=0)
    other = Client()
    other.force_login(learner)
    assert save(other, mock, 1, keys(item)[0]).status_code == 302
    item.refresh_from_db()
    assert item.chosen_keys == keys(item)[:1]
    assert "mock_sitting" not in other.session
    other.get(item_url(mock, 1))
    assert other.session["mock_sitting"]["code"] == mock.code
    assert save(other, mock, 1, keys(item, correct=False)[0]).status_code == 302
    item.refresh_from_db()
    assert item.chosen_keys == keys(item, correct=False)[:1]


def test_a_question_removed_mid_sitting_is_skipped_and_its_save_keeps_nothing(
    client, learner, exam
):
    mock = start(client, exam)
    item = mock.items.select_related("question").get(position=0)
    key = keys(item)[0]
    item.question.delete()
    response = save(client, mock, 1, key)
    assert response["Location"] == item_url(mock, 2)
    item.refresh_from_db()
    assert item.chosen_keys == []


def test_going_back_from_the_first_question_stays_on_it(client, learner, exam):
    mock = start(client, exam)
    item = mock.items.select_related("question").get(position=0)
    response = save(client, mock, 1, keys(item)[0], go="prev")
    assert response["Location"] == item_url(mock, 1)
