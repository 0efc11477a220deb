"""The values of QTI's template processing, as Python's: `int`, `float`, `bool`, `str`
(string, identifier, pair...), a `Container` of them, or None for QTI's NULL; the template
variables' declarations, one draw's state, and what the evaluator (`qti_expressions`)
computes with: bounds on numbers, parsing, rounding, QTI's math and statistics functions."""

import math
import statistics
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from xml.etree.ElementTree import Element

from questions.bank.formats.qti_names import attribute, name_of

MAX_STEPS = 20_000
MAX_DEPTH = 40
MAX_DRAWS = 1000
MAX_ITEMS = 1000
MAX_TEXT = 10_000
MAX_INTEGER = 10**15
MAX_FLOAT = 1e100

Single = int | float | bool | str


@dataclass(frozen=True)
class Container:
    """A multiple (unordered) or ordered container's values."""

    ordered: bool
    items: tuple[Single, ...]


Value = Single | Container | None


class TemplateError(Exception):
    """Why the template processing cannot be run here, in words for the import's report."""


class Retry(Exception):
    """A template constraint does not hold: draw again."""


class Exit(Exception):
    """exitTemplate: the values are final as they are."""


@dataclass
class Declaration:
    identifier: str
    cardinality: str
    base_type: str
    default: Value = None
    math_variable: bool = False
    param_variable: bool = False


@dataclass
class State:
    """One draw's values: the template variables', the correct responses and defaults set."""

    variables: dict[str, Value]
    correct: dict[str, Value] = field(default_factory=dict)
    defaults: dict[str, Value] = field(default_factory=dict)
    draws: int = 1


