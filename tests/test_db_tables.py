"""The food tables beside SR Legacy (db.composition): FNDDS 2021-2023, CoFID 2021 and the
Swiss FCDB. The shipped files are what the build commands make of the shared source files
(skipped without them); each table's carbohydrate lands on one basis, checked by hand on three
foods each; the rows load with their source and attribution; check-seed reads them; a database
seeded with CoFID 2015's rows keeps them and their meals as the 2021 rows."""

import csv
import re
import gzip
from datetime import datetime
from pathlib import Path

import pytest
from db_support import full_db, full_db_url, write_seed  # noqa: F401 (fixtures)
from sqlalchemy import func, select, text

from db import cofid, composition, fndds, service, swiss
from db.seed import SEED_DIR

REPO = Path(__file__).resolve().parents[1]
# ../shared from a checkout, ../../shared from a worktree.
DATA = next((folder / "shared" / "data" for folder in REPO.parents[:2]
             if (folder / "shared" / "data").is_dir()), None)
SOURCES = {fndds: "fndds-2021-2023", cofid: "cofid-2021", swiss: "swiss-fcdb-5.3"}


@pytest.mark.parametrize("module", SOURCES, ids=lambda m: m.__name__)
def test_shipped_files_are_exactly_what_the_build_writes(module, tmp_path):
    source = DATA / SOURCES[module] if DATA else None
    if source is None or not source.is_dir():
        pytest.skip(f"{SOURCES[module]} not present")
    foods, measures = module.read_source(source)
    composition.write_compact(module.TABLE, foods, measures, tmp_path)
    files = [module.TABLE.foods_file] + ([module.TABLE.portions_file]
                                         if module.TABLE.shipped_portions else [])
    for name in files:
        assert (tmp_path / name).read_bytes() == (SEED_DIR / name).read_bytes(), name


def test_every_source_entry_is_shipped():
    counts = {m.TABLE.dataset.name: len(composition.read_compact(m.TABLE, SEED_DIR)[0])
              for m in SOURCES}
    assert counts == {"FNDDS": 5431, "CoFID": 2887, "Swiss FCDB": 999}


def _food(module, code):
    return next(f for f in composition.read_compact(module.TABLE, SEED_DIR)[0] if f.code == code)


@pytest.mark.parametrize("code, carbohydrate, fiber", [
    # FNDDS states carbohydrate by difference (fibre included): copied as it is.
    ("61210000", 10.17, 0.3),   # Orange juice, 100%, NFS
    ("95320200", 6.43, 0.0),    # Sports drink (Gatorade G)
    ("27311510", 8.72, 1.5),    # Shepherd's pie
])
def test_fndds_carbohydrate_is_copied(code, carbohydrate, fiber):
    food = _food(fndds, code)
    assert (food.nutrients["carbohydrate_g"], food.nutrients["fiber_g"]) == (carbohydrate, fiber)


@pytest.mark.parametrize("entry, available, fiber, sugars", [
    # CHO 45.4 (monosaccharide equivalents), starch 42.3, maltose 1.7, no other disaccharide:
    # 45.4 - 42.3 x 0.1/1.1 - 1.7 x 0.05/1.05 = 41.4736 g available; AOAC fibre 3.1;
    # sugars 3.1 - 1.7 x 0.05/1.05 = 3.019.
    ("Crumpets, toasted", 41.474, 3.1, 3.019),
    # CHO 65.6, starch 48.1, sucrose 17.5: 65.6 - 4.3727 - 0.8333 = 60.394; fibre 3.8;
    # sugars 17.5 - 0.8333 = 16.667.
    ("Biscuits, digestive, plain", 60.394, 3.8, 16.667),
    # CHO 69.3, starch 16.3 + oligosaccharides 1.4, sucrose 35.1 + maltose 6.0 + lactose
    # 0.2: 69.3 - 17.7 x 0.1/1.1 - 41.3 x 0.05/1.05 = 65.724; fibre 1.5; sugars 51.6 - 1.967.
    ("Jaffa cakes", 65.724, 1.5, 49.633),
])
def test_cofid_monosaccharide_equivalents_become_grams(entry, available, fiber, sugars):
    food = _food(cofid, entry)
    assert food.nutrients["fiber_g"] == fiber
    assert food.nutrients["carbohydrate_g"] == round(available + fiber, 3)
    assert food.nutrients["sugars_g"] == sugars


def test_cofid_without_the_sugars_split_keeps_its_figure_and_n_is_no_value():
    # Lucozade: CHO 16.0, starch 0, oligosaccharides 4.9, sugars 11.1 with sucrose "N":
    # 16.0 - 4.9 x 0.1/1.1 = 15.555 g (sugars as stated); AOAC fibre 0.0.
    lucozade = _food(cofid, "Lucozade")
    assert lucozade.nutrients["carbohydrate_g"] == 15.555
    assert lucozade.nutrients["sugars_g"] == 11.1
    assert "less sugar since 2017" in lucozade.note
    # "N" AOAC fibre: no fibre value, and carbohydrate is the available carbohydrate.
    no_fibre = [f for f in composition.read_compact(cofid.TABLE, SEED_DIR)[0]
                if f.nutrients["fiber_g"] is None]
    # The README's CoFID rows without an AOAC value, and the takeaway spare ribs, whose 0 is a
    # cell this copy lacks (cofid.NO_VALUE).
    assert len(no_fibre) == 472


