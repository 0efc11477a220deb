"""What a question-bank document must satisfy before anything of it is written: the JSON
schema shipped in `questions/bank/schema/`, then the bank's rules (the same functions on the models
that the admin's forms use). Every problem is reported with its JSON path. A document is our
interchange format parsed (see `questions.bank.formats.courseiva` and docs/question-bank.md).
"""

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError as SchemaError

from questions.bank.item_fields import (
    ELEMENT_FIELDS,
    ELEMENT_NOUNS,
    KIND_FIELDS,
    KIND_NAMES,
    VERSION_2_EXAM_FIELDS,
    VERSION_2_QUESTION_FIELDS,
    decimal,
    elements,
    is_number,
    is_typed_gap,
    item_facts,
    more_number_pairs,
)
from questions.bank.schema_pass import Check, compile_passes, ecma_search
from questions.exams import section_problems
from questions.grading import (
    CHOICE_KINDS,
    NUMBER_DECIMALS,
    NUMBER_DIGITS,
    KeyPart,
    parse_number,
    text_matches,
)
from questions.item_rules import item_problems
from questions.media.images import document_images
from questions.models import Kind, Question, Scoring, weight_total_problem

SCHEMA_PATH = Path(__file__).resolve().parent / "schema" / "question-bank.schema.json"

Document = dict[str, Any]


@dataclass(frozen=True)
class Problem:
    path: str
    message: str
    uid: str = ""  # the question's, for a problem inside one

    @property
    def text(self) -> str:
        """The message, naming the question it is in."""
        return f"{self.message} (question {self.uid})" if self.uid else self.message

    def __str__(self) -> str:
        return f"{self.path}: {self.text}"


class BankError(Exception):
    """The document cannot be imported; `problems` says why, each with its JSON path."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(str(problem) for problem in self.problems))


# How deep a bank file may nest: our documents are 7 levels (the document, its exams, an exam,
# its questions, a question, its options, an option), 9 for a drop-down gap's choices, a QTI
# item's XHTML a dozen or two.
# Deeper, the readers and their libraries run out of stack (json at some depth the interpreter
# decides, a QTI item's content at about 500): a file nested further is refused, whatever the
# depth, before anything walks it.
MAX_NESTING = 100
TOO_DEEP = f"nested more than {MAX_NESTING} levels deep: refused (a bank needs about ten)"


def nests_deeper_than[Node](
    root: Node, children: Callable[[Node], Iterable[Node]], limit: int = MAX_NESTING
) -> bool:
    """Whether a tree (root at level 1) goes below `limit` levels. Level by level, not
    recursive, and it stops at the limit: a tree a million deep costs `limit` levels."""
    level = [root]
    for _ in range(limit):
        below: list[Node] = []
        for node in level:
            below.extend(children(node))
        if not below:
            return False
        level = below
    return True


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterable[SchemaError]:
    """The `pattern` keyword as the schema's ECMA-262 regexes mean it (schema_pass.ecma_search):
    jsonschema's own uses Python's `$`, which takes "slug\\n" for a slug."""
    if isinstance(instance, str) and not _searches(pattern)(instance):
        yield SchemaError(f"{instance!r} does not match {pattern!r}")


_searches = cache(ecma_search)
_Validator = validators.extend(Draft202012Validator, {"pattern": _pattern})


@cache
def _validator() -> Any:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    # The schema's $refs point into its own $defs and never recurse, so they can be inlined
    # once here: resolving them per instance took about a third of the time on a large bank.
    definitions = schema.pop("$defs", {})
    schema = _inline_refs(schema, definitions)
    return _Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def _inline_refs(node: Any, definitions: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_inline_refs(item, definitions) for item in node]
    if not isinstance(node, dict):
        return node
    reference = node.get("$ref")
    if isinstance(reference, str) and reference.startswith("#/$defs/"):
        return _inline_refs(definitions[reference.removeprefix("#/$defs/")], definitions)
    return {key: _inline_refs(value, definitions) for key, value in node.items()}


def json_path(parts: Iterable[str | int]) -> str:
    path = ""
    for part in parts:
        path += f"[{part}]" if isinstance(part, int) else (f".{part}" if path else str(part))
    return path or "(document)"


def _schema_message(error: SchemaError) -> str:
    """jsonschema's message, without echoing a whole sub-document back at the reader."""
    instance = error.instance
    if error.validator == "minItems" and isinstance(instance, list):
        return f"needs at least {error.validator_value} items (has {len(instance)})"
    if error.validator == "maxItems" and isinstance(instance, list):
        return f"allows at most {error.validator_value} items (has {len(instance)})"
    if error.validator == "required" and isinstance(error.validator_value, list):
        missing = [name for name in error.validator_value if name not in instance]
        return f"missing required field {', '.join(repr(name) for name in missing)}"
    if error.validator == "format" and error.validator_value == "date":
        return f"{instance!r} is not a date in the form YYYY-MM-DD"
    if error.validator == "pattern" and isinstance(instance, str):
        return (
            f"{instance[:80]!r} does not match {error.validator_value} "
            "(lowercase letters, digits and single hyphens)"
            if "a-z0-9" in str(error.validator_value)
            else f"{instance[:80]!r} does not match {error.validator_value}"
        )
    message = error.message
    return message if len(message) <= 300 else message[:297] + "..."


