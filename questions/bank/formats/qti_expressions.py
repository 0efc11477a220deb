"""QTI's template processing (2.1 `templateProcessing`, 3.0 `qti-template-processing`) run
once, by an evaluator of our own over the item's XML: a safe subset of QTI's expression
language, deterministic for a given seed. Nothing in a file is ever executed: each element
is looked up in the tables below, and one that is not there (a custom operator, an
operator we do not read) refuses the item with its name, never a guess.

Everything is bounded: the steps of one run (over all its draws), the depth of nesting,
the size of a container, the magnitude of a number (integers within ±10^15, floats finite
and within ±10^100), the draws a `templateConstraint` may ask for. What falls outside
refuses the item with the reason (`TemplateError`).

Values are Python's: `int`, `float`, `bool`, `str` (string, identifier, pair...), a
`Container` of them, or None for QTI's NULL. Where QTI defines a NULL result (a division by
zero, a function outside its domain, a NULL operand), the result is NULL."""

import math
import random
from collections import Counter
from collections.abc import Callable
from xml.etree.ElementTree import Element

from questions.bank.formats.qti_names import attribute, name_of
from questions.bank.formats.qti_values import (
    MATH_FUNCTIONS,
    MAX_DEPTH,
    MAX_DRAWS,
    MAX_ITEMS,
    MAX_STEPS,
    MAX_TEXT,
    STATS_FUNCTIONS,
    Container,
    Declaration,
    Exit,
    Retry,
    Single,
    State,
    TemplateError,
    Value,
    checked,
    coerce,
    flat,
    integers_of,
    is_number,
    numbers_of,
    parse_value,
    round_to,
    same,
    total,
)


def run(
    root: Element, known: dict[str, Declaration], responses: dict[str, Value], key: str
) -> State:
    """The template processing run with a seed of `key` until its constraints hold.
    `responses` are the correct responses the item declares (the `correct` expression)."""
    # Not a secret: a draw that importing the same file again repeats.
    rng = random.Random(f"qti-template\x1f{key}")  # noqa: S311
    evaluator = _Evaluator(rng, known)
    processing = [child for child in root if name_of(child) == "templateProcessing"]
    for draw in range(1, MAX_DRAWS + 1):
        state = State({name: d.default for name, d in known.items()}, dict(responses))
        state.draws = draw
        evaluator.state = state
        try:
            for block in processing:
                evaluator.rules(list(block), 0)
        except Retry:
            continue
        except Exit:
            pass
        return state
    raise TemplateError(f"its template constraints did not hold in {MAX_DRAWS} draws")