def test_a_cofid_zero_that_is_not_the_foods_value_is_no_value():
    # This copy writes CoFID's traces as a bare 0 (no "Tr" in it): a 0 of lager's carbohydrate
    # is the sugars and starch CoFID measured, not beer's dextrins, so no value and a note;
    # the takeaway ribs' 0 kcal beside 22.1 g protein and 18.7 g fat is a missing cell.
    for name in ("Lager, standard", "Lager, premium"):
        lager = _food(cofid, name)
        assert lager.nutrients["carbohydrate_g"] is None and lager.nutrients["sugars_g"] is None
        assert lager.nutrients["kcal"] is not None and "dextrins" in lager.note
    ribs = _food(cofid, "Pork, spare ribs, Chinese barbecue, takeaway")
    assert [k for k, v in ribs.nutrients.items() if v is None] == [
        "kcal", "carbohydrate_g", "sugars_g", "fiber_g", "saturated_fat_g"]
    assert (ribs.nutrients["protein_g"], ribs.nutrients["fat_g"]) == (22.1, 18.7)
    # No other row has energy 0 beside a gram of protein or fat.
    assert not [f.code for f in composition.read_compact(cofid.TABLE, SEED_DIR)[0]
                if f.nutrients["kcal"] == 0
                and (f.nutrients["protein_g"] or 0) + (f.nutrients["fat_g"] or 0) >= 1]
    # "Tr" (a trace, below the last decimal given) reads as 0; "N" and empty are no value.
    row = {"Sucrose (g)": "Tr", "Maltose (g)": "N", "Lactose (g)": ""}
    assert [cofid._value(row, c, "x") for c in cofid.DISACCHARIDES] == [0.0, None, None]


def test_an_unknown_carbohydrate_is_not_shown_as_0_g(full_db):
    card = service.lookup("Lager, standard", grams=568)  # a pint
    assert card["per_100g"]["carbohydrate_g"] is None
    assert card["portion"]["carbohydrate_g"] is None and "dextrins" in card["source"]["proxy_note"]


@pytest.mark.parametrize("entry, carbohydrate, fiber, kcal", [
    ("768", 99.8, 0.0, 399.0),   # Traubenzucker: available 99.8 g + fibre 0
    ("829", 48.4, 4.1, 234.0),   # Ruchbrot: available 44.3 g + fibre 4.1 g
    # Karottensaft, per 100 ml at specific gravity 1.1: available 6.8 / 1.1 = 6.182 g, fibre
    # 0.9 / 1.1 = 0.818 g, energy 33 / 1.1 = 30 kcal per 100 g.
    ("566", 7.0, 0.818, 30.0),
])
def test_swiss_available_carbohydrate_plus_fibre(entry, carbohydrate, fiber, kcal):
    food = _food(swiss, entry)
    assert (food.nutrients["carbohydrate_g"], food.nutrients["fiber_g"],
            food.nutrients["kcal"]) == (carbohydrate, fiber, kcal)


def test_swiss_rows_carry_their_german_names_and_synonyms():
    glucose = _food(swiss, "768")
    assert (glucose.name, glucose.aliases, glucose.common_names) == (
        "Traubenzucker", ("Glukose", "Dextrose"), "Glucose")


def test_rows_load_with_their_source_and_attribution(full_db):
    digestive = service.lookup("Biscuits, digestive, plain", grams=100)
    assert digestive["source"] == {
        "dataset": "CoFID", "fdc_id": None, "code": "Biscuits, digestive, plain",
        "description": "Biscuits, digestive, plain", "proxy_note": None,
        "citation": cofid.TABLE.dataset.citation,
        "attribution": "Contains public sector information licensed under the Open "
                       "Government Licence v3.0 (CoFID 2021)"}
    assert digestive["per_100g"]["available_carbohydrate_g"] == 60.394
    glucose = service.lookup("Traubenzucker", grams=10)
    assert glucose["source"]["code"] == "768"
    assert glucose["source"]["attribution"] == ("Swiss Food Composition Database V5.3, "
                                                "Federal Food Safety and Veterinary Office FSVO")
    pie = service.lookup("Shepherd's pie")
    assert (pie["source"]["dataset"], pie["source"]["code"]) == ("FNDDS", "27311510")
    assert pie["source"]["attribution"] is None
    assert pie["portion"]["serving"] == "1 slice, any size" and pie["portion"]["grams"] == 210


def test_card_text_names_the_entry_and_the_licence():
    from db.cards import source_text

    assert source_text({"dataset": "CoFID", "code": "Lucozade", "fdc_id": None}) == (
        "UK CoFID 2021 (McCance and Widdowson), food name 'Lucozade'. Contains public sector "
        "information licensed under the Open Government Licence v3.0 (CoFID 2021)")
    assert source_text({"dataset": "Swiss FCDB", "code": "768", "fdc_id": None}) == (
        "Swiss Food Composition Database V5.3, ID 768. Swiss Food Composition Database V5.3, "
        "Federal Food Safety and Veterinary Office FSVO")
    assert source_text({"dataset": "FNDDS", "code": "27311510", "fdc_id": None}) == (
        "USDA FNDDS 2021-2023, food code 27311510")


