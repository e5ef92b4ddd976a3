"""python -m db: lookup (text and --json), search, export-log, init; errors are one line on
stderr with exit status 2."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from db_support import (  # noqa: F401  (fixtures)
    alice, db_url)

from db import service
from db.__main__ import main
from db.nutrition import NUTRIENTS

REPO = Path(__file__).resolve().parents[1]


def test_lookup_json_shape(db_url, capsys):
    assert main(["lookup", "pizza", "--grams", "150", "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1  # one JSON object on one line
    card = json.loads(out)
    assert set(card) == {"food", "food_id", "category", "source", "per_100g", "portion",
                         "servings", "glycemic_index", "glycemic_load", "exchanges"}
    assert set(card["source"]) == {"dataset", "fdc_id", "code", "description", "proxy_note",
                                   "citation", "attribution"}
    assert set(card["portion"]) == {"grams", "serving", *NUTRIENTS}
    assert set(card["per_100g"]) == set(NUTRIENTS)
    assert set(card["glycemic_load"]) == {"value", "band"}
    assert set(card["exchanges"]) == {"unit_g", "value", "as_taught", "unit", "basis"}
    assert all(set(s) == {"name", "grams", "default"} for s in card["servings"])
    assert card["food"] == "Cheese pizza" and card["portion"]["grams"] == 150.0


def test_lookup_text_multiword_name_and_units(db_url, capsys):
    assert main(["lookup", "red", "wine", "--serving", "1 glass (5 fl oz)", "--unit", "12"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Red wine [Beverage], 1 glass (5 fl oz) (147 g)")
    assert "x BE (Broteinheit) (12 g" in out and "GI: not in our GI table" in out and "FDC ID 173190, NDB 14096" in out


@pytest.mark.parametrize("argv, message", [
    (["lookup", "unobtainium"], "error: unknown food 'unobtainium'"),
    (["lookup", "banana", "--grams", "-5"], "error: grams must be from 1 to 5000"),
    (["lookup", "banana", "--grams", "99999"], "error: grams must be from 1 to 5000"),
    # The list, refused as the UI, the API and the batch tool refuse them (db.validate).
    *((["lookup", "banana", "--grams", bad], "error: grams must be")
      for bad in ("5e-324", "-1", "nan", "inf", "1e308", "abc")),
    (["lookup", "banana", "--serving", "1 crate"], "error: Banana has no serving '1 crate'"),
    (["search", "banana", "--limit", "0"], "error: limit must be"),
    (["export-log", "--user", "ghost", "--out", "x.csv"], "error: no user 'ghost'"),
])
def test_errors_are_one_line(db_url, capsys, argv, message):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(message) and captured.err.count("\n") == 1, captured.err
    assert "Traceback" not in captured.err and captured.out == ""


def test_grams_and_serving_together_is_a_usage_error(db_url, capsys):
    with pytest.raises(SystemExit) as caught:
        main(["lookup", "banana", "--grams", "10", "--serving", "1 cup sliced"])
    assert caught.value.code == 2


def test_search_and_init(db_url, capsys):
    assert main(["search", "piza"]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith(
        "Cheese pizza  (Dish)  1 slice (107 g): 35.3 g carbohydrate")
    assert main(["search", "zzzqqq"]) == 0
    assert capsys.readouterr().err == "no matches\n"
    assert main(["init"]) == 0
    out = capsys.readouterr().out
    assert out == f"database ready: {db_url} (5 foods)\n"


def test_check_seed(tmp_path, capsys):
    from db_support import FOODS_CSV, write_seed

    assert main(["check-seed", str(write_seed(tmp_path / "ok"))]) == 0
    # Banana 27.0 g, red wine 3.8 g, espresso 0.5 g, pizza 35.3 g, creme brulee 26.4 g.
    assert capsys.readouterr().out == (
        "seed ok: 5 foods, 7 servings, 2 GI values; 5 default servings checked, 0 exceptions; "
        "carbohydrate per default serving: 0-5 g: 2, 5-15 g: 0, 15-30 g: 2, 30-45 g: 1, "
        "45-60 g: 0, 60-90 g: 0, over 90 g: 0, unknown: 0\n")
    bad = write_seed(tmp_path / "bad", foods=FOODS_CSV.replace("173944", "x"))
    assert main(["check-seed", str(bad)]) == 2
    captured = capsys.readouterr()
    assert captured.out.startswith(f"{bad / 'foods.csv'}:2: fdc_id 'x'")
    assert captured.err == "error: 1 problem in the seed\n"


def test_check_seed_flags_implausible_default_servings(tmp_path, capsys):
    from db_support import SERVINGS_CSV, write_seed

    # A whole bunch of bananas (1.2 kg) as the default: not one person's portion.
    seed = write_seed(tmp_path / "seed", servings=SERVINGS_CSV.replace(
        '"1 medium (7"" to 7-7/8"" long)",118,true', '1 bunch,1200,true'))
    assert main(["check-seed", str(seed)]) == 2
    out = capsys.readouterr().out
    assert out.startswith(f"{seed / 'servings.csv'}:2: default serving '1 bunch' (1200 g) of "
                          "'Banana': 1200 g is not one plausible portion for 'Fruit' (10-600 g); "
                          "1068 kcal is more than one portion (800 kcal); 274 g carbohydrate is "
                          "more than one portion (90 g); pick another or explain it in "
                          "serving_exceptions.csv\n")
    (seed / "serving_exceptions.csv").write_text(
        "food,serving,reason\nBanana,1 bunch,test: a written exception silences the check\n",
        encoding="utf-8")
    assert main(["check-seed", str(seed)]) == 0
    assert "1 exceptions" in capsys.readouterr().out


def test_shipped_seed_passes_check_seed(capsys):
    """Curated rows, the SR Legacy catalog and every default serving (about 8,900)."""
    assert main(["check-seed"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("seed ok: ") and "SR Legacy catalog: 8789 foods" in out
    # How many defaults hold how much carbohydrate: every checked default in one band.
    checked = int(re.search(r"(\d+) default servings checked", out)[1])
    bands = re.search(r"carbohydrate per default serving: (.*)$", out, re.M)[1]
    counts = dict(re.findall(r"([^,:]+): (\d+)", bands))
    assert list(counts) == ["0-5 g", " 5-15 g", " 15-30 g", " 30-45 g", " 45-60 g", " 60-90 g",
                            " over 90 g", " unknown"]
    assert sum(map(int, counts.values())) == checked


def test_export_log(alice, tmp_path, capsys):
    service.log_meal(alice, "banana")
    out = tmp_path / "alice.csv"
    assert main(["export-log", "--user", alice, "--out", str(out)]) == 0
    assert capsys.readouterr().out.strip() == f"wrote 1 entries to {out}"
    assert out.read_text(encoding="utf-8").count("\n") == 2
    unwritable = tmp_path / "no" / "such" / "dir.csv"
    assert main(["export-log", "--user", alice, "--out", str(unwritable)]) == 2
    assert capsys.readouterr().err.startswith("error: cannot write")


def test_python_dash_m_db(db_url):
    env = {**os.environ, "FOODTAG_DB_URL": db_url}
    ok = subprocess.run([sys.executable, "-m", "db", "lookup", "banana", "--json"], cwd=REPO,
                        env=env, capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["food"] == "Banana"
    bad = subprocess.run([sys.executable, "-m", "db", "lookup", "nothing-like-it"], cwd=REPO,
                         env=env, capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and bad.stderr.startswith("error: unknown food")
    assert bad.stderr.count("\n") == 1
