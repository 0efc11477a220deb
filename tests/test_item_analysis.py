"""Item analysis: the figures `compute_item_statistics` stores per question (for everyone and per
cohort), the flags it raises, the command that runs it, the instructors' page that shows them
and the admin question list's columns."""

import re
from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from progress.accounts.models import User
from progress.cohorts.item_refresh import refresh_exam_statistics
from progress.cohorts.item_statistics import compute_item_statistics
from progress.cohorts.models import Cohort, ItemStatistic, ItemStatisticsMark, Membership
from progress.practice.models import Attempt
from progress.practice.recording import record_attempt
from questions.models import Kind, Question
from questions.pages.snapshot import question_page
from tests.factories import (
    ExamFactory,
    InstructorFactory,
    QuestionFactory,
    StaffFactory,
    TopicFactory,
    UserFactory,
    record_answer,
)
from tests.item_analysis_page import cards, figures

pytestmark = pytest.mark.django_db


def keys(question):
    """The question's option keys, in position order (the factory makes the first correct)."""
    return [option.key for option in question.options.order_by("position")]


def answer(learner, question, chosen, seconds=None):
    """Record an answer choosing these option keys (graded as the page grades them), with the
    time spent on it when given."""
    page = question_page(question.uid)
    assert page is not None
    attempt, created = record_attempt(
        learner=learner, page=page, grade=page.grade(chosen), source="page"
    )
    assert created
    if seconds is not None:
        Attempt.objects.filter(pk=attempt.pk).update(time_spent=timedelta(seconds=seconds))
    return attempt


def statistic(question, cohort=None):
    return ItemStatistic.objects.get(question=question, cohort=cohort)


# --- Figures computed by hand ----------------------------------------------------------------


@pytest.fixture
def small_exam():
    """Four questions in two topics, five learners A-E with these first answers (1 right):

            q1 q2 q3 q4
        A    1  1  1  1
        B    1  1  1  0
        C    1  0  1  0
        D    0  1  0  0     (then q1 again, right: a repeat)
        E    0  0  0  1
        F    1  -  -  -     (only q1 of this exam, and a question of another exam)

    q2 is a multiple-answer question (options 1 and 2 correct)."""
    exam = ExamFactory()
    first, second = TopicFactory(exam=exam), TopicFactory(exam=exam)
    q1 = QuestionFactory(topic=first)
    q2 = QuestionFactory(topic=first, kind=Kind.MULTIPLE, options=[True, True, False])
    q3 = QuestionFactory(topic=second)
    q4 = QuestionFactory(topic=second)
    elsewhere = QuestionFactory()  # another exam
    a, b, c, d, e, f = (UserFactory(username=name) for name in "abcdef")
    k1, k2, k3, k4 = keys(q1), keys(q2), keys(q3), keys(q4)
    right2, wrong2 = [k2[0], k2[1]], [k2[0], k2[2]]
    # q1, with the time spent on each answer (E's has none).
    answer(a, q1, [k1[0]], seconds=10)
    answer(b, q1, [k1[0]], seconds=20)
    answer(c, q1, [k1[0]], seconds=30)
    answer(d, q1, [k1[1]], seconds=40)
    answer(e, q1, [k1[2]])
    answer(f, q1, [k1[0]], seconds=60)
    answer(f, elsewhere, keys(elsewhere)[:1])
    # q2: multiple answers.
    answer(a, q2, right2)
    answer(b, q2, right2)
    answer(c, q2, wrong2)
    answer(d, q2, right2)
    answer(e, q2, [k2[2]])
    for learner, right3, right4 in [
        (a, True, True), (b, True, False), (c, True, False), (d, False, False), (e, False, True),
    ]:  # fmt: skip
        answer(learner, q3, [k3[0] if right3 else k3[1]])
        answer(learner, q4, [k4[0] if right4 else k4[1]])
    # D's repeat of q1, right this time, after every other answer of D's.
    answer(d, q1, [k1[0]], seconds=100)
    compute_item_statistics()
    return {"q1": q1, "q2": q2, "q3": q3, "q4": q4, "elsewhere": elsewhere}