def is_number(value: Value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def checked(value: Value) -> Value:
    """A number within our bounds, or TemplateError."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return value
    if isinstance(value, int):
        if abs(value) > MAX_INTEGER:
            raise TemplateError(f"a value comes to {value:.3g}, beyond ±10^15")
        return value
    if not math.isfinite(value) or abs(value) > MAX_FLOAT:
        raise TemplateError(f"a value comes to {value:g}, beyond what is read here (±10^100)")
    return value


def parse_value(text: str, base_type: str) -> Value:
    """A `baseValue` or `value` of the base type; TemplateError when it is not one."""
    text = text.strip() if base_type != "string" else text
    if len(text) > MAX_TEXT:
        raise TemplateError(f"a value is over {MAX_TEXT} characters")
    try:
        if base_type == "integer":
            return checked(int(text))
        if base_type == "float":
            return checked(float(text))
    except ValueError:
        raise TemplateError(f"{text[:40]!r} is not a {base_type}") from None
    if base_type == "boolean":
        if text.lower() in ("true", "1"):
            return True
        if text.lower() in ("false", "0"):
            return False
        raise TemplateError(f"{text[:40]!r} is not a boolean")
    if base_type in ("string", "identifier", "pair", "directedPair", "point", "uri"):
        return text if base_type == "string" else " ".join(text.split())
    raise TemplateError(f"values of base type {base_type!r} are not read here")


def coerce(value: Value, declaration: Declaration, where: str) -> Value:
    """A value set to a variable, as its declaration has it (an integer into a float...)."""
    name = declaration.identifier
    if value is None:
        return None
    container = declaration.cardinality in ("multiple", "ordered")
    items = value.items if isinstance(value, Container) else (value,)
    if isinstance(value, Container) and not container:
        raise TemplateError(f"{where} sets {name}, a single value, to a container")
    kind = declaration.base_type
    result: list[Single] = []
    for item in items:
        if kind == "float" and is_number(item):
            item = float(item)
        elif kind == "integer" and isinstance(item, float) and item.is_integer():
            item = int(item)
        if (
            (kind == "integer" and not (isinstance(item, int) and not isinstance(item, bool)))
            or (kind == "float" and not isinstance(item, float))
            or (kind == "boolean" and not isinstance(item, bool))
            or (kind in ("string", "identifier") and not isinstance(item, str))
        ):
            raise TemplateError(f"{where} sets {name}, of base type {kind}, to {item!r}")
        result.append(item)
    if container:
        return Container(declaration.cardinality == "ordered", tuple(result))
    return result[0]


def declarations(root: Element) -> dict[str, Declaration]:
    found: dict[str, Declaration] = {}
    for child in root:
        if name_of(child) != "templateDeclaration":
            continue
        identifier = attribute(child, "identifier").strip()
        cardinality = attribute(child, "cardinality", "single").strip()
        if cardinality not in ("single", "multiple", "ordered"):
            raise TemplateError(f"its template variable {identifier} is a {cardinality!r}")
        declaration = Declaration(
            identifier,
            cardinality,
            attribute(child, "baseType").strip(),
            math_variable=attribute(child, "mathVariable") == "true",
            param_variable=attribute(child, "paramVariable") == "true",
        )
        values = [
            parse_value(value.text or "", declaration.base_type)
            for default in child
            if name_of(default) == "defaultValue"
            for value in default
            if name_of(value) == "value"
        ]
        if values:
            packed: Value = Container(cardinality == "ordered", tuple(values))  # type: ignore[arg-type]
            declaration.default = coerce(
                packed if len(values) > 1 or cardinality != "single" else values[0],
                declaration,
                "its default value",
            )
        found[identifier] = declaration
    return found


def flat(values: list[Value]) -> list[Single]:
    items: list[Single] = []
    for value in values:
        if isinstance(value, Container):
            items.extend(value.items)
        elif value is not None:
            items.append(value)
    return items


def numbers_of(values: list[Value], what: str) -> list[int | float] | None:
    """The operands as numbers (containers flattened); None when one is NULL."""
    if any(value is None for value in values):
        return None
    items = flat(values)
    if not all(is_number(item) for item in items):
        raise TemplateError(f"{what} takes numbers")
    return items  # type: ignore[return-value]


def integers_of(values: list[Value], what: str) -> list[int] | None:
    numbers = numbers_of(values, what)
    if numbers is not None and not all(isinstance(n, int) for n in numbers):
        raise TemplateError(f"{what} takes integers")
    return numbers  # type: ignore[return-value]


def total(numbers: list[int | float], start: int | float, step: Callable) -> int | float:
    total = start
    for number in numbers:
        total = checked(step(total, number))  # type: ignore[assignment]
    return total


def round_to(value: float, figures: int, mode: str) -> float:
    """QTI's roundTo: to `figures` significant figures (or decimal places), halves up."""
    if value == 0:
        return 0.0
    if mode == "decimalPlaces":
        places = figures
    else:
        if figures < 1:
            raise TemplateError("roundTo takes at least one significant figure")
        places = figures - 1 - math.floor(math.log10(abs(value)))
    if not -20 <= places <= 20:
        return value
    try:
        exact = Decimal(repr(value)).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    except InvalidOperation:
        return value
    return float(exact)


def _trig(function: Callable[[float], float]) -> Callable[[float], float]:
    return lambda x: 1 / function(x)


MATH_FUNCTIONS: dict[str, Callable[..., int | float]] = {
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "sec": _trig(math.cos),
    "csc": _trig(math.sin),
    "cot": _trig(math.tan),
    "asin": math.asin,
    "acos": math.acos,
    "atan": math.atan,
    "atan2": math.atan2,
    "asec": lambda x: math.acos(1 / x),
    "acsc": lambda x: math.asin(1 / x),
    "acot": lambda x: math.atan(1 / x),
    "sinh": math.sinh,
    "cosh": math.cosh,
    "tanh": math.tanh,
    "sech": _trig(math.cosh),
    "csch": _trig(math.sinh),
    "coth": _trig(math.tanh),
    "log": math.log10,
    "ln": math.log,
    "exp": math.exp,
    "abs": abs,
    "signum": lambda x: (x > 0) - (x < 0),
    "floor": math.floor,
    "ceil": math.ceil,
    "toDegrees": math.degrees,
    "toRadians": math.radians,
}
STATS_FUNCTIONS: dict[str, tuple[Callable[[list[float]], float], int]] = {
    "mean": (statistics.fmean, 1),
    "sampleVariance": (statistics.variance, 2),
    "sampleSD": (statistics.stdev, 2),
    "popVariance": (statistics.pvariance, 1),
    "popSD": (statistics.pstdev, 1),
}


def same(left: Value, right: Value) -> bool:
    if isinstance(left, Container) and isinstance(right, Container):
        if left.ordered or right.ordered:
            return left.items == right.items
        return Counter(left.items) == Counter(right.items)
    if is_number(left) and is_number(right):
        return left == right
    return type(left) is type(right) and left == right
