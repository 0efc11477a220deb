"""`export_bank --format qti3`: every item type as a QTI 3.0 interaction, with the answer key,
the scoring and the rationales a QTI player needs, and case studies as shared stimuli."""

import html
import posixpath
import re
import zipfile
from typing import Any
from xml.etree.ElementTree import Element

import pytest
from django.core.management import call_command

from questions.bank.formats import qti
from questions.markup import render_markdown
from questions.media import images as media
from questions.models import CaseStudy, Kind, Option, Part, Question, Scoring
from tests import items
from tests.factories import ExamFactory, QuestionFactory
from tests.foreign_files import run
from tests.images import png

pytestmark = pytest.mark.django_db

QTI3 = "http://www.imsglobal.org/xsd/imsqtiasi_v3p0"
CP = "http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1"


def q(path: str) -> str:
    """An ElementPath in the QTI namespace: "a/b" -> "{ns}a/{ns}b"."""
    return "/".join(
        step if step in (".", "..") or step.startswith("*") else f"{{{QTI3}}}{step}"
        for step in path.split("/")
    )


class Package:
    def __init__(self, tmp_path: Any) -> None:
        path = tmp_path / "bank.zip"
        call_command("export_bank", "--format", "qti3", "-o", str(path))
        with zipfile.ZipFile(path) as archive:
            self.files = {name: archive.read(name) for name in archive.namelist()}

    def xml(self, name: str) -> Element:
        return qti.parse_xml(self.files[name], name)

    def item(self, question: Question) -> Element:
        return self.xml(f"items/{question.uid}.xml")


def values(element: Element, path: str) -> list[str]:
    return [value.text or "" for value in element.findall(q(path))]


def correct(item: Element, identifier: str = "RESPONSE") -> list[str]:
    [declaration] = [
        d for d in item.findall(q("qti-response-declaration")) if d.get("identifier") == identifier
    ]
    return values(declaration, "qti-correct-response/qti-value")


def feedback_text(item: Element, identifier: str) -> str:
    [block] = [
        b for b in item.iter(f"{{{QTI3}}}qti-feedback-block") if b.get("identifier") == identifier
    ]
    return " ".join("".join(block.itertext()).split())


def processing(item: Element) -> Element:
    found = item.find(q("qti-response-processing"))
    assert found is not None
    return found


def outcome_default(item: Element, identifier: str) -> str:
    [declaration] = [
        d for d in item.findall(q("qti-outcome-declaration")) if d.get("identifier") == identifier
    ]
    return declaration.findtext(q("qti-default-value/qti-value")) or ""


def tags(element: Element) -> list[str]:
    return [child.tag.rpartition("}")[2] for child in element.iter()]


def test_ordering_is_an_order_interaction_with_its_order(tmp_path):
    question = items.ordering(steps=3)
    question.options.filter(order=1).update(position=9)
    item = Package(tmp_path).item(question)
    [interaction] = item.iter(f"{{{QTI3}}}qti-order-interaction")
    assert interaction.get("min-choices") is None
    choices = {
        c.get("identifier"): (c.text or "").strip()
        for c in interaction.findall(q("qti-simple-choice"))
    }
    assert [choices[sid] for sid in correct(item)] == ["Step 1", "Step 2", "Step 3"]
    [declaration] = item.findall(q("qti-response-declaration"))
    assert declaration.get("cardinality") == "ordered"
    inline = item.findall(
        q("qti-item-body/qti-order-interaction/qti-simple-choice/qti-feedback-inline")
    )
    assert "Why Step 2 goes there." in [f.text for f in inline]
    # All or nothing: the response is the correct one.
    rule = processing(item).find(q("qti-response-condition/qti-response-if/qti-match"))
    assert rule is not None
    assert tags(rule)[1:] == ["qti-variable", "qti-correct"]
    assert processing(item).get("template", "").endswith("/rptemplates/match_correct.xml")
    assert outcome_default(item, "MAXSCORE") == "1"


