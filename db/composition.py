"""The food composition tables beside SR Legacy (FNDDS 2021-2023, CoFID 2021, the Swiss FCDB
V5.3): one compact seed format, shipped in the package, and one loader.

Each table's module (db.fndds, db.cofid, db.swiss) reads its source files into ``TableFood``
and ``TablePortion`` rows; ``python -m db build-<table> DIR`` writes them as
``<prefix>_foods.csv.gz`` and ``<prefix>_portions.csv.gz`` (rebuilding gives the same bytes)
and ``load`` adds them to the database as public foods of the table's dataset, each with its
source entry as ``source_code``.

Every table's carbohydrate lands in the same fields (db.nutrition's basis): ``carbohydrate_g``
is total carbohydrate as USDA counts it (fibre included), ``fiber_g`` the dietary fibre, so that
available carbohydrate (carbohydrate - fibre) is the table's available carbohydrate in grams.
Each module converts its table to that basis and says how.

Names: a row's name is the table's own. Where another public food already has that name, the
row is named with its table after it ("Custard (CoFID)"); where another food already answers
to one of the table's synonyms as an alias, that synonym stays with the other food. A name may
be another table's alias (and an everyday alias another table's name): both foods then match
the words exactly, and the searcher's region decides which comes first (db.search).
"""

import csv
import gzip
import io
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import delete, func, insert, select
from sqlalchemy.orm import Session

from db import portions, search, sequences
from db.datasets import Dataset
from db.errors import SeedError
from db.keys import name_key
from db.tables import Food, FoodAlias, FoodLabel, Serving
from db.nutrition import (STORED_NUTRIENTS, available_carbohydrate, energy_consistent,
                          energy_estimate)

FOOD_COLUMNS: tuple[str, ...] = ("code", "name", "description", "category", "aliases",
                                 "common_names", "note", *STORED_NUTRIENTS, "energy_note")
PORTION_COLUMNS: tuple[str, ...] = ("code", "seq", "name", "grams", "is_default", "source")
ALIAS_COLUMNS = ["entry", "aliases"]
# Portions of foods whose table has none (CoFID, the Swiss FCDB), each citing its source.
CITED_PORTIONS_FILE = "table_portions.csv"
CITED_PORTION_COLUMNS = ["dataset", "entry", "serving", "grams", "is_default", "source"]
# Default portions by class for the rows no cited portion gives a default (CoFID, the Swiss
# FCDB): a regular expression over the row, the serving, its grams and the rule it comes from
# (FDA's reference amounts, 21 CFR 101.12(b) Table 2; USDA's, 9 CFR 317.312 and 381.412; the
# NHS 5 A Day portion; a US standard drink). First match wins; a row without grams gives none.
REFERENCE_PORTIONS_FILE = "reference_portions.csv"
REFERENCE_PORTION_COLUMNS = ["dataset", "pattern", "serving", "grams", "source"]
# ';' separates a row's synonyms in the compact file (no table's names contain one).
SEPARATOR = ";"


@dataclass(frozen=True)
class TableFood:
    """One food of a table: its entry (``code``: FNDDS food code, CoFID food name, Swiss
    ID), the name shown, the table's description verbatim, its category, the table's own
    synonyms, other names it is searched by (``common_names``), a note to read before using
    it, its nutrients per 100 g on db.nutrition's basis and, where energy is not 4/9/4, why."""

    code: str
    name: str
    description: str
    category: str
    aliases: tuple[str, ...]
    common_names: str
    note: str | None
    nutrients: dict[str, float | None]
    energy_note: str | None


@dataclass(frozen=True)
class TablePortion:
    """A named portion of a table food, where it comes from, and whether it is the default."""

    code: str
    seq: int
    name: str
    grams: float
    is_default: bool
    source: str


@dataclass(frozen=True)
class Table:
    """How one table is shipped and loaded: its dataset, file prefix, seed part, and the
    command that rebuilds it."""

    dataset: Dataset
    prefix: str
    part: str  # db.tables.SeedVersion
    command: str
    # False: the table has no portions of its own; they come from db/seed/table_portions.csv
    # (``cited_portions``), read with the table.
    shipped_portions: bool = True

    @property
    def foods_file(self) -> str:
        return f"{self.prefix}_foods.csv.gz"

    @property
    def portions_file(self) -> str:
        return f"{self.prefix}_portions.csv.gz"

    @property
    def aliases_file(self) -> str:
        return f"{self.prefix}_aliases.csv"


