"""Measures, units, counts and containers in a query (db.search's measure words): they say how
much, not what ("Tasse Kaffee" is coffee, "4 oz juice" juice), and the serving the hit shows
is the one the measure names where the food has it ("tablespoon of peanut butter": 1
tablespoon); the app's card opens with that serving."""

import re
import pytest
from db_support import full_db, full_db_url  # noqa: F401 (fixtures)

from db import portions, search, service


@pytest.mark.parametrize("text, words", [
    ("tablespoon of sugar", ["sugar"]), ("tbsp honey", ["honey"]),
    ("1 tbsp peanut butter", ["peanut", "butter"]), ("4 oz juice", ["juice"]),
    ("150ml orange juice", ["orange", "juice"]), ("2 slices of toast", ["toast"]),
    ("2 slices bread", ["bread"]), ("Tasse Kaffee", ["kaffee"]), ("Kugel Eis", ["eis"]),
    ("Stück Käsekuchen", ["kasekuchen"]), ("Ein Glas Milch", ["milch"]),
    ("eine Brezel", ["brezel"]), ("Dose Cola", ["cola"]),
    # A count before the food says how many (query_measure), not what; a name that starts with
    # a number keeps it (NUMBER_NAMES).
    ("3 musketeers", ["3", "musketeers"]), ("5 jelly babies", ["jelly", "babies"]),
    ("2 bananas", ["bananas"]), ("1 apfel", ["apfel"]), ("7 up", ["7", "up"]),
    # The last word is the food's, whatever it is: Gatorade G, potato kugel, a glass alone.
    ("gatorade g", ["gatorade", "g"]), ("potato kugel", ["potato", "kugel"]), ("Glas", ["glas"]),
    # ... unless a number says it is a unit: "almonds 1 oz" are almonds
    ("raw almonds 1 oz", ["raw", "almonds"]), ("rice 150 g", ["rice"]),
    ("pizza 2 slices", ["pizza"]), ("half cup orange juice", ["orange", "juice"]),
    # a piece of it said after it is a measure ("potato wedges" are a food)
    ("brownie square", ["brownie"]), ("apple slices", ["apple"]),
    ("potato wedges", ["potato", "wedges"]),
    # a fraction or metric amount after the food, and the container before it, say how much;
    # a name's digits that are no fraction stay ("Heineken 0.0")
    ("ambrosia custard 1/2", ["ambrosia", "custard"]),
    ("black beans canned 1/2 cup", ["black", "beans", "canned"]),
    ("carrot soup carton 300g", ["carrot", "soup"]), ("egg noodles 1 nest", ["egg", "noodles"]),
    ("heineken 0.0", ["heineken", "0"]),
])
def test_a_measure_unit_or_count_is_no_word_to_find(text, words):
    assert search.query_words(text) == words


def test_a_count_is_left_out_where_no_food_has_every_word():
    assert search.without_measures(["5", "jelly", "babies"]) == ["jelly", "babies"]
    assert search.without_measures(["jelly", "babies"]) == []


