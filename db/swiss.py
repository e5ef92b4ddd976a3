"""The Swiss Food Composition Database V5.3 (FSVO/BLV, 2017): 999 generic foods and dishes
eaten in Switzerland, named in German with their German synonyms ("Traubenzucker",
"Kartoffelsalat", "Rösti") and in English. Free to use with the citation db.datasets carries
onto every card of its rows.

``python -m db build-swiss DIR`` reads ``swiss_fcdb_5.3.tsv`` (README in that folder) into
``db/seed/swiss_foods.csv.gz`` (db.composition): a row's entry is the database's ``ID``, its
name the German name, its aliases the German synonyms; the English name and synonyms are
searched as common names, so an English query finds a Swiss food too (below the US and UK
tables' own, db.search.region_handicap). The category is the first English category.

Carbohydrate: the table states available carbohydrate in grams and dietary fibre;
``carbohydrate_g`` is their sum (without a fibre value, the available carbohydrate) and
``fiber_g`` the fibre, db.nutrition's basis. Values given per 100 ml (75 drinks) are turned
into per 100 g with the food's own specific gravity (per 100 g = per 100 ml / gravity). Empty
cells are no value. Swiss foods are not always German foods: the region tie-break prefers
them for searchers in Germany, where their German names are what people type.

The table gives no portions: defaults come from db/seed/table_portions.csv, or there is none.
"""

import csv
from pathlib import Path

from db import composition, datasets
from db.errors import SeedError
from db.nutrition import STORED_NUTRIENTS

TABLE = composition.Table(datasets.SWISS_FCDB, "swiss", "swiss_fcdb_5_3", "build-swiss",
                          shipped_portions=False)
SOURCE_FILE = "swiss_fcdb_5.3.tsv"
# Source column of each stored nutrient and the unit its values must be in.
COLUMNS = {
    "kcal": ("energy kcal", "kilocalorie"),
    "available_carbohydrate_g": ("carbohydrates, available", "gram"),
    "sugars_g": ("sugars", "gram"), "fiber_g": ("dietary fibres", "gram"),
    "protein_g": ("protein", "gram"), "fat_g": ("fat, total", "gram"),
    "saturated_fat_g": ("fatty acids, saturated", "gram"),
    "sodium_mg": ("sodium (Na)", "milligram"),
}
PER_100G = "per 100g edible portion"
PER_100ML = "per 100ml food volume"
ENERGY_WHY = ("the Swiss FCDB computes energy with its own factors (alcohol at 7 kcal/g, "
              "fibre at 2 kcal/g), not the general 4/9/4")


def read_source(folder: Path) -> tuple[list[composition.TableFood],
                                       list[composition.TablePortion]]:
    """The table's foods; no portions (it has none of its own)."""
    path = Path(folder) / SOURCE_FILE
    if not path.is_file():
        raise SeedError(f"{path}: missing (expected the Swiss FCDB V5.3 as TSV)")
    with path.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle, delimiter="\t"))
    header = rows[0]
    # Each nutrient is five columns: value, unit, matrix unit, value type, source.
    column = {name: i for i, name in enumerate(header)
              if name not in ("unit", "matrix unit", "value type", "source")}
    foods = []
    for number, cells in enumerate(rows[1:], 2):
        def cell(name: str) -> str:
            return cells[column[name]].strip()

        entry = cell("ID")
        where = f"{path}:{number}: ID {entry}"
        gravity = composition.number(cell("specific gravity"), f"{where} specific gravity")
        values: dict[str, float | None] = {}
        for key, (name, unit) in COLUMNS.items():
            at = column[name]
            value = composition.number(cells[at], f"{where} {name}")
            if value is not None:
                if cells[at + 1] != unit or cells[at + 2] not in (PER_100G, PER_100ML):
                    raise SeedError(f"{where} {name}: {cells[at + 1]!r} {cells[at + 2]!r}, "
                                    f"expected {unit} per 100 g or per 100 ml")
                if cells[at + 2] == PER_100ML:
                    if not gravity:
                        raise SeedError(f"{where}: per 100 ml without a specific gravity")
                    value = round(value / gravity, 3)
            values[key] = value
        available, fiber = values.pop("available_carbohydrate_g"), values["fiber_g"]
        nutrients = {**values, "carbohydrate_g": None if available is None
                     else round(available + (fiber or 0.0), 3)}
        # Common names are read as a comma-separated list (db.search): a comma inside an
        # English name would split it.
        english = [n.replace(",", " ") for n in (cell("name E"), *_synonyms(cell("synonyms E")))]
        foods.append(composition.TableFood(
            entry, cell("name D"), cell("name D"), cell("category E").split(";")[0][:60],
            _synonyms(cell("synonyms D")), ", ".join(" ".join(n.split()) for n in english if n),
            None,
            {k: nutrients[k] for k in STORED_NUTRIENTS},
            composition.energy_note(nutrients, ENERGY_WHY)))
    return foods, []


def _synonyms(text: str) -> tuple[str, ...]:
    return tuple(s.strip() for s in text.split(";") if s.strip())