def test_facility_and_attempts_count_first_answers_and_every_answer(small_exam):
    q1 = statistic(small_exam["q1"])
    # Seven answers by six learners; D's repeat counts as an attempt, not as a learner.
    assert q1.attempts == 7
    assert q1.learners == 6
    # First answers right: A, B, C, F = 4 of 6 (D's right repeat would make it 5 of 6).
    assert q1.facility == pytest.approx(4 / 6)
    assert statistic(small_exam["q2"]).facility == pytest.approx(3 / 5)  # A, B, D


def test_discrimination_is_the_correlation_with_the_rest_score(small_exam):
    # q1 over A-E (F has no other question of this exam, so no rest score: left out).
    # x = first answer to q1 = 1, 1, 1, 0, 0 (D's first answer, not the repeat).
    # Rest = mean of q2, q3, q4 = 3/3, 2/3, 1/3, 1/3, 1/3; in thirds y = 3, 2, 1, 1, 1.
    # mean x = 0.6, mean y = 1.6; dx = .4 .4 .4 -.6 -.6; dy = 1.4 .4 -.6 -.6 -.6.
    # Sxy = .56 + .16 - .24 + .36 + .36 = 1.2; Sxx = 1.2; Syy = 1.96 + .16 + 3 * .36 = 3.2.
    # r = 1.2 / sqrt(1.2 * 3.2) = sqrt(0.375) = 0.6124.
    assert statistic(small_exam["q1"]).discrimination == pytest.approx(0.375**0.5)
    # q4: x = 1, 0, 0, 0, 1; rest (q1 first, q2, q3) in thirds y = 3, 3, 2, 1, 0.
    # mean x = .4, mean y = 1.8; dx = .6 -.4 -.4 -.4 .6; dy = 1.2 1.2 .2 -.8 -1.8.
    # Sxy = .72 - .48 - .08 + .32 - 1.08 = -.6; Sxx = 1.2; Syy = 6.8.
    # r = -.6 / sqrt(8.16) = -0.2100. Had D's repeat counted, D's rest would be 2, not 1.
    assert statistic(small_exam["q4"]).discrimination == pytest.approx(-0.6 / 8.16**0.5)


def test_option_counts_include_repeats_and_every_chosen_option(small_exam):
    k1, k2 = keys(small_exam["q1"]), keys(small_exam["q2"])
    # q1: the key by A, B, C, F and D's repeat; D's first answer chose option 2, E option 3.
    assert statistic(small_exam["q1"]).option_counts == {k1[0]: 5, k1[1]: 1, k1[2]: 1}
    # q2: A, B, D chose 1 and 2; C chose 1 and 3; E only 3.
    assert statistic(small_exam["q2"]).option_counts == {k2[0]: 4, k2[1]: 3, k2[2]: 2}


def test_median_time_is_over_every_timed_answer(small_exam):
    # 10, 20, 30, 40, 60, 100 (D's repeat included, E's untimed answer left out): (30+40)/2.
    assert statistic(small_exam["q1"]).median_seconds == 35
    assert statistic(small_exam["q2"]).median_seconds is None  # no answer with a time


def test_a_learner_with_one_question_of_the_exam_gets_no_rest_score_from_another_exam(
    small_exam,
):
    # F answered q1 and one question of another exam: each is alone in its exam, so neither
    # has a discrimination (a single learner), and F did not enter q1's correlation above.
    elsewhere = statistic(small_exam["elsewhere"])
    assert (elsewhere.learners, elsewhere.facility, elsewhere.discrimination) == (1, 1.0, None)


def test_below_ten_learners_nothing_is_flagged(small_exam):
    # q4 discriminates negatively (-0.21) but five learners are too few to judge.
    q4 = statistic(small_exam["q4"])
    assert q4.discrimination < 0
    assert q4.flags == []
    assert not q4.flagged


