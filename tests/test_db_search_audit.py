"""The issue-40 audit, as a dietitian would run it: everyday queries of people with diabetes in
the US, the UK and Germany (hypo treatments, mixed dishes, misspellings among them) through the
search with the region set, each with its acceptance rule written before the queries were run.

Rules (one per query). After the first run, patterns that refused a row that is the food
(a letter's case, a table's word order: "Stew, beef", "Pie, Cottage", the muesli brands
ALPEN and FAMILIA) were widened, "diet sprite" (no table has a diet lemon-lime row: nothing is
the right answer) became "diet soda", the diet rule learned that milk's own sugar is not added
sugar, and the popcorn portion cites FDA's reference amount; no other rule changed.
- ``first``: the first hit is the food a dietitian accepts (a pattern over names of any table);
  ``top3`` counts it in the first three.
- Every query gets an answer (no empty list where a table holds the food).
- Dangerous results, each a failure on its own: a diet query ("diet", "zero", "light", "sugar
  free", "no added sugar") with a sugared row first; a hypo treatment answered by a food that
  is not it (``HYPO``: the real food, or an entry asking for the pack's figure); a default
  portion more than 2x off one portion as eaten (``PORTIONS``, in grams).
Targets (issue 40): first >= 95 %, top 3 >= 99 %, no empty answer, nothing dangerous.
Runs on the whole shipped seed, SQLite (FTS5) and PostgreSQL.
"""

import re

import pytest
from db_support import full_db, full_db_url  # noqa: F401 (fixtures)

from db import search, service

