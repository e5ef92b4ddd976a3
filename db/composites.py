"""Composite foods: dishes no food table has one row for, summed from table rows by weight (a
lobster roll = FNDDS lobster salad + an SR Legacy hot-dog roll; fish and chips = CoFID's
takeaway cod in batter + its chip-shop chips; beans on toast = CoFID's baked beans on its white
toast), so a sandwich's carbohydrate includes its bread.
Each lists its ingredients (shown on the card and in exports) and a note saying how it is made.

Files (db/seed/): ``composites.csv`` (food, labels, aliases, category, serving, note) and
``composite_ingredients.csv`` (food, ingredient, grams), the ingredient being the exact name
of a public food (curated, SR Legacy, FNDDS, CoFID or Swiss). Loaded after every food table;
nutrients per 100 g are the ingredients' weighted sum (unknown if any ingredient's value is
unknown), and the one serving is the whole composite.
"""

import csv
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from db import datasets, nutrition, search, validate
from db.errors import InvalidValue, SeedError
from db.keys import name_key
from db.tables import (
    COMPOSITE_DATASET, Food, FoodAlias, FoodLabel, RecipeIngredient, Serving,
)

# Seed part of a database whose composites were loaded before today's: it gets the new
# composites once, each taking its labels and aliases over from the stand-in row it replaces
# (the fish-only "Fish and chips"), whose logged meals stay as they are. A new name each time
# composites are added (-2: beans on toast; -3: sausages and mash, chips and curry sauce,
# Currywurst; -4: bagel with cream cheese, bacon roll, chip butty, full English breakfast, neeps
# and tatties, Fischbrötchen, Spezi; -5: fettuccine alfredo, chicken alfredo; -6: Spezi Zero;
# -7: peanut butter toast, avocado toast on sourdough, cheese and crackers, cheddar cheese and
# biscuits, Leberwurstbrot, hamburger with fries, chicken and waffles; -8: jam sandwich).
UPGRADE_PART = "composites-any-table-8"

FOODS_FILE = "composites.csv"
INGREDIENTS_FILE = "composite_ingredients.csv"
_FOOD_COLUMNS = ["food", "labels", "aliases", "category", "serving", "note"]
_INGREDIENT_COLUMNS = ["food", "ingredient", "grams"]


def present(seed_dir: Path) -> bool:
    return (Path(seed_dir) / FOODS_FILE).is_file()


def _read(path: Path, columns: list[str]) -> list[tuple[int, dict[str, str]]]:
    if not path.is_file():
        raise SeedError(f"{path}: missing")
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames != columns:
            raise SeedError(f"{path}:1: header must be {','.join(columns)}")
        rows = []
        for row in reader:
            if None in row or any(not (row[c] or "").strip() for c in ("food", columns[-1])):
                raise SeedError(f"{path}:{reader.line_num}: wrong number of cells or an empty "
                                f"{columns[0]}/{columns[-1]}")
            rows.append((reader.line_num, {k: v.strip() for k, v in row.items()}))
        return rows


def labels(seed_dir: Path) -> dict[str, tuple[str, ...]]:
    """Composite food name -> its model labels (none when the folder has no composites)."""
    folder = Path(seed_dir)
    if not present(folder):
        return {}
    return {row["food"]: tuple(x for x in row["labels"].split(";") if x)
            for _line, row in _read(folder / FOODS_FILE, _FOOD_COLUMNS)}


