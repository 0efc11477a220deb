"""Moodle's calculated formulas (`{a} * sqrt({b}) + pi()`) evaluated for given values, by an
evaluator of our own over Python's parse tree: number literals, + - * / % **, parentheses,
unary signs, `{name}` wildcards and Moodle's functions, nothing else. Never `eval`: a file
is someone else's text, and a formula that names anything outside this list (an attribute,
a name, a call of another function) is refused, as is one that overflows, divides by zero
or comes to a value that is not a finite number. Every step is a float, as in Moodle (PHP),
so that `9**9**9` overflows at once rather than building a huge integer."""

import ast
import math
import re
from collections.abc import Callable, Mapping
from decimal import ROUND_HALF_UP, Decimal

# A Moodle wildcard: `{` a letter, then anything but spaces, quotes and braces, `}`.
WILDCARD = re.compile(r"\{([A-Za-z][^\s{}<>\"'`]*)\}")
# Longer than any formula a person writes; short enough that parsing one costs nothing.
MAX_LENGTH = 1000
MAX_DEPTH = 30
MAX_NODES = 400
MAX_OPERATIONS = 200


class FormulaError(Exception):
    """Why a formula cannot be evaluated, in words for the import's report."""


def _flag(test: Callable[[float], bool]) -> Callable[[float], float]:
    return lambda value: 1.0 if test(value) else 0.0


def _round(value: float, places: float = 0) -> float:
    """PHP's round: halves away from zero, of the number as written (round(1.955, 2) is
    1.96), to `places` decimals (negative: tens, hundreds...)."""
    digits = int(places)
    if digits > 15:
        return value
    quantum = Decimal(1).scaleb(-digits)
    return float(Decimal(repr(value)).quantize(quantum, rounding=ROUND_HALF_UP))


def _log(value: float, base: float | None = None) -> float:
    return math.log(value) if base is None else math.log(value, base)


def _extreme(pick: Callable[..., float]) -> Callable[..., float]:
    return lambda *values: pick(values)


# Each function with the numbers of arguments it takes (as Moodle's formula check has them).
FUNCTIONS: dict[str, tuple[Callable[..., float], tuple[int, ...]]] = {
    "abs": (abs, (1,)),
    "acos": (math.acos, (1,)),
    "acosh": (math.acosh, (1,)),
    "asin": (math.asin, (1,)),
    "asinh": (math.asinh, (1,)),
    "atan": (math.atan, (1,)),
    "atanh": (math.atanh, (1,)),
    "atan2": (math.atan2, (2,)),
    "ceil": (lambda value: float(math.ceil(value)), (1,)),
    "cos": (math.cos, (1,)),
    "cosh": (math.cosh, (1,)),
    "deg2rad": (math.radians, (1,)),
    "exp": (math.exp, (1,)),
    "expm1": (math.expm1, (1,)),
    "floor": (lambda value: float(math.floor(value)), (1,)),
    "fmod": (math.fmod, (2,)),
    "is_finite": (_flag(math.isfinite), (1,)),
    "is_infinite": (_flag(math.isinf), (1,)),
    "is_nan": (_flag(math.isnan), (1,)),
    "log": (_log, (1, 2)),
    "log10": (math.log10, (1,)),
    "log1p": (math.log1p, (1,)),
    "max": (_extreme(max), ()),  # two or more
    "min": (_extreme(min), ()),
    "pi": (lambda: math.pi, (0,)),
    "pow": (math.pow, (2,)),
    "rad2deg": (math.degrees, (1,)),
    "round": (_round, (1, 2)),
    "sin": (math.sin, (1,)),
    "sinh": (math.sinh, (1,)),
    "sqrt": (math.sqrt, (1,)),
    "tan": (math.tan, (1,)),
    "tanh": (math.tanh, (1,)),
}


def _modulo(left: float, right: float) -> float:
    """PHP's %: both sides taken as integers (truncated), the sign the left one's."""
    if max(abs(left), abs(right)) >= 2**63:
        raise OverflowError
    dividend, divisor = int(left), int(right)
    if divisor == 0:
        raise ZeroDivisionError
    return math.fmod(dividend, divisor)


