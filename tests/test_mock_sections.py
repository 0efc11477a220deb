"""Exam mode: a mock exam sat in the exam's sections (item types, the case study, their own
minutes, locks), forward-only exams, and the server holding both."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from progress.cohorts.models import Cohort, Membership, TimeAllowance
from progress.mocks.models import MockExam, MockItem
from questions.models import Kind, MockSection
from tests.factories import ExamFactory, QuestionFactory, StaffFactory, TopicFactory
from tests.items import case_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def exam():
    """Six questions in three sections: two single-answer, two select-all (locks), and a case
    study of two (locks)."""
    exam = ExamFactory(mock_question_count=6, mock_duration_minutes=60, mock_pass_percent=50)
    alpha = TopicFactory(exam=exam, weight=50, title="Alpha domain", slug="alpha", position=0)
    beta = TopicFactory(exam=exam, weight=50, title="Beta domain", slug="beta", position=1)
    QuestionFactory.create_batch(3, topic=alpha)
    QuestionFactory.create_batch(3, topic=beta, kind=Kind.MULTIPLE, options=[True, True, False])
    case_study(alpha, questions=2)
    MockSection.objects.create(
        exam=exam, position=0, title="Single answers", kinds=[Kind.SINGLE], question_count=2
    )
    MockSection.objects.create(
        exam=exam,
        position=1,
        title="Select all",
        kinds=[Kind.MULTIPLE],
        question_count=2,
        locks=True,
    )
    MockSection.objects.create(
        exam=exam, position=2, title="Case study", holds_case_study=True, question_count=2,
        locks=True,
    )  # fmt: skip
    return exam


def start(client, exam) -> MockExam:
    assert client.post(reverse("mock_start", args=[exam.slug])).status_code == 302
    mock = MockExam.objects.latest("started_at")
    client.get(reverse("mock_resume", args=[mock.code]))  # the session learns the sitting
    return mock


def item_url(mock, number):
    return reverse("mock_item", args=[mock.code, number])


def right_keys(mock, number):
    item = mock.items.select_related("question").get(position=number - 1)
    return list(item.question.options.filter(is_correct=True).values_list("key", flat=True))


def save(client, mock, number, go="next", keys=None, **headers):
    data = {"choice": right_keys(mock, number) if keys is None else keys, "go": go}
    return client.post(item_url(mock, number), data, **headers)


def save_and_follow(client, mock, number):
    """Save and go on as a browser does: the page the save sends the learner to."""
    response = save(client, mock, number)
    assert response.status_code == 302
    return client.get(response.url)


def move_on(client, mock, number):
    """The move-on page's button: the POST that moves the sitting on to question `number`."""
    return client.post(reverse("mock_move_on", args=[mock.code, number]))


def window(mock):
    mock.refresh_from_db()
    return (mock.section_at, mock.open_from, mock.open_to)


def chosen(mock, number):
    return MockItem.objects.get(mock=mock, position=number - 1).chosen_keys


def finish_url(mock, number):
    return reverse("mock_finish_section", args=[mock.code, number])


# The draw ------------------------------------------------------------------------------------


def test_the_start_page_tells_the_shape_before_starting(client, learner, exam):
    page = client.get(reverse("mock_start", args=[exam.slug])).text
    assert "In 3 sections, sat in order" in page
    assert "<strong>Case study</strong>: 2 questions; once you finish it you cannot come" in page
    assert "Forward-only" not in page


def test_each_section_holds_its_item_types_and_the_case_study_comes_whole(client, learner, exam):
    mock = start(client, exam)
    items = list(mock.items.select_related("question").order_by("position"))
    kinds = [item.question.kind for item in items[:4]]
    assert kinds == ["single", "single", "multiple", "multiple"]
    assert all(item.question.case_study_id is None for item in items[:4])
    assert {item.question.case_study_id for item in items[4:]} != {None}
    assert len({item.question.case_study_id for item in items[4:]}) == 1
    assert [(s["title"], s["first"], s["count"]) for s in mock.sections] == [
        ("Single answers", 0, 2),
        ("Select all", 2, 2),
        ("Case study", 4, 2),
    ]


