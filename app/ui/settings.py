"""The Settings tab: daily targets, the carbohydrate unit, the confidence threshold, the
region and the glucose unit; below them the photo consent and household section (app.ui.photos)."""

from __future__ import annotations

from types import SimpleNamespace

import gradio as gr

from app.errors import shown_errors
from app.ui.common import QUIET, AppContext, NumberField, SliderField
from app.ui.photos import PhotoSections
from db import service
from db.arguments import SETTING_RANGES
from db.glucose.units import REGION_UNITS, UNITS
from db.nutrition import EXCHANGE_UNITS_G, REGIONS, carb_unit, region_unit


def _setting_number(label: str, setting: str) -> NumberField:
    """A field for a numeric setting, bounded as db.arguments bounds it, so Gradio refuses what
    the service would."""
    low, high = SETTING_RANGES[setting]
    return NumberField(label=label, minimum=low, maximum=high)

# The glucose unit choice that follows the region (the stored None).
BY_REGION = "region"
UNSAVED_JS = "() => '✎ Changed, not saved yet: press **Save settings** to apply it.'"


class SettingsTab:
    """One method per event; ``c`` holds the components, made by build(), and ``fields`` the
    settings in the order load_settings gives and save_settings takes them."""

    def __init__(self, ctx: AppContext, photos: PhotoSections) -> None:
        self.ctx = ctx
        self.photos = photos
        self.c = SimpleNamespace()
        self.fields: list[gr.components.Component] = []

    def load_settings(self, request: gr.Request):
        with shown_errors():
            s = service.get_settings(self.ctx.user(request))
        c = self.c
        return {c.kcal_target: s["daily_kcal_target"], c.carb_target: s["daily_carb_target_g"],
                c.unit: f"{s['exchange_unit_g']:g}", c.threshold: s["confidence_threshold"], c.region: s["region"],
                c.glucose_unit: s["glucose_unit"] or BY_REGION}

    def save_settings(self, kcal: float | None, carbs: float | None, unit: str | None, threshold: float | None,
                      region: str | None, glucose_unit: str | None, request: gr.Request) -> str:
        values = {"daily_kcal_target": kcal, "daily_carb_target_g": carbs,
                  "exchange_unit_g": float(unit) if unit else None, "confidence_threshold": threshold,
                  "region": region}
        chosen = {} if glucose_unit is None else {"glucose_unit": None if glucose_unit == BY_REGION else glucose_unit}
        with shown_errors():
            # db.service checks every range; empty fields stay as they were.
            service.update_settings(self.ctx.user(request),
                                    **{k: v for k, v in values.items() if v is not None}, **chosen)
        return "Settings saved."

    @staticmethod
    def glucose_unit_choices(region: str | None) -> list[tuple[str, str]]:
        """By region (naming the region's unit), then each unit."""
        by_region = f"By region ({REGION_UNITS[region]})" if region in REGION_UNITS else "By region"
        return [(by_region, BY_REGION), *((u, u) for u in UNITS)]

    @staticmethod
    def glucose_units_for_region(region: str | None):
        """The region's unit named in the By region choice (the value stays)."""
        return gr.update(choices=SettingsTab.glucose_unit_choices(region))

    @staticmethod
    def unit_for_region(region: str | None, unit: str | None) -> str | None:
        """The unit taught in the newly picked region (the current one if taught there too)."""
        if region not in REGIONS:
            return unit
        return f"{region_unit(region, float(unit) if unit else None):g}"

    def build(self, page: gr.Blocks) -> None:
        """The tab's layout and its own events; the page wires Save (it redraws other tabs)."""
        c = self.c
        with gr.Tab("Settings", id="settings"):
            c.region = gr.Dropdown(label="Region: sets your carbohydrate unit and the food names search prefers",
                                   choices=[(f"{r.name} ({code})", code) for code, r in REGIONS.items()])
            c.kcal_target = _setting_number("Daily energy target (kcal)", "daily_kcal_target")
            c.carb_target = _setting_number("Daily carbohydrate target (g)", "daily_carb_target_g")
            c.unit = gr.Radio(label="Carbohydrate unit", choices=[
                (f"{grams:g} g {name}: {carb_unit(grams).basis}", f"{grams:g}")
                for grams, name in EXCHANGE_UNITS_G.items()])
            c.glucose_unit = gr.Radio(label="Glucose unit: how your readings and reports are shown",
                                      choices=self.glucose_unit_choices(None))
            c.threshold = SliderField(label="Confidence threshold: below it the app says the model is unsure",
                                    minimum=0.05, maximum=0.95, step=0.05)
            c.save_settings_btn = gr.Button("Save settings", variant="primary")
            c.settings_status = gr.Markdown()
            self.photos.build_sharing(page, c.settings_status)

        self.fields = [c.kcal_target, c.carb_target, c.unit, c.threshold, c.region, c.glucose_unit]
        # Client-side: a changed field says it is not saved yet (nothing applies before Save), and
        # Save clears the last answer first, so a refusal never stands beside "Settings saved.".
        for field in self.fields:
            field.input(None, None, [c.settings_status], js=UNSAVED_JS, queue=False, api_visibility="private")
        c.save_settings_btn.click(None, None, [c.settings_status], js="() => ''", queue=False,
                                  api_visibility="private")
        c.region.input(self.unit_for_region, [c.region, c.unit], [c.unit], api_name="unit_for_region", **QUIET)
        c.region.input(self.glucose_units_for_region, [c.region], [c.glucose_unit],
                       api_name="glucose_unit_for_region", **QUIET)
        # The By region choice names the region's unit once the region is known; plain values in
        # load_settings, so that an API client can send back what it read.
        page.load(self.load_settings, None, self.fields, api_name="load_settings").then(
            self.glucose_units_for_region, [c.region], [c.glucose_unit], api_name="glucose_unit_on_load", **QUIET)