@pytest.mark.parametrize("text, measure", [
    ("tablespoon of sugar", ("tablespoon", "tbsp")), ("2 tsp sugar", ("2", "teaspoon", "tsp")),
    ("one slice of toast", ("slice", "piece")), ("two slices of toast", ("2", "slice", "piece")),
    ("zwei Scheiben Brot", ("2", "slice")), ("half a can of coke", ("1/2", "can")),
    ("100ml orange juice", ("100", "ml")), ("100 ml orange juice", ("100", "ml")),
    ("Teller Nudeln", ("plate",)), ("half and half", ()),
    ("Scheibe Brot", ("slice",)), ("Kugel Eis", ("scoop",)), ("Tasse Kaffee", ("cup",)),
    ("can of coke", ("can",)), ("Stück Kuchen", ("piece", "slice")),
    ("peanut butter", ()), ("potato kugel", ()), ("4 oz juice", ("4", "oz")),
    ("4oz steak", ("4", "oz")), ("8 fl oz orange juice", ("237", "ml")),
    ("2 strips of bacon", ("2", "strip", "slice")), ("strip steak", ()),
    ("1/2 cup rice", ("1/2", "cup")), ("2 cups of rice", ("2", "cup")), ("200g pasta", ("200", "g")),
    ("raw almonds 1 oz", ("1", "oz")), ("pizza 2 slices", ("2", "slice", "piece")),  # a pizza slice is FNDDS's "1 piece"
    # a size, where nothing else says how much, asks for the serving of that size
    ("large banana", ("large",)), ("banane mittelgroß", ("medium",)), ("kleiner Apfel", ("small",)),
    ("fun size snickers", ("fun",)), ("snickers king size", ("king",)),
    # a count of a size: that many of the size's serving, where the food has one
    ("2 large eggs", ("2", "*", "large")), ("3 kleine Kartoffeln", ("3", "*", "small")),
    ("3 eggs", ("3", "*")),
    # Austria's measures by volume, as the Maß: an Achterl of wine is an eighth of a litre
    ("ein Achterl Rotwein", ("125", "ml")), ("eine Maß Bier", ("1000", "ml")),
    ("a sleeve of saltines", ("sleeve",)),
    ("king prawns", ()), ("fun", ()), ("half fat milk", ()),  # a milk, not half of one
    ("wedge of cantaloupe", ("wedge", "slice")), ("a square of cornbread", ("square", "piece")),
    ("half cup orange juice", ("1/2", "cup")), ("orange juice half cup", ("1/2", "cup")),
])
def test_the_measure_names_the_serving_asked_for(text, measure):
    assert search.query_measure(text) == measure


def test_the_measured_serving_is_the_one_that_is_that_measure():
    servings = [("1 single serving", True), ("1 tablespoon", False),
                ("Guideline amount per slice of bread/roll", False), ("1 cup", False)]
    assert portions.measured_serving(servings, ("tablespoon", "tbsp")) == 1
    assert portions.measured_serving(servings, ("slice",)) is None  # a guideline is no slice
    assert portions.measured_serving(servings, ()) is None
    slices = [("1 thin slice", False), ("1 slice, regular", False), ("1 loaf", True)]
    assert portions.measured_serving(slices, ("slice",)) == 1
    assert portions.measured_serving([("1 cup (8 fl oz)", True), ("1 mug", False)],
                                     ("mug", "cup")) == 0  # the default, where it is one


def test_an_amount_asks_for_a_serving_of_that_amount_where_the_food_has_one():
    slices = [("1 slice", False), ("2 slices", True), ("1 cup, pieces", False)]
    assert portions.measured_serving(slices, ("2", "slice")) == 1
    # No serving of three: the slice, none made up.
    assert portions.measured_serving(slices, ("3", "slice")) == 0
    cans = [("1 can (12 fl oz)", True), ("1/2 can", False)]
    assert portions.measured_serving(cans, ("1/2", "can")) == 1
    assert portions.measured_serving(cans[:1], ("1/2", "can")) == 0
    juice = [("1 cup", True), ("1 serving 100 ml", False), ("1 fl oz", False)]
    assert portions.measured_serving(juice, ("100", "ml")) == 1
    assert portions.measured_serving(juice, ("250", "ml")) is None  # the default stands


