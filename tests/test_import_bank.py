"""`manage.py import_bank`: valid banks import, bad ones are rejected whole with every problem."""

import json

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from questions.bank.document_import import import_document
from questions.models import Exam, Option, Question, Rationale, RelatedQuestion, Topic
from tests.banks import SAMPLE_BANK, clone, make_bank, sample_bank, write
from tests.factories import QuestionFactory

pytestmark = pytest.mark.django_db


def table_counts() -> dict[str, int]:
    return {
        model.__name__: model.objects.count()
        for model in (Exam, Topic, Question, Option, Rationale, RelatedQuestion)
    }


def run_import(*paths, capsys=None):
    call_command("import_bank", *map(str, paths))


def rejection(tmp_path, capsys, document) -> str:
    """Import `document`, expect a rejection; return what was printed to stderr."""
    before = table_counts()
    path = write(tmp_path, document)
    with pytest.raises(CommandError, match="Nothing imported"):
        run_import(path)
    assert table_counts() == before, "a rejected file must write nothing"
    return capsys.readouterr().err


def test_sample_bank_imports(capsys):
    run_import(SAMPLE_BANK)
    out = capsys.readouterr().out
    assert "Questions: 8 created, 0 updated, 0 unchanged" in out
    exam = Exam.objects.get(slug="cloud-ml-engineer")
    assert exam.code == "CMLE"
    assert (exam.mock_question_count, exam.mock_duration_minutes) == (6, 15)
    assert [t.slug for t in exam.topics.all()] == [
        "distributed-training", "serving", "data-pipelines"
    ]  # fmt: skip
    question = Question.objects.get(uid="cmle-0001")
    assert question.topic.slug == "distributed-training"
    assert question.reviewed_on.isoformat() == "2026-10-01"
    assert question.tags == ["model-parallelism", "gpu-memory"]
    options = list(question.options.select_related("rationale"))
    assert [o.is_correct for o in options] == [False, True, False, False][: len(options)]
    assert options[0].rationale.right_when.startswith("The model fits on one GPU")
    assert [q.uid for q in question.related.all()] == ["cmle-0002"]
    # Questions without a status are published; cmle-0008's explicit status is kept.
    assert Question.objects.get(uid="cmle-0002").status == "published"
    sample = sample_bank()
    explicit = {q["uid"]: q["status"] for q in sample["exams"][0]["questions"] if "status" in q}
    for uid, status in explicit.items():
        assert Question.objects.get(uid=uid).status == status


def test_import_is_idempotent(capsys):
    run_import(SAMPLE_BANK)
    once = table_counts()
    option_ids = sorted(Option.objects.values_list("pk", flat=True))
    capsys.readouterr()
    run_import(SAMPLE_BANK)
    assert table_counts() == once
    assert sorted(Option.objects.values_list("pk", flat=True)) == option_ids
    assert "Questions: 0 created, 0 updated, 8 unchanged" in capsys.readouterr().out


def test_reimport_updates_by_uid_and_keeps_option_ids(tmp_path, capsys):
    bank = make_bank(5)
    import_document(bank)
    first = Question.objects.get(uid="gen-00000")
    option_ids = list(first.options.values_list("pk", flat=True))
    changed = clone(bank)
    question = changed["exams"][0]["questions"][0]
    question["stem"] = "A rewritten stem"
    question["options"][1]["rationale"] = "A sharper rationale."
    question["options"] = question["options"][:3]  # one option fewer
    run_import(write(tmp_path, changed))
    assert "Questions: 0 created, 1 updated, 4 unchanged" in capsys.readouterr().out
    first.refresh_from_db()
    assert first.stem == "A rewritten stem"
    assert list(first.options.values_list("pk", flat=True)) == option_ids[:3]
    assert Rationale.objects.get(option_id=option_ids[1]).why == "A sharper rationale."
    assert not Option.objects.filter(pk=option_ids[3]).exists()
    assert Question.objects.count() == 5


