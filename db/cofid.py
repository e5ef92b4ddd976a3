"""UK foods the USDA catalog lacks (crumpets, digestive biscuits, quark, Lucozade, ...), from
McCance and Widdowson's Composition of Foods Integrated Dataset (CoFID, Public Health England,
Crown copyright, Open Government Licence v3.0).

``python -m db build-cofid NUTRITIONS_CSV`` turns CoFID's proximates table (one row per food
code) into db/seed/cofid_foods.csv for the foods in ``PICKS``; the loader adds those rows as
public foods with dataset "CoFID" and the food code as their source id.

CoFID states carbohydrate as available carbohydrate (starch and sugars as monosaccharide
equivalents, fibre not included), where USDA's carbohydrate includes fibre. So that every
food's carbohydrate means the same here, a CoFID row's carbohydrate is CoFID's available
carbohydrate plus its AOAC fibre, and its fibre is the AOAC fibre: available carbohydrate
(carbohydrate - fibre, db.nutrition) is then CoFID's own value. Without an AOAC fibre value
the row has no fibre and its carbohydrate is CoFID's. "Tr" (trace) is 0; "N" (not determined)
is no value. CoFID gives no household measures: the default serving is 100 g.
"""

import csv
import re
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import func, insert, select
from sqlalchemy.orm import Session

from db import portions, search, sequences
from db.errors import SeedError
from db.keys import name_key
from db.models import Food, FoodAlias, FoodLabel, Serving
from db.nutrition import STORED_NUTRIENTS, energy_consistent

DATASET_NAME = "CoFID"
NAMES_REGION = "UK"  # CoFID names foods in British English (db.search.region_handicap)
EDITION = "CoFID 2015"
FOODS_FILE = "cofid_foods.csv"
CODE_RE = re.compile(r"\d{2}-\d{1,4}")  # CoFID's food code: group, number ("11-989")
# CoFID gives no household measures; its values are per 100 g.
DEFAULT_GRAMS = 100.0
COLUMNS: tuple[str, ...] = ("code", "name", "aliases", "category", "note", *STORED_NUTRIENTS,
                            "energy_note")
# CoFID proximates columns of the values kept (sodium is in another CoFID table).
SOURCE_COLUMNS = {
    "kcal": "Energy (kcal) (kcal)", "available_carbohydrate_g": "Carbohydrate (g)",
    "sugars_g": "Total sugars (g)", "fiber_g": "AOAC fibre (g)", "protein_g": "Protein (g)",
    "fat_g": "Fat (g)", "saturated_fat_g": "Satd FA /100g fd (g)",
}


@dataclass(frozen=True)
class Pick:
    """A CoFID food to ship: its code, the names people type, the food group whose portion
    range applies (db.portions) and, where needed, what a user should know about the row."""

    code: str
    aliases: tuple[str, ...]
    category: str
    note: str | None = None


PICKS: tuple[Pick, ...] = (
    Pick("11-989", ("crumpet", "crumpets", "toasted crumpet"), "Baked Products"),
    Pick("11-799", ("digestive biscuit", "digestive biscuits", "digestives"), "Baked Products"),
    Pick("11-807", ("chocolate digestive", "chocolate digestives"), "Baked Products"),
    Pick("11-803", ("hobnobs", "oat biscuits"), "Baked Products"),
    Pick("11-797", ("rich tea", "rich tea biscuits", "semi-sweet biscuits"), "Baked Products"),
    Pick("11-739", ("jaffa cake",), "Baked Products"),
    Pick("11-827", ("scone", "scones", "plain scone"), "Baked Products"),
    Pick("11-823", ("oatcake", "oatcakes"), "Baked Products"),
    Pick("11-1146", ("yorkshire pudding", "yorkshire puddings"), "Baked Products"),
    Pick("11-848", ("mince pie", "mince pies"), "Baked Products"),
    Pick("12-174", ("quark", "magerquark", "speisequark"), "Dairy and Egg Products"),
    Pick("12-519", ("custard", "custard made with milk"), "Dairy and Egg Products"),
    Pick("17-761", ("lucozade energy",), "Beverages",
         "CoFID 2015 values (industry data, 2013). Lucozade Energy has been made with less "
         "sugar since 2017: check the carbohydrate on the bottle before treating a hypo."),
    Pick("19-641", ("schnitzel", "wiener schnitzel", "veal schnitzel"),
         "Meals, Entrees, and Side Dishes"),
    Pick("19-468", ("sausage roll", "sausage rolls"), "Meals, Entrees, and Side Dishes"),
    Pick("19-466", ("cornish pasty", "pasty"), "Meals, Entrees, and Side Dishes"),
)


