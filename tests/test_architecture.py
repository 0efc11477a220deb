"""The shape of the code, checked: the learner model stays plain Python, no import cycle, the
rooms of both apps depend one way, `questions` never imports `progress`, the project's
library imports no app, no model is looked up by name, SQL text is written only where it is
named for, no room reads the tables of a room above it, and no test module imports another.

Imports are read from the source with `ast`, every one of them: at the top of a module, inside
a function (a lazy import) and under `if TYPE_CHECKING:`.
"""

import ast
import re
import sys
from pathlib import Path

import pytest
from django.apps import apps as registry
from django.db import models

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


# --- The project package and the bank's rooms --------------------------------------------


def test_the_projects_library_imports_no_app_and_the_rest_only_wires_them():
    """courseiva/lib/ holds plain helpers: no app. The rest of courseiva/ is wiring and
    site-wide endpoints: only the URL configuration names an app's module (settings name
    them as strings)."""
    offending = []
    for module, targets in import_graph().items():
        if not module.startswith("courseiva") or module == "courseiva.urls":
            continue
        offending += [
            f"{module} imports {target}"
            for target in targets
            if target.split(".")[0] in {"questions", "progress"}
        ]
    assert offending == []


# The bank's rooms and those each may import: media <- pages <- bank. Every room may use the
# centre (models.py, markup.py), which imports no room; the admin, its forms, the URLs, the
# commands and the template tags import any.
BANK_ROOMS_MAY_IMPORT = {
    "media": set(),
    "pages": {"media"},
    "bank": {"pages", "media"},
    "lint": set(),
}
BANK_CENTRE = {
    "questions.models",
    "questions.exams",
    "questions.choices",
    "questions.markup",
    "questions.grading",
    "questions.item_rules",
    "questions.case_studies",
}


