"""Seed data: the loader's strict checks (on small in-test CSVs) and the shipped seed itself
(db/seed/*.csv; these tests fail, not skip, while the merged files are missing)."""

from pathlib import Path

import pytest
from db_support import FOODS_CSV, GI_CSV, SERVINGS_CSV, write_seed

from db import composites, nutrition
from db.errors import SeedError
from db.seed import SEED_DIR, read_seed, seed_problems
from models.labels import ALL_SHIPPED_LABELS

FOODS_HEADER = FOODS_CSV.splitlines()[0]
BANANA_ROW = FOODS_CSV.splitlines()[1]


def test_small_seed_reads(tmp_path):
    data = read_seed(write_seed(tmp_path))
    assert [f.name for f in data.foods] == ["Banana", "Red wine", "Espresso", "Cheese pizza",
                                            "Crème brûlée"]
    banana = data.foods[0]
    assert banana.labels == ("banana",) and banana.aliases == ("Bananas", "Cavendish banana")
    assert banana.source_code == "09040"  # leading zero of the NDB number kept
    assert data.foods[4].nutrients["fiber_g"] is None  # empty cell = USDA has no value
    assert sum(s.is_default for s in data.servings) == 5


def _expect(tmp_path: Path, message: str, file: str = "foods.csv", line: int | None = None,
            **csv_text: str) -> None:
    folder = write_seed(tmp_path, **csv_text)
    with pytest.raises(SeedError) as caught:
        read_seed(folder)
    text = str(caught.value)
    where = f"{folder / file}:{line}:" if line is not None else f"{folder / file}"
    assert text.startswith(where), text
    assert message in text, text
    assert "\n" not in text


def test_unknown_column(tmp_path):
    lines = FOODS_CSV.splitlines()
    foods = "".join(f"{line}\n" for line in [lines[0] + ",calories", *(r + "," for r in lines[1:])])
    _expect(tmp_path, "unknown columns ['calories']", line=1, foods=foods)


def test_missing_column(tmp_path):
    _expect(tmp_path, "missing columns ['sodium_mg']", line=1,
            foods=FOODS_CSV.replace(",sodium_mg", ""))


def test_missing_source_description(tmp_path):
    _expect(tmp_path, "fdc_description is empty", line=2,
            foods=FOODS_CSV.replace('"Bananas, raw"', ""))


def test_source_needs_fdc_id_or_code(tmp_path):
    _expect(tmp_path, "fdc_id and source_code are both empty", line=2,
            foods=FOODS_CSV.replace("173944,09040", ","))
    # Either one alone identifies the USDA entry.
    only_code = read_seed(write_seed(tmp_path / "code", foods=FOODS_CSV.replace("173944", "")))
    assert (only_code.foods[0].fdc_id, only_code.foods[0].source_code) == (None, "09040")
    only_id = read_seed(write_seed(tmp_path / "id", foods=FOODS_CSV.replace(",09040,", ",,")))
    assert (only_id.foods[0].fdc_id, only_id.foods[0].source_code) == (173944, None)


def test_unknown_dataset(tmp_path):
    _expect(tmp_path, "fdc_dataset 'SR Legacyy'", line=2,
            foods=FOODS_CSV.replace("SR Legacy", "SR Legacyy", 1))


def test_duplicate_label(tmp_path):
    _expect(tmp_path, "label 'banana' is already used by 'Banana' (line 2)", line=4,
            foods=FOODS_CSV.replace("Espresso,espresso", "Espresso,espresso;banana"))


def test_label_not_in_label_space(tmp_path):
    _expect(tmp_path, "'bananna' is not a label in models/labels.py", line=2,
            foods=FOODS_CSV.replace("Banana,banana", "Banana,bananna"))


def test_alias_of_two_foods(tmp_path):
    _expect(tmp_path, "'pizza' is already a name or alias of 'Cheese pizza'", line=7,
            foods=FOODS_CSV + BANANA_ROW.replace("Banana,banana,Bananas;Cavendish banana",
                                                 "Pizza slice,,pizza"))


@pytest.mark.parametrize("bad, message", [
    ("22,84", "cells, the header has"),     # decimal comma splits the row
    ("abc", "carbohydrate_g 'abc' is not a number"),
    ("-1", "carbohydrate_g '-1' is outside"),
    ("nan", "carbohydrate_g 'nan' is outside"),
    ("150", "carbohydrate_g '150' is outside"),
])
def test_bad_numbers(tmp_path, bad, message):
    _expect(tmp_path, message, line=2, foods=FOODS_CSV.replace(",22.84,", f",{bad},"))


def test_energy_needs_a_note(tmp_path):
    _expect(tmp_path, "more than 15% off", line=3,
            foods=FOODS_CSV.replace("Alcohol (10.6 g per 100 g at 7 kcal/g) supplies most of "
                                    "the energy", ""))


def test_serving_for_unknown_food(tmp_path):
    _expect(tmp_path, "food 'banana' is not a name in foods.csv (did you mean 'Banana'?)",
            file="servings.csv", line=9,
            servings=SERVINGS_CSV + "banana,1 small,101,false,SR Legacy\n")


