"""python -m db check-seed: every problem in a seed folder, one per line.

The curated CSVs (db.seed's strict checks), the SR Legacy catalog when the folder has one
(it must read, its everyday aliases and GI rows must name catalog rows), the FNDDS, CoFID and
Swiss tables when it has them (each row naming its entry once, its everyday aliases and cited
portions naming its entries; db.composition), each cited portion's source (a portion of the
same food in FNDDS or SR Legacy, as that table gives it, the two rows the same food by
db.composition's pair rule), the hypo treatments' foods (db.hypo), and every
default
serving against db.portions' rules for one portion as eaten (grams for the food group, energy,
carbohydrate, the food's form), less the written exceptions (serving_exceptions.csv); the
summary counts the defaults in each band of carbohydrate per portion.
"""

import csv
import sys
from pathlib import Path

from db import catalog, composition, fndds, hypo, portions, sr28
from db.errors import SeedError
from db.session import TABLES
from db.seed import SR28_GI_FILE, SeedData, read_sr28_glycemic_index, seed_problems


def problems_in(folder: Path) -> tuple[list[str], str]:
    """(problems, summary of what was checked)."""
    data, problems = seed_problems(folder)
    summary = (f"{len(data.foods)} foods, {len(data.servings)} servings, "
               f"{len(data.glycemic_index)} GI values")
    try:
        exceptions = portions.read_exceptions(folder)
    except SeedError as exc:
        return [*problems, str(exc)], summary
    curated = {food.name: portions.Food(food.category, food.fdc_description,
                                        food.nutrients["kcal"], food.nutrients["carbohydrate_g"])
               for food in data.foods}
    defaults = [portions.DefaultServing(f"{folder / 'servings.csv'}:{s.line}", s.food,
                                        curated[s.food], s.serving, s.grams)
                for s in data.servings if s.is_default]
    if sr28.has_compact(folder):
        try:
            defaults += catalog.default_servings(folder)
            aliases = catalog.read_aliases(folder)
            known = {food.ndb for food in sr28.read_compact(folder)[0]}
            problems += [f"{folder / catalog.ALIASES_FILE}: NDB {ndb} is not in the catalog"
                         for ndb in sorted(set(aliases) - known)]
            gi_problems, gi_count = _catalog_gi_problems(folder, data, known)
            problems += gi_problems
            summary += f"; SR Legacy catalog: {len(known)} foods, {gi_count} GI values"
        except SeedError as exc:
            problems.append(str(exc))
    for table in TABLES:
        if composition.has_compact(table, folder):
            try:
                table_defaults = composition.default_servings(table, folder)
                problems += composition.source_problems(table, folder)
                defaults += table_defaults
                count = len(composition.read_compact(table, folder)[0])
                summary += (f"; {table.dataset.name}: {count} foods, {len(table_defaults)} "
                            "default portions")
            except SeedError as exc:
                problems.append(str(exc))
    try:
        problems += cited_portion_problems(folder)
    except SeedError:
        pass  # a table that does not read is reported above
    problems += _hypo_problems(folder)
    problems += portions.default_problems(defaults, exceptions)
    bands = ", ".join(f"{band}: {count}" for band, count in
                      portions.carbohydrate_bands(defaults).items())
    summary += (f"; {len(defaults)} default servings checked, {len(exceptions)} exceptions; "
                f"carbohydrate per default serving: {bands}")
    return problems, summary


