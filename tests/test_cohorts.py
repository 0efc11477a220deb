"""Cohorts: the life cycle (create, join, leave, remove, new code, co-instructors), who may see
what, the cohort page's heatmap and at-risk learners, the class view by topic, the learner
drill-down and the CSV export."""

import csv
import io
import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from progress.accounts.signup import signup_token
from progress.cohorts.models import Cohort, Membership
from progress.mocks.models import MockExam
from progress.practice.marks import Note
from progress.practice.models import LearnerDay
from progress.readiness.models import ExamReadiness
from tests.factories import (
    ExamFactory,
    InstructorFactory,
    StaffFactory,
    UserFactory,
    answer_topic,
    storage_and_serving_exam,
)
from tests.worker import run_worker

pytestmark = pytest.mark.django_db


@pytest.fixture
def exam():
    return storage_and_serving_exam()


@pytest.fixture
def instructor():
    return InstructorFactory(username="teacher")


@pytest.fixture
def cohort(exam, instructor):
    cohort = Cohort.objects.create(name="Spring class", exam=exam)
    cohort.instructors.add(instructor)
    return cohort


def join(cohort, *learners):
    for learner in learners:
        Membership.objects.create(cohort=cohort, learner=learner)


def page_text(client, user, url):
    client.force_login(user)
    response = client.get(url)
    assert response.status_code == 200
    return response.text


# --- Life cycle ------------------------------------------------------------------------------


def test_an_instructor_creates_a_cohort(client, exam, instructor):
    client.force_login(instructor)
    response = client.post(
        reverse("cohort_create"),
        {"name": "Autumn class", "exam": exam.pk, "target_date": "2027-03-01"},
    )
    cohort = Cohort.objects.get()
    assert response.status_code == 302
    assert response["Location"] == cohort.get_absolute_url()
    assert list(cohort.instructors.all()) == [instructor]
    assert str(cohort.target_date) == "2027-03-01"
    text = client.get(cohort.get_absolute_url()).text
    assert "Autumn class" in text
    assert f"/progress/cohorts/join/{cohort.join_code}/" in text


@pytest.mark.parametrize(
    "data",
    [{"name": "", "exam": "1"}, {"name": "A class", "exam": "999999"}, {"name": "A", "exam": ""}],
)
def test_bad_cohort_input_is_refused_and_changes_nothing(client, exam, instructor, data):
    client.force_login(instructor)
    response = client.post(reverse("cohort_create"), data)
    assert response.status_code == 400
    assert "Please correct the following" in response.text
    assert not Cohort.objects.exists()


def test_a_learner_cannot_create_cohorts(client, exam):
    client.force_login(UserFactory())
    assert client.get(reverse("instructor_home")).status_code == 403
    response = client.post(reverse("cohort_create"), {"name": "Mine", "exam": exam.pk})
    assert response.status_code == 403
    assert not Cohort.objects.exists()


def test_a_learner_joins_sees_what_is_shared_and_leaves(client, cohort, instructor):
    learner = UserFactory()
    client.force_login(learner)
    confirm = client.get(cohort.join_url()).text
    assert "Join Spring class" in confirm
    assert "teacher" in confirm
    assert "will not see other exams or your private notes" in confirm
    assert not Membership.objects.exists()  # a GET only asks
    response = client.post(cohort.join_url())
    assert response.status_code == 302
    assert response.url == cohort.exam.get_absolute_url()  # the next step: practise
    assert Membership.objects.filter(cohort=cohort, learner=learner).exists()
    mine = client.get(reverse("my_cohorts")).text
    assert "Spring class" in mine
    assert "They never see your private notes" in mine
    again = client.post(cohort.join_url(), follow=True)
    assert "You are already in Spring class" in again.text
    assert Membership.objects.count() == 1
    client.post(reverse("cohort_leave", args=[cohort.code]))
    assert not Membership.objects.exists()
    assert "You are in no cohort" in client.get(reverse("my_cohorts")).text


def test_joining_needs_a_signed_in_learner_and_a_real_code(client, cohort):
    response = client.get(cohort.join_url())
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
    assert client.get(reverse("cohort_join", args=["not-a-code"])).status_code == 404
    client.force_login(UserFactory())
    assert client.post(reverse("cohort_join", args=["not-a-code"])).status_code == 404
    assert not Membership.objects.exists()


