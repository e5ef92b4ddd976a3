"""The Glucose tab: import a CGM or meter export, the standard report with its AGP chart (and a
PNG to bring to the clinic), each meal beside the glucose that followed it, and the person's
response per food. Thin handlers over db.glucose.service; the user comes from the sign-in, never
from the page. It shows what happened: no dosing advice, no prediction.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path

import gradio as gr
import pandas as pd

from app.glucose import chart
from db.glucose import formats
from db.glucose import service as glucose
from models.errors import FoodtagError

NOTE = ("**Shows what happened.** These numbers describe your glucose after your meals; they are "
        "not dosing advice and predict nothing. A correction bolus cannot be excluded for any meal: "
        "foodtag holds no insulin data. Talk to your diabetes team before changing treatment.")
MEAL_COLUMNS = ["Meal (local time)", "Foods", "Carbohydrate g", "Baseline", "Peak", "Rise",
                "Minutes to peak", "iAUC 2 h (mg/dL x min)", "Flags"]
NO_READINGS = "No glucose readings around this meal (30 min before to 3 h after); import them in the Glucose tab."
FOOD_COLUMNS = ["Food", "Meals", "iAUC per 10 g", "SD", "Rise per 10 g", "SD "]


class GlucoseHandlers:
    """One method per event; ``user_of(request)`` names the signed-in user, ``owned_path(stem,
    suffix, user)`` gives a file path only that user may download."""

    def __init__(self, user_of: Callable[[gr.Request], str],
                 owned_path: Callable[[str, str, str], Path]) -> None:
        self.user_of = user_of
        self.owned_path = owned_path

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
        if path.stat().st_size > glucose.MAX_IMPORT_BYTES:
            return f"⚠️ The file is larger than {glucose.MAX_IMPORT_BYTES // 2**20} MB; export a shorter period."
        try:
            result = glucose.import_export(user, path.read_bytes(), fmt=fmt or "auto")
        except FoodtagError as exc:
            return f"⚠️ Nothing was imported: {exc}"
        lines = [f"Read as **{result['format']}** in {result['time_zone']}: **{result['added']}** readings "
                 f"added, {result['duplicates']} already there, {result['refused']} rows refused."]
        lines += [f"- {row}" for row in result["refused_rows"][:20]]
        if result["refused"] > 20:
            lines.append(f"- ... and {result['refused'] - 20} more")
        return "\n".join(lines)

    def report(self, days: float | None, end: str | None, request: gr.Request):
        """(metrics text, AGP figure, PNG file) for the period."""
        user = self.user_of(request)
        try:
            result = glucose.report(user, days=int(days or 14), end=(end or "").strip() or None)
        except FoodtagError as exc:
            return f"⚠️ {exc}", None, None
        figure = chart.agp_figure(result)
        path = self.owned_path(f"glucose-{result['start']}-{result['end']}", ".png", user)
        path.write_bytes(chart.png(figure))
        text = (f"**{result['start']} to {result['end']}** ({result['time_zone']}, "
                f"{result['readings']} readings)\n\n```\n{chart.report_text(result)}\n```")
        return text, figure, str(path)

    def meals(self, request: gr.Request):
        """(table of meals, the meal picker)."""
        meals = glucose.meal_responses_json(self.user_of(request))
        rows = [[m["eaten_at"].replace("T", " "), ", ".join(m["foods"]), m["carbohydrate_g"],
                 m["response"]["baseline_mg_dl"], m["response"]["peak_mg_dl"], m["response"]["rise_mg_dl"],
                 m["response"]["minutes_to_peak"], m["response"]["iauc_2h"],
                 "; ".join(m["response"]["flags"][:-1])] for m in reversed(meals)]
        choices = [m["eaten_at"] for m in reversed(meals)]
        return pd.DataFrame(rows, columns=MEAL_COLUMNS), gr.update(choices=choices, value=None)

    def meal_curve(self, eaten_at: str | None, request: gr.Request):
        if not eaten_at:
            return None
        found = [m for m in glucose.meal_responses_json(self.user_of(request)) if m["eaten_at"] == eaten_at]
        return chart.meal_figure(found[0]) if found else None

    def entry_response(self, entry_id: int | float | None, request: gr.Request):
        """(the meal's curve, its response figures) for one of the signed-in user's entries,
        shown on the entry in the Today tab; only the short NO_READINGS without readings."""
        if entry_id is None:
            return gr.update(value=None, visible=False), ""
        try:
            meal = glucose.meal_of_entry(self.user_of(request), int(entry_id))
        except FoodtagError as exc:  # not their entry (NotFound) or no such user
            return gr.update(value=None, visible=False), f"⚠️ {exc}"
        if not meal["curve"]:
            return gr.update(value=None, visible=False), NO_READINGS
        return gr.update(value=chart.meal_figure(meal), visible=True), chart.response_text(meal)

    def foods(self, request: gr.Request):
        result = glucose.food_responses(self.user_of(request))
        rows = [[f["food"], f["meals"], f["iauc_per_10g"], f["iauc_per_10g_sd"], f["rise_per_10g"],
                 f["rise_per_10g_sd"]] for f in result["foods"]]
        return pd.DataFrame(rows, columns=FOOD_COLUMNS)

    def export_readings(self, request: gr.Request) -> str:
        user = self.user_of(request)
        path = self.owned_path(f"glucose-readings-{date.today().isoformat()}", ".csv", user)
        with path.open("w", encoding="utf-8", newline="") as out:
            glucose.export_readings_csv(user, out)
        return str(path)


def build_entry_response() -> tuple[gr.Plot, gr.Markdown]:
    """The place for an entry's glucose curve and response (GlucoseHandlers.entry_response) in
    the Today tab's entry box; call inside it."""
    plot = gr.Plot(label="Glucose, 30 min before to 3 h after", visible=False, elem_id="entry-glucose-plot")
    text = gr.Markdown(elem_id="entry-glucose")
    return plot, text


def build_glucose_tab(handlers: GlucoseHandlers) -> None:
    """The tab's layout and wiring; call inside gr.Blocks."""
    h = handlers
    quiet = {"api_visibility": "undocumented"}
    with gr.Tab("Glucose", id="glucose") as tab:
        gr.Markdown(NOTE, elem_id="glucose-note")
        with gr.Accordion("Import readings", open=True):
            with gr.Row():
                upload = gr.File(label="CGM or meter export", file_types=[".csv", ".json", ".tsv", ".txt"],
                                 type="filepath", elem_id="glucose-file")
                with gr.Column():
                    fmt = gr.Dropdown(label="Format", choices=["auto", *formats.FORMATS], value="auto")
                    zone = gr.Textbox(label="Your time zone (IANA, e.g. Europe/London)", max_lines=1,
                                      elem_id="glucose-zone")
                    save_zone = gr.Button("Save time zone")
            import_btn = gr.Button("Import", variant="primary", elem_id="glucose-import")
            import_status = gr.Markdown(elem_id="glucose-import-status")
        with gr.Row():
            days = gr.Number(label="Days", value=14, minimum=1, maximum=glucose.MAX_REPORT_DAYS, precision=0)
            end = gr.Textbox(label="Last day (YYYY-MM-DD; empty: today)", max_lines=1)
            report_btn = gr.Button("Show report", elem_id="glucose-report")
        with gr.Row():
            agp = gr.Plot(label="Ambulatory glucose profile", elem_id="glucose-agp", scale=3)
            metrics_text = gr.Markdown(elem_id="glucose-metrics")
        with gr.Row():
            png = gr.File(label="AGP as PNG (for your clinic)", elem_id="glucose-png")
            readings_file = gr.File(label="All readings as CSV (for your diabetes team)")
            readings_btn = gr.Button("Export readings")
        gr.Markdown("### Meals beside glucose")
        meals_btn = gr.Button("Show meals")
        meals_table = gr.Dataframe(headers=MEAL_COLUMNS, interactive=False, elem_id="glucose-meals")
        meal_pick = gr.Dropdown(label="Meal", choices=[], interactive=True)
        meal_plot = gr.Plot(label="The meal's curve, 30 min before to 3 h after")
        gr.Markdown(f"### Your response per food\nShown for a food once it is the main carbohydrate of at "
                    f"least {glucose.metrics.MIN_MEALS_PER_FOOD} meals without another meal or missing data "
                    "in the window. It describes your past meals; it is not a prescription.")
        foods_table = gr.Dataframe(headers=FOOD_COLUMNS, interactive=False)

    import_btn.click(h.import_file, [upload, fmt], [import_status], api_name="glucose_import")
    save_zone.click(h.save_zone, [zone], [import_status], api_name="glucose_save_zone")
    report_btn.click(h.report, [days, end], [metrics_text, agp, png], api_name="glucose_report")
    readings_btn.click(h.export_readings, None, [readings_file], api_name="glucose_export_readings")
    meals_btn.click(h.meals, None, [meals_table, meal_pick], api_name="glucose_meals").success(
        h.foods, None, [foods_table], api_name="glucose_foods", **quiet)
    meal_pick.input(h.meal_curve, [meal_pick], [meal_plot], api_name="glucose_meal_curve")
    tab.select(h.load, None, [zone], api_name="glucose_zone")
