"""The shape of the code, checked: the learner model stays plain Python, no import cycle, the
learner side's rooms depend one way, and `questions` never imports `progress`.

Imports are read from the source with `ast`, every one of them: at the top of a module, inside
a function (a lazy import) and under `if TYPE_CHECKING:`.
"""

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APPS = ("courseiva", "questions", "progress")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_modules() -> dict[str, Path]:
    """Every module of the apps (migrations left out: Django writes them)."""
    return {
        module_name(path): path
        for app in APPS
        for path in sorted((ROOT / app).rglob("*.py"))
        if "migrations" not in path.parts
    }


def imported_names(path: Path, module: str) -> set[str]:
    """The dotted names a module imports, relative imports resolved; for `from a import b`,
    both `a` and `a.b` (b may be a module or a name in a)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def test_the_engine_imports_nothing_but_the_standard_library_and_itself():
    engine = {
        name: path for name, path in project_modules().items() if name.startswith("progress.engine")
    }
    assert len(engine) >= 5
    offending = []
    for name, path in engine.items():
        for imported in imported_names(path, name):
            top = imported.split(".")[0]
            if imported.startswith("progress.engine") or top == "__future__":
                continue
            if top not in sys.stdlib_module_names:
                offending.append(f"{name} imports {imported}")
    assert offending == []


def import_graph() -> dict[str, set[str]]:
    """Module -> the project's modules it imports (a name imported from a module counts as
    the module; a module imported from a package, as that module)."""
    modules = project_modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        edges = set()
        for imported in imported_names(path, name):
            while imported and imported not in modules:
                imported = imported.rpartition(".")[0]
            if imported and imported != name:
                edges.add(imported)
        graph[name] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), plus modules that
    import themselves: every import cycle is inside one of them."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_cycle_finder_finds_a_lazy_cycle():
    # The detector itself: a cycle closed by an import inside a function is a cycle.
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_between_the_projects_modules():
    assert cycles(import_graph()) == []


def test_questions_never_imports_progress():
    graph = import_graph()
    offending = [
        f"{module} imports {target}"
        for module, targets in graph.items()
        if module.startswith("questions")
        for target in targets
        if target.startswith("progress")
    ]
    assert offending == []


# The rooms of the learner side and those each may import: engine <- readiness <- practice <-
# mocks; cohorts, the dashboard and the demo read them all; everyone may use accounts. The
# modules at the top of progress/ (charts, codes) import no room; the indexes (models, admin,
# urls, the schedule in tasks, apps) and the management commands import any.
ROOMS_MAY_IMPORT = {
    "engine": set(),
    "accounts": set(),
    "readiness": {"engine", "accounts"},
    "practice": {"readiness", "engine", "accounts"},
    "mocks": {"practice", "readiness", "engine", "accounts"},
    "cohorts": {"mocks", "practice", "readiness", "engine", "accounts"},
    "dashboard": {"cohorts", "mocks", "practice", "readiness", "engine", "accounts"},
    "demo": {"cohorts", "mocks", "practice", "readiness", "engine", "accounts"},
}


def room(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "progress" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in ROOMS_MAY_IMPORT else f"progress.{parts[1]}"


def test_rooms_depend_one_way():
    every_room = set(ROOMS_MAY_IMPORT)
    offending = []
    for module, targets in import_graph().items():
        here = room(module)
        if here is None or here in {"progress.models", "progress.admin", "progress.urls"}:
            continue
        if here in {"progress.apps", "progress.management", "progress.tasks"}:
            continue
        allowed = ROOMS_MAY_IMPORT.get(here, set())  # a shared module: no room at all
        for target in targets:
            there = room(target)
            if there in every_room and there != here and there not in allowed:
                offending.append(f"{module} imports {target}")
    assert offending == []


# Beyond this a module holds more than one thing: give it rooms. The learner model's engine is
# left out: its modules are one method each, long because the method is.
MAX_MODULE_LINES = 700


def test_no_module_of_the_apps_is_over_700_lines():
    long = {
        name: len(path.read_text().splitlines())
        for name, path in project_modules().items()
        if not name.startswith("progress.engine")
    }
    assert {name: lines for name, lines in long.items() if lines > MAX_MODULE_LINES} == {}
