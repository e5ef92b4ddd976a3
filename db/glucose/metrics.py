"""The numbers of the standard CGM report and of a meal's glucose response, as plain functions
of readings. They describe what happened; none of them is advice.

Report (international consensus on CGM metrics, Battelino et al., Diabetes Care 2019;42:1593):
time in ranges as the percentage of readings below 54, 54-69, 70-180, 181-250 and above 250
mg/dL, which the consensus states as below 3.0, 3.0-3.8, 3.9-10.0, 10.1-13.9 and above 13.9
mmol/L (each reading counts by the boundary of its own unit: see range_key); the mean; the glucose
management indicator GMI (%) = 3.31 + 0.02392 x mean mg/dL (Bergenstal et al., Diabetes Care
2018;41:2275); the coefficient of variation CV = SD / mean x 100 with the sample SD (n - 1); the
glycemia risk index GRI = 3.0 x %<54 + 2.4 x %54-69 + 1.6 x %>250 + 0.8 x %181-250 (at most
100; zones A-E by 20s; Klonoff et al., J Diabetes Sci Technol 2023;17:1226); the
percentage of time with data, the time the readings cover (each the sampling interval after it,
up to the next one) over the period; and the ambulatory glucose
profile (AGP): the 5th, 25th, 50th, 75th and 95th percentiles of the readings in each
15-minute slot of the day (numpy's linear percentile), and those curves smoothed for the chart:
each slot's percentile becomes the weighted mean of its own and its two neighbours' on either
side, weights 1-2-3-2-1 (a centred 75-minute triangular window), taken round midnight (23:45 is
beside 00:00); a neighbour without readings is left out of the mean and a slot without readings
stays empty (smooth_profile). The IDC's AGP smooths its curves too, by a method its papers do not
spell out; this one is ours, stated so that the chart can be checked. Daily profiles: each of the
period's last 14 days' readings by local time of day (daily_profiles), as AGP v4 shows them.

Meal response (minutes from the start of the meal): the baseline is the mean of the readings
from 15 minutes before to the start; the peak the highest reading up to 3 h after; rise = peak
- baseline; the 2-h incremental area under the curve (iAUC, mg/dL x min) by the trapezoid rule
counting only area above the baseline, a segment that crosses it cut where it crosses (as GI
testing computes it: ISO 26642:2010; Wolever and Jenkins, Am J Clin Nutr 1986;43:167).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import date, datetime, timedelta
from statistics import mean, median, stdev

import numpy as np

from db.glucose.units import MMOL_L_TO_MG_DL

RANGE_KEYS: tuple[str, ...] = ("time_below_54", "time_54_69", "time_in_range", "time_181_250",
                               "time_above_250")
AGP_PERCENTILES: tuple[int, ...] = (5, 25, 50, 75, 95)
AGP_SLOT_MINUTES = 15
# The smoothing of the AGP's curves (smooth_profile): the weights of a slot's neighbours, centred.
AGP_SMOOTHING_WEIGHTS: tuple[int, ...] = (1, 2, 3, 2, 1)
# The daily profiles shown: the period's last this many days (AGP v4's page shows 14).
DAILY_PROFILE_DAYS = 14
BASELINE_FROM_MIN = -15.0
IAUC_MINUTES = 120.0
PEAK_MINUTES = 180.0
# The window a meal's curve is drawn over and another meal is looked for in.
WINDOW_MINUTES = (-30.0, 180.0)
# Dexcom's and Libre 3's exported readings are 5 minutes apart, Libre 1 and 2's 15.
MIN_INTERVAL_MINUTES = 5.0
# A gap between readings longer than this inside the baseline-to-2-h window is missing data
# (a Libre historic reading comes every 15 minutes, a Dexcom one every 5).
MAX_GAP_MINUTES = 20.0

FLAG_OTHER_MEAL = "another meal in the window"
FLAG_MISSING_DATA = "missing data"
FLAG_INSULIN_UNKNOWN = "a correction bolus cannot be excluded (foodtag holds no insulin data)"
FLAG_CORRECTION = "insulin was given after the meal (a correction bolus)"
# The flags that keep a meal out of the per-food figures unless the person keeps it (per_food).
EXCLUDING_FLAGS: tuple[str, ...] = (FLAG_OTHER_MEAL, FLAG_MISSING_DATA, FLAG_CORRECTION)
# A bolus from this long before the meal to this long after it is the meal's own; a later one
# within the curve is a correction, which changes the curve.
MEAL_BOLUS_MINUTES = (-30.0, 30.0)


# Readings are stored in mg/dL, an mmol/L one converted to 0.1 mg/dL: 10.0 mmol/L, the top of
# the range, becomes 180.2 and 13.9 becomes 250.4. Each upper boundary is the higher of its two
# spellings, so those readings count where the consensus puts them; a mg/dL device's whole
# numbers are unaffected (181 is above range either way). The lower boundaries already agree
# (3.0 -> 54.0, 3.9 -> 70.3, 3.8 -> 68.5).
IN_RANGE_MAX_MG_DL = max(180.0, round(10.0 * MMOL_L_TO_MG_DL, 1))
LEVEL_1_HIGH_MAX_MG_DL = max(250.0, round(13.9 * MMOL_L_TO_MG_DL, 1))


def range_key(mg_dl: float) -> str:
    """Which of RANGE_KEYS a reading falls in."""
    if mg_dl < 54:
        return "time_below_54"
    if mg_dl < 70:
        return "time_54_69"
    if mg_dl <= IN_RANGE_MAX_MG_DL:
        return "time_in_range"
    if mg_dl <= LEVEL_1_HIGH_MAX_MG_DL:
        return "time_181_250"
    return "time_above_250"


# The consensus goals for most adults with type 1 or type 2 diabetes (Battelino 2019): time in a
# range above (">") or below ("<") the share given, in percent.
GOALS: dict[str, tuple[str, float]] = {
    "time_in_range": (">", 70.0), "time_54_69": ("<", 4.0), "time_below_54": ("<", 1.0),
    "time_181_250": ("<", 25.0), "time_above_250": ("<", 5.0),
}
# Enough data for the report to describe the person's glucose (Battelino 2019): 14 days with at
# least 70% of the possible readings.
SUFFICIENT_DAYS = 14
SUFFICIENT_ACTIVE_PERCENT = 70.0
# The glycemia risk index (Klonoff et al., J Diabetes Sci Technol 2023;17:1226): weights of the
# time (%) below 54, 54-69, above 250 and 181-250, and its zones A-E by 20s.
GRI_WEIGHTS = {"time_below_54": 3.0, "time_54_69": 2.4, "time_above_250": 1.6, "time_181_250": 0.8}


def gri(ranges: dict[str, float]) -> float:
    """The glycemia risk index (0-100) of the time in ranges."""
    return min(100.0, sum(weight * ranges[key] for key, weight in GRI_WEIGHTS.items()))


def gri_components(ranges: dict[str, float]) -> tuple[float, float]:
    """The GRI's hypoglycemia component (%<54 + 0.8 x %54-69) and hyperglycemia component
    (%>250 + 0.5 x %181-250), the axes of Klonoff's GRI grid: GRI = 3.0 x hypo + 1.6 x hyper."""
    hypo = ranges["time_below_54"] + 0.8 * ranges["time_54_69"]
    hyper = ranges["time_above_250"] + 0.5 * ranges["time_181_250"]
    return hypo, hyper