def _seed_with_tables(folder: Path, *, whole_catalog: bool = False) -> Path:
    """The small test seed (db_support) with the shipped tables and a two-food catalog, or
    (``whole_catalog``, for checks that read SR Legacy rows cited for CoFID foods, not for a
    database) the whole SR Legacy catalog and its serving exceptions."""
    from db import sr28

    seed = write_seed(folder)
    foods, portions = sr28.read_compact(SEED_DIR)
    if whole_catalog:
        for name in ("sr28_foods.csv.gz", "sr28_portions.csv.gz", "serving_exceptions.csv"):
            (seed / name).write_bytes((SEED_DIR / name).read_bytes())
    else:
        sr28.write_compact([f for f in foods if f.ndb == "09003"],
                           [p for p in portions if p.ndb == "09003"], seed)
    for module in SOURCES:
        for name in (module.TABLE.foods_file, module.TABLE.portions_file,
                     module.TABLE.aliases_file, composition.CITED_PORTIONS_FILE):
            if (SEED_DIR / name).is_file():
                (seed / name).write_bytes((SEED_DIR / name).read_bytes())
    return seed


def test_check_seed_reports_aliases_and_portions_of_unknown_entries(tmp_path):
    from db.seed_audit import problems_in

    seed = _seed_with_tables(tmp_path, whole_catalog=True)
    problems, summary = problems_in(seed)
    assert problems == [] and "CoFID: 2887 foods" in summary and "Swiss FCDB: 999" in summary
    with (seed / cofid.TABLE.aliases_file).open("a", encoding="utf-8") as handle:
        handle.write('"Biscuits, imaginary",imaginary biscuit\n')
    problems, _ = problems_in(seed)
    assert problems == [f"{seed / cofid.TABLE.aliases_file}: food name 'Biscuits, imaginary' "
                        "is not in cofid_foods.csv.gz"]
    with (seed / composition.CITED_PORTIONS_FILE).open("a", encoding="utf-8") as handle:
        handle.write('Swiss FCDB,99999,1 piece,5,true,"a label"\n')
    problems, _ = problems_in(seed)
    lines = sum(1 for _ in (seed / composition.CITED_PORTIONS_FILE).open(encoding="utf-8"))
    assert problems[-1] == (f"{seed / composition.CITED_PORTIONS_FILE}:{lines}: ID '99999' is "
                            "not in swiss_foods.csv.gz")


@pytest.mark.parametrize("entry, source, problem", [
    ("Bananas, flesh only", "a label",
     "the source must name a portion of the same food in FNDDS or SR Legacy"),
    ("Bananas, flesh only",
     "FNDDS 2021-2023 portion of the same food: 63107010 'Banana', '1 banana' (126 g)",
     "FNDDS 2021-2023 63107010 is 'Banana, raw', not 'Banana'"),
    ("Bananas, flesh only",
     "FNDDS 2021-2023 portion of the same food: 63107010 'Banana, raw', '1 bunch' (126 g)",
     "FNDDS 2021-2023 63107010 has no portion '1 bunch' of 126 g"),
    ("Bananas, flesh only",
     "half of FNDDS 2021-2023 portion of the same food: 63107010 'Banana, raw', '1 banana' (126 g)",
     "126 g is not the cited 126 g halved"),
    # Banana bread is no banana: 4 x 51.266 + 4 x 4.4 + 9 x 12.4 = 334.3 kcal per 100 g on one
    # basis against 4 x (22.71 - 1.7) + 4 x 0.74 + 9 x 0.28 = 89.5 for FNDDS's banana.
    ("Banana bread, homemade",
     "FNDDS 2021-2023 portion of the same food: 63107010 'Banana, raw', '1 banana' (126 g)",
     "not the same food as FNDDS 2021-2023 63107010 'Banana, raw': energy 334.3 and 89.5 per "
     "100 g differ by more than 25% (or 10)"),
])
def test_check_seed_refuses_a_portion_the_cited_table_does_not_give(tmp_path, entry, source,
                                                                     problem):
    from db.seed_audit import cited_portion_problems

    seed = _seed_with_tables(tmp_path, whole_catalog=True)
    with (seed / composition.CITED_PORTIONS_FILE).open("a", encoding="utf-8") as handle:
        csv.writer(handle, lineterminator="\n").writerow(
            ["CoFID", entry, "1 banana", 126, "false", source])
    found = cited_portion_problems(seed)
    assert found and all(f"'{entry}' '1 banana'" in line for line in found)
    assert any(problem in line for line in found), found


def test_the_pair_rule_compares_the_tables_on_one_basis():
    # CoFID's orange reads 36 kcal, FNDDS's 50: CoFID gives fibre no energy and counts sugars as
    # monosaccharides at 3.75 kcal/g, FNDDS counts carbohydrate by difference (fibre and the
    # fruit's acids in it). On one basis (4/4/9 kcal/g of available carbohydrate, protein and
    # fat): 4 x 8.01 + 4 x 0.8 + 9 x 0.2 = 37.0 against 4 x 9.58 + 4 x 0.92 + 9 x 0.14 = 43.3.
    orange, fndds_orange = _food(cofid, "Oranges, flesh only"), _food(fndds, "61119010")
    assert (orange.nutrients["kcal"], fndds_orange.nutrients["kcal"]) == (36.0, 50.0)
    assert round(composition.comparable_energy(orange.nutrients), 1) == 37.0
    assert round(composition.comparable_energy(fndds_orange.nutrients), 1) == 43.3
    assert composition.pair_problems(orange.nutrients, fndds_orange.nutrients) == []
    # CoFID's freshly squeezed orange juice (33 kcal) and FNDDS's (47 kcal) have the same
    # sugars (7.9 and 8.1 g); on one basis 34.0 and 45.3 kcal, within 25 %.
    juice, fndds_juice = _food(cofid, "Orange juice, freshly squeezed"), _food(fndds, "61210010")
    assert composition.pair_problems(juice.nutrients, fndds_juice.nutrients) == []