# --- Flags ------------------------------------------------------------------------------------


def build_flagged_exam(learners):
    """Half the learners strong (right on the three `good` questions, wrong on `bad`), half
    weak (the other way round); everyone right on `easy` and wrong on `hard`. The strong
    choose the second option of `bad` two times in three, the third otherwise."""
    exam = ExamFactory()
    topic = TopicFactory(exam=exam)
    names = ["good", "good2", "good3", "bad", "easy", "hard"]
    questions = {name: QuestionFactory(topic=topic, position=n) for n, name in enumerate(names)}
    bad_keys = keys(questions["bad"])
    for n in range(learners):
        learner = UserFactory()
        strong = n % 2 == 0
        for name in ("good", "good2", "good3"):
            record_answer(learner, questions[name], strong)
        if strong:
            answer(learner, questions["bad"], [bad_keys[2] if n % 6 == 4 else bad_keys[1]])
        else:
            answer(learner, questions["bad"], [bad_keys[0]])
        record_answer(learner, questions["easy"], True)
        record_answer(learner, questions["hard"], False)
    return exam, questions


def test_flags_at_ten_learners():
    _, questions = build_flagged_exam(10)
    compute_item_statistics()
    bad = statistic(questions["bad"])
    # On `bad`, strong learners' rest is (3 good + easy) / 5 = 4/5, weak learners' (easy)
    # / 5 = 1/5, and the answer to `bad` goes exactly the other way: a correlation of -1.
    assert bad.discrimination == pytest.approx(-1)
    assert bad.facility == pytest.approx(0.5)
    assert bad.flags == [
        [
            "check-key",
            "check the key: learners who do well on the rest of the exam get it wrong more "
            "often (discrimination -1.00)",
        ]
    ]
    assert bad.flagged
    easy = statistic(questions["easy"])
    assert easy.flags == [["too-easy", "too easy: 100% right"]]
    hard = statistic(questions["hard"])
    assert hard.flags == [["too-hard", "too hard: 0% right (or the key is wrong)"]]
    # On `good`, the rest is 3/5 (two good + easy) against 2/5 (bad + easy): +1.
    good = statistic(questions["good"])
    assert good.discrimination == pytest.approx(1)
    assert good.flags == []
    assert not good.flagged


def test_nine_learners_are_too_few_to_flag():
    _, questions = build_flagged_exam(9)
    compute_item_statistics()
    assert statistic(questions["bad"]).discrimination == pytest.approx(-1)
    assert ItemStatistic.objects.filter(flagged=True).count() == 0
    assert all(row.flags == [] for row in ItemStatistic.objects.all())


# --- Cohorts ----------------------------------------------------------------------------------


def test_a_cohort_counts_only_its_members_answers_on_its_exam():
    exam, other_exam = ExamFactory(), ExamFactory()
    question = QuestionFactory(topic=TopicFactory(exam=exam))
    other = QuestionFactory(topic=TopicFactory(exam=other_exam))
    cohort = Cohort.objects.create(name="Spring class", exam=exam)
    members = [UserFactory(), UserFactory()]
    for member in members:
        Membership.objects.create(cohort=cohort, learner=member)
    outsider = UserFactory()
    record_answer(members[0], question, True)
    record_answer(members[1], question, False)
    record_answer(members[1], question, True)
    record_answer(outsider, question, True)
    record_answer(outsider, question, True)
    # A member's answer on another exam stays out of this exam's cohort.
    record_answer(members[0], other, False)
    compute_item_statistics()
    mine = statistic(question, cohort)
    assert (mine.attempts, mine.learners) == (3, 2)
    assert mine.facility == pytest.approx(0.5)
    everyone = statistic(question)
    assert (everyone.attempts, everyone.learners) == (5, 3)
    assert everyone.facility == pytest.approx(2 / 3)
    assert not ItemStatistic.objects.filter(question=other, cohort=cohort).exists()
    assert statistic(other).attempts == 1


