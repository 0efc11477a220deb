"""The public question page before any answer: what it shows, and what it must not."""

import re

import pytest
from django.urls import reverse

from questions.models import Option
from tests.factories import OptionFactory, QuestionFactory, StaffFactory
from tests.unanswered import assert_nothing_revealed

pytestmark = pytest.mark.django_db


@pytest.fixture
def single():
    return QuestionFactory(
        uid="sec-0001",
        stem="Which control **stops** credential stuffing?",
        trap="MFA is not the same as a longer password.",
        explanation="Multi-factor authentication defeats replayed passwords.",
        options=[False, True, False],
    )


@pytest.fixture
def multiple():
    return QuestionFactory(
        uid="sec-0002",
        kind="multiple",
        stem="Which two settings harden SSH?",
        trap="",
        explanation="Keys and no root login remove the two common attack paths.",
        options=[True, False, True, False],
    )


def test_single_answer_page_shows_stem_trap_radios_and_labels(client, single):
    response = client.get(single.get_absolute_url())
    assert response.status_code == 200
    text = response.text
    assert "Which control <strong>stops</strong> credential stuffing?" in text
    assert "Common exam trap" in text
    assert "MFA is not the same as a longer password." in text
    assert "Choose one answer." in text
    radios = re.findall(r'<input type="radio" name="choice" value="([^"]+)" id="(choice-\d)"', text)
    assert len(radios) == 3
    for _, input_id in radios:
        assert f'<label for="{input_id}">' in text
    for option in single.options.all():
        assert option.text in text
    assert ">Check answer</button>" in text
    assert 'name="csrfmiddlewaretoken"' in text
    assert_nothing_revealed(response, single)


def test_multiple_answer_page_says_select_all_and_uses_checkboxes(client, multiple):
    response = client.get(multiple.get_absolute_url())
    assert "Select all that apply." in response.text
    assert response.text.count('type="checkbox" name="choice"') == 4
    assert "Common exam trap" not in response.text
    assert_nothing_revealed(response, multiple)


def test_htmx_get_reveals_nothing_either(client, multiple):
    response = client.get(multiple.get_absolute_url(), headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert_nothing_revealed(response, multiple)


def test_option_values_say_nothing_about_correctness(client, single):
    text = client.get(single.get_absolute_url()).text
    values = re.findall(r'name="choice" value="([^"]+)"', text)
    options = list(single.options.all())
    assert values == [option.key for option in options]  # shown in the author's order
    assert not set(values) & ({str(o.pk) for o in options} | {str(o.position) for o in options})
    assert len(set(values)) == len(values)
    # Two questions laid out alike get unrelated values: no pattern to learn.
    twin = QuestionFactory(options=[False, True, False])
    assert not set(values) & set(twin.options.values_list("key", flat=True))


def test_title_and_description_fit_search_results(client, single):
    text = client.get(single.get_absolute_url()).text
    title = re.search(r"<title>(.*?)</title>", text, re.S).group(1)
    description = re.search(r'<meta name="description" content="([^"]*)"', text).group(1)
    assert title.startswith("Which control stops credential stuffing?")
    assert single.topic.exam.code in title
    assert len(title) <= 120
    assert "credential stuffing" in description
    assert len(description) <= 220
    assert "<strong>" not in description


def test_breadcrumbs_link_exam_and_topic(client, single):
    text = client.get(single.get_absolute_url()).text
    topic = single.topic
    assert f'href="{reverse("exam_detail", args=[topic.exam.slug])}"' in text
    assert f'href="{reverse("topic_detail", args=[topic.exam.slug, topic.slug])}"' in text


@pytest.mark.parametrize("status", ["draft", "review"])
def test_unpublished_questions_are_404_for_the_public_and_previews_for_staff(client, status):
    question = QuestionFactory(status=status)
    response = client.get(question.get_absolute_url())
    assert response.status_code == 404
    assert "We could not find that page" in response.text
    assert client.post(question.get_absolute_url(), {"choice": "x"}).status_code == 404
    client.force_login(StaffFactory())
    response = client.get(question.get_absolute_url())
    assert response.status_code == 200
    assert "Preview:" in response.text
    assert f"this question is {'draft' if status == 'draft' else 'in review'}" in response.text


def test_published_question_has_no_preview_banner(client, single):
    assert "Preview:" not in client.get(single.get_absolute_url()).text


def test_markdown_is_sanitised_on_the_page(client):
    question = QuestionFactory(stem="Hi <script>alert('x')</script> [a](javascript:alert(1))")
    OptionFactory(question=question, position=5, text="<img src=x onerror=alert(1)>")
    text = client.get(question.get_absolute_url()).text
    assert "<script>alert" not in text
    assert "javascript:" not in text
    assert "onerror" not in text


def test_question_page_query_count_is_flat(client, django_assert_num_queries):
    small = QuestionFactory(options=[True, False])
    big = QuestionFactory(options=[True] + [False] * 7)
    for target in QuestionFactory.create_batch(4, topic=big.topic):
        big.related_links.create(to_question=target)
    for question in (small, big):
        with django_assert_num_queries(3):  # a cache miss: question, options, related
            client.get(question.get_absolute_url())
        with django_assert_num_queries(0):  # then served from the cache
            client.get(question.get_absolute_url())


def test_unknown_uid_is_cached_as_missing(client, django_assert_num_queries):
    with django_assert_num_queries(1):
        assert client.get("/questions/nope-0001/").status_code == 404
    with django_assert_num_queries(0):
        assert client.get("/questions/nope-0001/").status_code == 404


def test_check_answer_on_the_model_grades_by_option_keys(multiple):
    keys = list(Option.objects.filter(question=multiple).values_list("key", "is_correct"))
    right = [key for key, correct in keys if correct]
    wrong = [key for key, correct in keys if not correct]
    assert multiple.check_answer(right).is_correct
    partial = multiple.check_answer(right[:1] + wrong[:1])
    assert not partial.is_correct
    assert partial.right == {right[0]}
    assert partial.wrong == {wrong[0]}
    assert partial.missed == {right[1]}
    assert not multiple.check_answer([]).is_correct


def test_visitors_share_one_rendering_but_each_gets_a_working_csrf_token(single):
    from django.test import Client

    first, second = Client(enforce_csrf_checks=True), Client(enforce_csrf_checks=True)
    tokens = []
    for client in (first, second):
        text = client.get(single.get_absolute_url()).text
        tokens.append(re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', text).group(1))
    assert tokens[0] != tokens[1]
    assert "csrf-token-slot" not in text
    key = single.options.get(is_correct=True).key
    for client, token in zip((first, second), tokens, strict=True):
        response = client.post(
            single.get_absolute_url(), {"choice": key, "csrfmiddlewaretoken": token}
        )
        assert response.status_code == 200
        assert "Correct" in response.text


def test_signed_in_staff_get_their_own_rendering(client, single):
    client.get(single.get_absolute_url())  # the shared rendering is cached
    client.force_login(StaffFactory())
    assert ">Curate</a>" in client.get(single.get_absolute_url()).text


def test_the_shared_rendering_is_reused_except_for_visitors_with_messages(client, single):
    client.get(single.get_absolute_url())
    again = client.get(single.get_absolute_url())
    assert again.status_code == 200
    assert again.templates == []  # served from the cached rendering
    client.cookies["messages"] = "x"
    own = client.get(single.get_absolute_url())
    assert own.status_code == 200
    assert own.templates[0].name == "questions/question.html"


def test_visitors_are_offered_to_report_a_problem(client, single):
    text = client.get(single.get_absolute_url()).text
    assert f'href="{reverse("report_problem", args=[single.uid])}"' in text
