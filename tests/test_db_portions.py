"""Default portions as one person eats them (db/portions.py), chosen from SR Legacy's own
household measures: nuts by the ounce, chocolate by a few squares, soup by the cup, condensed
soup and juice concentrate by what makes one portion, dry rice, pasta and pulses by the dry
amount that cooks to one serving."""

from datetime import datetime

import pytest
from db_support import write_seed
from sqlalchemy import delete, select, update

from db import catalog, composition, fndds, portions, service, sr28
from db.tables import Food, SeedVersion, Serving
from db.seed import SEED_DIR
from db.session import configure, init_db, session_scope


@pytest.fixture(scope="module")
def defaults() -> dict[str, portions.DefaultServing]:
    return {d.food: d for d in catalog.default_servings(SEED_DIR)}


@pytest.mark.parametrize("food, serving, grams", [
    ("Nuts, almonds", "1 oz (23 whole kernels)", 28.35),
    ("Nuts, walnuts, english", "1 oz (14 halves)", 28.35),
    ("Candies, chocolate, dark, NFS (45-59% cacao solids 90%; 60-69% cacao solids 5%; "
     "70-85% cacao solids 5%)", "1 oz", 28.35),
    ("Snacks, rice cakes, brown rice, plain, unsalted", "1 cake", 9.0),
    ("Soup, beef broth, cubed, dry", "1 cube", 3.6),  # one cup of broth
    ("Soup, bouillon cubes and granules, low sodium, dry", "1 cube", 3.6),
    # Condensed soup: half a cup makes a cup of soup; ready soup: a cup, not the can.
    ("Soup, cream of celery, canned, condensed", "0.5 cup", 126.0),
    ("Soup, minestrone, canned, condensed", "0.5 cup (4 fl oz)", 123.0),
    ("Soup, cream of celery, canned, prepared with equal volume water", "1 cup", 248.0),
    # Dry: a quarter cup of rice or beans, 2 oz of pasta (each cooks to about one serving).
    ("Rice, white, long-grain, regular, raw, enriched", "1/4 cup", 46.2),
    ("Beans, black, mature seeds, raw", "1/4 cup", 48.5),
    ("Pasta, dry, enriched", "2 oz", 57.0),
    # Concentrate: a third of a 6 fl oz can (2 fl oz) makes a glass; the drink by the glass.
    ("Apple juice, frozen concentrate, unsweetened, undiluted, without added ascorbic acid",
     "1/3 can (6 fl oz)", 70.3),
    ("Beverages, fruit punch juice drink, frozen concentrate, prepared with water", "8 fl oz",
     234.0),
    ("Pork, cured, bacon, cooked, baked", "3 slices cooked", 24.3),  # 1 slice: 8.1 g
    ("Sugars, brown", "1 tsp unpacked", 3.0),  # not the cup (142 g carbohydrate)
])
def test_default_portion_as_eaten(defaults, food, serving, grams):
    default = defaults[food]
    assert (default.serving, default.grams) == (serving, grams)
    assert portions.portion_problems(default.portion_food, default.grams, default.serving) == []


def test_a_derived_default_names_the_measure_it_comes_from():
    foods, measures = sr28.read_compact(SEED_DIR)
    [rice] = [f for f in foods if f.ndb == "20044"]
    rows = catalog._servings(rice, [m for m in measures if m.ndb == "20044"])
    assert [r for r in rows if r["is_default"]] == [{
        "name": "1/4 cup", "grams": 46.2, "is_default": True,
        "source": "1/4 of SR Legacy household measure '1 cup' (185 g), NDB 20044 seq 1: one "
                  "portion as eaten"}]
    assert {r["name"] for r in rows} == {"1 cup", "1/4 cup"}  # USDA's cup is still offered


def test_no_condensed_soup_defaults_to_a_can_and_none_holds_more_than_90_g(defaults):
    exceptions = portions.read_exceptions(SEED_DIR)
    condensed = [d for d in defaults.values()
                 if portions.food_form(d.portion_food.category, d.portion_food.description)
                 == "condensed"]
    assert len(condensed) > 30 and not [d.food for d in condensed if "can" in d.serving]
    heavy = [d.food for d in defaults.values() if (d.portion_food.carbohydrate_per_100g or 0)
             * d.grams / 100 > portions.MAX_PORTION_CARB_G]
    assert heavy and all(food.lower() in {e.food.lower() for e in exceptions.values()}
                         for food in heavy)


