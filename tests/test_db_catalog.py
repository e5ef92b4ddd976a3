"""The full shipped seed: every SR Legacy food, search a person can use, and the seed's
consistency with the USDA release (skipped when the release files are absent)."""

import csv
import gzip
from pathlib import Path

import pytest
from db_support import full_db, full_db_url, write_seed  # noqa: F401 (fixtures)
from sqlalchemy import func, select

from db import catalog, composition, personal, service, sr28
from db.tables import Food, Serving
from db.seed import SEED_DIR
from db.session import TABLES, configure, init_db, session_scope
from models.labels import ALL_SHIPPED_LABELS

REPO = Path(__file__).resolve().parents[1]
# ../shared from a checkout, ../../shared from a worktree under /work/wt.
RELEASE = next((folder / "shared" / "data" / "usda-sr28" for folder in REPO.parents[:2]
                if (folder / "shared" / "data" / "usda-sr28").is_dir()),
               REPO.parent / "shared" / "data" / "usda-sr28")

# What a person with diabetes logs every day, and the food a plain search must show in its top
# three (a USDA SR Legacy description, or a curated food's name).
COMMON_FOODS = [
    ("rice", "Rice, white, long-grain, regular, enriched, cooked"),
    ("white rice", "Rice, white, long-grain, regular, enriched, cooked"),
    ("brown rice", "Rice, brown, long-grain, cooked"),
    ("pasta", "Pasta, cooked, enriched, without added salt"),
    ("bread", "Bread, white, commercially prepared (includes soft bread crumbs)"),
    ("whole wheat bread", "Bread, whole-wheat, commercially prepared"),
    ("toast", "Bread, white, commercially prepared, toasted"),
    ("oatmeal", "Cereals, oats, regular and quick, unenriched, cooked with water (includes "
                "boiling and microwaving), without salt"),
    ("milk", "Milk, reduced fat, fluid, 2% milkfat, with added vitamin A and vitamin D"),
    ("skim milk", "Milk, nonfat, fluid, with added vitamin A and vitamin D (fat free or skim)"),
    ("orange juice", "Orange juice, chilled, includes from concentrate"),
    ("apple juice", "Apple juice, canned or bottled, unsweetened, without added ascorbic acid"),
    ("potato", "Potatoes, baked, flesh and skin, without salt"),
    ("banana", "Banana"),
    ("apple", "Apples, raw, with skin"),
    ("orange", "Orange"),
    ("yoghurt", "Yogurt, plain, whole milk, 8 grams protein per 8 ounce"),
    ("yogurt", "Yogurt, plain, whole milk, 8 grams protein per 8 ounce"),
    ("cola", "Beverages, carbonated, cola, regular"),
    ("beer", "Alcoholic beverage, beer, regular, all"),
    ("wine", "Red wine"),
    ("coffee", "Beverages, coffee, brewed, prepared with tap water"),
    ("tea", "Beverages, tea, black, brewed, prepared with tap water"),
    ("egg", "Egg, whole, cooked, hard-boiled"),
    ("cheese", "Cheese, cheddar"),
    ("chicken breast", "Chicken, broilers or fryers, breast, meat only, cooked, roasted"),
    ("butter", "Butter, salted"),
    ("sugar", "Sugars, granulated"),
    ("honey", "Honey"),
    ("peanut butter", "Peanut butter"),  # FNDDS 42202000, above SR Legacy's smooth and crunchy
    ("grapes", "Grapes, red or green (European type, such as Thompson seedless), raw"),
    ("tomato", "Tomatoes, red, ripe, raw, year round average"),
    ("carrots", "Carrots, raw"),
    ("lentils", "Lentils, mature seeds, cooked, boiled, without salt"),
    ("pizza", "Cheese pizza"),
    ("french fries", "French fries"),
    ("chips", "Snacks, potato chips, plain, salted"),
    ("tortilla", "Tortillas, ready-to-bake or -fry, flour, refrigerated"),
]


