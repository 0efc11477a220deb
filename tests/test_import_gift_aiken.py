"""`manage.py import_bank` with GIFT and Aiken files: Moodle's own fixtures and those of a GIFT
parser's test suite (tests/data/foreign/README.md), and files made here to be awkward."""

import html
import re
from decimal import Decimal
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from questions.bank import foreign_import
from questions.bank.formats import foreign
from questions.markup import render_markdown
from questions.models import Option, Question, Rationale, Status, Topic
from tests.factories import ExamFactory, TopicFactory
from tests.foreign_files import FIXTURES, options_of, refused, run, seen, write

pytestmark = pytest.mark.django_db


@pytest.fixture
def exam():
    exam = ExamFactory(slug="moodle-basics")
    TopicFactory(exam=exam, slug="general", title="General", weight=100)
    return exam


# Real files ---------------------------------------------------------------------------------


def test_moodle_gift_fixture_imports_what_it_can_and_skips_the_rest(capsys, exam):
    lines, result = run(capsys, FIXTURES / "moodle-questions.gift.txt", "--exam", exam.slug)
    assert result["format"] == "gift"
    assert (result["imported"], result["updated"], result["errors"]) == (8, 0, [])
    where = "moodle-questions.gift.txt"
    # Only the essay: no machine grades it.
    assert [(item["where"].rsplit("/", 1)[-1], item["type"]) for item in result["skipped"]] == [
        (f"{where}:2", "essay"),
    ]
    everything = Question.objects.filter(topic__exam=exam).order_by("position")
    assert [question.kind for question in everything] == [
        "matching", "single", "multiple", "fillin", "fillin", "single", "single", "single"
    ]  # fmt: skip
    activities, _, _, number, animal, absolute, *_ = everything
    assert (activities.scoring, activities.reuse_answers) == ("partial", False)
    assert [(seen(p.prompt), p.answer.text) for p in activities.parts.all()] == [
        ("An activity supporting asynchronous discussions.", "Forum"),
        ("A teacher asks a question and specifies a choice of multiple responses.", "Choice"),
        ("A bank of record entries which participants can add to.", "Database"),
        ("A collection of web pages that anyone can add to or edit.", "Wiki"),
    ]
    assert [option.text for option in activities.options.all()][-1] == "Chat"  # a distractor
    # A stray '";' after the block makes Moodle read a missing word: a line to fill in.
    (blank,) = number.parts.all()
    assert seen(number.stem) == 'What is a number from 1 to 5? _____ ";'
    assert (blank.number, blank.tolerance) == (3, 2)
    (blank,) = animal.parts.all()
    assert (blank.accepted_texts, blank.match_case, blank.why) == (["Frog"], False, "Good!")
    assert any("partial credit (50%) for 'Cat' is not carried" in line for line in lines)
    # Moodle's "*" for any other answer: feedback to every wrong answer, after Cat's own.
    assert blank.wildcards is True
    assert blank.feedback == [
        {"answer": "Cat", "feedback": "What is it with Moodlers and cats?"},
        {"answer": "*", "feedback": "Completely wrong"},
    ]
    assert seen(absolute.stem) == '42 is the Absolute Answer to everything. _____ ";'
    questions = list(everything.filter(kind__in=["single", "multiple"]))
    assert all(question.status == Status.REVIEW for question in everything)
    q2, colours, _, tsl, tsl_again = questions
    assert q2.uid.startswith("q2-")
    assert colours.uid.startswith("colours-")
    assert q2.kind == "single"
    assert options_of(q2) == [
        ("yellow", True, "right; good!"),
        ("red", False, "wrong, it's yellow"),
        ("blue", False, "wrong, it's yellow"),
    ]
    # Two positive weights: select all that apply, partial credit as Moodle adds them up.
    assert (colours.kind, colours.scoring) == ("multiple", "partial")
    assert [(text, right) for text, right, _ in options_of(colours)] == [
        ("yellow", True), ("red", False), ("off-beige", True), ("blue", False)
    ]  # fmt: skip
    # True/false: two options, True first; the same name and stem twice stay two questions.
    assert options_of(tsl) == [("True", True, ""), ("False", False, "")]
    assert tsl.uid != tsl_again.uid
    assert tsl.stem == tsl_again.stem
    # Questions without a category land in a new "Imported" topic of weight 0.
    imported = Topic.objects.get(exam=exam, slug="imported")
    assert (imported.title, imported.weight) == ("Imported", 0)
    assert {question.topic_id for question in everything} == {imported.pk}
    assert any("Topic 'Imported' created with weight 0" in line for line in lines)
    assert any("option(s) had no feedback" in line for line in lines)


