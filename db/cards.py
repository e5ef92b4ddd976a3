"""Rows as the plain dicts the app, the CLI and JSON output use; the nutrition card's shape is
`Card`, documented once here. All arithmetic is delegated to db.nutrition; this module only
picks, rounds and names.
"""

import re
from typing import Any, TypedDict

from db import datasets, nutrition
from db.tables import COMPOSITE_DATASET, Food, MealEntry

# What a card says of a food without a GI row: our table lacks it (a value may well be
# published for a food we could not map to a table row).
GI_UNKNOWN = "not in our GI table"

class Source(TypedDict):
    dataset: str  # the table the row comes from (db.datasets: SR28, FNDDS, CoFID, Swiss, own, composite)
    fdc_id: int | None  # USDA FoodData Central id (SR28, FNDDS)
    code: str | None  # the entry in its own table: NDB number, FNDDS food code, CoFID code, Swiss ID
    description: str | None  # the entry's name in that table
    proxy_note: str | None  # set when a close food's values stand in for this one
    citation: str | None
    attribution: str | None  # what the table's licence requires wherever its rows are shown


class ServingInfo(TypedDict):
    name: str  # "1 cup sliced"
    grams: float
    default: bool  # the portion a card shows when none is asked for


class GlycemicIndex(TypedDict):
    value: float
    citation: str
    source: str


class GlycemicLoad(TypedDict):
    value: float
    band: str  # low, medium or high


class Exchanges(TypedDict):
    unit_g: float  # grams of carbohydrate per exchange: 15 (US choices, CP), 12 (BE), 10 (KE)
    value: float | None  # exchanges in the portion, to 0.1 (None without carbohydrate data)
    as_taught: float | None  # as a person counts them: US choices to the nearest half, others to 0.1
    unit: str  # the unit's name
    basis: str  # which carbohydrate counts: total minus fibre, or available


class Card(TypedDict):
    """The nutrition card of one portion: what the page shows, POST /api/analyze and
    GET /api/foods return, batch writes as cells and a logged entry freezes."""
    food: str
    food_id: int
    category: str | None
    source: Source
    per_100g: dict[str, float | None]  # every db.nutrition.NUTRIENTS (None where the table has no value)
    portion: dict[str, Any]  # "grams", "serving" (None for grams typed) and every nutrient for the portion
    servings: list[ServingInfo]
    glycemic_index: GlycemicIndex | None
    glycemic_load: GlycemicLoad | None
    exchanges: Exchanges


def nutrition_card(food: Food, grams: float, serving: str | None, unit_g: float) -> Card:
    """What ``grams`` of ``food`` contain, with source, servings, GI, GL and exchanges."""
    portion = nutrition.for_portion(food.per_100g, grams)
    gi = food.glycemic_index
    gl = nutrition.glycemic_load(gi.gi if gi else None, portion["available_carbohydrate_g"])
    unit = nutrition.carb_unit(unit_g)
    exchanges = nutrition.exchanges(portion["carbohydrate_g"], portion["fiber_g"], unit_g)
    return {
        "food": food.name,
        "food_id": food.id,
        "category": food.category,
        "source": {
            "dataset": food.fdc_dataset,
            "fdc_id": food.fdc_id,
            "code": food.source_code,
            "description": food.fdc_description,
            "proxy_note": food.proxy_note,
            **(composite_citation(food) if food.fdc_dataset == COMPOSITE_DATASET
               else source_citation(food.fdc_dataset)),
        },
        # USDA gives up to three decimals; keep them (and hide float noise in the derived value).
        "per_100g": nutrition.rounded(nutrition.with_available(food.per_100g), 3),
        "portion": {"grams": round(grams, 1), "serving": serving, **nutrition.rounded(portion)},
        "servings": [
            {"name": s.name, "grams": s.grams, "default": s.is_default} for s in food.servings
        ],
        "glycemic_index": (
            {"value": gi.gi, "citation": gi_citation(gi.gi_source), "source": gi.gi_source}
            if gi else None
        ),
        "glycemic_load": (
            {"value": round(gl, 1), "band": nutrition.gl_band(gl)} if gl is not None else None
        ),
        "exchanges": {
            "unit_g": unit_g,
            "value": round(exchanges, 1) if exchanges is not None else None,
            # US choices to the nearest half, as taught; other units as "value".
            "as_taught": (nutrition.exchanges_as_taught(exchanges, unit.key)
                          if exchanges is not None else None),
            "unit": nutrition.EXCHANGE_UNITS_G[unit.grams],
            "basis": unit.basis,
        },
    }