def test_the_item_page_and_navigator_show_the_sections(client, learner, exam):
    mock = start(client, exam)
    page = client.get(item_url(mock, 1)).text
    assert "Section 1 of 3: Single answers" in page
    assert "Section 2: Select all (locks when finished)" in page
    assert "Section 3: Case study" in page


# Locks -----------------------------------------------------------------------------------


def test_moving_into_a_section_that_follows_one_that_does_not_lock_needs_no_warning(
    client, learner, exam
):
    mock = start(client, exam)
    response = save(client, mock, 2)
    assert response.url == item_url(mock, 3)
    assert client.get(item_url(mock, 3)).status_code == 200
    # The section left does not lock: its questions stay open.
    assert client.get(item_url(mock, 1)).status_code == 200


def test_jumping_two_sections_ahead_enters_the_next_one_only(client, learner, exam):
    mock = start(client, exam)
    response = move_on(client, mock, 6)
    assert response.url == item_url(mock, 3)  # section 2's first: it locks, so 6 waits
    assert window(mock) == (1, 0, 4)


def test_opening_the_next_section_asks_first_and_moves_nothing(client, learner, exam):
    # A GET (a link prefetched, an address typed, a page reloaded) never moves the sitting:
    # the question ahead says what moving on does and offers the button that does it.
    mock = start(client, exam)
    page = client.get(item_url(mock, 3))
    assert page.status_code == 200
    assert "Move on to question 3?" in page.text
    assert "Question 3 begins section 2: Select all." in page.text
    assert "stem" not in page.text  # not the question itself
    assert window(mock) == (0, 0, 2)
    assert client.get(reverse("mock_move_on", args=[mock.code, 3])).status_code == 405
    assert window(mock) == (0, 0, 2)
    assert move_on(client, mock, 3).url == item_url(mock, 3)
    assert window(mock) == (1, 0, 4)
    assert client.get(item_url(mock, 3)).status_code == 200


def test_leaving_a_locking_section_asks_first_then_closes_it(client, learner, exam):
    mock = start(client, exam)
    save_and_follow(client, mock, 2)
    save_and_follow(client, mock, 3)
    response = save(client, mock, 4)  # "Save and finish the section"
    assert response.url == finish_url(mock, 2)
    assert client.get(item_url(mock, 5)).url == finish_url(mock, 2)  # asked for directly
    page = client.get(finish_url(mock, 2)).text
    assert "You cannot come back to this section." in page
    assert "Every question of this section has an answer." in page
    mock.refresh_from_db()
    assert (mock.section_at, mock.open_from) == (1, 0)  # nothing moved before the POST
    assert client.post(finish_url(mock, 2)).url == item_url(mock, 5)
    mock.refresh_from_db()
    assert (mock.section_at, mock.open_from) == (2, 4)
    assert client.get(item_url(mock, 5)).status_code == 200


def test_a_finished_section_is_closed_on_the_server(client, learner, exam):
    mock = start(client, exam)
    save(client, mock, 2)
    client.post(finish_url(mock, 2))  # from section 1 it only moves on; now in section 2
    client.get(item_url(mock, 3))
    client.post(finish_url(mock, 2))
    for number in (1, 3):
        before = chosen(mock, number)
        page = client.get(item_url(mock, number))
        assert page.status_code == 403
        assert "Its section is finished" in page.text
        assert "stem" not in page.text
        assert save(client, mock, number).status_code == 403
        stale = save(client, mock, number, HTTP_HX_REQUEST="true")  # a page left open
        assert stale.headers["HX-Redirect"] == reverse("mock_resume", args=[mock.code])
        assert stale.status_code == 409  # the page's own saving says so, and does not retry
        assert "this answer was not saved" in stale.text
        assert chosen(mock, number) == before
    assert chosen(mock, 2)  # what was saved in time stays


