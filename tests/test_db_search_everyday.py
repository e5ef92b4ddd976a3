"""Everyday searches of people with diabetes in the US, the UK, Australia and Germany: the
food a dietitian would accept comes first, diet queries never get a sugared food, and no query
gets a raw, dry, condensed, powder, concentrate or mix form first when it did not ask for one.
Runs on the whole shipped seed (SQLite FTS5 and, where a server can be started, PostgreSQL)."""

import re

import pytest
from db_support import full_db, full_db_url  # noqa: F401 (fixtures)

from db import search, service

# (query, the searcher's region, the foods a dietitian accepts for it: a pattern over names).
# Each set is every row that is that food as it is eaten, in any table (SR Legacy, FNDDS,
# CoFID, the Swiss FCDB's German names); a kind the query did not name (a dish with the food
# in it, a dry or raw form, a diet or flavoured kind) is not in it. Crumpet, quark, schnitzel,
# digestive biscuit and Lucozade are UK CoFID rows (db/cofid.py). FNDDS's generic "NFS" row (not
# further specified: the food as eaten, 253 of them) is the food: once no longer ranked as a brand
# it came first for chickpeas, black beans, popcorn and almonds, and the patterns accept it.
EVERYDAY = [
    ("crumpet", "UK", r"^Crumpets"),
    ("quark", "DE", r"^Cheese, [Qq]uark"),
    ("schnitzel", "DE", r"[Ss]chnitzel"),
    ("digestive biscuit", "UK", r"^Biscuits, digestive"),
    ("lucozade", "UK", r"^Lucozade"),
    ('diet coke', None, r'^Beverages, carbonated, low calorie, cola|^Cola, diet|^Soft drink, cola, diet'),
    ('diet cola', None, r'^Beverages, carbonated, low calorie, cola|^Cola, diet|^Soft drink, cola, diet'),
    ('coke zero', None, r'^Beverages, carbonated, low calorie, cola|^Cola, diet|^Soft drink, cola, diet'),
    ('chickpeas', None, r'^Chickpeas .*(cooked|canned)|^Chickpeas, (from (dried|canned)|NFS$)'),
    ('black beans', None, r'^Beans, black(?! turtle).*(cooked|canned)|^Beans, black turtle.*(cooked|canned)|^Black beans, NFS$'),
    ('spaghetti', None, r'^Pasta, .*cooked|^Spaghetti, .*cooked'),
    ('hot chocolate', None, r'hot cocoa|^Beverages, (C|c)ocoa mix.*prepared|chocolate.*beverage mix.*prepared'),
    ('chicken noodle soup', None, r'^Soup, (chunky )?chicken noodle.*(ready-to-serve|prepared)|^Soup, chicken noodle$'),
    ('granola', None, r'^Cereals ready-to-eat, granola|^Cereal, granola'),
    ('bacon', None, r'^Pork, cured, bacon.*cooked'),
    ('sausage', None, r'sausage.*(cooked|smoked|pre-cooked)|^Sausage, (Italian|Polish|smoked)|Polish sausage|Smoked link sausage|^Sausages, .*(grilled|fried)'),
    # FNDDS's generic tuna ("Fish, tuna, NFS": what the survey codes a tuna of unknown kind as)
    ('tuna', None, r'^Fish, tuna, (light|white), canned|^Tuna, (canned|flesh only)|^Fish, tuna, NFS'),
    ('wholemeal toast', 'UK', r'^Bread, whole-wheat.*toasted|^Bread, wholemeal, toasted'),
    ('basmati rice', None, r'^Rice, white, long-grain.*cooked|^Rice, white, basmati, boiled'),
    ('avocado', None, r'^Avocados?, raw'),
    ('popcorn', None, r'^Snacks, popcorn, (air-popped|oil-popped|microwave)|^Popcorn, (ready-to-eat, plain|NFS$)'),
    ('ham sandwich', None, r'[Hh]am sandwich|submarine sandwich, ham on'),
    ('sweet potato fries', None, r'^Sweet Potatoes, french fried, frozen as packaged|^Sweet potato fries'),
    ('apfelkuchen', 'DE', r'^Apfelkuchen, gebacken|^Apple pie|^Pie, apple'),
    ('cornflakes', None, r'Corn Flakes$|cornflakes'),
    ('soy milk', None, r'^Soymilk, original|^Soymilk \\(all flavors\\)|^SILK Plain|^Soy milk, unsweetened'),
    ('jelly beans', None, r'^Candies, jellybeans'),
    ('fish fingers', 'UK', r'^Fish, fish sticks|^Fish fingers'),
    ('beef mince', 'UK', r'^Beef, ground.*cooked|^Beef, ground$|^Beef, mince, .*(stewed|microwaved|fried)'),
    ('gatorade', None, r'Gatorade, G performance|POWERADE, lemon-lime|^Sports drink \(Gatorade G\)'),
    ('rice', 'US', r'^Rice, white, long-grain.*cooked'),
    ('brown rice', 'US', r'^Rice, brown.*cooked'),
    ('pasta', 'US', r'^Pasta, .*cooked'),
    ('macaroni and cheese', 'US', r'[Mm]acaroni and cheese'),
    ('oatmeal', 'US', r'^Cereals, oats.*cooked|oatmeal'),
    ('white bread', 'US', r'^Bread, white'),
    ('bagel', 'US', r'^Bagels?(, plain)?$'),
    ('pancakes', 'US', r'^Pancakes'),
    ('waffles', 'US', r'^Waffles'),
    ('orange juice', 'US', r'^Orange juice'),
    ('apple juice', 'US', r'^Apple juice'),
    ('apple', 'US', r'^Apples, raw'),
    ('banana', 'US', r'^Banana'),
    ('grapes', 'US', r'^Grapes'),
    ('strawberries', 'US', r'^Strawberries(, raw)?$'),
    ('blueberries', 'US', r'^Blueberries(, raw)?$'),
    ('milk', 'US', r'^Milk, (reduced fat|whole|lowfat|nonfat)'),
    ('yogurt', 'US', r'^Yogurt, (plain|Greek)'),
    ('cheddar cheese', 'US', r'^Cheese, cheddar'),
    ('eggs', 'US', r'^Egg, whole, cooked|^Egg, whole, raw'),
    ('scrambled eggs', 'US', r'^Egg, whole, cooked, scrambled|^Omelette'),
    ('chicken breast', 'US', r'^Chicken, broilers or fryers, breast.*(roasted|cooked|grilled)'),
    ('ground beef', 'US', r'^Beef, ground.*cooked|^Beef, ground$'),
    ('hamburger bun', 'US', r'^Rolls, hamburger|Hamburger Buns?$'),
    ('french fries', 'US', r'^French fries|^Potatoes, french fried'),
    ('chips', 'US', r'^Snacks, potato chips'),
    ('baked beans', 'US', r'^Beans, baked|^Baked beans$'),
    ('sweet potato', 'US', r'^Sweet potato.*(cooked|baked|boiled)'),
    ('mashed potatoes', 'US', r'^Potatoes, mashed|Mashed potato'),
    ('corn', 'US', r'^Corn, sweet.*(cooked|canned)|^Sweet corn, cooked'),
    ('peas', 'US', r'^Peas, green.*(cooked|canned|frozen)'),
    ('lentils', 'US', r'^Lentils.*cooked'),
    ('kidney beans', 'US', r'^Beans, kidney.*(cooked|canned)'),
    ('oreo', 'US', r'^Cookies?, chocolate sandwich|OREO'),  # SR Legacy's or FNDDS's words
    ('peanut butter', 'US', r'^Peanut butter'),
    ('almonds', 'US', r'^Nuts, almonds|^Almonds, (salted|unsalted|NFS$)'),
    ('ice cream', 'US', r'^Ice creams?, (vanilla|chocolate)|^(Vanilla|Chocolate) ice cream'),
    ('honey', 'US', r'^Honey'),
    ('maple syrup', 'US', r'^Syrups, maple'),
    ('sprite', 'US', r'lemon-lime'),
    ('light beer', 'US', r'(?i)beer, light'),
    ('beer', 'US', r'^Alcoholic beverage, beer, regular|^Beer$'),
    ('sugar-free jello', 'US', r'[Gg]elatin desserts?.*(reduced calorie|sugar free|low calorie|aspartame)'),
    ('unsweetened almond milk', 'US', r'(?i)almond milk, unsweetened'),
    ('tortilla', 'US', r'^Tortillas'),
    ('pizza', 'US', r'[Pp]izza'),
    ('hot dog', 'US', r'[Hh]ot ?dog|^Frankfurter'),
    ('english muffin', 'US', r'^English muffins?, (plain|wheat|whole-wheat)|^Muffin, English$'),
    ('cottage cheese', 'US', r'^Cheese, cottage'),
    ('raisins', 'US', r'^Raisins'),
    ('powerade', 'US', r'POWERADE, lemon-lime|^Sports drink \(Powerade\)'),
    ('porridge', 'UK', r'^Cereals, oats.*cooked|^Porridge, made'),
    ('jacket potato', 'UK', r'^Potatoes, baked'),
    ('crisps', 'UK', r'^Snacks, potato chips|^Potato crisps'),
    ('chips', 'UK', r'^French fries|^Potatoes, french fried'),
    ('biscuits', 'UK', r'^Cookies?\b|^Biscuits, (digestive|semi-sweet|plain)'),
    ('wholemeal bread', 'UK', r'^Bread, whole-wheat|^Bread, wholemeal|^Bread, whole wheat'),
    ('semi-skimmed milk', 'UK', r'^Milk, reduced fat'),
    ('skimmed milk', 'UK', r'^Milk, nonfat'),
    ('courgette', 'UK', r'^Squash, summer, zucchini|^Zucchini, cooked|^Squash, zucchini'),
    ('aubergine', 'UK', r'^Eggplant|^Aubergine, '),
    ('prawns', 'UK', r'^Crustaceans, shrimp|^Shrimps?, (boiled|cooked)|^Prawns, '),
    ('baked potato', 'UK', r'^Potatoes, baked'),
    ('yoghurt', 'UK', r'^Yogurt, plain'),
    ('sultanas', 'UK', r'^Raisins, golden|^Raisins|^Sultanas$'),
    ('tinned tomatoes', 'UK', r'^Tomatoes, red, ripe, canned|^Tomatoes, canned'),
    ('weetabix', 'UK', r'[Ww]eetabix|WEETABIX|wheat biscuits'),
    ('mince', 'UK', r'^Beef, ground.*cooked|^Beef, ground$'),
    ('hot chips', 'AU', r'^French fries|^Potatoes, french fried'),
    ('capsicum', 'AU', r'^Peppers, sweet|bell pepper'),
    ('brötchen', 'DE', r'^Rolls, hard|^Bread rolls|^Roll, .*hard'),
    ('vollkornbrot', 'DE', r'^Bread, whole-wheat|^Bread, whole wheat|Vollkornbrot'),
    ('apfelsaft', 'DE', r'^Apple juice|^Apfelsaft$'),
    ('orangensaft', 'DE', r'^Orange juice|^Orangensaft$'),
    ('kartoffeln', 'DE', r'^Potatoes, (boiled|baked)'),
    ('nudeln', 'DE', r'^Pasta, .*cooked'),
    ('reis', 'DE', r'^Rice, white, long-grain.*cooked'),
    ('milch', 'DE', r'^Milk, (reduced fat|whole|lowfat|nonfat)'),
    ('joghurt', 'DE', r'^Yogurt, plain'),
    ('haferflocken', 'DE', r'^Cereals, oats|^Haferflocken$'),
    ('bratwurst', 'DE', r'^Bratwurst|^Pork, bratwurst'),
    ('brezel', 'DE', r'^Pretzels, soft|^Soft pretzel'),
    ('apfel', 'DE', r'^Apples, raw'),
    ('banane', 'DE', r'^Banana'),
    ('cola light', 'DE', r'^Beverages, carbonated, low calorie, cola|^Cola, diet|^Soft drink, cola, diet'),
    ('fischstäbchen', 'DE', r'^Fish, fish sticks|^Fish fingers|^Fischstäbchen'),
    ('kichererbsen', 'DE', r'^Chickpeas .*(cooked|canned)|^Chickpeas, (from (dried|canned)|NFS$)'),
    ('linsen', 'DE', r'^Lentils.*cooked'),
    ('schinken', 'DE', r'^Ham,|^Pork, cured, ham|^Ham$|^Schinken'),
    ('käse', 'DE', r'^Cheese'),
    ('spagetti', None, r'^Pasta, .*cooked|^Spaghetti'),
    ('bananna', None, r'^Banana'),
    ('chiken brest', None, r'^Chicken, broilers or fryers, breast|^Poulet, Brust'),
]
FIRST_TARGET = 0.90
TOP3_TARGET = 0.98

