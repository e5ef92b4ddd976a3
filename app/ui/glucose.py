"""The Glucose tab: import a CGM or meter export, the standard report with its AGP chart and
daily profiles (and the whole report on one page, as a PNG and a PDF to bring to the clinic),
each meal beside the glucose that followed it, and the person's response per food. Thin handlers over db.glucose.service; the user comes from the sign-in, never
from the page. It shows what happened: no dosing advice, no prediction.
"""

from __future__ import annotations

import math

from collections.abc import Callable
from datetime import date
from pathlib import Path
from types import SimpleNamespace

import gradio as gr
import pandas as pd

from app.errors import UploadTooLarge
from app.glucose import chart
from app.security import Uploads
from app.ui.common import QUIET, NumberField
from db.errors import InvalidValue
from db.glucose import formats
from db.glucose import service as glucose
from db.glucose.units import in_unit
from models.errors import FoodtagError

NOTE = ("**Shows what happened.** These numbers describe your glucose after your meals; they are "
        "not dosing advice and predict nothing. A correction bolus cannot be excluded for any meal: "
        "foodtag holds no insulin data. Talk to your diabetes team before changing treatment.")
MEAL_COLUMNS = ["Meal (local time)", "Foods", "Carbohydrate g", "Baseline", "Peak", "Rise",
                "Minutes to peak", "iAUC 2 h", "Flags"]
NO_READINGS = "No glucose readings around this meal (30 min before to 3 h after); import them in the Glucose tab."
FOOD_COLUMNS = ["Food", "Meals", "iAUC per 10 g", "SD", "Rise per 10 g", "SD "]
# The columns holding glucose, with what follows the unit in their headings (an area is per minute).
_IN_UNIT = {"Baseline": "", "Peak": "", "Rise": "", "iAUC 2 h": " x min", "iAUC per 10 g": " x min",
            "Rise per 10 g": ""}


def columns_in(unit: str, columns: list[str]) -> list[str]:
    """The table's headings, each glucose column naming ``unit``: "Peak (mmol/L)"."""
    return [f"{c} ({unit}{_IN_UNIT[c]})" if c in _IN_UNIT else c for c in columns]


