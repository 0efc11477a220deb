"""Bookmarks, private notes and problem reports: the learner's panel under a question, the
bookmarks page, the report form, and the curators' triage in the admin."""

import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from progress.practice.marks import Bookmark, Note, ProblemReport
from tests.factories import QuestionFactory, StaffFactory, UserFactory

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
NOTE_LABEL = "Your private note (only you can see it)"
REPORTS = reverse("admin:progress_problemreport_changelist")
QUESTIONS = reverse("admin:questions_question_changelist")


def bookmark_url(question) -> str:
    return reverse("bookmark_toggle", args=[question.uid])


def note_url(question) -> str:
    return reverse("note_save", args=[question.uid])


def report_url(question) -> str:
    return reverse("report_problem", args=[question.uid])


@pytest.fixture
def question():
    return QuestionFactory(uid="net-0001", stem="Which port does **DNS** use?")


@pytest.fixture
def signed_in(client, learner):
    """The test client, signed in as `learner`."""
    return client


def button(*, pressed: bool) -> str:
    """The bookmark button: its state in words and in aria-pressed, not by colour alone."""
    icon, label = ("★", "Bookmarked") if pressed else ("☆", "Bookmark")
    return (
        f'aria-pressed="{str(pressed).lower()}"><span class="bookmark-icon" aria-hidden="true">'
        f"{icon}</span> {label}</button>"
    )


def other_client(user=None):
    client = Client()
    client.force_login(user or UserFactory())
    return client


# The panel on the question page -----------------------------------------------------------


def test_the_panel_shows_for_signed_in_learners_only(signed_in, question):
    text = Client().get(question.get_absolute_url()).text
    assert NOTE_LABEL not in text
    assert bookmark_url(question) not in text
    text = signed_in.get(question.get_absolute_url()).text
    assert NOTE_LABEL in text
    assert f'action="{bookmark_url(question)}"' in text
    assert f'action="{note_url(question)}"' in text
    assert f'href="{report_url(question)}"' in text
    assert button(pressed=False) in text


def test_the_question_page_query_count_does_not_depend_on_marks(
    signed_in, learner, question, django_assert_num_queries
):
    signed_in.get(question.get_absolute_url())  # fills the page cache
    with django_assert_num_queries(2) as bare:  # session with user, the panel's marks
        signed_in.get(question.get_absolute_url())
    Bookmark.objects.create(learner=learner, question=question)
    Note.objects.create(learner=learner, question=question, text="Port 53")
    with django_assert_num_queries(len(bare)):
        text = signed_in.get(question.get_absolute_url()).text
    assert "Port 53" in text
    assert 'aria-pressed="true"' in text


# Bookmarks --------------------------------------------------------------------------------


def test_bookmark_on_and_off_with_plain_posts(signed_in, learner, question):
    response = signed_in.post(bookmark_url(question), {"bookmarked": "1"})
    assert response.status_code == 302
    assert response.url == question.get_absolute_url()
    assert Bookmark.objects.filter(learner=learner, question=question).count() == 1
    page = signed_in.get(response.url).text
    assert "Bookmarked." in page  # the message
    assert 'aria-pressed="true"' in page
    # Posted twice (double click, two tabs): still one bookmark.
    signed_in.post(bookmark_url(question), {"bookmarked": "1"})
    assert Bookmark.objects.filter(learner=learner).count() == 1

    response = signed_in.post(bookmark_url(question), {"bookmarked": "0"}, follow=True)
    assert "Bookmark removed." in response.text
    assert not Bookmark.objects.filter(learner=learner).exists()


def test_bookmark_with_htmx_returns_the_button_partial(signed_in, learner, question):
    response = signed_in.post(bookmark_url(question), {"bookmarked": "1"}, headers=HTMX)
    assert response.status_code == 200
    text = response.text
    assert "<html" not in text
    assert text.strip().startswith('<form id="bookmark"')
    assert button(pressed=True) in text
    assert 'name="bookmarked" value="0"' in text  # the next press removes it
    assert NOTE_LABEL not in text
    assert Bookmark.objects.filter(learner=learner, question=question).exists()

    text = signed_in.post(bookmark_url(question), {"bookmarked": "0"}, headers=HTMX).text
    assert 'aria-pressed="false"' in text
    assert "Bookmarked" not in text
    assert not Bookmark.objects.filter(learner=learner).exists()