def gri_zone(value: float) -> str:
    """A (lowest risk, 0-20) to E (above 80)."""
    return "ABCDE"[min(4, max(0, math.ceil(value / 20) - 1))]


def data_warning(days: int, active_percent: float) -> str | None:
    """Why the report may not describe the person's glucose yet, or None."""
    short = []
    if days < SUFFICIENT_DAYS:
        short.append(f"{days} days (the consensus asks for {SUFFICIENT_DAYS})")
    if active_percent < SUFFICIENT_ACTIVE_PERCENT:
        short.append(f"{active_percent:.1f}% time with data (at least {SUFFICIENT_ACTIVE_PERCENT:.0f}%)")
    return "Too little data: " + " and ".join(short) + "." if short else None


def gmi_percent(mean_mg_dl: float) -> float:
    """Glucose management indicator (Bergenstal et al. 2018)."""
    return 3.31 + 0.02392 * mean_mg_dl


def sampling_interval_minutes(minutes: Sequence[float]) -> float:
    """The usual spacing of sorted reading times (the median step) in whole minutes, at least
    MIN_INTERVAL_MINUTES: two devices' readings a few seconds apart, or a 1-minute stream, are
    not a sensor that samples more often than CGM exports do."""
    steps = [b - a for a, b in zip(minutes, minutes[1:]) if b > a]
    return float(max(MIN_INTERVAL_MINUTES, round(median(steps)))) if steps else MIN_INTERVAL_MINUTES


