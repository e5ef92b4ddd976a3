"""The GI table (db/seed/glycemic_index.csv, db/seed/sr28_glycemic_index.csv, db/glycemic.py):
every Table 1 value is the 2008 table's, every row cites its table and row, check-seed finds
a bad row, and a database seeded from an older table gets the current one."""

import csv
import re
import shutil
from pathlib import Path

import pytest
from db_support import write_seed
from sqlalchemy import delete, select, update

from db import glycemic, seed, service
from db.seed_audit import problems_in
from db.tables import GlycemicIndex, SeedVersion
from db.seed import SEED_DIR, SR28_GI_FILE
from db.session import configure, init_db, session_scope

# Atkinson, Foster-Powell, Brand-Miller, Diabetes Care 2008;31(12):2281-2283, Table 1 (GI of
# common foods, glucose = 100): the rows the seed uses, transcribed from the paper and checked
# against independent copies of the table (see db/seed/README.md).
TABLE_1 = {
    "White wheat bread": 75, "Whole wheat/whole meal bread": 74, "Corn tortilla": 46,
    "White rice, boiled": 73, "Brown rice, boiled": 68, "Barley": 28, "Sweet corn": 52,
    "Spaghetti, white": 49, "Spaghetti, whole meal": 48, "Rice noodles": 53, "Couscous": 65,
    "Cornflakes": 81, "Wheat flake biscuits": 69, "Porridge, rolled oats": 55,
    "Instant oat porridge": 79, "Apple, raw": 36, "Orange, raw": 43, "Banana, raw": 51,
    "Pineapple, raw": 59, "Mango, raw": 51, "Watermelon, raw": 76, "Dates, raw": 42,
    "Peaches, canned": 43, "Apple juice": 41, "Orange juice": 50, "Potato, boiled": 78,
    "Potato, instant mash": 87, "Potato, french fries": 63, "Carrots, boiled": 39,
    "Sweet potato, boiled": 63, "Pumpkin, boiled": 64, "Plantain/green banana": 55,
    "Taro, boiled": 53, "Vegetable soup": 48, "Milk, full fat": 39, "Milk, skim": 37,
    "Ice cream": 51, "Yogurt, fruit": 41, "Soy milk": 34, "Rice milk": 86, "Chickpeas": 28,
    "Kidney beans": 24, "Lentils": 32, "Soya beans": 16, "Chocolate": 40, "Popcorn": 65,
    "Potato crisps": 56, "Soft drink/soda": 59, "Fructose": 15, "Sucrose": 65, "Honey": 61,
}
CITATION = "Atkinson, Foster-Powell, Brand-Miller, Diabetes Care 2008;31(12):2281-2283, "
TABLE_1_ROW = re.compile(r"Table 1 \(GI of common foods, glucose = 100\): row '([^']+)', GI (\d+);")


def _all_rows() -> list[seed.SeedGlycemicIndex]:
    catalog, problems = seed.read_sr28_glycemic_index(SEED_DIR)
    assert problems == []
    return [*seed.read_seed(SEED_DIR).glycemic_index, *catalog]


def test_every_gi_cites_its_table_and_row_and_table_1_values_are_the_papers():
    rows = _all_rows()
    cited = set()
    for row in rows:
        assert row.gi_source.startswith(CITATION), row.food
        found = TABLE_1_ROW.search(row.gi_source)
        if found is None:  # a Table A1 row: named with the table's own description
            assert "Table A1" in row.gi_source, row.food
            continue
        name, value = found[1], int(found[2])
        assert TABLE_1[name] == value == row.gi, (row.food, name)
        cited.add(name)
    # Coverage: the staples of Table 1 that map onto SR Legacy rows or curated foods.
    assert len(cited) == len(TABLE_1)
    assert len(rows) >= 120


@pytest.mark.parametrize("key, row", [
    ("18069", "White wheat bread"), ("08020", "Cornflakes"), ("09003", "Apple, raw"),
    ("Banana", "Banana, raw"), ("20045", "White rice, boiled"), ("20121", "Spaghetti, white"),
    ("11367", "Potato, boiled"), ("01077", "Milk, full fat"),
])
def test_staples_against_the_2008_table(key, row):
    [entry] = [r for r in _all_rows() if r.food == key]
    assert entry.gi == TABLE_1[row]
    assert f"row '{row}', GI {TABLE_1[row]};" in entry.gi_source


def _seed_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "seed"
    shutil.copytree(SEED_DIR, folder)
    return folder


def test_check_seed_reports_a_bad_catalog_gi_row(tmp_path):
    folder = _seed_copy(tmp_path)
    path = folder / SR28_GI_FILE
    apple = next(number for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if line.startswith("09003,"))
    with path.open("a", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["99999", "50", "glucose", CITATION + "Table A1 #1: nothing"])
        writer.writerow(["09040", "51", "glucose", CITATION + "Table A1 #1: banana again"])
        writer.writerow(["09003", "36", "glucose", CITATION + "Table A1 #1: apple again"])
        writer.writerow(["09005", "36", "bread", CITATION + "Table A1 #1: bread-referenced"])
    problems, _summary = problems_in(folder)
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert problems == [
        f"{path}:{lines - 1}: NDB 09003 already has a GI (line {apple})",
        f"{path}:{lines}: reference 'bread': only glucose-referenced (glucose = 100) values "
        "are stored; convert bread-referenced ones",
        f"{path}:{lines - 3}: NDB 99999 is not in the catalog",
        f"{path}:{lines - 2}: NDB 09040 is the curated food 'Banana', whose GI is in "
        "glycemic_index.csv",
    ]


def test_a_database_seeded_from_an_older_table_gets_this_one(tmp_path):
    """A database whose GI rows came from an older table (Banana 62, no GI for an apple)
    gets the current values once, on its next start; own foods keep theirs."""
    configure(f"sqlite:///{tmp_path / 'foodtag.db'}")
    try:
        init_db(seed_dir=write_seed(tmp_path / "seed"))
        with session_scope() as session:
            session.execute(update(GlycemicIndex).values(gi=62))
            session.execute(delete(SeedVersion).where(SeedVersion.part == glycemic.PART))
        assert service.lookup("banana")["glycemic_index"]["value"] == 62
        init_db(seed_dir=tmp_path / "seed")
        assert service.lookup("banana")["glycemic_index"]["value"] == 51
        assert service.lookup("pizza")["glycemic_index"]["value"] == 60
        with session_scope(write=False) as session:
            assert session.scalar(select(SeedVersion.foods).where(
                SeedVersion.part == glycemic.PART)) == 2
    finally:
        configure(None)