def test_bookmark_without_a_wanted_state_flips_it(signed_in, learner, question):
    signed_in.post(bookmark_url(question))
    assert Bookmark.objects.filter(learner=learner).exists()
    signed_in.post(bookmark_url(question))
    assert not Bookmark.objects.filter(learner=learner).exists()


def test_a_bad_bookmark_value_is_a_400_and_changes_nothing(signed_in, learner, question):
    response = signed_in.post(bookmark_url(question), {"bookmarked": "2"})
    assert response.status_code == 400
    assert not Bookmark.objects.exists()


def test_bookmarking_leaves_other_learners_bookmarks_alone(signed_in, learner, question):
    other = UserFactory()
    Bookmark.objects.create(learner=other, question=question)
    signed_in.post(bookmark_url(question), {"bookmarked": "1"})
    signed_in.post(bookmark_url(question), {"bookmarked": "0"})
    assert list(Bookmark.objects.values_list("learner", flat=True)) == [other.pk]


# Notes ------------------------------------------------------------------------------------


def test_save_update_and_delete_a_note_with_plain_posts(signed_in, learner, question):
    response = signed_in.post(note_url(question), {"text": "  Port 53, UDP and TCP.  "})
    assert response.status_code == 302
    assert response.url == question.get_absolute_url()
    assert Note.objects.get(learner=learner, question=question).text == "Port 53, UDP and TCP."
    page = signed_in.get(response.url).text
    assert "Note saved." in page
    assert "Port 53, UDP and TCP.</textarea>" in page

    signed_in.post(note_url(question), {"text": "TCP for zone transfers."})
    assert Note.objects.get(learner=learner, question=question).text == "TCP for zone transfers."
    assert Note.objects.count() == 1

    response = signed_in.post(note_url(question), {"text": "   "}, follow=True)
    assert "Note deleted." in response.text
    assert not Note.objects.exists()


def test_save_a_note_with_htmx_returns_the_note_partial(signed_in, learner, question):
    response = signed_in.post(note_url(question), {"text": "Remember 53"}, headers=HTMX)
    assert response.status_code == 200
    text = response.text
    assert "<html" not in text
    assert text.strip().startswith('<form id="note"')
    assert NOTE_LABEL in text
    assert "Remember 53</textarea>" in text
    assert 'hx-swap-oob="innerHTML">Note saved.<' in text
    assert "aria-pressed" not in text  # the bookmark is not part of it
    assert Note.objects.get(learner=learner).text == "Remember 53"

    text = signed_in.post(note_url(question), {"text": ""}, headers=HTMX).text
    assert "Note deleted." in text
    assert not Note.objects.exists()


@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
def test_a_note_over_5000_characters_is_refused_and_nothing_is_saved(
    signed_in, learner, question, htmx
):
    Note.objects.create(learner=learner, question=question, text="Kept as it was")
    too_long = "x" * 5001
    headers = HTMX if htmx else {}
    response = signed_in.post(note_url(question), {"text": too_long}, headers=headers)
    # htmx gets 422, which it swaps in place (see test_answering's bad answers).
    assert response.status_code == (422 if htmx else 400)
    text = response.text
    assert "Your note is too long: keep it to 5000 characters (it has 5001)." in text
    assert too_long + "</textarea>" in text  # the learner gets their text back
    assert ("<html" in text) is not htmx
    if not htmx:
        assert ">Check answer</button>" in text  # the whole question page
    assert Note.objects.get(learner=learner).text == "Kept as it was"


def test_a_note_of_exactly_5000_characters_is_saved(signed_in, learner, question):
    assert signed_in.post(note_url(question), {"text": "y" * 5000}).status_code == 302
    assert len(Note.objects.get(learner=learner).text) == 5000


def test_line_breaks_count_once_as_in_the_browser(signed_in, learner, question):
    # Browsers count a line break as one character against maxlength but post it as CRLF.
    text = "\r\n".join(["z" * 99] * 50)  # 4,999 characters in the browser
    assert signed_in.post(note_url(question), {"text": text}).status_code == 302
    assert Note.objects.get(learner=learner).text == text.replace("\r\n", "\n")


