"""The admin's import page: preview any supported file, then import it on confirmation."""

import re
from pathlib import Path

import pytest
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from questions.models import Question, Status, Topic
from tests.factories import ExamFactory, StaffFactory, TopicFactory, UserFactory

pytestmark = pytest.mark.django_db

IMPORT = reverse("admin:questions_question_import")
FIXTURES = Path(__file__).parent / "data" / "foreign"


@pytest.fixture
def curator(client):
    client.force_login(StaffFactory())
    return client


@pytest.fixture
def exam():
    exam = ExamFactory(slug="web-basics", code="WEB")
    TopicFactory(exam=exam, slug="general", title="General", weight=100)
    return exam


def preview(client, name: str, content: bytes, **fields: str):
    data = {"bank_file": SimpleUploadedFile(name, content), "file_format": "auto", **fields}
    return client.post(IMPORT, data)


def token_of(response) -> str:
    match = re.search(r'name="token" value="([^"]+)"', response.text)
    assert match, "no confirmation form"
    return match.group(1)


def test_gift_preview_shows_each_question_and_the_skipped_ones(curator, exam):
    raw = (FIXTURES / "moodle-questions.gift.txt").read_bytes()
    response = preview(curator, "bank.gift", raw, exam=exam.slug)
    assert response.status_code == 200
    text = response.text
    assert "Preview of bank.gift (GIFT)" in text
    assert "8 questions to import:" in text
    assert "8 created, 0 updated, 0 unchanged" in text
    assert "multiple (select all that apply)" in text
    assert "true/false" in text
    assert "single answer" in text
    # The other types, each named, with what is right.
    assert "· matching" in text
    assert "· fill-in (text or number)" in text
    assert "✔ Correct: An activity supporting asynchronous discussions. → Forum" in text
    assert "✔ Correct: Answer: Frog" in text
    assert "What's between orange and green in the spectrum?" in text
    assert "✔ Correct: yellow" in text
    assert "✘ Wrong: red" in text
    assert "Feedback: wrong, it's yellow" in text
    assert "topic “Imported”" in text
    assert "will be created" in text
    # What is skipped, with its place and reason.
    assert "<code>bank.gift:2</code></td><td>essay</td>" in text
    assert "Import 8 questions" in text
    assert Question.objects.count() == 0
    assert not Topic.objects.filter(slug="imported").exists()


def test_qti_package_preview_shows_topics_feedback_and_explanations(curator, exam):
    raw = (FIXTURES / "qtiworks-WebDeveloperTest1.zip").read_bytes()
    response = preview(curator, "web.zip", raw, exam=exam.slug)
    assert response.status_code == 200
    text = response.text
    assert "(IMS/1EdTech QTI)" in text
    assert "9 questions to import:" in text  # question 8's two inline choices among them
    assert "· drop-downs in an exhibit" in text
    assert "General feedback:</strong> <p>" in text or "General feedback:</strong> <em>none" in text
    assert "✔ Correct:" in text
    assert Question.objects.count() == 0


def test_confirmation_imports_the_previewed_file_in_review(curator, exam):
    raw = (FIXTURES / "moodle-questions.gift.txt").read_bytes()
    general = TopicFactory(exam=exam, slug="misc", title="Misc", weight=0)
    response = preview(curator, "bank.gift", raw, exam=exam.slug, topic=str(general.pk))
    assert "topic “Misc”" in response.text
    assert Question.objects.count() == 0
    done = curator.post(IMPORT, {"token": token_of(response)}, follow=True)
    assert done.status_code == 200
    assert "Imported bank.gift: 8 created, 0 updated, 0 unchanged; 1 skipped." in done.text
    questions = Question.objects.all()
    assert questions.count() == 8
    assert {question.status for question in questions} == {Status.REVIEW}
    assert {question.topic_id for question in questions} == {general.pk}
    # The same file again: a preview of unchanged questions.
    again = preview(curator, "bank.gift", raw, exam=exam.slug, topic=str(general.pk))
    assert "0 created, 0 updated, 8 unchanged" in again.text


def test_a_confirmation_token_is_the_curators_own_and_not_reusable(curator, client, exam):
    raw = (FIXTURES / "moodle-questions.gift.txt").read_bytes()
    token = token_of(preview(curator, "bank.gift", raw, exam=exam.slug))
    other = StaffFactory()
    client.force_login(other)
    response = client.post(IMPORT, {"token": token})
    assert response.status_code == 400
    assert "This preview has expired or is not yours" in response.text
    assert curator.post(IMPORT, {"token": token + "x"}).status_code == 400
    assert Question.objects.count() == 0


def test_json_preview_then_confirmation(curator):
    from tests.banks import SAMPLE_BANK

    response = preview(curator, "sample.json", SAMPLE_BANK.read_bytes())
    assert response.status_code == 200
    assert "8 questions to import:" in response.text
    assert "<code>exams[0].questions[0]</code>" in response.text
    assert Question.objects.count() == 0
    curator.post(IMPORT, {"token": token_of(response)})
    assert Question.objects.count() == 8


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("bank.txt", b"just some words", "cannot tell its format"),
        ("bank.xml", b"<quiz><question", "not well-formed"),
        ("bank.zip", b"PK\x03\x04 not really a zip", "not a readable zip archive"),
        ("bank.gift", b"\xff\x00\xfe\x00" * 4 + b"\x81\x8d", "not"),
    ],
)
def test_a_bad_file_is_a_400_with_its_reason_and_writes_nothing(
    curator, exam, name, content, reason
):
    response = preview(curator, name, content, exam=exam.slug)
    assert response.status_code == 400
    assert reason in response.text
    assert 'name="token"' not in response.text
    assert Question.objects.count() == 0


