"""The Today tab: a day's meals with their totals against the person's targets, the last four
weeks as charts, an entry edited or deleted (with the glucose that followed it, app.ui.glucose),
and the whole log exported as CSV. Thin handlers over db.service."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from types import SimpleNamespace

import gradio as gr
import pandas as pd

from app import views
from app.errors import shown_errors
from app.ui.common import QUIET, AppContext, Downloads, NumberField, parse_when
from app.ui.glucose import GlucoseTab
from db import service, validate
from models.errors import FoodtagError

HISTORY_DAYS = 28


def parse_day(text: str | None) -> date:
    text = (text or "").strip()
    if text in ("", "now"):
        return date.today()
    try:
        day = date.fromisoformat(text[:10])
    except ValueError:
        raise FoodtagError(f"date {validate.echo(text)} not understood: use YYYY-MM-DD") from None
    return validate.day(day)


def _entry_id(value: int | float | None) -> int:
    if value is None:
        raise FoodtagError("Pick an entry first.")
    return int(value)


class TodayTab:
    """One method per event; ``downloads`` holds the exported logs, ``glucose`` the tab whose
    entry response this tab shows. ``c`` holds the components, made by build(), and
    ``day_outputs`` day_view's, in the order its events list them."""

    def __init__(self, ctx: AppContext, downloads: Downloads, glucose: GlucoseTab) -> None:
        self.ctx = ctx
        self.downloads = downloads
        self.glucose = glucose
        self.c = SimpleNamespace()
        self.day_outputs: list[gr.components.Component] = []

    def day_view(self, day_text: str | None, request: gr.Request):
        """The entries table, totals vs targets, entry picker, meals chart, daily chart, heading."""
        with shown_errors():
            user = self.ctx.user(request)
            day = parse_day(day_text)
            summary = service.day_summary(user, day)
            start = day - timedelta(days=HISTORY_DAYS - 1)
            history = service.list_meals(user, datetime.combine(start, time.min),
                                         datetime.combine(day + timedelta(days=1), time.min))
            daily = service.daily_totals(user, days=HISTORY_DAYS, until=day)
        target = summary["targets"].get("daily_carb_target_g")
        daily_rows = [{"day": d["date"], "series": "eaten", "carbohydrate (g)": d["carbohydrate_g"]} for d in daily]
        if target:
            daily_rows += [{"day": d["date"], "series": "daily target", "carbohydrate (g)": target} for d in daily]
        c, meals = self.c, len(summary["entries"])
        return {
            c.entries: views.entries_table(summary["entries"]),
            c.totals: views.totals_table(summary),
            c.entry_pick: gr.update(choices=views.entry_choices(summary["entries"]), value=None),
            c.meals_plot: views.meal_carbs_frame(history, start, day),
            c.daily_plot: pd.DataFrame(daily_rows, columns=["day", "series", "carbohydrate (g)"]),
            c.day_heading: f"### {day:%A %d %B %Y}: {views.fmt(summary['totals'].get('carbohydrate_g') or 0.0, 'g')} "
                           f"carbohydrate in {meals} meal{'s' * (meals != 1)}",
        }

    def pick_row(self, event: gr.SelectData):
        """A click on a row of the meals table picks that entry for editing or deleting."""
        row = event.row_value or []
        return gr.update(value=row[-1]) if row else gr.skip()

    def _entry_on(self, entry_id: int | None, day_text: str | None, request: gr.Request) -> dict:
        """One of the user's own entries on the day shown."""
        entry_id, day = _entry_id(entry_id), parse_day(day_text)
        # day_summary is scoped to the user, so another user's id is simply not there.
        entries = service.day_summary(self.ctx.user(request), day)["entries"]
        entry = next((e for e in entries if e["id"] == entry_id), None)
        if entry is None:
            raise FoodtagError(f"no meal entry {entry_id} on {day.isoformat()}")
        return entry

    def load_entry(self, entry_id: int | None, day_text: str | None, request: gr.Request):
        """Fill the edit form from one of the user's own entries on the day shown."""
        with shown_errors():
            entry = self._entry_on(entry_id, day_text, request)
        c = self.c
        return {c.edit_grams: entry["grams"], c.edit_meal: entry["meal_type"] or None,
                c.edit_when: entry["eaten_at"][:16].replace("T", " "), c.edit_note: entry["note"]}

    def edit_entry(self, entry_id: int | None, grams: float | None, meal_type: str | None,
                   eaten_at: str | None, note: str | None, request: gr.Request) -> str:
        with shown_errors():
            changes = {"meal_type": meal_type or "", "note": (note or "").strip(), "eaten_at": parse_when(eaten_at)}
            if grams is not None:
                changes["grams"] = validate.grams(grams)
            entry = service.update_meal(self.ctx.user(request), _entry_id(entry_id), **changes)
        return f"Saved entry {entry['id']}: {entry['food']}, {views.portion_text(entry['grams'], entry.get('serving'))}."

    def ask_delete(self, entry_id: int | None, day_text: str | None, request: gr.Request):
        """The first click on Delete: say exactly which entry would go, and ask."""
        with shown_errors():
            entry = self._entry_on(entry_id, day_text, request)
        return {self.c.confirm_box: gr.update(visible=True),
                self.c.confirm_text: f"Delete **{views.entry_label(entry)}**? This cannot be undone."}

    def delete_entry(self, entry_id: int | None, request: gr.Request):
        """Delete an entry (after the person confirmed it); hides the question."""
        with shown_errors():
            entry_id = _entry_id(entry_id)
            service.delete_meal(self.ctx.user(request), entry_id)
        return {self.c.entry_status: f"Deleted entry #{entry_id}.", self.c.confirm_box: gr.update(visible=False)}

    def export_csv(self, request: gr.Request) -> str:
        """The user's whole log as CSV, for a dietitian."""
        with shown_errors():
            user = self.ctx.user(request)
        path = self.downloads.path(f"foodtag-log-{date.today().isoformat()}", ".csv", user)
        with path.open("w", encoding="utf-8", newline="") as out:
            service.export_log_csv(user, out)
        return str(path)

    def build(self, page: gr.Blocks) -> None:
        """The tab's layout and its own events; the page redraws it after a meal is logged or
        the settings change."""
        c = self.c
        with gr.Tab("Today", id="today"):
            with gr.Row():
                c.day = gr.DateTime(label="Day", value="now", include_time=False, type="string", min_width=200,
                                    elem_id="today-day")
                c.refresh_btn = gr.Button("Show", scale=0, min_width=80)
            c.day_heading = gr.Markdown(elem_id="day-heading")
            # Widths in percent: a phone's 390 px show every column, none cut off on the right.
            c.entries = gr.Dataframe(label="Meals (click a row to edit or delete it)", interactive=False,
                                     elem_id="day-entries", wrap=True,
                                     column_widths=["15%", "27%", "13%", "13%", "14%", "10%", "8%"])
            c.totals = gr.Dataframe(label="Totals vs your daily targets", interactive=False, elem_id="day-totals",
                                    wrap=True, column_widths=["40%", "22%", "22%", "16%"])
            with gr.Row():
                c.meals_plot = gr.BarPlot(x="day", y="carbohydrate (g)", color="meal",
                                          title=f"Carbohydrate per meal, last {HISTORY_DAYS} days",
                                          elem_id="meals-plot", x_label_angle=-45,
                                          tooltip=["day", "meal", "food", "carbohydrate (g)"])
                c.daily_plot = gr.LinePlot(x="day", y="carbohydrate (g)", color="series",
                                           title="Carbohydrate per day vs target", elem_id="daily-plot",
                                           x_label_angle=-45)
            with gr.Accordion("Edit or delete an entry", open=False) as c.edit_box:
                c.entry_pick = gr.Dropdown(label="Entry", choices=[], interactive=True, elem_id="entry-pick")
                with gr.Row():
                    # No minimum here: the empty form's 0 was drawn red before an entry was
                    # picked; edit_entry refuses grams out of range with a message (db.validate).
                    c.edit_grams = NumberField(label="Grams", elem_id="edit-grams")
                    c.edit_meal = gr.Dropdown(label="Meal", choices=list(views.MEAL_TYPES))
                    c.edit_when = gr.Textbox(label="Eaten at (YYYY-MM-DD HH:MM)")
                    c.edit_note = gr.Textbox(label="Note")
                with gr.Row():
                    c.save_entry_btn = gr.Button("Save changes")
                    c.delete_btn = gr.Button("Delete entry", variant="stop", elem_id="delete-entry")
                with gr.Group(visible=False) as c.confirm_box:
                    c.confirm_text = gr.Markdown(elem_id="delete-question")
                    with gr.Row():
                        c.confirm_delete_btn = gr.Button("Yes, delete it", variant="stop", elem_id="confirm-delete")
                        c.keep_btn = gr.Button("No, keep it")
                c.entry_status = gr.Markdown(elem_id="entry-status")
                self.glucose.build_entry_response()
            with gr.Row():
                c.export_btn = gr.Button("Export my log as CSV (for your dietitian)")
                c.export_file = gr.File(label="CSV", interactive=False)
        self._wire(page)

    def _wire(self, page: gr.Blocks) -> None:
        c, g = self.c, self.glucose
        day_outputs = self.day_outputs = [c.entries, c.totals, c.entry_pick, c.meals_plot, c.daily_plot,
                                          c.day_heading]
        edit_fields = [c.edit_grams, c.edit_meal, c.edit_when, c.edit_note]
        entry_glucose = [g.c.entry_plot, g.c.entry_text]
        c.refresh_btn.click(self.day_view, [c.day], day_outputs, api_name="day_view")
        c.entries.select(self.pick_row, None, [c.entry_pick], api_name="pick_row", **QUIET).success(
            lambda: gr.update(open=True), None, [c.edit_box], api_visibility="private").success(
            self.load_entry, [c.entry_pick, c.day], edit_fields, api_name="load_row", **QUIET).success(
            g.entry_response, [c.entry_pick], entry_glucose, api_name="entry_glucose_row", **QUIET)
        # On the existing chains, not a change event of entry_pick: day_view resets the picker.
        c.entry_pick.input(self.load_entry, [c.entry_pick, c.day], edit_fields, api_name="load_entry").success(
            g.entry_response, [c.entry_pick], entry_glucose, api_name="entry_glucose", **QUIET)
        c.save_entry_btn.click(
            self.edit_entry, [c.entry_pick, *edit_fields], [c.entry_status], api_name="edit_entry"
        ).success(self.day_view, [c.day], day_outputs, api_name="day_view_after_edit", **QUIET).success(
            g.entry_response, [c.entry_pick], entry_glucose, api_name="entry_glucose_after_edit", **QUIET)
        c.delete_btn.click(self.ask_delete, [c.entry_pick, c.day], [c.confirm_box, c.confirm_text],
                           api_name="ask_delete")
        c.keep_btn.click(lambda: gr.update(visible=False), None, [c.confirm_box], api_visibility="private")
        c.confirm_delete_btn.click(self.delete_entry, [c.entry_pick], [c.entry_status, c.confirm_box],
                                   api_name="delete_entry").success(
            self.day_view, [c.day], day_outputs, api_name="day_view_after_delete", **QUIET
        ).success(  # day_view emptied the picker: no curve of an entry no longer picked (or gone)
            g.entry_response, [c.entry_pick], entry_glucose, api_name="entry_glucose_after_delete", **QUIET)
        c.export_btn.click(self.export_csv, None, [c.export_file], api_name="export_csv")
        page.load(self.day_view, [c.day], day_outputs, api_name="day_view_on_load", **QUIET)
