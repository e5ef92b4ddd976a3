"""The UK foods from CoFID: the shipped rows are what build-cofid makes of the source table
(skipped without it), their carbohydrate follows the USDA convention, and they load."""

import csv
from pathlib import Path

import pytest
from db_support import db_url, full_db, full_db_url  # noqa: F401 (fixtures)

from db import cofid, service
from db.errors import SeedError
from db.seed import SEED_DIR

REPO = Path(__file__).resolve().parents[1]
# ../shared from a checkout, ../../shared from a worktree.
SOURCE = next((folder / "shared" / "data" / "cofid-2015" / "Nutritions.csv"
               for folder in REPO.parents[:2]
               if (folder / "shared" / "data" / "cofid-2015" / "Nutritions.csv").is_file()),
              None)


@pytest.mark.skipif(SOURCE is None, reason="CoFID source table not present")
def test_shipped_rows_are_exactly_what_build_cofid_writes(tmp_path):
    assert cofid.build(SOURCE, tmp_path) == len(cofid.PICKS)
    assert (tmp_path / cofid.FOODS_FILE).read_bytes() == (SEED_DIR / cofid.FOODS_FILE).read_bytes()


def test_carbohydrate_is_cofids_available_carbohydrate_plus_aoac_fibre():
    crumpet = next(f for f in cofid.read(SEED_DIR) if f.code == "11-989")
    # CoFID 2015 11-989 "Crumpets, toasted": carbohydrate 45.4 g (available), AOAC fibre 3.1 g.
    assert crumpet.nutrients["carbohydrate_g"] == 48.5 and crumpet.nutrients["fiber_g"] == 3.1
    quark = next(f for f in cofid.read(SEED_DIR) if f.code == "12-174")
    # No AOAC fibre value for quark: no fibre, carbohydrate as CoFID states it ("Tr" fat is 0).
    assert quark.nutrients["fiber_g"] is None and quark.nutrients["carbohydrate_g"] == 4.0
    assert quark.nutrients["fat_g"] == 0.0


def test_bad_rows_are_refused(tmp_path):
    rows = list(csv.DictReader((SEED_DIR / cofid.FOODS_FILE).open(encoding="utf-8")))
    rows[0]["kcal"] = "lots"
    with (tmp_path / cofid.FOODS_FILE).open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=cofid.COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    with pytest.raises(SeedError, match=r"cofid_foods.csv:2 kcal: 'lots' is not a number"):
        cofid.read(tmp_path)


def test_cofid_foods_load_with_their_source(full_db):
    card = service.lookup("crumpet")
    assert card["food"] == "Crumpets, toasted"
    assert card["source"] == {"dataset": "CoFID", "fdc_id": None, "code": "11-989",
                              "description": "Crumpets, toasted", "proxy_note": None}
    assert card["portion"]["grams"] == 100.0
    assert card["portion"]["available_carbohydrate_g"] == 45.4
    assert "less sugar since 2017" in service.lookup("lucozade")["source"]["proxy_note"]



def _seed_with_cofid(folder: Path, edit) -> Path:
    """A small seed (db_support) with the shipped CoFID rows, ``edit`` applied to their list."""
    from db_support import write_seed

    seed = write_seed(folder)
    rows = list(csv.DictReader((SEED_DIR / cofid.FOODS_FILE).open(encoding="utf-8")))
    edit(rows)
    with (seed / cofid.FOODS_FILE).open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=cofid.COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return seed


def test_check_seed_checks_the_cofid_rows(tmp_path):
    from db.checkseed import problems_in

    problems, summary = problems_in(_seed_with_cofid(tmp_path / "ok", lambda rows: None))
    assert problems == [] and f"CoFID: {len(cofid.PICKS)} foods" in summary

    def bad(rows):
        rows[0]["category"] = "Spices and Herbs"  # whose portions are 0.1-15 g
        rows[1]["code"] = "11-9999"  # a code build-cofid never writes
        rows[2]["code"] = rows[3]["code"]  # one CoFID food twice

    seed = _seed_with_cofid(tmp_path / "bad", bad)
    path = seed / cofid.FOODS_FILE
    problems, _summary = problems_in(seed)
    assert problems == [
        f"{path}: CoFID 11-9999 ('Biscuits, digestive, plain') is not one of db.cofid.PICKS: "
        "every row must come from build-cofid",
        f"{path}: CoFID 11-803 is listed twice",
        f"{path} CoFID 11-989: default serving '100 g' (100 g) of 'Crumpets, toasted': 100 g "
        "is not one plausible portion for 'Spices and Herbs' (0.1-15 g); pick another or "
        "explain it in serving_exceptions.csv",
    ]


def test_check_seed_reports_a_cofid_row_without_its_code(tmp_path):
    from db.checkseed import problems_in

    def no_code(rows):
        rows[4]["code"] = "semi-sweet"

    seed = _seed_with_cofid(tmp_path, no_code)
    problems, _summary = problems_in(seed)
    assert problems == [f"{seed / cofid.FOODS_FILE}:6: code 'semi-sweet' is not a CoFID food "
                        "code (such as 11-989): each row names the CoFID food it copies"]


def test_loading_a_seed_part_refreshes_the_cached_catalog_words(db_url):
    """The typo-correction words are cached per catalog version (db.fts.catalog_version): the
    seed part that brings new public foods changes it, so "crumpts" finds crumpets at once."""
    from db import fts
    from db.models import SeedVersion
    from db.session import session_scope

    with session_scope(write=False) as session:
        before = fts.catalog_version(session)
        assert "crumpets" not in fts.vocabulary(session)  # the small seed has no CoFID foods
    with session_scope() as session:
        session.add(SeedVersion(part="cofid", foods=cofid.load(session, SEED_DIR)))
        fts.reindex(session)  # as db.session's seed loader does
    with session_scope(write=False) as session:
        assert fts.catalog_version(session) != before
        assert "crumpets" in fts.vocabulary(session)
    assert service.search("crumpts")[0]["food"] == "Crumpets, toasted"