DRY = ("a dry food: one portion as eaten is 25-60 g (1/4 cup of dry rice or beans, 1/2 cup of "
       "oats, 2 oz of dry pasta cook to one serving)")


@pytest.mark.parametrize("description, grams, name, found", [
    ("Rice, white, long-grain, regular, raw, enriched", 185.0, "1 cup",
     ["148 g carbohydrate is more than one portion (90 g)", DRY]),
    ("Soup, cream of celery, canned, condensed", 305.0, "1 can (10.75 oz)",
     ["a condensed food: one portion as eaten is at most 150 g (1/2 cup makes 1 cup of soup "
      "with water)"]),
    ("Beans, black, mature seeds, raw", 12.1, "1 tbsp", [DRY]),
    # 579 kcal and 21.55 g carbohydrate per 100 g: 3329 kcal, 124 g in 575 g.
    ("Nuts, almonds", 575.0, "4 cups", ["575 g is not one plausible portion for 'Nut and Seed "
                                        "Products' (5-150 g)",
                                        "3329 kcal is more than one portion (800 kcal)",
                                        "124 g carbohydrate is more than one portion (90 g)"]),
    # USDA's own serving of a mix is one portion as prepared, whatever it weighs dry.
    ("Cereals, QUAKER, oatmeal, REAL MEDLEYS, apple walnut, dry", 75.0,
     "1 package (1 NLEA serving)", []),
    ("Rice, white, long-grain, regular, enriched, cooked", 158.0, "1 cup", []),
])
def test_portion_problems_name_each_broken_rule(description, grams, name, found):
    [food] = [f for f in sr28.read_compact(SEED_DIR)[0] if f.description == description]
    assert portions.portion_problems(catalog.portion_food(food), grams, name) == found


def test_carbohydrate_bands_count_every_default():
    food = portions.Food("Fruit", "Bananas, raw", 89.0, 22.84)
    made = [portions.DefaultServing("x", "Banana", food, "s", grams)
            for grams in (10.0, 50.0, 118.0, 300.0, 500.0)]  # 2.3, 11.4, 27.0, 68.5, 114.2 g
    unknown = portions.DefaultServing("x", "Water", portions.Food("Beverages", "Water", 0, None),
                                      "1 cup", 237.0)
    assert portions.carbohydrate_bands([*made, unknown]) == {
        "0-5 g": 1, "5-15 g": 1, "15-30 g": 1, "30-45 g": 0, "45-60 g": 0, "60-90 g": 1,
        "over 90 g": 1, "unknown": 1}


def test_a_catalog_seeded_under_the_old_rule_gets_todays_servings_once(tmp_path):
    """Almonds defaulted to a cup before this rule; a database seeded then gets 1 oz on its
    next start (once), curated foods keep their servings, and logged meals keep theirs."""
    seed = write_seed(tmp_path / "seed")
    foods, measures = sr28.read_compact(SEED_DIR)
    wanted = {"09040", "12061"}  # the curated banana, almonds
    sr28.write_compact([f for f in foods if f.ndb in wanted],
                       [m for m in measures if m.ndb in wanted], seed)
    configure(f"sqlite:///{tmp_path / 'foodtag.db'}")
    try:
        init_db(seed_dir=seed)
        assert service.lookup("Nuts, almonds")["portion"]["serving"] == "1 oz (23 whole kernels)"
        service.create_user("ann")
        logged = service.log_meal("ann", "Nuts, almonds", serving="1 cup, sliced")
        with session_scope() as session:  # as seeded under the old rule
            almonds = session.scalar(select(Food.id).where(Food.name == "Nuts, almonds"))
            session.execute(update(Serving).where(Serving.food_id == almonds)
                            .values(is_default=False))
            session.execute(update(Serving).where(Serving.food_id == almonds,
                                                  Serving.name == "1 cup, sliced")
                            .values(is_default=True))
            session.execute(delete(SeedVersion).where(
                SeedVersion.part == catalog.SERVINGS_PART))
        assert service.lookup("Nuts, almonds")["portion"]["serving"] == "1 cup, sliced"
        init_db(seed_dir=seed)
        assert service.lookup("Nuts, almonds")["portion"]["serving"] == "1 oz (23 whole kernels)"
        assert service.lookup("banana")["portion"]["serving"] == '1 medium (7" to 7-7/8" long)'
        with session_scope(write=False) as session:
            assert session.scalar(select(SeedVersion.foods).where(
                SeedVersion.part == catalog.SERVINGS_PART)) == 1  # almonds; not the banana
        assert "1 cup, sliced" in {s["name"] for s in service.lookup("Nuts, almonds")["servings"]}
        [entry] = service.list_meals("ann", datetime(2000, 1, 1), datetime(2100, 1, 1))
        assert (entry["id"], entry["serving"], entry["grams"]) == (logged["id"], "1 cup, sliced",
                                                                  92.0)
    finally:
        configure(None)