def test_check_seed_refuses_an_edited_row(tmp_path):
    from db.seed_audit import problems_in

    seed = _seed_with_tables(tmp_path)
    path = seed / swiss.TABLE.foods_file
    rows = list(csv.reader(gzip.open(path, "rt", encoding="utf-8")))
    rows[1][composition.FOOD_COLUMNS.index("kcal")] = "lots"
    with gzip.open(path, "wt", encoding="utf-8", newline="") as handle:
        csv.writer(handle, lineterminator="\n").writerows(rows)
    problems, _ = problems_in(seed)
    assert problems == [f"{path}:2 kcal: 'lots' is not a number"]


def test_a_database_seeded_with_cofid_2015_keeps_its_rows_and_meals(tmp_path):
    """The 16 CoFID 2015 rows an older foodtag seeded become the 2021 rows of the same names
    (same ids, so a logged meal keeps its food and its frozen values); the other 2,871 CoFID
    foods are added, and nothing twice."""
    from db.tables import Food, SeedVersion
    from db.session import configure, get_engine, init_db, session_scope

    seed = _seed_with_tables(tmp_path / "seed")
    configure(f"sqlite:///{tmp_path / 'foodtag.db'}")
    try:
        init_db(seed_dir=write_seed(tmp_path / "small"))  # curated foods only
        with get_engine().begin() as conn:
            # What CoFID 2015's loader wrote for crumpets, and a meal logged with it.
            conn.execute(text(
                "INSERT INTO foods (id, name, name_key, category, fdc_dataset, source_code, "
                "fdc_description, kcal, carbohydrate_g, fiber_g, protein_g, fat_g, "
                "search_weight) VALUES (50, 'Crumpets, toasted', 'crumpets, toasted', "
                "'Baked Products', 'CoFID', '11-989', 'Crumpets, toasted', 207, 48.5, 3.1, "
                "6.9, 1.0, 1.0)"))
            conn.execute(text("INSERT INTO food_aliases (food_id, alias, alias_key) VALUES "
                              "(50, 'crumpet', 'crumpet')"))
            conn.execute(text("INSERT INTO servings (food_id, name, grams, is_default, source) "
                              "VALUES (50, '100 g', 100, true, 'CoFID 2015: per 100 g')"))
            conn.execute(text("INSERT INTO seed_versions (part, foods, loaded_at) VALUES "
                              "('cofid', 1, '2026-01-01 00:00:00')"))
            conn.execute(text("DELETE FROM seed_versions WHERE part IN ('sr28', 'composites')"))
        service.create_user("ann")
        meal = service.log_meal("ann", "crumpet", eaten_at=datetime(2026, 1, 2, 8, 0))
        assert meal["carbohydrate_g"] == 48.5
        init_db(seed_dir=seed)
        crumpet = service.lookup("crumpet", grams=100)
        # CoFID 2015's 100 g is gone; the row has the portion table_portions.csv cites for it.
        assert crumpet["servings"] == [{"name": "1 crumpet", "grams": 45.0, "default": True}]
        assert crumpet["food_id"] == 50 and crumpet["source"]["code"] == "Crumpets, toasted"
        assert crumpet["per_100g"]["carbohydrate_g"] == 44.574  # 41.474 available + 3.1
        entries = service.list_meals("ann", datetime(2026, 1, 2), datetime(2026, 1, 3))
        assert [(e["food_id"], e["carbohydrate_g"]) for e in entries] == [(50, 48.5)]
        with session_scope(write=False) as session:
            count = session.scalar(select(SeedVersion.foods).where(
                SeedVersion.part == cofid.TABLE.part))
            names = session.scalars(select(Food.name).where(Food.fdc_dataset == "CoFID")).all()
        assert count == len(names) == 2887 and len(set(names)) == 2887
    finally:
        configure(None)


def test_a_hypo_row_without_a_food_must_say_what_to_read_from_the_pack(tmp_path):
    from db import hypo
    from db.errors import SeedError

    (tmp_path / hypo.TREATMENTS_FILE).write_text(
        "term,region,dataset,entry,serving,asks,source\n"
        "glucose tablets,,,,,,no table lists them\n", encoding="utf-8")
    with pytest.raises(SeedError, match=r"hypo_treatments.csv:2: without a food the row must "
                                        r"say what to read from the pack"):
        hypo.read(tmp_path)
    (tmp_path / hypo.TREATMENTS_FILE).write_text(
        "term,region,dataset,entry,serving,asks,source\n"
        "dextrose,,Swiss FCDB,,,,glucose itself\n", encoding="utf-8")
    with pytest.raises(SeedError, match="a known dataset with its entry, or neither"):
        hypo.read(tmp_path)
    rows = hypo.read(SEED_DIR)
    assert {r.phrase for r in rows} >= {"glucose tablet", "glucose gel", "juice box", "dextrose"}