def test_choose_k_of_n_orders_k_steps_with_partial_credit_per_place(tmp_path):
    question = items.ordering(steps=3, extra=2, scoring=Scoring.PARTIAL)
    item = Package(tmp_path).item(question)
    [interaction] = item.iter(f"{{{QTI3}}}qti-order-interaction")
    assert (interaction.get("min-choices"), interaction.get("max-choices")) == ("3", "3")
    assert len(interaction.findall(q("qti-simple-choice"))) == 5
    assert correct(item) == ["S1", "S2", "S3"]
    rules = processing(item).findall(q("qti-response-condition/qti-response-if"))
    places = [
        (rule.find(q("qti-match/qti-index")).get("n"), rule.findtext(q("qti-match/qti-base-value")))
        for rule in rules
    ]
    assert places == [("1", "S1"), ("2", "S2"), ("3", "S3")]
    # A point per step in its place, of the three there are.
    assert outcome_default(item, "MAXSCORE") == "3"
    assert processing(item).get("template") is None


def test_matching_is_a_match_interaction_with_distractors_and_reuse(tmp_path):
    question = items.matching(prompts=3, distractors=1)
    reused = items.matching(question.topic, prompts=2, distractors=1, reuse_answers=True)
    first = reused.options.get(position=0)
    Part.objects.filter(question=reused, position=1).update(answer=first)
    package = Package(tmp_path)
    item = package.item(question)
    prompts, pool = item.findall(q("qti-item-body/qti-match-interaction/qti-simple-match-set"))
    assert [(c.get("identifier"), c.text) for c in prompts] == [
        ("P1", "Prompt 1"),
        ("P2", "Prompt 2"),
        ("P3", "Prompt 3"),
    ]
    assert [(c.text, c.get("match-max")) for c in pool] == [
        ("Answer 1", "1"),
        ("Answer 2", "1"),
        ("Answer 3", "1"),
        ("Decoy 1", "1"),  # a distractor: no prompt takes it
    ]
    assert correct(item) == ["P1 A1", "P2 A2", "P3 A3"]
    assert item.find(q("qti-response-declaration")).get("base-type") == "directedPair"
    assert feedback_text(item, "P2") == "Part 2 is so because of the scenario."
    assert feedback_text(item, "A4") == "Why Decoy 1 goes there."

    item = package.item(reused)
    _, pool = item.findall(q("qti-item-body/qti-match-interaction/qti-simple-match-set"))
    assert {c.get("match-max") for c in pool} == {"2"}  # each answer may serve both prompts
    assert correct(item) == ["P1 A1", "P2 A1"]


def test_yes_no_series_is_a_tabular_match_of_statements_to_yes_and_no(tmp_path):
    question = items.yes_no(answers=(True, False, True), scoring=Scoring.PARTIAL)
    item = Package(tmp_path).item(question)
    [interaction] = item.iter(f"{{{QTI3}}}qti-match-interaction")
    assert interaction.get("class") == "qti-match-tabular"
    statements, answers = interaction.findall(q("qti-simple-match-set"))
    assert [c.get("identifier") for c in answers] == ["YES", "NO"]
    assert [c.text for c in statements] == ["Statement 1", "Statement 2", "Statement 3"]
    assert correct(item) == ["S1 YES", "S2 NO", "S3 YES"]
    # Partial credit: a point per statement judged right, by the response's mapping.
    entries = [
        (e.get("map-key"), e.get("mapped-value")) for e in item.iter(f"{{{QTI3}}}qti-map-entry")
    ]
    assert entries == [("S1 YES", "1"), ("S2 NO", "1"), ("S3 YES", "1")]
    assert processing(item).get("template", "").endswith("/rptemplates/map_response.xml")
    assert processing(item).find(q("qti-set-outcome-value/qti-map-response")) is not None
    assert outcome_default(item, "MAXSCORE") == "3"
    assert feedback_text(item, "S3") == "Part 3 is so because of the scenario."


def test_fill_in_blanks_are_text_entries_with_accepted_texts_and_a_tolerance(tmp_path):
    question = items.fill_in()
    question.parts.filter(position=0).update(match_case=True)
    item = Package(tmp_path).item(question)
    declarations = {d.get("identifier"): d for d in item.findall(q("qti-response-declaration"))}
    text, number = declarations["BLANK_1"], declarations["BLANK_2"]
    assert text.get("base-type") == "string"
    entries = [
        (e.get("map-key"), e.get("mapped-value"), e.get("case-sensitive"))
        for e in text.findall(q("qti-mapping/qti-map-entry"))
    ]
    assert entries == [("us-central1", "1", "true"), ("Iowa", "1", "true")]
    assert number.get("base-type") == "float"
    assert correct(item, "BLANK_2") == ["40"]
    [equal] = [e for e in processing(item).iter(f"{{{QTI3}}}qti-equal") if e.get("tolerance")]
    assert (equal.get("tolerance-mode"), equal.get("tolerance")) == ("absolute", "2 2")
    paragraphs = item.findall(q("qti-item-body/p"))
    labelled = ["".join(p.itertext()).strip() for p in paragraphs if len(p)]
    assert labelled == ["Region:", "Latency:  ms"]
    # A common wrong answer's feedback shows when that answer is given.
    assert feedback_text(item, "BLANK_1_WRONG_1") == "That region is in South Carolina."
    [given] = processing(item).iter(f"{{{QTI3}}}qti-string-match")
    assert (given.get("case-sensitive"), given.findtext(q("qti-base-value"))) == (
        "true",
        "us-east1",
    )
    assert feedback_text(item, "BLANK_2") == "Part 2 is so because of the scenario."