def test_a_guideline_amount_of_a_topping_is_no_default():
    # FNDDS 27111400 'Chili, NFS': 64 g is its amount on a hot dog, a bowl is the cup (255 g);
    # FNDDS milk's 61 g is the milk on a cup of hot cereal, a glass is the cup (244 g).
    chili = portions.Food("Meat mixed dishes", "Chili, NFS", 118.0, 10.25)
    measures = [("1 cup", 255.0), ("Guideline amount per hot dog or per hamburger", 64.0),
                ("Guideline amount per cup of french fries", 64.0),
                ("Quantity not specified", 255.0)]
    assert portions.choose_default(chili, measures) == portions.Choice(0)
    shipped = composition.read_compact(fndds.TABLE, SEED_DIR)[1]
    defaults = {m.code: m.name for m in shipped if m.is_default}
    assert defaults["27111400"] == "1 cup" and defaults["11114300"] == "1 cup"  # milk, lactose free
    # Only lettuce "for use on a sandwich" is measured by its guideline amount alone.
    assert {code for code, name in defaults.items() if name.startswith("Guideline")} == {"89902020"}


@pytest.fixture(scope="module")
def fndds_defaults() -> dict[str, tuple[str, float]]:
    shipped = composition.read_compact(fndds.TABLE, SEED_DIR)[1]
    return {m.code: (m.name, m.grams) for m in shipped if m.is_default}


@pytest.mark.parametrize("code, serving, grams", [
    # A rice cake is eaten one or two at a time (about 9 g each; FNDDS's "1 cake" is a mini
    # one, 3 g): FNDDS's amount when the number is not reported, not its 45 g snack bag.
    ("54318500", "Quantity not specified", 18.0),  # Rice cake
    ("54325000", "Quantity not specified", 18.0),  # Crackers, saltine: not the 115 g sleeve
    ("54301030", "Quantity not specified", 18.0),  # Ritz: not the 45 g bag or the 50 g stack
    ("54403052", "1 100 calorie package", 30.0),  # microwave popcorn: not the 85 g bag
    ("54102010", "1 large rectangular piece or 2 squares or 4 small rectangular pieces", 15.0),
    ("75113000", "1 cup", 35.0),  # Lettuce, raw: not the 539 g head
])
def test_a_container_holding_several_portions_is_no_default(fndds_defaults, code, serving,
                                                            grams):
    assert fndds_defaults[code] == (serving, grams)


def test_chips_by_the_small_bag_and_nuts_by_the_ounce_people_report():
    # FNDDS's "medium single serving bag" of potato chips is 57 g, twice the 28 g people report
    # eating (FDA's reference amount for chips is 30 g); a cup of nuts is 130 g.
    chips = portions.Food("Potato chips", "Potato chips, NFS", 536.0, 53.0)
    measures = [("1 chip", 2.0), ("1 small single serving bag", 28.0),
                ("1 medium single serving bag", 57.0), ("1 cup", 20.0),
                ("Quantity not specified", 28.0)]
    assert portions.choose_default(chips, measures) == portions.Choice(1)
    # A single-serving container about the reported amount stays (a 4 oz yogurt).
    yogurt = portions.Food("Yogurt, regular", "Yogurt, NFS", 80.0, 9.0)
    cups = [("1 4 oz container", 113.0), ("1 cup", 245.0), ("Quantity not specified", 170.0)]
    assert portions.choose_default(yogurt, cups) == portions.Choice(0)


