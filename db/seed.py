"""Seed data: read and strictly check db/seed/{foods,servings,glycemic_index}.csv, then load
them into an empty database.

The format is described in db/seed/README.md. Every problem is
reported as ``SeedError("<file>:<line>: <what is wrong>")`` before anything is written, so a
bad seed never leaves a half-filled food table.
"""

import csv
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from db import search
from db.errors import SeedError
from db.keys import name_key
from db.tables import FDC_DATASETS, Food, FoodAlias, FoodLabel, Serving
from db.nutrition import REQUIRED_NUTRIENTS, STORED_NUTRIENTS, energy_consistent, energy_estimate
from db.validate import MAX_PORTION_G
from models.labels import ALL_SHIPPED_LABELS

SEED_DIR = Path(__file__).resolve().with_name("seed")

FOODS_COLUMNS: tuple[str, ...] = (
    "name", "labels", "aliases", "category", "fdc_dataset", "fdc_id", "source_code",
    "fdc_description", "proxy_note", *STORED_NUTRIENTS, "energy_note",
)
SERVINGS_COLUMNS: tuple[str, ...] = ("food", "serving", "grams", "is_default", "source")
GI_COLUMNS: tuple[str, ...] = ("food", "gi", "reference", "gi_source")
# GI of SR Legacy catalog foods, by NDB number (db/glycemic.py loads both GI files).
SR28_GI_FILE = "sr28_glycemic_index.csv"
SR28_GI_COLUMNS: tuple[str, ...] = ("ndb", "gi", "reference", "gi_source")

# Largest plausible value per 100 g (pure fat is ~900 kcal; table salt ~38,800 mg sodium).
_NUTRIENT_MAX = {name: 100.0 for name in STORED_NUTRIENTS} | {"kcal": 1000.0, "sodium_mg": 40000.0}
_LABEL_RE = re.compile(r"^[a-z0-9]+(?:_[a-z0-9]+)*$")
_CODE_RE = re.compile(r"^\d{1,10}$")  # SR Legacy NDB number (leading zeros kept) or FNDDS code
_BOOLEANS = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}


@dataclass(frozen=True)
class SeedFood:
    line: int
    name: str
    labels: tuple[str, ...]
    aliases: tuple[str, ...]
    category: str
    fdc_dataset: str
    fdc_id: int | None
    source_code: str | None
    fdc_description: str
    proxy_note: str | None
    nutrients: dict[str, float | None]
    energy_note: str | None


@dataclass(frozen=True)
class SeedServing:
    line: int
    food: str
    serving: str
    grams: float
    is_default: bool
    source: str


@dataclass(frozen=True)
class SeedGlycemicIndex:
    line: int
    food: str
    gi: int
    reference: str
    gi_source: str


@dataclass(frozen=True)
class SeedData:
    foods: tuple[SeedFood, ...]
    servings: tuple[SeedServing, ...]
    glycemic_index: tuple[SeedGlycemicIndex, ...]


class _Cell:
    """Reads one row's cells, raising SeedError with file and line on any bad value."""

    def __init__(self, path: Path, line: int, row: dict[str, str]) -> None:
        self.path, self.line, self.row = path, line, row

    def fail(self, message: str) -> SeedError:
        return SeedError(f"{self.path}:{self.line}: {message}")

    def text(self, column: str, *, max_len: int = 500) -> str:
        value = self.row[column]
        if not value:
            raise self.fail(f"{column} is empty")
        if len(value) > max_len:
            raise self.fail(f"{column} is longer than {max_len} characters")
        return value

    def optional(self, column: str) -> str | None:
        return self.row[column] or None

    def items(self, column: str) -> tuple[str, ...]:
        value = self.row[column]
        if not value:
            return ()
        items = tuple(item.strip() for item in value.split(";"))
        if any(not item for item in items):
            raise self.fail(f"{column} has an empty item in {value!r} (';' separates items)")
        return items

    def number(self, column: str, *, low: float, high: float, required: bool) -> float | None:
        value = self.row[column]
        if not value:
            if required:
                raise self.fail(f"{column} is empty")
            return None
        try:
            number = float(value)
        except ValueError:
            raise self.fail(f"{column} {value!r} is not a number") from None
        if not math.isfinite(number) or not low <= number <= high:
            raise self.fail(f"{column} {value!r} is outside {low:g}..{high:g}")
        return number

    def integer(self, column: str, *, low: int, high: int) -> int:
        value = self.row[column]
        if not value:
            raise self.fail(f"{column} is empty")
        if not re.fullmatch(r"\d+", value):
            raise self.fail(f"{column} {value!r} is not a whole number")
        number = int(value)
        if not low <= number <= high:
            raise self.fail(f"{column} {value!r} is outside {low}..{high}")
        return number