def test_several_files_import_together_and_may_link_each_other(tmp_path, capsys):
    first = make_bank(3, slug="first-exam", prefix="one")
    second = make_bank(3, slug="second-exam", prefix="two")
    second["exams"][0]["questions"][0]["related"] = ["one-00002"]
    run_import(write(tmp_path, first, "a.json"), write(tmp_path, second, "b.json"))
    linked = Question.objects.get(uid="two-00000")
    assert [q.uid for q in linked.related.all()] == ["one-00002"]


def test_related_may_point_at_a_question_already_in_the_bank(tmp_path):
    QuestionFactory(uid="existing-0001")
    bank = make_bank(2)
    bank["exams"][0]["questions"][0]["related"] = ["existing-0001"]
    run_import(write(tmp_path, bank))
    assert [q.uid for q in Question.objects.get(uid="gen-00000").related.all()] == ["existing-0001"]


def test_progress_is_shown_on_stderr(tmp_path, capsys):
    run_import(write(tmp_path, make_bank(3)))
    err = capsys.readouterr().err
    assert "Writing 3 questions" in err
    assert "Writing 12 options" in err


# Rejections: every problem listed with its JSON path, nothing written. ----------------------


def test_invalid_json_is_rejected_with_line_and_column(tmp_path, capsys):
    err = rejection(tmp_path, capsys, '{"format": "courseiva-bank",\n  "version": 1,,}')
    assert "not valid JSON" in err
    assert "line 2" in err


# The probe's file was 100,000 deep: a RecursionError's traceback instead of a problem.
@pytest.mark.parametrize("depth", [101, 1_500, 100_000])
@pytest.mark.parametrize(
    "nest",
    [
        lambda n: '{"exams": ' + "[" * n + "]" * n + "}",
        lambda n: '{"a": ' * n + "1" + "}" * n,
        lambda n: "[" * n + "]" * n,
    ],
    ids=["arrays", "objects", "top-level"],
)
def test_a_file_nested_too_deep_is_one_listed_problem_at_any_depth(tmp_path, capsys, depth, nest):
    before = table_counts()
    with pytest.raises(CommandError, match="Nothing imported: 1 problem found") as refused:
        run_import(write(tmp_path, nest(depth)))
    assert refused.value.returncode == 1  # manage.py's exit status
    err = capsys.readouterr().err
    assert "bank.json: (file): nested more than 100 levels deep" in err
    assert table_counts() == before


def test_a_bank_nested_as_deep_as_allowed_is_checked_as_usual(tmp_path, capsys):
    document = '{"format": "courseiva-bank", "version": 1, "exams": [], "x": ' + (
        "[" * 99 + "]" * 99 + "}"
    )  # 100 levels, the document's object the first
    err = rejection(tmp_path, capsys, document)
    assert "Additional properties are not allowed ('x' was unexpected)" in err
    assert "levels deep" not in err


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_numbers_json_does_not_have_are_refused(tmp_path, capsys, constant):
    text = json.dumps(make_bank(1)).replace('"weight": 60', f'"weight": {constant}')
    err = rejection(tmp_path, capsys, text)
    assert f"(file): not valid JSON: {constant} is not a number JSON allows" in err


def test_missing_file_is_a_clear_error(tmp_path, capsys):
    with pytest.raises(CommandError):
        run_import(tmp_path / "nope.json")
    assert "cannot read" in capsys.readouterr().err


def test_schema_problems_are_listed_by_path(tmp_path, capsys):
    bank = make_bank(3)
    exam = bank["exams"][0]
    del exam["questions"][0]["stem"]
    exam["questions"][1]["kind"] = "several"
    exam["questions"][2]["reviewed_on"] = "01/02/2026"
    exam["questions"][2]["options"] = exam["questions"][2]["options"][:1]
    exam["questions"][1]["colour"] = "blue"
    err = rejection(tmp_path, capsys, bank)
    assert "exams[0].questions[0]: missing required field 'stem'" in err
    assert "exams[0].questions[1].kind:" in err
    assert "exams[0].questions[1]: Additional properties are not allowed ('colour'" in err
    assert (
        "exams[0].questions[2].reviewed_on: '01/02/2026' is not a date in the form YYYY-MM-DD"
        in err
    )
    assert "exams[0].questions[2].options: needs at least 2 items (has 1)" in err