def test_a_branded_soup_by_the_cup_and_what_is_bought_whole_is_no_default(defaults):
    assert (defaults["CAMPBELL'S CHUNKY, Classic Chicken Noodle Soup"].serving,
            defaults["CAMPBELL'S CHUNKY, Classic Chicken Noodle Soup"].grams) == ("1 cup", 243.0)
    assert defaults["Beef, ground, 70% lean meat / 30% fat, loaf, cooked, baked"].serving == "3 oz"
    assert defaults["Water, bottled, generic"].serving == "1 cup"
    # A sixth of a loaf is a portion; the whole loaf is not.
    assert defaults["Cake, pound, commercially prepared, butter (includes fresh and frozen)"
                    ].serving == "0.167 loaf 1/6 of the loaf"


@pytest.mark.parametrize("code, serving, grams", [
    # Cheese is eaten by the ounce, slice, spoon or half cup, never by the whole cup: FNDDS's
    # amount people report eating, not its cup (100 g of Parmesan, 226 g of cottage cheese).
    ("14104700", "Quantity not specified", 21.0),  # Cheese, goat: not 1 cup crumbled, 140 g
    ("14120010", "Quantity not specified", 21.0),  # Mexican blend: not 1 cup shredded, 113 g
    ("14204010", "Quantity not specified", 113.0),  # cottage cheese: half its 226 g cup
    ("14201500", "Quantity not specified", 123.0),  # ricotta: half its 246 g cup
    ("14420300", "Quantity not specified", 28.0),  # spray cheese: not the 135 g can
    # A cup of crackers (70 g) or of coconut (85 g), over twice the 30 g reference amount.
    ("54337020", "Quantity not specified", 18.0),  # Triscuit
    ("42106000", "Quantity not specified", 28.0),  # Coconut, fresh
    ("54403045", "Quantity not specified", 28.0),  # popcorn: not 1 cup popped, 11 g
    ("43108010", "1/6 cup", 28.0),  # Chia seeds: a sixth of the 168 g cup, not half of it
    ("54401021", "1 small single serving bag", 28.0),  # Corn chips: not the 57 g medium bag
    ("55300020", "1 slice, NFS", 60.0),  # French toast, frozen: not one 10 g bite
])
def test_fndds_cheese_crackers_and_seeds_by_a_portion_not_a_cup(fndds_defaults, code, serving,
                                                               grams):
    assert fndds_defaults[code] == (serving, grams)


def test_parmesan_and_cotija_by_the_spoon(fndds_defaults, defaults):
    assert (defaults["Cheese, parmesan, grated"].serving,
            defaults["Cheese, parmesan, grated"].grams) == ("1 tbsp", 5.0)  # not 1 cup, 100 g
    assert fndds_defaults["14134000"] == ("Quantity not specified", 21.0)  # not 1 cup, 100 g


@pytest.mark.parametrize("food, serving, grams", [
    ("Cheese, cottage, lowfat, 2% milkfat", "4 oz", 113.0),  # not 1 cup, 226 g
    ("Cheese, cottage, creamed, large or small curd", "4 oz", 113.0),  # not 1 cup, 210 g
    ("Cheese, limburger", "1 oz", 28.35),  # not 1 box, 113 g
    ("Cheese spread, pasteurized process, American", "1 slice", 34.0),  # not 1 jar, 128 g
    ("Cheese, blue", "1 oz", 28.35),  # not 1 cup crumbled, 135 g
    ("Cheese, ricotta, part skim milk", "0.5 cup", 124.0),  # half a cup of ricotta stays
])
def test_sr_legacy_cheese_by_the_ounce_slice_or_half_cup(defaults, food, serving, grams):
    assert (defaults[food].serving, defaults[food].grams) == (serving, grams)


