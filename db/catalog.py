"""Load the USDA SR Legacy catalog (db/seed/sr28_*.csv.gz, see db/sr28.py) into the database,
beside the curated foods, with bulk inserts (8,789 foods and 15,438 portions load in about a
second).

- A curated food with the same NDB number stays as it is (its name, labels, aliases and
  servings win; it gets USDA's common names); the catalog row is not added a second time.
- Every other food gets its USDA long description as its name, its food group as category,
  every household measure as a serving, and a default serving chosen by db.portions; a food
  FNDDS holds too (its values copied there) also gets FNDDS's portions of it.
- A database seeded under an older portion rule gets today's servings once
  (``refresh_servings``, run by db.session as its own seed part).
- ``sr28_aliases.csv`` gives everyday names of everyday foods ("white rice" -> "Rice, white,
  long-grain, regular, enriched, cooked"); those rows rank like the curated foods.
"""

import csv
from collections.abc import Iterable, Sequence
from pathlib import Path

from sqlalchemy import delete, func, insert, select
from sqlalchemy.orm import Session

from db import fndds, portions, search, sequences, sr28
from db.errors import SeedError
from db.keys import name_key
from db.tables import Food, FoodAlias, FoodLabel, Serving
from db.nutrition import energy_consistent

ALIASES_FILE = "sr28_aliases.csv"
# The seed part (db.tables.SeedVersion) of the catalog's servings as chosen by today's
# db.portions rule: a database seeded under an older rule gets them once (db.session). A new
# rule gets a new name (2: juice "from concentrate" is not a concentrate; 3: a branded soup by
# the cup, not the can; a head, bunch or loaf and 1 ml are measures, not portions; 4: cheese
# by the ounce, slice or spoon, not the cup, box or jar; 5: fresh fruit within half to twice
# FDA's 140 g, not 50 blueberries or one strawberry).
SERVINGS_PART = "sr28_servings_as_eaten_5"
# The seed part of sr28_aliases.csv's everyday names: a database seeded before a name was added
# gets it once (``refresh_aliases``). New names, a new part name (2: brands such as Snickers;
# 3: Mountain Dew).
ALIASES_PART = "sr28_aliases_3"