def cited_portion_problems(folder: Path) -> list[str]:
    """table_portions.csv, row by row: its source names a portion of the same food in FNDDS or
    SR Legacy (composition.CITED_RE) with the food's name, the portion's name and its grams as
    that table gives them; the row weighs those grams (or half, "half of"); and the two rows
    are the same food by composition.pair_problems. A source table the folder lacks is not
    checked."""
    path = folder / composition.CITED_PORTIONS_FILE
    if not path.is_file():
        return []
    rows = {t.dataset.name: {f.code: f.nutrients for f in composition.read_compact(t, folder)[0]}
            for t in TABLES if not t.shipped_portions and composition.has_compact(t, folder)}
    sources: dict[str, tuple[dict, dict]] = {}
    if composition.has_compact(fndds.TABLE, folder):
        foods, measures = composition.read_compact(fndds.TABLE, folder)
        sources["FNDDS 2021-2023"] = ({f.code: (f.name, f.nutrients) for f in foods},
                                      {(m.code, m.name): m.grams for m in measures})
    if sr28.has_compact(folder):
        foods, weights = sr28.read_compact(folder)
        sources["SR Legacy"] = ({f.ndb: (f.description, f.nutrients) for f in foods},
                                {(w.ndb, w.name): w.grams for w in weights})
    problems = []
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        for row in reader:
            where = f"{path}:{reader.line_num}: {row['entry']!r} {row['serving']!r}"
            nutrients = rows.get(row["dataset"], {}).get(row["entry"])
            cited = composition.CITED_RE.match(row["source"] or "")
            if nutrients is None:
                continue  # not a row of a table here (composition.cited_portions says so)
            if cited is None:
                problems.append(f"{where}: the source must name a portion of the same food in "
                                "FNDDS or SR Legacy: \"FNDDS 2021-2023 portion of the same "
                                "food: CODE 'name', 'portion' (GRAMS g)\"")
                continue
            if cited["table"] not in sources:
                continue
            names, grams = sources[cited["table"]]
            name, other = names.get(cited["code"], (None, None))
            weight = float(cited["grams"])
            if name != cited["name"]:
                problems.append(f"{where}: {cited['table']} {cited['code']} is "
                                f"{name!r}, not {cited['name']!r}")
            elif grams.get((cited["code"], cited["portion"])) != weight:
                problems.append(f"{where}: {cited['table']} {cited['code']} has no portion "
                                f"{cited['portion']!r} of {weight:g} g")
            elif float(row["grams"]) != weight / (2 if cited["half"] else 1):
                problems.append(f"{where}: {row['grams']} g is not the cited {weight:g} g"
                                + (" halved" if cited["half"] else ""))
            else:
                problems += [f"{where}: not the same food as {cited['table']} {cited['code']} "
                             f"{name!r}: {found}" for found in composition.pair_problems(nutrients, other)]
    return problems


def _hypo_problems(folder: Path) -> list[str]:
    """hypo_treatments.csv: its own checks, and every food it names in its table (with the
    serving it names) where the folder has that table."""
    try:
        treatments = hypo.read(folder)
    except SeedError as exc:
        return [str(exc)]
    tables = {t.dataset.name: t for t in TABLES if composition.has_compact(t, folder)}
    problems = []
    for row in treatments:
        table = tables.get(row.dataset or "")
        if table is None:
            continue
        foods, measures = composition.read_compact(table, folder)
        where = f"{folder / hypo.TREATMENTS_FILE}: {row.term!r}"
        if row.entry not in {f.code for f in foods}:
            problems.append(f"{where}: {table.dataset.entry} {row.entry!r} is not in "
                            f"{table.foods_file}")
        elif row.serving and row.serving not in {m.name for m in measures if m.code == row.entry}:
            problems.append(f"{where}: {row.entry!r} has no serving {row.serving!r}")
    return problems


def _catalog_gi_problems(folder: Path, data: SeedData, known: set[str]) -> tuple[list[str], int]:
    """sr28_glycemic_index.csv: its own checks, every NDB in the catalog, and none that a
    curated food with its own GI row stands for (one GI per food)."""
    rows, problems = read_sr28_glycemic_index(folder)
    curated_gi = {gi.food for gi in data.glycemic_index}
    curated_ndb = {food.source_code: food.name for food in data.foods
                   if food.fdc_dataset == sr28.DATASET_NAME and food.name in curated_gi}
    where = folder / SR28_GI_FILE
    for row in rows:
        if row.food not in known:
            problems.append(f"{where}:{row.line}: NDB {row.food} is not in the catalog")
        elif row.food in curated_ndb:
            problems.append(f"{where}:{row.line}: NDB {row.food} is the curated food "
                            f"{curated_ndb[row.food]!r}, whose GI is in glycemic_index.csv")
    return problems, len(rows)


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