@pytest.mark.django_db(transaction=True)  # the worker sends the sign-up mail and commits
def test_the_sign_in_and_sign_up_pages_say_which_cohort_a_visitor_joins(client, cohort):
    login = client.get(cohort.join_url(), follow=True).text
    assert "You are joining <strong>Spring class</strong>" in login
    assert "with teacher" in login
    next_url = cohort.join_url().split("?")[0]
    signup = client.get(reverse("signup"), {"next": next_url}).text
    assert "You are joining <strong>Spring class</strong>" in signup
    assert "the link we send you brings you back here" in signup
    # Elsewhere (another next, or none) the pages say nothing of it.
    assert "You are joining" not in client.get(reverse("login")).text
    assert "You are joining" not in client.get(reverse("signup"), {"next": "/progress/"}).text
    # A newcomer gives an e-mail; its link leads to the account form, then to the
    # confirmation, then to practise.
    client.post(reverse("signup"), {"email": "newcomer@example.com", "next": next_url})
    run_worker()
    link = re.search(r"http://testserver(/accounts/signup/confirm/\S+/)", mail.outbox[0].body)
    assert link is not None
    form = client.get(link.group(1)).text
    assert "You are joining <strong>Spring class</strong>" in form
    assert "Create your account, then confirm to join" in form
    password = "a long and unusual passphrase 42"
    response = client.post(
        link.group(1), {"username": "newcomer", "password1": password, "password2": password}
    )
    assert response.url == next_url
    assert "Join Spring class" in client.get(next_url).text
    assert client.post(next_url).url == cohort.exam.get_absolute_url()
    assert Membership.objects.filter(cohort=cohort, learner__username="newcomer").exists()


def test_the_sign_up_link_leads_to_the_invitation_in_another_browser(client, cohort):
    # The link is opened where the mail is read: no session there, the link knows the way.
    next_url = cohort.join_url().split("?")[0]
    link = reverse("signup_confirm", args=[signup_token("phone@example.com", next_url)])
    password = "a long and unusual passphrase 42"
    response = client.post(
        link, {"username": "phone", "password1": password, "password2": password}
    )
    assert response.url == next_url
    assert "Join Spring class" in client.get(next_url).text


def test_a_new_join_code_stops_the_old_link_and_keeps_the_learners(client, cohort, instructor):
    learner = UserFactory()
    join(cohort, learner)
    old_link = cohort.join_url()
    client.force_login(instructor)
    client.post(reverse("cohort_regenerate", args=[cohort.code]))
    cohort.refresh_from_db()
    assert cohort.join_url() != old_link
    client.force_login(UserFactory())
    assert client.post(old_link).status_code == 404
    assert client.post(cohort.join_url()).status_code == 302
    assert Membership.objects.filter(cohort=cohort).count() == 2


def test_an_instructor_removes_a_learner(client, cohort, instructor):
    learner, other = UserFactory(), UserFactory()
    join(cohort, learner)
    client.force_login(instructor)
    url = reverse("cohort_remove_learner", args=[cohort.code, learner.username])
    assert client.post(url).status_code == 302
    assert not Membership.objects.exists()
    # Someone who is not in the cohort: nothing to remove.
    missing = reverse("cohort_remove_learner", args=[cohort.code, other.username])
    assert client.post(missing).status_code == 404


def test_a_co_instructor_is_added_by_username_and_must_be_an_instructor(client, cohort, instructor):
    co = InstructorFactory(username="second")
    plain = UserFactory(username="plain")
    client.force_login(instructor)
    url = reverse("cohort_add_instructor", args=[cohort.code])
    for name, message in (("nobody", "There is no user called"), ("plain", "not an instructor")):
        response = client.post(url, {"username": name})
        assert response.status_code == 400
        assert message in response.text
    assert list(cohort.instructors.all()) == [instructor]
    assert client.post(url, {"username": "SECOND"}).status_code == 302
    assert set(cohort.instructors.all()) == {instructor, co}
    assert client.post(url, {"username": "second"}).status_code == 400  # already there
    client.force_login(co)
    assert client.get(cohort.get_absolute_url()).status_code == 200
    assert plain not in cohort.instructors.all()


# --- Access ----------------------------------------------------------------------------------