def test_a_note_is_shown_to_its_author_only_and_escaped(signed_in, learner, question):
    signed_in.post(note_url(question), {"text": "<script>alert('mine')</script>"})
    text = signed_in.get(question.get_absolute_url()).text
    assert "&lt;script&gt;alert(&#x27;mine&#x27;)&lt;/script&gt;</textarea>" in text
    assert "<script>alert" not in text

    other = other_client()
    text = other.get(question.get_absolute_url()).text
    assert NOTE_LABEL in text  # their own, empty panel
    assert "alert" not in text
    assert "mine" not in text
    # And for visitors, no panel at all.
    assert "alert" not in Client().get(question.get_absolute_url()).text


def test_tampered_form_fields_change_nothing(signed_in, learner, question):
    other = UserFactory()
    elsewhere = QuestionFactory()
    Note.objects.create(learner=other, question=question, text="Theirs")
    tampered = {"learner": other.pk, "learner_id": other.pk, "question": elsewhere.pk,
                "question_id": elsewhere.pk, "id": Note.objects.get().pk}  # fmt: skip
    signed_in.post(note_url(question), {"text": "Mine", **tampered})
    signed_in.post(bookmark_url(question), {"bookmarked": "1", **tampered})
    signed_in.post(report_url(question), {"kind": "typo", "reporter": other.pk, **tampered})
    assert Note.objects.get(learner=other).text == "Theirs"
    assert Note.objects.get(learner=learner).question == question
    assert Bookmark.objects.get().learner == learner
    assert Bookmark.objects.get().question == question
    report = ProblemReport.objects.get()
    assert (report.reporter, report.question) == (learner, question)
    assert not Bookmark.objects.filter(question=elsewhere).exists()


# Reports ----------------------------------------------------------------------------------


def test_the_report_page_shows_the_kinds_and_a_details_box(signed_in, question):
    response = signed_in.get(report_url(question))
    assert response.status_code == 200
    text = response.text
    assert "Report a problem" in text
    assert "Which port does DNS use?" in text
    for label in ("The marked answer is wrong", "The wording is unclear", "It is outdated",
                  "Typo or formatting", "Something else"):  # fmt: skip
        assert label in text
    assert 'type="radio" name="kind"' in text
    assert 'name="details"' in text
    assert f'action="{report_url(question)}"' in text


def test_a_report_is_stored_with_its_kind_and_details(signed_in, learner, question):
    response = signed_in.post(
        report_url(question), {"kind": "wrong-key", "details": "B is right, not A."}
    )
    assert response.status_code == 302
    assert response.url == question.get_absolute_url()
    report = ProblemReport.objects.get()
    assert (report.question, report.reporter) == (question, learner)
    assert (report.kind, report.details, report.status) == (
        "wrong-key",
        "B is right, not A.",
        "open",
    )
    assert "your report was sent" in signed_in.get(response.url).text


def test_a_report_without_details_is_fine_unless_it_is_something_else(signed_in, question):
    assert signed_in.post(report_url(question), {"kind": "typo"}).status_code == 302
    response = signed_in.post(report_url(question), {"kind": "other", "details": "  "})
    assert response.status_code == 400
    assert "Tell us what is wrong when you choose “Something else”." in response.text
    assert ProblemReport.objects.count() == 1


@pytest.mark.parametrize(
    "data",
    [{}, {"kind": "nonsense"}, {"kind": "typo", "details": "x" * 5001}],
    ids=["no-kind", "bad-kind", "details-too-long"],
)
def test_bad_reports_are_a_400_and_store_nothing(signed_in, question, data):
    response = signed_in.post(report_url(question), data)
    assert response.status_code == 400
    assert "The report was not sent" in response.text
    assert not ProblemReport.objects.exists()


def test_report_details_are_escaped_when_shown_again(signed_in, question):
    response = signed_in.post(
        report_url(question), {"kind": "typo", "details": "<b>bold</b>" + "x" * 5000}
    )
    assert response.status_code == 400
    assert "&lt;b&gt;bold&lt;/b&gt;" in response.text
    assert "<b>bold" not in response.text