def test_drop_downs_are_inline_choices_in_the_exhibit(tmp_path):
    question = items.dropdown(gaps=2)
    item = Package(tmp_path).item(question)
    body = item.find(q("qti-item-body"))
    assert "[[" not in "".join(body.itertext())
    [code] = body.iter(f"{{{QTI3}}}code")
    interactions = code.findall(q("qti-inline-choice-interaction"))
    assert [i.get("response-identifier") for i in interactions] == ["GAP_1", "GAP_2"]
    assert code.text == "setting_1: "
    offered = [[c.text for c in i.findall(q("qti-inline-choice"))] for i in interactions]
    assert offered == [["Wrong 1", "Right 1"], ["Wrong 2", "Right 2"]]
    assert correct(item, "GAP_1") == ["G1_2"]
    assert correct(item, "GAP_2") == ["G2_2"]
    assert feedback_text(item, "G1") == "Part 1 is so because of the scenario."
    assert feedback_text(item, "G2_1") == "Why Wrong 2 goes there."
    # All or nothing: every gap right.
    [both] = processing(item).iter(f"{{{QTI3}}}qti-and")
    assert len(both) == 2


def test_typed_gaps_are_text_entries_beside_inline_choices_and_read_back(tmp_path, capsys):
    question = items.mixed_dropdown(scoring=Scoring.PARTIAL)
    item = Package(tmp_path).item(question)
    [code] = item.find(q("qti-item-body")).iter(f"{{{QTI3}}}code")
    assert [(child.tag.rpartition("}")[2], child.get("response-identifier")) for child in code] == [
        ("qti-inline-choice-interaction", "GAP_1"),
        ("qti-text-entry-interaction", "GAP_2"),
        ("qti-text-entry-interaction", "GAP_3"),
    ]
    declarations = {d.get("identifier"): d for d in item.findall(q("qti-response-declaration"))}
    assert [declarations[f"GAP_{n}"].get("base-type") for n in (1, 2, 3)] == [
        "identifier",
        "string",
        "float",
    ]
    entries = [e.get("map-key") for e in declarations["GAP_2"].iter(f"{{{QTI3}}}qti-map-entry")]
    assert entries == ["us-central1", "Iowa"]
    assert correct(item, "GAP_3") == ["40"]
    assert feedback_text(item, "GAP_2_WRONG_1") == "That region is in South Carolina."
    assert feedback_text(item, "G2") == "Part 2 is so because of the scenario."
    path = tmp_path / "mixed.zip"
    call_command("export_bank", "--format", "qti3", "-o", str(path))
    target = ExamFactory(slug="round-trip")
    _, result = run(capsys, path, "--exam", target.slug)
    assert (result["imported"], result["skipped"], result["errors"]) == (1, [], [])
    back = Question.objects.get(topic__exam=target)
    assert (back.kind, back.scoring) == (Kind.DROPDOWN, Scoring.PARTIAL)
    assert "storage: [[1]] region: [[2]] latency: [[3]]" in seen(back.exhibit)

    def gaps(question: Question) -> list[tuple[Any, ...]]:
        return [
            (
                [(seen(o.text), o.is_correct) for o in part.options.all()],
                part.accepted_texts,
                part.number,
                part.tolerance,
                part.match_case,
            )
            for part in question.parts.all()
        ]

    assert gaps(back) == gaps(question)