def test_too_many_options_is_rejected(tmp_path, capsys):
    bank = make_bank(1)
    options = bank["exams"][0]["questions"][0]["options"]
    options.extend(clone({"o": options[1]})["o"] for _ in range(5))  # 9 options
    err = rejection(tmp_path, capsys, bank)
    assert "exams[0].questions[0].options: allows at most 8 items (has 9)" in err


def test_wrong_format_or_version_is_rejected(tmp_path, capsys):
    bank = make_bank(1)
    bank["format"] = "other-bank"
    bank["version"] = 3
    err = rejection(tmp_path, capsys, bank)
    assert "format:" in err
    assert "version:" in err


def test_single_answer_needs_exactly_one_correct_option(tmp_path, capsys):
    bank = make_bank(2)
    questions = bank["exams"][0]["questions"]
    questions[0]["options"][1]["correct"] = True
    for option in questions[1]["options"]:
        option["correct"] = False
    err = rejection(tmp_path, capsys, bank)
    assert (
        "exams[0].questions[0].options: a single-answer question needs exactly one correct "
        "option (this one has 2)" in err
    )
    assert "exams[0].questions[1].options: a single-answer question needs exactly one" in err
    assert "(this one has 0)" in err


def test_multiple_answer_needs_a_correct_option(tmp_path, capsys):
    bank = make_bank(5)
    question = bank["exams"][0]["questions"][4]
    assert question["kind"] == "multiple"
    for option in question["options"]:
        option["correct"] = False
    err = rejection(tmp_path, capsys, bank)
    assert (
        "exams[0].questions[4].options: a select-all-that-apply question needs at least one "
        "correct option" in err
    )


def test_every_option_needs_a_rationale(tmp_path, capsys):
    bank = make_bank(1)
    del bank["exams"][0]["questions"][0]["options"][2]["rationale"]
    bank["exams"][0]["questions"][0]["options"][3]["rationale"] = ""
    err = rejection(tmp_path, capsys, bank)
    assert "exams[0].questions[0].options[2]: missing required field 'rationale'" in err
    assert "exams[0].questions[0].options[3].rationale:" in err


def test_topic_weights_must_sum_to_100(tmp_path, capsys):
    bank = make_bank(2)
    bank["exams"][0]["topics"][1]["weight"] = 30
    err = rejection(tmp_path, capsys, bank)
    assert "exams[0].topics: topic weights add up to 90, not 100" in err


def test_weights_with_more_than_two_decimals_are_rejected(tmp_path, capsys):
    bank = make_bank(2)
    bank["exams"][0]["topics"][0]["weight"] = 59.995
    bank["exams"][0]["topics"][1]["weight"] = 40.005
    err = rejection(tmp_path, capsys, bank)
    assert "exams[0].topics[0].weight: use at most two decimal places" in err


def test_unknown_topic_duplicate_uid_and_slugs_are_rejected(tmp_path, capsys):
    bank = make_bank(3)
    exam = bank["exams"][0]
    exam["questions"][0]["topic"] = "no-such-topic"
    exam["questions"][2]["uid"] = exam["questions"][1]["uid"]
    exam["topics"].append({"slug": "topic-a", "title": "Again", "weight": 0})
    second = clone(exam)
    for question in second["questions"]:
        question["uid"] += "-x"
        question.pop("related", None)
    second["questions"][0]["topic"] = "topic-a"
    bank["exams"].append(second)
    err = rejection(tmp_path, capsys, bank)
    assert "exams[0].questions[0].topic: no topic 'no-such-topic' in this exam" in err
    assert (
        "exams[0].questions[2].uid: uid 'gen-00001' is used twice (also exams[0].questions[1].uid)"
        in err
    )
    assert "exams[0].topics[2].slug: topic slug 'topic-a' is used twice in this exam" in err
    assert "exams[1].slug: exam slug 'generated-exam' is used twice (also exams[0].slug)" in err


