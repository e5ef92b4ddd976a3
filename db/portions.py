"""What one person's single portion plausibly weighs, per food group, and how a catalog food's
default serving is chosen. ``python -m db check-seed`` reports every default outside its
group's range that is not in db/seed/serving_exceptions.csv.

The ranges are for one portion eaten by one adult at one meal, from the household measures
USDA itself lists (a pat of butter 5 g, a teaspoon of a spice 2 g, a can of cola 368 g, a
restaurant entree 400-600 g). They catch unit slips (1 snail, 1 cup of tartare, a 554 g
restaurant plate), not small differences of appetite.
"""

import csv
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from db.errors import SeedError
from db.keys import name_key

EXCEPTIONS_FILE = "serving_exceptions.csv"

# Grams (low, high) of one plausible portion, by food group / category.
PORTION_RANGE_G: dict[str, tuple[float, float]] = {
    # SR Legacy food groups
    "Dairy and Egg Products": (5, 500),
    "Spices and Herbs": (0.1, 15),
    "Baby Foods": (5, 250),
    "Fats and Oils": (0.3, 40),  # a cooking-spray burst to 2 tbsp of dressing
    "Poultry Products": (20, 400),
    "Soups, Sauces, and Gravies": (5, 600),
    "Sausages and Luncheon Meats": (10, 250),
    "Breakfast Cereals": (15, 300),
    "Fruits and Fruit Juices": (5, 500),
    "Pork Products": (20, 400),
    "Vegetables and Vegetable Products": (5, 400),
    "Nut and Seed Products": (5, 150),
    "Beef Products": (20, 400),
    "Beverages": (1, 500),  # a teaspoon of instant coffee to a 500 ml bottle
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
    "Meat mixed dishes": (60, 450),
    "Shellfish": (25, 350),
    "Fish": (50, 350),
    "Yeast breads": (25, 200),
    "Pasta mixed dishes, excludes macaroni and cheese": (100, 500),
    "Bean, pea, legume dishes": (40, 400),
}
# A default serving above this energy is a measure (a cup of peanut butter), not a portion.
MAX_PORTION_KCAL = 800.0
# Any other category.
DEFAULT_RANGE_G: tuple[float, float] = (10, 600)
# The serving a catalog food gets when none of its household measures is a single portion.
PER_100G_NAME = "100 g"


def portion_range(category: str) -> tuple[float, float]:
    return PORTION_RANGE_G.get(category, DEFAULT_RANGE_G)


def plausible(category: str, grams: float) -> bool:
    low, high = portion_range(category)
    return low <= grams <= high


# How a household measure reads as one person's portion, best first: USDA's own serving
# a medium one, USDA's own serving ("1 NLEA serving"), a natural unit (1 slice, 1 can, 1 large egg), a cup or a
# 3-oz cooked-meat portion, and last bare units (1 fl oz, 1 tbsp, 1 oz, 1 package) and
# miniature pieces, which are measures rather than portions.
_SERVING_RE = re.compile(r"\bserving\b")
_MEDIUM_RE = re.compile(r"\bmedium\b")
_CUP_RE = re.compile(r"^[\d.]+ (cup|3 oz)\b|^3 oz\b")
_UNIT_RE = re.compile(r"^[\d./]+ (fl oz|oz|tbsp|tsp|lb|g|quart|pint|liter|gallon|package|"
                      r"unit \(yield|cubic inch)\b|\b(mini|miniature|cherry)\b")


def _preference(name: str) -> int:
    text = name.lower()
    if _MEDIUM_RE.search(text):
        return 0
    if _SERVING_RE.search(text):
        return 1
    if _UNIT_RE.search(text):
        return 4
    if _CUP_RE.search(text):
        return 3
    return 2


def choose_default(category: str, measures: Sequence[tuple[str, float]],
                   kcal_per_100g: float | None = None) -> int | None:
    """Index of the default serving among ``measures`` ((name, grams) in USDA's order): of
    those inside the category's range, the one that best reads as a portion (``_preference``;
    a measure of more than MAX_PORTION_KCAL comes last, so peanut butter is 2 tbsp, not a
    cup; USDA's order breaks ties). None when none is in range (the caller then uses 100 g,
    or the measure nearest the range when 100 g is outside it too)."""
    inside = [i for i, (_name, grams) in enumerate(measures) if plausible(category, grams)]
    if not inside:
        return None

    def too_rich(grams: float) -> bool:
        return kcal_per_100g is not None and kcal_per_100g * grams / 100 > MAX_PORTION_KCAL

    return min(inside, key=lambda i: (too_rich(measures[i][1]), _preference(measures[i][0]), i))


def nearest(category: str, measures: Sequence[tuple[str, float]]) -> int:
    """Index of the measure closest (by ratio) to the category's range."""
    low, high = portion_range(category)

    def distance(grams: float) -> float:
        return low / grams if grams < low else grams / high

    return min(range(len(measures)), key=lambda i: distance(measures[i][1]))


def default_problems(defaults: list[tuple[str, str, str, str, float]],
                     exceptions: dict[str, "ServingException"]) -> list[str]:
    """One line per default serving outside its category's range and not excepted.
    ``defaults``: (where, food, category, serving name, grams) per food."""
    problems = []
    for where, food, category, serving, grams in defaults:
        if plausible(category, grams) or name_key(food) in exceptions:
            continue
        low, high = portion_range(category)
        problems.append(f"{where}: default serving {serving!r} ({grams:g} g) of {food!r} is not "
                        f"one plausible portion for {category!r} ({low:g}-{high:g} g); pick "
                        f"another or explain it in {EXCEPTIONS_FILE}")
    return problems


@dataclass(frozen=True)
class ServingException:
    food: str
    serving: str
    reason: str


def read_exceptions(seed_dir: Path) -> dict[str, ServingException]:
    """Foods whose default serving may lie outside the range, with the reason (by food name
    key). A missing file means no exceptions."""
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
