"""What one person eats as one portion, and how a catalog food's default serving is chosen from
USDA's household measures. ``python -m db check-seed`` reports every default that is not one
portion as eaten and not in db/seed/serving_exceptions.csv.

A portion is one adult's at one meal: its grams inside the food group's range (from the
household measures USDA itself lists: a pat of butter 5 g, a teaspoon of a spice 2 g, a can of
cola 368 g, a restaurant entree 400-600 g), at most 800 kcal and 90 g carbohydrate, and for a
food not eaten as sold (condensed soup, juice concentrate, dry rice, pasta and pulses) the
amount that makes one portion as eaten. The rules catch unit slips (1 snail, 1 cup of tartare,
a cup of raw rice, a whole can of condensed soup), not small differences of appetite.
"""

import csv
import math
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
    "Soups, Sauces, and Gravies": (2, 600),  # a bouillon cube (one cup of broth) to a bowl
    "Sausages and Luncheon Meats": (10, 250),
    "Breakfast Cereals": (10, 300),  # USDA's serving of puffed cereal is 14 g
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
    "Restaurant Foods": (20, 650),  # one restaurant order (USDA: 500-600 g)
    # FNDDS categories of the curated foods the photo models name
    "Cakes and pies": (40, 180),
    "Meat mixed dishes": (60, 450),
    "Shellfish": (25, 350),
    "Fish": (50, 350),
    "Yeast breads": (25, 200),
    "Pasta mixed dishes, excludes macaroni and cheese": (100, 500),
    "Bean, pea, legume dishes": (40, 400),
    "Rice mixed dishes": (200, 600),  # a plate or a bowl
}
# A default above this energy or carbohydrate is a measure (a cup of peanut butter, a cup of
# raw rice, a can of juice concentrate), not what one person eats at a meal.
MAX_PORTION_KCAL = 800.0
MAX_PORTION_CARB_G = 90.0
# Any other category.
DEFAULT_RANGE_G: tuple[float, float] = (10, 600)
# The serving a catalog food gets when none of its household measures is a single portion.
PER_100G_NAME = "100 g"
# How many defaults fall in each band of carbohydrate per portion (check-seed prints them).
CARB_BANDS_G: tuple[float, ...] = (5, 15, 30, 45, 60, 90)


def portion_range(category: str) -> tuple[float, float]:
    return PORTION_RANGE_G.get(category, DEFAULT_RANGE_G)


# A food's form, when it is not eaten as it is sold: condensed soup is diluted with as much
# water, juice concentrate with three times as much, dry grains, pasta and pulses cook to two
# to three times their weight. One portion of such a food is what makes one portion as eaten.
_CONDENSED_RE = re.compile(r"\bcondensed\b")
# Juice "from concentrate" is juice as drunk, not the concentrate.
_CONCENTRATE_RE = re.compile(r"(?<!from )\bconcentrate\b")
_PREPARED_RE = re.compile(r"\b(prepared|diluted|reconstituted|cooked|ready-to-serve|"
                          r"ready-to-drink|ready to serve|made (with|from)|from dry mix)\b")
_DRY_RE = re.compile(r"\b(raw|dry|uncooked)\b")
_DRY_GROUPS = ("Cereal Grains and Pasta", "Legumes and Legume Products", "Breakfast Cereals")
_NOT_COOKED_TO_EAT = re.compile(r"\b(peanuts?|tofu|soy milk|soymilk|sprouted|flour|meal|bran|"
                                r"germ|starch|chips?|snack|ready-to-eat)\b")
_DRY_MIX_RE = re.compile(r"\b(dry form|dry,? mix|mix, dry|dehydrated)\b")
_SERVING_RE = re.compile(r"\bserving\b")  # USDA's own serving ("1 NLEA serving")
# (Smallest, largest) grams of one portion of each form, and why (check-seed says it).
FORM_RANGE_G: dict[str, tuple[float, float, str]] = {
    "condensed": (0.0, 150.0, "1/2 cup makes 1 cup of soup with water"),
    "concentrate": (0.0, 80.0, "2 fl oz makes an 8 fl oz glass with water"),
    "dry": (25.0, 60.0, "1/4 cup of dry rice or beans, 1/2 cup of oats, 2 oz of dry pasta "
                        "cook to one serving"),
    "dry mix": (0.0, 60.0, "a dry mix or dehydrated food makes several times its weight"),
}


def food_form(category: str, description: str) -> str | None:
    """"condensed", "concentrate", "dry" (grains, pasta, pulses, hot cereals to be cooked) or
    "dry mix" for a food sold in a form that is not eaten as it is; None for the rest."""
    text = description.lower()
    if _PREPARED_RE.search(text):
        return None
    if _CONDENSED_RE.search(text):
        return "condensed"
    if _CONCENTRATE_RE.search(text) and category in ("Beverages", "Fruits and Fruit Juices"):
        return "concentrate"
    if category in _DRY_GROUPS and _DRY_RE.search(text) and not _NOT_COOKED_TO_EAT.search(text):
        return "dry"
    if _DRY_MIX_RE.search(text):
        return "dry mix"
    return None


@dataclass(frozen=True)
class Food:
    """What the portion rules read of a food: its category (food group), its USDA
    description (its form) and its energy and carbohydrate per 100 g."""

    category: str
    description: str
    kcal_per_100g: float | None
    carbohydrate_per_100g: float | None


