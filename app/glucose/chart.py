"""Charts of a CGM report (the ambulatory glucose profile with meals overlaid, the daily profiles,
and the whole report on one page as a PNG and a PDF a person can bring to their clinic) and of
one meal's curve, as matplotlib figures. Values arrive in mg/dL and are shown in the person's unit
(db.glucose.units.in_unit)."""

from __future__ import annotations

import io
import math
import textwrap
from datetime import date
from typing import Any

import numpy as np
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


# How the AGP's curves are made (db.glucose.metrics.smooth_profile), said on every chart.
METHOD = (f"Curves: 5th-95th percentiles of each {metrics.AGP_SLOT_MINUTES}-minute slot of the day, each "
          f"smoothed with its neighbours (weights {'-'.join(map(str, metrics.AGP_SMOOTHING_WEIGHTS))}, a "
          f"{len(metrics.AGP_SMOOTHING_WEIGHTS) * metrics.AGP_SLOT_MINUTES}-minute window, round midnight).")


def _curve(profile: dict[str, list], key: str, unit: str) -> tuple[list[float], list[float]]:
    """(hours, values in ``unit``) of one smoothed percentile curve, each slot at its middle, NaN
    where a slot has no readings (the line breaks there), and joined round midnight: the curve
    starts and ends at 00:00 at the mean of the day's first and last slots."""
    slot = metrics.AGP_SLOT_MINUTES / 60
    hours = [m / 60 + slot / 2 for m in profile["minute"]]
    values = [math.nan if v is None else in_unit(v, unit) for v in profile[key]]
    midnight = (values[0] + values[-1]) / 2  # NaN when either is missing
    return [0.0, *hours, 24.0], [midnight, *values, midnight]


def _draw_agp(agp, report: dict[str, Any], *, legend_below: bool = False) -> None:
    """The AGP on ``agp``: the smoothed median, 25-75 and 5-95 percentile bands by time of day,
    the target range, each meal's carbohydrate and each insulin dose the devices recorded at its
    time of day, in the report's glucose unit."""
    unit = report["glucose_unit"]
    profile = report["agp_smoothed"]
    agp.axhspan(*(in_unit(v, unit) for v in TARGET_RANGE_MG_DL), color="#2e7d32", alpha=0.08,
                label=f"target range {units.RANGE_BOUNDS[unit]['time_in_range']} {unit}")
    if any(v is not None for v in profile["p50"]):
        x, low = _curve(profile, "p5", unit)
        agp.fill_between(x, low, _curve(profile, "p95", unit)[1], color="#1565c0", alpha=0.15, label="5-95 %")
        agp.fill_between(x, _curve(profile, "p25", unit)[1], _curve(profile, "p75", unit)[1], color="#1565c0",
                         alpha=0.35, label="25-75 %")
        agp.plot(x, _curve(profile, "p50", unit)[1], color="#0d47a1", linewidth=2, label="median")
    meals = report.get("meals", [])
    handles, labels = [], []
    if meals:
        carbs = agp.twinx()
        carbs.scatter([m["minute_of_day"] / 60 for m in meals], [m["carbohydrate_g"] for m in meals],
                      marker="v", color="#ef6c00", s=30, label="meal (g carbohydrate)")
        carbs.set_ylabel("meal carbohydrate (g)", color="#ef6c00")
        carbs.set_ylim(0, max(150, max(m["carbohydrate_g"] for m in meals) * 1.1))
        handles, labels = carbs.get_legend_handles_labels()
    doses = [e for e in report.get("events", []) if e["kind"] in ("bolus", "basal")]
    for kind, marker, colour in (("bolus", "^", "#6a1b9a"), ("basal", "s", "#00838f")):
        shown = [e for e in doses if e["kind"] == kind]
        if shown:  # along the bottom at their time of day: what the devices recorded, not advice
            agp.scatter([e["minute_of_day"] / 60 for e in shown], [in_unit(DOSE_MARK_MG_DL, unit)] * len(shown),
                        marker=marker, color=colour, s=18, label=f"{kind} insulin (device)", zorder=3)
    agp.set_xlim(0, 24)
    agp.set_xticks(range(0, 25, 3), [f"{h:02d}:00" for h in range(0, 25, 3)])
    agp.set_ylim(*(in_unit(v, unit) for v in AXIS_MG_DL))
    agp.set_ylabel(f"glucose ({unit})")
    own_handles, own_labels = agp.get_legend_handles_labels()
    if legend_below:
        agp.legend(own_handles + handles, own_labels + labels, loc="upper center", bbox_to_anchor=(0.5, -0.1),
                   ncol=4, fontsize=7, frameon=False)
    else:
        agp.legend(own_handles + handles, own_labels + labels, loc="upper left", fontsize=8)


