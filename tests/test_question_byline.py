"""What the question page tells about its questions: the heading, the exam's live count of
published questions, the author's byline, the previous and next questions of the topic, and
how other learners answered (after an answer only, from stored counts, from 20 learners on)."""

import datetime
import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from progress.practice.models import Attempt, Source
from progress.practice.recording import record_attempt
from questions.models import MIN_SHARE_LEARNERS, Author, Question
from questions.pages.snapshot import question_page
from tests.factories import (
    AuthorFactory,
    QuestionFactory,
    StaffFactory,
    TopicFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def topic():
    return TopicFactory(title="Identity and access", exam__code="SCS-C02")


def numbered(topic, count, **fields):
    """Published questions of the topic in bank order, named q1, q2, ..."""
    return [
        QuestionFactory(topic=topic, uid=f"q{n}", position=n, options=[True, False], **fields)
        for n in range(1, count + 1)
    ]


def answer(client, question, key):
    return client.post(question.get_absolute_url(), {"choice": [key]})


def correct_key(question):
    return question.options.get(is_correct=True).key


def test_the_heading_reads_exam_code_topic_practice_question(client, topic):
    [question] = numbered(topic, 1)
    text = client.get(question.get_absolute_url()).text
    heading = re.search(r"<h1[^>]*>(.*?)</h1>", text, re.S).group(1)
    assert heading.strip() == "SCS-C02 Identity and access Practice Question"
    assert question.uid not in heading


def test_about_counts_the_exams_published_questions_live(
    client, topic, django_capture_on_commit_callbacks
):
    first, _, _ = numbered(topic, 3)
    QuestionFactory(topic=topic, status="draft")
    QuestionFactory(topic=TopicFactory(exam=topic.exam), status="review")
    QuestionFactory()  # another exam's
    text = client.get(first.get_absolute_url()).text
    assert "About these practice questions" in text
    assert "3 published practice questions" in text
    # Publishing one more through the admin shows on every page of the exam at once.
    draft = Question.objects.get(status="draft")
    admin = StaffFactory(is_superuser=True)
    client.force_login(admin)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("admin:questions_question_changelist"),
            {"action": "publish", "_selected_action": [draft.pk]},
        )
    client.logout()
    assert "4 published practice questions" in client.get(first.get_absolute_url()).text


def test_the_byline_names_the_curated_author_and_the_review(client, topic):
    author = AuthorFactory(
        name="Dana Whitfield",
        credentials="CISSP, AWS Certified Security Specialty",
        role="Cloud security architect",
        bio="Ten years of securing AWS estates for banks.",
    )
    [question] = numbered(topic, 1, author=author, reviewed_on=datetime.date(2026, 10, 3))
    text = client.get(question.get_absolute_url()).text
    assert (
        "Written and reviewed by <strong>Dana Whitfield</strong>, CISSP, AWS Certified "
        "Security Specialty · Cloud security architect." in text
    )
    assert "Ten years of securing AWS estates for banks." in text
    assert '<time datetime="2026-10-03">October 2026</time>' in text
    assert "checked against the official SCS-C02 exam blueprint" in text


def test_a_question_without_author_or_review_has_no_byline(client, topic):
    [question] = numbered(topic, 1, author=None, reviewed_on=None)
    text = client.get(question.get_absolute_url()).text
    assert "Written and reviewed by" not in text
    assert "Last reviewed" not in text


def test_editing_an_author_updates_the_byline_on_their_pages(
    client, topic, django_capture_on_commit_callbacks
):
    author = AuthorFactory(name="Sam Ortiz", credentials="CCNA", role="Network engineer")
    [question] = numbered(topic, 1, author=author)
    assert "CCNA" in client.get(question.get_absolute_url()).text  # now cached
    client.force_login(StaffFactory(is_superuser=True))
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("admin:questions_author_change", args=[author.pk]),
            {"name": "Sam Ortiz", "credentials": "CCNP Enterprise", "role": "Network engineer"},
        )
    assert response.status_code == 302
    client.logout()
    text = client.get(question.get_absolute_url()).text
    assert "CCNP Enterprise" in text
    assert "CCNA<" not in text


def test_after_an_answer_visitors_get_the_previous_and_next_questions(client, topic):
    first, second, third = numbered(topic, 3)
    QuestionFactory(topic=topic, uid="q2b", position=2, status="draft")  # skipped: unpublished
    text = answer(client, second, correct_key(second)).text
    assert f'href="{first.get_absolute_url()}" rel="prev">Previous question</a>' in text
    assert f'href="{third.get_absolute_url()}" rel="next">Next question</a>' in text
    assert "q2b" not in text
    first_text = answer(client, first, correct_key(first)).text
    assert "Previous question" not in first_text
    assert f'href="{second.get_absolute_url()}" rel="next"' in first_text
    assert "Next question" not in answer(client, third, correct_key(third)).text
    # Before an answer, the page offers the answer form, not the way on.
    assert "Next question" not in client.get(second.get_absolute_url()).text