# (region, query, the foods a dietitian accepts first: a pattern over names).
AUDIT = [
    # --- US: everyday foods and drinks
    ("US", "orange juice", r"^Orange juice"),
    ("US", "apple juice", r"^Apple juice"),
    ("US", "grape juice", r"^Grape juice"),
    ("US", "cranberry juice", r"^Cranberry juice"),
    ("US", "lemonade", r"^Lemonade"),
    ("US", "sweet tea", r"^Tea, .*(sweetened|presweetened)|^Beverages, tea.*sweetened|[Ii]ced tea.*sweetened"),
    ("US", "chocolate milk", r"^Milk, chocolate|[Cc]hocolate milk"),
    ("US", "whole milk", r"^Milk, whole"),
    ("US", "skim milk", r"^Milk, (nonfat|fat free|skim)"),
    ("US", "coffee with milk", r"^Coffee.*milk"),
    ("US", "popcorn", r"^Popcorn|^Snacks, popcorn"),
    ("US", "pretzels", r"(?i)pretzel"),
    ("US", "potato chips", r"^Potato chips|^Snacks, potato chips"),
    ("US", "tortilla chips", r"^Tortilla chips|^Snacks, tortilla chips"),
    ("US", "saltine crackers", r"^Crackers?, saltine|saltine"),
    ("US", "graham crackers", r"(?i)graham cracker"),
    ("US", "granola bar", r"(?i)granola bar"),
    ("US", "cheerios", r"CHEERIOS|Cheerios"),
    ("US", "oatmeal", r"^Oatmeal|^Cereals, oats.*cooked"),
    ("US", "grits", r"^Grits|^Cereals, corn grits.*cooked"),
    ("US", "biscuit", r"^Biscuits?(, plain|, NFS)?|^Biscuit, "),
    ("US", "cornbread", r"^Cornbread|^Bread, cornbread"),
    ("US", "dinner roll", r"^Rolls?, dinner|dinner roll"),
    ("US", "bagel", r"^Bagels?"),
    ("US", "muffin", r"^Muffins?"),
    ("US", "donut", r"^Doughnuts?|^Donut"),
    ("US", "pancakes", r"^Pancakes?"),
    ("US", "waffle", r"^Waffles?"),
    ("US", "french toast", r"^French toast"),
    ("US", "white rice", r"^Rice, white.*cooked|^Rice, white"),
    ("US", "brown rice", r"^Rice, brown.*cooked"),
    ("US", "spaghetti", r"^Spaghetti|^Pasta, .*cooked"),
    ("US", "mac and cheese", r"[Mm]acaroni (and|or) cheese"),
    ("US", "baked potato", r"^Potato(es)?, baked"),
    ("US", "mashed potatoes", r"^Potato(es)?, mashed|[Mm]ashed potato"),
    ("US", "french fries", r"^French fries|^Potato, french fries|^Potatoes, french fried"),
    ("US", "sweet potato", r"^Sweet potato"),
    ("US", "corn on the cob", r"^Corn, .*(on the cob|cooked)|^Corn, sweet|^Sweet corn, cooked"),
    ("US", "banana", r"^Banana"),
    ("US", "apple", r"^Apples?, raw"),
    ("US", "grapes", r"^Grapes"),
    ("US", "watermelon", r"^Watermelon"),
    ("US", "peanut butter and jelly sandwich", r"[Pp]eanut butter and jelly sandwich"),
    ("US", "cheeseburger", r"^Cheeseburger"),
    ("US", "hamburger", r"^Hamburger"),
    ("US", "hot dog", r"^Hot dog|[Ff]rankfurter"),
    ("US", "pepperoni pizza", r"[Pp]izza.*pepperoni"),
    ("US", "chicken nuggets", r"^Chicken nuggets|[Cc]hicken nuggets"),
    ("US", "burrito", r"^Burrito"),
    ("US", "taco", r"^Tacos?"),
    ("US", "chili", r"^Chili"),
    ("US", "lasagna", r"^Lasagna"),
    ("US", "ice cream", r"(?i)^(vanilla )?ice cream"),
    ("US", "apple pie", r"^Apple pie|^Pie, apple"),
    ("US", "chocolate chip cookie", r"^Cookie, chocolate chip|chocolate chip"),
    # Second round (rules written before these queries were run): a flapjack is a pancake in
    # the US, a graham cracker is in two tables, lager is beer.
    ("US", "flapjacks", r"^Pancakes"),
    ("US", "graham crackers", r"^Graham crackers|graham crackers"),
    ("UK", "lager", r"(?i)lager|beer"),
    ("UK", "satsuma", r"(?i)^tangerine|mandarin|clementine|satsuma"),
    # --- UK
    ("UK", "orange squash", r"squash, (diluted|ready to drink)"),
    ("UK", "blackcurrant squash", r"^Blackcurrant juice drink/squash, diluted"),
    ("UK", "no added sugar squash", r"squash, no sugar added, diluted"),
    ("UK", "shepherd's pie", r"[Ss]hepherd's pie|Cottage/Shepherd's"),
    ("UK", "cottage pie", r"(?i)cottage"),
    ("UK", "hot cross bun", r"^Hot cross buns?"),
    ("UK", "baked beans", r"^Baked beans, canned in tomato sauce$|^Baked beans"),
    ("UK", "mushy peas", r"^Peas, mushy"),
    ("UK", "chicken tikka masala", r"tikka masala"),
    ("UK", "digestives", r"^Biscuits, digestive"),
    ("UK", "rich tea", r"^Biscuits, semi-sweet"),
    ("UK", "jaffa cakes", r"^Jaffa cakes"),
    ("UK", "crumpets", r"^Crumpets"),
    ("UK", "scone", r"^Scones"),
    ("UK", "yorkshire pudding", r"^Yorkshire pudding"),
    ("UK", "sausage roll", r"^Sausage roll"),
    ("UK", "cornish pasty", r"^Cornish pasty"),
    ("UK", "mince pie", r"^Mince pies"),
    ("UK", "fish fingers", r"^Fish fingers|fish sticks"),
    ("UK", "jacket potato", r"^Potatoes?, (baked|old, baked)"),
    ("UK", "chips", r"^Potato chips|^French fries|french fried"),
    ("UK", "crisps", r"^Crisps|[Pp]otato crisps|potato chips"),
    ("UK", "porridge", r"^Porridge|^Cereals, oats.*cooked"),
    ("UK", "weetabix", r"[Ww]heat biscuits|[Ww]eetabix|WEETABIX"),
    ("UK", "custard", r"^Custard"),
    ("UK", "trifle", r"^Trifle"),
    ("UK", "treacle sponge", r"[Ss]ponge pudding|treacle"),
    ("UK", "flapjack", r"^Flapjacks"),
    ("UK", "bread and butter pudding", r"(?i)bread and butter"),
    ("UK", "lucozade", r"^Lucozade"),
    ("UK", "semi skimmed milk", r"^Milk, semi-skimmed|^Milk, reduced fat"),
    ("UK", "cup of tea with milk", r"^Tea.*milk"),
    ("UK", "beans on toast", r"[Bb]aked beans|[Bb]eans on toast"),
    ("UK", "doner kebab", r"^Doner kebab"),
    # --- Germany (German words)
    ("DE", "Apfelschorle", r"Schorle"),
    ("DE", "Spätzle", r"(?i)sp(ä|ae)tzle|sp(ä|ae)tzli|egg noodles|Noodles, egg"),
    ("DE", "Bratkartoffeln", r"(?i)home fries|Bratkartoffeln|Kartoffeln?, gebraten|fried potato"),
    ("DE", "Schwarzbrot", r"(?i)pumpernickel|Roggenbrot|Schwarzbrot|rye"),
    ("DE", "Kartoffelpuffer", r"(?i)potato pancake|Kartoffelpuffer|Rösti"),
    ("DE", "Leberkäse", r"^Fleischkäse$"),
    ("DE", "Döner", r"(?i)doner|Döner|Kebab"),
    ("DE", "Traubenzucker", r"^Traubenzucker$"),
    ("DE", "Gummibärchen", r"^Gummibonbon"),
    ("DE", "Kartoffelsalat", r"^Kartoffelsalat"),
    ("DE", "Apfelsaft", r"^Apfelsaft$|^Apple juice"),
    ("DE", "Orangensaft", r"^Orangensaft|^Orange juice"),
    ("DE", "Rösti", r"^Rösti"),
    ("DE", "Bratwurst", r"^Bratwurst|[Bb]ratwurst"),
    ("DE", "Brezel", r"(?i)brezel|pretzel|Laugen"),
    ("DE", "Laugenbrötchen", r"^Laugenbrötli|^Laugen"),
    ("DE", "Vollkornbrot", r"(?i)vollkornbrot|whole-wheat|whole wheat"),
    ("DE", "Knäckebrot", r"^Knäckebrot"),
    ("DE", "Müsli", r"(?i)m(ü|ue)esli|Müsli|muesli|ALPEN|FAMILIA"),
    ("DE", "Birchermüesli", r"^Birchermüesli"),
    ("DE", "Milchreis", r"(?i)Milchreis|rice pudding"),
    ("DE", "Kartoffelstock", r"^Kartoffelstock"),
    ("DE", "Salzkartoffeln", r"(?i)Kartoffel.*(gekocht|gedämpft)|Potato(es)?, boiled"),
    ("DE", "Nudeln", r"(?i)Teigwaren.*gekocht|^Pasta, .*cooked|Nudeln"),
    ("DE", "Reis", r"(?i)^Reis.*gekocht|^Rice, white.*cooked"),
    ("DE", "Vollmilch", r"(?i)^Vollmilch|Milch, Voll|^Milk, whole"),
    ("DE", "Joghurt nature", r"^Joghurt, nature"),
    ("DE", "Apfelkuchen", r"^Apfelkuchen|^Apple pie|^Pie, apple"),
    ("DE", "Berliner", r"(?i)Berliner|doughnut"),
    ("DE", "Cola light", r"(?i)cola.*(light|diet|low calorie)"),
    ("DE", "Eistee", r"^Eistee"),
    ("DE", "Banane", r"^Banane|^Banana"),
    ("DE", "Apfel", r"^Apfel, roh|^Apples?, raw"),
    ("DE", "Fischstäbchen", r"^Fischstäbchen|fish sticks|Fish fingers"),
    ("DE", "Pommes frites", r"(?i)Pommes|french fries|french fried"),
    # --- mixed dishes, any region
    ("US", "chicken pot pie", r"^Chicken pot pie|[Cc]hicken pot pie"),
    ("US", "beef stew", r"(?i)beef stew|^Stew, beef"),
    ("US", "chicken fried rice", r"(?i)fried rice.*chicken|^Rice, fried, with chicken|chicken fried rice"),
    ("US", "tuna salad sandwich", r"[Tt]una salad sandwich"),
    ("US", "meatloaf", r"^Meat ?loaf"),
    ("UK", "fish and chips", r"^Fish and chips"),
    ("UK", "cheese and tomato pizza", r"^Pizza, cheese and tomato"),
    ("UK", "spaghetti bolognese", r"[Ss]paghetti bolognese|Bolognese"),
    ("UK", "chilli con carne", r"^Chilli con carne"),
    ("UK", "lasagne", r"^Lasagn"),
    # --- misspellings and plurals
    ("US", "spagetti", r"^Spaghetti|^Pasta, .*cooked"),
    ("US", "bananna", r"^Banana"),
    ("US", "brocoli", r"^Broccoli"),
    ("US", "chiken nuggets", r"[Cc]hicken nuggets"),
    ("US", "sandwhich", r"[Ss]andwich"),
    ("US", "cheeseburgers", r"^Cheeseburger"),
    ("US", "strawberrys", r"^Strawberries"),
    ("US", "tomatos", r"^Tomato(es)?, "),
    ("UK", "yoghurts", r"^Yogh?urt"),
    ("UK", "crumpet", r"^Crumpets"),
    ("UK", "sausage rolls", r"^Sausage roll"),
    ("UK", "digestive biscits", r"^Biscuits, digestive"),
    ("DE", "Kartofelsalat", r"^Kartoffelsalat"),
    ("DE", "Gummibaerchen", r"^Gummibonbon"),
    ("DE", "Brötchen", r"(?i)Brötchen|Brötli|^Rolls?, .*hard|Bread rolls"),
]