def test_an_sr_legacy_food_fndds_holds_too_gets_fndds_portions():
    """SR28 01006 'Cheese, brie' (334 kcal, 0.45 g carbohydrate, 20.75 g protein, 27.68 g fat)
    is FNDDS 14103020 'Cheese, Brie' with the same values: FNDDS's portions of it apply."""
    from db import sr28

    brie = next(f for f in sr28.read_compact(SEED_DIR)[0] if f.ndb == "01006")
    found = fndds.portions_of_the_same_foods([(brie.ndb, brie.description, brie.nutrients)],
                                             SEED_DIR)
    assert ("Quantity not specified", 21.0,
            "FNDDS 2021-2023 portion, food code 14103020 seq 6: FNDDS's 'Cheese, Brie', the same "
            "food (its values are this row's)") in found["01006"]
    # A food FNDDS does not hold gets none.
    assert fndds.portions_of_the_same_foods([("x", "Zorblax, raw", brie.nutrients)], SEED_DIR) == {}


def test_beans_on_toast_is_the_beans_with_their_toast(full_db):
    # Half a cup of CoFID's baked beans (130 g, FNDDS's cup halved) on two medium slices of its
    # white toast (2 x 25 g, FNDDS's slice): the card adds the toast's carbohydrate.
    card = service.lookup("beans on toast")
    beans = service.lookup("Baked beans, canned in tomato sauce", grams=130)["portion"]
    toast = service.lookup("Bread, white, toasted", grams=50)["portion"]
    assert (card["food"], card["portion"]["grams"]) == ("Beans on toast", 180.0)
    for nutrient in ("carbohydrate_g", "available_carbohydrate_g", "kcal"):
        assert card["portion"][nutrient] == pytest.approx(beans[nutrient] + toast[nutrient],
                                                          abs=0.11), nutrient
    assert "Open Government Licence" in card["source"]["attribution"]


def test_a_full_english_breakfast_is_its_seven_parts_and_breakfast_tea_is_tea(full_db):
    # The plate is CoFID's rows at FNDDS's portions (db/seed/composites.csv): its card is their
    # sum, so the beans' and the toast's carbohydrate are counted; the tea is not the plate.
    parts = {"Sausages, pork, chilled, grilled": 60, "Bacon rashers, back, grilled": 46,
             "Eggs, chicken, whole, fried in sunflower oil": 55,
             "Baked beans, canned in tomato sauce": 130, "Bread, white, toasted (CoFID)": 25,
             "Tomatoes, standard, grilled, flesh and seeds only": 110,
             "Mushrooms, white, fried in rapeseed oil": 80}
    card = service.lookup("full english")
    assert (card["food"], card["portion"]["grams"]) == ("Full English breakfast", 506.0)
    portions = [service.lookup(name, grams=grams)["portion"] for name, grams in parts.items()]
    for nutrient in ("carbohydrate_g", "available_carbohydrate_g", "kcal", "fat_g"):
        assert card["portion"][nutrient] == pytest.approx(
            sum(p[nutrient] for p in portions), abs=0.11), nutrient
    assert all(f"{grams} g {name}" in card["source"]["description"]
               for name, grams in parts.items())
    assert "Open Government Licence" in card["source"]["attribution"]
    for query in ("english breakfast tea", "breakfast tea"):
        assert service.search(query, limit=1, region="UK")[0]["food"].startswith("Tea, "), query
    # Its description lists sausage and bread, but a food is found by its names: a sausage
    # sandwich is not the plate that alone holds both words.
    for query in ("Wurstbrot", "sausage bread"):
        assert "Full English breakfast" not in [
            hit["food"] for hit in service.search(query, limit=3, region="DE")], query


def test_fish_and_chips_is_the_fish_with_its_chips_and_an_older_database_gets_it(tmp_path):
    """The dish is a composite of CoFID's two chip-shop rows (140 g of battered cod and 145 g of chips),
    so its carbohydrate includes the chips' and the card carries CoFID's OGL attribution. A
    database seeded when the label named a fish-only stand-in row gets the composite on its next
    start; the stand-in keeps the meal logged with it, and loses the label and the alias."""
    from db import composites
    from db.tables import Food, FoodAlias, FoodLabel, SeedVersion
    from db.session import configure, init_db, session_scope

    configure(f"sqlite:///{tmp_path / 'foodtag.db'}")
    try:
        init_db(seed_dir=SEED_DIR)
        card = service.lookup("fish and chips")
        assert card["food"] == "Fish and chips" and card["portion"]["grams"] == 285
        cod = service.lookup("Cod, in batter, fried, takeaway", grams=140)["portion"]
        chips = service.lookup("Potato chips, fried in commercial oil, from takeaway fish and "
                               "chip shops", grams=145)["portion"]
        for nutrient in ("carbohydrate_g", "kcal", "fat_g"):
            assert card["portion"][nutrient] == pytest.approx(cod[nutrient] + chips[nutrient],
                                                              abs=0.11), nutrient
        assert card["portion"]["carbohydrate_g"] > 55  # 14.4 g in the fish, 48.4 in the chips
        assert "Open Government Licence" in card["source"]["attribution"]
        assert "CoFID" in card["source"]["description"]
        assert service.lookup("fish_and_chips")["food"] == "Fish and chips"

        # The older database: the label and the alias on FNDDS's fried cod, no composite.
        with session_scope() as session:
            session.delete(session.scalar(select(Food).where(Food.name == "Fish and chips")))
            session.flush()
            stand_in = session.scalar(select(Food).where(Food.source_code == "26109140"))
            stand_in.labels.append(FoodLabel(label="fish_and_chips"))
            stand_in.aliases.append(FoodAlias(alias="fish & chips"))
            session.delete(session.get(SeedVersion, composites.UPGRADE_PART))
            stand_in_id = stand_in.id
        service.create_user("ann")
        meal = service.log_meal("ann", "fish_and_chips", eaten_at=datetime(2026, 1, 2, 19, 0))
        assert meal["food_id"] == stand_in_id
        init_db(seed_dir=SEED_DIR)
        assert service.lookup("fish_and_chips")["food"] == "Fish and chips"
        assert service.lookup("fish & chips")["food"] == "Fish and chips"
        entries = service.list_meals("ann", datetime(2026, 1, 2), datetime(2026, 1, 3))
        assert [e["food_id"] for e in entries] == [stand_in_id]
        with session_scope(write=False) as session:
            assert session.get(Food, stand_in_id).labels == []
    finally:
        configure(None)