def _rows(path: Path, columns: tuple[str, ...], problems: list[str]) -> Iterator[_Cell]:
    """The file's data rows. A missing file or a bad header stops the read (SeedError);
    a row with the wrong number of cells is noted in ``problems`` and skipped."""
    if not path.is_file():
        raise SeedError(
            f"{path}: missing (the seed is foods.csv, servings.csv, glycemic_index.csv)"
        )
    try:
        with path.open(encoding="utf-8-sig", newline="") as handle:
            reader = csv.reader(handle, strict=True)
            header = [cell.strip() for cell in next(reader, [])]
            if not header:
                raise SeedError(f"{path}:1: empty file; expected the header {','.join(columns)}")
            unknown = [c for c in header if c not in columns]
            missing = [c for c in columns if c not in header]
            repeated = sorted({c for c in header if header.count(c) > 1})
            if unknown or missing or repeated:
                parts = [f"unknown columns {unknown}" if unknown else "",
                         f"missing columns {missing}" if missing else "",
                         f"repeated columns {repeated}" if repeated else ""]
                raise SeedError(f"{path}:1: " + "; ".join(p for p in parts if p))
            for cells in reader:
                if not any(cell.strip() for cell in cells):
                    continue  # blank line
                if len(cells) != len(header):
                    problems.append(f"{path}:{reader.line_num}: {len(cells)} cells, "
                                    f"the header has {len(header)}")
                    continue
                yield _Cell(path, reader.line_num, dict(zip(header, (c.strip() for c in cells))))
    except UnicodeDecodeError as exc:
        raise SeedError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except csv.Error as exc:
        raise SeedError(f"{path}: bad CSV ({exc})") from None


class _Names:
    """Which names and labels the checked food rows have claimed, and by which row."""

    def __init__(self) -> None:
        self.label_owner: dict[str, tuple[str, int]] = {}  # label -> (food, line)
        self.key_owner: dict[str, tuple[str, int]] = {}  # name/alias key -> (food, line)

    def claim(self, cell: _Cell, food: SeedFood, known_labels: frozenset[str]) -> None:
        """Check the food's labels, name and aliases against earlier rows, then record them
        (all or nothing, so a rejected row claims no names)."""
        for label in food.labels:
            if not _LABEL_RE.fullmatch(label):
                raise cell.fail(f"label {label!r} is not snake_case")
            if label not in known_labels:
                raise cell.fail(f"label {label!r} is not a label in models/labels.py")
            if label in self.label_owner:
                other, line = self.label_owner[label]
                raise cell.fail(f"label {label!r} is already used by {other!r} (line {line})")
        if len(set(food.labels)) != len(food.labels):
            raise cell.fail(f"labels {';'.join(food.labels)!r} repeat a label")
        own_keys: list[str] = []
        for kind, text in [("name", food.name), *(("alias", a) for a in food.aliases)]:
            key = name_key(text)
            if not key:
                raise cell.fail(f"{kind} {text!r} has no letters or digits")
            if key in own_keys:
                raise cell.fail(f"{kind} {text!r} repeats another name or alias of this food")
            if key in self.key_owner:
                other, line = self.key_owner[key]
                raise cell.fail(f"{kind} {text!r} is already a name or alias of {other!r} "
                                f"(line {line})")
            own_keys.append(key)
        for label in food.labels:
            self.label_owner[label] = (food.name, cell.line)
        for key in own_keys:
            self.key_owner[key] = (food.name, cell.line)