# Who may reach what -----------------------------------------------------------------------


def learner_requests(question):
    """Every learner URL on a question, as (method, url, data)."""
    return [
        ("post", bookmark_url(question), {"bookmarked": "1"}),
        ("post", note_url(question), {"text": "A note"}),
        ("get", report_url(question), {}),
        ("post", report_url(question), {"kind": "typo"}),
    ]


def nothing_stored() -> bool:
    return not (
        Bookmark.objects.exists() or Note.objects.exists() or ProblemReport.objects.exists()
    )


@pytest.mark.parametrize("status", ["draft", "review"])
def test_unpublished_questions_are_404_for_learners_on_every_url(signed_in, status):
    draft = QuestionFactory(status=status)
    for method, url, data in learner_requests(draft):
        assert getattr(signed_in, method)(url, data).status_code == 404, url
    assert nothing_stored()


def test_staff_may_mark_and_report_unpublished_questions(client):
    draft = QuestionFactory(status="draft")
    client.force_login(StaffFactory())
    assert client.post(bookmark_url(draft), {"bookmarked": "1"}).status_code == 302
    assert client.post(note_url(draft), {"text": "Check the key"}).status_code == 302
    assert client.get(report_url(draft)).status_code == 200
    assert client.post(report_url(draft), {"kind": "typo"}).status_code == 302
    assert Bookmark.objects.count() == Note.objects.count() == ProblemReport.objects.count() == 1


def test_unknown_uid_is_404(signed_in):
    missing = QuestionFactory.build(uid="no-such-question")
    for method, url, data in learner_requests(missing):
        assert getattr(signed_in, method)(url, data).status_code == 404, url
    assert nothing_stored()


def test_anonymous_visitors_are_sent_to_sign_in_and_nothing_is_stored(client, question):
    login = reverse("login")
    for method, url, data in learner_requests(question):
        response = getattr(client, method)(url, data)
        assert response.status_code == 302, url
        assert response.url.startswith(login + "?next=")
    response = client.get(reverse("bookmarks"))
    assert response.status_code == 302
    assert response.url.startswith(login)
    assert nothing_stored()


def test_get_on_post_only_urls_is_405(signed_in, question):
    assert signed_in.get(bookmark_url(question)).status_code == 405
    assert signed_in.get(note_url(question)).status_code == 405
    assert signed_in.post(reverse("bookmarks")).status_code == 405
    assert signed_in.delete(report_url(question)).status_code == 405


# The bookmarks page -----------------------------------------------------------------------


def test_bookmarks_page_lists_only_my_bookmarks_newest_first(signed_in, learner):
    older = QuestionFactory(stem="Which record maps a name to IPv6?")
    newer = QuestionFactory(stem="Which port does **SSH** use?")
    theirs = QuestionFactory(stem="A question someone else kept")
    unpublished = QuestionFactory(stem="A question taken back to draft", status="draft")
    now = timezone.now()
    Bookmark.objects.create(learner=learner, question=older, created_at=now.replace(year=2025))
    Bookmark.objects.create(learner=learner, question=newer, created_at=now)
    Bookmark.objects.create(learner=learner, question=unpublished, created_at=now)
    Bookmark.objects.create(learner=UserFactory(), question=theirs)
    Note.objects.create(learner=learner, question=newer, text="<i>22</i>, not 23")
    Note.objects.create(learner=UserFactory(), question=older, text="Someone else's note")

    response = signed_in.get(reverse("bookmarks"))
    assert response.status_code == 200
    text = response.text
    assert text.index("Which port does SSH use?") < text.index("Which record maps a name to IPv6?")
    assert f'href="{newer.get_absolute_url()}"' in text
    assert "&lt;i&gt;22&lt;/i&gt;, not 23" in text
    assert "someone else" not in text.lower()
    assert "taken back to draft" not in text
    assert "2 bookmarked questions" in text