# Diet queries: the first hit must not be sugared (more than search.SUGARED_G g sugar per
# 100 g without a diet or unsweetened word in its name).
DIET_QUERIES = ["diet coke", "diet cola", "coke zero", "cola light", "diet soda",
                "sugar-free jello", "sugar free gum", "light beer", "zero sugar cola",
                "unsweetened almond milk", "unsweetened apple sauce", "diet pepsi",
                "light yogurt", "sugar-free syrup", "diet lemonade", "unsweetened iced tea",
                "light ice cream", "sugar free candies", "diet tonic water", "lite syrup"]

# Queries without a form word: when the catalog has a prepared row of the food, the first hit
# is not a raw (of a food not eaten raw), dry, uncooked, condensed, powder, concentrate or mix
# row.
FORM_QUERIES = ["chickpeas", "black beans", "kidney beans", "lentils", "pinto beans",
                "split peas", "spaghetti", "macaroni", "noodles", "rice", "brown rice",
                "quinoa", "barley", "couscous", "oats", "chicken noodle soup", "tomato soup",
                "cream of mushroom soup", "hot chocolate", "orange juice", "lemonade",
                "chocolate milk", "pudding", "bacon", "sausage", "chicken breast", "salmon",
                "pork chop", "ground beef", "potatoes", "mashed potatoes", "gravy",
                "pancakes", "cornbread", "iced tea", "coffee", "soup", "brownies", "grits",
                "stuffing"]
_FORM_RE = re.compile(r"\b(dry|uncooked|unprepared|condensed|powder|concentrate|mix|"
                      r"dehydrated|undiluted)\b")


def _names(query: str, region: str | None = None, limit: int = 3) -> list[str]:
    return [hit["food"] for hit in service.search(query, limit=limit, region=region)]


def test_everyday_queries_find_an_acceptable_food_first(full_db):
    first = top3 = 0
    misses = []
    for query, region, acceptable in EVERYDAY:
        hits = _names(query, region)
        good = [re.search(acceptable, hit) is not None for hit in hits]
        first += bool(good and good[0])
        top3 += any(good)
        if not (good and good[0]):
            misses.append(f"{query!r} ({region}): {hits}")
    assert len(EVERYDAY) >= 80
    report = "\n".join(misses)
    assert first / len(EVERYDAY) >= FIRST_TARGET, f"first {first}/{len(EVERYDAY)}:\n{report}"
    assert top3 / len(EVERYDAY) >= TOP3_TARGET, f"top 3 {top3}/{len(EVERYDAY)}:\n{report}"


# Queries a dietitian's re-check still found weak, each fixed by a vocabulary row or a
# ranking rule: each must get its food first, not just count towards the share above.
MUST_BE_FIRST = ["ham sandwich", "sweet potato fries", "apfelkuchen"]


