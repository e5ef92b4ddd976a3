"""Every derived nutrition value, computed here and nowhere else. Pure functions, no database.

Conventions:
- Foods store USDA values per 100 g; a value is ``None`` where USDA has none. Derived values
  stay ``None`` when an input they need is ``None``: nothing is guessed.
- Available carbohydrate = carbohydrate (USDA "by difference", which includes fiber) - fiber.
  Where USDA gives no fiber value, all carbohydrate counts as available: USDA leaves fiber
  out mainly where there is none to measure (drinks, meat, sugars), and counting it as
  available never under-reports carbohydrate to someone dosing insulin.
- Glycemic load (GL) = GI x available carbohydrate (g) / 100, the definition used by the
  International GI tables (Atkinson et al., Diabetes Care 2008), which count available
  carbohydrate.
- Carbohydrate exchanges follow each convention's own basis (``CARB_UNITS``): the US
  carbohydrate choice (15 g) counts total carbohydrate, minus half the fiber when the portion
  has more than 5 g of fiber (American Diabetes Association / Academy of Nutrition and
  Dietetics "Choose Your Foods"); the German/Austrian BE (12 g), the KE (10 g) and the UK 10 g
  carbohydrate portion (CP) count available carbohydrate (total minus fiber), as the UK and
  European labels state carbohydrate without fiber. The fiber rule is per portion, so a day's
  exchanges are the sum of its entries' exchanges.
- Values shown to people are rounded to one decimal by ``rounded``; stored values keep full
  precision so totals are summed before rounding.
"""

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from db import validate
from db.errors import InvalidValue

# Stored per 100 g on each food (and, for the portion eaten, on each meal entry).
STORED_NUTRIENTS: tuple[str, ...] = (
    "kcal", "carbohydrate_g", "sugars_g", "fiber_g", "protein_g", "fat_g",
    "saturated_fat_g", "sodium_mg",
)
# Every food has these (a seed row, a label): energy and the three macronutrients behind it.
REQUIRED_NUTRIENTS: tuple[str, ...] = ("kcal", "carbohydrate_g", "protein_g", "fat_g")
# What a nutrition card and a meal entry report: the stored ones plus available carbohydrate.
NUTRIENTS: tuple[str, ...] = (
    "kcal", "carbohydrate_g", "available_carbohydrate_g", "sugars_g", "fiber_g", "protein_g",
    "fat_g", "saturated_fat_g", "sodium_mg",
)
# Each of NUTRIENTS as people read it: (label, unit).
NUTRIENT_LABELS: dict[str, tuple[str, str]] = {
    "kcal": ("Energy", "kcal"),
    "carbohydrate_g": ("Carbohydrate", "g"),
    "available_carbohydrate_g": ("Available carbohydrate (carbs - fiber)", "g"),
    "sugars_g": ("Sugars", "g"),
    "fiber_g": ("Fiber", "g"),
    "protein_g": ("Protein", "g"),
    "fat_g": ("Fat", "g"),
    "saturated_fat_g": ("Saturated fat", "g"),
    "sodium_mg": ("Sodium", "mg"),
}


@dataclass(frozen=True)
class CarbUnit:
    """One carbohydrate-counting convention: its name, grams per unit and what it counts."""

    key: str
    name: str
    grams: float
    basis: str  # TOTAL_MINUS_HALF_FIBER or AVAILABLE


TOTAL_MINUS_HALF_FIBER = "total carbohydrate, minus half the fiber when over 5 g"
AVAILABLE = "available carbohydrate (total minus fiber)"
# US rule: subtract half the fiber when a portion has more than this much.
US_FIBER_THRESHOLD_G = 5.0

CARB_UNITS: tuple[CarbUnit, ...] = (
    CarbUnit("us_choice", "US carbohydrate choice", 15.0, TOTAL_MINUS_HALF_FIBER),
    CarbUnit("be", "BE (Broteinheit)", 12.0, AVAILABLE),
    CarbUnit("ke", "KE (Kohlenhydrateinheit)", 10.0, AVAILABLE),
    CarbUnit("uk_cp", "UK carbohydrate portion (CP)", 10.0, AVAILABLE),
)
# The user's setting is the unit's size; 10 g is KE and the UK CP alike (same basis too).
EXCHANGE_UNITS_G: dict[float, str] = {
    grams: " / ".join(u.name for u in CARB_UNITS if u.grams == grams)
    for grams in dict.fromkeys(u.grams for u in CARB_UNITS)
}