def agp_figure(report: dict[str, Any]) -> Figure:
    """The AGP of ``report`` (db.glucose.service.report) as the Glucose tab shows it: the chart
    (_draw_agp), the time-in-ranges bar and the consensus metrics, in the report's unit."""
    # Figure, not pyplot: no global registry of open figures to leak from a server.
    figure = Figure(figsize=(12, 4.8))
    agp, ranges, numbers = figure.subplots(1, 3, width_ratios=[3, 0.45, 1.1])
    _ranges_bar(ranges, report)
    _draw_agp(agp, report)
    agp.set_title(f"Ambulatory glucose profile {report['start']} to {report['end']} ({report['time_zone']})")
    agp.set_xlabel("\n".join(textwrap.wrap(METHOD, 100)), fontsize=7)
    numbers.axis("off")
    numbers.text(0, 1, report_text(report), va="top", family="monospace", fontsize=9)
    figure.tight_layout()
    return figure


def _draw_day(axes, day: dict[str, Any], unit: str, *, first_column: bool) -> None:
    """One day's readings (db.glucose.metrics.daily_profiles) by time of day on small axes: the
    target range, the curve (broken where readings are missing or the clock went back), high
    shaded orange above it and low red below."""
    low, high = (in_unit(v, unit) for v in TARGET_RANGE_MG_DL)
    axes.axhspan(low, high, color="#2e7d32", alpha=0.08)
    axes.axhline(low, color="#2e7d32", linewidth=0.5)
    axes.axhline(high, color="#2e7d32", linewidth=0.5)
    x, y = [], []
    for minute, mg_dl in day["readings"]:
        if x and not 0 < minute / 60 - x[-1] <= metrics.MAX_GAP_MINUTES / 60:
            x.append(math.nan)
            y.append(math.nan)
        x.append(minute / 60)
        y.append(in_unit(mg_dl, unit))
    when = date.fromisoformat(day["date"])
    axes.set_title(f"{when:%a} {when.day} {when:%b}", fontsize=7, pad=2)
    if x:
        xs, ys = np.array(x), np.array(y)
        axes.plot(xs, ys, color="#0d47a1", linewidth=0.7)
        axes.fill_between(xs, ys, high, where=ys > high, color="#ef6c00", alpha=0.5, interpolate=True, linewidth=0)
        axes.fill_between(xs, ys, low, where=ys < low, color="#c62828", alpha=0.6, interpolate=True, linewidth=0)
    else:
        axes.text(12, (low + high) / 2, "no data", ha="center", va="center", fontsize=7, color="grey")
    axes.set_xlim(0, 24)
    axes.set_ylim(*(in_unit(v, unit) for v in AXIS_MG_DL))
    axes.set_xticks([12], ["12:00"], fontsize=6)
    axes.set_yticks([low, high], [units.shown(TARGET_RANGE_MG_DL[0], unit), units.shown(TARGET_RANGE_MG_DL[1], unit)],
                    fontsize=6)
    axes.tick_params(length=2, pad=1, labelleft=first_column)


