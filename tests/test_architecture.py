"""The shape of the code, checked: the learner model stays plain Python.

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