@pytest.mark.parametrize("query", MUST_BE_FIRST)
def test_once_weak_queries_get_their_food_first(full_db, query):
    region, acceptable = next((r, a) for q, r, a in EVERYDAY if q == query)
    hits = _names(query, region)
    assert hits and re.search(acceptable, hits[0]), f"{query!r} ({region}): {hits}"


@pytest.mark.parametrize("query", DIET_QUERIES)
def test_diet_queries_never_put_a_sugared_food_first(full_db, query):
    hits = service.search(query, limit=1)
    if not hits:
        return  # nothing diet of that kind in the catalog: no food rather than a sugared one
    from db.tables import Food
    from db.session import session_scope

    with session_scope(write=False) as session:
        food = session.get(Food, hits[0]["food_id"])
        first = search.candidate(food.id, food.name, food.category, 0.0,
                                 [a.alias for a in food.aliases], food.common_names,
                                 sugars_g=food.sugars_g)
    assert not search.sugared(first), f"{query!r}: {food.name} has {food.sugars_g} g sugar/100 g"


def test_diet_cola_is_the_sugar_free_one_and_plain_cola_the_regular(full_db):
    assert re.match(r"Beverages, carbonated, low calorie, cola|Cola, diet$|Soft drink, cola, diet$",
                    _names("diet coke")[0])
    assert re.match(r"Beverages, carbonated, cola, regular$|Cola$|Soft drink, cola$",
                    _names("cola")[0])
    # Without a diet word a sports drink is the sugared kind a hypo needs, not G2.
    assert _names("gatorade")[0] == "Sports drink (Gatorade G)"


@pytest.mark.parametrize("query", FORM_QUERIES)
def test_no_raw_or_dry_form_first_when_a_prepared_one_exists(full_db, query):
    hits = service.search(query, limit=20)
    assert hits, query
    first = hits[0]["food"].lower()
    prepared = [h["food"] for h in hits if not _form(h["food"].lower(), h["category"])]
    if prepared:
        assert not _form(first, hits[0]["category"]), f"{query!r}: {first!r} before {prepared[0]!r}"


def _form(name: str, category: str) -> bool:
    if re.search(r"\b(prepared|reconstituted|diluted|cooked|boiled|ready-to-(drink|serve))\b",
                 name.replace("commercially prepared", "")):
        return False
    raw = (re.search(r"\braw\b", name) is not None
           and category in search.RAW_NOT_EATEN_GROUPS)
    return raw or _FORM_RE.search(re.sub(r"dry roasted|dry-fried|from concentrate", "", name)) is not None


def test_each_hit_shows_its_default_servings_carbohydrate(full_db):
    cooked, dry = (next(h for h in service.search("chickpeas", limit=20) if kind in h["food"])
                   for kind in ("cooked, boiled, without salt", "mature seeds, raw"))
    # SR Legacy: 1 cup cooked is 164 g at 27.42 g/100 g; dry legumes default to a quarter of
    # SR Legacy's 200 g cup (db.portions), 50 g at 62.95 g/100 g. Available carbohydrate (the
    # UK and German units') takes the fibre off: 7.6 and 12.2 g/100 g.
    assert cooked["portion"] == {"serving": "1 cup", "grams": 164.0, "carbohydrate_g": 45.0,
                                 "available_carbohydrate_g": 32.5, "amount": None}
    assert dry["portion"] == {"serving": "1/4 cup", "grams": 50.0, "carbohydrate_g": 31.5,
                              "available_carbohydrate_g": 25.4, "amount": None}


@pytest.mark.parametrize("query, region, expected", [
    ("chips", "US", "Snacks, potato chips, plain, salted"),
    ("chips", "UK", "French fries"),
    ("chips", None, "Snacks, potato chips, plain, salted"),
    ("biscuits", "US", "Biscuit, NFS"),  # the US biscuit, a quick bread: no cookie
    # Lemonade is still in the US (FNDDS's, 12 g sugar per 100 g), fizzy in the UK (CoFID's,
    # 5.6 g): each region's is first.
    ("lemonade", "US", "Lemonade, fruit juice drink"),
    ("lemonade", "UK", "Lemonade"),
])
def test_region_decides_ambiguous_words(full_db, query, region, expected):
    assert _names(query, region)[0] == expected


def test_a_users_region_decides_without_an_explicit_one(full_db):
    service.ensure_user("pat")
    service.update_settings("pat", region="UK")
    assert service.search("chips", user="pat")[0]["food"] == "French fries"
    assert service.search("chips", user="pat", region="US")[0]["food"] == "Snacks, potato chips, plain, salted"


def test_unknown_region_is_refused(full_db):
    from db.errors import InvalidValue

    with pytest.raises(InvalidValue, match="region must be one of"):
        service.search("chips", region="XX")


@pytest.mark.parametrize("query, expected", [
    ("cornflakes", "corn ?flakes"), ("jellybeans", "jellybeans"), ("jelly beans", "jellybeans"),
    ("soymilk", "soymilk"), ("soy milk", "soy ?milk"), ("apfelsaft", "apple juice"),
])
def test_compounds_are_split_and_joined(full_db, query, expected):
    assert re.search(expected, _names(query)[0].lower())


def test_nfs_is_no_brand_and_no_word_the_query_did_not_ask_for():
    # FNDDS's 253 generic rows ("Biscuit, NFS": not further specified) rank as everyday foods,
    # not as branded ones; brands in capitals still do.
    assert search.prior(curated=False, survey=True, food_group="Biscuits, muffins, quick breads",
                        description="Biscuit, NFS") == 1.0
    assert search.prior(curated=False, survey=True, food_group="Breakfast Cereals",
                        description="Cereals ready-to-eat, KELLOGG'S, Corn Flakes") == 0.0
    muffin, plain = (search.candidate(i, name, "x", 1.0, (), None)
                     for i, name in ((1, "Muffin, NFS"), (2, "Muffin, plain")))
    assert search.score(["muffin"], muffin) > search.score(["muffin"], plain)


def _row(food_id: int, name: str, dataset: str, values=(), entry=None) -> search.Candidate:
    return search.candidate(food_id, name, "x", 1.0, (), None, dataset=dataset,
                            values=tuple(values), entry=entry)


def test_one_food_in_two_tables_or_two_rows_is_shown_once():
    graham = (430.0, 77.66, 6.69, 10.6)  # FNDDS 54102010 is SR Legacy 18173's values
    evaporated = (134.0, 10.04, 6.81, 7.56)  # FNDDS rounds SR Legacy 01097's 135 kcal anew
    rows = [
        _row(1, "Graham crackers", "FNDDS", graham, "54102010"),
        _row(2, "Cookies, graham crackers, plain or honey (includes cinnamon)", "SR Legacy",
             graham, "18173"),
        _row(3, "Pancakes", "FNDDS", (282.0, 35.32, 7.41, 12.07), "55100005"),  # curated
        _row(4, "Pancakes, NFS", "FNDDS", (282.0, 35.32, 7.41, 12.07), "55100005"),
        _row(5, "Milk, evaporated, whole", "FNDDS", evaporated, "11212050"),
        _row(6, "Milk, canned, evaporated, without added vitamin A and vitamin D", "SR Legacy",
             (135.0, 10.04, 6.81, 7.56), "01097"),
        # Not one food: a dish standing in with another row's entry, another food with the
        # same values, a second row of one table, zero-energy drinks, a person's own food.
        _row(7, "Shrimp and grits", "FNDDS", (109.0, 14.6, 2.5, 4.4), "56201990"),
        _row(8, "Grits, NFS", "FNDDS", (109.0, 14.6, 2.5, 4.4), "56201990"),
        _row(9, "Pie Crust, Cookie-type, Graham Cracker, Ready Crust", "SR Legacy",
             (501.0, 64.3, 5.1, 24.83), "18942"),
        _row(10, "Cookie, NFS", "FNDDS", (501.0, 64.3, 5.1, 24.83), "53201000"),
        _row(11, "Graham crackers (Teddy Grahams)", "FNDDS", graham, "54102015"),
        _row(12, "Cola, diet", "CoFID", (1.0, 0.0, 0.0, 0.0), "Cola, diet"),
        _row(13, "Beverages, The COCA-COLA company, DASANI, water, bottled", "SR Legacy",
             (0.0, 0.0, 0.0, 0.0), "14555"),
        search.candidate(14, "Graham crackers", "x", 1.0, (), None, own=True, values=graham),
    ]
    kept = search.dedupe([(row, 1.0) for row in rows])
    assert [(c.food_id, [d[0] for d in c.duplicates]) for c, _ in kept] == [
        (1, [2]), (3, [4]), (5, [6]), (7, []), (8, []), (9, []), (10, []), (11, []), (12, []),
        (13, []), (14, [])]
    # With a limit: the first foods, their duplicates still sought among all the rows after.
    kept = search.dedupe([(row, 1.0) for row in [rows[0], rows[2], rows[6], rows[1], rows[3]]],
                         limit=2)
    assert [(c.food_id, [d[0] for d in c.duplicates]) for c, _ in kept] == [(1, [2]), (3, [4])]