def covered_minutes(minutes: Sequence[float], interval_minutes: float) -> float:
    """How much of the time the sorted readings cover, each the interval after it (up to the
    next reading): a second device's readings in the same minutes add nothing."""
    if not minutes:
        return 0.0
    return sum(min(interval_minutes, b - a) for a, b in zip(minutes, minutes[1:])) + interval_minutes


def consensus_metrics(values: Sequence[float], minutes: Sequence[float], *, period_minutes: float,
                      interval_minutes: float) -> dict[str, float | int | None]:
    """The report's numbers for the readings of one period (keys as in the consensus), from their
    values and sorted times in ``minutes``."""
    count = len(values)
    out: dict[str, float | int | None] = {"readings": count}
    if count == 0:
        return out | {k: None for k in (*RANGE_KEYS, "mean_mg_dl", "gmi_percent", "cv_percent",
                                         "sd_mg_dl", "gri", "gri_zone")} | {"active_percent": 0.0}
    covered = covered_minutes(minutes, interval_minutes)
    counts = dict.fromkeys(RANGE_KEYS, 0)
    for value in values:
        counts[range_key(value)] += 1
    average = mean(values)
    spread = stdev(values) if count > 1 else None
    out |= {key: round(100.0 * n / count, 1) for key, n in counts.items()}
    out |= {
        "mean_mg_dl": round(average, 1),
        "gmi_percent": round(gmi_percent(average), 1),
        "sd_mg_dl": None if spread is None else round(spread, 1),
        "cv_percent": None if spread is None else round(100.0 * spread / average, 1),
        "active_percent": round(min(100.0, 100.0 * covered / period_minutes), 1),
    }
    risk = round(gri({key: 100.0 * n / count for key, n in counts.items()}), 1)
    return out | {"gri": risk, "gri_zone": gri_zone(risk)}