def test_a_case_study_is_a_shared_stimulus_its_items_refer_to(tmp_path):
    case = items.case_study(questions=2)
    package = Package(tmp_path)
    refs = []
    for question in case.questions.all():
        [ref] = package.item(question).findall(q("qti-assessment-stimulus-ref"))
        refs.append((ref.get("identifier"), ref.get("href"), ref.get("title")))
    [(identifier, href, title)] = set(refs)
    assert title == case.title
    path = posixpath.normpath(posixpath.join("items", href))
    stimulus = package.xml(path)
    assert stimulus.tag == f"{{{QTI3}}}qti-assessment-stimulus"
    assert stimulus.get("identifier") == identifier
    assert "Contoso runs a head office" in "".join(stimulus.itertext())
    assert stimulus.find(q("qti-stimulus-body/table")) is not None
    manifest = package.xml("imsmanifest.xml")
    resources = {r.get("identifier"): r for r in manifest.iter(f"{{{CP}}}resource")}
    assert resources[identifier].get("type") == "imsqti_stimulus_xmlv3p0"
    assert resources[identifier].get("href") == path
    for question in case.questions.all():
        dependencies = resources[question.uid].findall(f"{{{CP}}}dependency")
        assert [d.get("identifierref") for d in dependencies] == [identifier]


def test_partial_credit_of_select_all_is_a_mapping(tmp_path):
    question = items.matching()  # any other question: the one below is the one looked at
    choice = QuestionFactory(kind=Kind.MULTIPLE, topic=question.topic, scoring=Scoring.PARTIAL)
    Option.objects.filter(question=choice).update(is_correct=False)
    first, second, *_ = choice.options.all()
    Option.objects.filter(pk__in=[first.pk, second.pk]).update(is_correct=True)
    item = Package(tmp_path).item(choice)
    entries = [
        (e.get("map-key"), e.get("mapped-value")) for e in item.iter(f"{{{QTI3}}}qti-map-entry")
    ]
    wrongs = choice.options.count() - 2
    # A point per correct option ticked, one off per wrong one, of the two there are.
    assert entries == [("A", "1"), ("B", "1")] + [(chr(ord("C") + n), "-1") for n in range(wrongs)]
    [mapping] = item.iter(f"{{{QTI3}}}qti-mapping")
    assert mapping.get("lower-bound") == "0"
    assert processing(item).get("template", "").endswith("/rptemplates/map_response.xml")
    assert outcome_default(item, "MAXSCORE") == "2"


def test_markup_in_every_type_is_sanitised(tmp_path):
    script = "<script>alert(1)</script>"
    topic_questions = items.every_type()
    items.case_study(topic_questions[0].topic, questions=1)
    Question.objects.update(stem=f"Stem {script}")
    Question.objects.filter(kind=Kind.DROPDOWN).update(exhibit=f"[[1]] [[2]] {script}")
    Part.objects.update(prompt=f"Part {script}", why=f"Why {script}")
    Option.objects.update(text=f"Option <img src=x onerror=alert(1)> {script}")
    CaseStudy.objects.update(scenario=f"Scenario {script}", title="<b>Title</b>")
    package = Package(tmp_path)
    for name in package.files:
        element = package.xml(name)
        assert "script" not in tags(element), name
        assert not any("<script" in (e.text or "") or e.get("onerror") for e in element.iter()), (
            name
        )
    assert any(b"Stem" in raw for raw in package.files.values())


def test_images_of_parts_and_scenarios_are_files_of_the_package(tmp_path):
    in_prompt = media.store(media.check_image(png(seed=21)), "prompt.png")
    in_scenario = media.store(media.check_image(png(seed=22)), "scenario.png")
    question = items.matching()
    Part.objects.filter(question=question, position=0).update(
        prompt=f"Prompt ![Router]({in_prompt.url})"
    )
    case = items.case_study(question.topic)
    CaseStudy.objects.filter(pk=case.pk).update(scenario=f"Look: ![Map]({in_scenario.url})")
    Question.objects.filter(pk=question.pk).update(case_study=case)
    package = Package(tmp_path)
    assert package.files[f"media/{in_prompt.file_name}"] == png(seed=21)
    assert package.files[f"media/{in_scenario.file_name}"] == png(seed=22)
    item = package.item(question)
    [image] = item.iter(f"{{{QTI3}}}img")
    assert image.get("src") == f"../media/{in_prompt.file_name}"
    stimulus_path = next(name for name in package.files if name.startswith("stimuli/"))
    [image] = package.xml(stimulus_path).iter(f"{{{QTI3}}}img")
    assert image.get("src") == f"../media/{in_scenario.file_name}"
    resources = {
        r.get("href"): [f.get("href") for f in r.findall(f"{{{CP}}}file")]
        for r in package.xml("imsmanifest.xml").iter(f"{{{CP}}}resource")
    }
    assert f"media/{in_prompt.file_name}" in resources[f"items/{question.uid}.xml"]
    assert f"media/{in_scenario.file_name}" in resources[stimulus_path]