def test_the_same_food_of_two_tables_is_listed_once_with_the_other_reachable(full_db):
    [graham] = [h for h in service.search("graham crackers", limit=5) if h["food"] == "Graham crackers"]
    assert graham["dataset"] == "FNDDS"
    assert [d["food"] for d in graham["duplicates"]] == [
        "Cookies, graham crackers, plain or honey (includes cinnamon)"]
    names = _names("pancakes", "US", limit=10)
    assert names[0] == "Pancakes" and "Pancakes, NFS" not in names
    assert "Bread, pumpernickel (FNDDS)" not in _names("pumpernickel", "US", limit=10)


@pytest.mark.parametrize("query, expected", [
    ("Paradeiser", r"^Tomate, roh"), ("Erdäpfel", r"^Kartoffel"), ("Erdaepfel", r"^Kartoffel"),
    ("Fisolen", r"^Bohne, grün"), ("Karfiol", r"^Blumenkohl"), ("Topfen", r"(?i)quark"),
    ("Marillen", r"^Aprikose"), ("Palatschinken", r"(?i)^cr(e|ê)pe"),
    ("Kartoffelbrei", r"^Kartoffelstock"), ("Kohlrouladen", r"^Stuffed cabbage rolls")])
def test_austrian_and_swiss_words_are_read_as_the_tables_german(full_db, query, expected):
    # Duden marks them österreichisch or schweizerisch (search_vocabulary.csv)
    assert re.search(expected, _names(query, "DE")[0]), _names(query, "DE")


@pytest.mark.parametrize("query, region, expected", [
    ("jelly babies for a hypo", "UK", r"^Gummibonbon mit Fruchtessenz$"),
    ("skittles for low", "US", r"SKITTLES"),
    ("Gummibärchen bei Unterzucker", "DE", r"^Gummibonbon mit Fruchtessenz$"),
    ("juice box for low blood sugar", "US", r"^Apple juice"),
    ("gummy bears low", "US", r"(?i)gumm"), ("jelly babies x5", "UK", r"(?i)gumm|jelly bab")])
def test_a_hypo_treatment_said_to_be_for_a_hypo_is_that_treatment(full_db, query, region, expected):
    assert re.search(expected, _names(query, region)[0]), _names(query, region)


def test_why_a_treatment_is_eaten_is_no_word_searched_for():
    from db import hypo

    assert hypo.without_why("jelly babies for a hypo") == "jelly babies"
    assert hypo.without_why("Saft bei Unterzucker") == "Saft"
    assert hypo.without_why("juice for low blood sugar") == "juice"
    assert hypo.without_why("low fat milk") == "low fat milk"
    assert hypo.without_why("for a hypo") == "for a hypo"  # nothing else: left as typed
    assert hypo.without_why("skittles for low sugar") == "skittles"
    assert hypo.without_why("kleines Glas Apfelsaft wegen Unterzucker") == "kleines Glas Apfelsaft"
    # said as a note, without "for"
    assert hypo.without_why("gummy bears low") == "gummy bears"
    assert hypo.without_why("full fat coke hypo") == "full fat coke"
    assert hypo.without_why("yogurt low fat") == "yogurt low fat"
    assert hypo.without_why("skittles low blood sugar") == "skittles"
    assert hypo.without_why("Gummibärchen Unterzucker") == "Gummibärchen"
    assert hypo.without_why("juice low sugar") == "juice low sugar"  # a diet wish, not why
    # around sleep or exercise is when, not what
    assert search.without_context("apple juice box before bed") == "apple juice box"
    assert search.without_context("Banane vor dem Sport") == "Banane"
    assert search.without_context("Bratkartoffeln wie bei Oma") == "Bratkartoffeln"
    # a German fat content names no food; a US "2%" milk keeps its figure
    assert search.without_context("Naturjoghurt 3,5 Prozent") == "Naturjoghurt"
    assert search.without_context("milk 2%") == "milk 2%"
    # where and when, said after the food
    assert search.without_context("cheesecake slice at home") == "cheesecake slice"
    assert search.without_context("Bockwurst heute") == "Bockwurst"
    assert search.without_context("slice of homemade meatloaf") == "slice of meatloaf"
    assert search.without_context("Sauerkraut aus der Dose warm") == "Sauerkraut"
    # what it is eaten without, but not its sugar (a diet wish)
    assert search.without_context("Nudeln gekocht ohne Soße") == "Nudeln gekocht"
    assert search.without_context("coffee without milk") == "coffee"
    assert search.without_context("cola ohne Zucker") == "cola ohne Zucker"
    assert hypo.without_why("full fat coke hypo treatment") == "full fat coke"
    # a glucose reading said after it, not a count nor "sugar 2"
    assert hypo.without_why("handful of jelly beans bg 55") == "handful of jelly beans"
    assert hypo.without_why("jelly babies at 3.5") == "jelly babies"
    assert hypo.without_why("apple juice, 3,4 mmol/l") == "apple juice"
    assert hypo.without_why("Cola BZ 55") == "Cola"
    assert hypo.without_why("skittles at 54 mg/dl") == "skittles"
    assert hypo.without_why("jelly babies 5") == "jelly babies 5"
    assert hypo.without_why("coffee sugar 2") == "coffee sugar 2"
    assert hypo.without_why("bg 55") == "bg 55"


def test_a_diary_s_words_around_the_food_are_no_food_words():
    assert search.without_context("had a banana") == "a banana"
    assert search.without_context("ich habe 2 Bananen gegessen") == "2 Bananen"
    assert search.without_context("Apfelsaft getrunken") == "Apfelsaft"
    assert search.without_context("drink mix") == "drink mix"  # a food
    assert search.without_context("strawberries earlier") == "strawberries"
    assert search.without_context("Apfel vorhin") == "Apfel"
    assert search.without_context("Bananen zuhause") == "Bananen"
    assert search.without_context("banana before shift") == "banana"
    assert search.without_context("Naturjoghurt 3.5 fett") == "Naturjoghurt"
    # what it is eaten without, sugar too: the food without sugar
    assert search.without_context("black coffee no cream no sugar") == "black coffee no sugar"
    assert search.without_context("Kaffee ohne Milch und Zucker") == "Kaffee ohne Zucker"