def test_a_cup_or_container_far_from_the_reference_amount_ranks_last():
    # FDA's reference amount for cheese is 30 g: a 113 g cup is a measure, the survey's 21 g
    # amount (or 1 oz) is the portion.
    cheese = portions.Food("Cheese", "Cheese, Mexican blend", 380.0, 2.0)
    assert portions.reference_amount(cheese) == 30.0
    measures = [("1 cup, shredded", 113.0), ("Quantity not specified", 21.0)]
    assert portions.choose_default(cheese, measures) == portions.Choice(1)
    # A cup of popcorn (11 g) is under half of its 30 g: the reported amount is the portion.
    popcorn = portions.Food("Popcorn", "Popcorn, popped in oil", 500.0, 57.0)
    assert portions.choose_default(popcorn, [("1 cup, popped", 11.0),
                                             ("Quantity not specified", 28.0)]) == \
        portions.Choice(1)
    # A natural unit stays whatever it weighs: one soft pretzel is 120 g against 30 g.
    pretzel = portions.Food("Pretzels/snack mix", "Pretzels, soft, NFS", 340.0, 70.0)
    assert portions.choose_default(pretzel, [("1 cup, nuggets", 147.0), ("1 medium/regular",
                                                                          120.0)]) == \
        portions.Choice(1)
    # A category with no single reference amount keeps its cup (egg dishes, 164 g).
    casserole = portions.Food("Eggs and omelets", "Egg casserole", 180.0, 8.0)
    assert portions.reference_amount(casserole) is None
    assert portions.choose_default(casserole, [("1 cup", 164.0), ("Quantity not specified",
                                                                  82.0)]) == portions.Choice(0)


def test_a_whole_cup_of_any_cheese_ranks_last_and_sr_cheeses_have_reference_amounts():
    cottage = portions.Food("Dairy and Egg Products", "Cheese, cottage, creamed", 98.0, 3.4)
    assert portions.reference_amount(cottage) == 110.0
    # 210 g is under twice 110 g, but no one eats a whole cup of cottage cheese.
    assert portions.choose_default(cottage, [("4 oz", 113.0), ("1 cup, large curd", 210.0)]) \
        == portions.Choice(0)
    assert portions.reference_amount(portions.Food(
        "Dairy and Egg Products", "Cheese, limburger", 327.0, 0.5)) == 30.0
    assert portions.reference_amount(portions.Food(
        "Dairy and Egg Products", "Cheese sauce, prepared from recipe", 197.0, 5.5)) is None
    limburger = portions.Food("Dairy and Egg Products", "Cheese, limburger", 327.0, 0.5)
    assert portions.choose_default(limburger, [("1 cup", 134.0), ("1 oz", 28.35),
                                               ("1 box", 113.0)]) == portions.Choice(1)


@pytest.mark.parametrize("food, serving, grams", [
    ("Blueberries, raw", "1 cup", 148.0),  # not 50 berries, 68 g
    ("Strawberries, raw", "1 NLEA serving", 147.0),  # not one strawberry, 12 g
    ("Mangos, raw", "1 cup pieces", 165.0),  # not a whole mango, 336 g
    ("Melons, cantaloupe, raw", "1 NLEA serving", 134.0),  # not a wedge, 69 g
    ("Bananas, raw", "1 medium (7\" to 7-7/8\" long)", 118.0),  # one banana stays
    ("Apricots, raw", "1 apricot", 35.0),  # one apricot stays: a whole fruit
])
def test_sr_legacy_fresh_fruit_within_half_to_twice_its_reference_amount(defaults, food, serving,
                                                                         grams):
    assert (defaults[food].serving, defaults[food].grams) == (serving, grams)


def test_a_piece_or_a_whole_fruit_far_from_140_g_gives_way_to_the_nearest_measure():
    papaya = portions.Food("Mango and papaya", "Papaya, raw", 43.0, 10.8)
    assert portions.reference_amount(papaya) == 140.0
    measures = [("1 slice/chunk", 40.0), ("1 fruit", 330.0), ("1 cup", 165.0),
                ("1 cup, mashed", 230.0), ("Quantity not specified", 83.0)]
    assert portions.choose_default(papaya, measures) == portions.Choice(2)
    grapefruit = portions.Food("Citrus fruits", "Grapefruit, raw", 42.0, 10.7)
    assert portions.choose_default(grapefruit, [("1 cup", 180.0), ("1 fruit", 308.0), (
        "1 half", 154.0), ("1 section/slice", 25.0)]) == portions.Choice(2)
    # FNDDS's amount eaten (75 g) is a portion already; a plum is one plum.
    strawberries = portions.Food("Strawberries", "Strawberries, raw", 32.0, 7.7)
    assert portions.choose_default(strawberries, [("1 fruit", 18.0), ("1 cup", 150.0), (
        "Quantity not specified", 75.0)]) == portions.Choice(2)
    plum = portions.Food("Other fruits and fruit salads", "Plum, raw", 46.0, 11.4)
    assert portions.choose_default(plum, [("1 plum", 66.0), ("1 cup", 165.0)]) == \
        portions.Choice(0)
    # A lemon is a garnish by FDA's table, and watermelon's reference amount is 280 g.
    assert portions.reference_amount(portions.Food("Citrus fruits", "Lemon, raw", 29.0, 9.3)) \
        is None
    assert portions.reference_amount(portions.Food("Melons", "Watermelon, raw", 30.0, 7.6)) \
        == 280.0