def source_citation(dataset: str) -> dict[str, str | None]:
    """{"citation", "attribution"} of a food's table (db.datasets): the attribution is what
    its licence requires wherever its rows are shown (CoFID's OGL, the FSVO's citation);
    None for composites and own foods."""
    table = datasets.dataset(dataset)
    return {"citation": table.citation if table else None,
            "attribution": table.attribution if table else None}


def composite_citation(food: Food) -> dict[str, str | None]:
    """A composite shows the attributions its ingredients' tables require (fish and chips is
    made of CoFID rows: the OGL statement comes with it)."""
    tables = {link.food.fdc_dataset: datasets.dataset(link.food.fdc_dataset)
              for link in food.ingredients}
    cited = [t for t in tables.values() if t is not None]
    return {"citation": "; ".join(dict.fromkeys(t.citation for t in cited if t.citation)) or None,
            "attribution": " ".join(dict.fromkeys(t.attribution for t in cited if t.attribution))
            or None}


def source_text(source: dict[str, Any]) -> str:
    """Where a card's numbers come from, in one line: the table and the row's entry, then the
    attribution its licence requires (the app and the CLI show this)."""
    if source["dataset"] == "Own food":
        return "your own food, from its label"
    if source["dataset"] == "Recipe":
        return "your recipe, summed from its ingredients"
    if source["dataset"] == COMPOSITE_DATASET:
        text = "food-table rows summed by weight (see the description)"
        return f"{text}. {source['attribution']}" if source.get("attribution") else text
    table = datasets.dataset(source["dataset"])
    title, entry = (table.title, table.entry) if table else (source["dataset"], "code")
    code = source.get("code")
    ids = [f"FDC ID {source['fdc_id']}" if source.get("fdc_id") else "",
           "" if not code else f"{entry} {code!r}" if entry == "food name" else f"{entry} {code}"]
    text = f"{title}, " + ", ".join(i for i in ids if i)
    attribution = table.attribution if table else None
    return f"{text}. {attribution}" if attribution and attribution not in text else text


_CITATION_RE = re.compile(r"^(?P<author>[A-Z][\w'-]+)\b.*?\b(?P<year>(?:19|20)\d\d)\b", re.S)


def gi_citation(gi_source: str) -> str:
    """The short citation a card shows ("Atkinson 2008"): first author and year of the GI
    source; the whole source text when it does not start that way."""
    found = _CITATION_RE.match(gi_source)
    return f"{found['author']} {found['year']}" if found else gi_source


def frozen_values(food: Food, grams: float) -> dict[str, float | None]:
    """The nutrient columns a new meal entry stores: the portion's values and its GL."""
    portion = nutrition.for_portion(food.per_100g, grams)
    gi = food.glycemic_index
    portion["glycemic_load"] = nutrition.glycemic_load(
        gi.gi if gi else None, portion["available_carbohydrate_g"]
    )
    return portion


def stored_values(entry: MealEntry) -> dict[str, float | None]:
    """An entry's frozen nutrient columns (NUTRIENTS and glycemic_load), unrounded."""
    return {name: getattr(entry, name) for name in (*nutrition.NUTRIENTS, "glycemic_load")}


def entry_dict(entry: MealEntry) -> dict[str, Any]:
    return {
        "id": entry.id,
        "user": entry.user.name,
        "eaten_at": entry.eaten_at.isoformat(timespec="seconds"),
        "meal_type": entry.meal_type,
        "food": entry.food_name,
        "food_id": entry.food_id,
        "grams": round(entry.grams, 1),
        "serving": entry.serving,
        "note": entry.note,
        **nutrition.rounded(stored_values(entry)),
        "predicted_label": entry.predicted_label,
        "confidence": entry.confidence,
        "model_version": entry.model_version,
        "external_id": entry.external_id,
        "photo_sha256": entry.photo_sha256,
        "is_correction": entry.is_correction,
        "ingredients": recipe_text(entry.food),
    }


