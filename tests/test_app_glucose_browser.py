"""A real browser on the Glucose tab: set the time zone, import a Clarity export, see the report
with its AGP chart and the PNG for the clinic, see a meal beside its curve, there and on its
entry in the Today tab (headless Chromium).
The screenshot is test-artifacts/glucose.png (the README's picture of the report)."""

from __future__ import annotations

from datetime import date, datetime

import pytest
from app_support import ARTIFACTS, chromium_page, module_server, needs_chromium, settled

from app.config import LOCAL_USER
from benchmarks.bench_glucose import clarity_export
from db import service
from db.glucose import service as glucose

pytestmark = needs_chromium
server = module_server("app-glucose-browser")


def test_import_report_and_meals_in_the_glucose_tab(server, tmp_path):
    expect = pytest.importorskip("playwright.sync_api").expect
    export = tmp_path / "clarity_export.csv"
    export.write_bytes(clarity_export(14, date(2026, 11, 17)))
    ARTIFACTS.mkdir(exist_ok=True)
    with chromium_page(server.url, viewport={"width": 1280, "height": 1400}) as page:
        page.get_by_role("tab", name="Glucose").click()
        expect(page.locator("#glucose-note")).to_contain_text("not dosing advice", timeout=30_000)
        zone = page.locator("#glucose-zone textarea, #glucose-zone input").first
        expect(zone).to_have_value("UTC", timeout=30_000)
        settled(server)
        zone.fill("Europe/London")
        page.get_by_role("button", name="Save time zone").click()
        status = page.locator("#glucose-import-status")
        expect(status).to_contain_text("Europe/London", timeout=30_000)
        assert glucose.time_zone(LOCAL_USER) == "Europe/London"

        page.locator("#glucose-file input[type=file]").set_input_files(str(export))
        page.locator("#glucose-import").click()
        expect(status).to_contain_text("4032", timeout=60_000)
        expect(status).to_contain_text("readings added")

        banana = service.log_meal(LOCAL_USER, "banana", eaten_at=datetime(2026, 11, 29, 12, 0))["id"]
        page.get_by_label("Last day (YYYY-MM-DD; empty: today)").fill("2026-11-30")
        page.locator("#glucose-report").click()
        metrics = page.locator("#glucose-metrics")
        expect(metrics).to_contain_text("In range 70-180", timeout=60_000)
        expect(metrics).to_contain_text("4032 readings")
        expect(page.locator("#glucose-agp img, #glucose-agp svg, #glucose-agp canvas").first).to_be_visible(
            timeout=30_000)
        expect(page.locator("#glucose-png")).to_contain_text(".png", timeout=30_000)
        page.screenshot(path=str(ARTIFACTS / "glucose.png"), full_page=True)

        page.get_by_role("button", name="Show meals").click()
        expect(page.locator("#glucose-meals")).to_contain_text("Banana", timeout=30_000)

        # The same meal's curve and response on its entry in the Today tab.
        page.get_by_role("tab", name="Today").click()
        page.locator("#today-day input").first.fill("2026-11-29")
        page.get_by_role("button", name="Show", exact=True).click()
        table = page.locator("#day-entries")
        expect(table).to_contain_text("Banana", timeout=30_000)
        table.get_by_role("gridcell", name=str(banana), exact=True).click()
        expect(page.locator("#entry-glucose")).to_contain_text("Baseline", timeout=30_000)
        expect(page.locator("#entry-glucose-plot img, #entry-glucose-plot svg").first).to_be_visible(
            timeout=30_000)
    assert glucose.reading_count(LOCAL_USER) == 14 * 288