@pytest.mark.parametrize("query, region, food", [
    ("had a banana", "US", r"^Banana$"), ("ate 2 eggs", "US", r"^Egg, whole"),
    ("2 bananen gegessen", "DE", r"^Banane, roh"),
    ("black coffee no cream no sugar", "US", r"(?i)coffee, brewed"),
    ("tea without sugar", "UK", r"(?i)^beverages, tea, black, brewed"),
    ("erdbeeren aus dem garten", "DE", r"(?i)^strawberr|^erdbeere"),
    ("rührei aus 2 eiern", "DE", r"(?i)^rührei"),
    # a filling said on a sandwich's bread is the sandwich
    ("turkey and swiss on whole wheat", "US", r"(?i)^turkey.*sandwich"),
    ("tuna on rye", "US", r"(?i)^tuna.*sandwich"),
    # Philadelphia's "wit", German "im": what the food comes with or in
    ("philly cheesesteak wit onions", "US", r"(?i)^cheese ?steak"),
    ("bratwurst im brötchen", "DE", r"(?i)bratwurst"),
    # a jacket or sausage of two fillings is one food; a sweet potato no potato
    ("cheese and beans jacket", "UK", r"(?i)^potato(es)?, .*baked"),
    ("tuna mayo jacket potato", "UK", r"(?i)^potato(es)?, (?!.*sweet).*baked"),
    ("pork and apple sausage", "UK", r"(?i)^sausages?, pork"),
    # how it was served or cooked names no food; a seller before a size is no food either
    ("apfelstrudel warm mit vanillesoße", "DE", r"(?i)strudel"),
    ("kürbiskerne geröstet", "DE", r"(?i)^kürbiskerne"),
    ("frosty from wendys small", "US", r"(?i)frosty"),
    ("weetabix x2 with semi skimmed", "UK", r"(?i)weetabix"),
    # the skin said kept: the rows eaten with it, not "Potatoes, baked, skin" (the skin alone)
    ("baked potato medium skin on", "US", r"(?i)^potato(es)?, baked, (flesh and skin|peel eaten|NFS)"),
    ("chicken thigh with skin", "US", r"(?i)^chicken thigh.*skin eaten"),
    # canned or baked said in words (with_how_made_said)
    ("mais aus der dose", "DE", r"(?i)^(zuckermais \(konserve\)|corn, canned|corn, sweet, .*canned)"),
    ("peaches from a tin", "UK", r"(?i)^peaches, canned"),
    ("süßkartoffel aus dem ofen", "DE", r"(?i)^sweet potato, (cooked, )?baked"),
])
def test_what_a_diary_says_around_the_food_finds_the_food(full_db, query, region, food):
    first = _names(query, region)[0]
    assert re.search(food, first), first


def test_a_glucose_reading_after_a_treatment_finds_the_treatment(full_db):
    assert _names("handful of jelly beans bg 55", "US")[0] == "Candies, jellybeans"
    assert "enter the carbohydrate" in _names("glucose tablets bg was 60 for a hypo", "US")[0]


@pytest.mark.parametrize("query, region, skin_eaten", [
    ("chicken breast no skin", "US", r"(?i)skin eaten|meat and skin|with skin"),
    ("chicken leg without the skin", "US", r"(?i)skin eaten|meat and skin|with skin"),
    ("skinless chicken thighs", "US", r"(?i)skin eaten|fried|coated"),
    ("Hähnchenschenkel ohne Haut", "DE", r"(?i)mit haut|skin eaten"),
])
def test_the_skin_said_left_off_puts_rows_eaten_with_it_below(full_db, query, region, skin_eaten):
    first = _names(query, region)[0]
    assert re.search(r"(?i)chicken|poulet|huhn|h(ä|ae)hnchen", first), first
    if region == "US":  # the tables name it without the skin
        assert not re.search(skin_eaten, first), first


def test_a_food_said_from_a_tin_is_the_canned_food_and_a_drink_s_can_only_its_container():
    assert search.with_how_made_said("peaches from a tin") == "peaches canned"
    assert search.with_how_made_said("Mais aus der Dose") == "Mais konserve"
    assert search.with_how_made_said("Dosenravioli").split() == ["ravioli", "konserve"]
    assert search.with_how_made_said("tin of peaches").split()[-1] == "canned"
    assert search.with_how_made_said("Süßkartoffel aus dem Ofen") == "Süßkartoffel gebacken"
    for unchanged in ("Cola aus der Dose", "Dosenbier", "can of coke", "tin of quality street"):
        assert search.with_how_made_said(unchanged) == unchanged


def test_sides_listed_after_a_main_food_leave_it_the_main():
    assert search.main_food(search.words("chicken kiev chips and peas")) == (
        ["chicken", "kiev"], "kiev")
    assert search.main_food(search.words("steak and ale pie mash and peas"))[1] == "pie"
    # a main food and side the tables name as one dish stay that dish
    assert search.main_food(search.words("fish chips and mushy peas"))[1] == "chips"
    # a second food with its amount is no filling of the dish ("chicken and vegetable soup" is)
    assert search.main_food(search.words("grilled cheese and a cup of tomato soup"))[1] == "cheese"
    assert search.main_food(search.words("chicken and vegetable soup"))[1] == "soup"
    # nor how a steak was done or the state it was bought in
    assert search.main_food(search.words("fresh tagliatelle cooked"))[1] == "tagliatelle"


def test_a_count_as_times_counts_and_is_no_word_searched_for():
    assert search.query_words("jelly babies x5") == ["jelly", "babies"]
    assert search.query_measure("jelly babies x5") == ("5", search.COUNTED)
    assert search.query_measure("2x weetabix") == ("2", search.COUNTED)
    assert search.query_measure("x100 sweets") == ()  # more than anyone eats at once


def test_a_diet_query_reads_on_past_rows_that_are_only_light(full_db):
    # "Pancake syrup, light" has 33 g sugars per 100 g; SR Legacy's sugar-free syrup none
    assert _names("sugar free pancake syrup", "US")[0] == "Syrups, sugar free"
    # where the light rows are all there is, they stay ("no sugar added" ice cream's milk sugar)
    assert _names("sugar free ice cream", "US")[0].startswith("Ice creams, vanilla, light, no sugar added")


def test_a_regular_query_reads_on_past_rows_that_are_all_diet_kinds(full_db):
    # SR Legacy's only peach Snapple is the diet one (0.1 g carbohydrate a bottle)
    first = service.search("snapple peach tea", limit=1, region="US")[0]
    assert not search.reduced(search.candidate(0, first["food"], "", 0.0, (), ""))
    assert first["portion"]["carbohydrate_g"] > 20
    assert _names("gatorade g2", "US")[0].startswith("Sports drink, low calorie (Gatorade G2)")
    # "non diet" asks for the regular kind (a hypo treatment), not for a diet one
    assert re.search(r"(?i)^(cola|beverages, carbonated, cola, regular)$", _names("non diet coke", "UK")[0])
    assert search.split_diet(["not", "diet", "lemonade"]) == (["lemonade"], False)
    # the Swiss FCDB's "mit Süssstoffen" is a diet kind: no answer to a regular query
    assert "Süssstoff" not in _names("Fruchtjoghurt", "DE")[0]


@pytest.mark.parametrize("query, region, expected", [
    ("orange gatorade", "US", r"^Sports drink \(Gatorade G\)"),  # not the dry powder
    ("lemon lime gatorade", "UK", r"^Sports drink \(Gatorade G\)"),  # not lemon-lime soda
    ("cherry coke", "US", r"(?i)cola(?!.*diet)"),  # not a NOS energy drink of "loaded cherry"
    ("blue raspberry powerade", "US", r"^Sports drink \(Powerade\)"),  # not blue crab
    ("capri sun orange", "UK", r"\(Capri Sun\)"),  # not oranges
    ("diet cherry coke", "US", r"(?i)cola.*diet"),
])
def test_a_drink_brands_flavour_is_the_brands_drink(full_db, query, region, expected):
    assert re.search(expected, _names(query, region)[0])


@pytest.mark.parametrize("query", ["zuckerfreier Sirup", "Diät Limonade", "Apfelmus ungesüßt"])
def test_german_diet_words_count_as_inflected(query):
    assert search.split_diet(search.query_words(query))[1]