def test_questions_beyond_a_locking_section_cannot_be_answered_early(client, learner, exam):
    mock = start(client, exam)
    move_on(client, mock, 3)  # into section 2, which locks
    assert save(client, mock, 5).status_code == 403
    assert chosen(mock, 5) == []
    assert client.get(item_url(mock, 6)).url == finish_url(mock, 2)
    assert move_on(client, mock, 6).url == finish_url(mock, 2)  # the POST, as the GET
    assert window(mock) == (1, 0, 4)


def test_a_stale_finish_changes_nothing(client, learner, exam):
    mock = start(client, exam)
    move_on(client, mock, 3)
    client.post(finish_url(mock, 2))
    response = client.post(finish_url(mock, 2))  # sent again, from another tab
    assert response.url == reverse("mock_resume", args=[mock.code])
    mock.refresh_from_db()
    assert mock.section_at == 2


def test_the_review_screen_shows_the_sections(client, learner, exam):
    mock = start(client, exam)
    save(client, mock, 1)
    move_on(client, mock, 3)
    client.post(finish_url(mock, 2))
    page = client.get(reverse("mock_submit", args=[mock.code])).text
    assert "1. Single answers" in page
    assert "2. Select all" in page
    assert "3. Case study" in page
    assert "closed" in page
    assert "open: you are here" in page
    assert "Question 3 (closed)" in page  # unanswered, and no longer a link


def test_another_learners_finish_page_is_404(client, learner, exam):
    mock = start(client, exam)
    client.force_login(StaffFactory())
    assert client.get(finish_url(mock, 1)).status_code == 404
    assert client.post(finish_url(mock, 1)).status_code == 404


# A section's own time ------------------------------------------------------------------------


def test_a_section_with_its_own_minutes_closes_when_they_run_out(client, learner, exam):
    MockSection.objects.filter(exam=exam, position=0).update(minutes=10)
    mock = start(client, exam)
    assert mock.section_deadline == mock.started_at + timedelta(minutes=10)
    assert "Time left in this section" in client.get(item_url(mock, 1)).text
    save(client, mock, 1)
    MockExam.objects.filter(pk=mock.pk).update(
        section_deadline=timezone.now() - timedelta(seconds=1)
    )
    # A late save is refused, and the learner is in the next section.
    assert save(client, mock, 2).status_code == 403
    assert chosen(mock, 2) == []
    assert chosen(mock, 1)
    mock.refresh_from_db()
    assert (mock.section_at, mock.open_from, mock.section_deadline) == (1, 2, None)
    assert client.get(reverse("mock_resume", args=[mock.code])).url == item_url(mock, 3)


def test_leaving_a_timed_section_warns_too(client, learner, exam):
    MockSection.objects.filter(exam=exam, position=0).update(minutes=10)
    mock = start(client, exam)
    assert save(client, mock, 2).url == finish_url(mock, 1)
    assert client.get(item_url(mock, 3)).url == finish_url(mock, 1)
    assert "Its time is its own" in client.get(finish_url(mock, 1)).text
    assert window(mock) == (0, 0, 2)


def test_a_last_section_running_out_submits_the_exam(client, learner, exam):
    mock = start(client, exam)
    MockExam.objects.filter(pk=mock.pk).update(
        section_at=2, open_from=4, open_to=6, section_deadline=timezone.now()
    )
    assert client.get(item_url(mock, 5)).url == reverse("mock_report", args=[mock.code])
    mock.refresh_from_db()
    assert mock.is_submitted


# Forward-only --------------------------------------------------------------------------------


@pytest.fixture
def ccna():
    exam = ExamFactory(
        mock_question_count=4, mock_duration_minutes=30, mock_pass_percent=80, forward_only=True
    )
    QuestionFactory.create_batch(5, topic=TopicFactory(exam=exam, weight=100))
    return exam