def load(session: Session, seed_dir: Path, *, take_over: bool = False) -> int:
    """Add the composites; every ingredient must be a public food already in the database.
    ``take_over``: a composite missing here takes its labels and aliases from the public rows
    that hold them (an older database's stand-in for the dish) instead of being skipped."""
    folder = Path(seed_dir)
    foods = _read(folder / FOODS_FILE, _FOOD_COLUMNS)
    ingredients: dict[str, list[tuple[int, str, float]]] = {}
    for line, row in _read(folder / INGREDIENTS_FILE, _INGREDIENT_COLUMNS):
        try:
            grams = validate.grams(row["grams"])
        except InvalidValue as error:
            raise SeedError(f"{folder / INGREDIENTS_FILE}:{line}: {error}") from None
        ingredients.setdefault(row["food"], []).append((line, row["ingredient"], grams))
    added = 0
    for line, row in foods:
        where = f"{folder / FOODS_FILE}:{line}"
        parts = ingredients.pop(row["food"], [])
        if not parts:
            raise SeedError(f"{where}: {row['food']!r} has no rows in {INGREDIENTS_FILE}")
        labels = [x for x in row["labels"].split(";") if x]
        aliases = [a for a in row["aliases"].split(";") if a]
        if session.scalar(select(Food.id).where(Food.name_key == name_key(row["food"]),
                                                Food.owner_id.is_(None))) is not None:
            continue
        if take_over:
            _release(session, labels, aliases)
        elif session.scalar(select(FoodLabel.id).where(FoodLabel.label.in_(labels))):
            # A database seeded before composites existed keeps its own row for this dish.
            continue
        sums: dict[str, float | None] = dict.fromkeys(nutrition.STORED_NUTRIENTS, 0.0)
        links, described = [], []
        for position, (ingredient_line, name, grams) in enumerate(parts):
            food = session.scalar(select(Food).where(Food.name_key == name_key(name),
                                                     Food.owner_id.is_(None)))
            if food is None:
                raise SeedError(f"{folder / INGREDIENTS_FILE}:{ingredient_line}: no food named "
                                f"{name!r}")
            for field in nutrition.STORED_NUTRIENTS:
                value, total = getattr(food, field), sums[field]
                sums[field] = None if value is None or total is None else total + value * grams / 100
            links.append(RecipeIngredient(food_id=food.id, position=position, grams=grams,
                                          food_name=food.name))
            described.append(f"{grams:g} g {food.name} ({_entry(food)})")
        total_g = sum(grams for _, _, grams in parts)
        session.add(Food(
            name=row["food"], category=row["category"], fdc_dataset=COMPOSITE_DATASET,
            fdc_description="Composite of food-table rows: " + "; ".join(described),
            proxy_note=row["note"], recipe_servings=1.0,
            search_weight=search.prior(curated=True, survey=False, food_group=row["category"],
                                       description=row["food"]),
            labels=[FoodLabel(label=label) for label in labels],
            aliases=[FoodAlias(alias=a) for a in aliases],
            servings=[Serving(name=row["serving"], grams=total_g, is_default=True,
                              source="the whole composite: " + " + ".join(
                                  f"{g:g} g" for _, _, g in parts))],
            ingredients=links,
            **{k: None if v is None else v * 100 / total_g for k, v in sums.items()},
        ))
        added += 1
    if ingredients:
        raise SeedError(f"{folder / INGREDIENTS_FILE}: ingredients for unknown composites "
                        f"{sorted(ingredients)}")
    session.flush()
    return added


def _entry(food: Food) -> str:
    """Which table row an ingredient is: "SR Legacy NDB 18350", "CoFID 'Cod, in batter, ...'"."""
    if food.fdc_id:
        return f"{food.fdc_dataset} FDC {food.fdc_id}"
    table = datasets.dataset(food.fdc_dataset)
    entry = table.entry if table else "NDB"
    return (f"{food.fdc_dataset} {food.source_code!r}" if entry == "food name"
            else f"{food.fdc_dataset} {entry} {food.source_code}")


def _release(session: Session, labels: list[str], aliases: list[str]) -> None:
    """Take a dish's labels and aliases off the public rows that hold them now."""
    for label in session.scalars(select(FoodLabel).join(Food).where(
            FoodLabel.label.in_(labels), Food.owner_id.is_(None))):
        session.delete(label)
    for alias in session.scalars(select(FoodAlias).join(Food).where(
            FoodAlias.alias_key.in_([name_key(a) for a in aliases]), Food.owner_id.is_(None))):
        session.delete(alias)
    session.flush()