def number(text: str | None, where: str, *, missing: tuple[str, ...] = ("",)) -> float | None:
    """A source cell as a number; a cell in ``missing`` (empty, "N": not measured) is None,
    never 0."""
    value = (text or "").strip()
    if value in missing:
        return None
    try:
        return float(value)
    except ValueError:
        raise SeedError(f"{where}: {value!r} is not a number") from None


def energy_note(nutrients: dict[str, float | None], why: str) -> str | None:
    """``why`` when energy differs more than 15 % from 4/9/4 (db.nutrition), else None."""
    kcal, carb, protein, fat = (nutrients[k] for k in ("kcal", "carbohydrate_g", "protein_g",
                                                       "fat_g"))
    if None in (kcal, carb, protein, fat) or energy_consistent(kcal, carb, protein, fat):  # type: ignore[arg-type]
        return None
    return why


def portion_food(food: TableFood) -> portions.Food:
    return portions.Food(food.category, food.description, food.nutrients["kcal"],
                         food.nutrients["carbohydrate_g"])


# --- the compact seed ------------------------------------------------------------------

def _text(value: float | None) -> str:
    return "" if value is None else f"{value:g}"


def write_gzip_csv(path: Path, header: tuple[str, ...], rows: Iterable[list[str]]) -> None:
    """A compact seed file (SR Legacy's too): gzip'd CSV, the same bytes for the same rows."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    # mtime=0: the same source always gives the same bytes (a reviewable, stable diff).
    path.write_bytes(gzip.compress(buffer.getvalue().encode("utf-8"), 9, mtime=0))


def write_compact(table: Table, foods: list[TableFood], measures: list[TablePortion],
                  out_dir: Path) -> None:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_gzip_csv(out_dir / table.foods_file, FOOD_COLUMNS, (
        [f.code, f.name, f.description, f.category, SEPARATOR.join(f.aliases), f.common_names,
         f.note or "", *(_text(f.nutrients[n]) for n in STORED_NUTRIENTS), f.energy_note or ""]
        for f in foods))
    if table.shipped_portions:
        write_gzip_csv(out_dir / table.portions_file, PORTION_COLUMNS, (
            [p.code, str(p.seq), p.name, _text(p.grams), "Y" if p.is_default else "", p.source]
            for p in measures))


def read_gzip_csv(path: Path, header: tuple[str, ...],
                   command: str) -> Iterator[tuple[int, dict[str, str]]]:
    try:
        with gzip.open(path, "rt", encoding="utf-8", newline="") as handle:
            reader = csv.reader(handle, strict=True)
            found = tuple(next(reader, ()))
            if found != header:
                raise SeedError(f"{path}:1: header {','.join(found)!r}, expected "
                                f"{','.join(header)!r} (rebuild with python -m db {command})")
            for cells in reader:
                if len(cells) != len(header):
                    raise SeedError(f"{path}:{reader.line_num}: {len(cells)} cells, "
                                    f"expected {len(header)}")
                yield reader.line_num, dict(zip(header, cells))
    except (OSError, EOFError, csv.Error, UnicodeDecodeError) as exc:
        raise SeedError(f"{path}: unreadable ({exc})") from None


def has_compact(table: Table, seed_dir: Path) -> bool:
    return (Path(seed_dir) / table.foods_file).is_file()


def read_compact(table: Table, seed_dir: Path) -> tuple[list[TableFood], list[TablePortion]]:
    """The table's shipped foods and portions, checked: an entry and a name on every row,
    each entry once, numbers where given, an energy note exactly where energy is not 4/9/4
    within 15 %, portions of known entries with positive grams and at most one default."""
    folder = Path(seed_dir)
    foods, seen = [], set()
    path = folder / table.foods_file
    for line, row in read_gzip_csv(path, FOOD_COLUMNS, table.command):
        where = f"{path}:{line}"
        if not row["code"] or not row["name"] or not row["category"]:
            raise SeedError(f"{where}: every row names its {table.dataset.entry}, a name and "
                            "a category")
        if row["code"] in seen:
            raise SeedError(f"{where}: {table.dataset.entry} {row['code']!r} is listed twice")
        seen.add(row["code"])
        nutrients = {n: number(row[n], f"{where} {n}") for n in STORED_NUTRIENTS}
        if bool(row["energy_note"]) != (energy_note(nutrients, "x") is not None):
            raise SeedError(f"{where}: energy_note must be given exactly when energy differs "
                            "more than 15 % from 4/9/4")
        foods.append(TableFood(row["code"], row["name"], row["description"], row["category"],
                               tuple(a for a in row["aliases"].split(SEPARATOR) if a),
                               row["common_names"], row["note"] or None, nutrients,
                               row["energy_note"] or None))
    if not table.shipped_portions:
        cited = cited_portions(table, foods, folder)
        return foods, cited + reference_portions(table, foods, cited, folder)
    measures, defaults = [], set()
    path = folder / table.portions_file
    for line, row in read_gzip_csv(path, PORTION_COLUMNS, table.command):
        where = f"{path}:{line}"
        grams = number(row["grams"], where)
        if row["code"] not in seen or grams is None or grams <= 0 or not row["source"]:
            raise SeedError(f"{where}: a portion of a listed entry, with positive grams and "
                            "its source")
        if row["is_default"] == "Y":
            if row["code"] in defaults:
                raise SeedError(f"{where}: {row['code']!r} has a second default portion")
            defaults.add(row["code"])
        measures.append(TablePortion(row["code"], int(row["seq"]), row["name"], grams,
                                     row["is_default"] == "Y", row["source"]))
    return foods, measures


def read_aliases(table: Table, seed_dir: Path) -> dict[str, tuple[str, ...]]:
    """Entry -> everyday names people type for it ("jelly babies"), from
    ``<prefix>_aliases.csv`` (``entry,aliases``; ``;`` separates names). Missing file: none."""
    path = Path(seed_dir) / table.aliases_file
    if not path.is_file():
        return {}
    out: dict[str, tuple[str, ...]] = {}
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames != ALIAS_COLUMNS:
            raise SeedError(f"{path}:1: header must be {','.join(ALIAS_COLUMNS)}")
        for row in reader:
            names = tuple(a.strip() for a in (row["aliases"] or "").split(";") if a.strip())
            if None in row or not names or row["entry"] in out:
                raise SeedError(f"{path}:{reader.line_num}: {row['entry']!r} has no aliases, "
                                "more cells than two, or is listed twice")
            out[row["entry"]] = names
    return out


# Where a cited portion's weight comes from (table_portions.csv's source): a portion of the
# same food in FNDDS (food code) or SR Legacy (NDB number), named and weighed as that table
# gives it, or half of it; check-seed verifies each against the table (db.seed_audit).
CITED_RE = re.compile(r"^(?P<half>half of )?(?P<table>FNDDS 2021-2023|SR Legacy) portion of the "
                      r"same food: (?P<code>\d+) '(?P<name>.+?)', '(?P<portion>.+?)' "
                      r"\((?P<grams>\d+(?:\.\d+)?) g[;)]")
# Two tables' rows are the same food, whose portions one may lend the other, when their energy
# and carbohydrate per 100 g agree within this share of the larger, or these amounts.
PAIR_SHARE, PAIR_KCAL, PAIR_CARB_G = 0.25, 10.0, 2.5


def comparable_energy(nutrients: dict[str, float | None]) -> float | None:
    """Energy per 100 g on one basis for every table: available carbohydrate, protein and fat
    at 4, 4 and 9 kcal/g. The tables' own energy figures are not comparable: CoFID gives fibre
    no energy and counts available carbohydrate as monosaccharides at 3.75 kcal/g, FNDDS and
    SR Legacy count carbohydrate by difference (fibre and a fruit's acids in it) with their
    ingredients' own factors, so a CoFID orange reads 36 kcal where FNDDS's reads 47."""
    available = available_carbohydrate(nutrients["carbohydrate_g"], nutrients["fiber_g"])
    if None in (available, nutrients["protein_g"], nutrients["fat_g"]):
        return None
    return energy_estimate(available, nutrients["protein_g"], nutrients["fat_g"])  # type: ignore[arg-type]


def pair_problems(food: dict[str, float | None], other: dict[str, float | None]) -> list[str]:
    """Why two rows' nutrients per 100 g are not the same food's (PAIR_SHARE, PAIR_KCAL,
    PAIR_CARB_G), compared on db.nutrition's one basis: ``comparable_energy`` and carbohydrate
    with its fibre; none: they are."""
    problems = []
    for what, a, b, least in (
            ("energy", comparable_energy(food), comparable_energy(other), PAIR_KCAL),
            ("carbohydrate", food["carbohydrate_g"], other["carbohydrate_g"], PAIR_CARB_G)):
        if a is None or b is None:
            problems.append(f"no {what} to compare")
        elif abs(a - b) > max(least, PAIR_SHARE * max(a, b)):
            problems.append(f"{what} {a:.1f} and {b:.1f} per 100 g differ by more than "
                            f"{PAIR_SHARE:.0%} (or {least:g})")
    return problems


def cited_portions(table: Table, foods: list[TableFood], seed_dir: Path) -> list[TablePortion]:
    """The table's rows of ``table_portions.csv`` (``dataset,entry,serving,grams,is_default,
    source``): a portion of one of ``foods``, its grams, whether it is the food's default
    (``true``: at most one each) and where the weight comes from (a portion of the same food
    in another table, a label, a published portion size). Missing file: none."""
    path = Path(seed_dir) / CITED_PORTIONS_FILE
    if not path.is_file():
        return []
    known = {food.code for food in foods}
    out, defaults = [], set()
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames != CITED_PORTION_COLUMNS:
            raise SeedError(f"{path}:1: header must be {','.join(CITED_PORTION_COLUMNS)}")
        for row in reader:
            if row["dataset"] != table.dataset.name:
                continue
            where = f"{path}:{reader.line_num}"
            grams = number(row["grams"], where)
            if row["entry"] not in known:
                raise SeedError(f"{where}: {table.dataset.entry} {row['entry']!r} is not in "
                                f"{table.foods_file}")
            if grams is None or grams <= 0 or not row["serving"] or not row["source"]:
                raise SeedError(f"{where}: a serving, positive grams and a source are required")
            if row["is_default"] not in ("true", "false"):
                raise SeedError(f"{where}: is_default must be true or false")
            is_default = row["is_default"] == "true"
            if is_default and row["entry"] in defaults:
                raise SeedError(f"{where}: {row['entry']!r} has a second default")
            if is_default:
                defaults.add(row["entry"])
            out.append(TablePortion(row["entry"], reader.line_num, row["serving"], grams,
                                    is_default, row["source"]))
    return out


@dataclass(frozen=True)
class ReferenceClass:
    """One row of reference_portions.csv: the rows it covers, and their default (none where
    ``grams`` is None: the class is named to keep later, more general classes off it)."""

    dataset: str
    pattern: re.Pattern[str]
    serving: str
    grams: float | None
    source: str
    line: int


def reference_classes(seed_dir: Path) -> list[ReferenceClass]:
    """reference_portions.csv's classes in file order, checked: a known dataset, a regular
    expression that compiles, a source on every row, and a serving with positive grams or
    neither. Missing file: none."""
    path = Path(seed_dir) / REFERENCE_PORTIONS_FILE
    if not path.is_file():
        return []
    out = []
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames != REFERENCE_PORTION_COLUMNS:
            raise SeedError(f"{path}:1: header must be {','.join(REFERENCE_PORTION_COLUMNS)}")
        for row in reader:
            where = f"{path}:{reader.line_num}"
            if None in row or row["dataset"] not in ("CoFID", "Swiss FCDB") or not row["source"]:
                raise SeedError(f"{where}: a dataset (CoFID or Swiss FCDB), a pattern and a "
                                "source are required")
            try:
                pattern = re.compile(row["pattern"])
            except re.error as exc:
                raise SeedError(f"{where}: pattern does not compile: {exc}") from None
            grams = number(row["grams"], where)
            if bool(row["serving"]) != (grams is not None) or (grams is not None and grams <= 0):
                raise SeedError(f"{where}: a serving with positive grams, or neither (no "
                                "default for the class)")
            out.append(ReferenceClass(row["dataset"], pattern, row["serving"], grams,
                                      row["source"], reader.line_num))
    return out


def reference_text(table: Table, food: TableFood) -> str:
    """What a class's pattern reads of a row: a CoFID row's name ("Biscuits, digestive,
    plain"), a Swiss row's category and name ("Milk and dairy products/Hard cheese:
    Emmentaler, vollfett")."""
    if table.dataset.name == "CoFID":
        return food.name
    return f"{food.category}: {food.name}"


def reference_class(table: Table, food: TableFood,
                    classes: list[ReferenceClass]) -> ReferenceClass | None:
    """The first class of the table's dataset whose pattern matches the row."""
    text = reference_text(table, food)
    return next((c for c in classes
                 if c.dataset == table.dataset.name and c.pattern.search(text)), None)


def reference_portions(table: Table, foods: list[TableFood], cited: list[TablePortion],
                       seed_dir: Path) -> list[TablePortion]:
    """The default portion by class (reference_portions.csv) of each row of ``foods`` that
    ``cited`` gives no default: the first matching class's serving, citing its rule; none
    where that class has no grams or no class matches (the card then asks for grams)."""
    classes = reference_classes(seed_dir)
    if not classes:
        return []
    with_default = {p.code for p in cited if p.is_default}
    out = []
    for food in foods:
        if food.code in with_default:
            continue
        found = reference_class(table, food, classes)
        if found is None or found.grams is None:
            continue
        out.append(TablePortion(food.code, 100000 + found.line, found.serving, found.grams,
                                True, f"{found.source} (db/seed/{REFERENCE_PORTIONS_FILE} "
                                f"line {found.line})"))
    return out


def default_servings(table: Table, seed_dir: Path) -> list[portions.DefaultServing]:
    """Every default portion of the table, for python -m db check-seed."""
    foods, measures = read_compact(table, seed_dir)
    by_code = {food.code: food for food in foods}
    return [portions.DefaultServing(f"{table.portions_file} {table.dataset.entry} {p.code}",
                                    by_code[p.code].name, portion_food(by_code[p.code]),
                                    p.name, p.grams)
            for p in measures if p.is_default]


def source_problems(table: Table, seed_dir: Path) -> list[str]:
    """Everyday aliases that name no entry of the table."""
    foods, _ = read_compact(table, seed_dir)
    known = {food.code for food in foods}
    return [f"{Path(seed_dir) / table.aliases_file}: {table.dataset.entry} {entry!r} is not in "
            f"{table.foods_file}" for entry in read_aliases(table, seed_dir) if entry not in known]


# --- loading ----------------------------------------------------------------------------

def load(session: Session, table: Table, seed_dir: Path, *,
         present: dict[str, int] | None = None) -> int:
    """Add the table's foods not yet in the database; returns how many were added.
    ``present``: entry -> id of rows already there (a database upgraded from an older
    edition keeps those rows and their ids). The caller owns the transaction and reindexes
    search afterwards."""
    foods, measures = read_compact(table, seed_dir)
    everyday = read_aliases(table, seed_dir)
    unknown = sorted(set(everyday) - {f.code for f in foods})
    if unknown:
        raise SeedError(f"{Path(seed_dir) / table.aliases_file}: {unknown} are not entries "
                        f"of {table.foods_file}")
    present = present or {}
    by_code: dict[str, list[TablePortion]] = {}
    for measure in measures:
        by_code.setdefault(measure.code, []).append(measure)
    names = set(session.scalars(select(Food.name_key).where(Food.owner_id.is_(None))))
    aliases = set(session.scalars(select(FoodAlias.alias_key)))
    aliases |= {label.replace("_", " ") for label in session.scalars(select(FoodLabel.label))}
    next_id = (session.scalar(select(func.max(Food.id))) or 0) + 1
    food_rows, serving_rows, alias_rows = [], [], []
    for food in foods:
        if food.code in present:
            continue
        name = food.name
        if name_key(name) in names:
            name = f"{food.name} ({table.dataset.name})"
            if name_key(name) in names:
                raise SeedError(f"{table.foods_file} {food.code!r}: the names {food.name!r} and "
                                f"{name!r} are both taken")
        names.add(name_key(name))
        for alias in everyday.get(food.code, ()):
            if name_key(alias) in aliases:
                raise SeedError(f"{table.aliases_file}: alias {alias!r} ({food.code}) is already "
                                "an alias of another food")
            aliases.add(name_key(alias))
            alias_rows.append({"food_id": next_id, "alias": alias, "alias_key": name_key(alias)})
        for synonym in food.aliases:
            key = name_key(synonym)
            if key and key not in aliases:
                aliases.add(key)
                alias_rows.append({"food_id": next_id, "alias": synonym[:120],
                                   "alias_key": key[:120]})
        food_rows.append({
            "id": next_id, "name": name, "name_key": name_key(name),
            "fdc_dataset": table.dataset.name, "fdc_id": None, "source_code": food.code,
            "recipe_servings": None, "owner_id": None, **_stored(food, everyday),
        })
        serving_rows += [{"food_id": next_id, **_serving(p)} for p in by_code.get(food.code, ())]
        next_id += 1
    for model, rows in ((Food, food_rows), (Serving, serving_rows), (FoodAlias, alias_rows)):
        if rows:
            # Core executemany: no ORM objects for thousands of rows.
            session.execute(insert(model.__table__), rows)  # type: ignore[attr-defined]
    sequences.sync(session)  # the ids above were chosen here, not by the database
    return len(food_rows)


def _stored(food: TableFood, everyday: dict[str, tuple[str, ...]]) -> dict:
    """What a table row stores of its entry besides its name: category, description, note,
    energy note, common names, search weight and nutrients."""
    return {
        "category": food.category, "fdc_description": food.description, "proxy_note": food.note,
        "energy_note": food.energy_note, "common_names": food.common_names or None,
        # Each table lists foods as eaten in its country: the everyday share of SR Legacy's
        # survey foods; region decides between tables (db.search).
        "search_weight": search.prior(curated=food.code in everyday, survey=True,
                                      food_group=food.category, description=food.description),
        **food.nutrients,
    }


# The seed part that gives a database seeded from older table files today's rows (``refresh``);
# a new name each time a table's values, notes, search weights, everyday aliases or own portions
# change (-2: no "NFS" row ranked as a brand, CoFID's lager and takeaway spare ribs without a
# carbohydrate of 0 g, FNDDS defaults that are no "Guideline amount" of a topping, FNDDS's
# lemonade called lemonade; -3: everyday names of UK dishes and brands, "fried chicken", "tofu";
# -4: FNDDS defaults that are no bag, box or sleeve holding several portions, no head of
# lettuce; -5: no cup of cheese, crackers or seeds, no medium bag of chips, no bite of
# French toast; -6: no 30 g slice of steak or 16 g nugget: meat, poultry and fish by a count of
# small units or FNDDS's unspecified amount, not by the cup; -7: and "chicken" the FNDDS chicken
# of no named part or cooking; -8: no small turnover, empanada or samosa where people eat a
# regular one; -9: a dry mix "made with" water or milk is the drink or dish as eaten: hot
# chocolate by the packet made up, not 1 fl oz; pudding and mashed potato by the cup; a
# default a third or less of FNDDS's amount for an unspecified quantity gives way to that
# amount: not one piece of broccoli, one baby carrot, one Oreo or a tablespoon of dip; -11:
# fresh fruit within half to twice FDA's 140 g: a cup of papaya or pineapple, not a chunk; -12:
# CoFID's egg mayonnaise sandwich is an egg and cress sandwich, FNDDS's ham sandwich on white
# with cheese a ham and cheese toastie; -13: FNDDS's fruit fritter is an apple fritter, its
# plain corn chips are Fritos).
ROWS_PART = "table-rows-13"


def refresh(session: Session, table: Table, seed_dir: Path) -> int:
    """The table's rows in the database take today's values, notes and search weights from the
    shipped files and the everyday aliases they lack (unless another food has the name), and a
    table with portions of its own (FNDDS) today's portions and default,
    as the SR Legacy catalog's servings are refreshed (db.catalog); portions cited for CoFID and
    Swiss rows come by ``add_cited_portions``. Meals keep the values they were logged with.
    Returns how many rows changed."""
    foods, measures = read_compact(table, seed_dir)
    everyday = read_aliases(table, seed_dir)
    # A curated food of the same entry ("Pancakes", FNDDS 55100005) is not the table's row.
    found = session.scalars(select(Food).where(Food.fdc_dataset == table.dataset.name,
                                               Food.owner_id.is_(None)))
    by_entry = {(food.source_code, food.name): food for food in found}
    public = set(by_entry.values())
    rows = {}
    for food in foods:
        row = (by_entry.get((food.code, food.name))
               or by_entry.get((food.code, f"{food.name} ({table.dataset.name})")))
        if row is not None:
            rows[food.code] = row
    changed = 0
    taken = set(session.scalars(select(FoodAlias.alias_key)))
    for food in foods:
        row = rows.get(food.code)
        if row is None:
            continue
        stored = _stored(food, everyday)
        new_aliases = [a for a in everyday.get(food.code, ()) if name_key(a) not in taken]
        if new_aliases or any(getattr(row, key) != value for key, value in stored.items()):
            changed += 1
            for key, value in stored.items():
                setattr(row, key, value)
            for alias in new_aliases:
                taken.add(name_key(alias))
                session.add(FoodAlias(food_id=row.id, alias=alias))
    if table.shipped_portions and rows:
        ids = {code: row.id for code, row in rows.items()}
        others = [food.id for food in public - set(rows.values())] or [0]
        session.flush()
        session.execute(delete(Serving).where(Serving.food_id.in_(select(Food.id).where(
            Food.fdc_dataset == table.dataset.name, Food.owner_id.is_(None),
            Food.id.not_in(others)))), execution_options={"synchronize_session": False})
        servings = [{"food_id": ids[m.code], **_serving(m)} for m in measures if m.code in ids]
        if servings:
            session.execute(insert(Serving.__table__), servings)  # type: ignore[attr-defined]
    session.flush()
    session.expire_all()
    return changed


# The seed part that gives a database seeded before today's table_portions.csv its new rows
# (a new name each time rows are added; -3: the Swiss FCDB's and more CoFID foods; -4: UK
# biscuits, Weetabix, squash, beer and cider, fruit, pies and puddings, Schorle, Eistee; -5:
# shortbread, fruit pastilles, pilau rice, cheese and pickle sandwich, hot cross buns, chicken
# korma, mushy peas, custard creams, wine gums; -6: a BLT, Cornish pasties, roast potatoes,
# malt loaf, sponge cake, custard, Christmas pudding, Shreddies, flapjacks, gravy, sweet and
# sour chicken, Wiener schnitzel, goulash, Laugenbrötli, rye breads, Hackplätzli, pizzas,
# Älplermagronen, Rührei; brown and seeded breads, rolls, cereals, pies, crumble, rice pudding,
# takeaway burgers and cod, coffee, hot chocolate, ice cream, UK pizzas, Rührei with herbs,
# cheese or ham; -7: quark by FNDDS's half cup of cottage cheese; -8: Swiss black coffee, latte
# macchiato, fruit yoghurt, pan-fried chicken breast; -9: chocolate eclairs, Panaché; -10: a
# default by class from reference_portions.csv (FDA and USDA reference amounts, NHS 5 A Day,
# a standard drink) for each row no cited portion gives one; -11: more CoFID dishes by the
# mixed-dish reference amounts, takeaway curries and stir-fries among them; -12: CoFID's teas
# by FNDDS's cup, a Swiss turkey schnitzel whose name is misspelt; -13: 64 more cited portions
# (coffees, puddings, ice creams, plantain, fig rolls, burgers) and 78 classes by reference
# amounts (flatbreads, buns, Yorkshire puddings, samosas and bhajis, dips, takeaway curries,
# fortified wines and liqueurs, Swiss rösti and Hackbraten); -14: takeaway egg fried rice and
# peshwari naan by FNDDS's cup and naan, Swiss Wurstsalat and Birchermüesli by the cup; -15: a
# paratha by FNDDS's, a Swiss tomato by FNDDS's whole one, quark by half a cup of cottage
# cheese, Swiss ready-made Rösti and oven chips by SR Legacy's packages; -16: retail mince
# pies by half SR Legacy's slice of mince pie, roast potatoes by FNDDS's amount eaten and its
# new potato as the piece a count multiplies, Swiss Weisswurst by the sausage reference amount;
# -17: CoFID's sweet pickle by FNDDS's tablespoon of relish and children's fromage frais by its
# yogurt tube, half-coated chocolate digestives back to the cookie class; -18: CoFID's suet
# dumplings by FDA's 85 g; -19: CoFID's oven chips by half SR Legacy's package of oven-heated
# cottage fries, as the Swiss oven chips; -20: CoFID's fruited malt bread by FNDDS raisin
# bread's thick slice).
CITED_PORTIONS_PART = "table-portions-20"


def add_cited_portions(session: Session, table: Table, seed_dir: Path) -> int:
    """The cited portions (table_portions.csv) the table's rows in the database lack, added;
    a new one is the default only where its food has none (a default the person already saw
    stays). Returns how many were added."""
    if table.shipped_portions:
        return 0  # its own portions come by ``refresh``
    _, cited = read_compact(table, seed_dir)  # cited portions, then defaults by class
    if not cited:
        return 0
    ids = dict(session.execute(select(Food.source_code, Food.id).where(
        Food.fdc_dataset == table.dataset.name, Food.owner_id.is_(None),
        Food.source_code.in_({p.code for p in cited}))).all())
    shown = session.execute(select(Serving.food_id, Serving.name, Serving.is_default).where(
        Serving.food_id.in_(ids.values()))).all()
    named = {(food_id, name_key(name)) for food_id, name, _ in shown}
    with_default = {food_id for food_id, _, is_default in shown if is_default}
    rows = []
    for portion in cited:
        food_id = ids.get(portion.code)
        if food_id is None or (food_id, name_key(portion.name[:80])) in named:
            continue
        row = {"food_id": food_id, **_serving(portion)}
        row["is_default"] = portion.is_default and food_id not in with_default
        rows.append(row)
    if rows:
        session.execute(insert(Serving.__table__), rows)  # type: ignore[attr-defined]
    return len(rows)


def _serving(measure: TablePortion) -> dict:
    return {"name": measure.name[:80], "grams": measure.grams, "is_default": measure.is_default,
            "source": measure.source}


def unique_portions(code: str, named: Iterable[tuple[int, str, float, str]]
                    ) -> list[TablePortion]:
    """A food's portions (seq, name, grams, source) without a repeated name (the first
    counts: a serving's name is unique per food), none a default yet."""
    out, seen = [], set()
    for seq, name, grams, source in named:
        key = name_key(name[:80])
        if key not in seen:
            seen.add(key)
            out.append(TablePortion(code, seq, name, grams, False, source))
    return out


def with_default(food: TableFood, measures: list[TablePortion],
                 describe: str) -> list[TablePortion]:
    """``measures`` with the default chosen by db.portions' rule among them (a fraction or
    multiple of a measure added as its own portion, ``describe`` naming the source of the
    measure); no default when none is one portion as eaten: never 100 g for want of one
    (the card then asks for grams)."""
    choice = portions.choose_default(portion_food(food), [(m.name, m.grams) for m in measures])
    if choice.index is None:
        return measures
    base = measures[choice.index]
    if portions.portion_problems(portion_food(food), base.grams * choice.factor,
                                 choice.name or base.name):
        return measures  # no measure is one portion: no default rather than a wrong one
    if choice.name is None:
        return [TablePortion(m.code, m.seq, m.name, m.grams, i == choice.index, m.source)
                for i, m in enumerate(measures)]
    share = (f"{choice.factor:g} x" if choice.factor > 1 else
             f"{choice.name.split(' ', 1)[0]} of")
    return [*measures, TablePortion(
        food.code, 0, choice.name, round(base.grams * choice.factor, 1), True,
        f"{share} {describe} portion {base.name!r} ({base.grams:g} g): one portion as eaten")]
