"""One home per rule: the nutrient list, the exchange units and the spreadsheet-formula prefixes
are written once, in the lowest layer that owns them, and imported everywhere else. These tests
read the package sources and fail when a hand-written copy comes back."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from db.nutrition import EXCHANGE_UNITS_G, NUTRIENTS
from db.spreadsheet import FORMULA_PREFIXES

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("app", "db", "models", "distill", "benchmarks")
# A migration spells out the columns of its day on purpose: it must not change when the models do.
FROZEN = ("db/migrations/",)


def _sources() -> list[tuple[str, ast.Module]]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            if not name.startswith(FROZEN):
                found.append((name, ast.parse(path.read_text(encoding="utf-8"), filename=name)))
    return found


SOURCES = _sources()


def _literal_collections(tree: ast.Module):
    """(line, constants) of every tuple, list or set literal written out in ``tree``."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            values = [e.value for e in node.elts if isinstance(e, ast.Constant)]
            if values:
                yield node.lineno, values


def _copies(home: str, looks_like_a_copy, sources=None) -> list[str]:
    return [f"{name}:{line}" for name, tree in (SOURCES if sources is None else sources) if name != home
            for line, values in _literal_collections(tree) if looks_like_a_copy(values)]


def test_the_sources_are_read():
    names = {name for name, _tree in SOURCES}
    assert {"db/nutrition.py", "db/spreadsheet.py", "app/views.py", "app/batch/rows.py"} <= names


def _lists_nutrients(values: list) -> bool:
    """Five nutrient names in one literal are a list of nutrients; up to four name a few columns
    (energy and its macronutrients, say)."""
    return len(set(values) & set(NUTRIENTS)) >= 5


def test_the_nutrient_list_is_written_only_in_db_nutrition():
    copies = _copies("db/nutrition.py", _lists_nutrients)
    assert copies == [], f"import db.nutrition.NUTRIENTS (or STORED_NUTRIENTS) instead of: {copies}"


def test_the_exchange_units_are_written_only_in_db_nutrition():
    units = set(EXCHANGE_UNITS_G)
    copies = _copies("db/nutrition.py", lambda values: units <= {v for v in values if isinstance(v, (int, float))})
    assert copies == [], f"import db.nutrition.EXCHANGE_UNITS_G instead of: {copies}"


def test_the_formula_prefixes_are_written_only_in_db_spreadsheet():
    copies = _copies("db/spreadsheet.py", lambda values: len(set(values) & set(FORMULA_PREFIXES)) >= 3)
    assert copies == [], f"use db.spreadsheet.neutralise instead of: {copies}"


@pytest.mark.parametrize("values, copied", [
    (("kcal", "carbohydrate_g", "sugars_g", "fiber_g", "protein_g"), True),
    (("kcal", "carbohydrate_g", "protein_g", "fat_g"), False),
])
def test_the_nutrient_check_sees_a_copy(values, copied):
    sources = [("app/new.py", ast.parse(f"COLUMNS = {values!r}"))]
    assert _copies("db/nutrition.py", _lists_nutrients, sources) == (["app/new.py:1"] if copied else [])


def test_api_routes_share_one_sign_in_check():
    """Every /api route gets its user from one dependency (app.server.SignedInUser), not from
    its own copy of the HTTP Basic preamble."""
    [tree] = [tree for name, tree in SOURCES if name == "app/server.py"]
    takes_credentials = [
        node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        for arg in node.args.args if arg.annotation is not None and "HTTPBasicCredentials" in ast.unparse(arg.annotation)
    ]
    assert takes_credentials == ["_signed_in_user"]