def test_glucose_chews_and_traubenzucker_plaettchen_ask_for_the_pack(full_db):
    for query, region in [("glucose chews", "US"), ("Traubenzucker Plättchen", "DE"), ("hypostop", "UK"),
                          ("traubenzuckergel", "DE")]:  # a term's words written as one
        [hit] = service.search(query, limit=3, region=region)
        assert hit["food_id"] is None and "from the pack" in hit["asks"], hit


def test_sausage_biscuit_is_the_sausage_biscuit_not_one_with_egg_and_cheese(full_db):
    assert _names("sausage biscuit", "US")[0] == "Sausage biscuit sandwich"


@pytest.mark.parametrize("query, region, expected", [
    ("fresh strawberries", "US", r"^Strawberries"),  # not the Swiss "Erdbeere, roh"
    ("sliced cucumber", "US", r"^Cucumber, raw"),  # not cooked cucumber
    ("one ripe banana", "US", r"^Banana(, raw)?$"),  # not a baked one
    ("banane reif", "DE", r"(?i)^banan(e|a)(, roh)?$"),  # not dried, nor ripe peas
])
def test_how_fresh_or_how_cut_is_no_word_of_the_foods_name(full_db, query, region, expected):
    assert re.search(expected, _names(query, region)[0])


def test_a_measure_or_container_beside_the_food_is_no_word_of_its_name(full_db):
    assert search.without_measures(["half", "cup", "juice"]) == ["juice"]
    assert search.without_measures(["juice"]) == []  # nothing to drop
    assert not re.search(r"(?i)^cup|pot savour", _names("half cup juice", "US")[0])
    assert _names("coleslaw pot", "UK")[0].startswith("Coleslaw")
    assert _names("pudding cup", "US")[0].startswith("Pudding")
    assert re.search(r"(?i)granola bar", _names("granola bar", "US")[0])  # a food named with one


def test_a_sugary_unsweetened_row_is_no_light_or_diet_answer(full_db):
    assert search.asks_no_added_sugar(["no", "added", "sugar", "squash"])
    assert search.asks_no_added_sugar(["unsweetened", "applesauce"])
    assert not search.asks_no_added_sugar(["light", "cranberry", "juice"])
    unsweetened = search.candidate(1, "Cranberry juice, unsweetened", "Beverages", 0.0, (), None,
                                   sugars_g=12.1)
    assert search.sugared(unsweetened, no_added_sugar=False)
    assert not search.sugared(unsweetened, no_added_sugar=True)
    assert "unsweetened" not in _names("light cranberry juice", "US")[0]
    assert _names("unsweetened applesauce", "US")[0] == "Applesauce, unsweetened"


@pytest.mark.parametrize("query, region, expected", [
    ("cheezecake", "US", r"^Cheesecake"),  # one letter off a catalog word, not "cheez" + cake
    ("Apfelstrudl", "DE", r"(?i)strudel"),  # a compound misspelt in its last part
    ("blueberrys", "US", r"^Blueberries"),  # an "-ys" plural
    ("cheesesteak", "US", r"(?i)cheese ?steak"),  # two letters off cheesecake: its parts
    ("apfelstrudle", "DE", r"(?i)strudel, apple|apfelstrudel"),  # two letters swapped
    ("erbsensupe", "DE", r"(?i)^soup, (split )?pea"),  # not the catalog's "sope" or "ensure"
    ("hünersuppe", "DE", r"(?i)^soup, chicken"),  # the first part misspelt
    ("spaetzel", "DE", r"(?i)sp(ä|a|ae)tzl|noodles, egg"),  # umlaut typed out and two swapped
    ("bandnudeln", "DE", r"(?i)^pasta"),  # an unknown first part stays: no "Brand"
    ("baked beens", "UK", r"(?i)^baked beans"),  # no fish that "may have been frozen"
    # of two corrections one letter off, the one foods name beside the other word: not fresh
    ("frensh fries", "US", r"(?i)french fries"),
    ("crawfish", "US", r"(?i)crayfish"),  # a word alone: the closest, not the commoner catfish
])
def test_misspelt_compounds_and_plurals_are_read_as_the_catalog_spells_them(
        full_db, query, expected, region):
    assert re.search(expected, _names(query, region)[0])


@pytest.mark.parametrize("query, region, expected", [
    ("chicken casserole", "US", r"^Chicken, (breast|drumsticks|thighs|leg)"),  # not its skin
    ("chicken marsala", "US", r"(?i)marsala"),  # the dish the phrase ends with, not chicken feet
    ("chicken adobo", "US", r"(?i)adobo"),
    ("turkey chili", "US", r"(?i)^chili"),
])
def test_a_dish_named_beside_a_meat_comes_before_the_meat_and_odd_cuts_last(
        full_db, query, region, expected):
    assert re.search(expected, _names(query, region)[0])


def test_chicken_is_chicken_of_no_named_part_not_an_odd_cut(full_db):
    first = _names("chicken", "US")[0]
    assert first.startswith("Chicken, NS as to part and cooking method"), first
    odd = [name for name in _names("chicken", "US", limit=10)
           if re.search(r"(?i), (feet|back|tail|skin)(,|$)", name)]
    assert odd == []
    assert re.search(r"(?i)^chicken,? feet", _names("chicken feet", "US")[0])  # when asked for


@pytest.mark.parametrize("query, region, expected", [
    ("toast with butter", "US", r"^(Toast|Bread)\b"),  # not tahini "from ... toasted kernels"
    ("porridge with honey", "UK", r"^Porridge"),  # not a babyfood "with honey"
    ("scampi and chips", "UK", r"^Scampi"),
    ("eggs and bacon", "US", r"^Eggs?\b(?!.*(burrito|sandwich|biscuit))"),
    ("Apfelstrudel mit Vanillesauce", "DE", r"(?i)strudel"),
    ("roast beef and yorkshire pudding", "UK", r"(?i)^beef, roast"),  # not beef steak pudding
    ("broetchen mit butter", "DE", r"(?i)^rolls?\b"),  # Brötchen typed without its umlaut
    ("fish in parsley sauce", "UK", r"(?i)^fish\b(?! sauce)"),  # not fish sauce
    ("jelly and ice cream", "UK", r"(?i)^(gelatin dessert|jelly)"),
    # a row holding both foods only as words of one food is not the two together ("Cookie,
    # tea, Japanese")
    ("tea and biscuits", "UK", r"(?i)^(?!cookie, tea).*\b(tea|biscuits)\b"),
    ("chicken and sausage gumbo", "US", r"(?i)gumbo"),  # one dish
    # the main food's word as what another food comes on is that other food: no toast
    ("toast and jam", "UK", r"(?i)^(bread|toast)\b.*\btoast"),  # no beans or prawn toast
    # Spanish "de" joins a dish to what it is made of, as "con" does, not a word of either
    ("quesadila de steak", "US", r"(?i)^quesadilla"),
    ("dulce de leche", "US", r"(?i)^dulce de leche$"),  # a name of both is still that food
    # two foods joined by "and" are named in either order, in any region's table
    ("carrots and peas", "UK", r"(?i)^peas and carrots"),
    # a spread on bread: the bread is the food, as in "toast with jam" (not the jam alone)
    ("jam on toast", "UK", r"(?i)^bread\b.*\btoasted"),
    ("peanut butter on toast", "US", r"(?i)^bread\b.*\btoasted|^peanut butter toast\b"),  # or the composite of both
    ("Marmelade auf Brötchen", "DE", r"(?i)^rolls?\b|br(ö|oe)tchen"),
    # a list of what is spread on it names the bread or scone first
    ("scones jam and cream", "UK", r"(?i)^scones?\b"),
    # the second food's kind named after the main food is that food: "Coffee creamer" is cream
    ("coffee with cream", "US", r"(?i)^coffee, (NS|brewed)"),
    # sugar taken in a hot drink: the hot drink, not sweetened iced tea
    ("tea with sugar", "US", r"(?i)^(beverages, )?tea\b(?!.*iced)"),
    ("mug of tea 2 sugars", "UK", r"(?i)^(beverages, )?tea\b(?!.*iced)"),
    ("Tee mit Zucker", "DE", r"(?i)^(beverages, )?te(a|e)\b(?!.*iced)"),
])
def test_a_phrase_of_two_foods_is_its_first_food(full_db, query, region, expected):
    assert re.search(expected, _names(query, region)[0])
    assert search.main_food(search.words("egg and cress sandwich")) == (
        ["egg", "cress", "sandwich"], "sandwich")  # one food: a sandwich
    assert search.main_food(search.words("peanut butter and jelly sandwich"))[1] == "sandwich"
    assert search.main_food(search.words("cheese on toast")) == (["cheese"], "cheese")  # a dish
    assert search.main_food(search.words("peanut butter and jelly"))[1] == "butter"  # spreads alone
    assert search.with_sugars_taken("tea milk 2 sugars") == "tea milk with 2 sugars"
    assert search.with_sugars_taken("brown sugar") == "brown sugar"