QTI_ITEM = (
    '<assessmentItem xmlns="http://www.imsglobal.org/xsd/imsqti_v2p1" identifier="deep">'
    '<responseDeclaration identifier="R" cardinality="single" baseType="identifier">'
    "<correctResponse><value>A</value></correctResponse></responseDeclaration><itemBody>{}"
    '<choiceInteraction responseIdentifier="R" maxChoices="1"><simpleChoice identifier="A">a'
    '</simpleChoice><simpleChoice identifier="B">b</simpleChoice></choiceInteraction>'
    "</itemBody></assessmentItem>"
)


# Each was a bare 500: a RecursionError in json (100,000 deep) or in reading the QTI item's
# content (1,500 deep).
@pytest.mark.parametrize(
    ("name", "nest"),
    [
        ("deep.json", lambda n: '{"exams": ' + "[" * n + "]" * n + "}"),
        ("deep.xml", lambda n: QTI_ITEM.format("<div>" * n + "x" + "</div>" * n)),
        ("deep-moodle.xml", lambda n: "<quiz>" + "<a>" * n + "</a>" * n + "</quiz>"),
    ],
)
@pytest.mark.parametrize("depth", [1_500, 100_000])
def test_a_file_nested_too_deep_is_a_form_error_and_imports_nothing(
    curator, exam, name, nest, depth
):
    response = preview(curator, name, nest(depth).encode(), exam=exam.slug)
    assert response.status_code == 400
    assert re.search(r'id="id_bank_file_error"><li>[^<]*nested more than 100 levels', response.text)
    assert 'name="token"' not in response.text
    assert Question.objects.count() == 0


def test_a_foreign_file_needs_an_exam(curator, exam):
    raw = (FIXTURES / "moodle-questions.gift.txt").read_bytes()
    response = preview(curator, "bank.gift", raw)
    assert response.status_code == 400
    assert "GIFT questions go into an existing exam: choose it." in response.text


def test_the_topic_must_be_of_the_exam(curator, exam):
    elsewhere = TopicFactory(slug="other")
    raw = (FIXTURES / "moodle-questions.gift.txt").read_bytes()
    response = preview(curator, "bank.gift", raw, exam=exam.slug, topic=str(elsewhere.pk))
    assert response.status_code == 400
    assert "Choose a topic of the chosen exam." in response.text


def test_an_upload_over_the_limit_is_a_form_error(curator, exam, monkeypatch):
    from questions.forms import BankUploadForm

    monkeypatch.setattr(BankUploadForm, "MAX_BYTES", 1024 * 1024)
    response = preview(curator, "bank.gift", b" " * (2 * 1024 * 1024), exam=exam.slug)
    assert response.status_code == 400
    assert "the admin takes banks up to 1 MB" in response.text


def test_learners_visitors_and_viewers_cannot_reach_the_page(client, exam):
    raw = (FIXTURES / "moodle-questions.gift.txt").read_bytes()
    assert client.get(IMPORT).status_code == 302  # to the login page
    assert preview(client, "bank.gift", raw, exam=exam.slug).status_code == 302
    client.force_login(UserFactory())
    assert client.get(IMPORT).status_code == 302
    viewer = UserFactory(is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_question"))
    client.force_login(viewer)
    assert client.get(IMPORT).status_code == 403
    assert preview(client, "bank.gift", raw, exam=exam.slug).status_code == 403
    assert Question.objects.count() == 0


def test_csrf_is_checked(exam):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(StaffFactory())
    raw = (FIXTURES / "moodle-questions.gift.txt").read_bytes()
    assert preview(client, "bank.gift", raw, exam=exam.slug).status_code == 403


def gift(count: int) -> bytes:
    return "\n\n".join(
        f"::q{n}:: Which port does service {n} use?{{={n} #right ~{n + 1} #wrong ####why}}"
        for n in range(count)
    ).encode()


def test_preview_query_count_does_not_grow_with_the_questions(
    curator, exam, django_assert_max_num_queries
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as few:
        assert preview(curator, "few.gift", gift(2), exam=exam.slug).status_code == 200
    with CaptureQueriesContext(connection) as many:
        response = preview(curator, "many.gift", gift(40), exam=exam.slug)
    assert "40 questions to import" in response.text
    assert len(many) == len(few)


def test_everything_shown_is_escaped_or_sanitised(curator, exam):
    raw = (
        b"::x::[html]<b>Bold</b><script>alert(1)</script> &lt;network&gt; <img src=x "
        b"onerror=alert(2)>{=<i>yes</i> #<a href\\='javascript:alert(3)'>why</a> ~no}\n"
    )
    response = preview(curator, "<evil>.gift", raw, exam=exam.slug)
    assert response.status_code == 200
    text = response.text
    assert "<b>Bold</b>" in text
    assert "<script>alert" not in text
    assert "onerror" not in text
    assert "javascript:" not in text
    assert "&lt;evil&gt;.gift" in text