def test_an_amount_no_serving_has_is_that_many_servings_or_grams():
    toast = [("1 slice", 27.0, True), ("1 cup, cubes", 30.0, False)]
    assert portions.measured_amount(toast, ("2", "slice"), 0) == (54.0, "2 × 1 slice")
    assert portions.measured_amount(toast, ("slice",), 0) is None  # the serving itself
    can = [("1 can (12 fl oz)", 372.0, True)]
    assert portions.measured_amount(can, ("1/2", "can"), 0) == (186.0, "0.5 × 1 can (12 fl oz)")
    half_cups = [("1/2 cup", 79.0, True)]
    assert portions.measured_amount(half_cups, ("2", "cup"), 0) == (316.0, "4 × 1/2 cup")
    assert portions.measured_amount(toast, ("200", "g"), None) == (200.0, "200 g")
    assert portions.measured_amount(toast, ("4", "oz"), None) == (113.4, "4 oz")
    # "3 small potatoes": three of the small one where the food has it, else three of one of it
    potato = [("1 medium", 170.0, True), ("1 small", 130.0, False)]
    small = portions.measured_serving([(n, d) for n, _, d in potato], ("3", "*", "small"))
    assert portions.measured_amount(potato, ("3", "*", "small"), small) == (390.0, "3 × 1 small")
    whole = [("1 potato", 136.0, True)]
    assert portions.measured_amount(whole, ("3", "*", "small"), None) == (408.0, "3 × 1 potato")
    # a serving named in a decimal amount ("0.5 cup, slices"): a cup is twice it
    half_cup = [("0.5 cup, slices", 52.0, True)]
    assert portions.measured_amount(half_cup, ("cup",), 0) == (104.0, "2 × 0.5 cup, slices")
    assert portions.measured_amount(half_cup, ("1/2", "cup"), 0) is None  # the serving itself
    # a count of one of it: a serving that counts the food by any word of its name, a half
    # one doubled, else its medium size before its large one
    oreo = [("1 large sandwich", 36.0, False), ("1 sandwich", 14.0, False),
            ("Quantity not specified", 42.0, True)]
    assert portions.measured_amount(oreo, ("2", "*"), None, "Cookie, chocolate sandwich") == (
        28.0, "2 × 1 sandwich")
    breast = [("0.5 breast, bone and skin removed", 86.0, True), ("1 cup, diced", 140.0, False)]
    assert portions.measured_amount(breast, ("2", "*"), None, "Chicken, breast, roasted") == (
        344.0, "2 × 1 breast (2 × 0.5 breast, bone and skin removed)")
    sizes = [("1 large", 50.0, False), ("1 medium", 30.0, False), ("1 cup", 90.0, True)]
    assert portions.measured_amount(sizes, ("3", "*"), None, "Cookie, NFS") == (90.0, "3 × 1 medium")


def test_a_volume_no_serving_has_is_weighed_at_the_food_s_own_density():
    # SR Legacy 19335 granulated sugar: 1 cup 200 g, 1 tsp 4.2 g, 1 packet 2.8 g; no tablespoon
    sugar = [("1 serving packet", 2.8, True), ("1 cup", 200.0, False), ("1 tsp", 4.2, False)]
    grams, shown = portions.measured_amount(sugar, ("tablespoon", "tbsp"), None)
    assert (round(grams), shown) == (13, "1 tbsp")  # 14.8 ml at 0.845 / 0.852 g/ml
    juice = [("1 cup", 248.0, True), ("1 fl oz", 31.0, False)]
    grams, shown = portions.measured_amount(juice, ("100", "ml"), None)
    assert (round(grams), shown) == (105, "100 ml")
    apple = [("1 medium", 182.0, True)]  # no volume serving: no grams made up
    assert portions.measured_amount(apple, ("100", "ml"), None) is None
    assert portions.measured_amount(apple, ("tablespoon", "tbsp"), None) is None


@pytest.mark.parametrize("query, region, food, grams", [
    ("two slices of toast", "US", r"(?i)^bread.*toasted", (40, 80)),
    ("half a can of coke", "US", r"(?i)cola", (170, 200)),
    ("tablespoon of sugar", "US", r"(?i)^sugars?, (granulated|NFS)", (12, 13.5)),
    ("3 tbsp sugar", "US", r"(?i)^sugars?, (granulated|NFS)", (36, 40)),
    ("200g pasta", "US", r"(?i)^pasta", (200, 200)),
    ("100ml orange juice", "UK", r"(?i)orange juice", (100, 110)),
    ("a 4 oz steak", "US", r"(?i)steak", (113, 114)),
])
def test_an_amount_in_the_query_is_the_portion_shown(full_db, query, region, food, grams):
    hit = _first(query, region)
    assert re.search(food, hit["food"]), hit
    low, high = grams
    assert low <= hit["portion"]["grams"] <= high, hit
    assert hit["portion"]["amount"], hit  # the list says what the grams are


def test_two_slices_of_bacon_shows_two_slices(full_db):
    hit = _first("two slices of bacon", "US")
    assert re.search(r"(?i)bacon", hit["food"]), hit
    assert re.match(r"2 slices", hit["portion"]["serving"]), hit
    one = _first("a slice of bacon", "US")  # one slice, not the 2-slice default
    assert (one["food"], one["portion"]["serving"]) == (hit["food"], "1 slice")


