"""Charts of a CGM report (the ambulatory glucose profile with meals overlaid) and of one meal's
curve, as matplotlib figures and PNG bytes a person can bring to their clinic. Values arrive in
mg/dL and are shown in the person's unit (db.glucose.units.in_unit)."""

from __future__ import annotations

import io
import textwrap
from typing import Any

from matplotlib.figure import Figure

from db.glucose import metrics, units
from db.glucose.units import in_unit

TARGET_RANGE_MG_DL = (70, 180)
# The y axis of the AGP, and the height its insulin doses are drawn at along the bottom.
AXIS_MG_DL = (40, 400)
DOSE_MARK_MG_DL = 44
_NAMES = {"time_above_250": "Very high", "time_181_250": "High", "time_in_range": "In range",
          "time_54_69": "Low", "time_below_54": "Very low"}


def range_labels(unit: str) -> dict[str, str]:
    """Each of metrics.RANGE_KEYS named with its boundaries in ``unit``: "In range 3.9-10.0"."""
    return {key: f"{name} {units.RANGE_BOUNDS[unit][key]}" for key, name in _NAMES.items()}


def _hours(minutes: list[int]) -> list[float]:
    return [m / 60 for m in minutes]


def agp_figure(report: dict[str, Any]) -> Figure:
    """The AGP of ``report`` (db.glucose.service.report): median, 25-75 and 5-95 percentile
    bands by time of day, the target range, each meal's carbohydrate and each insulin dose the
    devices recorded at its time of day, the time-in-ranges bar and the consensus metrics, in
    the report's glucose unit."""
    # Figure, not pyplot: no global registry of open figures to leak from a server.
    figure = Figure(figsize=(12, 4.8))
    agp, ranges, numbers = figure.subplots(1, 3, width_ratios=[3, 0.45, 1.1])
    unit = report["glucose_unit"]
    _ranges_bar(ranges, report)
    profile = report["agp"]
    slot = metrics.AGP_SLOT_MINUTES / 60
    hours = [h + slot / 2 for h in _hours(profile["minute"])]
    have = [i for i, v in enumerate(profile["p50"]) if v is not None]
    pick = lambda key: [in_unit(profile[key][i], unit) for i in have]  # noqa: E731
    x = [hours[i] for i in have]
    agp.axhspan(*(in_unit(v, unit) for v in TARGET_RANGE_MG_DL), color="#2e7d32", alpha=0.08,
                label=f"target range {units.RANGE_BOUNDS[unit]['time_in_range']} {unit}")
    if have:
        agp.fill_between(x, pick("p5"), pick("p95"), color="#1565c0", alpha=0.15, label="5-95 %")
        agp.fill_between(x, pick("p25"), pick("p75"), color="#1565c0", alpha=0.35, label="25-75 %")
        agp.plot(x, pick("p50"), color="#0d47a1", linewidth=2, label="median")
    meals = report.get("meals", [])
    if meals:
        carbs = agp.twinx()
        carbs.scatter([m["minute_of_day"] / 60 for m in meals], [m["carbohydrate_g"] for m in meals],
                      marker="v", color="#ef6c00", s=30, label="meal (g carbohydrate)")
        carbs.set_ylabel("meal carbohydrate (g)", color="#ef6c00")
        carbs.set_ylim(0, max(150, max(m["carbohydrate_g"] for m in meals) * 1.1))
    doses = [e for e in report.get("events", []) if e["kind"] in ("bolus", "basal")]
    for kind, marker, colour in (("bolus", "^", "#6a1b9a"), ("basal", "s", "#00838f")):
        shown = [e for e in doses if e["kind"] == kind]
        if shown:  # along the bottom at their time of day: what the devices recorded, not advice
            agp.scatter([e["minute_of_day"] / 60 for e in shown], [in_unit(DOSE_MARK_MG_DL, unit)] * len(shown), marker=marker,
                        color=colour, s=18, label=f"{kind} insulin (device)", zorder=3)
    agp.set_xlim(0, 24)
    agp.set_xticks(range(0, 25, 3), [f"{h:02d}:00" for h in range(0, 25, 3)])
    agp.set_ylim(*(in_unit(v, unit) for v in AXIS_MG_DL))
    agp.set_ylabel(f"glucose ({unit})")
    agp.set_title(f"Ambulatory glucose profile {report['start']} to {report['end']} ({report['time_zone']})")
    agp.legend(loc="upper left", fontsize=8)
    numbers.axis("off")
    numbers.text(0, 1, report_text(report), va="top", family="monospace", fontsize=9)
    figure.tight_layout()
    return figure


_COLOURS = {"time_above_250": "#ef6c00", "time_181_250": "#ffb74d", "time_in_range": "#2e7d32",
            "time_54_69": "#e53935", "time_below_54": "#8e0000"}