def portion_problems(food: Food, grams: float, name: str = "") -> list[str]:
    """Why ``grams`` of ``food`` (a measure called ``name``) is not one person's portion as
    eaten; none: it is. USDA's own serving of a mix or a dry food ("1 package (1 NLEA
    serving)") is one portion as prepared, whatever it weighs dry."""
    problems = []
    low, high = portion_range(food.category)
    if not low <= grams <= high:
        problems.append(f"{grams:g} g is not one plausible portion for {food.category!r} "
                        f"({low:g}-{high:g} g)")
    kcal = None if food.kcal_per_100g is None else food.kcal_per_100g * grams / 100
    if kcal is not None and kcal > MAX_PORTION_KCAL:
        problems.append(f"{kcal:.0f} kcal is more than one portion ({MAX_PORTION_KCAL:g} kcal)")
    carb = None if food.carbohydrate_per_100g is None else food.carbohydrate_per_100g * grams / 100
    if carb is not None and carb > MAX_PORTION_CARB_G:
        problems.append(f"{carb:.0f} g carbohydrate is more than one portion "
                        f"({MAX_PORTION_CARB_G:g} g)")
    form = food_form(food.category, food.description)
    if form is not None and not _SERVING_RE.search(name.lower()):
        least, most, why = FORM_RANGE_G[form]
        if not least <= grams <= most:
            span = f"{least:g}-{most:g} g" if least else f"at most {most:g} g"
            problems.append(f"a {form} food: one portion as eaten is {span} ({why})")
    return problems


# How a household measure reads as one person's portion, best first: the measure one person
# eats of nuts and chocolate (1 oz, "a handful", "a few squares") and a cup of soup (not the
# can, which holds two); a medium one; USDA's own serving ("1 NLEA serving"); a natural unit
# (1 slice, 1 can, 1 large egg); a cup or a 3-oz cooked-meat portion; a bag, box or sleeve
# that holds more than FNDDS's amount for an unspecified quantity (a bag of rice cakes, a
# sleeve of saltines: what is sold, not what is eaten); and last bare units (1 fl oz, 1 tbsp,
# 1 oz, 1 package, 1 ml) and what is bought whole (a head of lettuce, a meat loaf, a bunch)
# and miniature pieces, which are measures, not portions.
_MEDIUM_RE = re.compile(r"\bmedium\b")
_CUP_RE = re.compile(r"^[\d.]+ (cup|3 oz)\b|^3 oz\b")
_UNIT_RE = re.compile(r"^[\d./]+ (fl oz|oz|tbsp|tsp|lb|g|ml|quart|pint|liter|gallon|package|"
                      r"unit \(yield|cubic inch)\b|^1 (head|bunch|loaf|bite size)\b|\b(mini|miniature|cherry)\b|"
                      # FNDDS's amount of a food added to another ("Guideline amount per
                      # cup of hot cereal": milk on porridge, chili on a hot dog)
                      r"^guideline amount\b")
_OUNCE_RE = re.compile(r"^1 oz\b")
_GLASS_RE = re.compile(r"^([4-9]|1[0-9]|20) fl oz\b")  # a glass or a bottle, not 1 fl oz
_ONE_CUP_RE = re.compile(r"^1 (cup|serving 1 cup)\b")
_CHOCOLATE_RE = re.compile(r"^candies, .*\bchocolate\b")
# A soup by its brand's name ("CAMPBELL'S CHUNKY, New England Clam Chowder"): by the cup too.
_SOUP_RE = re.compile(r"\b(soups?|chowder)\b")
# FNDDS's weight for a report without a quantity (a survey mean): behind named measures.
_UNSPECIFIED_RE = re.compile(r"^quantity not specified\b")
# What a food is sold in. One that holds more than this many times FNDDS's amount for an
# unspecified quantity (a survey's amount eaten), where that amount is one portion, holds
# several: FNDDS's "single serving bag" of rice cakes (45 g) or chips (57 g), a sleeve of
# saltines (115 g), against the 18 g, 28 g and 18 g people report eating. Such a container
# ranks with bare measures, and the reported amount of a food sold so comes before its
# natural units and cups (a cup of crackers, a stack of Ritz are measures).
_CONTAINER_RE = re.compile(r"\b(bag|box|package|sleeve|stack|jar|tub|carton|container)\b")
_CONTAINER_SHARE = 1.5


def _holds_several(name: str, grams: float, unspecified_grams: float | None) -> bool:
    return (unspecified_grams is not None and _CONTAINER_RE.search(name.lower()) is not None
            and grams > _CONTAINER_SHARE * unspecified_grams)