# --- Recomputing ------------------------------------------------------------------------------


def test_recomputing_replaces_the_rows():
    question, lone = QuestionFactory(), QuestionFactory()
    learner, other = UserFactory(), UserFactory()
    record_answer(learner, question, True)
    record_answer(other, question, False)
    lone_attempt = answer(learner, lone, keys(lone)[:1])
    cohort = Cohort.objects.create(name="Class", exam=question.topic.exam)
    Membership.objects.create(cohort=cohort, learner=learner)
    assert compute_item_statistics() == 3  # question and lone for everyone, question for cohort
    first = set(
        ItemStatistic.objects.values_list("question_id", "cohort_id", "attempts", "facility")
    )
    assert compute_item_statistics() == 3
    assert ItemStatistic.objects.count() == 3
    again = set(
        ItemStatistic.objects.values_list("question_id", "cohort_id", "attempts", "facility")
    )
    assert again == first
    # A deleted attempt is gone from the figures at the next run, and so is a question left
    # without any attempt.
    Attempt.objects.filter(learner=other).delete()
    lone_attempt.delete()
    assert compute_item_statistics() == 2
    assert statistic(question).attempts == 1
    assert statistic(question).facility == 1.0
    assert not ItemStatistic.objects.filter(question=lone).exists()


# --- An exam's refresh: only what changed, the same figures -----------------------------------


def stored_figures(exam):
    """Every figure stored for the exam's questions (rows and option shares), floats rounded:
    what a refresh and a recompute must agree on."""
    rows = {
        (row.question_id, row.cohort_id): (
            row.attempts, row.learners, row.right, round(row.facility or 0, 9),
            None if row.discrimination is None else round(row.discrimination, 9),
            row.option_counts, row.median_seconds, row.flags,
        )
        for row in ItemStatistic.objects.filter(question__topic__exam=exam)
    }  # fmt: skip
    shares = {
        question.pk: (
            question.answered_by,
            [option.chosen_by for option in question.options.order_by("position")],
        )
        for question in Question.objects.filter(topic__exam=exam)
    }
    return rows, shares


def last_attempt():
    return Attempt.objects.order_by("-pk").values_list("pk", flat=True).first() or 0


def test_an_exams_refresh_counts_what_changed_and_agrees_with_a_recompute(small_exam):
    """After the small exam's recompute: repeats, new first answers (which move the learners'
    rest scores on every question they answered), a newcomer, a learner joining a cohort and
    one leaving it. The refresh reads only the learners concerned and stores what a recompute
    from every attempt stores."""
    q1, q2, q3, q4 = (small_exam[name] for name in ("q1", "q2", "q3", "q4"))
    exam = q1.topic.exam
    a, b, c, _, e, f = (User.objects.get(username=name) for name in "abcdef")
    cohort = Cohort.objects.create(name="Class", exam=exam)
    for member in (a, b, e):
        Membership.objects.create(cohort=cohort, learner=member)
    compute_item_statistics()
    # F answers the rest of the exam (three new first answers), A repeats q2 wrongly, a
    # newcomer answers q3 and q4 with times; C joins the cohort, E leaves it.
    answer(f, q2, keys(q2)[:2], seconds=12)
    answer(f, q3, keys(q3)[1:2], seconds=50)
    answer(f, q4, keys(q4)[:1])
    answer(a, q2, [keys(q2)[2]], seconds=90)
    newcomer = UserFactory(username="g")
    answer(newcomer, q3, keys(q3)[:1], seconds=25)
    answer(newcomer, q4, keys(q4)[1:2], seconds=35)
    Membership.objects.create(cohort=cohort, learner=c)
    Membership.objects.filter(cohort=cohort, learner=e).delete()
    refresh_exam_statistics(exam, up_to=last_attempt())
    refreshed = stored_figures(exam)
    assert statistic(q2).attempts == 7  # A to E, then F's first and A's repeat
    assert statistic(q3, cohort).learners == 3  # A, B and C now
    compute_item_statistics()
    assert stored_figures(exam) == refreshed


