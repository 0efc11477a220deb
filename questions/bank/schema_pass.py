"""A quick yes to "does this document satisfy the JSON schema?", for the common case.

jsonschema walks a document keyword by keyword through its generic machinery: for a bank of
10,000 questions that is 2 to 3 s, a fifth of an import, to find, nearly always, that there
is nothing to report. `compile_passes` turns a schema into a plain Python predicate that
answers True only when jsonschema would report no error; on False the caller runs jsonschema
for its messages. So the predicate may say False when in doubt (a float where an integer is
expected, a keyword it does not know: then it says False for every document), never True
wrongly: each keyword is tested as jsonschema tests it (the same `len`, comparisons and
format checker; a pattern as `ecma_search`, which bank_checks gives jsonschema too).
"""

import numbers
import re
from collections.abc import Callable, Mapping
from typing import Any

from jsonschema import FormatChecker

Check = Callable[[Any], bool]

# Keywords jsonschema's 2020-12 validator does not check (annotations).
_ANNOTATIONS = frozenset(
    {"$schema", "$comment", "title", "description", "default", "examples", "contentEncoding"}
)
_TYPES: dict[str, Check] = {
    "object": lambda value: isinstance(value, dict),
    "array": lambda value: isinstance(value, list),
    "string": lambda value: isinstance(value, str),
    "boolean": lambda value: isinstance(value, bool),
    # Stricter than jsonschema (which takes 1.0 as an integer, a Decimal as a number): when
    # in doubt, say no.
    "integer": lambda value: type(value) is int,
    "number": lambda value: type(value) in (int, float),
    "null": lambda value: value is None,
}


class Unsupported(Exception):
    """The schema uses something the predicate does not test."""


def compile_passes(schema: Mapping[str, Any], format_checker: FormatChecker | None) -> Check:
    """The predicate of `schema` (its $refs already inlined), or one that always says False
    when the schema uses a keyword not known here."""
    try:
        return _compile(schema, format_checker)
    except Unsupported:
        return lambda document: False


def _compile(schema: Mapping[str, Any], formats: FormatChecker | None) -> Check:
    checks: list[Check] = []
    for keyword, value in schema.items():
        if keyword in _ANNOTATIONS:
            continue
        checks.append(_keyword(keyword, value, schema, formats))
    return lambda instance: all(check(instance) for check in checks)


def _keyword(
    keyword: str, value: Any, schema: Mapping[str, Any], formats: FormatChecker | None
) -> Check:
    if keyword == "type":
        names = [value] if isinstance(value, str) else value
        if not all(name in _TYPES for name in names):
            raise Unsupported(keyword)
        tests = [_TYPES[name] for name in names]
        return lambda instance: any(test(instance) for test in tests)
    if keyword in ("enum", "const"):
        allowed = list(value) if keyword == "enum" else [value]
        if any(isinstance(each, list | dict) for each in allowed):
            raise Unsupported(keyword)  # jsonschema compares their items its own way
        # The same type and value: jsonschema tells True from 1, so must this.
        return lambda instance: any(
            type(instance) is type(each) and instance == each for each in allowed
        )
    if keyword == "required":
        names = list(value)
        return lambda instance: (
            not isinstance(instance, dict) or all(name in instance for name in names)
        )
    if keyword == "properties":
        properties = {name: _compile(sub, formats) for name, sub in value.items()}
        # By the instance's fields, not the schema's: a question uses a dozen of its 26
        # (10,000 questions checked in 0.36 s rather than 0.38 s).
        return lambda instance: (
            not isinstance(instance, dict)
            or all(
                properties[name](field) for name, field in instance.items() if name in properties
            )
        )
    if keyword == "additionalProperties":
        if value is not False or "patternProperties" in schema:
            raise Unsupported(keyword)
        known = frozenset(schema.get("properties", {}))
        return lambda instance: not isinstance(instance, dict) or known.issuperset(instance)
    if keyword == "items":
        if not isinstance(value, Mapping) or "prefixItems" in schema:
            raise Unsupported(keyword)
        item = _compile(value, formats)
        return lambda instance: not isinstance(instance, list) or all(map(item, instance))
    if keyword in ("minItems", "maxItems"):
        return _bounded(list, len, keyword == "minItems", value)
    if keyword in ("minLength", "maxLength"):
        return _bounded(str, len, keyword == "minLength", value)
    if keyword in ("minimum", "maximum"):
        return _number(lambda number: number >= value if keyword == "minimum" else number <= value)
    if keyword == "exclusiveMinimum":
        return _number(lambda number: number > value)
    if keyword == "exclusiveMaximum":
        return _number(lambda number: number < value)
    if keyword == "pattern":
        search = ecma_search(value)
        return lambda instance: not isinstance(instance, str) or search(instance)
    if keyword == "format":
        # Without a format checker, jsonschema takes any format as it is.
        conforms = formats.conforms if formats else lambda instance, name: True
        return lambda instance: conforms(instance, value)
    raise Unsupported(keyword)


def _bounded(kind: type, size: Callable[[Any], int], at_least: bool, bound: int) -> Check:
    if at_least:
        return lambda instance: not isinstance(instance, kind) or size(instance) >= bound
    return lambda instance: not isinstance(instance, kind) or size(instance) <= bound


def _number(test: Callable[[Any], bool]) -> Check:
    def check(instance: Any) -> bool:
        if isinstance(instance, bool) or not isinstance(instance, numbers.Number):
            return True  # not a number: the bound does not apply ("type" tells)
        # Only an int or a float is compared; another number (a Decimal): no, to be safe.
        return type(instance) in (int, float) and test(instance)

    return check


def ecma_search(pattern: str) -> Callable[[str], bool]:
    """Whether a text matches `pattern` as JSON Schema reads it, an ECMA-262 regex: `$`
    outside a character class is the end of the text. Python's `$` also matches before a
    final newline, which let a uid "cmle-0001\\n" through: stored, published, and reached
    by no URL. Such a `$` becomes `\\Z`; the rest of the pattern is Python's as it is."""
    translated, index, in_class = [], 0, False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            translated.append(pattern[index : index + 2])
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "$":
            char = r"\Z"
        translated.append(char)
        index += 1
    search = re.compile("".join(translated)).search
    return lambda text: search(text) is not None