@dataclass(frozen=True)
class Region:
    """Where a person counts carbohydrate: the exchange units taught there (the first is the
    default) and the vocabulary search prefers."""

    code: str
    name: str
    units_g: tuple[float, ...]


REGIONS: dict[str, Region] = {
    "US": Region("US", "United States", (15.0,)),
    "UK": Region("UK", "United Kingdom", (10.0,)),
    "DE": Region("DE", "Germany / Austria", (12.0, 10.0)),  # BE 12 g; KE 10 g also taught
}
DEFAULT_REGION = "US"
DEFAULT_EXCHANGE_UNIT_G = REGIONS[DEFAULT_REGION].units_g[0]
# US carbohydrate choices are taught in halves ("1 1/2 choices"); the exact value goes beside.
US_CHOICE_STEP = 0.5

# energy_consistent(): the seed contract allows 15 %; below ENERGY_SLACK_KCAL the USDA
# rounding of tiny macro values (black coffee, tea, broth) dominates any percentage.
ENERGY_TOLERANCE = 0.15
ENERGY_SLACK_KCAL = 2.0

# Glycemic-load bands (Sydney University GI tables): low <= 10, medium 11-19, high >= 20.
# Those bands are written for whole numbers; for a GL with decimals we band the value as
# shown (one decimal) and call anything above 10 medium and anything from 20 up high, so
# 10.4 is "medium", never "low": the reading that does not under-warn a diabetic.
GL_LOW_MAX = 10.0
GL_HIGH_MIN = 20.0


def check_exchange_unit(unit_g: object) -> float:
    """The exchange unit (15, 12 or 10 g) as float; raises InvalidValue otherwise."""
    if isinstance(unit_g, bool) or not isinstance(unit_g, (int, float)) or (
        float(unit_g) not in EXCHANGE_UNITS_G
    ):
        allowed = ", ".join(f"{u:g}" for u in EXCHANGE_UNITS_G)
        raise InvalidValue(f"exchange unit must be one of {allowed} g, got {unit_g!r}")
    return float(unit_g)


def check_region(region: object) -> str:
    """The region code (US, UK, DE; any case) as stored; raises InvalidValue otherwise."""
    code = region.strip().upper() if isinstance(region, str) else None
    if code not in REGIONS:
        raise InvalidValue(f"region must be one of {', '.join(REGIONS)}, got {region!r}")
    return code


def region_unit(region: str, current_unit_g: float | None = None) -> float:
    """The exchange unit for ``region``: ``current_unit_g`` when that region teaches it (a
    German who counts KE keeps 10 g), else the region's default."""
    units = REGIONS[check_region(region)].units_g
    return current_unit_g if current_unit_g in units else units[0]


def available_carbohydrate(carbohydrate_g: float | None, fiber_g: float | None) -> float | None:
    """Carbohydrate minus fiber (never below 0); all of it when fiber is unknown."""
    if carbohydrate_g is None:
        return None
    if fiber_g is None:
        return carbohydrate_g
    return max(0.0, carbohydrate_g - fiber_g)


def with_available(values: Mapping[str, float | None]) -> dict[str, float | None]:
    """The stored nutrients of ``values`` in NUTRIENTS order, available carbohydrate added."""
    out = {name: values.get(name) for name in NUTRIENTS}
    out["available_carbohydrate_g"] = available_carbohydrate(
        values.get("carbohydrate_g"), values.get("fiber_g")
    )
    return out


def scale(values: Mapping[str, float | None], factor: float) -> dict[str, float | None]:
    """Every non-None value times ``factor`` (None stays None). A non-finite factor or result
    is refused: SQLite would store NaN as NULL, silently dropping the meal from totals."""
    scaled = {name: None if v is None else v * factor for name, v in values.items()}
    if not math.isfinite(factor) or any(v is not None and not math.isfinite(v) for v in scaled.values()):
        raise InvalidValue(f"nutrient values would not be finite numbers (scale factor {factor!r})")
    return scaled


