"""The bank's lint: every flag has a question that must raise it and one that must not; the
command lists flags by question with their reasons; an accepted flag is reported apart."""

from datetime import date, timedelta

import pytest
from django.core.management import CommandError, call_command

from questions.lint.flags import LintOption, LintQuestion, lint, longest_cue, near_duplicates
from questions.models import Question
from tests import items
from tests.factories import ExamFactory, QuestionFactory, TopicFactory

TODAY = date(2026, 12, 4)
FULL = ("Why it is so.", "Why learners pick it.", "When it would be right.")


def question(
    stem="Which service stores the model's artifacts for serving?",
    options=None,
    uid="q-1",
    **fields,
) -> LintQuestion:
    options = options or [
        ("Cloud Storage", True),
        ("Cloud SQL", False),
        ("Memorystore", False),
        ("Filestore", False),
    ]
    fields.setdefault("references", 1)
    fields.setdefault("reviewed_on", TODAY - timedelta(days=30))
    return LintQuestion(
        uid=uid,
        exam=fields.pop("exam", "pmle"),
        kind=fields.pop("kind", "single"),
        stem=stem,
        options=tuple(
            LintOption(text, correct, fields.pop("rationale", FULL)) for text, correct in options
        ),
        **fields,
    )


def codes(*questions: LintQuestion) -> list[str]:
    return [flag.code for flag in lint(list(questions), today=TODAY)]


def test_a_clean_question_raises_nothing():
    assert codes(question()) == []


def test_a_correct_option_much_longer_than_the_others_is_flagged():
    long = question(
        options=[
            (
                "Store them in a regional Cloud Storage bucket that the endpoint's account reads",
                True,
            ),
            ("Cloud SQL", False),
            ("Memorystore", False),
        ]
    )
    assert "longest-correct" in codes(long)
    comparable = question(options=[("Cloud Storage bucket", True), ("Cloud SQL table", False)])
    assert "longest-correct" not in codes(comparable)


def test_the_bank_wide_cue_counts_the_correct_option_longest_against_chance():
    def one(n: int, right_longest: bool) -> LintQuestion:
        right = "a longer correct text" if right_longest else "short"
        return question(
            uid=f"q-{n}",
            options=[(right, True), ("wrong one", False), ("other", False), ("third", False)],
        )

    cued = [one(n, True) for n in range(12)] + [one(n + 12, False) for n in range(8)]
    flag = longest_cue("pmle", cued)
    assert flag is not None
    assert "12 of 20" in flag.reason
    fair = [one(n, n % 4 == 0) for n in range(20)]
    assert longest_cue("pmle", fair) is None


@pytest.mark.parametrize("text", ["All of the above", "none of the above.", "Both of the above"])
def test_all_or_none_of_the_above_is_flagged(text):
    assert "all-none-above" in codes(question(options=[("A thing", False), (text, True)]))


def test_an_ordinary_above_is_not():
    assert "all-none-above" not in codes(
        question(options=[("Above the limit", True), ("Below it", False)])
    )


def test_a_negative_ask_is_flagged_unless_emphasised():
    assert "negative-stem" in codes(
        question(stem="A team trains a model.\n\nWhich step is not needed?")
    )
    assert "negative-stem" not in codes(
        question(stem="A team trains.\n\nWhich step is **not** needed?")
    )
    assert "negative-stem" not in codes(
        question(stem="A team trains.\n\nWhich step is NOT needed?")
    )
    # A negative in the scenario, not in the ask, is just English.
    assert "negative-stem" not in codes(
        question(stem="It does not scale.\n\nWhat should they use?")
    )


def test_a_stem_word_echoed_only_by_the_correct_option_is_a_clang_cue():
    cued = question(
        stem="Which option keeps the *pipeline* reproducible?",
        options=[
            ("Version the pipeline definition", True),
            ("Log more", False),
            ("Add a GPU", False),
        ],
    )
    assert "clang" in codes(cued)
    fair = question(
        stem="Which option keeps the *pipeline* reproducible?",
        options=[("Version the pipeline definition", True), ("Rerun the pipeline by hand", False)],
    )
    assert "clang" not in codes(fair)


def test_options_that_repeat_or_contain_each_other_are_flagged():
    assert "overlap" in codes(
        question(options=[("Cloud Storage", True), ("cloud  storage", False)])
    )
    contained = question(options=[("Use Dataflow", True), ("Use Dataflow with autoscaling", False)])
    assert "overlap" in codes(contained)
    assert "overlap" not in codes(question())


def test_near_duplicates_are_flagged_on_both_questions_and_distinct_ones_are_not():
    stem = "A retailer trains a demand forecast every night on BigQuery data and serves it online."
    first = question(uid="q-1", stem=stem + " Which service should run the training?")
    second = question(uid="q-2", stem=stem + " Which service should run the nightly training?")
    other = question(uid="q-3", stem="Which metric suits an imbalanced fraud classifier best?")
    found = near_duplicates([first, second, other])
    assert [flag.key for flag in found["q-1"]] == ["near-duplicate:q-2"]
    assert [flag.key for flag in found["q-2"]] == ["near-duplicate:q-1"]
    assert "q-3" not in found