def test_of_two_foods_as_good_the_main_food_and_the_plainer_name_come_first(full_db):
    assert _names("garlic naan", "US")[0] == "Bread, naan"  # not "Garlic, cooked"
    assert _names("garlic rice", "US")[0] == "Rice, cooked, NFS"  # not "Fried rice"


def test_a_tofu_burger_is_a_stand_in(full_db):
    assert not _names("burger and chips", "UK")[0].startswith("Tofu")
    assert _names("tofu burger", "UK")[0].startswith("Tofu burger")


def test_a_school_lunch_recipe_comes_only_for_school_lunch(full_db):
    assert "school" not in _names("pepperoni pizza", "US")[0]
    assert "school lunch" in _names("school lunch pizza", "US")[0]


def test_a_dish_made_with_a_food_ranks_below_the_food(full_db):
    assert _names("Camembert", "DE")[0].startswith("Camembert")  # not "Crêpes mit Camembert"
    assert _names("tinned tomatoes", "UK")[0].startswith("Tomatoes")  # not baked beans


@pytest.mark.parametrize("query, region, expected", [
    ("unsweet tea", "US", r"(?i)^tea\b.*unsweetened"),  # not pre-sweetened iced tea
    ("stevia drops", "US", r"(?i)stevia"),  # not a sugared cough drop
    ("7up free", "UK", r"(?i)(soft drink|carbonated).*(diet|low calorie)"),  # not alcohol-free lager
    # a brand or a regional word that names only a sugared food: its diet kind
    ("ribena no added sugar", "UK", r"(?i)squash, no sugar added"),
    ("Diät Marmelade", "DE", r"(?i)^Konfit(ü|ue)re, energievermindert"),
])
def test_diet_words_and_sweeteners_never_give_a_sugared_food(full_db, query, region, expected):
    [hit] = service.search(query, limit=1, region=region)
    assert re.search(expected, hit["food"]), hit


def test_free_after_what_a_food_is_free_of_is_no_diet_word():
    assert search.split_diet(["7up", "free"]) == (["7up"], True)
    assert search.split_diet(["alcohol", "free", "beer"]) == (["alcohol", "free", "beer"], False)
    assert search.split_diet(["lactose", "free"]) == (["lactose", "free"], False)
    assert search.split_diet(["stevia", "drops"]) == (["stevia", "drops"], True)


@pytest.mark.parametrize("query, region, expected", [
    ("vegan chili", "US", r"^Chili, vegetarian"),  # not "Chili, NFS" (with meat)
    ("vegan sausage", "UK", r"(?i)sausages?, (vegetarian|meatless)"),
    ("turkey sandwich", "US", r"^Turkey sandwich"),  # not "Hot dog sandwich, turkey"
    ("tuna mayo baguette", "UK", r"(?i)sandwich.*tuna"),  # not the filling alone
    ("ham and cheese baguette", "UK", r"(?i)ham sandwich.*cheese"),
    ("chicken bacon ranch sub", "US", r"(?i)^chicken.*sandwich or sub"),
    ("Brötchen mit Nutella", "DE", r"(?i)^nutella sandwich"),  # as a Nutellabrötchen
    ("Brötchen mit Butter", "DE", r"(?i)^rolls?\b"),  # bread with butter is bread
    ("ham on rye", "US", r"(?i)^ham sandwich"),  # a US deli's filling "on" its bread
    ("tuna salad on wheat", "US", r"(?i)^tuna salad sandwich"),
])
def test_a_dish_is_named_by_its_kind_of_bread_or_of_stand_in(full_db, query, region, expected):
    assert re.search(expected, _names(query, region)[0])


def test_when_it_was_eaten_and_where_it_came_from_are_no_words_of_its_name():
    assert search.without_context("tea and toast for breakfast") == "tea and toast"
    assert search.without_context("Weggli zum Zmorge") == "Weggli"
    assert search.without_context("Leberkaes Semmel vom Metzger") == "Leberkaes Semmel"
    assert search.without_context("Brezel vom Baecker") == "Brezel"  # umlaut typed as ae
    assert search.without_context("chips from the chippy for tea") == "chips"
    # a seller stays, to be searched for (db.repo reads on without it), its "from" goes
    assert search.without_context("blt from tesco for lunch") == "blt tesco"
    # the tables' own words, and nothing left: as typed
    assert search.without_context("pizza from frozen") == "pizza from frozen"
    assert search.without_context("orange juice from concentrate") == "orange juice from concentrate"
    assert search.without_context("for breakfast") == "for breakfast"
    assert search.without_context("chips n salsa at the mexican place") == "chips n salsa"
    assert search.without_context("Cervelat vom Grill") == "Cervelat"
    # where or how it was made, before or after the food
    assert search.without_context("chip shop sausage") == "sausage"
    assert search.without_context("roller grill hot dog") == "hot dog"
    assert search.without_context("Späti Bier") == "Bier"
    assert search.without_context("homemade meatloaf") == "meatloaf"
    assert search.without_context("hausgemachte Maultaschen") == "Maultaschen"
    assert search.without_context("pot roast in the slow cooker") == "pot roast"
    assert search.without_context("chili from scratch") == "chili"
    assert search.without_context("homemade") == "homemade"


def test_a_place_no_table_knows_is_where_it_came_from_and_a_packs_size_no_typo(full_db):
    assert _names("potato knish from katz", "US")[0] == "Knish"  # no boiled potato
    assert _names("pizza from frozen", "US")[0].startswith("Pizza, cheese, from frozen")
    # "share size" is no "spare size": the M&M's, not peanuts
    assert "M&M's" in _names("peanut m&ms share size", "US")[0]


@pytest.mark.parametrize("query, region, expected", [
    ("blt from tesco", "UK", r"(?i)bacon, lettuce,? and tomato|b\.?l\.?t"),
    ("pilau rice from the takeaway", "UK", r"(?i)pilau"),
    ("custard from a tin", "UK", r"(?i)^custard"),
    ("tuna steak", "US", r"(?i)^fish, tuna"),  # a cut no tuna row names: the fish
    ("lobster tail", "US", r"(?i)^lobster"),
    ("cod", "US", r"(?i)^fish, cod"),  # FNDDS's "Fish, cod" is cod; "Cape Cod" a cocktail
    ("chicken leg", "US", r"(?i)^chicken leg"),  # a row that names the cut keeps it
    ("chicken korma takeaway", "UK", r"(?i)korma"),  # "takeaway" as a word of a name: dropped
])
def test_context_and_cut_words_leave_the_food(full_db, query, region, expected):
    assert re.search(expected, _names(query, region)[0]), _names(query, region)