def _cited_rows() -> list[dict[str, str]]:
    return list(csv.DictReader((SEED_DIR / composition.CITED_PORTIONS_FILE).open(encoding="utf-8")))


def test_every_cited_portion_is_that_tables_portion_of_the_same_food():
    # table_portions.csv gives CoFID and Swiss rows a portion of the same food in FNDDS or SR
    # Legacy: check-seed verifies the cited code, name, portion and grams are that table's own,
    # the row's grams those grams (or half of them where the row says "half of"), and the two
    # rows the same food by db.composition's pair rule on one basis.
    from db.seed_audit import cited_portion_problems

    rows = _cited_rows()
    assert len(rows) >= 380 and {row["dataset"] for row in rows} == {"CoFID", "Swiss FCDB"}
    assert all(composition.CITED_RE.match(row["source"]) for row in rows)
    assert cited_portion_problems(SEED_DIR) == []
    defaults = {(row["dataset"], row["entry"]): (row["serving"], float(row["grams"]))
                for row in rows if row["is_default"] == "true"}
    assert {"Croissants", "Orange juice, chilled", "Fish fingers, cod, grilled/baked",
            "Potato crisps, fried in sunflower oil", "Bread, naan, retail"} <= {
                entry for dataset, entry in defaults if dataset == "CoFID"}
    # Checked by hand against FNDDS's portions of the same food.
    swiss_names = {food.code: food.name for food in composition.read_compact(swiss.TABLE, SEED_DIR)[0]}
    assert swiss_names["10406"] == "Gipfeli (Durchschnitt)"
    assert defaults[("Swiss FCDB", "10406")] == ("1 medium croissant", 57)  # 51166000 Croissant
    assert swiss_names["378"] == "Apfel, roh"
    assert defaults[("Swiss FCDB", "378")] == ("1 medium apple", 200)  # 63101000 Apple, raw
    assert swiss_names["576"] == "Orangensaft"
    assert defaults[("Swiss FCDB", "576")] == ("1 glass (8 fl oz)", 248)  # 61210000, 1 cup
    assert swiss_names["498"] == "Colagetränk, gezuckert"
    assert defaults[("Swiss FCDB", "498")] == ("1 can (12 fl oz)", 372)  # 92410310 cola
    assert swiss_names["1066"].startswith("Reis poliert, gekocht")
    assert defaults[("Swiss FCDB", "1066")] == ("1 cup, cooked", 158)  # 56205008 white rice
    # Quark by FNDDS's half cup of cottage cheese, the fresh curd cheese of its composition.
    assert [swiss_names[code] for code in ("571", "71", "70")] == [
        "Quark, nature, halbfett", "Quark, nature, mager", "Quark, nature, Rahm"]
    assert [defaults[("Swiss FCDB", code)] for code in ("571", "71", "70")] == [
        ("1/2 cup", 105), ("1/2 cup", 113), ("1/2 cup", 105)]  # 14201010, 14204010, 14201200
    assert defaults[("CoFID", "Bananas, flesh only")] == ("1 banana", 126)  # 63107010
    assert defaults[("CoFID", "Bread, white, sliced")] == ("1 medium slice", 28)  # 51101000
    assert defaults[("CoFID", "Milk, semi-skimmed, pasteurised, average")] == (
        "1 cup (8 fl oz)", 244)  # 11112110 reduced fat (2%) milk
    assert defaults[("CoFID", "Potatoes, old, baked, flesh and skin")] == (
        "1 medium baked potato", 285)  # 71508001 baked potato, peel eaten
    assert defaults[("CoFID", "Porridge oats, unfortified")] == ("1/2 cup, dry", 40)  # half of 1 cup
    # UK biscuits one by one (FNDDS's graham cracker sheet; 3 of its Marie biscuits when the
    # number is not said), Weetabix by SR Legacy's 2 biscuits, squash and Schorle as drunk.
    assert defaults[("CoFID", "Biscuits, digestive, plain")] == ("1 biscuit", 15)  # 54102010
    assert defaults[("CoFID", "Biscuits, semi-sweet")] == ("3 biscuits", 21)  # 53241510
    assert defaults[("CoFID", "Breakfast cereal, wheat biscuits, Weetabix type, fortified")] == (
        "2 biscuits", 35)  # SR Legacy 42237
    assert defaults[("CoFID", "Fruit juice drink/squash, diluted")] == ("1 glass (8 fl oz)", 248)
    assert swiss_names["1131"].startswith("Fruchtsaft-Schorle")
    assert defaults[("Swiss FCDB", "1131")] == ("1 bottle (12 fl oz)", 372)  # 92433000, carbonated
    # Lager whose carbohydrate CoFID does not give has no default: the pair rule has nothing to
    # compare (cofid.NO_VALUE).
    assert ("CoFID", "Lager, standard") not in defaults
    # No default where the FNDDS portion would not be one portion of the UK or Swiss food: a
    # slice of FNDDS's French bread (64 g) is not a slice of a baguette.
    assert ("CoFID", "Bread, white, French stick") not in defaults
    assert ("Swiss FCDB", "845") not in defaults


