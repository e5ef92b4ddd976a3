"""Default portions by class for CoFID and Swiss FCDB rows that no cited portion covers
(db/seed/reference_portions.csv, composition.reference_portions): each class's serving is a
citable rule (FDA's and USDA's reference amounts customarily consumed, the NHS 5 A Day portion,
a US standard drink), first match wins, and a row no class covers keeps asking for grams."""

import csv
from pathlib import Path

import pytest
from db_support import write_seed
from sqlalchemy import select, text

from db import cofid, composition, service, sr28, swiss
from db.seed import SEED_DIR
from db.tables import Food, Serving

TABLES = {t.dataset.name: t for t in (cofid.TABLE, swiss.TABLE)}
FDA = "21 CFR 101.12(b) Table 2"
USDA = "9 CFR 317.312 and 381.412"
NHS = "NHS 5 A Day"
DRINK = "US standard drink"


@pytest.fixture(scope="module")
def tables():
    """Dataset -> (foods by entry, cited portions, portions as read, classes)."""
    classes = composition.reference_classes(SEED_DIR)
    out = {}
    for name, table in TABLES.items():
        foods, measures = composition.read_compact(table, SEED_DIR)
        cited = composition.cited_portions(table, foods, SEED_DIR)
        out[name] = ({f.code: f for f in foods}, cited, measures, classes)
    return out


def _default(tables, dataset: str, entry: str) -> composition.TablePortion | None:
    foods, _, measures, _ = tables[dataset]
    assert entry in foods, entry
    found = [m for m in measures if m.code == entry and m.is_default]
    assert len(found) <= 1
    return found[0] if found else None


@pytest.mark.parametrize("dataset, entry, serving, grams, rule", [
    ("CoFID", "Cheese, Stilton, blue", "1 portion", 30, f"{FDA}: cheese, all others: 30 g"),
    ("CoFID", "Beans, runner, boiled in unsalted water", "1 portion", 80, NHS),
    ("CoFID", "Sweetcorn, kernels, raw", "1 portion", 80, NHS),
    ("CoFID", "Prunes, ready-to-eat, semi-dried", "1 portion", 30, f"{NHS} portion: 30 g of dried fruit"),
    ("CoFID", "Prune juice", "1 glass (150 ml)", 150, f"{NHS} portion: 150 ml"),
    ("CoFID", "Biscuits, ginger nuts", "1 portion", 30, f"{FDA}: cookies: 30 g"),
    ("CoFID", "Cake, fruit, rich, iced, homemade", "1 slice", 125, f"{FDA}: cakes, heavy weight"),
    ("CoFID", "Cake, chocolate, with butter icing, homemade", "1 slice", 80, f"{FDA}: cakes, medium weight"),
    ("CoFID", "Beef, topside, raw, lean", "1 portion raw", 114, f"{USDA} Table 2: meat and poultry cuts, ready to cook: 114 g"),
    ("CoFID", "Beef, topside, roasted well-done, lean", "1 portion cooked", 85, f"{USDA} Table 2: meat and poultry cuts without sauce"),
    ("CoFID", "Prawns, king, grilled from raw", "1 portion cooked", 85, f"{FDA}: fish and shellfish without sauce"),
    ("CoFID", "Cod, flesh only, raw", "1 portion raw", 110, f"{FDA}: fish and shellfish without sauce: 110 g uncooked"),
    ("CoFID", "Sausages, pork, chilled, grilled", "1 portion", 55, f"{USDA} Table 2: sausages"),
    ("CoFID", "Rice, white, basmati, raw", "45 g dry (about 1/4 cup)", 45, f"{FDA}: grains (rice), plain: 45 g dry"),
    ("CoFID", "Pasta, white, dried, raw", "55 g dry", 55, f"{FDA}: pastas, plain: 55 g dry"),
    ("CoFID", "Lentils, red, split, dried, raw", "35 g dry (about 1/4 cup)", 35, f"{FDA}: beans, plain, 35 g dry"),
    ("CoFID", "Soup, lentil, homemade", "1 bowl", 245, f"{FDA}: soups"),
    ("CoFID", "Curry, beef, homemade", "1 cup", 240, f"{FDA}: mixed dishes measurable with a cup"),
    ("CoFID", "Quiche, Lorraine, homemade", "1 portion", 140, f"{FDA}: mixed dishes not measurable with a cup"),
    ("CoFID", "Corned beef hash, homemade", "1 cup", 240, f"{FDA}: mixed dishes measurable with a cup"),
    ("CoFID", "Chow mein, chicken, takeaway", "1 cup", 240, f"{FDA}: mixed dishes measurable with a cup"),
    ("CoFID", "Toad in the hole, homemade", "1 portion", 140, f"{FDA}: mixed dishes not measurable with a cup"),
    ("CoFID", "Scotch eggs, retail", "1 portion", 140, f"{FDA}: mixed dishes not measurable with a cup"),
    ("CoFID", "Oil, olive", "1 tablespoon", 14, f"{FDA}: oil: 1 tbsp"),
    ("CoFID", "Lager, standard", "1 can (12 fl oz, 355 ml)", 355, f"{DRINK} (NIAAA, 14 g of alcohol): 12 fl oz"),
    ("CoFID", "Spirits, 40% volume", "1 shot (1.5 fl oz, 44 ml)", 44, DRINK),
    ("Swiss FCDB", "Emmentaler, vollfett", "1 portion", 30, f"{FDA}: cheese, all others: 30 g"),
    ("Swiss FCDB", "Rind, Filet, roh", "1 portion raw", 114, f"{USDA} Table 2"),
    ("Swiss FCDB", "Teigwaren ohne Ei, trocken", "55 g dry", 55, f"{FDA}: pastas, plain: 55 g dry"),
    ("Swiss FCDB", "Cervelat", "1 portion", 55, f"{USDA} Table 2: luncheon meat, frankfurters"),
    ("Swiss FCDB", "Broccoli, roh", "1 portion", 85, f"{FDA}: vegetables without sauce"),
    ("Swiss FCDB", "Wein rot, 9 vol%", "1 glass (5 fl oz, 148 ml)", 148, DRINK),
    ("Swiss FCDB", "Traubenzucker", "15 g of glucose (one hypo treatment)", 15, "15-15 rule"),
])
def test_a_row_without_a_cited_portion_gets_its_class_serving_and_cites_the_rule(
        tables, dataset, entry, serving, grams, rule):
    foods, cited, _, _ = tables[dataset]
    code = next(c for c, f in foods.items() if f.name == entry)
    assert not [p for p in cited if p.code == code and p.is_default]
    default = _default(tables, dataset, code)
    assert default is not None and (default.name, default.grams) == (serving, grams)
    assert rule in default.source and composition.REFERENCE_PORTIONS_FILE in default.source