def _parse_food(cell: _Cell) -> SeedFood:
    food = SeedFood(
        line=cell.line,
        name=cell.text("name", max_len=120),
        labels=cell.items("labels"),
        aliases=cell.items("aliases"),
        category=cell.text("category", max_len=60),
        fdc_dataset=cell.text("fdc_dataset"),
        fdc_id=cell.integer("fdc_id", low=1, high=2**31 - 1) if cell.row["fdc_id"] else None,
        source_code=cell.optional("source_code"),
        fdc_description=cell.text("fdc_description", max_len=1000),
        proxy_note=cell.optional("proxy_note"),
        nutrients={
            n: cell.number(n, low=0.0, high=_NUTRIENT_MAX[n],
                           required=n in REQUIRED_NUTRIENTS)
            for n in STORED_NUTRIENTS
        },
        energy_note=cell.optional("energy_note"),
    )
    if food.fdc_id is None and food.source_code is None:
        raise cell.fail("fdc_id and source_code are both empty; the source needs an FDC ID "
                        "or the NDB number / FNDDS code")
    if food.fdc_dataset not in FDC_DATASETS:
        raise cell.fail(f"fdc_dataset {food.fdc_dataset!r} is not one of {list(FDC_DATASETS)}")
    if food.source_code is not None and not _CODE_RE.fullmatch(food.source_code):
        raise cell.fail(f"source_code {food.source_code!r} is not an NDB number or FNDDS code")
    _check_nutrients(cell, food)
    return food


def _check_nutrients(cell: _Cell, food: SeedFood) -> None:
    n = food.nutrients
    kcal, carb, protein, fat = n["kcal"], n["carbohydrate_g"], n["protein_g"], n["fat_g"]
    assert kcal is not None and carb is not None and protein is not None and fat is not None
    if carb + protein + fat > 101.0:
        raise cell.fail(f"carbohydrate + protein + fat = {carb + protein + fat:g} g per 100 g")
    if n["saturated_fat_g"] is not None and n["saturated_fat_g"] > fat + 0.05:
        raise cell.fail(f"saturated_fat_g {n['saturated_fat_g']:g} is more than fat_g {fat:g}")
    if not food.energy_note and not energy_consistent(kcal, carb, protein, fat):
        estimate = energy_estimate(carb, protein, fat)
        raise cell.fail(
            f"kcal {kcal:g} is more than 15% off 4*carbohydrate + 4*protein + 9*fat = "
            f"{estimate:.1f}; fix the numbers or say why in energy_note"
        )


def _read_foods(path: Path, known_labels: frozenset[str], problems: list[str],
                rejected: set[str]) -> list[SeedFood]:
    """Checked food rows; a bad row is noted in ``problems`` and its name in ``rejected``
    (so servings and GI rows for it are not reported a second time)."""
    foods: list[SeedFood] = []
    names = _Names()
    for cell in _rows(path, FOODS_COLUMNS, problems):
        try:
            food = _parse_food(cell)
            names.claim(cell, food, known_labels)
        except SeedError as exc:
            problems.append(str(exc))
            rejected.add(cell.row["name"])
            continue
        foods.append(food)
    if not foods and not problems:
        problems.append(f"{path}: no foods")
    # A label read as words ("hot_dog" -> "hot dog") must not name a different food.
    for label, (food_name, line) in names.label_owner.items():
        owner = names.key_owner.get(name_key(label))
        if owner is not None and owner[0] != food_name:
            problems.append(
                f"{path}:{line}: label {label!r} reads as the name or alias of {owner[0]!r} "
                f"(line {owner[1]}), but belongs to {food_name!r}"
            )
    return foods


def _parse_serving(cell: _Cell, foods: dict[str, SeedFood]) -> SeedServing:
    flag = cell.text("is_default").lower()
    if flag not in _BOOLEANS:
        raise cell.fail(f"is_default {cell.row['is_default']!r} is not true/false")
    grams = cell.number("grams", low=0.0, high=MAX_PORTION_G, required=True)
    if grams is None or grams <= 0:
        raise cell.fail("grams must be more than 0")
    return SeedServing(
        line=cell.line,
        food=_food_name(cell, foods),
        serving=cell.text("serving", max_len=80),
        grams=grams,
        is_default=_BOOLEANS[flag],
        source=cell.text("source"),
    )