def test_related_must_exist_and_not_be_itself(tmp_path, capsys):
    bank = make_bank(3)
    questions = bank["exams"][0]["questions"]
    questions[1]["related"] = ["gen-00001", "nowhere-0001"]
    questions[2]["related"] = ["gen-00000", "gen-00000"]
    err = rejection(tmp_path, capsys, bank)
    assert "exams[0].questions[1].related[0]: a question cannot be related to itself" in err
    assert (
        "exams[0].questions[1].related[1]: no question with uid 'nowhere-0001' in this file "
        "or the bank" in err
    )
    assert "exams[0].questions[2].related: lists 'gen-00000' 2 times" in err


def test_markup_in_ids_and_bad_urls_are_rejected(tmp_path, capsys):
    bank = make_bank(1)
    question = bank["exams"][0]["questions"][0]
    question["uid"] = "Bad UID!"
    question["references"] = [{"title": "Evil", "url": "javascript:alert(1)"}]
    err = rejection(tmp_path, capsys, bank)
    assert "exams[0].questions[0].uid: 'Bad UID!' does not match" in err
    assert "exams[0].questions[0].references[0].url:" in err


def test_one_bad_file_rejects_all_files(tmp_path, capsys):
    good = write(tmp_path, make_bank(2, slug="good-exam", prefix="good"), "good.json")
    bad_bank = make_bank(2, slug="bad-exam", prefix="bad")
    bad_bank["exams"][0]["topics"][0]["weight"] = 10
    bad = write(tmp_path, bad_bank, "bad.json")
    with pytest.raises(CommandError):
        run_import(good, bad)
    err = capsys.readouterr().err
    assert f"{bad}: exams[0].topics: topic weights add up to 50, not 100" in err
    assert Question.objects.count() == 0


def test_a_rejected_reimport_changes_nothing(tmp_path, capsys):
    bank = make_bank(3)
    import_document(bank)
    stems = dict(Question.objects.values_list("uid", "stem"))
    broken = clone(bank)
    broken["exams"][0]["questions"][0]["stem"] = "Changed"
    broken["exams"][0]["questions"][1]["options"][0]["correct"] = False
    rejection(tmp_path, capsys, broken)
    assert dict(Question.objects.values_list("uid", "stem")) == stems


# Speed: the number of queries does not grow with the number of questions. -----------------


def count_import_queries(document) -> int:
    with CaptureQueriesContext(connection) as queries:
        import_document(document)
    return len(queries)


@pytest.mark.parametrize("second_import", [False, True], ids=["into-empty", "reimport-changed"])
def test_import_query_count_is_flat_in_the_number_of_questions(second_import):
    small, large = make_bank(10, slug="small", prefix="s"), make_bank(200, slug="large", prefix="l")
    if second_import:
        import_document(small)
        import_document(large)
        for bank in (small, large):
            for question in bank["exams"][0]["questions"]:
                question["stem"] += " (edited)"
                question["options"][0]["rationale"] += " Edited."
    assert count_import_queries(small) == count_import_queries(large)


def test_import_query_count_is_pinned():
    # The check (1); exams, topics, authors, questions, options, rationales, related (a few
    # each); the cache: the exams' questions, linking questions, change rows, pruning.
    assert count_import_queries(make_bank(50)) == 19


def test_imported_rows_are_whole():
    # Written without model instances (courseiva.lib.sql): what save() would fill in is
    # there all the same.
    import_document(make_bank(20))
    keys = list(Option.objects.values_list("key", flat=True))
    assert len(keys) == 80
    assert all(keys)
    assert len(set(keys)) == 80, "each option its own random key"
    assert not Question.objects.filter(created_at__isnull=True).exists()
    assert Rationale.objects.count() == 80
    first = Question.objects.get(uid="gen-00000")
    assert (first.references, first.answered_by) == ([], 0)
    assert [o.position for o in first.options.all()] == [0, 1, 2, 3]
    assert first.options.get(position=0).rationale.why.startswith("Why option A")


def test_sample_bank_is_a_valid_file_as_shipped():
    assert json.loads(SAMPLE_BANK.read_text())["format"] == "courseiva-bank"