@dataclass(frozen=True)
class CofidFood:
    code: str
    name: str
    aliases: tuple[str, ...]
    category: str
    note: str | None
    nutrients: dict[str, float | None]
    energy_note: str | None


def _number(text: str | None, where: str) -> float | None:
    value = (text or "").strip()
    if value in ("", "N"):
        return None
    if value == "Tr":
        return 0.0
    try:
        return float(value)
    except ValueError:
        raise SeedError(f"{where}: {value!r} is not a number, 'Tr' or 'N'") from None


def _energy_note(nutrients: dict[str, float | None]) -> str | None:
    kcal, carb, protein, fat = (nutrients[k] for k in ("kcal", "carbohydrate_g", "protein_g",
                                                       "fat_g"))
    if None in (kcal, carb, protein, fat) or energy_consistent(kcal, carb, protein, fat):  # type: ignore[arg-type]
        return None
    return ("CoFID computes energy from available carbohydrate as monosaccharide equivalents "
            "(3.75 kcal/g) and its own factors, not the general 4/9/4")


def build(source: Path, out_dir: Path) -> int:
    """Write ``out_dir``/cofid_foods.csv from CoFID's proximates CSV; returns the row count."""
    with Path(source).open(encoding="utf-8", newline="") as handle:
        by_code = {(row.get("Food Code") or "").strip(): row for row in csv.DictReader(handle)}
    rows = []
    for pick in PICKS:
        found = by_code.get(pick.code)
        if found is None:
            raise SeedError(f"{source}: no CoFID food code {pick.code}")
        where = f"{source}: food code {pick.code}"
        values = {key: _number(found.get(column), f"{where} {column}")
                  for key, column in SOURCE_COLUMNS.items()}
        available, fiber = values.pop("available_carbohydrate_g"), values["fiber_g"]
        nutrients = {**values, "sodium_mg": None,
                     "carbohydrate_g": None if available is None
                     else round(available + (fiber or 0.0), 3)}
        rows.append({"code": pick.code, "name": found["Food Name"].strip(),
                     "aliases": ";".join(pick.aliases), "category": pick.category,
                     "note": pick.note or "",
                     **{k: "" if nutrients[k] is None else f"{nutrients[k]:g}"
                        for k in STORED_NUTRIENTS},
                     "energy_note": _energy_note(nutrients) or ""})
    out = Path(out_dir) / FOODS_FILE
    with out.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return len(rows)


def default_servings(seed_dir: Path) -> list[portions.DefaultServing]:
    """Every CoFID food's default serving, as ``load`` gives it (for python -m db check-seed)."""
    path = Path(seed_dir) / FOODS_FILE
    return [portions.DefaultServing(f"{path} CoFID {food.code}", food.name,
                                    portions.Food(food.category, food.name, food.nutrients["kcal"],
                                                  food.nutrients["carbohydrate_g"]),
                                    portions.PER_100G_NAME, DEFAULT_GRAMS)
            for food in read(seed_dir)]


def source_problems(seed_dir: Path) -> list[str]:
    """Rows whose source is not one ``build`` writes: a CoFID food code of ``PICKS`` (the
    rows are CoFID's numbers for that code, so the code is the row's source), each once."""
    path = Path(seed_dir) / FOODS_FILE
    picked = {pick.code for pick in PICKS}
    problems, seen = [], set()
    for food in read(seed_dir):
        if food.code not in picked:
            problems.append(f"{path}: CoFID {food.code} ({food.name!r}) is not one of "
                            "db.cofid.PICKS: every row must come from build-cofid")
        elif food.code in seen:
            problems.append(f"{path}: CoFID {food.code} is listed twice")
        seen.add(food.code)
    return problems