def test_categories_become_topics_and_html_is_sanitised(capsys, exam):
    path = FIXTURES / "moodle-questions_in_category.gift.txt"
    _, result = run(capsys, path, "--exam", "moodle-basics")
    assert (result["imported"], result["skipped"]) == (4, [])
    assert result["topics_created"] == ["Default for New Features"]
    topic = Topic.objects.get(exam=exam, slug="default-for-new-features")
    assert topic.weight == 0
    _, greeting, user, acronym = Question.objects.filter(topic=topic).order_by("position")
    assert user.parts.get().accepted_texts == ["Moodler"]
    page = str(render_markdown(greeting.stem))
    assert '<a href="http://demo.moodle.net/file.php/5/media/bonjour.mp3"' in page
    assert 'rel="noopener noreferrer nofollow"' in page
    assert "Listen to this greeting:</a>" in page
    assert [right for _, right, _ in options_of(greeting)] == [False, True, False, False]
    # The span's style attribute goes; its text stays.
    assert "style" not in render_markdown(acronym.stem)
    assert seen(acronym.stem) == (
        "Moodle is an acronym for Modular Object-Oriented Dynamic Learning Environment."
    )


def test_escaped_control_characters_are_the_characters(capsys, exam, tmp_path):
    run(capsys, FIXTURES / "peg-escapeAll.gift", "--exam", exam.slug)
    question = Question.objects.get()
    assert question.uid.startswith("gift-control-characters-")
    options = options_of(question)
    assert [text for text, _, _ in options] == ["~", "=", "#", "{", "}", ":", "\\"]
    assert [right for _, right, _ in options] == [False] * 6 + [True]
    assert seen(options[2][2]) == "# is a control character."


def test_a_gift_file_opening_with_its_text_format_is_read_as_gift(capsys, exam, tmp_path):
    """A text format ("[markdown]") opening a GIFT question is not the "[" of a JSON list."""
    _, result = run(capsys, FIXTURES / "peg-markdown.gift", "--exam", exam.slug)
    assert result["format"] == "gift"
    # The file holds four texts with no answer block: descriptions, listed with the reason.
    assert [item["type"] for item in result["skipped"]] == ["description"] * 4
    path = write(tmp_path, "sums.gift", "[markdown]What is **2 + 2**? {=4 ~5 ~22}\n")
    _, result = run(capsys, path, "--exam", exam.slug)
    assert (result["format"], result["imported"]) == ("gift", 1)
    assert "<strong>2 + 2</strong>" in str(render_markdown(Question.objects.get().stem))


def test_true_false_feedback_goes_to_the_option_it_is_for(capsys, exam):
    run(capsys, FIXTURES / "peg-TFTwoFeedback.gift", "--exam", exam.slug)
    # {FALSE#wrong answer feedback#right answer feedback}
    assert options_of(Question.objects.get()) == [
        ("True", False, "wrong answer feedback"),
        ("False", True, "right answer feedback"),
    ]


def test_moodle_category_paths_keep_their_last_segment(capsys, exam):
    _, result = run(capsys, FIXTURES / "peg-category1.gift", "--exam", exam.slug)
    assert result["topics_created"] == ["Default for LING-373-2194-B"]


