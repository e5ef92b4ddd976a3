"""db imports stay in their layer: never app or distill, and from models only
paths, labels, errors and the entry points' shared helpers (models.cli)."""

import ast
from pathlib import Path

DB = Path(__file__).resolve().parents[1] / "db"
ALLOWED_FROM_MODELS = {"models.paths", "models.labels", "models.errors", "models.cli"}


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_db_imports_stay_in_their_layer():
    files = sorted(DB.rglob("*.py"))
    assert files
    for path in files:
        for name in _imports(path):
            top = name.split(".")[0]
            assert top not in ("app", "distill"), f"{path}: imports {name}"
            if top == "models":
                assert name in ALLOWED_FROM_MODELS, f"{path}: imports {name}"


def test_models_never_import_app_distill_or_db():
    files = sorted((DB.parent / "models").rglob("*.py"))
    assert files
    for path in files:
        for name in _imports(path):
            assert name.split(".")[0] not in ("app", "distill", "db"), f"{path}: imports {name}"


def test_no_import_cycles_between_project_modules():
    """Module-level and function-level imports alike: a cycle means two modules share a
    concept that wants one home (models.checkpoint <-> models.registry was one)."""
    root = DB.parent
    graph = {}
    for package in ("app", "db", "distill", "models"):
        for path in (root / package).rglob("*.py"):
            module = ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
            graph[module] = {name for name in _imports(path) if name.split(".")[0] in ("app", "db", "distill", "models")}

    def visit(module, trail):
        if module in trail:
            cycle = trail[trail.index(module):] + [module]
            raise AssertionError("import cycle: " + " -> ".join(cycle))
        if module in done:
            return
        for name in graph.get(module, ()):
            # "from app.batch import x" may name a package or a module in it.
            visit(name if name in graph else name.rsplit(".", 1)[0], trail + [module])
        done.add(module)

    done: set[str] = set()
    for module in sorted(graph):
        visit(module, [])
