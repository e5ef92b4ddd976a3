"""What one person's single portion plausibly weighs, per food group, and how a catalog food's
default serving is chosen. ``python -m db check-seed`` reports every default outside its
group's range that is not in db/seed/serving_exceptions.csv.

The ranges are for one portion eaten by one adult at one meal, from the household measures
USDA itself lists (a pat of butter 5 g, a teaspoon of a spice 2 g, a can of cola 368 g, a
restaurant entree 400-600 g). They catch unit slips (1 snail, 1 cup of tartare, a 554 g
restaurant plate), not small differences of appetite.
"""

import csv
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from db.errors import SeedError

EXCEPTIONS_FILE = "serving_exceptions.csv"

# Grams (low, high) of one plausible portion, by food group / category.
PORTION_RANGE_G: dict[str, tuple[float, float]] = {
    # SR Legacy food groups
    "Dairy and Egg Products": (5, 500),
    "Spices and Herbs": (0.1, 15),
    "Baby Foods": (5, 250),
    "Fats and Oils": (2, 30),
    "Poultry Products": (20, 400),
    "Soups, Sauces, and Gravies": (5, 600),
    "Sausages and Luncheon Meats": (10, 250),
    "Breakfast Cereals": (15, 300),
    "Fruits and Fruit Juices": (5, 500),
    "Pork Products": (20, 400),
    "Vegetables and Vegetable Products": (5, 400),
    "Nut and Seed Products": (5, 150),
    "Beef Products": (20, 400),
    "Beverages": (1, 750),
    "Finfish and Shellfish Products": (20, 400),
    "Legumes and Legume Products": (10, 400),
    "Lamb, Veal, and Game Products": (20, 400),
    "Baked Products": (5, 250),
    "Sweets": (1, 200),
    "Cereal Grains and Pasta": (5, 350),
    "Fast Foods": (20, 700),
    "Meals, Entrees, and Side Dishes": (50, 600),
    "Snacks": (5, 200),
    "American Indian/Alaska Native Foods": (5, 500),
    "Restaurant Foods": (20, 500),
    # FNDDS categories of the curated foods the photo models name
    "Cakes and pies": (40, 180),
    "Meat mixed dishes": (80, 450),
    "Shellfish": (40, 350),
    "Fish": (50, 350),
    "Yeast breads": (25, 200),
    "Pasta mixed dishes, excludes macaroni and cheese": (100, 500),
    "Bean, pea, legume dishes": (40, 400),
}
# Any other category.
DEFAULT_RANGE_G: tuple[float, float] = (10, 600)
# The serving a catalog food gets when none of its household measures is a single portion.
PER_100G_NAME = "100 g"


def portion_range(category: str) -> tuple[float, float]:
    return PORTION_RANGE_G.get(category, DEFAULT_RANGE_G)


def plausible(category: str, grams: float) -> bool:
    low, high = portion_range(category)
    return low <= grams <= high


def choose_default(category: str, measures: Sequence[tuple[str, float]]) -> int | None:
    """Index of the default serving among ``measures`` ((name, grams) in USDA's order): the
    first one inside the category's range; None when none is (the caller then uses 100 g, or
    the measure nearest the range when 100 g is outside it too)."""
    for index, (_name, grams) in enumerate(measures):
        if plausible(category, grams):
            return index
    return None


def nearest(category: str, measures: Sequence[tuple[str, float]]) -> int:
    """Index of the measure closest (by ratio) to the category's range."""
    low, high = portion_range(category)

    def distance(grams: float) -> float:
        return low / grams if grams < low else grams / high

    return min(range(len(measures)), key=lambda i: distance(measures[i][1]))


@dataclass(frozen=True)
class ServingException:
    food: str
    serving: str
    reason: str


def read_exceptions(seed_dir: Path) -> dict[str, ServingException]:
    """Foods whose default serving may lie outside the range, with the reason (by food name
    key). A missing file means no exceptions."""
    from db.keys import name_key

    path = Path(seed_dir) / EXCEPTIONS_FILE
    if not path.is_file():
        return {}
    out: dict[str, ServingException] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames != ["food", "serving", "reason"]:
            raise SeedError(f"{path}:1: header must be food,serving,reason")
        for row in reader:
            if not (row["food"] or "").strip() or not (row["reason"] or "").strip():
                raise SeedError(f"{path}:{reader.line_num}: food and reason are required")
            out[name_key(row["food"])] = ServingException(row["food"], row["serving"],
                                                          row["reason"])
    return out