def test_two_default_servings(tmp_path):
    _expect(tmp_path, "'Banana' (foods.csv line 2) needs exactly one default serving; found 2",
            file="servings.csv",
            servings=SERVINGS_CSV.replace("1 cup sliced,150,false", "1 cup sliced,150,true"))


def test_food_without_servings(tmp_path):
    _expect(tmp_path, "'Espresso' (foods.csv line 4) needs exactly one default serving; found 0",
            file="servings.csv",
            servings="".join(l + "\n" for l in SERVINGS_CSV.splitlines() if "Espresso" not in l))


def test_bad_serving_grams(tmp_path):
    _expect(tmp_path, "grams must be more than 0",
            file="servings.csv", line=3,
            servings=SERVINGS_CSV.replace("1 cup sliced,150", "1 cup sliced,0"))


def test_gi_needs_source_and_glucose_reference(tmp_path):
    _expect(tmp_path, "gi_source is empty", file="glycemic_index.csv", line=2,
            gi=GI_CSV.replace('"Atkinson 2008 Table A1: Banana, raw"', ""))
    _expect(tmp_path, "only glucose-referenced", file="glycemic_index.csv", line=3,
            gi=GI_CSV.replace("60,glucose", "60,bread"))
    _expect(tmp_path, "gi '51.5' is not a whole number", file="glycemic_index.csv", line=2,
            gi=GI_CSV.replace("51,", "51.5,"))
    _expect(tmp_path, "'Banana' already has a GI (line 2)", file="glycemic_index.csv", line=4,
            gi=GI_CSV + "Banana,52,glucose,duplicate\n")


def test_every_problem_is_listed_once(tmp_path):
    foods = (FOODS_CSV.replace("173944", "x")              # line 2: Banana rejected
             .replace("Espresso,espresso", "Espresso,expresso"))  # line 4: unknown label
    folder = write_seed(tmp_path, foods=foods,
                        gi=GI_CSV.replace("60,glucose", "600,glucose"))  # line 3
    data, problems = seed_problems(folder)
    assert [p.split(": ", 1)[0] for p in problems] == [
        f"{folder / 'foods.csv'}:2", f"{folder / 'foods.csv'}:4",
        f"{folder / 'glycemic_index.csv'}:3"]  # Banana's servings and GI are not re-reported
    assert [f.name for f in data.foods] == ["Red wine", "Cheese pizza", "Crème brûlée"]
    with pytest.raises(SeedError, match=r"foods\.csv:2: fdc_id 'x' .*\(and 2 more: python -m db"):
        read_seed(folder)


def test_missing_file(tmp_path):
    folder = write_seed(tmp_path)
    (folder / "servings.csv").unlink()
    with pytest.raises(SeedError, match=r"servings\.csv: missing"):
        read_seed(folder)


# --- the shipped seed ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def shipped():
    """db/seed/*.csv, checked by the loader (a failure here names file and line)."""
    return read_seed(SEED_DIR)


def test_shipped_seed_files_exist():
    for name in ("foods.csv", "servings.csv", "glycemic_index.csv"):
        assert (SEED_DIR / name).is_file(), f"{SEED_DIR / name} is missing: merge db/seed/parts"


def test_every_shipped_label_has_a_food(shipped):
    curated = [label for food in shipped.foods for label in food.labels]
    # Sandwiches with their bread are composites of USDA rows (db/seed/composites.csv).
    composite = [label for found in composites.labels(SEED_DIR).values() for label in found]
    assert not set(curated) & set(composite), "a label belongs to two foods"
    missing = sorted(set(ALL_SHIPPED_LABELS) - set(curated) - set(composite))
    assert not missing, f"labels without a food: {missing}"


def test_every_food_has_source_id_and_description(shipped):
    for food in shipped.foods:
        assert food.fdc_id or food.source_code, f"{food.name}: no FDC ID and no NDB/FNDDS code"
        assert food.fdc_description.strip(), food.name
        assert food.fdc_dataset in ("SR Legacy", "FNDDS", "Foundation"), food.name


def test_energy_is_consistent_or_explained(shipped):
    bad = []
    for food in shipped.foods:
        n = food.nutrients
        if food.energy_note:
            continue
        if not nutrition.energy_consistent(n["kcal"], n["carbohydrate_g"], n["protein_g"],
                                           n["fat_g"]):
            estimate = nutrition.energy_estimate(n["carbohydrate_g"], n["protein_g"], n["fat_g"])
            bad.append(f"{food.name} (line {food.line}): kcal {n['kcal']} vs {estimate:.0f}")
    assert not bad, bad


def test_gi_rows_have_a_published_source(shipped):
    for row in shipped.glycemic_index:
        assert row.gi_source.strip() and row.reference == "glucose", row.food
        assert 0 <= row.gi <= 150


def test_every_label_resolves_in_a_database(shipped, tmp_path):
    """The real seed loads through init_db and each model label looks up to its food."""
    from db import service
    from db.session import configure, init_db

    configure(f"sqlite:///{tmp_path / 'real.db'}")
    try:
        init_db()
        for label in ALL_SHIPPED_LABELS:
            card = service.lookup(label)
            assert card["portion"]["grams"] > 0, label
            assert card["source"]["description"], label
    finally:
        configure(None)