def test_gift_format_php_examples(capsys, exam):
    lines, result = run(capsys, FIXTURES / "peg-giftFormatPhpExamples.gift", "--exam", exam.slug)
    assert (result["imported"], result["skipped"], result["errors"]) == (10, [], [])
    difficult = Question.objects.get(stem="Difficult multiple choice question.")
    assert [right for _, right, _ in options_of(difficult)] == [False, False, True]
    assert any("partial credit (50%)" in line for line in lines)
    # Missing word: Moodle's drop-down inside the sentence.
    tomb = Question.objects.get(uid__startswith="grants-tomb-")
    (gap,) = tomb.parts.all()
    assert (tomb.kind, tomb.exhibit) == ("dropdown", "Grant is [[1]] in Grant's tomb.")
    assert [
        (o.text, o.is_correct, o.rationale.why, o.part_id)
        for o in tomb.options.select_related("rationale")
    ] == [
        ("buried", False, "No one is buried there.", gap.pk),
        ("entombed", True, "Right answer!", gap.pk),
        ("living", False, "We hope not!", gap.pk),
    ]
    hometown = Question.objects.get(uid__startswith="jesus-hometown-short-answer-ex-")
    assert (hometown.kind, seen(hometown.stem)) == ("fillin", "Jesus Christ was from _____ .")
    assert hometown.parts.get().accepted_texts == ["Nazareth"]
    numerical = Question.objects.get(uid__startswith="numerical-example-")
    blank = numerical.parts.get()
    assert (blank.number, blank.tolerance, blank.why) == (1822, 0, "Correct! 100% credit")
    assert any("partial credit (50%) for 1822 ± 2 is not carried" in line for line in lines)
    capitals = Question.objects.get(kind="matching")
    assert [(p.prompt, p.answer.text) for p in capitals.parts.all()] == [
        ("Canada", "Ottawa"), ("Italy", "Rome"), ("Japan", "Tokyo")
    ]  # fmt: skip


def test_gift_numbers_ranges_tolerances_and_wrong_answers(capsys, exam, tmp_path):
    path = write(
        tmp_path,
        "numbers.gift",
        "::range:: Between 1 and 5?{#1..5}\n\n"
        "::pi:: Pi?{#=3.141592653589793:0.005#Right. =%0%22:7#That is 22/7, close. "
        "~%0%3#Too rough.####Pi is about 3.14159.}\n\n"
        "::two:: Either?{#=1 =2}\n\n"
        "::bad:: Which?{#one}\n",
    )
    lines, result = run(capsys, path, "--exam", exam.slug, "--skip-invalid")
    assert result["skipped"] == []
    assert [e["message"] for e in result["errors"]] == ["'one' is not a number (or its tolerance)"]
    two = Question.objects.get(uid__startswith="two-").parts.get()
    assert (two.number, two.tolerance, two.more_numbers) == (
        1, 0, [{"number": "2", "tolerance": "0"}]
    )  # fmt: skip
    range_blank = Question.objects.get(uid__startswith="range-").parts.get()
    assert (range_blank.number, range_blank.tolerance) == (3, 2)
    pi = Question.objects.get(uid__startswith="pi-")
    blank = pi.parts.get()
    assert (blank.number, blank.tolerance, blank.why) == (
        Decimal("3.14159265"), Decimal("0.005"), "Right."
    )  # fmt: skip
    assert blank.feedback == [
        {"answer": "22", "feedback": "That is 22/7, close."},
        {"answer": "3", "feedback": "Too rough."},
    ]
    assert pi.explanation == "Pi is about 3.14159."
    assert any("the feedback for answers near 22 is given for 22 itself" in line for line in lines)


def test_gift_matching_with_an_answer_for_two_prompts(capsys, exam, tmp_path):
    path = write(
        tmp_path,
        "match.gift",
        "::ports:: Match the protocol with its transport.{=DNS -> UDP =DHCP -> UDP "
        "=HTTP -> TCP =[markdown]**QUIC** -> UDP}\n\n"
        "::alone:: Only one?{=a -> b}\n",
    )
    _, result = run(capsys, path, "--exam", exam.slug, "--skip-invalid")
    ports = Question.objects.get(kind="matching")
    assert ports.reuse_answers is True
    assert [option.text for option in ports.options.all()] == ["UDP", "TCP"]
    assert [(p.prompt, p.answer.text) for p in ports.parts.all()] == [
        ("DNS", "UDP"), ("DHCP", "UDP"), ("HTTP", "TCP"), ("**QUIC**", "UDP")
    ]  # fmt: skip
    assert [e["message"] for e in result["errors"]] == [
        "prompts (alone): a matching needs at least 2 prompts (this one has 1)",
        "pool (alone): a matching's pool needs 2 to 12 answers (this one has 1)",
    ]