# FDA's reference amount customarily consumed (21 CFR 101.12(b) Table 2), grams, for the
# FNDDS categories that are one product class of that table ("Eggs and omelets" holds eggs,
# 50 g, and egg dishes, 110 g; "Salad dressings and vegetable oils" oil, 15 g, and dressing,
# 30 g: neither gets one), and for SR Legacy's cheeses by name (its food group holds milk and
# eggs too).
REFERENCE_AMOUNT_G: dict[str, float] = {
    "Potato chips": 30, "Tortilla, corn, other chips": 30, "Pretzels/snack mix": 30,
    "Popcorn": 30, "Crackers, excludes saltines": 30, "Saltine crackers": 15,
    "Cookies and brownies": 30, "Yeast breads": 50, "Rolls and buns": 50,
    "Doughnuts, sweet rolls, pastries": 55, "Candy containing chocolate": 30,
    "Candy not containing chocolate": 30, "Cheese": 30, "Cottage/ricotta cheese": 110,
    "Yogurt, regular": 170, "Yogurt, Greek": 170, "Nuts and seeds": 30,
    "Mayonnaise": 15, "Butter and animal fats": 14, "Margarine": 14, "Cereal bars": 40,
    "Nutrition bars": 40, "Tortillas": 55, "Pancakes, waffles, French toast": 110,
    "Milk, whole": 240, "Milk, reduced fat": 240, "Milk, lowfat": 240, "Milk, nonfat": 240,
    "Soft drinks": 360, "Diet soft drinks": 360, "Fruit drinks": 240, "Citrus juice": 240,
    "Apple juice": 240, "Other fruit juice": 240,
    # Meat, poultry and fish as eaten (21 CFR 101.12(b) Table 2; 9 CFR 317.312 and 381.412,
    # Table 2, for meat and poultry): cuts, pieces, nuggets and fish or shellfish without sauce
    # 85 g cooked; luncheon meat, sausages and frankfurters 55 g; bacon 15 g (for jerky, dried
    # beef, prosciutto and pork rinds see _MEAT_BY_DESCRIPTION).
    "Beef, excludes ground": 85, "Ground beef": 85, "Pork": 85, "Lamb, goat, game": 85,
    "Liver and organ meats": 85, "Chicken, whole pieces": 85,
    "Chicken patties, nuggets and tenders": 85, "Turkey, duck, other poultry": 85, "Fish": 85,
    "Shellfish": 85, "Sausages": 55, "Frankfurters": 55, "Cold cuts and cured meats": 55,
    "Bacon": 15,
}
# Meat eaten by the piece, slice or steak, for which a cup (diced, pieces) is a measure of volume,
# not one portion: behind FNDDS's amount for an unspecified quantity.
_MEAT_CATEGORIES = frozenset(category for category, grams in REFERENCE_AMOUNT_G.items()
                             if category in ("Beef, excludes ground", "Ground beef", "Pork",
                                             "Lamb, goat, game", "Liver and organ meats",
                                             "Chicken, whole pieces",
                                             "Chicken patties, nuggets and tenders",
                                             "Turkey, duck, other poultry", "Fish", "Shellfish",
                                             "Sausages", "Frankfurters",
                                             "Cold cuts and cured meats", "Bacon"))
# Products of those categories that the table lists apart: dried meat (jerky, dried beef, Parma
# ham) 30 g; pork rinds (with bacon) 15 g.
_MEAT_BY_DESCRIPTION: tuple[tuple[re.Pattern[str], float], ...] = (
    (re.compile(r"\b(jerky|dried|prosciutto)\b"), 30.0),
    (re.compile(r"\b(rinds?|cracklings)\b"), 15.0))
_SR_CHEESES: tuple[tuple[re.Pattern[str], float], ...] = (
    (re.compile(r"^cheese, (cottage|ricotta)\b"), 110.0), (re.compile(r"^cheese(?! sauce)\b"), 30.0))
_CHEESE_CATEGORIES = ("Cheese", "Cottage/ricotta cheese")
# A cup, can, jar, box or package is a measure of volume or what is sold; weighing over twice
# or under half the food's reference amount (a cup of Parmesan 100 g, of cottage cheese 226 g,
# of popcorn 11 g; a box of Limburger 113 g) it is not what one person eats, and it ranks last,
# behind even bare measures (1 oz, 1 tbsp). A natural unit (one roll, one pretzel, one order)
# is one as eaten whatever it weighs. Cheese is eaten by the ounce, slice, spoon or half cup,
# never by the whole cup (cottage cheese's 210 g included).
_MEASURE_OF_VOLUME_RE = re.compile(r"^[\d./]+ (cups?|can|jar|box|package|container|tub)\b")
_WHOLE_CUP_RE = re.compile(r"^1 cups?\b")
_OFF_REFERENCE_SHARE = 2.0
_OFF_REFERENCE_RANK = 7


def _sr_cheese_reference(food: Food) -> float | None:
    if food.category != "Dairy and Egg Products":
        return None
    text = food.description.lower()
    return next((grams for pattern, grams in _SR_CHEESES if pattern.search(text)), None)


# Fruit, fresh, canned or frozen (21 CFR 101.12(b) Table 2: "all other fruits" 140 g, watermelon
# 280 g): FNDDS's fruit categories and SR Legacy's raw fruits, not those the table lists apart
# (lemon and lime, cranberries, maraschino cherries, cranberry sauce, candied, pickled or
# chocolate-covered fruit, pie filling, fruit salad with dressing, juices, dried fruit, avocado).
_FRUIT_CATEGORIES = frozenset({
    "Apples", "Bananas", "Grapes", "Peaches and nectarines", "Strawberries",
    "Blueberries and other berries", "Citrus fruits", "Melons", "Pears", "Pineapple",
    "Mango and papaya", "Other fruits and fruit salads"})
_SR_FRUIT_GROUP = "Fruits and Fruit Juices"
_SR_RAW_RE = re.compile(r"\braw\b")
_NOT_FRUIT_140_RE = re.compile(r"\b(lemons?|limes?|cranberr(y|ies)|maraschino|sauce|candied|pickled|"
                               r"chocolate|pie filling|dressing|juices?|dried|dehydrated|avocados?)\b")
_FRUIT_REFERENCE_G = 140.0
_WATERMELON_REFERENCE_G = 280.0