def test_bookmarks_page_is_paginated_by_25(signed_in, learner):
    for question in QuestionFactory.create_batch(27):
        Bookmark.objects.create(learner=learner, question=question)
    first = signed_in.get(reverse("bookmarks")).text
    assert first.count('class="card"') == 25
    assert "Page 1 of 2" in first
    second = signed_in.get(reverse("bookmarks"), {"page": 2}).text
    assert second.count('class="card"') == 2
    assert signed_in.get(reverse("bookmarks"), {"page": "x"}).status_code == 200


def test_bookmarks_page_with_none_says_how_to_add_them(signed_in):
    assert "You have no bookmarks yet." in signed_in.get(reverse("bookmarks")).text


def test_bookmarks_page_query_count_is_flat(signed_in, learner, django_assert_num_queries):
    def bookmark(count):
        for question in QuestionFactory.create_batch(count):
            Bookmark.objects.create(learner=learner, question=question)
            Note.objects.create(learner=learner, question=question, text="note")

    bookmark(2)
    # Session with user, count, the page of bookmarks with questions, topics, exams and notes.
    with django_assert_num_queries(3) as small:
        signed_in.get(reverse("bookmarks"))
    bookmark(28)
    with django_assert_num_queries(len(small)):
        response = signed_in.get(reverse("bookmarks"))
    assert response.text.count('class="card"') == 25


# The curators' triage in the admin --------------------------------------------------------


@pytest.fixture
def curator(client):
    client.force_login(StaffFactory())
    return client


def listed_reports(response) -> list[str]:
    """The question uid of each listed report, in order."""
    return re.findall(r'<td class="field-question_link"><a href="[^"]+">([^<]+)</a>', response.text)


def make_report(question, **fields) -> ProblemReport:
    fields.setdefault("reporter", UserFactory())
    fields.setdefault("kind", "typo")
    return ProblemReport.objects.create(question=question, **fields)


def test_triage_list_shows_open_reports_first_then_newest(curator):
    now = timezone.now()
    make_report(QuestionFactory(uid="a-1"), created_at=now.replace(year=2024))
    make_report(QuestionFactory(uid="b-1"), status="resolved", created_at=now)
    new_open = make_report(
        QuestionFactory(uid="c-1"), kind="wrong-key", details="<script>x</script> B is right"
    )
    response = curator.get(REPORTS)
    assert response.status_code == 200
    assert listed_reports(response) == ["c-1", "a-1", "b-1"]
    text = response.text
    question = new_open.question
    assert f'href="{reverse("admin:questions_question_change", args=[question.pk])}"' in text
    assert f'href="{question.get_absolute_url()}">public page</a>' in text
    assert "The marked answer is wrong" in text
    assert new_open.reporter.username in text
    assert "&lt;script&gt;x&lt;/script&gt; B is right" in text
    assert "<script>x" not in text


def test_triage_list_filters_by_status_and_kind_and_searches(curator):
    make_report(QuestionFactory(uid="a-1"), kind="typo")
    make_report(QuestionFactory(uid="b-1"), kind="outdated", status="resolved")
    make_report(QuestionFactory(uid="c-1"), kind="other", details="The VPC limits changed")
    assert listed_reports(curator.get(REPORTS, {"status__exact": "open"})) == ["c-1", "a-1"]
    assert listed_reports(curator.get(REPORTS, {"status__exact": "resolved"})) == ["b-1"]
    assert listed_reports(curator.get(REPORTS, {"kind__exact": "outdated"})) == ["b-1"]
    assert listed_reports(curator.get(REPORTS, {"q": "vpc limits"})) == ["c-1"]
    assert listed_reports(curator.get(REPORTS, {"q": "a-1"})) == ["a-1"]


def run_action(client, action, reports):
    return client.post(
        REPORTS, {"action": action, "_selected_action": [r.pk for r in reports]}, follow=True
    )


def test_mark_resolved_and_reopen_actions(curator):
    question = QuestionFactory()
    chosen = [make_report(question), make_report(question)]
    untouched = make_report(question)
    response = run_action(curator, "mark_resolved", chosen)
    assert "Marked 2 report(s) resolved." in response.text
    for report in chosen:
        report.refresh_from_db()
        assert report.status == "resolved"
        assert report.resolved_at is not None
    untouched.refresh_from_db()
    assert (untouched.status, untouched.resolved_at) == ("open", None)

    response = run_action(curator, "reopen", chosen[:1])
    assert "Reopened 1 report(s)." in response.text
    chosen[0].refresh_from_db()
    assert (chosen[0].status, chosen[0].resolved_at) == ("open", None)