def urls(cohort, learner, mock):
    code, name = cohort.code, learner.username
    return [
        ("get", reverse("cohort_detail", args=[code])),
        ("get", reverse("cohort_topics", args=[code])),
        ("get", reverse("cohort_export", args=[code])),
        ("get", reverse("cohort_learner", args=[code, name])),
        ("get", reverse("cohort_learner_mock", args=[code, name, mock.code])),
        ("get", reverse("item_analysis", args=[cohort.exam.slug]) + f"?cohort={code}"),
        ("post", reverse("cohort_regenerate", args=[code])),
        ("post", reverse("cohort_add_instructor", args=[code])),
        ("post", reverse("cohort_remove_learner", args=[code, name])),
    ]


def submitted_mock(learner, exam, right=7, total=10, days_ago=1):
    now = timezone.now() - timedelta(days=days_ago)
    return MockExam.objects.create(
        learner=learner, exam=exam, question_count=total, duration_minutes=30,
        pass_percent=Decimal("70"), started_at=now, deadline=now + timedelta(minutes=30),
        submitted_at=now + timedelta(minutes=20), right_count=right, marks=right,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("who", "get_status", "post_status"),
    [
        ("anonymous", 302, 302),  # to the sign-in page
        ("learner", 404, 404),  # a member of the cohort, but not an instructor of it
        ("other instructor", 404, 404),
        ("co-instructor", 200, None),
        ("admin", 200, None),
    ],
)
def test_who_may_see_a_cohort(client, cohort, instructor, who, get_status, post_status):
    learner = UserFactory(username="member")
    join(cohort, learner)
    mock = submitted_mock(learner, cohort.exam)
    co = InstructorFactory()
    cohort.instructors.add(co)
    users = {
        "learner": learner,
        "other instructor": InstructorFactory(),
        "co-instructor": co,
        "admin": StaffFactory(),
    }
    if who in users:
        client.force_login(users[who])
    for method, url in urls(cohort, learner, mock):
        if method == "get":
            response = client.get(url)
            # Item analysis is for the instructor role: a learner has no right to it at all.
            expected = 403 if who == "learner" and "/items/" in url else get_status
            assert response.status_code == expected, url
            if get_status == 302:
                assert response["Location"].startswith(reverse("login"))
        elif post_status is not None:
            assert client.post(url, {"username": "nobody"}).status_code == post_status, url
    if post_status is not None:  # nothing changed for those who may not
        assert Membership.objects.filter(cohort=cohort, learner=learner).exists()


def test_an_instructor_sees_only_members_and_only_the_cohorts_exam(client, cohort, instructor):
    outsider = UserFactory(username="outsider")
    member = UserFactory(username="member")
    join(cohort, member)
    other_exam = ExamFactory()
    elsewhere = submitted_mock(member, other_exam)
    Note.objects.create(
        learner=member, question=cohort.exam.topics.first().questions.first(),
        text="my secret mnemonic",
    )  # fmt: skip
    client.force_login(instructor)
    assert client.get(reverse("cohort_learner", args=[cohort.code, "outsider"])).status_code == 404
    mock_url = reverse("cohort_learner_mock", args=[cohort.code, "member", elsewhere.code])
    assert client.get(mock_url).status_code == 404
    text = client.get(reverse("cohort_learner", args=[cohort.code, "member"])).text
    assert "my secret mnemonic" not in text
    assert other_exam.code not in text
    assert outsider.username not in client.get(cohort.get_absolute_url()).text


def test_the_learner_drill_down_and_mock_report(client, cohort, instructor, exam):
    member = UserFactory(username="member")
    join(cohort, member)
    answer_topic(member, exam.topics.get(title="Storage"), 6, right=True)
    answer_topic(member, exam.topics.get(title="Serving"), 6, right=False)
    mock = submitted_mock(member, exam, right=8)
    text = page_text(client, instructor, reverse("cohort_learner", args=[cohort.code, "member"]))
    assert "likely to pass a mock exam today" in text
    assert "Practice this" not in text  # the learner's buttons, not the instructor's
    assert "8 of 10 (80%), pass" in text
    report = client.get(reverse("cohort_learner_mock", args=[cohort.code, "member", mock.code]))
    assert report.status_code == 200
    assert "score report of member" in report.text
    assert "Review every question" not in report.text


# --- The cohort page -------------------------------------------------------------------------


def learner_rows(text):
    """The learners of the table in the order shown, with whether each is marked at risk."""
    rows = []
    for chunk in text.split("<tr")[2:]:
        if 'href="/instructor/cohorts/' not in chunk:
            continue
        name = chunk.split("learners/")[1].split("/")[0]
        rows.append((name, "at risk:" in chunk))
    return rows