def _fruit_reference(food: Food) -> float | None:
    text = food.description.lower()
    fruit = food.category in _FRUIT_CATEGORIES or (
        food.category == _SR_FRUIT_GROUP and _SR_RAW_RE.search(text) is not None)
    if not fruit or _NOT_FRUIT_140_RE.search(text):
        return None
    return _WATERMELON_REFERENCE_G if "watermelon" in text else _FRUIT_REFERENCE_G


def reference_amount(food: Food) -> float | None:
    """FDA's reference amount for ``food``'s category in grams; None where none is one."""
    fruit = _fruit_reference(food)
    if fruit is not None:
        return fruit
    if food.category in _MEAT_CATEGORIES:
        text = food.description.lower()
        found = next((grams for pattern, grams in _MEAT_BY_DESCRIPTION if pattern.search(text)),
                     None)
        if found is not None:
            return found
    return REFERENCE_AMOUNT_G.get(food.category) or _sr_cheese_reference(food)


def _off_reference(name: str, food: Food, grams: float) -> bool:
    text = name.lower()
    if _WHOLE_CUP_RE.search(text) and (food.category in _CHEESE_CATEGORIES
                                       or _sr_cheese_reference(food) is not None):
        return True
    reference = reference_amount(food)
    return (reference is not None and _MEASURE_OF_VOLUME_RE.search(text) is not None
            and not reference / _OFF_REFERENCE_SHARE <= grams <= reference * _OFF_REFERENCE_SHARE)


# A natural unit of meat, poultry or fish (one slice, piece, nugget, tender, wing, liver) weighing
# under half the food's reference amount is not one portion (a 30 g slice of steak, a 16 g nugget against 85 g of
# cooked meat): it ranks behind FNDDS's amount for an unspecified quantity and cups, and a count
# of it that makes one ("5 nuggets", "3 pieces/slices") is offered as a portion of its own.
_SMALL_UNIT_SHARE = 0.5
_SMALL_UNIT_RANK = 5
_NATURAL_UNIT_RANKS = (1, 3)
# A cup of diced meat, fish or pieces ranks behind FNDDS's amount for an unspecified quantity.
_MEAT_CUP_RE = re.compile(r"^[\d./]+ cups?\b")
_MEAT_CUP_RANK = 4.5
_SPOON_RE = re.compile(r"\b(tablespoons?|teaspoons?)\b")  # a measure (of seafood sauce)


def _small_unit(name: str, food: Food, grams: float) -> bool:
    reference = reference_amount(food)
    return (food.category in _MEAT_CATEGORIES and reference is not None
            and grams < reference * _SMALL_UNIT_SHARE
            and _rank(name, food) in _NATURAL_UNIT_RANKS and not _SPOON_RE.search(name.lower()))


# A piece of a fruit (a slice or chunk of papaya 40 g, 50 blueberries 68 g, a medium wedge of
# cantaloupe 70 g) at most half its reference amount, one fruit under a quarter of it (a
# strawberry, a lychee) or over twice it (a grapefruit 308 g, a mango 336 g) is no default: the
# best-ranked measure within half to twice the reference amount is, the nearest to it first (a
# cup of papaya, half a grapefruit). An apricot, a plum, a kiwi stay one.
_FRUIT_PART_RE = re.compile(r"^[\d./]+ ((small|medium|large|thin|thick) )?(slices?|chunks?|pieces?|"
                            r"wedges?|cubes?|balls?|berry|berries|grapes?|cherry|cherries|"
                            r"segments?|sections?|rings?|spears?|strips?|halves|half)\b")
_FRUIT_FEW_SHARE = 0.25


def _fruit_not_a_portion(name: str, food: Food, grams: float) -> bool:
    reference = _fruit_reference(food)
    if reference is None or _rank(name, food) not in _NATURAL_UNIT_RANKS:
        return False
    if _FRUIT_PART_RE.match(name.lower()):
        return grams <= reference * _SMALL_UNIT_SHARE
    return grams < reference * _FRUIT_FEW_SHARE or grams > reference * _OFF_REFERENCE_SHARE


# A small unit (its name says so, not "small/regular") weighing at most half FNDDS's amount for
# an unspecified quantity (the survey's mean amount eaten) is not what is eaten: a small
# turnover or empanada (35 g) where people eat 105 g. It ranks behind that amount, so a regular
# unit or the amount eaten is the default.
_EATEN_SHARE = 0.5
_SMALL_RE = re.compile(r"\bsmall\b(?!/regular)")


def _under_eaten(name: str, food: Food, grams: float, unspecified_grams: float | None) -> bool:
    return (unspecified_grams is not None and grams <= unspecified_grams * _EATEN_SHARE
            and _SMALL_RE.search(name.lower()) is not None
            and _rank(name, food) in _NATURAL_UNIT_RANKS)


# A default weighing a third or less of what people report eating (FNDDS's amount for an
# unspecified quantity, where that is one portion) is no portion whatever its name: one piece
# of broccoli (10 g of 80), one baby carrot, one piece of sushi (30 g of 180), one Oreo (11 g
# of 42), a tablespoon of dip (15 g of 60). That amount is the default instead (not a whole
# cucumber or a cup of canned figs, which may be as far over).
_FAR_UNDER_SHARE = 1 / 3