def _first(query: str, region: str) -> dict:
    return service.search(query, limit=3, region=region)[0]


@pytest.mark.parametrize("query, region, food, serving", [
    ("tablespoon of peanut butter", "US", r"^Peanut butter$", "1 tablespoon"),
    ("Tasse Kaffee", "DE", r"(?i)coffee|kaffee", None),
    ("Scheibe Brot", "DE", r"(?i)brot|bread", None),
    ("Kugel Eis", "DE", r"(?i)ice cream", None),
    ("Stück Käsekuchen", "DE", r"^Cheesecake$", None),
    ("half a cup of broccoli", "US", r"^Broccoli", "0.5 cup, chopped"),  # FNDDS's "0.5 cup"
])
def test_a_measured_query_finds_the_food_with_the_measure_s_serving(full_db, query, region, food,
                                                                     serving):
    hit = _first(query, region)
    assert re.search(food, hit["food"]), hit
    if serving is not None:
        assert hit["portion"]["serving"] == serving
    assert hit["portion"]["grams"] is not None
    plain = _first(search.query_words(query)[0] if len(search.query_words(query)) == 1
                   else " ".join(search.query_words(query)), region)
    assert plain["food"] == hit["food"]  # the measure changes the serving, not the food


def test_a_measured_hit_carries_its_serving_to_the_card(full_db):
    # The search list's value for a hit (app/ui/analyse.py): with a measure in the query, the
    # food and the serving its label shows, which the card opens with and Log logs; else the
    # food's name alone (its default serving). A pack entry is never a food.
    from app.ui.analyse import HIT_SERVING_SEPARATOR, _hit_value

    hit = _first("tablespoon of peanut butter", "US")
    food, _, serving = _hit_value(hit, measured=True).partition(HIT_SERVING_SEPARATOR)
    assert (food, serving) == ("Peanut butter", "1 tablespoon")
    assert _hit_value(_first("peanut butter", "US"), measured=False) == "Peanut butter"
    # A hypo treatment's food shows the serving its row names (unranked: no score).
    juice_box = _first("juice box", "US")
    assert juice_box["score"] is None
    assert _hit_value(juice_box, measured=False).endswith(
        HIT_SERVING_SEPARATOR + "1 juice box/pouch (6.75 fl oz)")
    pack = _first("glucose tablets", "US")
    assert _hit_value(pack, measured=False) == pack["food"]
    # An amount no serving is: the grams, which the card opens with as typed grams.
    toast = _first("two slices of toast", "US")
    assert _hit_value(toast, measured=True).split(HIT_SERVING_SEPARATOR) == [
        toast["food"], "", f"{toast['portion']['grams']:g}"]


@pytest.mark.parametrize("text, measure", [
    ("2 eggs", ("2", "*")), ("zwei Brötchen", ("2", "*")), ("12 grapes", ("12", "*")),
    ("1 apfel", ()), ("3 musketeers", ()), ("7 up", ()),
    # a number that says what the food is: 1% milk, a 4-finger Kit Kat, a 6-inch sub, a 12-pack
    ("1% milk", ()), ("4 finger kitkat", ()), ("6 inch turkey sub", ()), ("12 pack of coke", ()),
    # half of one, in English and German; half a measure is half that measure
    ("half a burrito", ("1/2", "*")), ("ein halbes Hähnchen", ("1/2", "*")),
    ("eine halbe Brezel", ("1/2", "*")), ("half a cup of rice", ("1/2", "cup")),
    ("eine halbe Portion Pommes", ("1/2", "*")), ("half bagel with cream cheese", ("1/2", "*")),
    # a count after a measure of the food: that many of it
    ("stack of 3 pancakes", ("3", "*")), ("a plate of 2 eggs", ("2", "*")),
    ("half dozen eggs", ("6", "*")),
])
def test_a_count_before_the_food_asks_for_that_many(text, measure):
    assert search.query_measure(text) == measure
    assert ("1" in search.query_words(text)) == (text == "1% milk")  # kept only as a name's
    assert not {"half", "halbe", "halbes"} & set(search.query_words(text))