_OPERATORS: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: lambda left, right: left + right,
    ast.Sub: lambda left, right: left - right,
    ast.Mult: lambda left, right: left * right,
    ast.Div: lambda left, right: left / right,
    ast.Mod: _modulo,
    # math.pow: never a complex number ((-8) ** (1/3)), an OverflowError for 9 ** 9 ** 9.
    ast.Pow: math.pow,
}


def wildcards(formula: str) -> list[str]:
    """The wildcards a formula (or a text) names, each once, in order."""
    return list(dict.fromkeys(WILDCARD.findall(formula)))


def evaluate(formula: str, values: Mapping[str, float]) -> float:
    """The formula's value for the wildcards' `values`; FormulaError says why there is none."""
    if len(formula) > MAX_LENGTH:
        raise FormulaError(f"the formula is over {MAX_LENGTH} characters")
    if "_w" in WILDCARD.sub("", formula):
        raise FormulaError("_w is not allowed in a formula")
    names: dict[str, float] = {}
    labels: dict[str, str] = {}

    def placeholder(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            raise FormulaError(f"{{{name}}} is no data set's wildcard")
        key = f"_w{len(names)}"
        names[key] = values[name]
        labels[key] = name
        return f" {key} "

    source = WILDCARD.sub(placeholder, formula).strip()
    depth = deepest = 0
    for char in source:
        depth += char == "("
        depth -= char == ")"
        deepest = max(depth, deepest)
    if deepest > MAX_DEPTH:
        raise FormulaError(f"the formula nests brackets more than {MAX_DEPTH} deep")
    try:
        tree = ast.parse(source, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        raise FormulaError(f"{formula.strip()!r} is not a formula") from None
    if sum(1 for _ in ast.walk(tree)) > MAX_NODES:
        raise FormulaError(f"the formula has over {MAX_NODES} terms")
    try:
        result = _Evaluator(names).value(tree.body, 0)
    except FormulaError as error:
        # Said with the wildcards as the formula names them.
        raise FormulaError(
            re.sub(r"\b_w\d+\b", lambda match: f"{{{labels[match.group(0)]}}}", str(error))
        ) from None
    except ZeroDivisionError:
        raise FormulaError("the formula divides by zero") from None
    except OverflowError:
        raise FormulaError("the formula's value is too large (an overflow)") from None
    except ValueError:
        # math's functions raise it outside their domain (sqrt(-1), log(0), acos(2)).
        raise FormulaError("the formula takes a function outside its domain") from None
    return result


class _Evaluator:
    def __init__(self, names: Mapping[str, float]) -> None:
        self.names = names

    def value(self, node: ast.expr, depth: int) -> float:
        if depth > MAX_OPERATIONS:
            raise FormulaError(f"the formula nests more than {MAX_OPERATIONS} operations deep")
        result = self._value(node, depth + 1)
        if not math.isfinite(result):
            raise FormulaError("the formula's value is not a finite number")
        return result

    def _value(self, node: ast.expr, depth: int) -> float:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, int | float):
                raise FormulaError(f"{node.value!r} is not a number")
            return float(node.value)
        if isinstance(node, ast.Name) and node.id in self.names:
            return self.names[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            operand = self.value(node.operand, depth)
            return -operand if isinstance(node.op, ast.USub) else operand
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            left, right = self.value(node.left, depth), self.value(node.right, depth)
            return _OPERATORS[type(node.op)](left, right)
        if isinstance(node, ast.Call):
            return self._call(node, depth)
        raise FormulaError(f"{_shown(node)!r} is not allowed in a formula")

    def _call(self, node: ast.Call, depth: int) -> float:
        if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS:
            raise FormulaError(f"{_shown(node.func)!r} is not one of Moodle's functions")
        name = node.func.id
        function, counts = FUNCTIONS[name]
        if node.keywords or any(isinstance(arg, ast.Starred) for arg in node.args):
            raise FormulaError(f"{name}() takes plain arguments")
        if (counts and len(node.args) not in counts) or (not counts and len(node.args) < 2):
            wanted = " or ".join(map(str, counts)) if counts else "two or more"
            raise FormulaError(f"{name}() takes {wanted} argument(s), not {len(node.args)}")
        return float(function(*(self.value(arg, depth) for arg in node.args)))


def _shown(node: ast.AST) -> str:
    try:
        text = ast.unparse(node)
    except (ValueError, RecursionError):
        text = type(node).__name__
    return text if len(text) <= 40 else text[:40] + "…"
