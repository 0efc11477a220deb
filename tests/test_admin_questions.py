"""Curating questions in the admin: list, search, filters, actions, the edit page, import."""

import datetime
import json
import re

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse
from django.utils import timezone

from questions.models import Option, Question, Rationale, RelatedQuestion
from tests.admin_forms import question_post
from tests.banks import SAMPLE_BANK, make_bank
from tests.factories import (
    QuestionFactory,
    StaffFactory,
    TopicFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:questions_question_changelist")
ADD = reverse("admin:questions_question_add")
IMPORT = reverse("admin:questions_question_import")


@pytest.fixture
def curator(client):
    client.force_login(StaffFactory())
    return client


def listed_uids(response) -> list[str]:
    return re.findall(r'<th class="field-uid"><a href="[^"]+">([^<]+)</a>', response.text)


# The list ------------------------------------------------------------------------------------


def test_list_shows_exam_topic_status_kind_review_date_and_public_link(curator):
    question = QuestionFactory(
        uid="iam-0001", topic__title="Identity", topic__exam__code="CSA",
        reviewed_on=datetime.date(2026, 3, 4), kind="multiple", options=[True, True, False],
    )  # fmt: skip
    response = curator.get(CHANGELIST)
    assert response.status_code == 200
    row = response.text[response.text.index("iam-0001") :]
    for text in ("CSA", "Identity", "Published", "Select all that apply", "March 4, 2026"):
        assert text in row[:3000]
    assert f'href="{question.get_absolute_url()}"' in response.text


def test_list_query_count_does_not_grow_with_rows(curator, django_assert_num_queries):
    topic = TopicFactory()
    QuestionFactory.create_batch(3, topic=topic)
    # the list's 7; the bank checks: the exams, what the flags depend on, and (a new state
    # of the bank) the lint's questions, options and parts
    with django_assert_num_queries(12) as small:
        curator.get(CHANGELIST)
    with django_assert_num_queries(9):  # nothing changed: the flags come from the cache
        curator.get(CHANGELIST)
    QuestionFactory.create_batch(30, topic=topic)
    QuestionFactory.create_batch(10)  # in other exams and topics, too
    with django_assert_num_queries(len(small)):
        response = curator.get(CHANGELIST)
    assert len(listed_uids(response)) == 43


def test_search_by_uid_and_by_stem(curator):
    QuestionFactory(uid="net-0042", stem="Which port does DNS use?")
    QuestionFactory(uid="net-0043", stem="What does DHCP hand out?")
    assert listed_uids(curator.get(CHANGELIST, {"q": "net-0042"})) == ["net-0042"]
    assert listed_uids(curator.get(CHANGELIST, {"q": "dhcp"})) == ["net-0043"]


def test_filters_by_exam_topic_status_difficulty_and_review_date(curator):
    today = timezone.localdate()
    first = QuestionFactory(uid="a-1", status="draft", difficulty="hard", reviewed_on=today)
    second_topic = TopicFactory(exam=first.topic.exam)
    QuestionFactory(uid="a-2", topic=second_topic, difficulty="easy")
    QuestionFactory(uid="b-1", reviewed_on=today - datetime.timedelta(days=400))
    exam = first.topic.exam
    assert listed_uids(curator.get(CHANGELIST, {"exam": exam.slug})) == ["a-1", "a-2"]
    assert listed_uids(curator.get(CHANGELIST, {"topic": second_topic.pk})) == ["a-2"]
    assert listed_uids(curator.get(CHANGELIST, {"status__exact": "draft"})) == ["a-1"]
    assert listed_uids(curator.get(CHANGELIST, {"difficulty__exact": "easy"})) == ["a-2"]
    since = (today - datetime.timedelta(days=7)).isoformat()
    assert listed_uids(curator.get(CHANGELIST, {"reviewed_on__gte": since})) == ["a-1"]
    assert listed_uids(curator.get(CHANGELIST, {"reviewed_on__isnull": "True"})) == ["a-2"]


def test_topic_filter_lists_only_the_chosen_exams_topics(curator):
    mine = TopicFactory(title="Routing basics")
    TopicFactory(title="Key management")
    QuestionFactory(topic=mine)
    response = curator.get(CHANGELIST, {"exam": mine.exam.slug})
    assert "Routing basics" in response.text
    assert "Key management" not in response.text
    # A topic id that is not a number filters to nothing rather than failing.
    assert curator.get(CHANGELIST, {"topic": "x"}).status_code == 200


# Actions --------------------------------------------------------------------------------------


def run_action(client, action, questions):
    return client.post(
        CHANGELIST,
        {"action": action, "_selected_action": [q.pk for q in questions]},
        follow=True,
    )


def test_publish_action(curator):
    drafts = QuestionFactory.create_batch(2, status="draft")
    untouched = QuestionFactory(status="draft")
    response = run_action(curator, "publish", drafts)
    assert "Published 2 question(s)." in response.text
    assert {q.status for q in Question.objects.filter(pk__in=[d.pk for d in drafts])} == {
        "published"
    }
    untouched.refresh_from_db()
    assert untouched.status == "draft"


def test_send_to_review_action(curator):
    question = QuestionFactory()
    assert "Sent 1 question(s) to review." in run_action(curator, "send_to_review", [question]).text
    question.refresh_from_db()
    assert question.status == "review"


def test_mark_reviewed_today_action(curator):
    question = QuestionFactory(reviewed_on=datetime.date(2025, 1, 1))
    response = run_action(curator, "mark_reviewed_today", [question])
    today = timezone.localdate()
    assert f"reviewed on {today:%Y-%m-%d}" in response.text
    question.refresh_from_db()
    assert question.reviewed_on == today


# The edit page --------------------------------------------------------------------------------


def test_add_a_question_with_options_rationales_and_related(curator):
    topic = TopicFactory()
    other = QuestionFactory(topic=topic)
    data = question_post(
        topic=topic,
        options=[
            {"text": "DNS", "correct": True, "why": "It resolves names."},
            {"text": "DHCP", "why": "It leases addresses.", "tempting_because": "Also UDP.",
             "right_when": "The host has no address yet."},
        ],
        related=[other],
        tags='["dns", "name-resolution"]',
    )  # fmt: skip
    response = curator.post(ADD, data)
    assert response.status_code == 302, response.context["errors"] if response.context else ""
    question = Question.objects.get(uid="new-0001")
    options = list(question.options.select_related("rationale"))
    assert [(o.text, o.is_correct) for o in options] == [("DNS", True), ("DHCP", False)]
    assert options[1].rationale.why == "It leases addresses."
    assert options[1].rationale.right_when == "The host has no address yet."
    assert list(question.related.all()) == [other]
    assert question.tags == ["dns", "name-resolution"]
    assert question.position == other.position + 1  # last in its exam


def test_edit_page_shows_and_saves_option_rationales(curator):
    question = QuestionFactory()
    options = list(question.options.select_related("rationale"))
    url = reverse("admin:questions_question_change", args=[question.pk])
    page = curator.get(url)
    assert page.status_code == 200
    assert options[1].rationale.why in page.text
    data = question_post(
        question,
        topic=question.topic,
        uid=question.uid,
        options=[
            {"id": options[0].pk, "text": "Edited first", "correct": True, "why": "New reason."},
            {"id": options[1].pk, "text": options[1].text, "why": options[1].rationale.why},
            {"id": options[2].pk, "text": options[2].text, "why": "x", "delete": True},
        ],
    )
    response = curator.post(url, data)
    assert response.status_code == 302
    assert Option.objects.get(pk=options[0].pk).text == "Edited first"
    assert Rationale.objects.get(option_id=options[0].pk).why == "New reason."
    assert not Option.objects.filter(pk=options[2].pk).exists()
    assert question.options.count() == 2


def post_invalid(curator, **overrides) -> str:
    topic = TopicFactory()
    options = overrides.pop(
        "options",
        [{"text": "A", "correct": True, "why": "a"}, {"text": "B", "why": "b"}],
    )
    before = (Question.objects.count(), Option.objects.count(), RelatedQuestion.objects.count())
    response = curator.post(ADD, question_post(topic=topic, options=options, **overrides))
    assert response.status_code == 200  # the form again, with errors
    after = (Question.objects.count(), Option.objects.count(), RelatedQuestion.objects.count())
    assert after == before
    return response.text


def test_single_answer_with_two_correct_options_is_a_form_error(curator):
    text = post_invalid(
        curator,
        options=[
            {"text": "A", "correct": True, "why": "a"},
            {"text": "B", "correct": True, "why": "b"},
        ],
    )
    assert "A single-answer question needs exactly one correct option (this one has 2)." in text


def test_single_answer_without_a_correct_option_is_a_form_error(curator):
    text = post_invalid(curator, options=[{"text": "A", "why": "a"}, {"text": "B", "why": "b"}])
    assert "needs exactly one correct option (this one has 0)" in text


def test_multiple_answer_without_a_correct_option_is_a_form_error(curator):
    text = post_invalid(
        curator, kind="multiple", options=[{"text": "A", "why": "a"}, {"text": "B", "why": "b"}]
    )
    assert "A select-all-that-apply question needs at least one correct option." in text


def test_fewer_than_two_options_is_a_form_error(curator):
    text = post_invalid(curator, options=[{"text": "A", "correct": True, "why": "a"}])
    assert "A question needs 2 to 8 options (this one has 1)." in text


def test_more_than_eight_options_is_a_form_error(curator):
    options = [{"text": f"O{n}", "correct": n == 0, "why": "w"} for n in range(9)]
    text = post_invalid(curator, options=options)
    assert "A question needs 2 to 8 options (this one has 9)." in text


def test_an_option_without_rationale_is_a_form_error_when_published(curator):
    text = post_invalid(
        curator,
        status="published",
        options=[{"text": "A", "correct": True, "why": "a"}, {"text": "B", "why": ""}],
    )
    assert "This field is required." in text


def test_a_question_in_review_may_wait_for_its_rationales(curator):
    # Imported questions reach curators without rationales; they fill them in steps.
    data = question_post(
        topic=TopicFactory(),
        status="review",
        options=[{"text": "A", "correct": True, "why": ""}, {"text": "B", "why": ""}],
    )
    assert curator.post(reverse("admin:questions_question_add"), data).status_code == 302
    question = Question.objects.get(uid="new-0001")
    assert [option.rationale.why for option in question.options.all()] == ["", ""]
    # ... and the publish action holds it back until they are written.
    response = run_action(curator, "publish", [question])
    assert "Not published: 1 question(s)" in response.text
    question.refresh_from_db()
    assert question.status == "review"


def test_bad_tags_are_a_form_error(curator):
    text = post_invalid(curator, tags='["Bad Tag"]')
    assert "Tag &#x27;Bad Tag&#x27;: use lowercase letters" in text


def test_related_questions_use_autocomplete(curator):
    question = QuestionFactory()
    page = curator.get(reverse("admin:questions_question_change", args=[question.pk]))
    assert "admin-autocomplete" in page.text
    QuestionFactory(uid="dns-0001", stem="Which record maps a name to an IPv6 address?")
    response = curator.get(
        reverse("admin:autocomplete"),
        {"term": "ipv6", "app_label": "questions", "model_name": "relatedquestion",
         "field_name": "to_question"},
    )  # fmt: skip
    assert response.status_code == 200
    assert [r["text"].split(":")[0] for r in response.json()["results"]] == ["dns-0001"]


# Import page ----------------------------------------------------------------------------------


def upload(client, name: str, content: bytes):
    """Preview the file, then confirm the preview when it offers to import."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    data = {"bank_file": SimpleUploadedFile(name, content), "file_format": "auto"}
    response = client.post(IMPORT, data)
    token = re.search(r'name="token" value="([^"]+)"', response.text)
    if token is None:
        return response
    assert Question.objects.count() == 0  # nothing before the confirmation
    return client.post(IMPORT, {"token": token.group(1)}, follow=True)


def test_import_page_imports_and_summarises(curator):
    page = curator.get(IMPORT)
    assert page.status_code == 200
    assert "Import question bank" in page.text
    response = upload(curator, "sample.json", SAMPLE_BANK.read_bytes())
    assert response.status_code == 200
    assert "Imported sample.json: 8 created, 0 updated, 0 unchanged" in response.text
    assert Question.objects.count() == 8


def test_import_page_lists_every_problem_and_writes_nothing(curator):
    bank = make_bank(3)
    bank["exams"][0]["topics"][0]["weight"] = 10
    bank["exams"][0]["questions"][1]["options"][1]["correct"] = True
    response = upload(curator, "bad.json", json.dumps(bank).encode())
    assert response.status_code == 400
    assert "The file was not imported: 2 problems." in response.text
    assert (
        "<code>exams[0].topics</code></td><td>topic weights add up to 50, not 100" in response.text
    )
    assert (
        "<code>exams[0].questions[1].options</code></td><td>a single-answer question"
        in response.text
    )
    assert Question.objects.count() == 0


def test_import_page_rejects_a_file_that_is_not_json(curator):
    response = upload(curator, "bank.json", b"\xff\xfe not json")
    assert response.status_code == 400
    assert "not UTF-8 text" in response.text
    response = upload(curator, "bank.json", b"[1, 2")
    assert "not valid JSON" in response.text


def test_import_page_without_a_file_is_a_form_error(curator):
    response = curator.post(IMPORT, {})
    assert response.status_code == 400
    assert "This field is required." in response.text


def test_import_page_needs_the_add_and_change_permissions(client):
    viewer = UserFactory(is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_question"))
    client.force_login(viewer)
    assert client.get(CHANGELIST).status_code == 200
    assert client.get(IMPORT).status_code == 403
    assert upload(client, "sample.json", SAMPLE_BANK.read_bytes()).status_code == 403
    assert Question.objects.count() == 0


def test_admin_pages_are_closed_to_learners_and_visitors(client):
    assert client.get(CHANGELIST).status_code == 302  # to the login page
    assert client.get(IMPORT).status_code == 302
    client.force_login(UserFactory())
    assert client.get(CHANGELIST).status_code == 302
    assert client.post(IMPORT).status_code == 302


def test_import_page_refuses_a_file_over_the_size_cap(curator, monkeypatch):
    from questions.forms import BankUploadForm

    monkeypatch.setattr(BankUploadForm, "MAX_BYTES", 1024 * 1024)
    response = upload(curator, "huge.json", b" " * (2 * 1024 * 1024))
    assert response.status_code == 400
    assert "the admin takes banks up to 1 MB" in response.text
    assert Question.objects.count() == 0


def test_list_is_ordered_exam_by_exam(curator):
    first = TopicFactory(exam__position=0)
    second = TopicFactory(exam__position=1)
    QuestionFactory(uid="b-1", topic=second, position=0)
    QuestionFactory(uid="a-2", topic=first, position=1)
    QuestionFactory(uid="a-1", topic=first, position=0)
    QuestionFactory(uid="b-2", topic=second, position=1)
    assert listed_uids(curator.get(CHANGELIST)) == ["a-1", "a-2", "b-1", "b-2"]