def present(seed_dir: Path) -> bool:
    return (Path(seed_dir) / FOODS_FILE).is_file()


def read(seed_dir: Path) -> list[CofidFood]:
    """The shipped rows, checked: the header, a code, a name, a known portion range, numbers
    where given, and an energy note exactly where energy is not 4/9/4 within 15 %."""
    path = Path(seed_dir) / FOODS_FILE
    foods = []
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        if tuple(reader.fieldnames or ()) != COLUMNS:
            raise SeedError(f"{path}:1: header must be {','.join(COLUMNS)}")
        for row in reader:
            where = f"{path}:{reader.line_num}"
            if not row["name"].strip():
                raise SeedError(f"{where}: a name is required")
            if not CODE_RE.fullmatch(row["code"].strip()):
                raise SeedError(f"{where}: code {row['code']!r} is not a CoFID food code "
                                "(such as 11-989): each row names the CoFID food it copies")
            if row["category"] not in portions.PORTION_RANGE_G:
                raise SeedError(f"{where}: category {row['category']!r} has no portion range")
            aliases = tuple(a.strip() for a in row["aliases"].split(";") if a.strip())
            if name_key(row["name"]) in map(name_key, aliases):
                raise SeedError(f"{where}: an alias repeats the name")
            nutrients = {k: _number(row[k], f"{where} {k}") for k in STORED_NUTRIENTS}
            if bool(row["energy_note"].strip()) != (_energy_note(nutrients) is not None):
                raise SeedError(f"{where}: energy_note must be given exactly when energy "
                                "differs more than 15 % from 4/9/4")
            foods.append(CofidFood(row["code"].strip(), row["name"].strip(), aliases,
                                   row["category"], row["note"].strip() or None, nutrients,
                                   row["energy_note"].strip() or None))
    return foods


def load(session: Session, seed_dir: Path) -> int:
    """Add the CoFID foods; returns how many. Names and aliases must not be another food's.
    The caller owns the transaction (and reindexes search afterwards)."""
    foods = read(seed_dir)
    taken = set(session.scalars(select(Food.name_key).where(Food.owner_id.is_(None))))
    taken |= set(session.scalars(select(FoodAlias.alias_key)))
    taken |= {label.replace("_", " ") for label in session.scalars(select(FoodLabel.label))}
    next_id = (session.scalar(select(func.max(Food.id))) or 0) + 1
    food_rows, serving_rows, alias_rows = [], [], []
    for food in foods:
        for text in (food.name, *food.aliases):
            if name_key(text) in taken:
                raise SeedError(f"{FOODS_FILE}: {text!r} (CoFID {food.code}) is already the "
                                "name or an alias of another food")
            taken.add(name_key(text))
        food_rows.append({
            "id": next_id, "name": food.name, "name_key": name_key(food.name),
            "category": food.category, "fdc_dataset": DATASET_NAME, "fdc_id": None,
            "source_code": food.code, "fdc_description": food.name, "proxy_note": food.note,
            "energy_note": food.energy_note, "common_names": None,
            "search_weight": search.prior(curated=True, survey=False, food_group=food.category,
                                          description=food.name),
            "recipe_servings": None, "owner_id": None, **food.nutrients,
        })
        serving_rows.append({"food_id": next_id, "name": portions.PER_100G_NAME, "grams": DEFAULT_GRAMS,
                             "is_default": True,
                             "source": f"100 g: the amount {EDITION} values are given for (CoFID "
                                       "lists no household measures)"})
        alias_rows += [{"food_id": next_id, "alias": a, "alias_key": name_key(a)}
                       for a in food.aliases]
        next_id += 1
    for model, rows in ((Food, food_rows), (Serving, serving_rows), (FoodAlias, alias_rows)):
        if rows:
            session.execute(insert(model.__table__), rows)  # type: ignore[attr-defined]
    sequences.sync(session)  # the ids above were chosen here, not by the database
    return len(food_rows)