def bank_room(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "questions" or len(parts) < 2 or parts[1] not in BANK_ROOMS_MAY_IMPORT:
        return None
    return parts[1]


def test_the_banks_rooms_depend_one_way():
    offending = []
    for module, targets in import_graph().items():
        here = bank_room(module)
        if here is None and module not in BANK_CENTRE:
            continue
        allowed = BANK_ROOMS_MAY_IMPORT.get(here or "", set())
        offending += [
            f"{module} imports {target}"
            for target in targets
            if (there := bank_room(target)) is not None and there != here and there not in allowed
        ]
    assert offending == []


# --- Look-ups and SQL text -----------------------------------------------------------------


def calls_named(tree: ast.AST, name: str) -> list[int]:
    """The lines where an attribute or a function of this name is called or read."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if (isinstance(node, ast.Attribute) and node.attr == name)
        or (isinstance(node, ast.Name) and node.id == name)
    ]


def test_no_model_is_looked_up_in_the_app_registry():
    """apps.get_model() outside migrations hides an import (and so a dependency the checks
    above cannot see): hand the data in, or move the code to the room that owns it."""
    offending = [
        f"{name}:{line}"
        for name, path in project_modules().items()
        for line in calls_named(ast.parse(path.read_text()), "get_model")
    ]
    assert offending == []


# A statement's first words, as SQL text starts (upper case, as this code writes it).
SQL_TEXT = re.compile(
    r"^\s*(SELECT|INSERT INTO|UPDATE|DELETE FROM|WITH)\s|\bON CONFLICT\b|\bRETURNING\b"
)


def sql_text(tree: ast.AST) -> list[int]:
    """The lines of string literals (f-strings' parts included) that are SQL text, and of
    `quote_name` and `cursor()`: docstrings left out (they may quote a statement)."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    lines = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
        and SQL_TEXT.search(node.value)
    ]
    return lines + calls_named(tree, "quote_name") + calls_named(tree, "cursor")


def named_for_queries(module: str) -> bool:
    """The SQL library, and the modules named for the queries they hold."""
    last = module.rsplit(".", 1)[-1]
    return module == "courseiva.lib.sql" or last in {"query", "queries"} or last.endswith("_query")


def test_the_sql_finder_finds_sql_text():
    found = ast.parse(
        '''"""A docstring may say INSERT INTO x ... ON CONFLICT."""
def f(t):
    """SELECT in a docstring is fine."""
    a = "plain words, nothing to see"
    b = f"SELECT id FROM {t}"
    c = "UPDATE x SET y = 1"
    d = connection.ops.quote_name("x")
    with connection.cursor() as e:
        pass
'''
    )
    assert sorted(set(sql_text(found))) == [5, 6, 7, 8]


def test_sql_text_is_written_only_in_the_sql_library_and_modules_named_for_queries():
    offending = [
        f"{name}:{line}"
        for name, path in project_modules().items()
        if not named_for_queries(name)
        for line in sorted(set(sql_text(ast.parse(path.read_text()))))
    ]
    assert offending == []


# --- Tables --------------------------------------------------------------------------------


def model_room(model: type[models.Model]) -> str | None:
    """The room of the learner side a model lives in, "questions" for the bank's, None for
    Django's and the libraries'."""
    top = model.__module__.split(".")[0]
    if top == "questions":
        return "questions"
    return room(model.__module__) if top == "progress" else None


def may_read(here: str, there: str) -> bool:
    """Whether code of room (or app) `here` may read the tables of `there`."""
    if here == "questions":
        return there == "questions"  # the bank never reads the learner side
    return there in {here, "accounts", "questions", *ROOMS_MAY_IMPORT.get(here, set())}


def reverse_lookups() -> dict[str, str]:
    """The names by which the ORM reaches a model's table from a model of a room below it
    (`question__attempts`, `Count("attempts")`), by the room of the table reached."""
    found = {}
    for model in registry.get_models():
        owner = model_room(model)
        if owner is None:
            continue
        for field in model._meta.get_fields():
            # The model's own foreign keys (not the reverse sides others give it).
            if not isinstance(field, models.ForeignObject | models.ManyToManyField):
                continue
            if not field.related_model:
                continue
            target = model_room(field.related_model)
            if target is None or target == owner or field.remote_field.related_name == "+":
                continue
            found[field.related_query_name()] = owner
    return found


# The ORM's calls whose string arguments or keywords are lookups.
LOOKUP_CALLS = {
    "filter", "exclude", "get", "annotate", "aggregate", "values", "values_list", "order_by",
    "select_related", "prefetch_related", "only", "defer", "Count", "Sum", "Max", "Min", "Avg",
    "Q", "F", "OuterRef", "Exists", "Prefetch",
}  # fmt: skip


def lookups_in(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, first part) of each lookup written in an ORM call of the module."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name not in LOOKUP_CALLS:
            continue
        words: list[object] = [k.arg for k in node.keywords if k.arg]
        words += [a.value for a in node.args if isinstance(a, ast.Constant)]
        found += [(node.lineno, w.split("__")[0]) for w in words if isinstance(w, str)]
    return found


def test_no_room_reads_the_tables_of_a_room_above_it():
    """By importing a model (test_rooms_depend_one_way), by naming its table in SQL text, or
    through the ORM's reverse relations from a model of its own (`attempts__...`)."""
    tables = {
        model._meta.db_table: model_room(model)
        for model in registry.get_models()
        if model_room(model) is not None
    }
    reverse = reverse_lookups()
    assert reverse["attempts"] == "practice"  # Attempt.question: the detector sees it
    offending = []
    for name, path in project_modules().items():
        here = "questions" if name.startswith("questions") else room(name)
        if here is None or here not in {*ROOMS_MAY_IMPORT, "questions"}:
            continue  # indexes, commands, shared modules: checked by their imports
        source = path.read_text()
        tree = ast.parse(source)
        for table, owner in tables.items():
            if owner and not may_read(here, owner) and re.search(rf"\b{table}\b", source):
                offending.append(f"{name} names the table {table} ({owner})")
        for line, word in lookups_in(tree):
            owner = reverse.get(word)
            if owner and not may_read(here, owner):
                offending.append(f"{name}:{line} reads {owner} through {word!r}")
    assert offending == []


@pytest.mark.parametrize(
    ("here", "there", "allowed"),
    [
        ("readiness", "practice", False),
        ("practice", "readiness", True),
        ("questions", "practice", False),
        ("practice", "questions", True),
        ("cohorts", "mocks", True),
        ("accounts", "readiness", False),
    ],
)
def test_which_room_may_read_which_tables(here, there, allowed):
    assert may_read(here, there) is allowed


def imported_test_modules(path: Path) -> set[str]:
    """The test modules (tests/**/test_*.py) that the module at `path` imports."""
    tests = ROOT / "tests"
    test_modules = {module_name(found) for found in tests.rglob("test_*.py")}
    return imported_names(path, module_name(path)) & test_modules


def test_the_test_import_finder_finds_a_lazy_one(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("def helper(): ...\n")
    importer = tmp_path / "tests" / "test_b.py"
    importer.write_text("def test_b():\n    from tests.test_a import helper\n")
    assert imported_test_modules(importer) == {"tests.test_a"}


def test_no_test_module_imports_another():
    """A helper that two test modules share lives in a module named for what it does
    (tests/admin_forms.py, tests/items.py, ...), not in whichever test needed it first."""
    offending = {
        module_name(path): sorted(found)
        for path in sorted((ROOT / "tests").rglob("*.py"))
        if (found := imported_test_modules(path))
    }
    assert offending == {}