def _preference(name: str, food: Food, grams: float,
                unspecified_grams: float | None, sold_packed: bool) -> float:
    """How well ``name`` reads as one portion, 0 best; ``unspecified_grams``: the food's
    "Quantity not specified" weight when it is one portion; ``sold_packed``: one of the food's
    containers holds several such amounts."""
    if _off_reference(name, food, grams):
        return _OFF_REFERENCE_RANK
    if _small_unit(name, food, grams) or _under_eaten(name, food, grams, unspecified_grams):
        return _SMALL_UNIT_RANK
    rank = _rank(name, food)
    if food.category in _MEAT_CATEGORIES and _MEAT_CUP_RE.search(name.lower()):
        return max(rank, _MEAT_CUP_RANK)
    if _holds_several(name, grams, unspecified_grams):
        return max(rank, 5)
    if sold_packed and _UNSPECIFIED_RE.search(name.lower()):
        return 3.5
    return rank


def _rank(name: str, food: Food) -> float:
    text, description = name.lower(), food.description.lower()
    if _OUNCE_RE.search(text) and (food.category == "Nut and Seed Products"
                                   or _CHOCOLATE_RE.search(description)):
        return 0
    if _ONE_CUP_RE.search(text) and (description.startswith("soup") or (
            food.category.startswith("Soups") and _SOUP_RE.search(description))):
        return 0
    # A medium bag is a size of container, not a medium one of the food.
    if _MEDIUM_RE.search(text) and not _CONTAINER_RE.search(text):
        return 1
    if _SERVING_RE.search(text):
        return 2
    if _GLASS_RE.search(text) or _UNSPECIFIED_RE.search(text):
        return 4
    if _UNIT_RE.search(text):
        return 6
    if _CUP_RE.search(text):
        return 4
    return 3


@dataclass(frozen=True)
class Choice:
    """The default among a food's measures: ``index`` of a measure; or ``factor`` times the
    measure at ``index``, named ``name`` (a quarter of a cup of dry rice, 3 slices of bacon);
    or neither (``index`` None): 100 g."""

    index: int | None
    factor: float = 1.0
    name: str | None = None


# A sixth of a 12 fl oz can of juice concentrate is the 2 fl oz that make one glass.
_FRACTIONS = ((0.5, "1/2"), (1 / 3, "1/3"), (0.25, "1/4"), (1 / 6, "1/6"))
_WHOLE_CUP_OR_CAN = re.compile(r"^1 (cup|can)\b")
_ONE_UNIT_NAME = re.compile(r"^1 ([a-z]+)\b")
_MAX_UNITS = 6


def _plural(word: str) -> str:
    if word == "foot":
        return "feet"
    if word.endswith(("fish", "shrimp")):
        return word
    if word.endswith("y") and word[-2:-1] not in ("a", "e", "i", "o", "u", ""):
        return word[:-1] + "ies"
    return word + ("es" if word.endswith(("s", "x", "ch", "sh")) else "s")


# "1 piece/slice, any size" -> "3 pieces/slices, any size"; "1 tender or finger" -> "5 tenders
# or fingers": the words before the first comma or parenthesis name the unit, each alternative's
# last word is its noun.
_UNIT_HEAD_RE = re.compile(r"^1 ([A-Za-z][A-Za-z /-]*?[A-Za-z])(?=$|,| \()")


_SIZE_WORDS = frozenset({"small", "medium", "large", "regular", "thin", "thick", "jumbo",
                         "tiny", "big", "giant", "size"})


def _count_name(name: str, count: int) -> str | None:
    head = _UNIT_HEAD_RE.match(name)
    if head is None:
        return None
    parts = re.split(r"(/| or )", head[1])
    if parts[-1].rsplit(" ", 1)[-1].lower() in _SIZE_WORDS:
        return None  # "1 medium", "1 large": a size, not a unit to count
    for i in range(0, len(parts), 2):
        if parts[i].lower() in _SIZE_WORDS:
            continue  # "large/jumbo shrimp": a size of the noun that follows
        words = parts[i].rsplit(" ", 1)
        words[-1] = _plural(words[-1]) if words[-1].islower() else words[-1] + "s"
        parts[i] = " ".join(words)
    return f"{count} {''.join(parts)}{name[head.end():]}"


def _counted_units(food: Food, measures: Sequence[tuple[str, float]]
                   ) -> list[tuple[float, int, int, "Choice"]]:
    """For each natural unit under half the food's reference amount, the count of it nearest
    the reference amount (2 to 6), as (rank, 1, index, choice) to sort with the measures."""
    reference = reference_amount(food)
    found = []
    for i, (name, grams) in enumerate(measures):
        if not _small_unit(name, food, grams) or grams <= 0:
            continue
        count = round(reference / grams)
        counted = _count_name(name, count)
        if (counted is not None and 2 <= count <= _MAX_UNITS
                and not portion_problems(food, grams * count, counted)):
            found.append((float(_rank(name, food)), 1, i, Choice(i, float(count), counted)))
    return found