def test_a_count_is_that_many_of_one_of_the_food():
    egg = [("1 large", 50.0, True), ("1 cup, chopped", 136.0, False)]
    assert portions.measured_amount(egg, ("2", "*"), None, "Egg, whole, cooked, hard-boiled") == (
        100.0, "2 × 1 large")
    # SR Legacy grapes: the default is "1 NLEA serving", the count of them "10 grapes"
    grapes = [("1 NLEA serving", 126.0, True), ("1 cup", 151.0, False), ("10 grapes", 49.0, False)]
    assert portions.measured_amount(grapes, ("12", "*"), None, "Grapes, red or green, raw") == (
        58.8, "12 × 1/10 of 10 grapes")
    rice = [("1 cup", 158.0, True)]  # a cup is no count of rice
    assert portions.measured_amount(rice, ("2", "*"), None, "Rice, white, cooked") is None
    bar = [("1 bar", 60.0, True)]  # "3 Musketeers" names its number
    assert portions.measured_amount(bar, ("3", "*"), None, "Candies, 3 MUSKETEERS Bar") is None
    burrito = [("1 small/regular", 220.0, True), ("1 large", 330.0, False)]
    assert portions.measured_amount(burrito, ("1/2", "*"), None, "Burrito, NFS") == (
        110.0, "1/2 × 1 small/regular")
    # a default that is a part of the food counts no whole one: two avocados are two fruits
    avocado = [("1 slice", 15.0, True), ("1 fruit", 150.0, False), ("1 cup, cubes", 150.0, False)]
    assert portions.measured_amount(avocado, ("2", "*"), None, "Avocado, raw") == (
        300.0, "2 × 1 fruit")
    # a serving that counts the food by its name comes before one whole by size
    pizza = [("1 slice", 107.0, True), ("1 pizza", 853.0, False)]
    assert portions.measured_amount(pizza, ("2", "*"), None, "Pizza, cheese") == (
        1706.0, "2 × 1 pizza")
    toast = [("1 slice", 27.0, True), ("1 cup, crumbs", 108.0, False)]  # no whole: slices
    assert portions.measured_amount(toast, ("2", "*"), None, "Bread, white, toasted") == (
        54.0, "2 × 1 slice")


@pytest.mark.parametrize("query, region, food, grams", [
    ("2 eggs", "US", r"(?i)^eggs?\b", (90, 110)), ("2 bananas", "US", r"(?i)^bananas?\b", (200, 260)),
    ("12 grapes", "US", r"(?i)^grapes\b", (50, 70)), ("1 apfel", "DE", r"(?i)^apfel, roh", (150, 210)),
    ("2 broetchen", "DE", r"(?i)^rolls?\b|br(ö|oe)tchen", (90, 130)),
    ("half a burrito", "US", r"(?i)^burrito", (100, 130)), ("2 avocados", "US", r"(?i)^avocado", (250, 420)),
    ("half bagel w cream cheese", "US", r"(?i)^bagel", (50, 80)),
    # a size picks the serving of that size; a fun-size bar is no 2-oz bar
    ("large banana", "US", r"(?i)^bananas?\b", (130, 140)), ("snickers fun size bar", "US",
                                                             r"(?i)snickers", (10, 20)),
    ("banane mittelgroß", "DE", r"(?i)^banane, roh|^bananas?(,|$)", (100, 130)),
    ("raw almonds 1 oz", "US", r"(?i)^almonds", (28, 29)),
    ("fudge brownie square", "US", r"(?i)brownie", (40, 70)),
    ("cantaloupe wedge", "US", r"(?i)^cantaloupe|^melons?, cantaloupe", (60, 140)),
])
def test_a_counted_food_is_found_and_weighed_that_many_times(full_db, query, region, food, grams):
    hit = _first(query, region)  # not "Baby Toddler bananas, Stage 2" nor "Sandwich, NFS"
    assert re.search(food, hit["food"]), hit
    low, high = grams
    assert low <= hit["portion"]["grams"] <= high, hit