class GlucoseTab:
    """The Glucose tab, and an entry's glucose in the Today tab. One handler per event;
    ``user_of(request)`` names the signed-in user, ``owned_path(stem, suffix, user)`` gives a
    file path only that user may download, ``uploads`` deletes an export once imported. ``c``
    holds the components, made by build() and build_entry_response()."""

    def __init__(self, user_of: Callable[[gr.Request], str],
                 owned_path: Callable[[str, str, str], Path], uploads: Uploads) -> None:
        self.user_of = user_of
        self.owned_path = owned_path
        self.uploads = uploads
        self.c = SimpleNamespace()

    def load(self, request: gr.Request) -> str:
        """The person's time zone (the field) when the tab opens."""
        return glucose.time_zone(self.user_of(request))

    def save_zone(self, zone: str | None, request: gr.Request) -> str:
        try:
            saved = glucose.set_time_zone(self.user_of(request), (zone or "").strip())
        except FoodtagError as exc:
            return f"⚠️ {exc}"
        return f"Time zone set to **{saved}**: exports without a zone are read in it."

    def import_file(self, upload: str | None, fmt: str, request: gr.Request) -> str:
        user = self.user_of(request)
        if not upload:
            return "⚠️ Choose an export file first (Dexcom Clarity, LibreView, Nightscout or a CSV)."
        path = Path(upload)
        try:
            self.uploads.checked(path, glucose.MAX_IMPORT_BYTES, path.name)
        except UploadTooLarge:
            return f"⚠️ The file is larger than {glucose.MAX_IMPORT_BYTES // 2**20} MB; export a shorter period."
        except FoodtagError as exc:
            return f"⚠️ {exc}"
        try:
            result = glucose.import_file(user, path, fmt=fmt or "auto")
        except FoodtagError as exc:  # the file stays, so that another format can be tried
            return f"⚠️ Nothing was imported: {exc}"
        self.uploads.discard(path)
        lines = [f"Read as **{result['format']}** in {result['time_zone']}: **{result['added']}** readings "
                 f"added, {result['duplicates']} already there, {result['refused']} rows refused."]
        lines += [f"- {row}" for row in result["refused_rows"][:20]]
        if result["refused"] > 20:
            lines.append(f"- ... and {result['refused'] - 20} more")
        return "\n".join(lines)

    def report(self, days: float | None, end: str | None, request: gr.Request):
        """The period's metrics text, AGP and daily profiles figures, and the one-page report as
        PNG and PDF files."""
        c = self.c
        user = self.user_of(request)
        try:
            result = glucose.report(user, days=_whole_days(days), end=(end or "").strip() or None)
        except FoodtagError as exc:
            return {c.metrics_text: f"⚠️ {exc}", c.agp: None, c.daily: None, c.png: None, c.pdf: None}
        stem = f"glucose-{result['start']}-{result['end']}"
        png, pdf = self.owned_path(stem, ".png", user), self.owned_path(stem, ".pdf", user)
        page = chart.report_page(result)  # in result["glucose_unit"], as is everything shown
        png.write_bytes(chart.report_png(result, page))
        pdf.write_bytes(chart.report_pdf(result, page))
        text = (f"**{result['start']} to {result['end']}** ({result['time_zone']}, "
                f"{result['readings']} readings)\n\n```\n{chart.report_text(result)}\n```")
        return {c.metrics_text: text, c.agp: chart.agp_figure(result), c.daily: chart.daily_figure(result),
                c.png: str(png), c.pdf: str(pdf)}

    def meals(self, request: gr.Request):
        """The table of meals and the meal picker, glucose in the person's unit."""
        user = self.user_of(request)
        meals = glucose.meal_responses_json(user)
        return {self.c.meals_table: meals_frame(meals, glucose.glucose_unit(user)),
                self.c.meal_pick: gr.update(choices=[m["eaten_at"] for m in reversed(meals)], value=None)}

    def meal_curve(self, eaten_at: str | None, request: gr.Request):
        """The picked meal's curve, and the choice to keep it in the per-food figures, offered
        when it is flagged."""
        c = self.c
        user = self.user_of(request)
        found = [m for m in glucose.meal_responses_json(user) if m["eaten_at"] == eaten_at] if eaten_at else []
        if not found:
            return {c.meal_plot: None, c.meal_keep: gr.update(value=False, visible=False), c.meal_keep_status: ""}
        meal = found[0]
        return {c.meal_plot: chart.meal_figure(meal, glucose.glucose_unit(user)),
                c.meal_keep: gr.update(value=meal["kept"], visible=bool(excluding_flags(meal))),
                c.meal_keep_status: ""}

    def keep_meal(self, eaten_at: str | None, keep: bool, request: gr.Request):
        """Keep the picked flagged meal in the per-food figures (or not): the meals and foods
        tables follow."""
        c = self.c
        user = self.user_of(request)
        found = [m for m in glucose.meal_responses_json(user) if m["eaten_at"] == eaten_at] if eaten_at else []
        if not found:
            return {c.meal_keep_status: "⚠️ Pick a meal first."}
        try:
            meal = glucose.keep_meal(user, found[0]["entry_ids"][0], bool(keep))
        except FoodtagError as exc:
            return {c.meal_keep_status: f"⚠️ {exc}"}
        status = (f"Kept: this meal counts for **{meal['main_food']}** in your per-food figures despite its flags."
                  if meal["kept"] else "This meal is left out of your per-food figures again (it is flagged).")
        return {c.meal_keep_status: status, c.meals_table: meals_frame(glucose.meal_responses_json(user),
                                                                         glucose.glucose_unit(user)),
                c.foods_table: self.foods(request)}

    def entry_response(self, entry_id: int | float | None, request: gr.Request):
        """The meal's curve and its response figures for one of the signed-in user's entries,
        shown on the entry in the Today tab; only the short NO_READINGS without readings."""
        c = self.c
        if entry_id is None:
            return {c.entry_plot: gr.update(value=None, visible=False), c.entry_text: ""}
        user = self.user_of(request)
        try:
            meal = glucose.meal_of_entry(user, int(entry_id))
        except FoodtagError as exc:  # not their entry (NotFound) or no such user
            return {c.entry_plot: gr.update(value=None, visible=False), c.entry_text: f"⚠️ {exc}"}
        if not meal["curve"]:
            return {c.entry_plot: gr.update(value=None, visible=False), c.entry_text: NO_READINGS}
        unit = glucose.glucose_unit(user)
        return {c.entry_plot: gr.update(value=chart.meal_figure(meal, unit), visible=True),
                c.entry_text: chart.response_text(meal, unit)}

    def foods(self, request: gr.Request):
        result = glucose.food_responses(self.user_of(request))
        unit = result["glucose_unit"]
        rows = [[f["food"], f["meals"], *(in_unit(f[key], unit) for key in
                                          ("iauc_per_10g", "iauc_per_10g_sd", "rise_per_10g", "rise_per_10g_sd"))]
                for f in result["foods"]]
        return pd.DataFrame(rows, columns=columns_in(unit, FOOD_COLUMNS))

    def export_readings(self, request: gr.Request) -> str:
        user = self.user_of(request)
        path = self.owned_path(f"glucose-readings-{date.today().isoformat()}", ".csv", user)
        with path.open("w", encoding="utf-8", newline="") as out:
            glucose.export_readings_csv(user, out)
        return str(path)

    def build_entry_response(self) -> None:
        """The place for an entry's glucose curve and response (entry_response) in the Today
        tab's entry box; call inside it. The Today tab wires its events."""
        self.c.entry_plot = gr.Plot(label="Glucose, 30 min before to 3 h after", visible=False,
                                    elem_id="entry-glucose-plot")
        self.c.entry_text = gr.Markdown(elem_id="entry-glucose")

    def build(self) -> None:
        """The tab's layout and wiring; call inside gr.Tabs."""
        c = self.c
        with gr.Tab("Glucose", id="glucose") as c.tab:
            gr.Markdown(NOTE, elem_id="glucose-note")
            with gr.Accordion("Import readings", open=True):
                with gr.Row():
                    c.upload = gr.File(label="CGM or meter export", file_types=[".csv", ".json", ".tsv", ".txt"],
                                       type="filepath", elem_id="glucose-file")
                    with gr.Column():
                        c.fmt = gr.Dropdown(label="Format", choices=["auto", *formats.FORMATS], value="auto")
                        c.zone = gr.Textbox(label="Your time zone (IANA, e.g. Europe/London)", max_lines=1,
                                            elem_id="glucose-zone")
                        c.save_zone_btn = gr.Button("Save time zone")
                c.import_btn = gr.Button("Import", variant="primary", elem_id="glucose-import")
                c.import_status = gr.Markdown(elem_id="glucose-import-status")
            with gr.Row():
                c.days = NumberField(label="Days", value=14, minimum=1, maximum=glucose.MAX_REPORT_DAYS, step=1)
                c.end = gr.Textbox(label="Last day (YYYY-MM-DD; empty: today)", max_lines=1)
                c.report_btn = gr.Button("Show report", elem_id="glucose-report")
            with gr.Row():
                c.agp = gr.Plot(label="Ambulatory glucose profile", elem_id="glucose-agp", scale=3)
                c.metrics_text = gr.Markdown(elem_id="glucose-metrics")
            c.daily = gr.Plot(label="Daily glucose profiles (the last 14 days)", elem_id="glucose-daily")
            with gr.Row():
                c.png = gr.File(label="Report as PNG (one page, for your clinic)", elem_id="glucose-png")
                c.pdf = gr.File(label="Report as PDF (one page, for your clinic)", elem_id="glucose-pdf")
                c.readings_file = gr.File(label="All readings as CSV (for your diabetes team)")
                c.readings_btn = gr.Button("Export readings")
            gr.Markdown("### Meals beside glucose")
            c.meals_btn = gr.Button("Show meals")
            c.meals_table = gr.Dataframe(headers=MEAL_COLUMNS, interactive=False, elem_id="glucose-meals")
            c.meal_pick = gr.Dropdown(label="Meal", choices=[], interactive=True)
            c.meal_plot = gr.Plot(label="The meal's curve, 30 min before to 3 h after")
            # Offered for a flagged meal only: the person decides that its curve is still the food's.
            c.meal_keep = gr.Checkbox(label="Count this flagged meal in my per-food figures", value=False,
                                      visible=False, elem_id="glucose-meal-keep")
            c.meal_keep_status = gr.Markdown(elem_id="glucose-meal-keep-status")
            gr.Markdown(f"### Your response per food\nShown for a food once it is the main carbohydrate of at "
                        f"least {glucose.metrics.MIN_MEALS_PER_FOOD} meals without another meal, a correction bolus "
                        "or missing data in the window (or flagged meals you chose to count). It describes your "
                        "past meals; it is not a prescription.")
            c.foods_table = gr.Dataframe(headers=FOOD_COLUMNS, interactive=False)

        c.import_btn.click(self.import_file, [c.upload, c.fmt], [c.import_status], api_name="glucose_import")
        c.save_zone_btn.click(self.save_zone, [c.zone], [c.import_status], api_name="glucose_save_zone")
        c.report_btn.click(self.report, [c.days, c.end], [c.metrics_text, c.agp, c.daily, c.png, c.pdf],
                           api_name="glucose_report")
        c.readings_btn.click(self.export_readings, None, [c.readings_file], api_name="glucose_export_readings")
        c.meals_btn.click(self.meals, None, [c.meals_table, c.meal_pick], api_name="glucose_meals").success(
            self.foods, None, [c.foods_table], api_name="glucose_foods", **QUIET)
        c.meal_pick.input(self.meal_curve, [c.meal_pick], [c.meal_plot, c.meal_keep, c.meal_keep_status],
                          api_name="glucose_meal_curve")
        c.meal_keep.input(self.keep_meal, [c.meal_pick, c.meal_keep],
                          [c.meal_keep_status, c.meals_table, c.foods_table], api_name="glucose_keep_meal")
        c.tab.select(self.load, None, [c.zone], api_name="glucose_zone")