def _shipped_csv(name: str) -> list[dict[str, str]]:
    with gzip.open(SEED_DIR / name, "rt", encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def test_every_sr_legacy_food_and_portion_is_in_the_database(full_db):
    shipped = _shipped_csv(sr28.FOODS_FILE)
    assert len(shipped) == 8789  # FOOD_DES.txt of SR28 (ABBREV.txt has one more, undescribed)
    assert len(_shipped_csv(sr28.PORTIONS_FILE)) == 15438
    with session_scope(write=False) as session:
        codes = set(session.scalars(select(Food.source_code).where(
            Food.fdc_dataset == "SR Legacy")))
        assert {row["ndb"] for row in shipped} <= codes  # curated SR rows share their NDB
        catalog_servings = session.scalar(select(func.count(Serving.id)).join(Food).where(
            Serving.source.like("SR Legacy household measure, NDB %")))
        # Every portion, less repeats of a name within one food.
        assert catalog_servings > 15000
        defaults = session.scalar(select(func.count(Serving.id)).where(Serving.is_default))
        # Every food has one default, but the other tables' foods that have none by design
        # (no portion of theirs is one portion as eaten; CoFID and Swiss foods without a cited
        # portion: db.composition).
        without = sum(len(foods) - sum(m.is_default for m in measures) for foods, measures in
                      (composition.read_compact(t, SEED_DIR) for t in TABLES))
        assert defaults == session.scalar(select(func.count(Food.id))) - without


def test_curated_foods_keep_their_sources_and_every_label_resolves(full_db):
    with (SEED_DIR / "foods.csv").open(encoding="utf-8", newline="") as handle:
        curated = list(csv.DictReader(handle))
    with session_scope(write=False) as session:
        for row in curated:
            food = session.scalar(select(Food).where(Food.name == row["name"]))
            assert food is not None, row["name"]
            assert (food.fdc_dataset, food.fdc_id or None, food.source_code or None) == (
                row["fdc_dataset"], int(row["fdc_id"]) if row["fdc_id"] else None,
                row["source_code"] or None)
    for label in ALL_SHIPPED_LABELS:
        assert service.lookup(label)["food"], label


def test_lookup_apple_gives_sr_legacy_raw_apple_values(full_db):
    card = service.lookup("apple", grams=150)
    # SR Legacy 09003 "Apples, raw, with skin" per 100 g: 52 kcal, 13.81 g carbohydrate,
    # 2.4 g fiber, 10.39 g sugars, 0.26 g protein, 0.17 g fat, 1 mg sodium; x 1.5.
    assert card["food"] == "Apples, raw, with skin"
    assert card["source"]["dataset"] == "SR Legacy" and card["source"]["code"] == "09003"
    portion = card["portion"]
    assert (portion["kcal"], portion["carbohydrate_g"], portion["fiber_g"], portion["sugars_g"],
            portion["protein_g"], portion["fat_g"], portion["sodium_mg"]) == (
        78.0, 20.7, 3.6, 15.6, 0.4, 0.3, 1.5)


def test_white_rice_lists_cooked_white_rice_first(full_db):
    hits = [hit["food"] for hit in service.search("white rice")]
    assert hits[0] == "Rice, white, long-grain, regular, enriched, cooked"
    assert hits.index(hits[0]) < hits.index("Oil, rice bran") if "Oil, rice bran" in hits else True
    oil = [hit["food"] for hit in service.search("rice bran oil")]
    assert oil[0] == "Oil, rice bran"


@pytest.mark.parametrize("query, expected", COMMON_FOODS)
def test_common_foods_are_in_the_top_three(full_db, query, expected):
    # A food another table holds too may be shown once as the other table's row, which lists
    # it among its duplicates (db.search.dedupe): reachable from the top three.
    hits = service.search(query, limit=3)
    top = [name for hit in hits for name in (hit["food"], *(d["food"] for d in hit["duplicates"]))]
    assert expected in top, f"{query!r}: {top}"


@pytest.mark.parametrize("typo, expected", [
    ("chiken brest", "Chicken, broilers or fryers, breast, meat only, cooked, roasted"),
    ("bananna", "Banana"),
    ("yoghrt", "Yogurt, plain, whole milk, 8 grams protein per 8 ounce"),
    ("brocoli", "Broccoli, cooked"),
])
def test_typos_still_find_the_food(full_db, typo, expected):
    assert expected in [hit["food"] for hit in service.search(typo, limit=3)]


def test_food_group_filter(full_db):
    hits = service.search("rice", group="Snacks", limit=20)
    assert hits and {hit["category"] for hit in hits} == {"Snacks"}
    assert "Snacks" in service.food_groups() and "Beverages" in service.food_groups()


def test_recent_and_favourite_foods_come_first(full_db):
    service.create_user("carol")
    plain = [hit["food"] for hit in service.search("rice", limit=10)]
    assert plain[0] != "Rice, brown, long-grain, cooked"
    service.log_meal("carol", "Rice, brown, long-grain, cooked", grams=150)
    mine = service.search("rice", user="carol", limit=10)
    assert mine[0]["food"] == "Rice, brown, long-grain, cooked" and mine[0]["recent"]
    personal.add_favourite("carol", "Rice crackers")
    mine = service.search("rice", user="carol", limit=10)
    assert [hit["food"] for hit in mine[:2]] == ["Rice crackers",
                                                 "Rice, brown, long-grain, cooked"]
    assert mine[0]["favourite"]
    assert [f["food"] for f in personal.recent_foods("carol")] == [
        "Rice crackers", "Rice, brown, long-grain, cooked"]  # favourites, then recent
    # Someone else's log changes nothing for others.
    assert [hit["food"] for hit in service.search("rice", limit=10)] == plain


@pytest.mark.skipif(not RELEASE.is_dir(), reason="USDA SR28 release files not present")
def test_shipped_seed_is_exactly_what_build_sr28_writes(tmp_path):
    foods, portions = sr28.read_release(RELEASE)
    sr28.write_compact(foods, portions, tmp_path)
    for name in (sr28.FOODS_FILE, sr28.PORTIONS_FILE):
        assert (tmp_path / name).read_bytes() == (SEED_DIR / name).read_bytes(), name


def test_curated_sr_rows_copy_the_catalog_values():
    by_ndb = {food.ndb: food for food in sr28.read_compact(SEED_DIR)[0]}
    with (SEED_DIR / "foods.csv").open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            if row["fdc_dataset"] != "SR Legacy" or not row["source_code"]:
                continue
            food = by_ndb[row["source_code"]]
            for nutrient, value in food.nutrients.items():
                assert (float(row[nutrient]) if row[nutrient] else None) == value, (
                    row["name"], nutrient)


def test_small_test_seeds_stay_small(tmp_path):
    """A database first seeded from a folder without the catalog never gets it later."""
    configure(f"sqlite:///{tmp_path / 'small.db'}")
    try:
        init_db(seed_dir=write_seed(tmp_path / "seed"))
        init_db()  # the default seed folder has the catalog: still not loaded here
        assert service.food_count() == 5
    finally:
        configure(None)


def test_everyday_aliases_name_catalog_rows():
    aliases = catalog.read_aliases(SEED_DIR)
    ndbs = {food.ndb for food in sr28.read_compact(SEED_DIR)[0]}
    assert len(aliases) >= 40 and set(aliases) <= ndbs


@pytest.mark.parametrize("food, serving, grams", [
    ("Escargots", "6 snails", 30.0),
    ("Falafel", "4 patties", 68.0),
    ("Beef tartare", "0.5 cup", 112.5),
    ("Beef carpaccio", "1/3 cup", 75.0),
    ("Carrot cake", "1 slice", 100.0),
    ("Red velvet cake", "1 slice", 100.0),
    ("Spaghetti bolognese", "half a restaurant serving", 277.0),
    ("French bread", "2 oz (a 10 cm piece of baguette)", 56.7),
    ("Bibimbap", "2 cups (a bowl)", 324.0),  # a bowl, not FNDDS's cup
])
def test_audited_default_servings(full_db, food, serving, grams):
    portion = service.lookup(food)["portion"]
    assert (portion["serving"], portion["grams"]) == (serving, grams)


def test_french_bread_gi_follows_the_rule(full_db):
    card = service.lookup("french bread")
    # Table 1 has no French bread; it is white wheat bread as eaten (rule 1).
    assert card["glycemic_index"]["value"] == 75
    assert "Table 1 (GI of common foods, glucose = 100): row 'White wheat bread', GI 75" in (
        card["glycemic_index"]["source"])
    # 75 x (51.88 - 2.2) x 0.567 / 100 = 21.1: a high glycemic load.
    assert card["glycemic_load"] == {"value": 21.1, "band": "high"}


# The staples the 2008 table's Table 1 (GI of common foods) lists, as the database names
# them, with the Table 1 row and GI (tests/test_db_glycemic.py transcribes the table).
TABLE_1_STAPLES = [
    ("Bread, white, commercially prepared (includes soft bread crumbs)", "White wheat bread", 75),
    ("Cereals ready-to-eat, KELLOGG, KELLOGG'S Corn Flakes", "Cornflakes", 81),
    ("Apples, raw, with skin", "Apple, raw", 36),
    ("Banana", "Banana, raw", 51),
    ("Rice, white, long-grain, regular, enriched, cooked", "White rice, boiled", 73),
    ("Pasta, cooked, enriched, without added salt", "Spaghetti, white", 49),
    ("Potatoes, boiled, cooked without skin, flesh, without salt", "Potato, boiled", 78),
    ("Milk, whole, 3.25% milkfat, with added vitamin D", "Milk, full fat", 39),
]


@pytest.mark.parametrize("food, row, gi", TABLE_1_STAPLES)
def test_staples_carry_their_table_1_gi_with_its_row(full_db, food, row, gi):
    card = service.lookup(food)
    assert card["food"] == food
    assert card["glycemic_index"]["value"] == gi
    assert card["glycemic_index"]["citation"] == "Atkinson 2008"
    assert f"Table 1 (GI of common foods, glucose = 100): row '{row}', GI {gi}" in (
        card["glycemic_index"]["source"])
    # GL from the portion's available carbohydrate (shown rounded, so within rounding).
    assert card["glycemic_load"]["value"] == pytest.approx(
        gi * card["portion"]["available_carbohydrate_g"] / 100, abs=0.1)


def test_a_food_without_a_table_row_has_no_gi(full_db):
    # Red wine: no row in Table 1 or Table A1 maps onto it; nothing is guessed.
    card = service.lookup("red wine")
    assert card["glycemic_index"] is None and card["glycemic_load"] is None


def test_search_without_fts5_uses_the_like_fallback(full_db, monkeypatch):
    """Databases without FTS5 (PostgreSQL) find candidates with LIKE; ranking is the same."""
    from db import fts

    with_fts = [hit["food"] for hit in service.search("white rice", limit=3)]
    monkeypatch.setattr(fts, "has_index", lambda _session: False)
    assert [hit["food"] for hit in service.search("white rice", limit=3)][0] == with_fts[0]
    assert service.search("orange juice", limit=3)[0]["food"] == (
        "Orange juice, chilled, includes from concentrate")


def test_sandwich_rows_include_their_bread(full_db):
    card = service.lookup("lobster_roll_sandwich")
    assert card["food"] == "Lobster roll" and card["source"]["dataset"] == "Composite"
    # Hand sum: 91 g FNDDS lobster salad (1.22 g carbohydrate per 100 g) + one 44 g SR Legacy
    # hot-dog roll (50.12 g per 100 g) = 1.1102 + 22.0528 = 23.163 g in the 135 g roll.
    assert card["portion"]["grams"] == 135.0 and card["portion"]["carbohydrate_g"] == 23.2
    assert "Rolls, hamburger or hotdog, plain (SR Legacy NDB 18350)" in card["source"]["description"]
    assert "bun is included" in card["source"]["proxy_note"]
    # The filling keeps its own FNDDS row and FDC ID.
    assert service.lookup("lobster salad")["source"]["fdc_id"] == 2706825
    pork = service.lookup("pulled_pork_sandwich")
    assert pork["portion"]["grams"] == 169.0 and pork["portion"]["carbohydrate_g"] == 45.5


def test_cli_search_white_rice_and_lookup_apple(full_db, capsys):
    from db.__main__ import main

    assert main(["search", "white", "rice", "--limit", "3"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    # SR Legacy: 1 cup of cooked white rice is 158 g at 28.17 g carbohydrate per 100 g.
    assert first.endswith("Rice, white, long-grain, regular, enriched, cooked  "
                          "(Cereal Grains and Pasta)  1 cup (158 g): 44.5 g carbohydrate")
    assert main(["lookup", "apple", "--grams", "150"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Apples, raw, with skin [Fruits and Fruit Juices], 150 g")
    assert "energy 78 kcal; carbohydrate 20.7 g" in out and "NDB 09003" in out


def test_search_lists_the_carbohydrate_the_persons_unit_counts(full_db, capsys):
    # UK and German units count available carbohydrate (total minus fibre), so their list shows
    # that, the figure the card's headline shows; the US list shows the total.
    from db.__main__ import main

    for unit, key in ((15.0, "carbohydrate_g"), (10.0, "available_carbohydrate_g"),
                      (12.0, "available_carbohydrate_g")):
        assert main(["search", "white", "rice", "--limit", "1", "--unit", f"{unit:g}"]) == 0
        line = capsys.readouterr().out.splitlines()[0]
        card = service.lookup("Rice, white, long-grain, regular, enriched, cooked",
                              exchange_unit_g=unit)
        # 1 cup, 158 g: 44.5 g in all, 0.6 g of it fibre (0.4 g per 100 g)
        assert line.endswith(f"1 cup (158 g): {card['portion'][key]:g} g carbohydrate"), line
    assert card["portion"]["available_carbohydrate_g"] == 43.9
    [hit] = service.search("white rice", limit=1)
    assert (hit["portion"]["carbohydrate_g"], hit["portion"]["available_carbohydrate_g"]) == (44.5, 43.9)