class _Evaluator:
    def __init__(self, rng: random.Random, known: dict[str, Declaration]) -> None:
        self.rng = rng
        self.known = known
        self.steps = 0
        self.state = State({})

    # Rules ---------------------------------------------------------------------------

    def rules(self, rules: list[Element], depth: int) -> None:
        for rule in rules:
            self.rule(rule, depth + 1)

    def rule(self, rule: Element, depth: int) -> None:
        self._step(depth)
        kind = name_of(rule)
        identifier = attribute(rule, "identifier").strip()
        if kind in ("setTemplateValue", "setCorrectResponse", "setDefaultValue"):
            value = self.value(self._only(rule, kind), depth)
            if kind == "setTemplateValue":
                if identifier not in self.known:
                    raise TemplateError(f"it sets {identifier!r}, which is no template variable")
                where = f"its template processing ({kind})"
                self.state.variables[identifier] = coerce(value, self.known[identifier], where)
            elif kind == "setCorrectResponse":
                self.state.correct[identifier] = value
            else:
                self.state.defaults[identifier] = value
        elif kind == "templateCondition":
            self._condition(rule, depth)
        elif kind == "templateConstraint":
            if self.value(self._only(rule, kind), depth) is not True:
                raise Retry
        elif kind == "exitTemplate":
            raise Exit
        else:
            raise TemplateError(f"its template processing has <{kind}>, which is not read here")

    def _condition(self, rule: Element, depth: int) -> None:
        for branch in rule:
            kind = name_of(branch)
            if kind == "templateElse":
                self.rules(list(branch), depth)
                return
            if kind not in ("templateIf", "templateElseIf") or len(branch) == 0:
                raise TemplateError(f"a template condition has <{kind}>, which is not read here")
            if self.value(branch[0], depth) is True:
                self.rules(list(branch)[1:], depth)
                return

    @staticmethod
    def _only(rule: Element, kind: str) -> Element:
        if len(rule) != 1:
            raise TemplateError(f"{kind} takes one expression, not {len(rule)}")
        return rule[0]

    def _step(self, depth: int) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise TemplateError(f"its template processing takes over {MAX_STEPS} steps")
        if depth > MAX_DEPTH:
            raise TemplateError(f"its template processing nests deeper than {MAX_DEPTH}")

    # Expressions ---------------------------------------------------------------------

    def value(self, element: Element, depth: int) -> Value:
        self._step(depth)
        kind = name_of(element)
        if kind == "customOperator":
            raise TemplateError(
                f"it computes with a custom operator ({attribute(element, 'class') or 'unnamed'}),"
                " which we do not run"
            )
        method = _EXPRESSIONS.get(kind)
        if method is None:
            raise TemplateError(f"its template processing has <{kind}>, which is not read here")
        result = method(self, element, depth + 1)
        if isinstance(result, Container) and len(result.items) > MAX_ITEMS:
            raise TemplateError(f"a container holds over {MAX_ITEMS} values")
        if isinstance(result, str) and len(result) > MAX_TEXT:
            raise TemplateError(f"a value is over {MAX_TEXT} characters")
        return checked(result)

    def _operands(self, element: Element, depth: int) -> list[Value]:
        return [self.value(child, depth) for child in element]

    def _pair(self, element: Element, depth: int) -> tuple[Value, Value]:
        if len(element) != 2:
            raise TemplateError(f"<{name_of(element)}> takes two expressions, not {len(element)}")
        return self.value(element[0], depth), self.value(element[1], depth)

    def number_attribute(self, element: Element, name: str, default: float | None) -> float:
        """An attribute that is a number or names a template variable holding one."""
        text = attribute(element, name).strip()
        if not text:
            if default is None:
                raise TemplateError(f"<{name_of(element)}> has no {name}")
            return default
        try:
            return float(checked(float(text)))  # type: ignore[arg-type]
        except ValueError:
            pass
        value = self.state.variables.get(text.strip("{}"))
        if not is_number(value):
            raise TemplateError(f"the {name} of <{name_of(element)}>, {text[:40]!r}, is no number")
        return float(value)  # type: ignore[arg-type]

    def integer_attribute(self, element: Element, name: str, default: int | None) -> int:
        number = self.number_attribute(element, name, default)
        if not number.is_integer():
            raise TemplateError(f"the {name} of <{name_of(element)}> is not an integer")
        return int(number)

    def base_value(self, element: Element, depth: int) -> Value:
        return parse_value(element.text or "", attribute(element, "baseType").strip())

    def variable(self, element: Element, depth: int) -> Value:
        identifier = attribute(element, "identifier").strip()
        if identifier not in self.state.variables:
            raise TemplateError(f"it refers to {identifier!r}, which is no template variable")
        return self.state.variables[identifier]

    def correct(self, element: Element, depth: int) -> Value:
        return self.state.correct.get(attribute(element, "identifier").strip())

    def default(self, element: Element, depth: int) -> Value:
        identifier = attribute(element, "identifier").strip()
        if identifier in self.state.defaults:
            return self.state.defaults[identifier]
        known = self.known.get(identifier)
        return known.default if known else None

    def null(self, element: Element, depth: int) -> Value:
        return None

    def container(self, element: Element, depth: int) -> Value:
        items = flat(self._operands(element, depth))
        return Container(name_of(element) == "ordered", tuple(items))

    def repeat(self, element: Element, depth: int) -> Value:
        times = self.integer_attribute(element, "numberRepeats", None)
        if times > MAX_ITEMS:
            raise TemplateError(f"repeat asks for {times} repeats, over {MAX_ITEMS}")
        items: list[Single] = []
        for _ in range(max(times, 0)):
            items.extend(flat(self._operands(element, depth)))
            if len(items) > MAX_ITEMS:
                raise TemplateError(f"a container holds over {MAX_ITEMS} values")
        return Container(True, tuple(items))

    def random_integer(self, element: Element, depth: int) -> Value:
        low = self.integer_attribute(element, "min", 0)
        high = self.integer_attribute(element, "max", None)
        step = self.integer_attribute(element, "step", 1)
        if high < low or step < 1:
            raise TemplateError(f"randomInteger from {low} to {high} in steps of {step} is empty")
        return low + step * self.rng.randrange((high - low) // step + 1)

    def random_float(self, element: Element, depth: int) -> Value:
        low = self.number_attribute(element, "min", 0)
        high = self.number_attribute(element, "max", None)
        if high < low:
            raise TemplateError(f"randomFloat from {low:g} to {high:g} is empty")
        return low + self.rng.random() * (high - low)

    def random(self, element: Element, depth: int) -> Value:
        (value,) = self._operands(element, depth) or [None]
        if not isinstance(value, Container):
            return value
        return value.items[self.rng.randrange(len(value.items))] if value.items else None

    def arithmetic(self, element: Element, depth: int) -> Value:
        kind = name_of(element)
        numbers = numbers_of(self._operands(element, depth), kind)
        if numbers is None:
            return None
        if kind == "sum":
            return total(numbers, 0, lambda a, b: a + b)
        if kind == "product":
            return total(numbers, 1, lambda a, b: a * b)
        if len(numbers) != 2:
            raise TemplateError(f"<{kind}> takes two numbers")
        left, right = numbers
        if kind == "subtract":
            return left - right
        if kind == "divide":
            return None if right == 0 else left / right
        # power: a float, as QTI has it; math.pow raises on overflow rather than building
        # a huge integer, and never makes a complex number.
        try:
            return math.pow(left, right)
        except OverflowError:
            raise TemplateError(f"power({left:g}, {right:g}) is too large") from None
        except (ValueError, ZeroDivisionError):
            return None

    def integer_operation(self, element: Element, depth: int) -> Value:
        kind = name_of(element)
        numbers = integers_of(self._operands(element, depth), kind)
        if numbers is None:
            return None
        if kind == "gcd":
            return math.gcd(*numbers)
        if kind == "lcm":
            return 0 if 0 in numbers else math.lcm(*numbers)
        if len(numbers) != 2:
            raise TemplateError(f"<{kind}> takes two integers")
        left, right = numbers
        if right == 0:
            return None
        return left // right if kind == "integerDivide" else left % right

    def one_number(self, element: Element, depth: int) -> Value:
        kind = name_of(element)
        numbers = numbers_of(self._operands(element, depth), kind)
        if numbers is None:
            return None
        if len(numbers) != 1:
            raise TemplateError(f"<{kind}> takes one number")
        (number,) = numbers
        if kind == "truncate":
            return math.trunc(number)
        if kind == "round":
            return math.floor(number + 0.5)
        if kind == "integerToFloat":
            return float(number)
        if kind == "roundTo":
            figures = self.integer_attribute(element, "figures", None)
            mode = attribute(element, "roundingMode", "significantFigures").strip()
            return round_to(float(number), figures, mode)
        name = attribute(element, "name").strip()
        function = MATH_FUNCTIONS.get(name)
        if function is None:
            raise TemplateError(f"mathOperator {name!r} is not read here")
        try:
            return function(number)
        except (ValueError, ZeroDivisionError, OverflowError):
            return None

    def math_operator(self, element: Element, depth: int) -> Value:
        name = attribute(element, "name").strip()
        if name == "atan2":
            numbers = numbers_of(self._operands(element, depth), "atan2")
            if numbers is None:
                return None
            if len(numbers) != 2:
                raise TemplateError("mathOperator atan2 takes two numbers")
            return math.atan2(*numbers)
        return self.one_number(element, depth)

    def math_constant(self, element: Element, depth: int) -> Value:
        name = attribute(element, "name").strip()
        if name not in ("pi", "e"):
            raise TemplateError(f"mathConstant {name!r} is not read here")
        return math.pi if name == "pi" else math.e

    def stats(self, element: Element, depth: int) -> Value:
        name = attribute(element, "name").strip()
        if name not in STATS_FUNCTIONS:
            raise TemplateError(f"statsOperator {name!r} is not read here")
        numbers = numbers_of(self._operands(element, depth), "statsOperator")
        function, least = STATS_FUNCTIONS[name]
        if numbers is None or len(numbers) < least:
            return None
        return float(function([float(n) for n in numbers]))

    def extreme(self, element: Element, depth: int) -> Value:
        numbers = numbers_of(self._operands(element, depth), name_of(element))
        if not numbers:
            return None
        return (max if name_of(element) == "max" else min)(numbers)

    def compare(self, element: Element, depth: int) -> Value:
        kind = name_of(element)
        left, right = self._pair(element, depth)
        if left is None or right is None:
            return None
        if not (is_number(left) and is_number(right)):
            raise TemplateError(f"<{kind}> compares numbers")
        return {
            "gt": left > right,  # type: ignore[operator]
            "gte": left >= right,  # type: ignore[operator]
            "lt": left < right,  # type: ignore[operator]
            "lte": left <= right,  # type: ignore[operator]
        }[kind]

    def equal(self, element: Element, depth: int) -> Value:
        left, right = self._pair(element, depth)
        if left is None or right is None:
            return None
        if not (is_number(left) and is_number(right)):
            raise TemplateError("<equal> compares numbers")
        low, high = self.bounds(element, float(right))  # type: ignore[arg-type]
        lower = attribute(element, "includeLowerBound", "true") != "false"
        upper = attribute(element, "includeUpperBound", "true") != "false"
        x = float(left)  # type: ignore[arg-type]
        return (low <= x if lower else low < x) and (x <= high if upper else x < high)

    def bounds(self, element: Element, right: float) -> tuple[float, float]:
        """The range `equal` accepts around `right` (its tolerance mode and tolerances)."""
        mode = attribute(element, "toleranceMode", "exact").strip()
        if mode == "exact":
            return right, right
        parts = attribute(element, "tolerance").split()
        if not 1 <= len(parts) <= 2:
            raise TemplateError("an equal with a tolerance has one or two tolerances")
        tolerances = []
        for part in parts:
            holder = Element("t", {"t": part})
            tolerances.append(abs(self.number_attribute(holder, "t", None)))
        below, above = tolerances[0], tolerances[-1]
        if mode == "absolute":
            return right - below, right + above
        if mode == "relative":
            return right * (1 - below / 100), right * (1 + above / 100)
        raise TemplateError(f"the tolerance mode {mode!r} is not QTI's")

    def equal_rounded(self, element: Element, depth: int) -> Value:
        left, right = self._pair(element, depth)
        if left is None or right is None:
            return None
        if not (is_number(left) and is_number(right)):
            raise TemplateError("<equalRounded> compares numbers")
        figures = self.integer_attribute(element, "figures", None)
        mode = attribute(element, "roundingMode", "significantFigures").strip()
        return round_to(float(left), figures, mode) == round_to(float(right), figures, mode)  # type: ignore[arg-type]

    def match(self, element: Element, depth: int) -> Value:
        left, right = self._pair(element, depth)
        if left is None or right is None:
            return None
        return same(left, right)

    def string_match(self, element: Element, depth: int) -> Value:
        left, right = self._pair(element, depth)
        if left is None or right is None:
            return None
        if not (isinstance(left, str) and isinstance(right, str)):
            raise TemplateError("<stringMatch> compares texts")
        if attribute(element, "caseSensitive", "true") == "false":
            left, right = left.casefold(), right.casefold()
        if attribute(element, "substring") == "true":
            return left in right
        return left == right

    def logic(self, element: Element, depth: int) -> Value:
        kind = name_of(element)
        values = self._operands(element, depth)
        if any(value is not None and not isinstance(value, bool) for value in values):
            raise TemplateError(f"<{kind}> takes true or false")
        if kind == "not":
            if len(values) != 1:
                raise TemplateError("<not> takes one expression")
            return None if values[0] is None else not values[0]
        decisive = kind == "or"  # a true decides an or, a false an and
        if decisive in values:
            return decisive
        return None if None in values else not decisive

    def is_null(self, element: Element, depth: int) -> Value:
        (value,) = self._operands(element, depth) or [None]
        return value is None or value == "" or (isinstance(value, Container) and not value.items)

    def container_size(self, element: Element, depth: int) -> Value:
        (value,) = self._operands(element, depth) or [None]
        return len(value.items) if isinstance(value, Container) else 0

    def index(self, element: Element, depth: int) -> Value:
        (value,) = self._operands(element, depth) or [None]
        place = self.integer_attribute(element, "n", None)
        if not isinstance(value, Container):
            return None
        return value.items[place - 1] if 1 <= place <= len(value.items) else None

    def member(self, element: Element, depth: int) -> Value:
        item, container = self._pair(element, depth)
        if item is None or container is None:
            return None
        return isinstance(container, Container) and item in container.items

    def delete(self, element: Element, depth: int) -> Value:
        item, container = self._pair(element, depth)
        if item is None or not isinstance(container, Container):
            return None
        return Container(container.ordered, tuple(x for x in container.items if x != item))

    def contains(self, element: Element, depth: int) -> Value:
        outer, inner = self._pair(element, depth)
        if not isinstance(outer, Container) or not isinstance(inner, Container):
            return None
        if outer.ordered:
            size = len(inner.items)
            return any(
                outer.items[i : i + size] == inner.items for i in range(len(outer.items) - size + 1)
            )
        return not Counter(inner.items) - Counter(outer.items)


_EXPRESSIONS: dict[str, Callable[[_Evaluator, Element, int], Value]] = {
    "baseValue": _Evaluator.base_value,
    "variable": _Evaluator.variable,
    "correct": _Evaluator.correct,
    "default": _Evaluator.default,
    "null": _Evaluator.null,
    "multiple": _Evaluator.container,
    "ordered": _Evaluator.container,
    "repeat": _Evaluator.repeat,
    "randomInteger": _Evaluator.random_integer,
    "randomFloat": _Evaluator.random_float,
    "random": _Evaluator.random,
    "sum": _Evaluator.arithmetic,
    "product": _Evaluator.arithmetic,
    "subtract": _Evaluator.arithmetic,
    "divide": _Evaluator.arithmetic,
    "power": _Evaluator.arithmetic,
    "integerDivide": _Evaluator.integer_operation,
    "integerModulus": _Evaluator.integer_operation,
    "gcd": _Evaluator.integer_operation,
    "lcm": _Evaluator.integer_operation,
    "truncate": _Evaluator.one_number,
    "round": _Evaluator.one_number,
    "roundTo": _Evaluator.one_number,
    "integerToFloat": _Evaluator.one_number,
    "mathOperator": _Evaluator.math_operator,
    "mathConstant": _Evaluator.math_constant,
    "statsOperator": _Evaluator.stats,
    "min": _Evaluator.extreme,
    "max": _Evaluator.extreme,
    "gt": _Evaluator.compare,
    "gte": _Evaluator.compare,
    "lt": _Evaluator.compare,
    "lte": _Evaluator.compare,
    "equal": _Evaluator.equal,
    "equalRounded": _Evaluator.equal_rounded,
    "match": _Evaluator.match,
    "stringMatch": _Evaluator.string_match,
    "and": _Evaluator.logic,
    "or": _Evaluator.logic,
    "not": _Evaluator.logic,
    "isNull": _Evaluator.is_null,
    "containerSize": _Evaluator.container_size,
    "index": _Evaluator.index,
    "member": _Evaluator.member,
    "delete": _Evaluator.delete,
    "contains": _Evaluator.contains,
}


def _with(state: State, known: dict[str, Declaration]) -> "_Evaluator":
    evaluator = _Evaluator(random.Random(0), known)  # noqa: S311 - no draw is made with it
    evaluator.state = state
    return evaluator


def evaluate(element: Element, state: State, known: dict[str, Declaration]) -> Value:
    """An expression of the response processing evaluated with one draw's values (a key
    read from it); TemplateError when it needs anything else (a response, an outcome)."""
    return _with(state, known).value(element, 0)


def bounds(
    element: Element, right: float, state: State, known: dict[str, Declaration]
) -> tuple[float, float]:
    """The range an `equal` (its tolerance mode and tolerances) accepts around `right`."""
    return _with(state, known).bounds(element, right)
