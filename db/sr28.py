"""USDA SR Legacy (SR28): read the official release files and write/read the compact seed.

The release (``FOOD_DES.txt``, ``ABBREV.txt``, ``WEIGHT.txt``, ``FD_GROUP.txt``; fields split
by ``^``, text wrapped in ``~``, Latin-1) is turned by ``python -m db build-sr28 DIR`` into two
gzip'd CSV files shipped inside the package, so a fresh install has every food without the
release files:

- ``db/seed/sr28_foods.csv.gz``: one row per food: NDB number, food group, long description,
  common names, the FNDDS survey flag, the nutrients per 100 g that foodtag stores (copied from
  ABBREV.txt, empty where USDA has no value), and the food's own energy factors.
- ``db/seed/sr28_portions.csv.gz``: every household portion (WEIGHT.txt): NDB number, sequence,
  amount, measure, grams.

Nothing is computed here: every number is the release's text, copied.
"""

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from db import composition, datasets
from db.errors import SeedError
from db.nutrition import STORED_NUTRIENTS

FOODS_FILE = "sr28_foods.csv.gz"
PORTIONS_FILE = "sr28_portions.csv.gz"
DATASET_NAME = datasets.SR_LEGACY.name

# ABBREV.txt column (0-based) of each stored nutrient; order per the SR28 documentation.
_ABBREV_COLUMNS: dict[str, int] = {
    "kcal": 3, "protein_g": 4, "fat_g": 5, "carbohydrate_g": 7, "fiber_g": 8, "sugars_g": 9,
    "sodium_mg": 15, "saturated_fat_g": 44,
}
_ABBREV_WIDTH = 53
# FOOD_DES.txt columns.
_DES_NDB, _DES_GROUP, _DES_LONG, _DES_COMMON, _DES_SURVEY = 0, 1, 2, 4, 6
_DES_FACTORS = (11, 12, 13)  # protein, fat, carbohydrate kcal/g
_DES_WIDTH = 14

FOOD_COLUMNS: tuple[str, ...] = (
    "ndb", "food_group", "description", "common_names", "survey", *STORED_NUTRIENTS,
    "protein_factor", "fat_factor", "carbohydrate_factor",
)
PORTION_COLUMNS: tuple[str, ...] = ("ndb", "seq", "amount", "measure", "grams")


@dataclass(frozen=True)
class SrFood:
    ndb: str
    food_group: str
    description: str
    common_names: str
    survey: bool  # USDA marks foods used in the FNDDS / NHANES dietary survey: everyday foods
    nutrients: dict[str, float | None]
    energy_factors: tuple[float, float, float] | None  # protein, fat, carbohydrate kcal/g


@dataclass(frozen=True)
class SrPortion:
    ndb: str
    seq: int
    amount: float
    measure: str
    grams: float

    @property
    def name(self) -> str:
        return f"{self.amount:g} {self.measure}"


# --- the official release --------------------------------------------------------------

def _release_rows(path: Path, width: int) -> Iterator[list[str]]:
    if not path.is_file():
        raise SeedError(f"{path}: missing (expected the SR28 ASCII release files)")
    with path.open(encoding="latin-1", newline="") as handle:
        for number, line in enumerate(handle, 1):
            line = line.rstrip("\r\n")
            if not line:
                continue
            cells = [c[1:-1] if len(c) >= 2 and c[0] == c[-1] == "~" else c
                     for c in line.split("^")]
            if len(cells) != width:
                raise SeedError(f"{path}:{number}: {len(cells)} fields, expected {width}")
            yield cells


def _number(text: str, where: str) -> float | None:
    if text == "":
        return None
    try:
        return float(text)
    except ValueError:
        raise SeedError(f"{where}: {text!r} is not a number") from None