def test_gift_matching_to_true_and_false_is_a_yes_no_series(capsys, exam, tmp_path):
    path = write(
        tmp_path,
        "judge.gift",
        "::judge:: Judge each statement.{=OSPF is link-state. -> True "
        "=RIP is link-state. -> False =IS-IS is link-state. -> True}\n",
    )
    run(capsys, path, "--exam", exam.slug)
    question = Question.objects.get()
    assert (question.kind, question.scoring) == ("yesno", "partial")
    assert [(p.prompt, p.is_yes) for p in question.parts.all()] == [
        ("OSPF is link-state.", True), ("RIP is link-state.", False), ("IS-IS is link-state.", True)
    ]  # fmt: skip


def test_gift_short_answer_wildcards_and_script(capsys, exam, tmp_path):
    path = write(
        tmp_path,
        "short.gift",
        "::cli:: [html]The command that lists routes<script>alert(1)</script>?"
        "{=show ip route#[html]<b>Yes</b><img src\\=x onerror\\=alert(1)> "
        "=%0%show route#[html]<script>alert(2)</script>That is Juniper's.}\n\n"
        "::star:: Any?{=ip*}\n\n"
        "::pick:: [html]Pick {~<i>one</i> =two<script>x</script>} here.\n",
    )
    _, result = run(capsys, path, "--exam", exam.slug)
    assert result["skipped"] == []
    star = Question.objects.get(uid__startswith="star-").parts.get()
    assert (star.accepted_texts, star.wildcards) == (["ip*"], True)
    cli = Question.objects.get(uid__startswith="cli-")
    blank = cli.parts.get()
    assert "script" not in cli.stem
    assert "alert" not in cli.stem
    assert blank.accepted_texts == ["show ip route"]
    assert (blank.why, blank.feedback) == (
        "<b>Yes</b>", [{"answer": "show route", "feedback": "That is Juniper's."}]
    )  # fmt: skip
    pick = Question.objects.get(uid__startswith="pick-")
    assert (pick.kind, pick.exhibit) == ("dropdown", "Pick [[1]] here.")
    assert [o.text for o in pick.options.all()] == ["<i>one</i>", "two"]


def test_moodle_aiken_fixture(capsys, exam):
    _, result = run(capsys, FIXTURES / "moodle-questions.aiken.txt", "--exam", exam.slug)
    assert (result["format"], result["imported"]) == ("aiken", 2)
    first, second = Question.objects.order_by("position")
    assert [right for _, right, _ in options_of(first)] == [False, True, False, False]
    # Plain text that looks like HTML is shown as written.
    assert seen(second.stem) == (
        "Moodle's abilities include handling user input that includes "
        '<html class="cool"> & images:'
    )
    assert "<html" not in str(render_markdown(second.stem))


def test_moodle_aiken_errors_fixture_writes_nothing_then_skips_invalid(capsys, exam):
    path = FIXTURES / "moodle-aiken_errors.txt"
    _, result = refused(capsys, path, "--exam", exam.slug)
    assert result["imported"] == 0
    assert [item["where"].rsplit(":", 1)[-1] for item in result["errors"]] == ["1", "5", "7", "14"]
    assert "needs 2 to 8 options (this one has 1)" in result["errors"][0]["message"]
    assert Question.objects.count() == 0
    _, result = run(capsys, path, "--exam", exam.slug, "--skip-invalid")
    assert result["imported"] == 2
    assert len(result["errors"]) == 4
    texts = [options_of(question) for question in Question.objects.order_by("position")]
    assert texts[1] == [("Incorrect (No space)", False, ""), ("Correct (No space)", True, "")]


# Files made to be awkward -------------------------------------------------------------------


def test_an_answer_letter_naming_no_option_is_an_error_with_its_line(capsys, exam, tmp_path):
    path = write(tmp_path, "bad.txt", "Which port does SSH use?\nA) 21\nB) 22\nANSWER: E\n")
    _lines, result = refused(capsys, path, "--exam", exam.slug)
    assert result["errors"] == [
        {"where": f"{path}:4", "message": "ANSWER: E names no option (the options: A to B)"}
    ]
    assert Question.objects.count() == 0