def test_heatmap_activity_and_at_risk_on_hand_made_cases(client, cohort, instructor, exam):
    today = timezone.localdate()
    cohort.target_date = today + timedelta(days=10)
    cohort.save()
    strong, weak, idle, new = (UserFactory(username=n) for n in ("anna", "ben", "cara", "dan"))
    join(cohort, strong, weak, idle, new)
    storage, serving = exam.topics.get(title="Storage"), exam.topics.get(title="Serving")
    for topic in (storage, serving):
        answer_topic(strong, topic, 10, right=True)
        answer_topic(weak, topic, 6, right=False)
    answer_topic(idle, storage, 3, right=True)
    # Days are counted from the stored daily totals: move idle's to 8 days ago, add history.
    LearnerDay.objects.filter(learner=idle).update(day=today - timedelta(days=8))
    LearnerDay.objects.create(learner=strong, day=today - timedelta(days=3), answers=4, right=4)
    LearnerDay.objects.create(learner=strong, day=today - timedelta(days=9), answers=50, right=5)
    submitted_mock(strong, exam, right=9)
    submitted_mock(strong, exam, right=6)
    text = page_text(client, instructor, cohort.get_absolute_url())

    # At risk first (by name), then the others: ben's pass likelihood is low 10 days before
    # the exam, cara has been away 8 days (and has no likelihood yet), dan never answered.
    assert learner_rows(text) == [("ben", True), ("cara", True), ("dan", True), ("anna", False)]
    assert "3 at risk" in text
    assert "inactive for 8 days" in text
    assert "no answers yet" in text
    figures = {f.learner_id: f for f in ExamReadiness.objects.filter(exam=exam)}
    ben = round(100 * figures[weak.pk].pass_probability)
    assert ben < 50
    assert f"pass likelihood {ben}%, 10 days before the exam" in text
    assert "no pass likelihood yet, 10 days before the exam" in text
    # The cells carry their numbers and a band: anna high on both, ben low on both.
    anna_row = text.split("learners/anna/")[1].split("</tr>")[0]
    ben_row = text.split("learners/ben/")[1].split("</tr>")[0]
    for topic in (storage, serving):
        anna, ben_cell = (
            figures[learner.pk].topics[str(topic.pk)][0] for learner in (strong, weak)
        )
        assert anna >= 70 > 50 > ben_cell
        assert f'<td class="heat heat-high">{anna:.0f}%</td>' in anna_row
        assert f'<td class="heat heat-low">{ben_cell:.0f}%</td>' in ben_row
    # anna: 20 answers today and 4 three days ago in the last 7 days; 2 mocks, best 90%.
    assert "<td>24</td>" in anna_row
    assert f'<td class="nowrap">{today:%-d %b %y}</td>' in anna_row
    assert "<td>2</td>" in anna_row
    assert "<td>90%</td>" in anna_row
    # The legend names every band, so colour is never the only signal.
    assert "below 50%" in text
    assert "70% or more" in text


def test_the_table_sorts_by_any_column_keeping_at_risk_learners_first(
    client, cohort, instructor, exam
):
    today = timezone.localdate()
    learners = [UserFactory(username=name) for name in ("a-low", "b-high", "c-mid", "d-idle")]
    join(cohort, *learners)
    for learner, count in zip(learners[:3], (1, 9, 5), strict=True):
        LearnerDay.objects.create(learner=learner, day=today, answers=count, right=count)
    LearnerDay.objects.create(learner=learners[3], day=today - timedelta(days=20), answers=30)
    client.force_login(instructor)
    text = client.get(cohort.get_absolute_url() + "?sort=week&order=desc").text
    assert [name for name, _ in learner_rows(text)] == ["d-idle", "b-high", "c-mid", "a-low"]
    text = client.get(cohort.get_absolute_url() + "?sort=week").text
    assert [name for name, _ in learner_rows(text)] == ["d-idle", "a-low", "c-mid", "b-high"]
    assert "(sorted low to high)" in text


def test_the_cohort_page_query_count_does_not_grow_with_learners(
    client, cohort, instructor, exam, django_assert_num_queries
):
    storage = exam.topics.get(title="Storage")
    client.force_login(instructor)

    def add_learners(count):
        for _ in range(count):
            learner = UserFactory()
            join(cohort, learner)
            answer_topic(learner, storage, 3, right=True)
            submitted_mock(learner, exam)

    add_learners(2)
    # session with user, cohort; figures: the fit in use, the stale learners (found by the
    # database), then their topics, the exam's topics and questions, the write; the
    # learners' summaries, the page's learners and figures, the topics; the instructors; the
    # class's extra time
    with django_assert_num_queries(14) as cold:
        client.get(cohort.get_absolute_url())
    with django_assert_num_queries(10) as warm:  # the figures are fresh now
        client.get(cohort.get_absolute_url())
    add_learners(6)
    with django_assert_num_queries(len(cold)):
        client.get(cohort.get_absolute_url())
    with django_assert_num_queries(len(warm)):
        client.get(cohort.get_absolute_url())