def read_release(folder: Path) -> tuple[list[SrFood], list[SrPortion]]:
    """Every food of FOOD_DES.txt with its ABBREV.txt nutrients, and every WEIGHT.txt portion.

    A food in FOOD_DES without ABBREV values is an error; ABBREV rows without a FOOD_DES entry
    (the release has one) are left out, as they have no description or group.
    """
    folder = Path(folder)
    groups = {cells[0]: cells[1] for cells in _release_rows(folder / "FD_GROUP.txt", 2)}
    abbrev = {cells[0]: cells for cells in _release_rows(folder / "ABBREV.txt", _ABBREV_WIDTH)}
    foods: list[SrFood] = []
    for cells in _release_rows(folder / "FOOD_DES.txt", _DES_WIDTH):
        ndb = cells[_DES_NDB]
        where = f"{folder / 'FOOD_DES.txt'}: NDB {ndb}"
        if ndb not in abbrev:
            raise SeedError(f"{where}: no nutrient row in ABBREV.txt")
        if cells[_DES_GROUP] not in groups:
            raise SeedError(f"{where}: unknown food group {cells[_DES_GROUP]!r}")
        values = abbrev[ndb]
        factors = tuple(_number(cells[i], where) for i in _DES_FACTORS)
        foods.append(SrFood(
            ndb=ndb,
            food_group=groups[cells[_DES_GROUP]],
            description=cells[_DES_LONG],
            common_names=cells[_DES_COMMON],
            survey=cells[_DES_SURVEY] == "Y",
            nutrients={name: _number(values[col], f"ABBREV.txt NDB {ndb} {name}")
                       for name, col in _ABBREV_COLUMNS.items()},
            energy_factors=None if None in factors else factors,  # type: ignore[arg-type]
        ))
    known = {food.ndb for food in foods}
    portions = []
    for cells in _release_rows(folder / "WEIGHT.txt", 7):
        where = f"WEIGHT.txt NDB {cells[0]} seq {cells[1]}"
        if cells[0] not in known:
            raise SeedError(f"{where}: no such food in FOOD_DES.txt")
        amount, grams = _number(cells[2], where), _number(cells[4], where)
        if amount is None or grams is None or grams <= 0 or amount <= 0:
            raise SeedError(f"{where}: amount {cells[2]!r} / grams {cells[4]!r} not positive")
        portions.append(SrPortion(cells[0], int(cells[1]), amount, cells[3], grams))
    return foods, portions


# --- the compact seed ------------------------------------------------------------------

def _text(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def write_compact(foods: list[SrFood], portions: list[SrPortion], out_dir: Path) -> None:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    composition.write_gzip_csv(out_dir / FOODS_FILE, FOOD_COLUMNS, (
        [f.ndb, f.food_group, f.description, f.common_names, "Y" if f.survey else "",
         *(_text(f.nutrients[n]) for n in STORED_NUTRIENTS),
         *(_text(x) for x in (f.energy_factors or (None, None, None)))]
        for f in foods
    ))
    composition.write_gzip_csv(out_dir / PORTIONS_FILE, PORTION_COLUMNS, (
        [p.ndb, str(p.seq), _text(p.amount), p.measure, _text(p.grams)] for p in portions
    ))


def has_compact(seed_dir: Path) -> bool:
    return (Path(seed_dir) / FOODS_FILE).is_file()


def read_compact(seed_dir: Path) -> tuple[list[SrFood], list[SrPortion]]:
    """The foods and portions of the compact seed in ``seed_dir``."""
    folder = Path(seed_dir)
    foods = []
    for line, row in composition.read_gzip_csv(folder / FOODS_FILE, FOOD_COLUMNS, "build-sr28"):
        where = f"{folder / FOODS_FILE}:{line}"
        factors = tuple(_number(row[k], where) for k in FOOD_COLUMNS[-3:])
        foods.append(SrFood(
            ndb=row["ndb"], food_group=row["food_group"], description=row["description"],
            common_names=row["common_names"], survey=row["survey"] == "Y",
            nutrients={n: _number(row[n], where) for n in STORED_NUTRIENTS},
            energy_factors=None if None in factors else factors,  # type: ignore[arg-type]
        ))
    portions = []
    for line, row in composition.read_gzip_csv(folder / PORTIONS_FILE, PORTION_COLUMNS,
                                           "build-sr28"):
        where = f"{folder / PORTIONS_FILE}:{line}"
        amount, grams = _number(row["amount"], where), _number(row["grams"], where)
        if amount is None or grams is None or grams <= 0:
            raise SeedError(f"{where}: grams {row['grams']!r} is not a positive number")
        portions.append(SrPortion(row["ndb"], int(row["seq"]), amount, row["measure"], grams))
    return foods, portions