def _draw_days(figure: Figure, place, report: dict[str, Any], rows: int | None = None) -> list:
    """The daily profiles in the grid cell ``place`` of ``figure``, 7 a row in ``rows`` rows
    (default: as many as the days fill); returns their axes."""
    days = report.get("daily", [])
    grid = place.subgridspec(rows or max(1, math.ceil(len(days) / 7)), 7, wspace=0.08, hspace=0.5)
    drawn = []
    for n, day in enumerate(days):
        axes = figure.add_subplot(grid[n // 7, n % 7])
        _draw_day(axes, day, report["glucose_unit"], first_column=n % 7 == 0)
        drawn.append(axes)
    return drawn


def daily_figure(report: dict[str, Any]) -> Figure:
    """The daily profiles of the report's last 14 days (at most), as the Glucose tab shows them."""
    rows = max(1, math.ceil(len(report.get("daily", [])) / 7))
    figure = Figure(figsize=(12, 1.7 * rows + 0.6))
    _draw_days(figure, figure.add_gridspec(1, 1, left=0.04, right=0.99, top=1 - 0.45 / (1.7 * rows + 0.6),
                                           bottom=0.1)[0], report)
    figure.suptitle(f"Daily glucose profiles ({report['glucose_unit']}; target range shaded, high orange, "
                    "low red)", fontsize=9)
    return figure


def report_page(report: dict[str, Any]) -> Figure:
    """The whole report on one A4 page, as the standard AGP lays it out: the period and the
    data warning, the consensus metrics with their goals, the time-in-ranges bar and the GRI
    grid, the AGP, the daily profiles of the last 14 days, and how the curves are made; glucose
    in the report's unit. Saved as the PNG and the PDF for the clinic."""
    unit = report["glucose_unit"]
    figure = Figure(figsize=(8.27, 11.69))  # A4 portrait
    grid = figure.add_gridspec(3, 1, height_ratios=[3.1, 3.6, 3.4], hspace=0.3, left=0.08, right=0.92,
                               top=0.9, bottom=0.075)
    figure.text(0.08, 0.975, "Ambulatory glucose profile (AGP) report", fontsize=14, weight="bold", va="top")
    figure.text(0.08, 0.952, f"{report['start']} to {report['end']} ({report['days']} days), times in "
                f"{report['time_zone']}, glucose in {unit}", fontsize=9, va="top")
    if report.get("data_warning"):
        figure.text(0.08, 0.935, report["data_warning"], fontsize=9, va="top", color="#c62828")
    top = grid[0].subgridspec(1, 3, width_ratios=[1.45, 0.75, 1.1], wspace=0.25)
    numbers = figure.add_subplot(top[0])
    numbers.axis("off")
    numbers.set_title("Glucose statistics and goals", fontsize=9, loc="left")
    numbers.text(0, 1, report_text(report), va="top", family="monospace", fontsize=7.5)
    _ranges_bar(figure.add_subplot(top[1]), report)
    _gri_grid(figure.add_subplot(top[2]), report)
    agp = figure.add_subplot(grid[1])
    _draw_agp(agp, report, legend_below=True)
    agp.set_title("Ambulatory glucose profile", fontsize=10, loc="left")
    days = grid[2].subgridspec(2, 1, height_ratios=[0.08, 1], hspace=0.18)
    title = figure.add_subplot(days[0])
    title.axis("off")
    title.text(0, 0.5, f"Daily glucose profiles, the last {len(report.get('daily', []))} days (target range "
               "shaded, high orange, low red)", fontsize=10, va="center")
    # Always the rows of DAILY_PROFILE_DAYS: a shorter period leaves places empty, the panels keep their size.
    _draw_days(figure, days[1], report, rows=math.ceil(metrics.DAILY_PROFILE_DAYS / 7))
    footer = [*textwrap.wrap(METHOD, 120), "Shows what happened; not dosing advice, and predicts nothing (foodtag)."]
    figure.text(0.08, 0.045, "\n".join(footer), fontsize=7, va="top", linespacing=1.4)
    return figure


# Klonoff's GRI zones (GRI 0-20 A ... above 80 E) as the grid colours them.
_ZONE_COLOURS = ("#2e7d32", "#9ccc65", "#fdd835", "#fb8c00", "#c62828")


def _gri_grid(axes, report: dict[str, Any]) -> None:
    """Klonoff's GRI grid: the hypoglycemia component across, the hyperglycemia component up,
    zones A-E by 20s of GRI = 3.0 x hypo + 1.6 x hyper, the report's point on them."""
    hypo_axis, hyper_axis = np.meshgrid(np.linspace(0, 30, 121), np.linspace(0, 60, 121))
    axes.contourf(hypo_axis, hyper_axis, 3.0 * hypo_axis + 1.6 * hyper_axis, levels=[0, 20, 40, 60, 80, 1000],
                  colors=_ZONE_COLOURS, alpha=0.35)
    for zone, (x, y) in zip("ABCDE", ((1.5, 4), (5, 11), (8, 19), (12, 26), (22, 40))):
        axes.text(x, y, zone, fontsize=8, weight="bold", color="#424242", ha="center", va="center")
    if report.get("gri") is not None:
        hypo, hyper = metrics.gri_components({key: report[key] for key in metrics.RANGE_KEYS})
        axes.plot([min(hypo, 30)], [min(hyper, 60)], "o", color="black", markersize=5)
    axes.set_xlim(0, 30)
    axes.set_ylim(0, 60)
    axes.set_xlabel("hypoglycemia component (%)", fontsize=7)
    axes.set_ylabel("hyperglycemia component (%)", fontsize=7)
    axes.tick_params(labelsize=6)
    gri = "-" if report.get("gri") is None else f"{report['gri']:.1f}, zone {report['gri_zone']}"
    axes.set_title(f"Glycemia risk index {gri}", fontsize=9)


_COLOURS = {"time_above_250": "#ef6c00", "time_181_250": "#ffb74d", "time_in_range": "#2e7d32",
            "time_54_69": "#e53935", "time_below_54": "#8e0000"}


def _ranges_bar(axes, report: dict[str, Any]) -> None:
    """The consensus's time-in-ranges bar: one stacked column, very low at the bottom, each
    share with its goal."""
    bottom, middles = 0.0, []
    keys = list(reversed(list(_NAMES)))  # very low first, at the bottom
    for key in keys:
        share = report.get(key) or 0.0
        axes.bar(0, share, bottom=bottom, color=_COLOURS[key], width=0.6)
        middles.append(bottom + share / 2)
        bottom += share
    for key, at in zip(keys, label_heights(middles)):
        sign, goal = metrics.GOALS[key]
        axes.text(0.4, at, f"{report.get(key) or 0.0:.1f}% ({sign}{goal:g}%)", va="center", fontsize=7)
    axes.set_xlim(-0.4, 2.2)
    axes.set_ylim(0, 100)
    axes.set_title("Time in ranges (goal)", fontsize=9)
    axes.axis("off")


def label_heights(middles: list[float], gap: float = 6.0, top: float = 97.0) -> list[float]:
    """Heights (0-100) for the bar's labels, each as near its share's middle as it can be while
    ``gap`` apart from the next, none above ``top``: two thin shares' labels never overlap."""
    heights = []
    for middle in middles:  # upwards, each at least gap above the one below
        heights.append(max(middle, heights[-1] + gap) if heights else max(middle, 100 - top))
    for n in range(len(heights) - 1, -1, -1):  # then down from the top where they ran past it
        ceiling = top if n == len(heights) - 1 else heights[n + 1] - gap
        heights[n] = min(heights[n], ceiling)
    return heights


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


def png(figure: Figure, dpi: int = 120) -> bytes:
    """The figure as PNG bytes."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def report_png(report: dict[str, Any], page: Figure | None = None) -> bytes:
    """The one-page report (``page``, default report_page(report)) as a PNG, sharp enough to print."""
    return png(page or report_page(report), dpi=150)


def report_pdf(report: dict[str, Any], page: Figure | None = None) -> bytes:
    """The one-page report (``page``, default report_page(report)) as a one-page PDF; no creation
    date, so the same report gives the same bytes."""
    buffer = io.BytesIO()
    (page or report_page(report)).savefig(buffer, format="pdf", metadata={
        "Title": f"AGP report {report['start']} to {report['end']}", "Creator": "foodtag", "CreationDate": None})
    return buffer.getvalue()