# FNDDS categories of drinks, and the Swiss FCDB's (less spirits and coffee: a shot and an
# espresso are drinks of under 150 g); a drink's default is a glass, a cup, a can or a bottle.
FNDDS_DRINKS = {
    "Milk, whole", "Milk, reduced fat", "Milk, lowfat", "Milk, nonfat", "Flavored milk, whole",
    "Flavored milk, reduced fat", "Flavored milk, lowfat", "Flavored milk, nonfat",
    "Plant-based milk", "Milk shakes and other dairy drinks", "Citrus juice", "Apple juice",
    "Other fruit juice", "Vegetable juice", "Fruit drinks", "Soft drinks", "Diet soft drinks",
    "Sport and energy drinks", "Diet sport and energy drinks", "Smoothies and grain drinks",
    "Beer", "Wine", "Tea", "Other diet drinks", "Nutritional beverages"}
SWISS_DRINKS = re.compile(r"^(Non-alcoholic beverages/(?!Coffee)|Alcoholic beverages/(?!Spirits)|"
                          r"Fruit/Fruit juices|Milk and dairy products/(Milk|Milk and yoghurt "
                          r"beverages|Milk substitutes)$)")
DRINK_MIN_G = 150
# A dessert or fortified wine's glass is smaller (FNDDS's "Wine, dessert, sweet": 1 glass 105 g;
# NIAAA's standard drink of fortified wine 3-4 fl oz).
FORTIFIED_WINE = re.compile(r"(?i)\bwine, dessert\b|^(port|sherry|madeira|vermouth|marsala)\b")
# A bare weight (1 oz, 3 ounces, 100 g) is a measure, not a portion.
WEIGHT_MEASURE = re.compile(r"(?i)^\s*[\d./]+\s*(oz|ounces?|g)\b")


def test_no_cofid_or_swiss_default_is_100_g_an_ounce_or_a_small_drink():
    fndds_category = {food.code: food.category
                      for food in composition.read_compact(fndds.TABLE, SEED_DIR)[0]}
    swiss_category = {food.code: food.category
                      for food in composition.read_compact(swiss.TABLE, SEED_DIR)[0]}
    drinks = set()
    for row in _cited_rows():
        if row["is_default"] != "true":
            continue
        grams = float(row["grams"])
        cited = composition.CITED_RE.match(row["source"])
        assert grams != 100 and not WEIGHT_MEASURE.search(row["serving"]), row
        assert not (cited and WEIGHT_MEASURE.search(cited["portion"])), row
        drink = bool(cited and fndds_category.get(cited["code"]) in FNDDS_DRINKS) or (
            row["dataset"] == "Swiss FCDB" and SWISS_DRINKS.search(swiss_category[row["entry"]]))
        if drink:
            drinks.add(row["entry"])
            small = FORTIFIED_WINE.search(row["entry"]) or FORTIFIED_WINE.search(cited["name"])
            assert grams >= DRINK_MIN_G or small, row
    # The check reaches the drinks of both tables: milk, juice, cola, wine, beer.
    assert {"Cola", "Orange juice, chilled", "Milk, semi-skimmed, pasteurised, average",
            "Wine, red", "Stout, Guinness", "498", "576", "62", "509"} <= drinks