def compute_statistics(capture):
    with capture(execute=True):  # its cache drops happen once its transaction commits
        call_command("compute_item_statistics", verbosity=0)


def record_first_answers(question, choices):
    """One learner each: their first answer to the question, choosing these option keys."""
    page = question_page(question.uid)
    for keys in choices:
        record_attempt(learner=UserFactory(), page=page, grade=page.grade(keys), source=Source.PAGE)


def test_how_others_answered_shows_from_20_learners_after_an_answer_only(
    client, topic, django_capture_on_commit_callbacks
):
    [question] = numbered(topic, 1)
    right, wrong = correct_key(question), question.options.get(is_correct=False).key
    record_first_answers(question, [[right]] * 14 + [[wrong]] * 5)
    compute_statistics(django_capture_on_commit_callbacks)
    assert Question.objects.get(pk=question.pk).answered_by == MIN_SHARE_LEARNERS - 1
    assert "Chosen by" not in answer(client, question, right).text  # 19 learners: too few
    record_first_answers(question, [[wrong]])
    compute_statistics(django_capture_on_commit_callbacks)
    before = client.get(question.get_absolute_url()).text
    assert "Chosen by" not in before
    assert "learners who answered" not in before
    text = answer(client, question, right).text
    assert "the 20 learners who answered" in text
    shares = re.findall(r"Chosen by (\d+)% of learners", text)
    assert shares == ["70", "30"]  # in the options' order: the right one first here


def test_shares_count_each_learners_first_answer_only(
    client, topic, django_capture_on_commit_callbacks
):
    [question] = numbered(topic, 1)
    right, wrong = correct_key(question), question.options.get(is_correct=False).key
    record_first_answers(question, [[wrong]] * 20)
    page = question_page(question.uid)
    learner = Attempt.objects.filter(question=question).first().learner
    for _ in range(5):  # one learner practising it again and again
        record_attempt(learner=learner, page=page, grade=page.grade([right]), source=Source.PAGE)
    compute_statistics(django_capture_on_commit_callbacks)
    text = answer(client, question, right).text
    assert re.findall(r"Chosen by (\d+)% of learners", text) == ["0", "100"]


def test_the_page_reads_its_byline_count_and_shares_from_the_cache(
    client, topic, django_assert_num_queries, django_capture_on_commit_callbacks
):
    questions = numbered(topic, 3, author=AuthorFactory(name="Ira Chen"))
    record_first_answers(questions[1], [[correct_key(questions[1])]] * 25)
    compute_statistics(django_capture_on_commit_callbacks)
    for question in questions:
        key = correct_key(question)
        with django_assert_num_queries(3):  # a cache miss: question, options, related
            client.get(question.get_absolute_url())
        with django_assert_num_queries(0):  # a visitor's answer, served from the cache
            answer(client, question, key)


def test_importing_names_authors_and_exporting_writes_their_names(tmp_path):
    from questions.bank.document_import import import_document
    from questions.bank.formats.courseiva import export_document
    from tests.banks import make_bank

    document = make_bank(3)
    for question in document["exams"][0]["questions"]:
        question["author"] = "Lee Novak"
    AuthorFactory(name="Lee Novak", credentials="CySA+")
    import_document(document)
    assert Author.objects.count() == 1  # the curated record, not a second one
    assert set(Question.objects.values_list("author__credentials", flat=True)) == {"CySA+"}
    document["exams"][0]["questions"][0]["author"] = "New Writer"
    import_document(document)
    assert Author.objects.get(name="New Writer").credentials == ""  # for a curator to fill
    exported = export_document()["exams"][0]["questions"]
    assert [q["author"] for q in exported] == ["New Writer", "Lee Novak", "Lee Novak"]


@pytest.mark.django_db(transaction=True)
def test_the_migration_makes_one_curated_author_per_name():
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before, after = (
        [("questions", "0002_page_change")],
        [("questions", "0003_authors_and_answer_shares")],
    )
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    topic = old.get_model("questions", "Topic").objects.create(
        exam=old.get_model("questions", "Exam").objects.create(slug="ex", code="EX", title="Ex"),
        slug="t", title="T", weight=100,
    )  # fmt: skip
    Question = old.get_model("questions", "Question")
    for uid, name in [("a", "Ann Lee"), ("b", "Ann Lee"), ("c", "Bo Yu"), ("d", "")]:
        Question.objects.create(uid=uid, topic=topic, stem="?", explanation=".", author=name)
    executor = MigrationExecutor(connection)
    executor.migrate(after)
    new = executor.loader.project_state(after).apps
    authors = {q.uid: q.author.name if q.author else None for q in new.get_model(
        "questions", "Question").objects.select_related("author")}  # fmt: skip
    assert authors == {"a": "Ann Lee", "b": "Ann Lee", "c": "Bo Yu", "d": None}
    assert new.get_model("questions", "Author").objects.count() == 2
    # Going back unapplied the migrations that depend on these: put the schema back whole
    # for the tests that follow.
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