def read_aliases(seed_dir: Path) -> dict[str, tuple[str, ...]]:
    """NDB number -> everyday names, from ``sr28_aliases.csv`` (``ndb,aliases``; ``;``
    separates names). Missing file: none."""
    path = Path(seed_dir) / ALIASES_FILE
    if not path.is_file():
        return {}
    out: dict[str, tuple[str, ...]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames != ["ndb", "aliases"]:
            raise SeedError(f"{path}:1: header must be ndb,aliases")
        for row in reader:
            if None in row:
                raise SeedError(f"{path}:{reader.line_num}: more than two cells (quote aliases "
                                "that contain a comma)")
            names = tuple(a.strip() for a in row["aliases"].split(";") if a.strip())
            if not names or row["ndb"] in out:
                raise SeedError(f"{path}:{reader.line_num}: NDB {row['ndb']!r} has no aliases "
                                "or is listed twice")
            out[row["ndb"]] = names
    return out


def _energy_note(food: sr28.SrFood) -> str | None:
    n = food.nutrients
    kcal, carb, protein, fat = n["kcal"], n["carbohydrate_g"], n["protein_g"], n["fat_g"]
    if None in (kcal, carb, protein, fat) or food.energy_factors is None:
        return None
    if energy_consistent(kcal, carb, protein, fat):  # type: ignore[arg-type]
        return None
    p, f, c = food.energy_factors
    return (f"USDA computed this energy with the food's own factors (protein {p:g}, fat {f:g}, "
            f"carbohydrate {c:g} kcal/g), not the general 4/9/4")


def portion_food(food: sr28.SrFood) -> portions.Food:
    return portions.Food(food.food_group, food.description, food.nutrients["kcal"],
                         food.nutrients["carbohydrate_g"])


def _servings(food: sr28.SrFood, measures: list[sr28.SrPortion],
              fndds_measures: Sequence[tuple[str, float, str]] = ()) -> list[dict]:
    """Serving rows for one food: every household measure (first of any repeated name), and
    the default by db.portions' rule (a fraction or multiple of a measure is added as its
    own serving, saying which measure it comes from); then FNDDS's portions of the same food
    (db.fndds.portions_of_the_same_foods) whose names SR Legacy's do not already have."""
    rows, seqs, seen = [], [], set()
    for portion in sorted(measures, key=lambda p: p.seq):
        key = name_key(portion.name)
        if key in seen:
            continue
        seen.add(key)
        seqs.append(portion.seq)
        rows.append({"name": portion.name[:80], "grams": portion.grams, "is_default": False,
                     "source": f"SR Legacy household measure, NDB {food.ndb} seq {portion.seq}"})
    choice = portions.choose_default(portion_food(food), [(r["name"], r["grams"]) for r in rows])
    if choice.index is None:
        rows.append({"name": portions.PER_100G_NAME, "grams": 100.0, "is_default": True,
                     "source": "100 g: the amount SR Legacy values are given for (none of "
                               "USDA's household measures of this food is one portion)"})
    elif choice.name is None:
        rows[choice.index]["is_default"] = True
    else:
        base = rows[choice.index]
        share = (f"{choice.factor:g} x" if choice.factor > 1 else
                 f"{choice.name.split(' ', 1)[0]} of")
        rows.append({"name": choice.name[:80], "grams": round(base["grams"] * choice.factor, 1),
                     "is_default": True,
                     "source": f"{share} SR Legacy household measure {base['name']!r} "
                               f"({base['grams']:g} g), NDB {food.ndb} seq "
                               f"{seqs[choice.index]}: one portion as eaten"})
    taken = {name_key(r["name"]) for r in rows}
    for name, grams, source in fndds_measures:
        if name_key(name[:80]) not in taken:
            taken.add(name_key(name[:80]))
            rows.append({"name": name[:80], "grams": grams, "is_default": False,
                         "source": source})
    return rows


def default_servings(seed_dir: Path) -> list[portions.DefaultServing]:
    """Every catalog food's default serving, as ``load`` would choose it (for python -m db
    check-seed)."""
    foods, measures = sr28.read_compact(seed_dir)
    by_ndb: dict[str, list[sr28.SrPortion]] = {}
    for portion in measures:
        by_ndb.setdefault(portion.ndb, []).append(portion)
    out = []
    for food in foods:
        default = next(s for s in _servings(food, by_ndb.get(food.ndb, [])) if s["is_default"])
        out.append(portions.DefaultServing(f"{sr28.FOODS_FILE} NDB {food.ndb}", food.description,
                                           portion_food(food), default["name"], default["grams"]))
    return out


def _fndds_portions(foods: list[sr28.SrFood], seed_dir: Path) -> dict:
    return fndds.portions_of_the_same_foods([(f.ndb, f.description, f.nutrients) for f in foods],
                                            seed_dir)


def load(session: Session, seed_dir: Path) -> int:
    """Add the catalog foods not yet present; returns how many were added. The caller owns
    the transaction (and reindexes search afterwards)."""
    foods, measures = sr28.read_compact(seed_dir)
    same = _fndds_portions(foods, seed_dir)
    everyday = read_aliases(seed_dir)
    known_ndb = {f.ndb for f in foods}
    unknown = sorted(set(everyday) - known_ndb)
    if unknown:
        raise SeedError(f"{Path(seed_dir) / ALIASES_FILE}: NDB numbers {unknown} are not in "
                        "the SR Legacy catalog")
    by_ndb: dict[str, list[sr28.SrPortion]] = {}
    for portion in measures:
        by_ndb.setdefault(portion.ndb, []).append(portion)

    curated = {
        row.source_code: row for row in session.scalars(
            select(Food).where(Food.fdc_dataset == sr28.DATASET_NAME, Food.owner_id.is_(None),
                               Food.source_code.is_not(None)))
    }
    taken_names = set(session.scalars(select(Food.name_key).where(Food.owner_id.is_(None))))
    taken_aliases = set(session.scalars(select(FoodAlias.alias_key)))
    taken_aliases |= {label.replace("_", " ")
                      for label in session.scalars(select(FoodLabel.label))}
    next_id = (session.scalar(select(func.max(Food.id))) or 0) + 1

    food_rows, serving_rows, alias_rows = [], [], []
    for food in foods:
        if food.ndb in curated:
            row = curated[food.ndb]
            row.common_names = food.common_names or None
            continue
        key = name_key(food.description)
        if key in taken_names:
            raise SeedError(f"SR Legacy NDB {food.ndb} {food.description!r}: the name is "
                            "already taken by another food")
        taken_names.add(key)
        names = everyday.get(food.ndb, ())
        for alias in names:
            alias_key = name_key(alias)
            if alias_key in taken_aliases or alias_key in taken_names:
                raise SeedError(f"{ALIASES_FILE}: alias {alias!r} (NDB {food.ndb}) is already "
                                "the name or an alias of another food")
            taken_aliases.add(alias_key)
            alias_rows.append({"food_id": next_id, "alias": alias, "alias_key": alias_key})
        food_rows.append({
            "id": next_id, "name": food.description, "name_key": key,
            "category": food.food_group, "fdc_dataset": sr28.DATASET_NAME, "fdc_id": None,
            "source_code": food.ndb, "fdc_description": food.description,
            "proxy_note": None, "energy_note": _energy_note(food),
            "common_names": food.common_names or None,
            "search_weight": search.prior(curated=bool(names), survey=food.survey,
                                          food_group=food.food_group,
                                          description=food.description),
            "recipe_servings": None, "owner_id": None,
            **food.nutrients,
        })
        for serving in _servings(food, by_ndb.get(food.ndb, []), same.get(food.ndb, [])):
            serving_rows.append({"food_id": next_id, **serving})
        next_id += 1
    _bulk(session, Food, food_rows)
    _bulk(session, Serving, serving_rows)
    _bulk(session, FoodAlias, alias_rows)
    sequences.sync(session)  # the ids above were chosen here, not by the database
    return len(food_rows)


def refresh_aliases(session: Session, seed_dir: Path) -> int:
    """Give the catalog foods the everyday names ``sr28_aliases.csv`` lists and they lack
    (unless another food has the name), and the search weight such a food is loaded with;
    returns how many foods changed. The caller reindexes search."""
    everyday = read_aliases(seed_dir)
    rows = session.scalars(select(Food).where(
        Food.fdc_dataset == sr28.DATASET_NAME, Food.owner_id.is_(None),
        Food.source_code.in_(list(everyday))))
    taken = set(session.scalars(select(FoodAlias.alias_key)))
    taken |= set(session.scalars(select(Food.name_key).where(Food.owner_id.is_(None))))
    changed = 0
    for row in rows:
        new = [a for a in everyday[row.source_code] if name_key(a) not in taken]
        weight = search.prior(curated=True, survey=False, food_group=row.category,
                              description=row.name)
        for alias in new:
            taken.add(name_key(alias))
            session.add(FoodAlias(food_id=row.id, alias=alias))
        if new or row.search_weight != weight:
            row.search_weight, changed = weight, changed + 1
    return changed


def refresh_servings(session: Session, seed_dir: Path, curated_ndbs: set[str]) -> int:
    """Replace the servings of every catalog food in the database with those ``load`` gives
    today (USDA's measures and the default by db.portions' rule); curated foods
    (``curated_ndbs``) keep theirs. Returns how many foods were refreshed. Meal entries keep
    the serving name and grams they were logged with."""
    foods, measures = sr28.read_compact(seed_dir)
    same = _fndds_portions(foods, seed_dir)
    by_ndb: dict[str, list[sr28.SrPortion]] = {}
    for portion in measures:
        by_ndb.setdefault(portion.ndb, []).append(portion)
    catalog_rows = (Food.owner_id.is_(None), Food.fdc_dataset == sr28.DATASET_NAME,
                    Food.source_code.not_in(curated_ndbs or {""}))
    ids = dict(session.execute(select(Food.source_code, Food.id).where(*catalog_rows)).all())
    session.execute(delete(Serving).where(Serving.food_id.in_(
        select(Food.id).where(*catalog_rows))), execution_options={"synchronize_session": False})
    rows = [{"food_id": ids[food.ndb], **serving} for food in foods if food.ndb in ids
            for serving in _servings(food, by_ndb.get(food.ndb, []), same.get(food.ndb, []))]
    _bulk(session, Serving, rows)
    session.expire_all()
    return len(ids)


def _bulk(session: Session, model: type, rows: Iterable[dict]) -> None:
    rows = list(rows)
    if rows:
        # Core executemany: no ORM objects for ~25,000 rows.
        session.execute(insert(model.__table__), rows)  # type: ignore[attr-defined]