def choose_default(food: Food, measures: Sequence[tuple[str, float]]) -> Choice:
    """The default serving among ``measures`` ((name, grams) in USDA's order): of those that
    are one portion as eaten (``portion_problems``), the one that best reads as a portion
    (``_preference``; USDA's order breaks ties), a meat, poultry or fish unit under half its
    reference amount counted to the nearest of it as a candidate too ("5 nuggets", behind a
    real unit of the same rank). None is: the largest fraction of a cup or can (1/2, 1/3,
    1/4, 1/6) that is one and at most the reference amount, or the fewest natural units (2 to
    6 slices, pieces) that make one, or 100 g when that is one; else the measure with the
    fewest problems."""
    fits = [i for i, (name, grams) in enumerate(measures)
            if not portion_problems(food, grams, name)]
    unspecified = next((grams for name, grams in measures if _UNSPECIFIED_RE.search(
        name.lower()) and not portion_problems(food, grams, name)), None)
    packed = any(_holds_several(name, grams, unspecified) for name, grams in measures)
    if fits:
        ranked = [(_preference(measures[i][0], food, measures[i][1], unspecified, packed), 0, i,
                   Choice(i)) for i in fits]
        best = min([*ranked, *_counted_units(food, measures)], key=lambda item: item[:3])[3]
        grams = measures[best.index][1] * best.factor if best.index is not None else 100.0
        if unspecified is not None and grams <= unspecified * _FAR_UNDER_SHARE:
            best = Choice(next(i for i in fits if _UNSPECIFIED_RE.search(measures[i][0].lower())))
        return _fruit_portion(food, measures, ranked, best)
    # A fraction is ours to choose: at most the food's reference amount where it has one
    # (1/6 cup of chia seeds, 28 g, not half a cup).
    most = reference_amount(food) or float("inf")
    for i, (name, grams) in enumerate(measures):
        if _WHOLE_CUP_OR_CAN.search(name.lower()):
            for factor, text in _FRACTIONS:
                if grams * factor <= most and not portion_problems(food, grams * factor):
                    return Choice(i, factor, _WHOLE_CUP_OR_CAN.sub(
                        lambda found: f"{text} {found[1]}", name))
    low = portion_range(food.category)[0]
    for i, (name, grams) in enumerate(measures):
        unit = _ONE_UNIT_NAME.match(name.lower())
        if unit and grams < low and _rank(name, food) == 3:
            for count in range(2, _MAX_UNITS + 1):
                if not portion_problems(food, grams * count):
                    return Choice(i, float(count),
                                  f"{count} {_plural(unit[1])}{name[len(unit[1]) + 2:]}")
    if not portion_problems(food, 100.0) or not measures:
        return Choice(None)
    return Choice(min(range(len(measures)), key=lambda i: (
        len(portion_problems(food, measures[i][1], measures[i][0])),
        _rank(measures[i][0], food), i)))


def _fruit_portion(food: Food, measures: Sequence[tuple[str, float]],
                   ranked: list[tuple[float, int, int, Choice]], best: Choice) -> Choice:
    """``best``, or where it is a fruit's piece or whole that is no portion
    (``_fruit_not_a_portion``), the best-ranked of ``ranked`` within half to twice the fruit's
    reference amount, the nearest to it first."""
    name, grams = measures[best.index] if best.index is not None else ("", 100.0)
    if best.factor != 1.0 or not _fruit_not_a_portion(name, food, grams):
        return best
    reference = _fruit_reference(food) or 0.0
    within = [(rank, abs(math.log(measures[i][1] / reference)), i, choice)
              for rank, _, i, choice in ranked
              if reference * _SMALL_UNIT_SHARE < measures[i][1] <= reference * _OFF_REFERENCE_SHARE]
    return min(within)[3] if within else best


@dataclass(frozen=True)
class DefaultServing:
    """One food's default serving, for the check: where it is written, the food, the
    serving's name and grams."""

    where: str
    food: str
    portion_food: Food
    serving: str
    grams: float


def default_problems(defaults: Sequence[DefaultServing],
                     exceptions: dict[str, "ServingException"]) -> list[str]:
    """One line per default serving that is not one portion as eaten and not excepted."""
    problems = []
    for default in defaults:
        if name_key(default.food) in exceptions:
            continue
        found = portion_problems(default.portion_food, default.grams, default.serving)
        if found:
            problems.append(f"{default.where}: default serving {default.serving!r} "
                            f"({default.grams:g} g) of {default.food!r}: {'; '.join(found)}; "
                            f"pick another or explain it in {EXCEPTIONS_FILE}")
    return problems


def carbohydrate_bands(defaults: Sequence[DefaultServing]) -> dict[str, int]:
    """How many default servings hold how much carbohydrate ("15-30 g": 1234), in
    CARB_BANDS_G's bands; "unknown" where USDA gives no carbohydrate."""
    edges = (0.0, *CARB_BANDS_G)
    names = [f"{a:g}-{b:g} g" for a, b in zip(edges, edges[1:])] + [f"over {edges[-1]:g} g"]
    counts = dict.fromkeys([*names, "unknown"], 0)
    for default in defaults:
        per_100g = default.portion_food.carbohydrate_per_100g
        if per_100g is None:
            counts["unknown"] += 1
            continue
        carb = per_100g * default.grams / 100
        band = next((i for i, edge in enumerate(CARB_BANDS_G) if carb < edge), len(CARB_BANDS_G))
        counts[names[band]] += 1
    return counts


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


# Servings that name a measure but are no portion of it ("Guideline amount per slice of
# bread/roll" is peanut butter for one slice).
_NOT_A_MEASURED_SERVING_RE = re.compile(r"^(guideline|quantity not specified)", re.IGNORECASE)
_SERVING_WORD_RE = re.compile(r"[a-z]+")


# The sizes a query's measure may carry (db.search.SIZE_SERVINGS' values).
_MEASURE_SIZES = frozenset({"small", "medium", "large", "mini", "fun", "king", "snack"})