# Diet queries: the first hit has at most search.SUGARED_G sugar per 100 g; a dairy query at
# most MILK_SUGAR_G (lactose is milk's own: 5.05 g per 100 g of whole milk, SR28 01077), and a
# "no added sugar" or "unsweetened" query means no sugar added, whatever the fruit holds.
DIET = [
    ("US", "diet coke"), ("US", "diet lemonade"), ("US", "sugar free jello"),
    ("US", "coke zero"), ("US", "diet soda"), ("US", "light yogurt"),
    ("UK", "diet lemonade"), ("UK", "diet coke"), ("UK", "no added sugar squash"),
    ("UK", "sugar free jelly"), ("UK", "pepsi max"), ("UK", "diet cola"),
    ("DE", "Cola light"), ("DE", "Cola zero"), ("DE", "Joghurt light"),
]

# Hypo treatments: the real food, or an entry asking for the pack's figure (food_id None).
PACK = "pack"
HYPO = [
    ("US", "glucose tablets", PACK), ("UK", "glucose tablets", PACK),
    ("US", "glucose gel", PACK), ("UK", "dextrose tablets", PACK),
    ("DE", "Traubenzucker Tabletten", PACK),
    ("DE", "Traubenzucker", r"^Traubenzucker$"), ("UK", "dextrose", r"^Traubenzucker$"),
    ("UK", "jelly babies", r"^Gummibonbon mit Fruchtessenz$"),
    ("DE", "Gummibärchen", r"^Gummibonbon mit Fruchtessenz$"),
    ("US", "gummy bears", r"^Candy, gummy$"),
    ("US", "juice box", r"^Apple juice, 100%$"),
    ("US", "sports drink", r"^Sports drink, NFS$"), ("US", "gatorade", r"Gatorade G\)$"),
    ("UK", "lucozade", r"^Lucozade$"), ("US", "powerade", r"\(Powerade\)$"),
]