def test_the_figures_follow_new_answers(client, cohort, instructor, exam):
    learner = UserFactory(username="eve")
    join(cohort, learner)
    storage = exam.topics.get(title="Storage")
    answer_topic(learner, storage, 2, right=True)
    first = page_text(client, instructor, cohort.get_absolute_url())
    assert "answers to go" in first
    for topic in exam.topics.all():
        answer_topic(learner, topic, 8, right=True)
    second = client.get(cohort.get_absolute_url()).text
    assert "answers to go" not in second
    assert "score " in second.split("learners/eve/")[1].split("</tr>")[0]


def test_class_readiness_by_topic(client, cohort, instructor, exam):
    storage = exam.topics.get(title="Storage")
    learners = [UserFactory() for _ in range(3)]
    join(cohort, *learners, UserFactory())
    for learner, right in zip(learners, (True, True, False), strict=True):
        answer_topic(learner, storage, 8, right=right)
    text = page_text(client, instructor, reverse("cohort_topics", args=[cohort.code]))
    figures = sorted(
        f.topics[str(storage.pk)][0] for f in ExamReadiness.objects.filter(learner__in=learners)
    )
    low, middle, high = figures
    assert f"{low:.0f}\u2013{high:.0f}%" in text  # lowest to highest
    assert f"({middle:.0f}%)" in text  # the median
    assert "(1 not yet)" in text  # the fourth learner has not practised Storage
    assert "nobody has practised it yet" in text  # Serving
    assert "Learners per tenth of readiness" in text


def test_the_csv_export(client, cohort, instructor, exam):
    learner = UserFactory(username="fay")
    join(cohort, learner, UserFactory(username="gus"))
    for topic in exam.topics.all():
        answer_topic(learner, topic, 6, right=True)
    submitted_mock(learner, exam, right=8)
    client.force_login(instructor)
    response = client.get(reverse("cohort_export", args=[cohort.code]))
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert "attachment;" in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    header = rows[0]
    assert header[:4] == ["learner", "at risk", "why", "pass likelihood %"]
    assert "Storage readiness %" in header
    assert "Serving readiness %" in header
    by_name = {row[0]: dict(zip(header, row, strict=True)) for row in rows[1:]}
    assert set(by_name) == {"fay", "gus"}
    figures = ExamReadiness.objects.get(learner=learner)
    assert by_name["fay"]["pass likelihood %"] == f"{100 * figures.pass_probability:.0f}"
    storage = exam.topics.get(title="Storage")
    assert by_name["fay"]["Storage readiness %"] == f"{figures.topics[str(storage.pk)][0]:.0f}"
    assert by_name["fay"]["mock exams"] == "1"
    assert by_name["fay"]["best mock %"] == "80"
    assert by_name["fay"]["answers last 7 days"] == "12"
    assert by_name["gus"]["at risk"] == "yes"
    assert by_name["gus"]["why"] == "no answers yet"
    assert by_name["gus"]["pass likelihood %"] == ""


def test_a_large_cohort_is_shown_a_page_at_a_time_at_risk_learners_first(
    client, cohort, instructor
):
    today = timezone.localdate()
    learners = [UserFactory(username=f"l{n:02d}") for n in range(55)]
    join(cohort, *learners)
    for learner in learners[:52]:  # active today: on track
        LearnerDay.objects.create(learner=learner, day=today, answers=3, right=2)
    client.force_login(instructor)
    first = client.get(cohort.get_absolute_url()).text
    names = [name for name, _ in learner_rows(first)]
    # The three who never answered (l52, l53, l54) come first, then the others by name.
    assert names[:4] == ["l52", "l53", "l54", "l00"]
    assert len(names) == 50
    assert "55 learners · <strong>3 at risk</strong>" in first
    assert "More learners" in first
    second = client.get(cohort.get_absolute_url() + "?page=2").text
    assert [name for name, _ in learner_rows(second)] == ["l47", "l48", "l49", "l50", "l51"]