def _read_servings(path: Path, foods: dict[str, SeedFood], problems: list[str],
                   rejected: set[str]) -> list[SeedServing]:
    servings: list[SeedServing] = []
    seen: dict[tuple[str, str], int] = {}
    for cell in _rows(path, SERVINGS_COLUMNS, problems):
        if cell.row["food"] in rejected:
            continue
        try:
            serving = _parse_serving(cell, foods)
            key = (serving.food, name_key(serving.serving))
            if key in seen:
                raise cell.fail(f"{serving.food!r} already has a serving {serving.serving!r} "
                                f"(line {seen[key]})")
        except SeedError as exc:
            problems.append(str(exc))
            continue
        seen[key] = cell.line
        servings.append(serving)
    defaults: dict[str, list[int]] = {name: [] for name in foods}
    for serving in servings:
        if serving.is_default:
            defaults[serving.food].append(serving.line)
    for name, lines in defaults.items():
        if len(lines) != 1:
            where = f"lines {', '.join(map(str, lines))}" if lines else "none"
            problems.append(f"{path}: {name!r} (foods.csv line {foods[name].line}) needs exactly "
                            f"one default serving; found {len(lines)} ({where})")
    return servings


def _parse_gi(cell: _Cell, food: str) -> SeedGlycemicIndex:
    row = SeedGlycemicIndex(
        line=cell.line,
        food=food,
        gi=cell.integer("gi", low=0, high=150),
        reference=cell.text("reference").lower(),
        gi_source=cell.text("gi_source", max_len=1000),
    )
    if row.reference != "glucose":
        raise cell.fail(f"reference {cell.row['reference']!r}: only glucose-referenced "
                        "(glucose = 100) values are stored; convert bread-referenced ones")
    return row


def _read_glycemic_index(path: Path, foods: dict[str, SeedFood], problems: list[str],
                         rejected: set[str]) -> list[SeedGlycemicIndex]:
    rows: list[SeedGlycemicIndex] = []
    seen: dict[str, int] = {}
    for cell in _rows(path, GI_COLUMNS, problems):
        if cell.row["food"] in rejected:
            continue
        try:
            row = _parse_gi(cell, _food_name(cell, foods))
            if row.food in seen:
                raise cell.fail(f"{row.food!r} already has a GI (line {seen[row.food]})")
        except SeedError as exc:
            problems.append(str(exc))
            continue
        seen[row.food] = cell.line
        rows.append(row)
    return rows


def read_sr28_glycemic_index(seed_dir: Path) -> tuple[list[SeedGlycemicIndex], list[str]]:
    """The checked rows of ``sr28_glycemic_index.csv`` (``food`` holds the NDB number) and
    every problem as "file:line: message"; a missing file has no rows."""
    path = Path(seed_dir) / SR28_GI_FILE
    rows: list[SeedGlycemicIndex] = []
    problems: list[str] = []
    if not path.is_file():
        return rows, problems
    seen: dict[str, int] = {}
    try:
        for cell in _rows(path, SR28_GI_COLUMNS, problems):
            try:
                ndb = cell.text("ndb", max_len=10)
                if not _CODE_RE.fullmatch(ndb):
                    raise cell.fail(f"ndb {ndb!r} is not an SR Legacy NDB number")
                if ndb in seen:
                    raise cell.fail(f"NDB {ndb} already has a GI (line {seen[ndb]})")
                row = _parse_gi(cell, ndb)
            except SeedError as exc:
                problems.append(str(exc))
                continue
            seen[ndb] = cell.line
            rows.append(row)
    except SeedError as exc:
        problems.append(str(exc))
    return rows, problems


def _food_name(cell: _Cell, foods: dict[str, SeedFood]) -> str:
    name = cell.text("food")
    if name not in foods:
        close = [f for f in foods if name_key(f) == name_key(name)]
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise cell.fail(f"food {name!r} is not a name in foods.csv{hint}")
    return name


def seed_problems(seed_dir: Path | None = None, *,
                  known_labels: Iterable[str] = ALL_SHIPPED_LABELS) -> tuple[SeedData, list[str]]:
    """Read all three files and return what checked out plus every problem found, each as
    "file:line: message" (a missing file or bad header ends the check early)."""
    folder = Path(seed_dir) if seed_dir is not None else SEED_DIR
    problems: list[str] = []
    rejected: set[str] = set()
    try:
        foods = _read_foods(folder / "foods.csv", frozenset(known_labels), problems, rejected)
        by_name = {food.name: food for food in foods}
        servings = _read_servings(folder / "servings.csv", by_name, problems, rejected)
        gi = _read_glycemic_index(folder / "glycemic_index.csv", by_name, problems, rejected)
    except SeedError as exc:
        return SeedData((), (), ()), [*problems, str(exc)]
    return SeedData(tuple(foods), tuple(servings), tuple(gi)), problems