def test_a_report_change_page_shows_it_and_reports_cannot_be_added(curator):
    report = make_report(QuestionFactory(), details="<b>odd</b>")
    page = curator.get(reverse("admin:progress_problemreport_change", args=[report.pk]))
    assert page.status_code == 200
    assert "&lt;b&gt;odd&lt;/b&gt;" in page.text
    assert curator.get(reverse("admin:progress_problemreport_add")).status_code == 403


def test_triage_list_query_count_is_flat(curator, django_assert_num_queries):
    for _ in range(3):
        make_report(QuestionFactory())
    with django_assert_num_queries(4) as small:  # session with user, 2 counts, rows
        curator.get(REPORTS)
    for question in QuestionFactory.create_batch(30):
        make_report(question, details="Something is off")
    with django_assert_num_queries(len(small)):
        response = curator.get(REPORTS)
    assert len(listed_reports(response)) == 33


def test_learners_cannot_reach_the_triage_list(signed_in, question):
    report = make_report(question)
    admin_login = reverse("admin:login")
    for url in (REPORTS, reverse("admin:progress_problemreport_change", args=[report.pk])):
        response = signed_in.get(url)
        assert response.status_code == 302
        assert response.url.startswith(admin_login)
    response = signed_in.post(REPORTS, {"action": "mark_resolved", "_selected_action": [report.pk]})
    assert response.status_code == 302
    report.refresh_from_db()
    assert report.status == "open"


# The open-report count in the question list ----------------------------------------------


def open_count_cell(response, question):
    row = response.text[response.text.index(f">{question.uid}</a></th>") :]
    return re.search(r'<td class="field-open_report_count">(.*?)</td>', row).group(1)


def test_question_list_shows_open_reports_linked_to_the_triage_list(curator):
    reported = QuestionFactory(uid="a-1")
    quiet = QuestionFactory(uid="b-1")
    make_report(reported)
    make_report(reported, kind="unclear")
    make_report(reported, status="resolved")
    make_report(quiet, status="resolved")
    response = curator.get(QUESTIONS)
    assert "Open reports" in response.text
    cell = open_count_cell(response, reported)
    assert ">2 open</a>" in cell
    assert open_count_cell(response, quiet) == "0"

    link = re.search(r'href="([^"]+)"', cell).group(1).replace("&amp;", "&")
    assert link.startswith(REPORTS)
    filtered = curator.get(link)
    assert filtered.status_code == 200
    assert listed_reports(filtered) == ["a-1", "a-1"]


def test_question_list_sorts_by_open_reports(curator):
    few, many, none = QuestionFactory(uid="a-1"), QuestionFactory(uid="b-1"), QuestionFactory()
    make_report(few)
    for _ in range(3):
        make_report(many)
    response = curator.get(QUESTIONS)
    headers = re.findall(r'<th scope="col" class="([^"]*)"', response.text)
    column = next(n for n, h in enumerate(headers) if "column-open_report_count" in h)
    # The action checkbox column is not counted; list_display columns are numbered from 1.
    uids = re.findall(
        r'<th class="field-uid"><a href="[^"]+">([^<]+)</a>',
        curator.get(QUESTIONS, {"o": f"-{column}"}).text,
    )
    assert uids[:3] == ["b-1", "a-1", none.uid]


def test_question_list_query_count_stays_flat_with_reports(curator, django_assert_num_queries):
    questions = QuestionFactory.create_batch(3)
    for question in questions:
        make_report(question)
    with django_assert_num_queries(12) as small:  # with the bank checks (test_admin_questions)
        curator.get(QUESTIONS)
    for question in QuestionFactory.create_batch(30):
        make_report(question)
        make_report(question, status="resolved")
    with django_assert_num_queries(len(small)):
        response = curator.get(QUESTIONS)
    assert response.text.count('<td class="field-open_report_count"><a ') == 33
