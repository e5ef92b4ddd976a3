"""python -m db check-seed: every problem in a seed folder, one per line.

The curated CSVs (db.seed's strict checks), the SR Legacy catalog when the folder has one
(it must read, and its everyday aliases must name catalog rows), and every default serving
against the per-group gram ranges of db.portions, less the written exceptions
(serving_exceptions.csv).
"""

import sys
from pathlib import Path

from db import catalog, portions, sr28
from db.errors import SeedError
from db.seed import seed_problems


def problems_in(folder: Path) -> tuple[list[str], str]:
    """(problems, summary of what was checked)."""
    data, problems = seed_problems(folder)
    summary = (f"{len(data.foods)} foods, {len(data.servings)} servings, "
               f"{len(data.glycemic_index)} GI values")
    try:
        exceptions = portions.read_exceptions(folder)
    except SeedError as exc:
        return [*problems, str(exc)], summary
    category = {food.name: food.category for food in data.foods}
    defaults = [(f"{folder / 'servings.csv'}:{s.line}", s.food, category[s.food], s.serving,
                 s.grams) for s in data.servings if s.is_default]
    if sr28.has_compact(folder):
        try:
            defaults += catalog.default_servings(folder)
            aliases = catalog.read_aliases(folder)
            known = {food.ndb for food in sr28.read_compact(folder)[0]}
            problems += [f"{folder / catalog.ALIASES_FILE}: NDB {ndb} is not in the catalog"
                         for ndb in sorted(set(aliases) - known)]
            summary += f"; SR Legacy catalog: {len(known)} foods"
        except SeedError as exc:
            problems.append(str(exc))
    problems += portions.default_problems(defaults, exceptions)
    summary += f"; {len(defaults)} default servings checked, {len(exceptions)} exceptions"
    return problems, summary


def check_seed(folder: Path) -> int:
    problems, summary = problems_in(folder)
    for problem in problems:
        print(problem)
    if problems:
        count = len(problems)
        print(f"error: {count} problem{'s' if count > 1 else ''} in the seed", file=sys.stderr)
        return 2
    print(f"seed ok: {summary}")
    return 0