def agp_profile(minute_of_day: Sequence[float], values: Sequence[float],
                slot_minutes: int = AGP_SLOT_MINUTES) -> dict[str, list]:
    """Per slot of the day: its start ("minute") and the AGP percentiles ("p5" ... "p95"),
    None for a slot without readings."""
    slots = 24 * 60 // slot_minutes
    index = (np.asarray(minute_of_day, dtype=float) // slot_minutes).astype(int)
    data = np.asarray(values, dtype=float)
    order = np.argsort(index, kind="stable")
    bounds = np.searchsorted(index[order], np.arange(slots + 1))
    profile: dict[str, list] = {"minute": [s * slot_minutes for s in range(slots)]}
    profile |= {f"p{p}": [] for p in AGP_PERCENTILES}
    for slot in range(slots):
        chunk = data[order[bounds[slot]:bounds[slot + 1]]]
        found = np.percentile(chunk, AGP_PERCENTILES) if chunk.size else [None] * 5
        for p, value in zip(AGP_PERCENTILES, found):
            profile[f"p{p}"].append(None if value is None else round(float(value), 1))
    return profile


def smooth_profile(profile: dict[str, list], weights: Sequence[float] = AGP_SMOOTHING_WEIGHTS) -> dict[str, list]:
    """``profile`` (agp_profile) with each percentile curve smoothed round the clock: a slot's
    value is the weighted mean of the slots from len(weights) // 2 before it to as many after
    (the first slot's neighbours include the last ones), leaving out those without readings; a
    slot without readings stays None. Every curve gets the same weights at each slot, so the
    smoothed percentiles keep their order."""
    half = len(weights) // 2
    slots = len(profile["minute"])
    out: dict[str, list] = {"minute": list(profile["minute"])}
    for p in AGP_PERCENTILES:
        curve = profile[f"p{p}"]
        smoothed = []
        for slot in range(slots):
            if curve[slot] is None:
                smoothed.append(None)
                continue
            near = [(w, curve[(slot + offset) % slots]) for offset, w in zip(range(-half, half + 1), weights)]
            near = [(w, v) for w, v in near if v is not None]
            smoothed.append(round(sum(w * v for w, v in near) / sum(w for w, _ in near), 1))
        out[f"p{p}"] = smoothed
    return out


def daily_profiles(local_times: Sequence[datetime], values: Sequence[float], first: date,
                   last: date, days: int = DAILY_PROFILE_DAYS) -> list[dict]:
    """The last ``days`` local days up to ``last`` (none before ``first``), each {"date": ISO
    date, "readings": [[minute of the day, mg/dL], ...]} in time order; ``local_times`` are the
    readings' local wall-clock times, sorted."""
    start = max(first, last - timedelta(days=days - 1))
    by_day: dict[date, list[list[float]]] = {}
    for when, value in zip(local_times, values):
        if start <= when.date() <= last:
            minute = when.hour * 60 + when.minute + when.second / 60
            by_day.setdefault(when.date(), []).append([round(minute, 2), value])
    count = (last - start).days + 1
    return [{"date": (start + timedelta(days=n)).isoformat(), "readings": by_day.get(start + timedelta(days=n), [])}
            for n in range(count)]


# --- a meal's response ----------------------------------------------------------------------

@dataclass
class MealResponse:
    baseline_mg_dl: float | None = None
    peak_mg_dl: float | None = None
    rise_mg_dl: float | None = None
    minutes_to_peak: float | None = None
    iauc_2h: float | None = None  # mg/dL x min
    flags: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


def interpolate(minutes: Sequence[float], values: Sequence[float], at: float) -> float | None:
    """The curve's value at ``at`` by a straight line between the readings either side; None
    when ``at`` is outside the readings."""
    for (t0, v0), (t1, v1) in zip(zip(minutes, values), zip(minutes[1:], values[1:])):
        if t0 <= at <= t1:
            return v0 if t1 == t0 else v0 + (v1 - v0) * (at - t0) / (t1 - t0)
    if minutes and minutes[-1] == at:
        return values[-1]
    return None


def incremental_auc(minutes: Sequence[float], values: Sequence[float], baseline: float,
                    start: float = 0.0, end: float = IAUC_MINUTES) -> float | None:
    """Area above ``baseline`` from ``start`` to ``end`` by the trapezoid rule, a segment that
    crosses the baseline counted only for its part above; None when the readings do not
    cover both ends."""
    first, last = interpolate(minutes, values, start), interpolate(minutes, values, end)
    if first is None or last is None:
        return None
    inner = [(t, v) for t, v in zip(minutes, values) if start < t < end]
    points = [(start, first), *inner, (end, last)]
    area = 0.0
    for (t0, v0), (t1, v1) in zip(points, points[1:]):
        d0, d1, width = v0 - baseline, v1 - baseline, t1 - t0
        if d0 >= 0 and d1 >= 0:
            area += (d0 + d1) / 2 * width
        elif d0 >= 0 > d1:
            area += d0 * d0 / (d0 - d1) * width / 2
        elif d1 >= 0 > d0:
            area += d1 * d1 / (d1 - d0) * width / 2
    return area


def meal_response(minutes: Sequence[float], values: Sequence[float], *,
                  other_meal: bool = False, bolus_minutes: Sequence[float] | None = None) -> MealResponse:
    """The response to one meal from readings at ``minutes`` after its start (sorted; negative
    before it). Numbers that the readings cannot give stay None, flagged missing data.
    ``bolus_minutes``: when the person's devices recorded boluses around the meal (None: no
    insulin data at all, so a correction cannot be excluded)."""
    response = MealResponse()
    if other_meal:
        response.flags.append(FLAG_OTHER_MEAL)
    before = [v for t, v in zip(minutes, values) if BASELINE_FROM_MIN <= t <= 0]
    after = [(t, v) for t, v in zip(minutes, values) if 0 < t <= PEAK_MINUTES]
    if _has_gap(minutes):
        response.flags.append(FLAG_MISSING_DATA)
    if bolus_minutes is None:
        response.flags.append(FLAG_INSULIN_UNKNOWN)
    elif any(MEAL_BOLUS_MINUTES[1] < t <= PEAK_MINUTES for t in bolus_minutes):
        response.flags.append(FLAG_CORRECTION)
    if not before or not after:
        return response
    baseline = mean(before)
    peak_at, peak = max(after, key=lambda p: (p[1], -p[0]))  # the first of equal peaks
    response.baseline_mg_dl = round(baseline, 1)
    response.peak_mg_dl = round(peak, 1)
    response.rise_mg_dl = round(peak - baseline, 1)
    response.minutes_to_peak = round(peak_at, 1)
    area = incremental_auc(minutes, values, baseline)
    response.iauc_2h = None if area is None else round(area, 1)
    return response


def _has_gap(minutes: Sequence[float]) -> bool:
    """No reading for the baseline, none at or after 2 h, or a step longer than MAX_GAP_MINUTES
    between the readings around the 2-h window."""
    near = [t for t in minutes
            if BASELINE_FROM_MIN - MAX_GAP_MINUTES <= t <= IAUC_MINUTES + MAX_GAP_MINUTES]
    if not any(BASELINE_FROM_MIN <= t <= 0 for t in near) or not near or near[-1] < IAUC_MINUTES:
        return True
    return any(b - a > MAX_GAP_MINUTES for a, b in zip(near, near[1:]))


# --- the person's response per food ---------------------------------------------------------

# Below this many clean meals (no other meal, no missing data, no correction bolus; or flagged
# but kept by the person) a food's mean is not shown: with two meals the spread of one person's
# responses (easily 30-50 %) swamps any difference.
MIN_MEALS_PER_FOOD = 3
# A meal counts for a food when the food gives at least this share of its carbohydrate.
MAIN_FOOD_CARB_SHARE = 0.5


def per_food(meals: Sequence[dict]) -> list[dict]:
    """Foods ranked by mean iAUC per 10 g of carbohydrate, highest first, each with the mean
    rise per 10 g, the count and the sample SD; only foods with MIN_MEALS_PER_FOOD clean
    meals. A flagged meal never counts unless the person keeps it ("kept"), and then only when
    its readings give its numbers. Each meal: {"main_food", "main_share", "carbohydrate_g",
    "response": MealResponse, "kept" (optional, False)}."""
    by_food: dict[str, list[tuple[float, float]]] = {}
    for meal in meals:
        response: MealResponse = meal["response"]
        carbs = meal["carbohydrate_g"] or 0.0
        flagged = set(EXCLUDING_FLAGS) & set(response.flags)
        if ((flagged and not meal.get("kept", False)) or carbs < 5 or meal["main_share"] < MAIN_FOOD_CARB_SHARE
                or response.iauc_2h is None or response.rise_mg_dl is None):
            continue
        tens = carbs / 10.0
        by_food.setdefault(meal["main_food"], []).append(
            (response.iauc_2h / tens, response.rise_mg_dl / tens))
    ranked = []
    for food, pairs in by_food.items():
        if len(pairs) < MIN_MEALS_PER_FOOD:
            continue
        iaucs, rises = [p[0] for p in pairs], [p[1] for p in pairs]
        ranked.append({"food": food, "meals": len(pairs),
                       "iauc_per_10g": round(mean(iaucs), 1), "iauc_per_10g_sd": round(stdev(iaucs), 1),
                       "rise_per_10g": round(mean(rises), 1), "rise_per_10g_sd": round(stdev(rises), 1)})
    ranked.sort(key=lambda row: (-row["iauc_per_10g"], row["food"]))
    return ranked