# The dietitian's CSV: what a person reads first (when, what, how much, the carbohydrate and
# its exchanges in the user's unit, the USDA entry), then the ids that machines match on.
EXPORT_COLUMNS: tuple[str, ...] = (
    "user", "date", "time", "meal_type", "food", "grams", "serving", *nutrition.NUTRIENTS, "glycemic_load",
    "exchanges", "exchange_unit", "usda_dataset", "fdc_id", "ndb_number", "note", "ingredients",
    "id", "food_id", "predicted_label", "confidence", "model_version", "external_id", "photo_sha256",
    "is_correction",
)


def export_row(entry: MealEntry, unit_g: float) -> dict[str, Any]:
    """One entry as a row of EXPORT_COLUMNS: values rounded as shown on screen, exchanges in
    the user's unit (``unit_g``) and named with it, the food's USDA ids."""
    food = entry.food
    exchanges = nutrition.exchanges(entry.carbohydrate_g, entry.fiber_g, unit_g)
    return {
        "user": entry.user.name,
        "date": entry.eaten_at.date().isoformat(),
        "time": entry.eaten_at.strftime("%H:%M"),
        "meal_type": entry.meal_type,
        "food": entry.food_name,
        "grams": round(entry.grams, 1),
        "serving": entry.serving,
        **nutrition.rounded(stored_values(entry)),
        "exchanges": None if exchanges is None else round(exchanges, 1),
        "exchange_unit": f"{nutrition.EXCHANGE_UNITS_G[unit_g]} (1 = {unit_g:g} g)",
        "usda_dataset": food.fdc_dataset,
        "fdc_id": food.fdc_id,
        # SR Legacy's own number (NDB); other datasets' codes are not NDB numbers.
        "ndb_number": food.source_code if food.fdc_dataset == "SR Legacy" else None,
        "note": entry.note,
        "ingredients": recipe_text(food),
        "id": entry.id,
        "food_id": entry.food_id,
        "predicted_label": entry.predicted_label,
        "confidence": None if entry.confidence is None else round(entry.confidence, 3),
        "model_version": entry.model_version,
        "external_id": entry.external_id,
        "photo_sha256": entry.photo_sha256,
        "is_correction": entry.is_correction,
    }


def recipe_text(food: Food) -> str | None:
    """A recipe's ingredients for the dietitian ("4 servings: 300 g Rice, ...; 50 g ...", with
    "of 850 g cooked" after the servings when the dish was weighed), None for other foods."""
    if food.recipe_servings is None:
        return None
    items = "; ".join(f"{i.grams:g} g {i.food_name}" for i in food.ingredients)
    cooked = f" of {food.recipe_cooked_g:g} g cooked" if food.recipe_cooked_g else ""
    return f"{food.recipe_servings:g} servings{cooked}: {items}"


def hit_text(hit: dict[str, Any], unit_g: float) -> str:
    """What a search hit shows beside its name: its default serving's carbohydrate on the basis
    of the person's unit (``unit_g``: available carbohydrate for BE, KE and the UK CP, as the
    card's headline), or for a hypo treatment no table lists, what to read from the pack
    (db.hypo)."""
    if hit["food_id"] is None:
        return f"enter {hit['asks']}"
    return hit_portion_text(hit["portion"], unit_g)


def hit_portion_text(portion: dict[str, Any], unit_g: float) -> str:
    """A search hit's default serving and its carbohydrate, as the CLI and the app list it:
    "1 cup (164 g): 45 g carbohydrate"."""
    if portion["grams"] is None:
        return "no default serving"
    named = portion.get("amount") or portion["serving"]  # "2 × 1 slice" where the query asked
    grams = round(portion["grams"], 1)
    serving = f"{named} ({grams:g} g)" if named else f"{grams:g} g"
    carbohydrate = nutrition.carbs_counted(portion, unit_g)
    return f"{serving}: {'n/a' if carbohydrate is None else f'{carbohydrate:g} g'} carbohydrate"