def test_gift_errors_have_their_place(capsys, exam, tmp_path):
    path = write(
        tmp_path,
        "bad.gift",
        "::ok:: Fine?{=yes ~no}\n\n::no-right:: Which?{~a ~b}\n\n::open:: Which?{=a ~b\n",
    )
    _, result = refused(capsys, path, "--exam", exam.slug)
    assert [(e["where"], e["message"]) for e in result["errors"]] == [
        (f"{path}:3", "no right answer: mark one with = or give positive %weights%"),
        (f"{path}:5", "the answer block { has no closing }"),
    ]
    assert Question.objects.count() == 0


def test_text_that_only_looks_like_html_stays_text(capsys, exam, tmp_path):
    path = write(
        tmp_path,
        "looks.gift",
        "::route:: Which command shows the route to <network>?"
        "<script>alert(1)</script>{=show ip route <network> ~ping <host> # no *really*}\n\n"
        "::plain:: [plain]Is <b>bold</b> & *starred* shown as typed?{T}\n\n"
        "::md:: [markdown]Is **this** bold?{F}\n",
    )
    run(capsys, path, "--exam", exam.slug)
    route, plain, md = Question.objects.order_by("position")
    page = str(render_markdown(route.stem))
    assert "script" not in page
    assert "alert" not in page
    assert seen(route.stem) == "Which command shows the route to <network>?"
    assert options_of(route)[0][0] == "show ip route <network>"
    assert seen(options_of(route)[1][2]) == "no *really*"
    assert seen(plain.stem) == "Is <b>bold</b> & *starred* shown as typed?"
    assert "<strong>this</strong>" in str(render_markdown(md.stem))


def test_encodings(capsys, exam, tmp_path):
    text = "::enc:: Qu'est-ce qu'un réseau ?{=Un réseau ~Une île}\n"
    for name, raw in [
        ("bom.gift", b"\xef\xbb\xbf" + text.encode()),
        ("utf16.gift", text.encode("utf-16")),
    ]:
        _, result = run(capsys, write(tmp_path, name, raw), "--exam", exam.slug)
        assert result["errors"] == []
    assert Question.objects.count() == 1, "the same question in three encodings is one question"
    lines, result = run(
        capsys, write(tmp_path, "ansi.gift", text.encode("cp1252")), "--exam", exam.slug
    )
    assert any("read as Windows-1252" in line for line in lines)
    assert Question.objects.get().stem == "Qu'est-ce qu'un réseau ?"
    _, result = refused(
        capsys, write(tmp_path, "bin.gift", b"::x:: y{=\x81\x8d ~b}"), "--exam", exam.slug
    )
    assert "not UTF-8" in result["errors"][0]["message"]


def test_a_file_over_the_size_limit_is_refused_unread(capsys, exam, tmp_path, monkeypatch):
    monkeypatch.setattr(foreign_import, "MAX_FILE_BYTES", 1000)
    path = write(tmp_path, "huge.gift", "::q:: Which?{=a ~b}\n\n" * 100)
    _, result = refused(capsys, path, "--exam", exam.slug)
    assert "foreign banks are read up to" in result["errors"][0]["message"]
    assert Question.objects.count() == 0


def test_re_import_updates_and_never_duplicates(capsys, exam, tmp_path):
    text = (
        "$CATEGORY: $course$/top/Networking\n\n"
        "::ssh:: Which port does SSH use?{=22 # SSH. ~23 # Telnet. ~21}\n\n"
        "Which port does SSH use?{=22 ~80}\n\n"
        "Which port does SSH use?{=22 ~80}\n"
    )
    path = write(tmp_path, "bank.gift", text)
    _, first = run(capsys, path, "--exam", exam.slug)
    assert first["imported"] == 3
    ids = sorted(Option.objects.values_list("pk", flat=True))
    _, again = run(capsys, path, "--exam", exam.slug)
    assert (again["imported"], again["updated"], again["unchanged"]) == (0, 0, 3)
    assert sorted(Option.objects.values_list("pk", flat=True)) == ids
    # A curator publishes the named one and writes the rationale the source lacks.
    ssh = Question.objects.get(uid__startswith="ssh-")
    ssh.status = Status.PUBLISHED
    ssh.explanation = "SSH listens on 22."
    ssh.save()
    Rationale.objects.filter(option__question=ssh, option__position=2).update(why="FTP.")
    path.write_text(text.replace("# SSH.", "# Secure shell."), encoding="utf-8")
    _, edited = run(capsys, path, "--exam", exam.slug)
    assert (edited["imported"], edited["updated"], edited["unchanged"]) == (0, 1, 2)
    ssh.refresh_from_db()
    assert ssh.status == Status.REVIEW, "a question the source changed goes back to review"
    assert ssh.explanation == "SSH listens on 22."
    assert [why for _, _, why in options_of(ssh)] == ["Secure shell.", "Telnet.", "FTP."]
    assert Question.objects.count() == 3