@cache
def _passes() -> Check:
    validator = _validator()
    return compile_passes(validator.schema, validator.format_checker)


def schema_problems(document: Document) -> list[Problem]:
    # A document that plainly passes is not walked by jsonschema, which cost a fifth of a
    # large import's time to find nothing; jsonschema gives the messages of the others.
    if _passes()(document):
        return []
    errors = sorted(_validator().iter_errors(document), key=lambda e: list(map(str, e.path)))
    return [Problem(json_path(error.absolute_path), _schema_message(error)) for error in errors]


def _items(value: Any) -> list[tuple[int, dict[str, Any]]]:
    """(index, object) pairs of a list, skipping what is not an object: the schema reports it."""
    if not isinstance(value, list):
        return []
    return [(index, item) for index, item in enumerate(value) if isinstance(item, dict)]


def _decimal_problem(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        return None
    if number != number.quantize(Decimal("0.01")):
        return "use at most two decimal places"
    return None


def rule_problems(
    document: Document, known_uids: set[str] | frozenset[str] = frozenset()
) -> list[Problem]:
    """The bank's rules beyond the schema. Written to survive a document the schema rejects,
    so that one run lists every problem. `known_uids` are uids that related questions may
    point at besides the document's own (the bank's, other files of the same import)."""
    problems: list[Problem] = []
    exams = _items(document.get("exams"))
    uid_places: dict[str, list[str]] = {}
    exam_places: dict[str, list[str]] = {}
    # Anything but 1 is taken as 2: the schema reports a version that is neither.
    version = 1 if document.get("version") == 1 else 2
    for e, exam in exams:
        base = f"exams[{e}]"
        if isinstance(exam.get("slug"), str):
            exam_places.setdefault(exam["slug"], []).append(f"{base}.slug")
        if version == 1:
            problems.extend(
                Problem(f"{base}.{name}", VERSION_2_ONLY)
                for name in VERSION_2_EXAM_FIELDS
                if name in exam
            )
        case_slugs = _case_study_slugs(exam, base, problems)
        mock = exam.get("mock_exam")
        if isinstance(mock, dict) and (message := _decimal_problem(mock.get("pass_percent"))):
            problems.append(Problem(f"{base}.mock_exam.pass_percent", message))
        if isinstance(mock, dict):
            problems.extend(_mock_shape_problems(mock, f"{base}.mock_exam", version))
        topics = _items(exam.get("topics"))
        topic_slugs: dict[str, str] = {}
        weights: list[Decimal] = []
        for t, topic in topics:
            slug = topic.get("slug")
            if isinstance(slug, str):
                if slug in topic_slugs:
                    problems.append(
                        Problem(
                            f"{base}.topics[{t}].slug",
                            f"topic slug {slug!r} is used twice in this exam "
                            f"(also {topic_slugs[slug]})",
                        )
                    )
                else:
                    topic_slugs[slug] = f"{base}.topics[{t}]"
            weight = topic.get("weight")
            if isinstance(weight, int | float) and not isinstance(weight, bool):
                if message := _decimal_problem(weight):
                    problems.append(Problem(f"{base}.topics[{t}].weight", message))
                weights.append(Decimal(str(weight)))
        if topics and len(weights) == len(topics) and (message := weight_total_problem(weights)):
            problems.append(Problem(f"{base}.topics", message))
        for q, question in _items(exam.get("questions")):
            qbase = f"{base}.questions[{q}]"
            uid = question.get("uid")
            if isinstance(uid, str):
                uid_places.setdefault(uid, []).append(f"{qbase}.uid")
            topic_slug = question.get("topic")
            if isinstance(topic_slug, str) and topic_slugs and topic_slug not in topic_slugs:
                problems.append(
                    Problem(
                        f"{qbase}.topic",
                        f"no topic {topic_slug!r} in this exam "
                        f"(its topics: {', '.join(topic_slugs)})",
                    )
                )
            case_study = question.get("case_study")
            if isinstance(case_study, str) and case_study not in case_slugs:
                known = (
                    f"its case studies: {', '.join(case_slugs)}" if case_slugs else "it has none"
                )
                problems.append(
                    Problem(
                        f"{qbase}.case_study",
                        f"no case study {case_study!r} in this exam ({known})",
                    )
                )
            problems.extend(_item_problems(question, qbase, version))
            problems.extend(_list_problems(question, qbase))
            problems.extend(_publishable_problems(question, qbase))
    for slug, places in exam_places.items():
        for place in places[1:]:
            problems.append(Problem(place, f"exam slug {slug!r} is used twice (also {places[0]})"))
    for uid, places in uid_places.items():
        for place in places[1:]:
            problems.append(Problem(place, f"uid {uid!r} is used twice (also {places[0]})"))
    all_uids = set(uid_places) | set(known_uids)
    for e, exam in exams:
        for q, question in _items(exam.get("questions")):
            related = question.get("related")
            if not isinstance(related, list):
                continue
            for r, target in enumerate(related):
                if not isinstance(target, str):
                    continue
                path = f"exams[{e}].questions[{q}].related[{r}]"
                if target == question.get("uid"):
                    problems.append(Problem(path, "a question cannot be related to itself"))
                elif target not in all_uids:
                    problems.append(
                        Problem(path, f"no question with uid {target!r} in this file or the bank")
                    )
    return problems


VERSION_2_ONLY = 'new in version 2 of the format: this file says "version": 1'


def _mock_shape_problems(mock: dict[str, Any], base: str, version: int) -> list[Problem]:
    """The exam mode's parts of a mock exam's shape (version 2): the scale in order, the
    sections as the admin checks them."""
    if version == 1:
        return [
            Problem(f"{base}.{name}", VERSION_2_ONLY)
            for name in ("forward_only", "scale", "sections")
            if name in mock
        ]
    problems = []
    scale = mock.get("scale")
    in_order = (
        not isinstance(scale, dict)
        or not all(isinstance(scale.get(key), int) for key in SCALE_KEYS)
        or scale["min"] < scale["pass"] <= scale["max"]
    )
    if not in_order:
        message = "the pass mark must be above the lowest score and at most the highest"
        problems.append(Problem(f"{base}.scale", message))
    sections = [section for _, section in _items(mock.get("sections"))]
    if sections and all(isinstance(s.get("question_count"), int) for s in sections):
        count, minutes = mock.get("question_count"), mock.get("duration_minutes")
        problems.extend(
            Problem(f"{base}.sections", message)
            for message in section_problems(
                count if isinstance(count, int) else None,
                minutes if isinstance(minutes, int) else None,
                [section_fields(section) for section in sections],
            )
        )
    return problems


SCALE_KEYS = ("min", "max", "pass")


def section_fields(section: dict[str, Any]) -> dict[str, Any]:
    """A document's section as MockSection's fields."""
    return {
        "title": section.get("title", ""),
        "kinds": list(section.get("item_types", [])),
        "holds_case_study": section.get("case_study", False),
        "question_count": section.get("question_count"),
        "minutes": section.get("minutes"),
        "locks": section.get("locks", False),
    }


def _case_study_slugs(exam: dict[str, Any], base: str, problems: list[Problem]) -> list[str]:
    """The slugs of an exam's case studies; a slug used twice is a problem."""
    places: dict[str, str] = {}
    for c, case in _items(exam.get("case_studies")):
        slug = case.get("slug")
        if not isinstance(slug, str):
            continue
        if slug in places:
            problems.append(
                Problem(
                    f"{base}.case_studies[{c}].slug",
                    f"case study slug {slug!r} is used twice in this exam (also {places[slug]})",
                )
            )
        else:
            places[slug] = f"{base}.case_studies[{c}]"
    return list(places)


def _item_problems(question: dict[str, Any], base: str, version: int) -> list[Problem]:
    """The rules of the question's type (questions.item_rules: the admin's sentences), each
    at the field it is about; the arrays of other types; what version 1 did not have."""
    kind = question.get("kind")
    if not isinstance(kind, str) or kind not in KIND_FIELDS:
        return []  # the schema reports it
    problems: list[Problem] = []
    if version == 1:
        if kind not in CHOICE_KINDS:
            problems.append(
                Problem(f"{base}.kind", f"questions of type {kind!r} are {VERSION_2_ONLY}")
            )
        problems.extend(
            Problem(f"{base}.{name}", VERSION_2_ONLY)
            for name in VERSION_2_QUESTION_FIELDS
            if name in question
        )
    fields = KIND_FIELDS[kind]
    for name in ELEMENT_FIELDS:
        if name in question and name not in fields:
            takes = " and ".join(f'"{field}"' for field in fields)
            problems.append(
                Problem(f"{base}.{name}", f'{KIND_NAMES[kind]} takes {takes}, not "{name}"')
            )
    if question.get("reuse_answers") is True and kind != Kind.MATCHING:
        problems.append(
            Problem(f"{base}.reuse_answers", "only a matching question uses its answers again")
        )
    arrays = [question.get(name, []) for name in fields]
    arrays += [gap.get("choices", []) for gap in elements(question, "gaps")]
    if not all(
        isinstance(array, list) and all(isinstance(item, dict) for item in array)
        for array in arrays
    ):
        return problems  # the schema reports what is not an object
    options, parts = item_facts(question)
    exhibit, scoring = question.get("exhibit", ""), question.get("scoring", Scoring.ALL)
    for sentence in item_problems(
        kind,
        options,
        parts,
        exhibit=exhibit if isinstance(exhibit, str) else "",
        scoring=scoring if isinstance(scoring, str) else Scoring.ALL,
        reuse=question.get("reuse_answers") is True,
    ):
        if kind in CHOICE_KINDS and "options (this one has" in sentence and "options" in question:
            continue  # the schema's minItems/maxItems already says it
        problems.append(Problem(f"{base}.{_field_of(kind, sentence)}", sentence))
    for b, blank in enumerate(elements(question, "blanks") if kind == Kind.FILL_IN else []):
        problems.extend(_blank_problems(blank, f"{base}.blanks[{b}]"))
    for g, gap in enumerate(elements(question, "gaps") if kind == Kind.DROPDOWN else []):
        if is_typed_gap(gap):
            problems.extend(_blank_problems(gap, f"{base}.gaps[{g}]"))
    return problems


def _field_of(kind: str, sentence: str) -> str:
    """The field a sentence of questions.item_rules is about."""
    if sentence.startswith("the exhibit"):
        return "exhibit"
    if "partial credit" in sentence:
        return "scoring"
    if sentence.startswith(("a matching's pool", "the pool")):
        return "pool"
    return KIND_FIELDS[kind][-1]


def _blank_problems(blank: dict[str, Any], base: str) -> list[Problem]:
    """What a blank's fields say against each other, beyond the rules of every fill-in."""
    problems: list[Problem] = []
    numeric = is_number(blank.get("number"))
    numbers = [(f"{base}.{name}", blank.get(name)) for name in ("number", "tolerance")]
    for r, item in enumerate(elements(blank, "more_numbers")):
        numbers += [(f"{base}.more_numbers[{r}].{n}", item.get(n)) for n in ("number", "tolerance")]
    for where, given in numbers:
        value = decimal(given)
        if value is None:
            continue
        if abs(value) >= Decimal(10) ** NUMBER_DIGITS:
            problems.append(Problem(where, f"use at most {NUMBER_DIGITS} digits before the point"))
        elif value != value.quantize(Decimal(10) ** -NUMBER_DECIMALS):
            problems.append(Problem(where, f"use at most {NUMBER_DECIMALS} decimal places"))
    wrong_side = {
        True: {
            "match_case": "case and spaces rules are for accepted texts",
            "ignore_spaces": "case and spaces rules are for accepted texts",
            "wildcards": "wildcards are for accepted texts",
        },
        False: {
            "tolerance": "a tolerance and units are for a number",
            "units": "a tolerance and units are for a number",
            "more_numbers": "other right numbers go with a number",
        },
    }[numeric]
    takes = "this blank takes a number" if numeric else "this blank takes texts"
    for name, rule in wrong_side.items():
        if name in blank:
            problems.append(Problem(f"{base}.{name}", f"{rule}: {takes}"))
    units = [unit for unit in blank.get("units", []) if isinstance(unit, str)]
    if len(", ".join(units)) > 200:
        problems.append(Problem(f"{base}.units", "the units take at most 200 characters together"))
    part = KeyPart(
        key="",
        accepted=tuple(blank.get("accepted", [])) if not numeric else (),
        match_case=blank.get("match_case") is True,
        ignore_spaces=blank.get("ignore_spaces") is True,
        wildcards=blank.get("wildcards") is True,
        number=decimal(blank.get("number")),
        tolerance=decimal(blank.get("tolerance", 0)) or Decimal(0),
        more_numbers=more_number_pairs(blank),
        units=tuple(units),
    )
    for f, item in enumerate(elements(blank, "feedback")):
        answer = item.get("answer")
        if not isinstance(answer, str):
            continue
        where = f"{base}.feedback[{f}].answer"
        if numeric:
            value = parse_number(answer, part.units)
            if value is None:
                problems.append(
                    Problem(
                        where,
                        f"{answer!r} is not a number in this blank's units: "
                        "no answer would get this feedback",
                    )
                )
            elif part.number is not None and part.is_right_number(value):
                problems.append(
                    Problem(where, f"{answer!r} is right: feedback here is for wrong answers")
                )
        elif any(text_matches(part, answer, accepted) for accepted in part.accepted):
            problems.append(
                Problem(where, f"{answer!r} is accepted: feedback here is for wrong answers")
            )
    return problems


def _publishable_problems(question: dict[str, Any], base: str) -> list[Problem]:
    """A published question needs its explanation and the rationale of every option, step,
    prompt, statement, blank, gap and drop-down choice. Drafts and questions in review may
    leave them empty: imports from formats without feedback land in review with the gaps for
    a curator to fill before publishing."""
    if question.get("status", "published") != "published":
        return []
    problems: list[Problem] = []
    if question.get("explanation") == "":
        problems.append(Problem(f"{base}.explanation", "a published question needs an explanation"))
    for name, noun in ELEMENT_NOUNS.items():
        for i, element in _items(question.get(name)):
            if element.get("rationale") == "":
                problems.append(
                    Problem(
                        f"{base}.{name}[{i}].rationale",
                        f"a published question needs a rationale for every {noun}",
                    )
                )
    for g, gap in _items(question.get("gaps")):
        for c, choice in _items(gap.get("choices")):
            if choice.get("rationale") == "":
                problems.append(
                    Problem(
                        f"{base}.gaps[{g}].choices[{c}].rationale",
                        "a published question needs a rationale for every choice",
                    )
                )
    return problems


def _list_problems(question: dict[str, Any], base: str) -> list[Problem]:
    problems: list[Problem] = []
    for name in ("tags", "related"):
        values = question.get(name)
        if isinstance(values, list):
            counts = Counter(value for value in values if isinstance(value, str))
            problems.extend(
                Problem(f"{base}.{name}", f"lists {value!r} {count} times")
                for value, count in counts.items()
                if count > 1
            )
    return problems


def referenced_uids(documents: Iterable[Document]) -> set[str]:
    uids: set[str] = set()
    for document in documents:
        for _, exam in _items(document.get("exams")):
            for _, question in _items(exam.get("questions")):
                if isinstance(question.get("related"), list):
                    uids.update(value for value in question["related"] if isinstance(value, str))
                if isinstance(question.get("uid"), str):
                    uids.add(question["uid"])
    return uids


def check_documents(documents: Sequence[Document]) -> list[list[Problem]]:
    """Every problem of each document (one list per document, in order). One query: which of
    the related uids that the documents name already exist in the bank."""
    named = referenced_uids(documents)
    known = set(Question.objects.filter(uid__in=named).values_list("uid", flat=True))
    known |= named_uids(documents)
    results = []
    for document in documents:
        problems = schema_problems(document) + rule_problems(document, known)
        problems += [Problem(path, message) for path, message in document_images(document)[1]]
        results.append(sorted(_naming_questions(document, problems), key=_path_order))
    return results


_IN_QUESTION = re.compile(r"^exams\[(\d+)\]\.questions\[(\d+)\]")


def _naming_questions(document: Document, problems: list[Problem]) -> list[Problem]:
    """The problems, each inside a question naming the question's uid."""
    named = []
    for problem in problems:
        match = _IN_QUESTION.match(problem.path)
        uid = _uid_at(document, int(match.group(1)), int(match.group(2))) if match else ""
        named.append(Problem(problem.path, problem.message, uid) if uid else problem)
    return named


def _uid_at(document: Document, exam: int, question: int) -> str:
    try:
        uid = document["exams"][exam]["questions"][question]["uid"]
    except (KeyError, IndexError, TypeError):
        return ""
    return uid if isinstance(uid, str) else ""


def _path_order(problem: Problem) -> list[tuple[int, int | str]]:
    """Sort key putting exams[2] before exams[10] and a parent before its children."""
    parts = re.findall(r"[^.\[\]]+", problem.path)
    return [(0, int(part)) if part.isdigit() else (1, part) for part in parts]


def named_uids(documents: Iterable[Document]) -> set[str]:
    return {
        question["uid"]
        for document in documents
        for _, exam in _items(document.get("exams"))
        for _, question in _items(exam.get("questions"))
        if isinstance(question.get("uid"), str)
    }
