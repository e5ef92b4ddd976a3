"""The glucose unit a person reads, mg/dL or mmol/L, and the one rule for showing a value in
it. Readings are stored and every number is computed in mg/dL (db.glucose.metrics); only what is
shown changes, so the same readings give the same statistics in either unit."""

from __future__ import annotations

from db.errors import InvalidValue

MG_DL = "mg/dL"
MMOL_L = "mmol/L"
UNITS: tuple[str, ...] = (MG_DL, MMOL_L)
# mmol/L x 18.016 = mg/dL: the molar mass of glucose, 180.16 g/mol, over 10.
MMOL_L_TO_MG_DL = 18.016

# The unit each region's meters and sensors show by default (db.nutrition.REGIONS): mg/dL in
# the United States, Germany and Austria, mmol/L (the SI unit) in the United Kingdom, as in
# most of the rest of the world (Medtronic's unit note, myparadigm.eu/EN/Units.htm: "mg/dl in
# the United States of America, Austria, Belgium, Germany and some other countries; mmol/l
# according to SI standard in rest of the world").
REGION_UNITS: dict[str, str] = {"US": MG_DL, "UK": MMOL_L, "DE": MG_DL}

# The consensus's range boundaries as each unit writes them (Battelino et al., Diabetes Care
# 2019;42:1593), by db.glucose.metrics.RANGE_KEYS; not conversions of each other (181 mg/dL
# is written 10.1 mmol/L, where converting gives 10.0).
RANGE_BOUNDS: dict[str, dict[str, str]] = {
    MG_DL: {"time_above_250": ">250", "time_181_250": "181-250", "time_in_range": "70-180",
            "time_54_69": "54-69", "time_below_54": "<54"},
    MMOL_L: {"time_above_250": ">13.9", "time_181_250": "10.1-13.9", "time_in_range": "3.9-10.0",
             "time_54_69": "3.0-3.8", "time_below_54": "<3.0"},
}


def check_unit(unit: object) -> str:
    """"mg/dL" or "mmol/L" (any case) as stored; InvalidValue otherwise."""
    found = [u for u in UNITS if isinstance(unit, str) and unit.strip().lower() == u.lower()]
    if not found:
        raise InvalidValue(f"glucose unit must be one of {', '.join(UNITS)}, got {unit!r}")
    return found[0]


def unit_for(region: str, chosen: str | None) -> str:
    """The unit a person is shown: their own choice, else their region's (REGION_UNITS)."""
    return chosen if chosen is not None else REGION_UNITS[region]


def in_unit(mg_dl: float | None, unit: str) -> float | None:
    """A glucose value (or a difference, an SD, an area: anything proportional to mg/dL) as
    shown in ``unit``: mmol/L with one decimal, mg/dL a whole number; None stays None."""
    if mg_dl is None:
        return None
    if unit == MMOL_L:
        return round(mg_dl / MMOL_L_TO_MG_DL, 1)
    return float(round(mg_dl))


def shown(mg_dl: float | None, unit: str) -> str:
    """in_unit as text, "-" for None: "5.6" (mmol/L) or "101" (mg/dL)."""
    value = in_unit(mg_dl, unit)
    if value is None:
        return "-"
    return f"{value:.1f}" if unit == MMOL_L else f"{value:.0f}"