# Default portions: (region, query, the first hit's default grams must lie within 2x of this
# portion as eaten, its source). None: the hit must have no default (the card asks for grams)
# rather than 100 g of a biscuit or a drink; no rule is None now that CoFID's and the Swiss
# FCDB's biscuits and drinks cite portions (db/seed/table_portions.csv).
PORTIONS = [
    ("US", "orange juice", 248, "FNDDS/SR28: 1 cup of juice, 8 fl oz"),
    ("US", "popcorn", 30, "FDA reference amount customarily consumed for popcorn (21 CFR 101.12)"),
    ("US", "juice box", 209, "FNDDS: 1 juice box/pouch (6.75 fl oz)"),
    ("US", "sports drink", 372, "FNDDS: 1 bottle (12 fl oz)"),
    ("US", "cheeseburger", 150, "FNDDS: one cheeseburger"),
    ("US", "bagel", 100, "FNDDS/SR28: one bagel"),
    ("UK", "scone", 70, "FNDDS 52105100 'Scone', 1 regular (table_portions.csv)"),
    # Rules of the second round (written before these defaults existed): a biscuit is counted
    # one by one, a drink is a glass.
    ("UK", "digestives", 15, "one biscuit: McVitie's Digestives are about 15 g each"),
    ("UK", "weetabix", 37.5, "the UK pack's serving: 2 biscuits, 37.5 g (Wikipedia 'Weetabix')"),
    ("UK", "orange squash", 250, "a 250 ml glass of squash as drunk, diluted"),
    ("DE", "Apfelschorle", 250, "a 250 ml glass of Schorle"),
    ("UK", "semi skimmed milk", 244, "a cup or glass of milk (FNDDS/SR28: 1 cup, 244 g)"),
]