def test_a_refresh_with_nothing_new_changes_nothing_and_keeps_the_other_exams(small_exam):
    exam = small_exam["q1"].topic.exam
    elsewhere = statistic(small_exam["elsewhere"])
    before = stored_figures(exam)
    # Counted up to the last attempt already: a refresh reads nothing and writes nothing.
    assert refresh_exam_statistics(exam, up_to=last_attempt()) == 0
    assert stored_figures(exam) == before
    # Answers to another exam are that exam's refresh's to count.
    record_answer(UserFactory(), small_exam["elsewhere"], False)
    assert refresh_exam_statistics(exam, up_to=last_attempt()) == 0
    assert statistic(small_exam["elsewhere"]).attempts == elsewhere.attempts == 1


def test_an_exam_never_counted_is_counted_from_its_attempts(small_exam):
    """Figures stored before the marks kept no sums to add to: the exam's first refresh
    counts every attempt of the exam again, and agrees with a recompute."""
    exam = small_exam["q1"].topic.exam
    expected = stored_figures(exam)
    ItemStatisticsMark.objects.all().delete()
    ItemStatistic.objects.update(moments={}, right=0)
    record_answer(UserFactory(), small_exam["q1"], True)
    refresh_exam_statistics(exam, up_to=last_attempt())
    assert statistic(small_exam["q1"]).learners == 7
    refreshed = stored_figures(exam)
    compute_item_statistics()
    assert stored_figures(exam) == refreshed != expected


def test_a_cohort_moved_to_another_exam_leaves_the_exams_figures():
    exam, other = ExamFactory(), ExamFactory()
    question = QuestionFactory(topic=TopicFactory(exam=exam))
    cohort = Cohort.objects.create(name="Class", exam=exam)
    learner = UserFactory()
    Membership.objects.create(cohort=cohort, learner=learner)
    record_answer(learner, question, True)
    refresh_exam_statistics(exam, up_to=last_attempt())
    assert statistic(question, cohort).attempts == 1
    cohort.exam = other
    cohort.save()
    refresh_exam_statistics(exam, up_to=last_attempt())
    assert not ItemStatistic.objects.filter(cohort=cohort).exists()
    assert statistic(question).attempts == 1


def test_the_command_prints_its_summary():
    question = QuestionFactory()
    for _ in range(3):
        record_answer(UserFactory(), question, True)
    out, err = StringIO(), StringIO()
    call_command("compute_item_statistics", stdout=out, stderr=err)
    assert re.fullmatch(
        r"Computed 1 item statistics from 3 answers in \d+\.\d s\.\n", out.getvalue()
    )
    assert statistic(question).attempts == 3


# --- The instructors' page --------------------------------------------------------------------


def option_shares(row):
    """(share, correct, text) of each option, in order."""
    return [
        (int(share), bool(key), text)
        for share, key, text in re.findall(
            r'class="option-share">(\d+)%</span>\s*(<span class="key">.*?</span></span>)?\s*'
            r'<span class="option-text">(.*?)</span>',
            row,
            re.S,
        )
    ]


@pytest.fixture
def flagged(client):
    exam, questions = build_flagged_exam(12)
    instructor = InstructorFactory()
    cohort = Cohort.objects.create(name="Evening class", exam=exam)
    cohort.instructors.add(instructor)
    compute_item_statistics()
    return {"exam": exam, "questions": questions, "instructor": instructor, "cohort": cohort}