@pytest.mark.parametrize("dataset, entry", [
    ("CoFID", "Scones, plain, retail"),  # FNDDS's regular scone, 70 g
    ("CoFID", "Cola"),  # FNDDS's 12 fl oz can
    ("CoFID", "Cod, in batter, fried, takeaway"),  # CoFID's large chip-shop fillet, 210 g
])
def test_a_row_with_a_cited_default_keeps_it(tables, dataset, entry):
    foods, cited, measures, _ = tables[dataset]
    [mine] = [p for p in cited if p.code == entry and p.is_default]
    assert [p for p in measures if p.code == entry] == [p for p in cited if p.code == entry]
    assert _default(tables, dataset, entry) == mine
    assert composition.reference_portions(TABLES[dataset], [foods[entry]], cited, SEED_DIR) == []


@pytest.mark.parametrize("dataset, entry", [
    ("CoFID", "Salt"),  # no class: seasoning by the pinch
    ("CoFID", "Flour, wheat, brown"),  # an ingredient by the spoon, no class
    ("CoFID", "Bacon rashers, back, grilled"),  # RACC 15 g is half a UK rasher: left out
    ("CoFID", "Cakes, fancy iced, individual, retail"),  # 80 g would be three fancies
    ("CoFID", "Potato chips, fried in rapeseed oil, from takeaway fish and chip shops"),
    ("CoFID", "Almonds, weighed with shells"),  # the grams hold the shells
    ("CoFID", "Soup, chicken, cream of, canned, condensed"),  # sold condensed
    ("Swiss FCDB", "Kochsalz mit Jod"),
    ("Swiss FCDB", "Kalbsbratwurst"),  # a Swiss bratwurst (130-160 g) is far above 55 g
    ("Swiss FCDB", "Pizza mit Gemüse, gebacken"),  # a restaurant pizza is far above 140 g
    ("Swiss FCDB", "Parmesan"),  # grated hard cheese: 5 g
])
def test_a_row_no_class_gives_a_serving_has_no_default(tables, dataset, entry):
    foods = tables[dataset][0]
    code = next(c for c, f in foods.items() if f.name == entry)
    assert _default(tables, dataset, code) is None