FIRST_TARGET, TOP3_TARGET = 0.95, 0.99
MILK_SUGAR_G = 5.0
_DAIRY_RE = re.compile(r"(?i)yogh?urt|joghurt|milk|milch")


# A drink that holds carbohydrate: the first hit's carbohydrate is known and above 0 g, or
# unknown (None: the card says so), never 0 g for a value a table does not give (CoFID's lager).
CARBOHYDRATE_NOT_ZERO = [("UK", "lager"), ("UK", "premium lager"), ("UK", "bitter"),
                         ("US", "beer"), ("UK", "cider")]
# A table's row renamed for a name another food has ("Bread, pumpernickel (FNDDS)") is the same
# food as that one when their energy, carbohydrate, protein and fat per 100 g agree within 2 %
# or 1 kcal / 0.1 g: never listed beside it (FNDDS's raw broccoli, 39 kcal to SR Legacy's 34,
# is another analysis and may be).
_TABLE_SUFFIX_RE = re.compile(r" \((FNDDS|CoFID|Swiss FCDB|SR Legacy)\)$")


def test_the_audit_has_at_least_150_queries():
    assert len(AUDIT) + len(DIET) + len(HYPO) >= 150
    assert {r for r, _, _ in AUDIT} == {"US", "UK", "DE"}


def test_right_food_first_and_in_the_top_three(full_db):
    first = top3 = 0
    misses, empty = [], []
    for region, query, acceptable in AUDIT:
        hits = [h["food"] for h in service.search(query, limit=3, region=region)]
        if not hits:
            empty.append(f"{query!r} ({region})")
        good = [re.search(acceptable, hit) is not None for hit in hits]
        first += bool(good and good[0])
        top3 += any(good)
        if not (good and good[0]):
            misses.append(f"{query!r} ({region}): {hits}")
    report = "\n".join(misses)
    assert empty == [], empty
    assert first / len(AUDIT) >= FIRST_TARGET, f"first {first}/{len(AUDIT)}:\n{report}"
    assert top3 / len(AUDIT) >= TOP3_TARGET, f"top 3 {top3}/{len(AUDIT)}:\n{report}"


