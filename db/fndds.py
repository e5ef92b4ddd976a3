"""USDA FNDDS 2021-2023: the 5,431 foods of What We Eat in America as Americans eat them (mixed
dishes, sandwiches, drinks, fast food), each with its 8-digit food code, its WWEIA category and
USDA's portion weights ("1 juice box/pouch (6.75 fl oz)").

``python -m db build-fndds DIR`` reads the "At A Glance" tables (``nutrient_values.csv``,
``portions_weights.csv``; README in that folder) into ``db/seed/fndds_*.csv.gz`` (db.composition).
Nothing is computed: FNDDS states carbohydrate by difference (fibre included) and total
dietary fibre, the basis every food here uses. The default portion is chosen among USDA's
portion weights by db.portions' rule; a weight of 0 (no weight) is left out.
"""

import csv
from pathlib import Path

from db import composition, datasets, search
from db.errors import SeedError

TABLE = composition.Table(datasets.FNDDS, "fndds", "fndds_2021_2023", "build-fndds")
NUTRIENTS_FILE = "nutrient_values.csv"
PORTIONS_FILE = "portions_weights.csv"
# Source column of each stored nutrient.
COLUMNS = {
    "kcal": "Energy (kcal)", "carbohydrate_g": "Carbohydrate (g)",
    "sugars_g": "Sugars, total (g)", "fiber_g": "Fiber, total dietary (g)",
    "protein_g": "Protein (g)", "fat_g": "Total Fat (g)",
    "saturated_fat_g": "Fatty acids, total saturated (g)", "sodium_mg": "Sodium (mg)",
}
ENERGY_WHY = ("USDA computes FNDDS energy from its ingredients' own factors (alcohol at "
              "7 kcal/g), not the general 4/9/4")


def _rows(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        raise SeedError(f"{path}: missing (expected the FNDDS 2021-2023 At A Glance CSVs)")
    with path.open(encoding="utf-8-sig", newline="") as handle:
        return list(csv.DictReader(handle))


def read_source(folder: Path) -> tuple[list[composition.TableFood],
                                       list[composition.TablePortion]]:
    folder = Path(folder)
    foods = []
    for row in _rows(folder / NUTRIENTS_FILE):
        code = row["Food code"].strip()
        where = f"{folder / NUTRIENTS_FILE}: food code {code}"
        nutrients = {key: composition.number(row[column], f"{where} {column}")
                     for key, column in COLUMNS.items()}
        description = row["Main food description"].strip()
        foods.append(composition.TableFood(
            code, description, description, row["WWEIA Category description"].strip(), (), "",
            None, nutrients, composition.energy_note(nutrients, ENERGY_WHY)))
    by_code: dict[str, list[tuple[int, str, float, str]]] = {}
    known = {food.code for food in foods}
    for row in _rows(folder / PORTIONS_FILE):
        code, seq = row["Food code"].strip(), int(row["Seq num"])
        where = f"{folder / PORTIONS_FILE}: food code {code} seq {seq}"
        grams = composition.number(row["Portion weight (g)"], where)
        if code not in known:
            continue  # the portions table also covers codes the food table does not list
        if grams is None or grams <= 0:
            continue  # FNDDS gives no weight for this description
        name = row["Portion description"].strip()
        by_code.setdefault(code, []).append(
            (seq, name, grams, f"FNDDS 2021-2023 portion, food code {code} seq {seq}"))
    measures = []
    for food in foods:
        own = composition.unique_portions(food.code, sorted(by_code.get(food.code, [])))
        measures += composition.with_default(food, own, "FNDDS 2021-2023")
    return foods, measures


def _values(nutrients: dict[str, float | None]) -> tuple[float | None, ...]:
    return tuple(nutrients[k] for k in ("kcal", "carbohydrate_g", "protein_g", "fat_g"))


def portions_of_the_same_foods(foods: list[tuple[str, str, dict[str, float | None]]],
                               seed_dir: Path) -> dict[str, list[tuple[str, float, str]]]:
    """FNDDS's portions of other tables' foods that FNDDS holds too: ``foods`` (entry, name,
    nutrients per 100 g) -> for each entry with exactly one FNDDS food of the same
    db.search.same_food_key (FNDDS built it from that row: the same values), that food's
    portions as (name, grams, source). Empty without the FNDDS seed."""
    if not composition.has_compact(TABLE, seed_dir):
        return {}
    table_foods, measures = composition.read_compact(TABLE, seed_dir)
    by_key: dict[tuple, list[composition.TableFood]] = {}
    for food in table_foods:
        key = search.same_food_key(food.name, _values(food.nutrients))
        if key is not None:
            by_key.setdefault(key, []).append(food)
    by_code: dict[str, list[composition.TablePortion]] = {}
    for measure in measures:
        if measure.seq:  # FNDDS's own rows, not a default derived from one
            by_code.setdefault(measure.code, []).append(measure)
    out = {}
    for entry, name, nutrients in foods:
        same = by_key.get(search.same_food_key(name, _values(nutrients)) or (), [])
        if len(same) == 1:
            out[entry] = [(m.name, m.grams, f"{m.source}: FNDDS's '{same[0].name}', the same "
                                            "food (its values are this row's)")
                          for m in by_code.get(same[0].code, [])]
    return out