def test_slimline_and_zero_calorie_are_diet_words():
    assert search.split_diet(["slimline", "tonic"]) == (["tonic"], True)
    assert search.split_diet(["zero", "calorie", "sweetener"]) == (["sweetener"], True)


def test_where_a_food_was_bought_is_no_word_of_its_name(full_db):
    assert search.without_sellers(["taco", "bell", "crunchy", "taco"]) == ["crunchy", "taco"]
    assert search.without_sellers(["greggs", "sausage", "roll"]) == ["sausage", "roll"]
    assert search.without_sellers(["pret"]) == []  # nothing else: the words as typed
    assert search.without_sellers(["sausage", "roll"]) == []
    assert re.search(r"(?i)^porridge", _names("pret porridge", "UK")[0])  # "pret" is no typo
    assert re.search(r"(?i)^tacos?\b", _names("taco bell crunchy taco", "US")[0])
    assert re.search(r"(?i)^sausage roll", _names("greggs sausage roll", "UK")[0])
    assert _names("wendys chicken nuggets", "US")[0] == "WENDY'S, Chicken Nuggets"  # SR names it
    assert _names("wendys baconator", "US")  # never nothing


@pytest.mark.parametrize("query, expected", [
    ("Bananen", r"^Banane, roh"), ("Birnen", r"^Birne, roh"), ("Aprikosen", r"^Aprikose, roh"),
    ("Weißwürste", r"^Weisswurst"), ("Eier", r"(?i)^eggs?\b"),
])
def test_a_german_plural_is_its_singular_not_the_start_of_a_compound(full_db, query, expected):
    assert re.search(expected, _names(query, "DE")[0])  # not "Bananenkuchen" or dried banana
    assert re.search(r"(?i)^chicken nuggets", _names("chiken nuggets", "US")[0])  # no "chik"


@pytest.mark.parametrize("query, region, expected", [
    ("sweetcorn", "UK", r"(?i)^sweetcorn(?!, dried)"), ("broad beans", "UK", r"(?i)boiled"),
    ("runner beans", "UK", r"(?i)boiled"), ("prunes", "US", r"(?i)^prunes?\b"),
    ("oregano", "US", r"(?i)oregano, dried"),
])
def test_dried_is_a_form_not_asked_for_unless_the_food_is_eaten_dried(full_db, query, region,
                                                                       expected):
    assert re.search(expected, _names(query, region)[0])


def test_a_diet_row_with_less_sugar_comes_first(full_db):
    first = service.search("sugar free ice cream", limit=1, region="US")[0]["food"]
    assert "no sugar added" in first.lower(), first  # not "Light ice cream, NFS" (14 g sugar)


def test_a_hypo_query_naming_two_pack_entries_gets_one(full_db):
    hits = service.search("dex4 glucose tablets", region="US")
    assert [(h["food"], h["food_id"]) for h in hits] == [
        ("Dex4: enter the carbohydrate from the pack", None)]


def test_eine_mass_is_a_litre():
    assert search.query_measure("Maß Bier", "DE") == ("1000", "ml")
    assert search.query_words("Maß Bier") == ["bier"]


@pytest.mark.parametrize("query, region, expected", [
    ("salt and vinegar crisps", "UK", r"(?i)^potato (crisps|chips)(?!.*without salt)"),
    ("walkers cheese and onion", "UK", r"(?i)^potato (crisps|chips)"),
    ("doritos chilli heatwave", "UK", r"\(Doritos\)$"),
    ("sour cream and onion chips", "US", r"(?i)sour cream and onion"),  # a row of the flavour
    ("bbq chips", "US", r"(?i)^potato chips, barbecue"),
])
def test_a_snack_s_flavour_no_table_has_is_the_snack(full_db, query, region, expected):
    assert re.search(expected, _names(query, region)[0])
    assert search.without_flavours(["cheese", "onion", "pasty"]) == []  # no snack: a pasty


@pytest.mark.parametrize("query, region, expected", [
    # a brand FNDDS names in a note, whatever flavour or size follows it
    ("cheetos crunchy small bag", "US", r"\(Cheetos\)$"),  # "bag" starts no "Bagel"
    ("ensure vanilla", "US", r"\(Ensure\)$"),
    ("clif bar chocolate chip", "US", r"\(Clif Bar\)$"),
    ("Rinderhack", "DE", r"^Beef, ground"),  # a Swiss note says what it is: "Hackplätzli (Rind)"
    # a kind of a dish asks for the dish
    ("chicken broth", "US", r"^Soup, chicken broth"),
    # a baked snack is a kind of the snack; a mini pouch is no Pop-Tart
    ("lays classic potato chips", "US", r"^Potato chips, NFS$"),
    ("frosted strawberry pop tart", "US", r"Toaster Pastries$"),
    # the words as typed that a region reads as another food name no foreign row: German
    # "Paprika" is the sweet pepper, not CoFID's spice
    ("paprika", "DE", r"^Peperoni"),
    ("Paprikapulver", "DE", r"^Paprika \(Gewürz\)$"),
    ("bœuf stroganoff", "DE", r"(?i)^beef stroganoff"),
    # what it is served over is no food of its name
    ("egg over medium", "US", r"^Egg, whole, fried"),
    # a plant yogurt is asked: no dairy yogurt ("Joghurt, nature")
    ("alpro soja joghurt natur", "DE", r"^(?!Joghurt)"),
])
def test_a_product_is_named_by_its_brand_and_kind_not_its_flavour(full_db, query, region,
                                                                  expected):
    assert re.search(expected, _names(query, region)[0])
    assert search.main_food(search.words("ensure vanilla"))[1] == "ensure"
    assert search.main_food(search.words("clif bar chocolate chip"))[1] == "clif"
    assert search.main_food(search.words("milk chocolate"))[1] == "chocolate"
    # a query's letters that no decomposition takes apart fold for search (not stored keys)
    assert search.words("Bœuf Stroganoff, gołąbki") == ["boeuf", "stroganoff", "golabki"]


@pytest.mark.parametrize("query, region, expected", [
    # the form asked weighs the food as bought: dry lentils are raw ones, not cooked
    ("dry lentils", "US", r"^Lentils, raw"),
    ("Linsen trocken", "DE", r"^Lentils, raw"),
    ("Nudeln ungekocht", "DE", r"^Teigwaren ohne Ei, trocken"),  # not "gekocht", boiled
    ("tvp dry", "US", r"^Textured vegetable protein, dry"),
    # what it is for is no food of its name
    ("Kokosmilch zum Kochen", "DE", r"(?i)^coconut milk"),
])
def test_a_form_asked_is_the_food_as_weighed(full_db, query, region, expected):
    assert re.search(expected, _names(query, region)[0])


@pytest.mark.parametrize("query, region, expected", [
    # the milk chosen for a coffee-shop drink, said after it, is no food of its own
    ("costa latte semi skimmed", "UK", r"(?i)^coffee, (cappuccino, )?latte$"),
    ("tall cappuccino 2% milk", "US", r"^Coffee, Cappuccino$"),  # no non-dairy one
    ("flat white oat milk", "UK", r"non-dairy milk"),  # a plant milk makes another drink
    ("tea semi skimmed", "UK", r"^Tea, infusion, average, with semi-skimmed milk$"),
    # a chain's cup size is the table's (tall 12, grande 16, venti 20 fl oz)
    ("starbucks vanilla latte venti", "DE", r"^Coffee, Latte, flavored$"),
    # a sugar-free row's milk sugar keeps it first ("Diabetikerschokolade")
    ("diabetiker schokolade", "DE", r"^Chocolate candy, sugar free$"),
    ("heinz no added sugar baked beans", "UK", r"reduced sugar"),
])
def test_a_coffee_shop_order_and_a_sugar_free_product_are_the_drink_and_the_product(
        full_db, query, region, expected):
    assert re.search(expected, _names(query, region)[0])
