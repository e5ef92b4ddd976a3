"""The UK's food table: McCance and Widdowson's Composition of Foods Integrated Dataset 2021
(CoFID, Public Health England, now OHID; Open Government Licence v3.0: every card of its rows
carries the attribution, db.datasets), all 2,887 foods.

``python -m db build-cofid DIR`` reads ``cofid_2021.csv`` (README in that folder) into
``db/seed/cofid_*.csv.gz`` (db.composition). That copy has no food codes: a row's entry is its
exact CoFID food name; the two names CoFID lists twice get "(entry 1 of 2)" and "(entry 2 of
2)" after them, in the file's order.

Carbohydrate. CoFID states available carbohydrate (starch, oligosaccharides and sugars, fibre
excluded) as monosaccharide equivalents: the weight the carbohydrate would have as
monosaccharides, starch x 1.10 and disaccharides x 1.05 of their own weight (CoFID user
guide). A label, and every other table here, states grams. So a row's available
carbohydrate in grams is CoFID's value less that added water of hydrolysis:

    available = CHO - (starch + oligosaccharides) x 0.10 / 1.10
                    - (sucrose + maltose + lactose) x 0.05 / 1.05

(oligosaccharides are glucose chains, counted with starch's factor). Where starch is not
given it is CHO - sugars - oligosaccharides; where the disaccharides are not given, sugars
stay as stated (at most 5 % more than grams, never less); where neither starch nor sugars is
given, CHO stays as stated. Total sugars in grams likewise: sugars less the disaccharides'
0.05/1.05. ``carbohydrate_g`` is available carbohydrate plus CoFID's AOAC fibre (the method
USDA's total dietary fibre uses), ``fiber_g`` the AOAC fibre; without an AOAC value the row has
no fibre and its carbohydrate is the available carbohydrate. "N" (not determined) and empty
cells are no value, never 0. Energy is CoFID's own kcal column (computed from monosaccharide
equivalents at 3.75 kcal/g, no energy for fibre), per 100 g of the food as its name says it is
weighed (edible portion; "weighed with skin" rows include the skin).

Traces. CoFID writes "Tr" for a trace (present, below the last decimal it gives); read as 0,
which is how a trace counts on a card. This copy has no "Tr" at all: it writes CoFID's traces
as a bare 0 (beside "0.0" for a measured zero in the same row), so a 0 here is a zero or a
trace, as for meat, eggs, cheese, tea and spirits. Where CoFID's 0 is not the food's value,
the row gets no value and a note saying why (``NO_VALUE``): standard and premium lager, whose
carbohydrate CoFID gives as 0 (a bare 0: a trace at most) because it counts the sugars and
starch it measured and not the dextrins beer keeps (FNDDS 93101000 'Beer': 3.55 g per 100 g by difference), and the
Chinese takeaway spare ribs, whose energy, carbohydrate, sugars and fibre this copy gives as 0
beside 22.1 g of protein and 18.7 g of fat (cells it lacks, not zeros).

CoFID gives no portions: a row's default portion comes from db/seed/table_portions.csv
(db.table_portions), which cites a source for each, or it has none and the card asks for grams.
"""

import csv
import re
from collections import Counter
from pathlib import Path

from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session

from db import composition, datasets, search
from db.errors import SeedError
from db.keys import name_key
from db.nutrition import STORED_NUTRIENTS
from db.tables import Food, FoodAlias, Serving

TABLE = composition.Table(datasets.COFID, "cofid", "cofid_2021", "build-cofid",
                          shipped_portions=False)
SOURCE_FILE = "cofid_2021.csv"
# Every row is a food eaten in the UK; the copy has no food groups.
CATEGORY = "UK foods (CoFID)"
STARCH_FACTOR = 1.10
DISACCHARIDE_FACTOR = 1.05
DISACCHARIDES = ("Sucrose (g)", "Maltose (g)", "Lactose (g)")
ENERGY_WHY = ("CoFID computes energy from available carbohydrate as monosaccharide "
              "equivalents (3.75 kcal/g) and its own factors, not the general 4/9/4")
# CoFID 2015's food codes ("11-989"), which the 16 rows an older foodtag seeded carry.
CODE_2015_RE = re.compile(r"\d{2}-\d{1,4}")
TRACE = "Tr"
# What to check before using a row, by CoFID food name.
NOTES = {
    "Lucozade": "CoFID's values are industry data from 2013. Lucozade Energy has been made "
                "with less sugar since 2017: check the carbohydrate on the bottle before "
                "treating a hypo.",
}
_LAGER = ("CoFID gives this lager's carbohydrate as 0, a trace at most: the sugars and "
          "starch it measured, not the dextrins beer keeps (FNDDS 93101000 'Beer' has 3.55 g per 100 g "
          "by difference), so it has no carbohydrate value here rather than 0 g: take it from "
          "the can or count it as a beer row that has one.")
# Rows whose CoFID 0 is not the food's value (module doc): the nutrients that get no value,
# and the note that says why.
NO_VALUE: dict[str, tuple[tuple[str, ...], str]] = {
    "Lager, standard": (("carbohydrate_g", "sugars_g"), _LAGER),
    "Lager, premium": (("carbohydrate_g", "sugars_g"), _LAGER),
    "Pork, spare ribs, Chinese barbecue, takeaway": (
        tuple(n for n in STORED_NUTRIENTS if n not in ("protein_g", "fat_g", "sodium_mg")),
        "This copy of CoFID gives 0 for this row's energy, carbohydrate, sugars, fibre and "
        "saturated fat beside 22.1 g of protein and 18.7 g of fat: values it lacks, not "
        "zeros, so they have none here. Chinese barbecue sauce holds sugar: take the "
        "carbohydrate from the label."),
}


