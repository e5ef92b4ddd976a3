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
- Carbohydrate exchanges count available carbohydrate too: the German BE (12 g) and KE (10 g)
  are defined on digestible carbohydrate, and we use the same base for the US 15 g choice so
  the three units differ only by their size.
- Values shown to people are rounded to one decimal by ``rounded``; stored values keep full
  precision so totals are summed before rounding.
"""

import math
from collections.abc import Iterable, Mapping

from db import validate
from db.errors import InvalidValue

# Stored per 100 g on each food (and, for the portion eaten, on each meal entry).
STORED_NUTRIENTS: tuple[str, ...] = (
    "kcal", "carbohydrate_g", "sugars_g", "fiber_g", "protein_g", "fat_g",
    "saturated_fat_g", "sodium_mg",
)
# What a nutrition card and a meal entry report: the stored ones plus available carbohydrate.
NUTRIENTS: tuple[str, ...] = (
    "kcal", "carbohydrate_g", "available_carbohydrate_g", "sugars_g", "fiber_g", "protein_g",
    "fat_g", "saturated_fat_g", "sodium_mg",
)

# Grams of available carbohydrate in one exchange.
EXCHANGE_UNITS_G: dict[float, str] = {
    15.0: "US carbohydrate choice",
    12.0: "BE (Broteinheit)",
    10.0: "KE (Kohlenhydrateinheit)",
}

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


def exchanges(available_carbohydrate_g: float | None, unit_g: float) -> float | None:
    """How many exchanges of ``unit_g`` grams the available carbohydrate makes."""
    unit = check_exchange_unit(unit_g)
    if available_carbohydrate_g is None:
        return None
    return available_carbohydrate_g / unit


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