def test_forward_only_never_goes_back(client, learner, ccna):
    mock = start(client, ccna)
    page = client.get(item_url(mock, 1)).text
    assert "Forward-only" in page
    assert "Previous" not in page
    assert 'name="go" value="2"' not in page
    assert save(client, mock, 1).url == item_url(mock, 2)
    assert client.get(item_url(mock, 2)).status_code == 200
    before = chosen(mock, 1)
    refused = client.get(item_url(mock, 1))
    assert refused.status_code == 403
    assert "forward-only" in refused.text
    assert save(client, mock, 1).status_code == 403
    assert chosen(mock, 1) == before


def test_forward_only_moves_on_only_when_the_learner_does(client, learner, ccna):
    mock = start(client, ccna)
    # The next question asked for by a GET: a page that asks first, and the sitting stays.
    page = client.get(item_url(mock, 2))
    assert page.status_code == 200
    assert "you cannot come back to question 1" in page.text
    assert window(mock) == (0, 0, 1)
    assert client.get(item_url(mock, 1)).status_code == 200  # still open
    assert move_on(client, mock, 2).url == item_url(mock, 2)
    assert window(mock) == (0, 1, 2)
    assert client.get(item_url(mock, 1)).status_code == 403
    # Sent again (a double click, another tab): no second step.
    assert move_on(client, mock, 2).url == item_url(mock, 2)
    assert move_on(client, mock, 4).url == item_url(mock, 2)  # no skipping ahead either
    assert window(mock) == (0, 1, 2)


def test_only_the_learner_moves_their_sitting_on(client, learner, ccna):
    mock = start(client, ccna)
    client.force_login(StaffFactory())
    assert move_on(client, mock, 2).status_code == 404
    assert window(mock) == (0, 0, 1)
    client.force_login(learner)
    assert move_on(client, mock, 9).status_code == 404  # no such question
    client.post(reverse("mock_submit", args=[mock.code]))
    assert move_on(client, mock, 2).status_code == 409  # submitted: nothing moves
    assert window(mock) == (0, 0, 1)


def test_forward_only_does_not_skip_ahead(client, learner, ccna):
    mock = start(client, ccna)
    assert client.get(item_url(mock, 3)).url == item_url(mock, 1)
    assert save(client, mock, 3).status_code == 403
    assert chosen(mock, 3) == []
    mock.refresh_from_db()
    assert mock.open_from == 0


def test_keeping_pages_offline_never_moves_the_sitting_on(client, learner, exam, ccna):
    """The offline worker fetches every question page of a sitting to keep: those ahead of
    what is open are not given to it, and the sitting stays where the learner is."""
    keep = {"HTTP_X_KEEP_OFFLINE": "1"}
    mock = start(client, ccna)
    assert client.get(item_url(mock, 1), **keep).status_code == 200
    for number in (2, 3, 4):
        assert client.get(item_url(mock, number), **keep).status_code == 204
    mock.refresh_from_db()
    assert (mock.open_from, mock.open_to) == (0, 1)
    assert save(client, mock, 1).url == item_url(mock, 2)  # the learner still moves on

    sectioned = start(client, exam)
    for number in range(3, 7):
        assert client.get(item_url(sectioned, number), **keep).status_code == 204
    sectioned.refresh_from_db()
    assert (sectioned.section_at, sectioned.open_from, sectioned.open_to) == (0, 0, 2)


# Queries -------------------------------------------------------------------------------------


def sectioned_exam(sections):
    exam = ExamFactory(
        mock_question_count=2 * sections, mock_duration_minutes=60, mock_pass_percent=70
    )
    QuestionFactory.create_batch(2 * sections, topic=TopicFactory(exam=exam, weight=100))
    for position in range(sections):
        MockSection.objects.create(
            exam=exam, position=position, title=f"Part {position}", question_count=2, locks=True
        )
    return exam


def test_saving_costs_the_same_queries_whatever_the_sections(
    client, learner, django_assert_num_queries
):
    for sections in (2, 6):
        mock = start(client, sectioned_exam(sections))
        client.get(item_url(mock, 2))
        keys = right_keys(mock, 2)
        with django_assert_num_queries(2):  # session with user; the one checked update
            save(client, mock, 2, go="1", keys=keys)
        with django_assert_num_queries(3):  # and the answered count
            save(client, mock, 2, keys=keys, HTTP_HX_REQUEST="true")
        with django_assert_num_queries(3):  # session with user, item, navigator
            client.get(item_url(mock, 2))
        client.post(reverse("mock_submit", args=[mock.code]))