def measured_serving(servings: Sequence[tuple[str, bool]], measure: Sequence[str]) -> int | None:
    """The index of the serving (name, is default) that a query's measure asks for
    (db.search.query_measure: "tablespoon of sugar" -> "1 tablespoon", not the packet): the
    default where it names the measure, else one whose measure is the name's first word
    ("1 slice" over "1 thin slice"), else a regular or medium one, else the shortest name; None
    when no serving names the measure (the default stands). A measure led by an amount
    ("2 slices", "1/2 can", "100 ml") asks for a serving of that amount, one without ("a
    slice") for one: where the food has none, one of the measure ("1 slice" for two; none for a
    metric amount), as no serving is made up."""
    amount = measure[0] if measure and _AMOUNT_RE.match(measure[0]) else None
    wanted = set(measure[1:] if amount else measure)
    # a size beside a measure ("mini box"): the measure's serving of that size first
    sizes = wanted & _MEASURE_SIZES if wanted - _MEASURE_SIZES - {COUNTED} else set()
    wanted -= sizes

    def fit(item: tuple[int, tuple[str, bool]]) -> tuple:
        name, is_default = item[1]
        found = _serving_words(name)
        return (not sizes.isdisjoint(found), is_default, bool(found) and found[0] in wanted,
                not {"regular", "medium"}.isdisjoint(found), -len(found))

    named = [(i, s) for i, s in enumerate(servings)
             if not _NOT_A_MEASURED_SERVING_RE.match(s[0])
             and not wanted.isdisjoint(_serving_words(s[0]))]
    if wanted <= _METRIC_UNITS:
        named = [(i, s) for i, s in named if _serving_amount(s[0], wanted) == amount]
    else:
        named = next((found for found in (
            [(i, s) for i, s in named if _serving_amount(s[0], wanted) == amount],
            [(i, s) for i, s in named if _serving_amount(s[0], wanted) in ("1", None)])
            if found), named)
    return max(named, key=fit)[0] if named else None


def _serving_words(name: str) -> list[str]:
    """A serving name's words, a plural read as its measure ("2 slices": slice)."""
    return ["mini" if w == "miniature" else
            w[:-1] if w.endswith("s") and not w.endswith("ss") and len(w) > 3 else w
            for w in _SERVING_WORD_RE.findall(name.lower())]


_AMOUNT_RE = re.compile(r"^\d+(/\d+)?$")
_METRIC_UNITS = frozenset({"ml", "g"})
_LEADING_AMOUNT_RE = re.compile(r"^(\d+(?:\.\d+)?(?:/\d+)?)\b")  # "2 slices", "1/2 can", "0.5 cup"


def _serving_amount(name: str, wanted: set[str]) -> str | None:
    """The amount a serving's name gives: its leading number ("2 slices", "1/2 can"), one where
    it names the measure wanted in brackets ("2 cups (a bowl)"), or for a metric unit the number
    before it ("1 serving 100 ml")."""
    if wanted <= _METRIC_UNITS:
        found = re.search(r"\b(\d+) ?(" + "|".join(sorted(wanted)) + r")\b", name.lower())
        return found[1] if found else None
    if re.search(r"\(an? (" + "|".join(map(re.escape, sorted(wanted))) + r")\)", name.lower()):
        return "1"  # "2 cups (a bowl)" is one bowl
    found = _LEADING_AMOUNT_RE.match(name)
    return found[1] if found else None


# Millilitres in a volume a serving's name or a query gives ("1 cup (8 fl oz)", "1 bottle (500
# ml)", "tablespoon of sugar"): the US customary measures FNDDS and SR Legacy weigh (a UK pint
# arrives as millilitres: db.search.query_measure).
_ML_IN = {"fl oz": 29.5735, "ml": 1.0, "cup": 236.588, "cups": 236.588, "tablespoon": 14.7868,
          "tbsp": 14.7868, "teaspoon": 4.92892, "tsp": 4.92892, "liter": 1000.0, "l": 1000.0,
          "pint": 473.176}
_VOLUME_RE = re.compile(r"(\d+(?:\.\d+)?|\d+/\d+)\s*(fl oz|ml|cups?|tablespoon|tbsp|teaspoon|tsp|"
                        r"liter|l|pint)\b", re.IGNORECASE)
# Grams per millilitre outside this range come from no food's volume servings (a sliced leaf's
# cup weighs 0.1 g/ml, honey 1.4).
_DENSITY = (0.05, 2.0)
GRAMS_PER_OUNCE = 28.3495