@pytest.mark.parametrize("region, query", DIET)
def test_a_diet_query_never_gets_a_sugared_row_first(full_db, region, query):
    hits = service.search(query, limit=1, region=region)
    assert hits, f"{query!r} ({region}): nothing"
    card = service.lookup(hits[0]["food"], grams=100)
    sugars = card["per_100g"]["sugars_g"]
    no_added = re.search(r"no added sugar|unsweetened", query) is not None
    most = MILK_SUGAR_G if _DAIRY_RE.search(query) else search.SUGARED_G
    assert no_added or sugars is None or sugars <= most, (
        f"{query!r} ({region}): {hits[0]['food']} has {sugars} g sugars per 100 g")


@pytest.mark.parametrize("region, query, answer", HYPO)
def test_a_hypo_treatment_is_never_guessed(full_db, region, query, answer):
    hits = service.search(query, limit=3, region=region)
    assert hits, f"{query!r} ({region}): nothing"
    if answer == PACK:
        assert hits[0]["food_id"] is None and "from the pack" in hits[0]["asks"], hits[0]
        assert len(hits) == 1  # and no guess beside it
    else:
        assert re.search(answer, hits[0]["food"]), f"{query!r} ({region}): {hits}"


@pytest.mark.parametrize("region, query, grams, why", PORTIONS)
def test_default_portions_are_one_portion_as_eaten(full_db, region, query, grams, why):
    hit = service.search(query, limit=1, region=region)[0]
    shown = hit["portion"]["grams"]
    if grams is None:
        assert shown is None, f"{query!r}: {hit['food']} defaults to {shown} g ({why})"
    else:
        assert shown is not None and grams / 2 <= shown <= grams * 2, (
            f"{query!r}: {hit['food']} defaults to {shown} g, one portion is {grams} g ({why})")


def test_a_hypo_treatment_looked_up_by_name_is_never_guessed(full_db):
    from db.errors import UnknownFood

    with pytest.raises(UnknownFood, match="glucose tablets: no food table lists them; add yours "
                                          r"as an own food with the carbohydrate in one tablet"):
        service.lookup("glucose tablets")
    with pytest.raises(UnknownFood, match="glucose gel: no food table lists them"):
        service.lookup("Glucose gel: enter the carbohydrate from the pack")
    # The juice box of FNDDS 64104010: 209 g at 11.35 g carbohydrate per 100 g.
    box = service.lookup("juice box")
    assert (box["portion"]["serving"], box["portion"]["grams"]) == (
        "1 juice box/pouch (6.75 fl oz)", 209.0)
    assert box["portion"]["carbohydrate_g"] == round(209 * box["per_100g"]["carbohydrate_g"] / 100, 1)


@pytest.mark.parametrize("region, query", CARBOHYDRATE_NOT_ZERO)
def test_an_unknown_carbohydrate_is_never_0_g_first(full_db, region, query):
    hit = service.search(query, limit=1, region=region)[0]
    carbohydrate = service.lookup(hit["food"], grams=100)["per_100g"]["carbohydrate_g"]
    assert carbohydrate is None or carbohydrate > 0, f"{query!r}: {hit['food']} {carbohydrate}"


def _values(food: str) -> list[float | None]:
    per_100g = service.lookup(food, grams=100)["per_100g"]
    return [per_100g[k] for k in ("kcal", "carbohydrate_g", "protein_g", "fat_g")]


def _close(a: list[float | None], b: list[float | None]) -> bool:
    return None not in a + b and all(abs(x - y) <= max(1.0 if i == 0 else 0.1, 0.02 * max(x, y))
                                     for i, (x, y) in enumerate(zip(a, b)))  # type: ignore[operator]


def test_a_food_in_two_tables_is_not_listed_twice(full_db):
    twice, checked = [], 0
    for region, query, _ in AUDIT:
        names = [h["food"] for h in service.search(query, limit=10, region=region)]
        for name in names:
            plain = _TABLE_SUFFIX_RE.sub("", name)
            if plain != name and plain in names:
                checked += 1
                if _close(_values(name), _values(plain)):
                    twice.append(f"{query!r}: {name} beside {plain}")
    assert checked and twice == []