def read_seed(seed_dir: Path | None = None, *,
              known_labels: Iterable[str] = ALL_SHIPPED_LABELS) -> SeedData:
    """Parse and check the three seed files; the first problem (and how many others there
    are) is raised as SeedError naming file and line."""
    data, problems = seed_problems(seed_dir, known_labels=known_labels)
    if problems:
        others = len(problems) - 1
        more = f" (and {others} more: python -m db check-seed lists them)" if others else ""
        raise SeedError(problems[0] + more)
    return data


def load(session: Session, seed_dir: Path | None = None) -> int:
    """Add the checked seed foods (with labels, aliases, servings; db.glycemic adds the GI)
    to ``session``.

    The caller owns the transaction and has made sure the food table is empty.
    Returns the number of foods added.
    """
    data = read_seed(seed_dir)
    rows: dict[str, Food] = {}
    for item in data.foods:
        food = Food(
            name=item.name,
            category=item.category,
            fdc_dataset=item.fdc_dataset,
            fdc_id=item.fdc_id,
            source_code=item.source_code,
            fdc_description=item.fdc_description,
            proxy_note=item.proxy_note,
            energy_note=item.energy_note,
            search_weight=search.prior(curated=True, survey=False, food_group=item.category,
                                       description=item.fdc_description),
            labels=[FoodLabel(label=label) for label in item.labels],
            aliases=[FoodAlias(alias=alias) for alias in item.aliases],
            **item.nutrients,
        )
        rows[item.name] = food
    for serving in data.servings:
        rows[serving.food].servings.append(
            Serving(name=serving.serving, grams=serving.grams, is_default=serving.is_default,
                    source=serving.source)
        )
    session.add_all(rows.values())
    return len(rows)


# The seed part that takes from an older database's curated foods the aliases foods.csv no
# longer gives them; a new name each time aliases are retired (-2: "flapjacks" of Pancakes, a
# pancake in the US only, which db/seed/search_vocabulary.csv now reads as one there; -3: "hot
# dog on a bun" of Hot dog, which read without its stop words is the query "hot dog bun").
ALIASES_PART = "curated-aliases-3"


def retire_aliases(session: Session, seed_dir: Path | None = None) -> int:
    """Delete the aliases of the curated foods in the database that foods.csv does not list
    for them (no other seed file gives a curated food aliases); returns how many went."""
    listed = {name_key(food.name): {name_key(a) for a in food.aliases}
              for food in read_seed(seed_dir).foods}
    retired = [alias_id for alias_id, alias_key, food_key in session.execute(
        select(FoodAlias.id, FoodAlias.alias_key, Food.name_key).join(Food).where(
            Food.owner_id.is_(None), Food.name_key.in_(listed)))
        if alias_key not in listed[food_key]]
    if retired:
        session.execute(delete(FoodAlias).where(FoodAlias.id.in_(retired)),
                        execution_options={"synchronize_session": False})
    return len(retired)


# The seed part that gives an older database's curated foods the table entry foods.csv now
# names for them (-1: eight FNDDS dishes known by FDC ID alone, so search listed "Huevos
# rancheros" beside "Huevos rancheros (FNDDS)", the same entry).
ENTRIES_PART = "curated-entries-1"


def fill_entries(session: Session, seed_dir: Path | None = None) -> int:
    """Set the entry (``source_code``) of the curated foods in the database that have none
    and that foods.csv gives one; returns how many were set."""
    listed = {name_key(food.name): food.source_code for food in read_seed(seed_dir).foods
              if food.source_code}
    filled = 0
    for food in session.scalars(select(Food).where(
            Food.owner_id.is_(None), Food.source_code.is_(None), Food.name_key.in_(listed))):
        food.source_code = listed[food.name_key]
        filled += 1
    return filled
