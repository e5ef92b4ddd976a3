"""Charts of a CGM report (the ambulatory glucose profile with meals overlaid) and of one meal's
curve, as matplotlib figures and PNG bytes a person can bring to their clinic."""

from __future__ import annotations

import io
import textwrap
from typing import Any

from matplotlib.figure import Figure

from db.glucose import metrics

TARGET_RANGE = (70, 180)
_LABELS = {"time_above_250": "Very high >250", "time_181_250": "High 181-250",
           "time_in_range": "In range 70-180", "time_54_69": "Low 54-69", "time_below_54": "Very low <54"}


def _hours(minutes: list[int]) -> list[float]:
    return [m / 60 for m in minutes]


def agp_figure(report: dict[str, Any]) -> Figure:
    """The AGP of ``report`` (db.glucose.service.report): median, 25-75 and 5-95 percentile
    bands by time of day, the target range, each meal's carbohydrate and each insulin dose the
    devices recorded at its time of day, the time-in-ranges bar and the consensus metrics."""
    # Figure, not pyplot: no global registry of open figures to leak from a server.
    figure = Figure(figsize=(12, 4.8))
    agp, ranges, numbers = figure.subplots(1, 3, width_ratios=[3, 0.45, 1.1])
    _ranges_bar(ranges, report)
    profile = report["agp"]
    slot = metrics.AGP_SLOT_MINUTES / 60
    hours = [h + slot / 2 for h in _hours(profile["minute"])]
    have = [i for i, v in enumerate(profile["p50"]) if v is not None]
    pick = lambda key: [profile[key][i] for i in have]  # noqa: E731
    x = [hours[i] for i in have]
    agp.axhspan(*TARGET_RANGE, color="#2e7d32", alpha=0.08, label="target range 70-180")
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
            agp.scatter([e["minute_of_day"] / 60 for e in shown], [44] * len(shown), marker=marker,
                        color=colour, s=18, label=f"{kind} insulin (device)", zorder=3)
    agp.set_xlim(0, 24)
    agp.set_xticks(range(0, 25, 3), [f"{h:02d}:00" for h in range(0, 25, 3)])
    agp.set_ylim(40, 400)
    agp.set_ylabel("glucose (mg/dL)")
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
    for key in reversed(list(_LABELS)):  # very low first, at the bottom
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
    """The consensus metrics as the lines beside the chart (and in the app)."""
    def value(key: str, unit: str = "%") -> str:
        if report.get(key) is None:
            return "-"
        # Percentages keep their one decimal (6.0%, not 6%), as the consensus reports them.
        return (f"{report[key]:.1f}" if unit == "%" else f"{report[key]:g}") + unit

    def goal(key: str) -> str:
        sign, share = metrics.GOALS[key]
        return f"  goal {sign}{share:g}%"
    lines = [f"{label:<17}{value(key):>7}{goal(key)}" for key, label in _LABELS.items()]
    gri = "-" if report.get("gri") is None else f"{report['gri']:.1f} ({report['gri_zone']})"
    lines += ["", f"{'Mean':<17}{value('mean_mg_dl', ' mg/dL'):>7}", f"{'GMI':<17}{value('gmi_percent'):>7}",
              f"{'CV':<17}{value('cv_percent'):>7}  goal <=36%", f"{'GRI (zone)':<17}{gri:>7}",
              f"{'Time with data':<17}{value('active_percent'):>7}",
              f"{'Readings':<17}{report.get('readings', 0):>7}"]
    if report.get("data_warning"):
        lines += ["", *textwrap.wrap(report["data_warning"], 34)]
    lines += ["", "Shows what happened.", "Not dosing advice;", "predicts nothing."]
    return "\n".join(lines)



def meal_figure(meal: dict[str, Any]) -> Figure:
    """One meal's curve from 30 min before to 3 h after, its baseline and its peak."""
    figure = Figure(figsize=(6, 3.4))
    axes = figure.subplots()
    curve = meal["curve"]
    response = meal["response"]
    if curve:
        axes.plot([c[0] for c in curve], [c[1] for c in curve], marker=".", color="#0d47a1")
    if response["baseline_mg_dl"] is not None:
        axes.axhline(response["baseline_mg_dl"], color="grey", linestyle="--", linewidth=1, label="baseline")
        axes.plot([response["minutes_to_peak"]], [response["peak_mg_dl"]], "o", color="#c62828", label="peak")
    axes.axvline(0, color="#ef6c00", linewidth=1)
    axes.set_xlim(*metrics.WINDOW_MINUTES)
    axes.set_xlabel("minutes from the meal")
    axes.set_ylabel("glucose (mg/dL)")
    axes.set_title(f"{meal['eaten_at']}: {', '.join(meal['foods'])} ({meal['carbohydrate_g']:g} g carbohydrate)",
                   fontsize=9)
    if response["baseline_mg_dl"] is not None:
        axes.legend(fontsize=8)
    figure.tight_layout()
    return figure


def response_text(meal: dict[str, Any]) -> str:
    """One meal's response figures (db.glucose.service.meal_of_entry) as a short Markdown list;
    numbers the readings cannot give show as "-" and the flags say why."""
    response = meal["response"]

    def value(key: str, unit: str) -> str:
        return "-" if response[key] is None else f"{response[key]:g} {unit}"
    lines = [f"**Glucose after this meal** ({', '.join(meal['foods'])}, {meal['carbohydrate_g']:g} g "
             "carbohydrate)", "",
             f"- Baseline {value('baseline_mg_dl', 'mg/dL')}, peak {value('peak_mg_dl', 'mg/dL')}, "
             f"rise {value('rise_mg_dl', 'mg/dL')}",
             f"- Time to peak {value('minutes_to_peak', 'min')}; "
             f"2-h iAUC {value('iauc_2h', 'mg/dL x min')}"]
    lines += [f"- ⚠️ {flag}" for flag in response["flags"]]
    return "\n".join(lines)


def png(figure: Figure) -> bytes:
    """The figure as PNG bytes."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=120)
    return buffer.getvalue()