def _ranges_bar(axes, report: dict[str, Any]) -> None:
    """The consensus's time-in-ranges bar: one stacked column, very low at the bottom, each
    share with its goal."""
    bottom = 0.0
    for key in reversed(list(_NAMES)):  # very low first, at the bottom
        share = report.get(key) or 0.0
        axes.bar(0, share, bottom=bottom, color=_COLOURS[key], width=0.6)
        sign, goal = metrics.GOALS[key]
        axes.text(0.4, bottom + share / 2, f"{share:.1f}% ({sign}{goal:g}%)", va="center", fontsize=7)
        bottom += share
    axes.set_xlim(-0.4, 2.2)
    axes.set_ylim(0, 100)
    axes.set_title("Time in ranges (goal)", fontsize=9)
    axes.axis("off")


def report_text(report: dict[str, Any]) -> str:
    """The consensus metrics as the lines beside the chart (and in the app), glucose in the
    report's unit."""
    unit = report["glucose_unit"]

    def value(key: str) -> str:
        # Percentages keep their one decimal (6.0%, not 6%), as the consensus reports them.
        return "-" if report.get(key) is None else f"{report[key]:.1f}%"

    def goal(key: str) -> str:
        sign, share = metrics.GOALS[key]
        return f"  goal {sign}{share:g}%"

    def glucose(key: str) -> str:
        return "-" if report.get(key) is None else f"{units.shown(report[key], unit)} {unit}"
    lines = [f"{label:<17}{value(key):>7}{goal(key)}" for key, label in range_labels(unit).items()]
    gri = "-" if report.get("gri") is None else f"{report['gri']:.1f} ({report['gri_zone']})"
    lines += ["", f"{'Mean':<17}{glucose('mean_mg_dl')}", f"{'SD':<17}{glucose('sd_mg_dl')}",
              f"{'GMI':<17}{value('gmi_percent'):>7}",
              f"{'CV':<17}{value('cv_percent'):>7}  goal <=36%", f"{'GRI (zone)':<17}{gri:>7}",
              f"{'Time with data':<17}{value('active_percent'):>7}",
              f"{'Readings':<17}{report.get('readings', 0):>7}"]
    if report.get("data_warning"):
        lines += ["", *textwrap.wrap(report["data_warning"], 34)]
    lines += ["", "Shows what happened.", "Not dosing advice;", "predicts nothing."]
    return "\n".join(lines)


def meal_figure(meal: dict[str, Any], unit: str) -> Figure:
    """One meal's curve from 30 min before to 3 h after, its baseline and its peak, in ``unit``."""
    figure = Figure(figsize=(6, 3.4))
    axes = figure.subplots()
    curve = meal["curve"]
    response = meal["response"]
    if curve:
        axes.plot([c[0] for c in curve], [in_unit(c[1], unit) for c in curve], marker=".", color="#0d47a1")
    if response["baseline_mg_dl"] is not None:
        axes.axhline(in_unit(response["baseline_mg_dl"], unit), color="grey", linestyle="--", linewidth=1,
                     label="baseline")
        axes.plot([response["minutes_to_peak"]], [in_unit(response["peak_mg_dl"], unit)], "o", color="#c62828",
                  label="peak")
    axes.axvline(0, color="#ef6c00", linewidth=1)
    axes.set_xlim(*metrics.WINDOW_MINUTES)
    axes.set_xlabel("minutes from the meal")
    axes.set_ylabel(f"glucose ({unit})")
    axes.set_title(f"{meal['eaten_at']}: {', '.join(meal['foods'])} ({meal['carbohydrate_g']:g} g carbohydrate)",
                   fontsize=9)
    if response["baseline_mg_dl"] is not None:
        axes.legend(fontsize=8)
    figure.tight_layout()
    return figure


def response_text(meal: dict[str, Any], unit: str) -> str:
    """One meal's response figures (db.glucose.service.meal_of_entry) as a short Markdown list,
    glucose in ``unit``; numbers the readings cannot give show as "-" and the flags say why."""
    response = meal["response"]

    def glucose(key: str, per: str = "") -> str:
        return "-" if response[key] is None else f"{units.shown(response[key], unit)} {unit}{per}"
    lines = [f"**Glucose after this meal** ({', '.join(meal['foods'])}, {meal['carbohydrate_g']:g} g "
             "carbohydrate)", "",
             f"- Baseline {glucose('baseline_mg_dl')}, peak {glucose('peak_mg_dl')}, "
             f"rise {glucose('rise_mg_dl')}",
             "- Time to peak " + ("-" if response["minutes_to_peak"] is None else f"{response['minutes_to_peak']:g} min")
             + f"; 2-h iAUC {glucose('iauc_2h', ' x min')}"]
    lines += [f"- ⚠️ {flag}" for flag in response["flags"]]
    if meal.get("kept") and set(response["flags"]) & set(metrics.EXCLUDING_FLAGS):
        lines.append("- Counted in your per-food figures all the same: you chose to keep it (Glucose tab)")
    return "\n".join(lines)


def png(figure: Figure) -> bytes:
    """The figure as PNG bytes."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=120)
    return buffer.getvalue()