def _value(row: dict[str, str], column: str, where: str) -> float | None:
    if row[column].strip() == TRACE:
        return 0.0
    return composition.number(row[column], f"{where} {column}", missing=("", "N"))


def grams_of_carbohydrate(cho: float | None, starch: float | None, oligo: float | None,
                          sugars: float | None, disaccharides: float | None,
                          ) -> tuple[float | None, float | None]:
    """(available carbohydrate, total sugars) in grams from CoFID's monosaccharide
    equivalents (module doc)."""
    sugar_water = (0.0 if disaccharides is None
                   else disaccharides * (DISACCHARIDE_FACTOR - 1) / DISACCHARIDE_FACTOR)
    sugars_g = None if sugars is None else sugars - sugar_water
    if cho is None:
        return None, sugars_g
    if starch is None and sugars is None:
        return cho, sugars_g
    polymers = ((starch if starch is not None else max(0.0, cho - (sugars or 0) - (oligo or 0)))
                + (oligo or 0.0))
    return cho - polymers * (STARCH_FACTOR - 1) / STARCH_FACTOR - sugar_water, sugars_g


def read_source(folder: Path) -> tuple[list[composition.TableFood],
                                       list[composition.TablePortion]]:
    """The table's foods; no portions (it has none of its own)."""
    path = Path(folder) / SOURCE_FILE
    if not path.is_file():
        raise SeedError(f"{path}: missing (expected CoFID 2021 as CSV)")
    with path.open(encoding="utf-8-sig", newline="") as handle:
        # The first two rows under the header give CoFID's column codes and long names.
        rows = [r for r in csv.DictReader(handle) if r["Food Name"].strip()]
    counts = Counter(r["Food Name"].strip() for r in rows)
    seen: Counter[str] = Counter()
    foods = []
    for row in rows:
        name = row["Food Name"].strip()
        seen[name] += 1
        entry = name if counts[name] == 1 else f"{name} (entry {seen[name]} of {counts[name]})"
        where = f"{path}: {entry!r}"
        parts = [_value(row, c, where) for c in DISACCHARIDES]
        available, sugars = grams_of_carbohydrate(
            _value(row, "Carbohydrate (g)", where), _value(row, "Starch (g)", where),
            _value(row, "Oligosaccharide (g)", where), _value(row, "Total sugars (g)", where),
            None if None in parts else sum(parts))  # type: ignore[arg-type]
        fiber = _value(row, "AOAC fibre (g)", where)
        unknown, why = NO_VALUE.get(name, ((), None))
        nutrients = {
            "kcal": _value(row, "Energy (kcal) (kcal)", where),
            "carbohydrate_g": None if available is None else _round(available + (fiber or 0.0)),
            "sugars_g": None if sugars is None else _round(sugars),
            "fiber_g": fiber,
            "protein_g": _value(row, "Protein (g)", where),
            "fat_g": _value(row, "Fat (g)", where),
            "saturated_fat_g": _value(row, "Satd FA /100g fd (g)", where),
            "sodium_mg": _value(row, "Sodium (mg)", where),
        } | dict.fromkeys(unknown)
        foods.append(composition.TableFood(
            entry, entry, name, CATEGORY, (), "", NOTES.get(name) or why, nutrients,
            composition.energy_note(nutrients, ENERGY_WHY)))
    return foods, []


def _round(value: float) -> float:
    """Three decimals, as USDA gives its values (the conversion's float noise dropped)."""
    return round(value, 3)


def supersede_2015(session: Session, seed_dir: Path) -> dict[str, int]:
    """Turn the CoFID 2015 rows a database was seeded with (by food code) into the 2021 rows of
    the same food names, in place: the same id, so the meals logged with them stay (their
    values were frozen when logged); the 2021 values, entry, note and portions, and the
    everyday aliases they lack. Returns 2021 entry -> id of the rows taken over; a 2015 row
    whose name CoFID 2021 lacks stays as it was."""
    foods, measures = composition.read_compact(TABLE, seed_dir)
    by_name = {food.description: food for food in foods if food.code == food.description}
    everyday = composition.read_aliases(TABLE, seed_dir)
    old = session.scalars(select(Food).where(Food.fdc_dataset == TABLE.dataset.name,
                                             Food.owner_id.is_(None))).all()
    taken = {}
    for row in old:
        food = by_name.get(row.fdc_description)
        if not CODE_2015_RE.fullmatch(row.source_code or "") or food is None:
            continue
        row.source_code, row.category = food.code, food.category
        row.proxy_note, row.energy_note = food.note, food.energy_note
        row.search_weight = search.prior(curated=food.code in everyday, survey=True,
                                         food_group=food.category, description=food.description)
        for key, value in food.nutrients.items():
            setattr(row, key, value)
        taken[food.code] = row.id
    if not taken:
        return taken
    session.flush()
    ids = list(taken.values())
    session.execute(delete(Serving).where(Serving.food_id.in_(ids)),
                    execution_options={"synchronize_session": False})
    servings = [{"food_id": taken[m.code], "name": m.name[:80], "grams": m.grams,
                 "is_default": m.is_default, "source": m.source}
                for m in measures if m.code in taken]
    known = set(session.scalars(select(FoodAlias.alias_key)))
    aliases = [{"food_id": taken[code], "alias": alias, "alias_key": name_key(alias)}
               for code, names in everyday.items() if code in taken
               for alias in names if name_key(alias) not in known]
    for model, rows in ((Serving, servings), (FoodAlias, aliases)):
        if rows:
            session.execute(insert(model.__table__), rows)  # type: ignore[attr-defined]
    session.expire_all()
    return taken