def measured_amount(servings: Sequence[tuple[str, float, bool]], measure: Sequence[str],
                    index: int | None, food: str = "") -> tuple[float, str] | None:
    """(grams, what they are) where a query's measure (db.search.query_measure) asks for an
    amount that is not one of the food's servings: "two slices of toast" is twice the "1 slice"
    serving ``index`` (measured_serving), "half a can of coke" half the can, "200 g pasta" 200
    g, "4 oz steak" 113 g; a volume the food has no serving of ("tablespoon of sugar", "100 ml
    orange juice") is weighed at the food's own grams per millilitre, from its servings named in
    a volume (its cup: sugar's tablespoon is a sixteenth of its cup). None where the measure
    asks for the serving ``index`` itself, or for a volume of a food with no volume serving."""
    if not measure:
        return None
    if measure[1:2] == (COUNTED,) and (len(measure) == 2 or index is None):
        # "12 grapes", "2 eggs": that many of one of it; "3 small potatoes" where the food
        # has no small serving too (with one, that many of it, as "2 slices" below)
        one = _one_of_it(servings, food)
        if one is None or re.search(rf"\b{measure[0]}\b", food):  # "3 Musketeers" names its 3
            return None
        name, grams = one
        return round(grams * _fraction(measure[0]), 1), f"{measure[0]} × {name}"
    counted = _AMOUNT_RE.match(measure[0]) is not None
    amount, unit = (_fraction(measure[0]), measure[1]) if counted else (1.0, measure[0])
    shown = measure[0] if counted else "1"
    if unit == "g":
        return amount, f"{shown} g"
    if unit == "oz":
        return round(amount * GRAMS_PER_OUNCE, 1), f"{shown} oz"
    if unit == "ml" or (index is None and unit in _ML_IN):
        density = _grams_per_ml(servings)
        return None if density is None else (round(amount * _ML_IN[unit] * density, 1),
                                             f"{shown} {_UNIT_SHOWN.get(unit, unit)}")
    if index is None:
        return None
    # "1 cup of cucumber" where the food's cup serving is "0.5 cup, slices": twice it
    name, grams, _ = servings[index]
    own = _serving_amount(name, set(measure[1:] if counted else measure))
    count = amount / ((_fraction(own) if own else 0.0) or 1.0)  # no "0 cup" divides
    return None if count == 1.0 else (round(grams * count, 1), f"{count:g} × {name}")


_UNIT_SHOWN = {"tablespoon": "tbsp", "teaspoon": "tsp"}
# A count of a food (db.search.query_measure's COUNTED) multiplies a default that is one of it ("1 tender", "1
# medium", "1 roll"), not a measure of weight or volume ("1 oz", "1 cup", "1 portion").
COUNTED = "*"
_ONE_OF_IT_RE = re.compile(r"^1 (?!(oz|ounce|g|gram|lb|cups?|tbsp|tsp|tablespoon|teaspoon|fl oz|ml|"
                           r"serving|portion|quantity|guideline|package|container|bag|box|nlea)\b)",
                           re.IGNORECASE)


# A default that is a part of the food, not one of it: "2 avocados" are not two slices.
_PART_OF_IT_RE = re.compile(r"^1 (slice|piece|wedge|strip|cube|chunk|spear|floret|segment|ring|"
                            r"section|leaf)s?\b", re.IGNORECASE)
# A serving that is one whole of the food, by its size ("1 medium", "1 fruit without skin").
_WHOLE_RE = re.compile(r"^1 (small|medium|large|extra large|whole|fruit|item|regular)\b",
                       re.IGNORECASE)
_WHOLE_ORDER = ("medium", "regular", "whole", "fruit", "item", "small", "large", "extra large")


def _one_of_it(servings: Sequence[tuple[str, float, bool]], food: str) -> tuple[str, float] | None:
    """(name, grams) of one of the food: its default where that is one of it ("1 large" egg,
    "1 medium" banana, "1 tender"), else a serving that counts the food by its name's first
    word ("10 grapes" of "Grapes, red or green": a tenth of it), else one whole of it ("1
    fruit", "1 medium"), else a default that is a part of it ("1 slice"), else None (a default
    of "1 NLEA serving" or "1 cup" is no count of it)."""
    default = next(((n, g) for n, g, is_default in servings if is_default), None)
    counts = (default is not None and _ONE_OF_IT_RE.match(default[0]) is not None
              and not _VOLUME_RE.search(default[0]))
    if counts and not _PART_OF_IT_RE.match(default[0]):
        return default
    # the name's first part first ("10 grapes"), then its other words ("1 sandwich" of
    # "Cookie, chocolate sandwich")
    for part in (food.lower().split(",")[0], food.lower()):
        words = re.findall(r"[a-z]+", part)
        forms = {f for w in words for f in (w, w.rstrip("s"), re.sub(r"(es|s)$", "", w))}
        for name, grams, _ in servings:
            counted = _COUNTED_SERVING_RE.match(name.lower())
            if counted and grams and (counted[2] in forms or counted[2].rstrip("s") in forms):
                number = _fraction(counted[1])
                shown = (name if number == 1 else f"1/{number:g} of {name}" if number > 1
                         # "0.5 breast, bone and skin removed": one is twice it
                         else f"1 {counted[2]} ({1 / number:g} × {name})")
                return shown, grams / number
    # one of a size: the medium one before the others, a large one last (FNDDS's "1 large
    # sandwich" cookie is three times its "1 sandwich")
    wholes = [(n, g) for n, g, _ in servings if g and _WHOLE_RE.match(n)]
    wholes.sort(key=lambda serving: _WHOLE_ORDER.index(_WHOLE_RE.match(serving[0])[1].lower()))
    return next(iter(wholes), None) or (default if counts else None)


_COUNTED_SERVING_RE = re.compile(r"^(\d+(?:\.\d+)?|\d+/\d+) ([a-z]+)\b")


def _fraction(text: str) -> float:
    top, _, bottom = text.partition("/")
    return float(top) / float(bottom or 1)


def _grams_per_ml(servings: Sequence[tuple[str, float, bool]]) -> float | None:
    """The median grams per millilitre of the food's servings named in a volume."""
    found = sorted(grams / (_fraction(m[1]) * _ML_IN[m[2].lower()])
                   for name, grams, _ in servings if (m := _VOLUME_RE.search(name)) and grams)
    density = found[len(found) // 2] if found else None
    low, high = _DENSITY
    return density if density is not None and low <= density <= high else None