def test_the_instructor_sees_flagged_questions_first_with_reasons_and_shares(client, flagged):
    client.force_login(flagged["instructor"])
    response = client.get(reverse("item_analysis", args=[flagged["exam"].slug]))
    assert response.status_code == 200
    html = response.text
    questions = flagged["questions"]
    # Flagged first (the lowest discrimination first, then bank order), then the others.
    order = list(cards(html))
    expected = ["bad", "easy", "hard", "good", "good2", "good3"]
    assert order == [questions[name].uid for name in expected]
    bad = cards(html)[questions["bad"].uid]
    assert "check the key: learners who do well on the rest of the exam" in bad
    assert "discrimination -1.00" in bad
    assert figures(bad)["Facility"] == "50%"
    assert figures(bad)["Discrimination"] == "-1.00"
    # Six weak learners chose the key; of the six strong, four the second option, two the
    # third: 50%, 33%, 17%.
    options = list(questions["bad"].options.order_by("position"))
    assert option_shares(bad) == [
        (50, True, options[0].text),
        (33, False, options[1].text),
        (17, False, options[2].text),
    ]
    assert "too easy: 100% right" in cards(html)[questions["easy"].uid]
    assert "⚠" not in cards(html)[questions["good"].uid]


def test_the_page_can_be_ordered_by_facility(client, flagged):
    client.force_login(flagged["instructor"])
    url = reverse("item_analysis", args=[flagged["exam"].slug])
    order = list(cards(client.get(url, {"sort": "facility"}).text))
    questions = flagged["questions"]
    # 0% (hard), 50% (the three good ones, then bad: bank order), 100% (easy).
    expected = ["hard", "good", "good2", "good3", "bad", "easy"]
    assert order == [questions[name].uid for name in expected]


def test_the_cohort_scope_shows_the_cohort_figures(client, flagged):
    member = UserFactory()
    Membership.objects.create(cohort=flagged["cohort"], learner=member)
    record_answer(member, flagged["questions"]["good"], False)
    compute_item_statistics()
    client.force_login(flagged["instructor"])
    url = reverse("item_analysis", args=[flagged["exam"].slug])
    response = client.get(url, {"cohort": flagged["cohort"].code})
    assert response.status_code == 200
    found = cards(response.text)
    # Only the member's one answer: one card, 0% right.
    assert list(found) == [flagged["questions"]["good"].uid]
    assert figures(found[flagged["questions"]["good"].uid])["Learners"] == "1 1 answer"
    assert figures(found[flagged["questions"]["good"].uid])["Facility"] == "0%"


def test_another_instructors_cohort_is_a_404(client, flagged):
    stranger = InstructorFactory()
    client.force_login(stranger)
    url = reverse("item_analysis", args=[flagged["exam"].slug])
    assert client.get(url, {"cohort": flagged["cohort"].code}).status_code == 404
    # Their own page over everyone is fine.
    assert client.get(url).status_code == 200


def test_a_cohort_of_another_exam_is_a_404(client, flagged):
    other = Cohort.objects.create(name="Other exam", exam=ExamFactory())
    other.instructors.add(flagged["instructor"])
    client.force_login(flagged["instructor"])
    url = reverse("item_analysis", args=[flagged["exam"].slug])
    assert client.get(url, {"cohort": other.code}).status_code == 404


def test_a_learner_is_refused(client, flagged):
    client.force_login(UserFactory())
    assert client.get(reverse("item_analysis", args=[flagged["exam"].slug])).status_code == 403


def test_an_anonymous_visitor_is_sent_to_sign_in(client, flagged):
    url = reverse("item_analysis", args=[flagged["exam"].slug])
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login") + "?next=")


def test_an_admin_sees_every_cohort(client, flagged):
    client.force_login(StaffFactory())
    url = reverse("item_analysis", args=[flagged["exam"].slug])
    response = client.get(url, {"cohort": flagged["cohort"].code})
    assert response.status_code == 200
    assert "Evening class" in response.text
    everyone = client.get(url)
    assert len(cards(everyone.text)) == 6
    assert "check the key" in everyone.text


def exam_with_statistics(count):
    exam = ExamFactory()
    topic = TopicFactory(exam=exam)
    for n in range(count):
        question = QuestionFactory(topic=topic, position=n)
        k = keys(question)
        ItemStatistic.objects.create(
            question=question, attempts=12, learners=10, facility=0.5, discrimination=0.3,
            option_counts={k[0]: 6, k[1]: 4, k[2]: 2}, median_seconds=40,
        )  # fmt: skip
    return exam