# Read back into an empty exam ------------------------------------------------------------


def seen(markdown: str) -> str:
    """What a learner reads of it: the rendered text, spaces made one."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", str(render_markdown(markdown)))).split())


def pairs_of(question: Question) -> list[tuple[str, str]]:
    return [
        (seen(part.prompt), seen(part.answer.text) if part.answer else "")
        for part in question.parts.select_related("answer")
    ]


def test_what_is_exported_reads_back_into_an_empty_exam(tmp_path, capsys):
    ordering, k_of_n, matching, yes_no, fill_in, dropdown = items.every_type()
    topic = ordering.topic
    Question.objects.filter(pk=yes_no.pk).update(scoring=Scoring.PARTIAL)
    case = items.case_study(topic, questions=2)
    source = list(Question.objects.order_by("position", "uid"))
    path = tmp_path / "bank.zip"
    call_command("export_bank", "--format", "qti3", "-o", str(path))
    target = ExamFactory(slug="round-trip")
    _, result = run(capsys, path, "--exam", target.slug)
    assert (result["imported"], result["skipped"], result["errors"]) == (len(source), [], [])
    copies = dict(
        zip(
            [q.uid for q in source],
            Question.objects.filter(topic__exam=target).order_by("position"),
            strict=True,
        )
    )
    for original in source:
        copy = copies[original.uid]
        shown = copy.exhibit if original.kind == Kind.DROPDOWN else copy.stem
        assert seen(shown).startswith(seen(original.stem))
        assert seen(original.explanation) in seen(copy.explanation)
        assert copy.topic.title == original.topic.title

    def steps(question: Question) -> list[tuple[str, int | None, str]]:
        rows = question.options.select_related("rationale").order_by("position")
        return [(seen(o.text), o.order, seen(o.rationale.why)) for o in rows]

    back = copies[ordering.uid]
    assert (back.kind, back.scoring) == (Kind.ORDERING, Scoring.ALL)
    assert steps(back) == steps(ordering)
    back = copies[k_of_n.uid]
    assert back.kind == Kind.ORDERING
    assert steps(back) == steps(k_of_n)  # the distractors without a place
    back = copies[matching.uid]
    assert (back.kind, back.scoring) == (Kind.MATCHING, Scoring.ALL)
    assert pairs_of(back) == pairs_of(matching)
    assert [seen(o.text) for o in back.options.all()] == [
        seen(o.text) for o in matching.options.all()
    ]
    # A yes/no series is written as a matching of statements to Yes and No, which the
    # reader knows again for what it is.
    back = copies[yes_no.uid]
    assert (back.kind, back.scoring) == (Kind.YES_NO, Scoring.PARTIAL)
    assert [(seen(p.prompt), p.is_yes) for p in back.parts.all()] == [
        (seen(p.prompt), p.is_yes) for p in yes_no.parts.all()
    ]
    back = copies[fill_in.uid]
    assert back.kind == Kind.FILL_IN
    assert [(p.accepted_texts, p.number, p.tolerance, p.match_case) for p in back.parts.all()] == [
        (p.accepted_texts, p.number, p.tolerance, p.match_case) for p in fill_in.parts.all()
    ]
    back = copies[dropdown.uid]
    assert back.kind == Kind.DROPDOWN

    def gaps(question: Question) -> list[list[tuple[str, bool]]]:
        return [
            [(seen(o.text), o.is_correct) for o in part.options.all()]
            for part in question.parts.all()
        ]

    assert gaps(back) == gaps(dropdown)
    assert "setting_1: [[1]] setting_2: [[2]]" in seen(back.exhibit)
    [copied_case] = {copies[q.uid].case_study for q in case.questions.all()}
    assert copied_case is not None
    assert copied_case.title == case.title
    assert seen(copied_case.scenario) == seen(case.scenario)
    _, again = run(capsys, path, "--exam", target.slug)
    assert (again["imported"], again["updated"], again["unchanged"]) == (0, 0, len(source))