def test_re_import_gives_an_option_without_a_rationale_the_sources(capsys, exam, tmp_path):
    text = "::ssh:: Which port does SSH use?{=22 # SSH. ~23 # Telnet.}\n"
    path = write(tmp_path, "bank.gift", text)
    run(capsys, path, "--exam", exam.slug)
    ssh = Question.objects.get()
    Rationale.objects.filter(option__question=ssh, option__position=1).delete()
    _, again = run(capsys, path, "--exam", exam.slug)
    assert (again["imported"], again["updated"], again["unchanged"]) == (0, 1, 0)
    assert [why for _, _, why in options_of(ssh)] == ["SSH.", "Telnet."]


def test_dry_run_writes_nothing_and_reports_the_same(capsys, exam):
    path = FIXTURES / "moodle-questions.gift.txt"
    lines, dry = run(capsys, path, "--exam", exam.slug, "--dry-run")
    assert dry["dry_run"] is True
    assert dry["imported"] == 8
    assert any(line.startswith("Would import: 8 created") for line in lines)
    assert Question.objects.count() == 0
    assert not Topic.objects.filter(slug="imported").exists()
    _, real = run(capsys, path, "--exam", exam.slug)
    assert {**dry, "dry_run": False} == real


def test_questions_without_a_category_go_to_the_topic_given(capsys, exam, tmp_path):
    path = write(tmp_path, "a.txt", "Which?\nA. one\nB. two\nANSWER: A\n")
    run(capsys, path, "--exam", exam.slug, "--topic", "general")
    assert Question.objects.get().topic.slug == "general"
    with pytest.raises(CommandError, match="no topic 'nope' in moodle-basics"):
        call_command("import_bank", str(path), "--exam", exam.slug, "--topic", "nope")


def test_the_command_needs_an_existing_exam_for_foreign_files(capsys, exam, tmp_path):
    path = write(tmp_path, "a.gift", "Which?{=a ~b}\n")
    with pytest.raises(CommandError, match="give --exam SLUG"):
        call_command("import_bank", str(path))
    with pytest.raises(CommandError, match="no exam 'nope'"):
        call_command("import_bank", str(path), "--exam", "nope")


def test_json_and_foreign_files_are_imported_in_separate_runs(tmp_path, exam):
    gift = write(tmp_path, "a.gift", "Which?{=a ~b}\n")
    bank = Path(__file__).parent / "data" / "sample-bank.json"
    with pytest.raises(CommandError, match="separate runs"):
        call_command("import_bank", str(bank), str(gift), "--exam", exam.slug)
    with pytest.raises(CommandError, match="--dry-run: for GIFT and Aiken"):
        call_command("import_bank", str(bank), "--dry-run")


def test_detection():
    assert foreign.detect_format('{"format": "courseiva-bank"}') == "json"
    assert foreign.detect_format('[{"format": "courseiva-bank"}]') == "json"  # told it is no bank
    assert foreign.detect_format("[html]<b>Yes</b>? {T}") == "gift"
    assert foreign.detect_format("Q?\nA) a\nB) b\nANSWER: A\n") == "aiken"
    assert foreign.detect_format("// c\n::n:: Q?{T}\n") == "gift"
    assert foreign.detect_format("Just some text.\n") is None
    # A leading "[" is JSON only when the text is JSON (a broken list still reads as JSON, so
    # that the error says what is wrong); GIFT opens questions with "[markdown]" or "[2024]".
    assert foreign.detect_format('["courseiva-bank", ') == "json"
    assert foreign.detect_format("[2024] Which year? {=this ~that}\n") == "gift"
    assert foreign.detect_format("[markdown] multiline  \\nmarkdown\n") == "gift"