@pytest.mark.parametrize("count", [3, 30])
def test_the_page_takes_the_same_queries_whatever_the_number_of_questions(
    client, django_assert_num_queries, count
):
    exam = exam_with_statistics(count)
    client.force_login(InstructorFactory())
    url = reverse("item_analysis", args=[exam.slug])
    # Session with user, the user's and their groups' permissions, the exam, the page count, the
    # rows with their questions and topics, their options, their parts, the user's cohorts of
    # the exam.
    with django_assert_num_queries(9):
        response = client.get(url)
    assert len(cards(response.text)) == count


# --- The admin question list ------------------------------------------------------------------


def test_the_admin_question_list_shows_and_sorts_by_facility_and_discrimination(client):
    topic = TopicFactory()
    figures = {"q-first": (0.8, 0.10), "q-second": (0.2, 0.45), "q-third": (0.5, -0.30)}
    for n, (uid, (facility, discrimination)) in enumerate(figures.items()):
        question = QuestionFactory(uid=uid, topic=topic, position=n)
        ItemStatistic.objects.create(
            question=question, learners=20, facility=facility, discrimination=discrimination
        )
    client.force_login(StaffFactory())
    url = reverse("admin:questions_question_changelist")
    response = client.get(url)
    columns = list(response.context["cl"].list_display)
    html = response.text
    for shown in ("80%", "20%", "50%", "+0.10", "+0.45", "-0.30"):
        assert f">{shown}</td>" in html

    def uids(order):
        page = client.get(url, {"o": order}).text
        return sorted(figures, key=lambda uid: page.index(f">{uid}</a>"))

    facility = columns.index("facility_shown")
    assert uids(str(facility)) == ["q-second", "q-third", "q-first"]
    assert uids(f"-{facility}") == ["q-first", "q-third", "q-second"]
    discrimination = columns.index("discrimination_shown")
    assert uids(str(discrimination)) == ["q-third", "q-first", "q-second"]


def test_the_admin_question_list_shows_the_flags(client):
    _, questions = build_flagged_exam(10)
    compute_item_statistics()
    client.force_login(StaffFactory())
    html = client.get(reverse("admin:questions_question_changelist")).text
    rows = {
        uid: row
        for row in html.split("<tr")
        for uid in [q.uid for q in questions.values()]
        if f">{uid}</a>" in row
    }
    assert "(discrimination -1.00)" in rows[questions["bad"].uid]
    assert "too easy: 100% right" in rows[questions["easy"].uid]
    assert "too easy" not in rows[questions["good"].uid]
    assert "check the key" not in rows[questions["good"].uid]


def test_option_texts_are_rendered_and_questions_in_review_only_shown_to_staff(client, flagged):
    from questions.models import Status

    questions = flagged["questions"]
    bad = questions["bad"].options.order_by("position").first()
    bad.text = "Run `aws s3 cp` with <script>alert(1)</script> **twice**"
    bad.save()
    questions["easy"].status = Status.REVIEW
    questions["easy"].save()
    url = reverse("item_analysis", args=[flagged["exam"].slug])
    client.force_login(flagged["instructor"])
    found = cards(client.get(url).text)
    assert questions["easy"].uid not in found
    shown = option_shares(found[questions["bad"].uid])[0][2]
    assert "<code>aws s3 cp</code>" in shown
    assert "<strong>twice</strong>" in shown
    assert "<script>" not in shown
    assert "admin/questions/question" not in found[questions["bad"].uid]  # not a curator
    client.force_login(StaffFactory())
    found = cards(client.get(url).text)
    assert "(in review)" in found[questions["easy"].uid]
    assert f"/admin/questions/question/{questions['bad'].pk}/change/" in found[questions["bad"].uid]
