"""A question page is built from written-out queries (questions.pages.query): what it shows
must be what the rows say, in the awkward cases too."""

import pytest

from questions.models import Question, Rationale, RelatedQuestion, Status
from questions.pages import snapshot as pages
from tests.factories import ExamFactory, QuestionFactory, TopicFactory

pytestmark = pytest.mark.django_db


def topic_order(topic_id: int) -> list[str]:
    """The topic's published questions as the topic page lists them."""
    return list(
        Question.objects.published()
        .filter(topic_id=topic_id)
        .order_by("position", "uid")
        .values_list("uid", flat=True)
    )


@pytest.fixture
def bank():
    exam = ExamFactory()
    first, second = TopicFactory(exam=exam), TopicFactory(exam=exam)
    # Ties in position are ordered by uid; drafts and questions in review are skipped.
    made = [
        QuestionFactory(topic=first, position=position, uid=uid, status=status)
        for uid, position, status in [
            ("q-b", 1, Status.PUBLISHED),
            ("q-a", 1, Status.PUBLISHED),
            ("q-c", 2, Status.DRAFT),
            ("q-d", 3, Status.PUBLISHED),
            ("q-e", 0, Status.REVIEW),
        ]
    ]
    made.append(QuestionFactory(topic=second, position=0, uid="q-f", author=None))
    QuestionFactory(topic=TopicFactory(), uid="q-other-exam")  # counted in its own exam
    return exam, made


def test_neighbours_and_counts_follow_the_topic_order(bank):
    exam, made = bank
    built = pages.build_question_pages([q.uid for q in made])
    assert set(built) == {q.uid for q in made}  # drafts too: the staff preview shows them
    for question in made:
        page = built[question.uid]
        order = topic_order(question.topic_id)
        if question.uid in order:
            at = order.index(question.uid)
            assert page.previous_uid == (order[at - 1] if at > 0 else None)
            assert page.next_uid == (order[at + 1] if at + 1 < len(order) else None)
        assert page.exam_question_count == 4
        assert (page.topic_slug, page.exam_slug) == (question.topic.slug, exam.slug)
        assert page.status == question.status
    assert [built[uid].next_uid for uid in ["q-a", "q-b", "q-d"]] == ["q-b", "q-d", None]
    assert built["q-f"].author is None
    author = built["q-a"].author
    assert author is not None
    assert author.name == "Test Author"


def test_options_come_in_order_with_their_rationales_or_an_empty_one():
    question = QuestionFactory(options=[False, True, False])
    options = list(question.options.order_by("position", "id"))
    Rationale.objects.filter(option=options[0]).update(
        why="Only **hides** it.", tempting_because="It is quick.", right_when="In a test."
    )
    Rationale.objects.filter(option=options[2]).delete()
    page = pages.build_question_pages([question.uid])[question.uid]
    assert [view.key for view in page.options] == [option.key for option in options]
    assert [view.is_correct for view in page.options] == [False, True, False]
    assert page.options[0].why_html == "<p>Only <strong>hides</strong> it.</p>"
    assert page.options[0].tempting_html == "<p>It is quick.</p>"
    assert page.options[0].right_when_html == "<p>In a test.</p>"
    assert (page.options[2].why_html, page.options[2].tempting_html) == ("", "")


def test_related_questions_are_the_published_ones_in_link_order():
    question = QuestionFactory()
    linked = [
        QuestionFactory(stem="Later link"),
        QuestionFactory(stem="Withdrawn link", status=Status.REVIEW),
        QuestionFactory(stem="Earlier link"),
    ]
    for position, other in zip([2, 0, 1], linked, strict=True):
        RelatedQuestion.objects.create(from_question=question, to_question=other, position=position)
    page = pages.build_question_pages([question.uid])[question.uid]
    assert [(view.uid, view.snippet) for view in page.related] == [
        (linked[2].uid, "Earlier link"),
        (linked[0].uid, "Later link"),
    ]


def test_unknown_uids_build_nothing_in_three_queries(django_assert_num_queries, bank):
    with django_assert_num_queries(3):
        built = pages.build_question_pages(["q-a", "no-such-question"])
    assert list(built) == ["q-a"]
    with django_assert_num_queries(0):
        assert pages.build_question_pages([]) == {}