def for_portion(per_100g: Mapping[str, float | None], grams: float) -> dict[str, float | None]:
    """Nutrients (NUTRIENTS keys) in ``grams`` of a food given its values per 100 g."""
    return scale(with_available(per_100g), validate.grams(grams) / 100.0)


def glycemic_load(gi: int | None, available_carbohydrate_g: float | None) -> float | None:
    """GI x available carbohydrate / 100; None without a published GI or a carb value."""
    if gi is None or available_carbohydrate_g is None:
        return None
    return gi * available_carbohydrate_g / 100.0


def gl_band(gl: float) -> str:
    """"low" (<= 10), "medium" (above 10, below 20) or "high" (>= 20), on the value as shown."""
    shown = round(gl, 1)
    if shown <= GL_LOW_MAX:
        return "low"
    if shown < GL_HIGH_MIN:
        return "medium"
    return "high"


def carb_unit(unit: object) -> CarbUnit:
    """The convention for a setting (15, 12, 10) or a key ("us_choice", "be", "ke", "uk_cp")."""
    for candidate in CARB_UNITS:
        if unit == candidate.key:
            return candidate
    grams = check_exchange_unit(unit)
    return next(c for c in CARB_UNITS if c.grams == grams)


def carbs_counted(portion: Mapping[str, float | None], unit: object) -> float | None:
    """The carbohydrate grams a person reads beside their unit: available carbohydrate where the
    unit counts it (BE, KE, the UK CP; UK and German labels print it as "carbohydrate"), total
    in the US, so the grams and the count on one line agree (the card's headline, the search
    list, the log's confirmation)."""
    key = "available_carbohydrate_g" if carb_unit(unit).basis == AVAILABLE else "carbohydrate_g"
    return portion.get(key)


def counted_carbohydrate(carbohydrate_g: float | None, fiber_g: float | None,
                         unit: object) -> float | None:
    """The grams of carbohydrate the convention counts for one portion."""
    convention = carb_unit(unit)
    if carbohydrate_g is None:
        return None
    if convention.basis == AVAILABLE:
        return available_carbohydrate(carbohydrate_g, fiber_g)
    if fiber_g is not None and fiber_g > US_FIBER_THRESHOLD_G:
        return max(0.0, carbohydrate_g - fiber_g / 2.0)
    return carbohydrate_g


def exchanges(carbohydrate_g: float | None, fiber_g: float | None, unit: object) -> float | None:
    """How many units of the convention one portion (its total carbohydrate and fiber) makes."""
    counted = counted_carbohydrate(carbohydrate_g, fiber_g, unit)
    return None if counted is None else counted / carb_unit(unit).grams


def exchanges_as_taught(value: float, unit: object) -> float:
    """Exchanges as a person is taught to count them: US choices to the nearest half, the
    other units to one decimal (halves round up, as counted by hand)."""
    step = US_CHOICE_STEP if carb_unit(unit).key == "us_choice" else 0.1
    return round(math.floor(value / step + 0.5 + 1e-9) * step, 1)


def energy_estimate(carbohydrate_g: float, protein_g: float, fat_g: float) -> float:
    """Atwater general factors: 4 kcal/g carbohydrate and protein, 9 kcal/g fat."""
    return 4.0 * carbohydrate_g + 4.0 * protein_g + 9.0 * fat_g


def energy_consistent(kcal: float, carbohydrate_g: float, protein_g: float, fat_g: float) -> bool:
    """True when ``kcal`` is within 15 % (or 2 kcal) of the Atwater estimate."""
    estimate = energy_estimate(carbohydrate_g, protein_g, fat_g)
    return abs(kcal - estimate) <= max(ENERGY_TOLERANCE * estimate, ENERGY_SLACK_KCAL)


def totals(
    rows: Iterable[Mapping[str, float | None]], keys: Iterable[str]
) -> dict[str, float | None]:
    """Sum of each key over ``rows``, skipping None; None when no row has a value."""
    keys = tuple(keys)
    sums: dict[str, float | None] = dict.fromkeys(keys)
    for row in rows:
        for key in keys:
            value = row.get(key)
            if value is not None:
                sums[key] = (sums[key] or 0.0) + value
    return sums


def rounded(values: Mapping[str, float | None], digits: int = 1) -> dict[str, float | None]:
    """Values as shown to people: ``digits`` decimals, None kept."""
    return {name: None if v is None else round(v, digits) for name, v in values.items()}
