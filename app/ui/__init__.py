"""The web UI: the page, built from one module per tab, and the events that cross tabs.

Each tab module holds one class: its handlers (one method per event, thin adapters over
app.meals and db.service) and build(), which lays the tab out, keeps its components on ``c``
and wires its own events. A handler with several outputs returns a dict keyed by those
components; the outputs it leaves out stay as they are. Each event lists its outputs in the
order gradio_client returns them.

Every handler that touches a meal log takes `request: gr.Request` and asks `Identity` for
the user; no handler accepts a user name from the page. Every event has an api_name, so the
same functions are the app's named API (and the Gradio sign-in guards them all).
"""

from __future__ import annotations

from dataclasses import dataclass

import gradio as gr

from app.ui.analyse import AnalyseTab
from app.ui.assets import PAGE_ASSETS
from app.ui.batch import BatchTab
from app.ui.common import QUIET, AppContext, Downloads
from app.ui.glucose import GlucoseTab
from app.ui.header import PageHeader
from app.ui.models_tab import ModelsTab
from app.ui.my_foods import MyFoodsTab
from app.ui.photos import PhotoSections
from app.ui.settings import SettingsTab
from app.ui.today import TodayTab

__all__ = ["GRADIO_CACHE_S", "PAGE_ASSETS", "AppContext", "Page", "build_page", "build_ui"]

# Gradio's copies of the files it serves live an hour at most: they are health data.
GRADIO_CACHE_S = 3600


@dataclass
class Page:
    """The built page and its parts (whose handlers the tests call)."""

    blocks: gr.Blocks
    header: PageHeader
    analyse: AnalyseTab
    today: TodayTab
    my_foods: MyFoodsTab
    settings: SettingsTab
    models: ModelsTab
    photos: PhotoSections
    glucose: GlucoseTab
    batch: BatchTab


def build_ui(ctx: AppContext) -> gr.Blocks:
    return build_page(ctx).blocks


def build_page(ctx: AppContext) -> Page:
    downloads = Downloads(ctx.files)
    photos = PhotoSections(ctx)
    glucose = GlucoseTab(ctx.user, downloads.path, ctx.uploads)
    header, analyse, today = PageHeader(ctx), AnalyseTab(ctx, downloads), TodayTab(ctx, downloads, glucose)
    my_foods, settings, models = MyFoodsTab(ctx), SettingsTab(ctx, photos), ModelsTab(ctx, photos)
    batch = BatchTab.for_app(ctx)
    with gr.Blocks(title="foodtag", delete_cache=(GRADIO_CACHE_S // 2, GRADIO_CACHE_S)) as blocks:
        header.build(blocks)
        # On a phone the tabs wrap onto a second row instead of hiding behind a "..." menu.
        with gr.Tabs(overflow_behavior="wrap") as tabs:
            analyse.build(blocks)
            today.build(blocks)
            my_foods.build(blocks, tabs)
            settings.build(blocks)
            models.build(blocks)
            glucose.build()
            batch.build()
        page = Page(blocks, header, analyse, today, my_foods, settings, models, photos, glucose, batch)
        _wire_across_tabs(page, tabs)
    return page


def _wire_across_tabs(page: Page, tabs: gr.Tabs) -> None:
    """The events whose outputs lie in another tab than their trigger: a glucose-tablet search
    entry opens the My foods label form, and Log and Save settings redraw the Today tab (and
    the recent foods or the card)."""
    analyse, today, my_foods, settings = page.analyse, page.today, page.my_foods, page.settings
    a = analyse.c
    a.search_hits.input(my_foods.open_pack_form, [a.search_hits],
                        [tabs, my_foods.c.own_name, my_foods.c.own_basis, my_foods.c.own_serving_name,
                         my_foods.c.my_status], api_name="open_pack_form", **QUIET)
    a.log_btn.click(
        analyse.log_meal, [a.state, a.serving, a.grams, a.meal_type, a.eaten_at, a.note], [a.log_status],
        api_name="log_meal"
    ).success(today.day_view, [today.c.day], today.day_outputs, api_name="day_view_after_log", **QUIET).success(
        analyse.recent_foods, None, [a.recent], api_name="recent_after_log", **QUIET)
    settings.c.save_settings_btn.click(
        settings.save_settings, settings.fields, [settings.c.settings_status], api_name="save_settings"
    ).success(today.day_view, [today.c.day], today.day_outputs, api_name="day_view_after_settings", **QUIET).success(
        analyse.refresh_card, [a.state], [a.carb_head, a.card], api_name="card_after_settings", **QUIET)