def excluding_flags(meal: dict) -> list[str]:
    """The flags that keep ``meal`` (meal_responses_json) out of the per-food figures."""
    return [f for f in meal["response"]["flags"] if f in glucose.metrics.EXCLUDING_FLAGS]


def meals_frame(meals: list[dict], unit: str) -> pd.DataFrame:
    """The meals table, newest first, glucose in ``unit``; a flagged meal the person keeps says so."""
    rows = []
    for m in reversed(meals):
        response = m["response"]
        flags = [f for f in response["flags"] if f != glucose.metrics.FLAG_INSULIN_UNKNOWN]  # said for every meal
        if m["kept"] and excluding_flags(m):
            flags.append("kept in your per-food figures")
        rows.append([m["eaten_at"].replace("T", " "), ", ".join(m["foods"]), m["carbohydrate_g"],
                     *(in_unit(response[key], unit) for key in ("baseline_mg_dl", "peak_mg_dl", "rise_mg_dl")),
                     response["minutes_to_peak"], in_unit(response["iauc_2h"], unit), "; ".join(flags)])
    return pd.DataFrame(rows, columns=columns_in(unit, MEAL_COLUMNS))


def _whole_days(days: float | None) -> int:
    """The Days box as a whole number (empty: 14); InvalidValue for NaN or a fraction."""
    if days is None:
        return 14
    if not math.isfinite(days) or not float(days).is_integer():
        raise InvalidValue(f"days must be a whole number from 1 to {glucose.MAX_REPORT_DAYS}, got {days!r}")
    return int(days)