def test_query_count_does_not_grow_with_the_questions(exam, tmp_path, capsys):
    def queries(count: int, name: str) -> int:
        text = "\n\n".join(f"::{name}{n}:: Which {n}?{{=a ~b ~c #no}}" for n in range(count))
        path = write(tmp_path, f"{name}.gift", text)
        with CaptureQueriesContext(connection) as captured:
            call_command("import_bank", str(path), "--exam", exam.slug, "--topic", "general")
        return len(captured)

    assert queries(3, "small") == queries(60, "large")


def test_only_published_questions_need_explanations_and_rationales(tmp_path, capsys):
    from tests.banks import make_bank
    from tests.banks import write as write_bank

    bank = make_bank(2)
    draft, published = bank["exams"][0]["questions"]
    draft["status"] = "review"
    for question in (draft, published):
        question["explanation"] = ""
        question["options"][1]["rationale"] = ""
    with pytest.raises(CommandError):
        call_command("import_bank", str(write_bank(tmp_path, bank)))
    err = capsys.readouterr().err
    assert "questions[1].explanation: a published question needs an explanation" in err
    assert "questions[1].options[1].rationale: a published question needs a rationale" in err
    assert "questions[0]" not in err


def test_the_admin_lists_topics_whose_weight_is_not_set(client, exam, capsys):
    from tests.factories import StaffFactory

    run(capsys, FIXTURES / "peg-category1.gift", "--exam", exam.slug)
    client.force_login(StaffFactory())
    page = client.get("/admin/questions/topic/", {"weight": "unset"}).text
    assert "Default for LING-373-2194-B" in page
    assert ">General<" not in page


@pytest.mark.parametrize(
    ("source", "text_format"),
    [
        ("<p>First *para*</p><p>Then &eacute; &amp; &lt;x&gt;</p>", "html"),
        ("1. not a list\n# not a heading", "moodle"),
        ("1) one\n- two\n# three *x* \\ back", "plain"),
        ("text_with_under [link]", "moodle"),
    ],
)
def test_source_text_reads_as_its_author_wrote_it(source, text_format):
    page = str(render_markdown(foreign.to_markdown(source, text_format)))
    text = html.unescape(re.sub(r"<[^>]+>", " ", page))
    expected = html.unescape(re.sub(r"<[^>]+>", " ", source)) if text_format != "plain" else source
    assert text.split() == expected.split()


def test_several_right_numbers_whose_ranges_join_are_one_range(capsys, exam, tmp_path):
    """They accept exactly what one number and its tolerance accept; a gap between them
    would not."""
    path = write(
        tmp_path,
        "ranges.gift",
        "::nested:: Pi?{#=3.14:0.01#Close enough. =3.141:0.001#Closer.}\n\n"
        "::joined:: One to two?{#=1:0.25 =1.5:0.25 =2:0.25}\n\n"
        "::apart:: Either?{#=1:0.25 =2:0.25}\n",
    )
    lines, result = run(capsys, path, "--exam", exam.slug)
    assert result["skipped"] == []
    apart = Question.objects.get(uid__startswith="apart-").parts.get()
    assert (apart.number, apart.tolerance, apart.more_numbers) == (
        1, Decimal("0.25"), [{"number": "2", "tolerance": "0.25"}]
    )  # fmt: skip
    nested = Question.objects.get(uid__startswith="nested-").parts.get()
    assert (nested.number, nested.tolerance, nested.why) == (
        Decimal("3.14"), Decimal("0.01"), "Close enough."
    )  # fmt: skip
    joined = Question.objects.get(uid__startswith="joined-").parts.get()
    assert (joined.number, joined.tolerance) == (Decimal("1.5"), Decimal("0.75"))
    assert any(
        "its fully right numbers (1 ± 0.25, 1.5 ± 0.25, 2 ± 0.25) cover one range without a "
        "gap: the blank is 1.5 ± 0.75" in line
        for line in lines
    )