def test_a_fraction_of_a_cup_is_at_most_the_reference_amount():
    chia = portions.Food("Nuts and seeds", "Chia seeds", 486.0, 42.0)
    assert portions.choose_default(chia, [("1 cup", 168.0), ("Quantity not specified", 9.0)]) \
        == portions.Choice(0, 1 / 6, "1/6 cup")


def test_a_medium_bag_is_a_container_and_a_bite_is_a_miniature():
    chips = portions.Food("Tortilla, corn, other chips", "Corn chips, plain", 540.0, 57.0)
    bags = [("1 chip", 1.0), ("1 small single serving bag", 28.0),
            ("1 medium single serving bag", 57.0), ("Quantity not specified", 45.0)]
    assert portions.choose_default(chips, bags) == portions.Choice(1)
    toast = portions.Food("Pancakes, waffles, French toast", "French toast, frozen", 220.0, 30.0)
    assert portions.choose_default(toast, [("1 bite size", 10.0), ("1 slice, NFS", 60.0)]) == \
        portions.Choice(1)


@pytest.mark.parametrize("entry, serving, grams", [
    ("994", "1 cup (8 fl oz)", 240.0),  # Kaffee, schwarz: FNDDS 'Coffee, brewed'
    ("1184", "1 small (12 fl oz)", 360.0),  # Latte macchiato: FNDDS 'Coffee, Latte'
    ("588", "1 container", 170.0),  # Joghurt mit Früchten, mager: FNDDS nonfat fruit yogurt
    ("13276", "1 breast, NS as to size", 120.0),  # Poulet, Brust, gebraten: FNDDS sautéed breast
])
def test_swiss_coffee_yoghurt_and_chicken_breast_default_to_fndds_portions(entry, serving, grams):
    # The card of these once asked for grams; each default is an FNDDS portion of the same
    # food, which check-seed verifies (db.seed_audit.cited_portion_problems).
    from db.seed_audit import cited_portion_problems
    from db.session import TABLES

    swiss = next(t for t in TABLES if t.dataset.name == "Swiss FCDB")
    foods = composition.read_compact(swiss, SEED_DIR)[0]
    [default] = [p for p in composition.cited_portions(swiss, foods, SEED_DIR)
                 if p.code == entry and p.is_default]
    assert (default.name, default.grams) == (serving, grams)
    assert not [p for p in cited_portion_problems(SEED_DIR) if f"'{entry}'" in p]


def _meat(category: str, description: str) -> portions.Food:
    return portions.Food(category, description, 250.0, 10.0)


def _within_reference(grams: float) -> bool:
    return 85 / 2 <= grams <= 85 * 2


def _default_grams(food: portions.Food, measures: list[tuple[str, float]]) -> tuple[str, float]:
    choice = portions.choose_default(food, measures)
    name, grams = measures[choice.index]
    return choice.name or name, grams * choice.factor


def test_steak_and_beef_nfs_default_to_one_portion_not_one_small_slice():
    # FNDDS 21101000 and 21000100: a 30 g slice is no portion of 85 g of cooked meat.
    steak = _meat("Beef, excludes ground", "Beef, steak, NFS")
    name, grams = _default_grams(steak, [
        ("1 piece/slice, any size", 30.0), ("1 thin", 120.0), ("1 regular", 160.0),
        ("1 thick", 240.0), ("1 oz yields", 20.0), ("1 cubic inch", 17.0), ("1 cup", 135.0),
        ("Quantity not specified", 160.0)])
    assert (name, grams) == ("1 thin", 120.0) and _within_reference(grams)
    beef = _meat("Beef, excludes ground", "Beef, NFS")
    name, grams = _default_grams(beef, [
        ("1 piece/slice, any size", 30.0), ("1 oz yields", 20.0), ("1 cubic inch", 17.0),
        ("1 cup", 135.0), ("Quantity not specified", 60.0)])
    assert (name, grams) == ("3 pieces/slices, any size", 90.0) and _within_reference(grams)