def test_moving_on_costs_the_same_queries_whatever_the_length(
    client, learner, django_assert_num_queries
):
    for count in (4, 12):
        exam = ExamFactory(
            mock_question_count=count, mock_duration_minutes=30, mock_pass_percent=70,
            forward_only=True,
        )  # fmt: skip
        QuestionFactory.create_batch(count, topic=TopicFactory(exam=exam, weight=100))
        mock = start(client, exam)
        client.get(item_url(mock, 1))
        keys = right_keys(mock, 1)
        # session with user; the checked update; the sitting read and its checked step
        with django_assert_num_queries(4):
            assert save(client, mock, 1, keys=keys).url == item_url(mock, 2)
        assert window(mock) == (0, 1, 2)
        client.post(reverse("mock_submit", args=[mock.code]))


# Curating sections in the admin --------------------------------------------------------------


def exam_post(exam, sections):
    data = {
        "slug": exam.slug,
        "code": exam.code,
        "title": exam.title,
        "vendor": "",
        "description": "",
        "position": "0",
        "mock_question_count": "6",
        "mock_duration_minutes": "60",
        "mock_pass_percent": "50",
        "topics-TOTAL_FORMS": "0",
        "topics-INITIAL_FORMS": "0",
        "mock_sections-TOTAL_FORMS": str(len(sections)),
        "mock_sections-INITIAL_FORMS": "0",
    }
    for n, section in enumerate(sections):
        for name, value in section.items():
            data[f"mock_sections-{n}-{name}"] = value
        data[f"mock_sections-{n}-exam"] = exam.pk
    return data


def test_the_admin_refuses_sections_that_do_not_fit_the_exam(client):
    client.force_login(StaffFactory())
    exam = ExamFactory(mock_question_count=6, mock_duration_minutes=60, mock_pass_percent=50)
    url = reverse("admin:questions_exam_change", args=[exam.pk])
    bad = [
        {"position": "0", "title": "A", "kinds": "single", "question_count": "2", "minutes": "50",
         "holds_case_study": "on"},
        {"position": "1", "title": "B", "kinds": "single", "question_count": "3", "minutes": "20",
         "holds_case_study": "on"},
    ]  # fmt: skip
    response = client.post(url, exam_post(exam, bad))
    assert response.status_code == 200
    text = response.text
    assert "The sections hold 5 questions but the mock exam has 6" in text
    assert "add up to 70, more than the exam&#x27;s 60" in text
    assert "Only one section can hold the case study" in text
    assert "is named by both “A” and “B”" in text
    assert not MockSection.objects.exists()
    good = [
        {"position": "0", "title": "Choices", "kinds": "single", "question_count": "4"},
        {"position": "1", "title": "Case study", "holds_case_study": "on", "question_count": "2",
         "locks": "on", "minutes": "20"},
    ]  # fmt: skip
    assert client.post(url, exam_post(exam, good)).status_code == 302
    assert list(exam.mock_sections.values_list("title", "kinds", "locks", "minutes")) == [
        ("Choices", ["single"], False, None),
        ("Case study", [], True, 20),
    ]


def test_a_sections_own_minutes_are_under_the_learners_extra_time_too(client, learner, exam):
    MockSection.objects.filter(exam=exam, position=0).update(minutes=20)
    cohort = Cohort.objects.create(name="Evening class", exam=exam)
    Membership.objects.create(cohort=cohort, learner=learner)
    TimeAllowance.objects.create(cohort=cohort, allowance="1.5")
    mock = start(client, exam)
    assert mock.deadline - mock.started_at == timedelta(minutes=90)
    assert mock.section_deadline - mock.started_at == timedelta(minutes=30)
    assert mock.sections[0]["minutes"] == 30