def test_a_database_seeded_before_todays_cited_portions_gets_them_once(tmp_path):
    from db.tables import SeedVersion
    from db.session import configure, get_engine, init_db

    seed = _seed_with_tables(tmp_path / "seed")
    configure(f"sqlite:///{tmp_path / 'foodtag.db'}")
    try:
        init_db(seed_dir=seed)
        assert service.lookup("Croissants")["portion"]["grams"] == 57.0
        assert service.lookup("Gipfeli (Durchschnitt)")["portion"]["grams"] == 57.0
        # As seeded before the rows existed: croissants and the Swiss Gipfeli without
        # servings, bagels with a default the person has seen (their 100 g), the part not yet
        # loaded.
        with get_engine().begin() as conn:
            conn.execute(text("DELETE FROM servings WHERE food_id IN (SELECT id FROM foods WHERE "
                              "(fdc_dataset = 'CoFID' AND source_code IN ('Croissants', 'Bagels, plain')) "
                              "OR (fdc_dataset = 'Swiss FCDB' AND source_code = '10406'))"))
            conn.execute(text("INSERT INTO servings (food_id, name, grams, is_default, source) SELECT id, "
                              "'100 g', 100, true, 'per 100 g' FROM foods WHERE source_code = 'Bagels, plain'"))
            # Seeded under the part before today's (table-portions-2: CoFID only).
            conn.execute(text(f"UPDATE seed_versions SET part = 'table-portions-2' "
                              f"WHERE part = '{composition.CITED_PORTIONS_PART}'"))
        from db.errors import InvalidPortion

        for name in ("Croissants", "Gipfeli (Durchschnitt)"):
            with pytest.raises(InvalidPortion, match="no default serving"):
                service.lookup(name)
        init_db(seed_dir=seed)
        croissant, bagel = service.lookup("Croissants"), service.lookup("Bagels, plain")
        gipfeli = service.lookup("Gipfeli (Durchschnitt)")
        assert (croissant["portion"]["serving"], croissant["portion"]["grams"]) == ("1 medium croissant", 57.0)
        assert (gipfeli["portion"]["serving"], gipfeli["portion"]["grams"]) == ("1 medium croissant", 57.0)
        assert [s["name"] for s in gipfeli["servings"]] == ["1 medium croissant", "1 mini croissant"]
        assert bagel["portion"]["grams"] == 100.0  # the default already shown stays
        assert [s["name"] for s in bagel["servings"]] == ["100 g", "1 regular bagel", "1 small bagel"]
        init_db(seed_dir=seed)  # once: nothing added twice
        assert len(service.lookup("Bagels, plain")["servings"]) == 3
        with get_engine().begin() as conn:
            assert conn.execute(select(SeedVersion.foods).where(
                SeedVersion.part == composition.CITED_PORTIONS_PART)).scalar() == 6  # 2 + 2 + 2
    finally:
        configure(None)


def test_a_database_seeded_from_older_table_files_gets_todays_rows_once(tmp_path):
    from db import seed as seed_module
    from db.tables import Food, FoodAlias, SeedVersion, Serving
    from db.session import configure, get_engine, init_db, session_scope

    seed = _seed_with_tables(tmp_path / "seed")
    configure(f"sqlite:///{tmp_path / 'foodtag.db'}")
    try:
        init_db(seed_dir=seed)
        # As seeded before: "NFS" ranked as a brand, lager's carbohydrate 0 g, FNDDS chili's
        # default its amount on a hot dog, and an alias foods.csv no longer gives Banana.
        with get_engine().begin() as conn:
            conn.execute(text("UPDATE foods SET search_weight = 0 WHERE name = 'Biscuit, NFS'"))
            conn.execute(text("UPDATE foods SET carbohydrate_g = 0, proxy_note = NULL "
                              "WHERE name = 'Lager, standard'"))
            conn.execute(text("UPDATE servings SET is_default = (name LIKE 'Guideline amount per hot%') "
                              "WHERE food_id = (SELECT id FROM foods WHERE name = 'Chili, NFS')"))
            conn.execute(text("INSERT INTO food_aliases (food_id, alias, alias_key) SELECT id, "
                              "'plantain', 'plantain' FROM foods WHERE name = 'Banana'"))
            conn.execute(text("DELETE FROM food_aliases WHERE alias_key = 'lemonade'"))
            conn.execute(text(f"DELETE FROM seed_versions WHERE part IN "
                              f"('{composition.ROWS_PART}', '{seed_module.ALIASES_PART}')"))
        init_db(seed_dir=seed)
        chili = service.lookup("Chili, NFS")
        assert (chili["portion"]["serving"], chili["portion"]["grams"]) == ("1 cup", 255.0)
        assert service.lookup("Lager, standard", grams=100)["per_100g"]["carbohydrate_g"] is None
        with session_scope(write=False) as session:
            biscuit = session.scalar(select(Food).where(Food.name == "Biscuit, NFS"))
            assert biscuit.search_weight == 1.0
            assert session.scalar(select(FoodAlias).where(FoodAlias.alias_key == "plantain")) is None
            counts = dict(session.execute(select(SeedVersion.part, SeedVersion.foods).where(
                SeedVersion.part.in_([composition.ROWS_PART, seed_module.ALIASES_PART]))).all())
            servings = session.scalar(select(func.count()).select_from(Serving))
        assert service.search("lemonade", region="US")[0]["food"] == "Lemonade, fruit juice drink"
        assert counts == {composition.ROWS_PART: 3, seed_module.ALIASES_PART: 1}
        init_db(seed_dir=seed)  # once: nothing refreshed or retired again
        with session_scope(write=False) as session:
            assert session.scalar(select(func.count()).select_from(Serving)) == servings
    finally:
        configure(None)


def test_name_key_folds_case_accents_underscores_and_control_characters():
    """One normal form for every name (db.keys), by the plain-ASCII shortcut or the full path."""
    from db.keys import name_key

    assert name_key(" HOT_dog  ") == "hot dog"
    assert name_key("Crème Brûlée") == "creme brulee"
    assert name_key("tab\there\x00and\x7fdel") == "tab here and del"
    assert name_key("STRASSE Straße") == "strasse strasse"