def test_nuggets_default_to_a_count_that_makes_one_portion():
    nuggets = _meat("Chicken patties, nuggets and tenders", "Chicken nuggets, NFS")
    name, grams = _default_grams(nuggets, [("1 nugget", 16.0), ("1 cup", 140.0),
                                           ("Quantity not specified", 80.0)])
    assert (name, grams) == ("5 nuggets", 80.0) and _within_reference(grams)


def test_a_hot_dog_and_a_drumstick_stay_one():
    hot_dog = _meat("Frankfurters", "Frankfurter or hot dog, NFS")
    assert _default_grams(hot_dog, [("1 frankfurter", 48.0), ("1 cup, sliced", 150.0),
                                    ("Quantity not specified", 48.0)]) == ("1 frankfurter", 48.0)
    drumstick = _meat("Chicken, whole pieces", "Chicken drumstick, rotisserie, skin not eaten")
    assert _default_grams(drumstick, [("1 cup, cooked, diced", 135.0), ("1 drumstick", 50.0),
                                      ("1 oz, cooked", 28.35), ("Quantity not specified", 50.0)]
                          ) == ("1 drumstick", 50.0)


def test_shellfish_and_dried_meat_by_the_piece():
    shrimp = _meat("Shellfish", "Shrimp, NFS")
    assert _default_grams(shrimp, [("1 tiny shrimp", 5.0), ("1 small/medium shrimp", 10.0),
                                   ("1 large/jumbo shrimp", 15.0), ("1 prawn", 20.0),
                                   ("1 cup", 135.0), ("Quantity not specified", 85.0)]
                          ) == ("6 large/jumbo shrimp", 90.0)
    jerky = _meat("Cold cuts and cured meats", "Beef jerky")  # dried meat: 30 g, not 55 g
    assert portions.reference_amount(jerky) == 30
    assert _default_grams(jerky, [("1 cup, pieces", 90.0), ("Quantity not specified", 30.0),
                                  ("1 Giant Jerk", 18.0)]) == ("1 Giant Jerk", 18.0)


def test_a_small_unit_under_half_the_amount_eaten_is_no_default():
    # FNDDS 58126100 and 58116117: people eat 105 g of a turnover or empanada, not the 35 g of a
    # small one; a "small/regular" taco is a regular one and stays.
    turnover = portions.Food("Turnovers and other grain-based items",
                             "Turnover or hot pocket, NFS", 250.0, 30.0)
    measures = [("1 small/individual", 35.0), ("1 regular/large", 130.0),
                ("Quantity not specified", 105.0)]
    assert _default_grams(turnover, measures) == ("1 regular/large", 130.0)
    taco = portions.Food("Burritos and tacos", "Taco, cheese only", 250.0, 20.0)
    assert _default_grams(taco, [("1 small/regular", 70.0), ("1 large", 140.0),
                                 ("Quantity not specified", 140.0)]) == ("1 small/regular", 70.0)
    # No unspecified amount to weigh it against: the small one is still a unit.
    assert _default_grams(turnover, measures[:1]) == ("1 small/individual", 35.0)


@pytest.mark.parametrize("dataset, entry, serving, grams", [
    ("CoFID", "Pastries, chocolate eclairs, fresh, homemade", "1 eclair", 102.0),
    ("CoFID", "Pastries, chocolate eclairs, cream filled, retail", "1 eclair", 102.0),
    ("Swiss FCDB", "1183", "1 can or bottle (12 fl oz)", 360.0),  # Bier Panaché
])
def test_eclairs_and_panache_default_to_fndds_portions(dataset, entry, serving, grams):
    from db.seed_audit import cited_portion_problems
    from db.session import TABLES

    table = next(t for t in TABLES if t.dataset.name == dataset)
    foods = composition.read_compact(table, SEED_DIR)[0]
    [default] = [p for p in composition.cited_portions(table, foods, SEED_DIR)
                 if p.code == entry and p.is_default]
    assert (default.name, default.grams) == (serving, grams)
    assert not [p for p in cited_portion_problems(SEED_DIR) if entry in p]