def test_missing_references_empty_rationales_and_stale_reviews_are_flagged():
    assert "no-reference" in codes(question(references=0))
    empty = question(rationale=("Why.", "", "When."))
    assert "empty-rationale" in codes(empty)
    assert "stale-review" in codes(question(reviewed_on=TODAY - timedelta(days=400)))
    assert "stale-review" in codes(question(reviewed_on=None))
    parts = question(kind="yesno", options=[], parts=(("Why.", "Tempting.", ""),))
    assert "empty-rationale" in codes(parts)


def test_an_accepted_flag_is_reported_with_its_note():
    flagged = question(
        references=0, notes={"no-reference": "A definition: the glossary is the source."}
    )
    (flag,) = lint([flagged], today=TODAY)
    assert flag.accepted == "A definition: the glossary is the source."


@pytest.mark.django_db
def test_the_command_lists_flags_and_accepts_one_with_a_note(capsys):
    exam = ExamFactory(slug="demo")
    topic = TopicFactory(exam=exam)
    bad = QuestionFactory(topic=topic, references=[], reviewed_on=TODAY)
    items.yes_no(topic)
    call_command("lint_bank", "demo")
    out = capsys.readouterr().out
    assert f"{bad.uid}  no-reference: no reference to check it against" in out
    with pytest.raises(CommandError, match="--note"):
        call_command("lint_bank", "--accept", bad.uid, "no-reference")
    with pytest.raises(CommandError, match="unknown flag"):
        call_command("lint_bank", "--accept", bad.uid, "too-long", "--note", "x")
    with pytest.raises(CommandError, match="no such exam"):
        call_command("lint_bank", "nope")
    call_command("lint_bank", "--accept", bad.uid, "no-reference", "--note", "A glossary item.")
    assert Question.objects.get(pk=bad.pk).lint_notes == {"no-reference": "A glossary item."}
    capsys.readouterr()
    call_command("lint_bank", "demo")
    out = capsys.readouterr().out
    assert "Note: A glossary item." in out
    with pytest.raises(CommandError):
        call_command("lint_bank", "demo", "--strict")


@pytest.mark.django_db
def test_the_lint_reads_a_bank_in_a_fixed_number_of_queries(django_assert_num_queries):
    from questions.lint.bank import bank_flags

    exam = ExamFactory()
    topic = TopicFactory(exam=exam)
    for count in (2, 12):
        QuestionFactory.create_batch(count, topic=topic)
        items.matching(topic)
        with django_assert_num_queries(3):  # questions, options with rationales, parts
            bank_flags([exam])


@pytest.mark.django_db
def test_the_question_list_sums_up_the_flags_and_a_curator_accepts_one(client):
    from django.urls import reverse

    from tests.factories import StaffFactory

    client.force_login(StaffFactory(is_superuser=True))
    exam = ExamFactory(slug="demo")
    bad = QuestionFactory(topic=TopicFactory(exam=exam), references=[], reviewed_on=TODAY)
    listing = client.get(reverse("admin:questions_question_changelist"), {"exam": "demo"}).text
    assert "Bank checks" in listing
    assert "1 open flag:" in listing
    assert "no reference 1" in listing
    checks = reverse("admin:questions_question_lint") + "?exam=demo"
    page = client.get(checks).text
    assert bad.uid in page
    assert "no reference to check it against" in page
    refused = client.post(checks, {"uid": bad.uid, "key": "no-reference", "note": " "})
    assert refused.status_code == 303
    assert Question.objects.get(pk=bad.pk).lint_notes == {}
    client.post(checks, {"uid": bad.uid, "key": "no-reference", "note": "A glossary item."})
    assert Question.objects.get(pk=bad.pk).lint_notes == {"no-reference": "A glossary item."}
    listing = client.get(reverse("admin:questions_question_changelist"), {"exam": "demo"}).text
    assert "No open flags (1 accepted with a note)" in listing
    client.post(checks, {"uid": bad.uid, "key": "no-reference", "note": "", "withdraw": "1"})
    assert Question.objects.get(pk=bad.pk).lint_notes == {}


@pytest.mark.django_db
def test_only_curators_see_the_bank_checks(client):
    from django.urls import reverse

    from tests.factories import UserFactory

    client.force_login(UserFactory())
    assert client.get(reverse("admin:questions_question_lint")).status_code == 302


@pytest.mark.django_db
def test_the_flags_of_many_exams_are_kept_under_a_key_any_cache_takes(django_assert_num_queries):
    from django.core.cache import cache

    from questions.lint.panel import summary

    cache.clear()
    exams = [ExamFactory(slug=f"exam-{n}") for n in range(120)]
    QuestionFactory(topic=TopicFactory(exam=exams[0]), stem="Which is right?")
    # A warning is an error here: a key over memcached's 250 characters would fail the test.
    first = summary(exams)
    with django_assert_num_queries(1):  # from the cache: only what the flags depend on
        again = summary(exams)
    assert again.flags == first.flags