def test_every_class_cites_its_source_and_is_the_first_match_of_some_row(tables):
    path = SEED_DIR / composition.REFERENCE_PORTIONS_FILE
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    classes = composition.reference_classes(SEED_DIR)
    assert len(rows) == len(classes) > 100
    used = set()
    for name, table in TABLES.items():
        foods, cited, _, _ = tables[name]
        covered = {p.code for p in cited if p.is_default}
        for food in foods.values():
            found = composition.reference_class(table, food, classes)
            if found is not None and food.code not in covered:
                used.add(found.line)
    for row, found in zip(rows, classes):
        assert row["source"], row
        if row["grams"]:
            assert float(row["grams"]) > 0 and row["serving"]
            assert any(word in row["source"] for word in (FDA, USDA, NHS, DRINK, "15-15 rule"))
        else:
            assert row["source"].startswith("no default: ") and not row["serving"]
        assert found.line in used, f"class on line {found.line} ({row['pattern']}) covers no row"


def test_a_bad_class_is_reported_with_its_line(tmp_path):
    from db.errors import SeedError

    path = tmp_path / composition.REFERENCE_PORTIONS_FILE
    path.write_text("dataset,pattern,serving,grams,source\nCoFID,^Cheese(,1 portion,30,FDA\n",
                    encoding="utf-8")
    with pytest.raises(SeedError, match=r"reference_portions.csv:2: pattern does not compile"):
        composition.reference_classes(tmp_path)
    path.write_text("dataset,pattern,serving,grams,source\nCoFID,^Cheese,,30,FDA\n",
                    encoding="utf-8")
    with pytest.raises(SeedError, match=r":2: a serving with positive grams, or neither"):
        composition.reference_classes(tmp_path)


def _seed(folder: Path) -> Path:
    """The small test seed with one catalog food, CoFID and the Swiss FCDB, their cited
    portions and the reference classes."""
    seed = write_seed(folder)
    foods, portions = sr28.read_compact(SEED_DIR)
    sr28.write_compact([f for f in foods if f.ndb == "09003"],
                       [p for p in portions if p.ndb == "09003"], seed)
    for table in TABLES.values():
        for name in (table.foods_file, table.aliases_file):
            if (SEED_DIR / name).is_file():
                (seed / name).write_bytes((SEED_DIR / name).read_bytes())
    for name in (composition.CITED_PORTIONS_FILE, composition.REFERENCE_PORTIONS_FILE):
        (seed / name).write_bytes((SEED_DIR / name).read_bytes())
    return seed


def test_a_fresh_seed_and_an_upgraded_database_both_get_the_class_defaults_once(tmp_path):
    from db.session import configure, get_engine, init_db

    seed = _seed(tmp_path / "seed")
    configure(f"sqlite:///{tmp_path / 'foodtag.db'}")
    try:
        init_db(seed_dir=seed)
        stilton = service.lookup("Cheese, Stilton, blue")
        assert (stilton["portion"]["serving"], stilton["portion"]["grams"]) == ("1 portion", 30.0)
        assert service.lookup("Emmentaler, vollfett")["portion"]["grams"] == 30.0
        # As seeded before the classes: Stilton and Emmentaler without servings, Cheddar with
        # a default the person has seen (100 g), the part not yet loaded.
        with get_engine().begin() as conn:
            conn.execute(text(
                "DELETE FROM servings WHERE food_id IN (SELECT id FROM foods WHERE "
                "source_code IN ('Cheese, Stilton, blue', 'Cheese, Cheddar, English', '1478')"
                " OR (fdc_dataset = 'Swiss FCDB' AND name = 'Emmentaler, vollfett'))"))
            conn.execute(text(
                "INSERT INTO servings (food_id, name, grams, is_default, source) SELECT id, "
                "'100 g', 100, true, 'per 100 g' FROM foods "
                "WHERE source_code = 'Cheese, Cheddar, English'"))
            conn.execute(text(f"UPDATE seed_versions SET part = 'table-portions-9' "
                              f"WHERE part = '{composition.CITED_PORTIONS_PART}'"))
        init_db(seed_dir=seed)
        stilton = service.lookup("Cheese, Stilton, blue")
        assert (stilton["portion"]["serving"], stilton["portion"]["grams"]) == ("1 portion", 30.0)
        assert service.lookup("Emmentaler, vollfett")["portion"]["grams"] == 30.0
        assert service.lookup("Älplermagronen, zubereitet")["portion"]["grams"] > 0  # cited
        cheddar = service.lookup("Cheese, Cheddar, English")
        assert cheddar["portion"]["grams"] == 100.0  # the default already shown stays
        assert [s["name"] for s in cheddar["servings"]] == ["100 g", "1 portion"]
        init_db(seed_dir=seed)  # once: nothing added twice
        assert len(service.lookup("Cheese, Cheddar, English")["servings"]) == 2
        with get_engine().begin() as conn:
            source = conn.execute(select(Serving.source).join(Food).where(
                Food.source_code == "Cheese, Stilton, blue")).scalar_one()
        assert FDA in source and "cheese, all others: 30 g" in source
    finally:
        configure(None)