@pytest.mark.parametrize("code, serving, grams", [
    # A dry mix "made with" water or milk, or a dish "from dry mix", is the drink or dish as
    # eaten (FNDDS lists foods as eaten), not a powder to weigh by the spoon: a mug of hot
    # chocolate, not 1 fl oz; pudding and mashed potato by the cup, not a sixth of it.
    ("11514100", "1 packet, reconstituted", 248.0),  # Hot chocolate / cocoa, dry mix, made with water
    ("13220120", "1 cup", 260.0),  # Pudding, chocolate, made from dry mix
    ("71501035", "1 cup", 250.0),  # Potato, mashed, from dry mix, NFS
])
def test_fndds_made_with_or_from_a_dry_mix_is_the_food_as_eaten(fndds_defaults, code, serving,
                                                                 grams):
    assert fndds_defaults[code] == (serving, grams)
    assert portions.food_form("Potato products", "Potato, mashed, from dry mix, NFS") is None
    assert portions.food_form("Soups", "Soup, chicken noodle, dry mix") == "dry mix"


@pytest.mark.parametrize("code, grams", [
    # A default weighing a third or less of what people report eating (FNDDS's amount for an
    # unspecified quantity) gives way to that amount.
    ("72201220", 80.0),  # Broccoli, NS as to form, cooked: not 1 piece, 10 g
    ("73102218", 80.0),  # Carrots, fresh, cooked with butter: not 1 baby carrot, 10 g
    ("63135140", 125.0),  # Peach, canned, in syrup: not 1 slice/chunk, 20 g
    ("12350010", 60.0),  # Dip, NFS: not 1 tablespoon, 15 g
])
def test_fndds_a_piece_far_under_what_people_eat_is_no_default(fndds_defaults, code, grams):
    assert fndds_defaults[code] == ("Quantity not specified", grams)


def test_a_database_seeded_earlier_gets_new_everyday_names_once(tmp_path):
    """sr28_aliases.csv's names reach a catalog loaded before they were added (a new
    catalog.ALIASES_PART), with a curated food's search weight: "snickers" finds the bar."""
    from db.tables import FoodAlias

    seed = write_seed(tmp_path / "seed")
    foods, measures = sr28.read_compact(SEED_DIR)
    wanted = {"19155", "09040"}  # Snickers, the curated banana
    sr28.write_compact([f for f in foods if f.ndb in wanted],
                       [m for m in measures if m.ndb in wanted], seed)
    (seed / catalog.ALIASES_FILE).write_text("ndb,aliases\n19155,snickers;snickers bar\n",
                                             encoding="utf-8")
    configure(f"sqlite:///{tmp_path / 'foodtag.db'}")
    try:
        init_db(seed_dir=seed)
        with session_scope() as session:  # as loaded before the name was listed
            bar = session.scalar(select(Food).where(Food.source_code == "19155"))
            session.execute(delete(FoodAlias).where(FoodAlias.food_id == bar.id))
            bar.search_weight = -1.0
            session.execute(delete(SeedVersion).where(SeedVersion.part == catalog.ALIASES_PART))
        init_db(seed_dir=seed)
        [hit] = service.search("snickers", limit=1)
        assert hit["food"] == "Candies, MARS SNACKFOOD US, SNICKERS Bar" and hit["score"] > 10
        with session_scope(write=False) as session:
            bar = session.scalar(select(Food).where(Food.source_code == "19155"))
            assert bar.search_weight == 1.0 and {a.alias for a in session.scalars(
                select(FoodAlias).where(FoodAlias.food_id == bar.id))} == {"snickers", "snickers bar"}
            assert session.scalar(select(SeedVersion.foods).where(
                SeedVersion.part == catalog.ALIASES_PART)) == 1  # the bar; not the banana
        init_db(seed_dir=seed)  # once
        with session_scope(write=False) as session:
            assert session.scalar(select(SeedVersion.foods).where(
                SeedVersion.part == catalog.ALIASES_PART)) == 1
    finally:
        configure(None)
