"""A real browser: upload a photo, read the nutrition card, log the meal (headless Chromium)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from app_support import jpeg_bytes, seeded_server

from app.config import LOCAL_USER
from db import service

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists() and not shutil.which("chromium"),
                                reason="Chromium is not installed")


@pytest.fixture(scope="module")
def server(tmp_path_factory, default_model_path):
    with seeded_server(tmp_path_factory.mktemp("app-browser")) as live:
        yield live


def test_upload_photo_see_card_and_log(server, coffee_image, tmp_path):
    sync_api = pytest.importorskip("playwright.sync_api")
    photo = tmp_path / "espresso.jpg"
    photo.write_bytes(jpeg_bytes(coffee_image))
    ARTIFACTS.mkdir(exist_ok=True)

    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
        )
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 1400})
            page.goto(server.url)
            expect = sync_api.expect
            expect(page.locator("#safety-note")).to_contain_text("not medical advice", timeout=30_000)

            page.locator("#photo-upload input[type=file]").set_input_files(str(photo))
            card = page.locator("#nutrition-card")
            expect(card).to_contain_text("Espresso", timeout=60_000)
            expect(card).to_contain_text("FDC ID 171891")
            expect(card).to_contain_text("exchanges")
            expect(page.locator("#analysis-headline")).to_contain_text("espresso")

            page.locator("#log-meal").click()
            expect(page.locator("#log-status")).to_contain_text("Logged: Espresso", timeout=30_000)
            page.screenshot(path=str(ARTIFACTS / "app.png"), full_page=True)
            page.get_by_role("tab", name="Today").click()
            expect(page.locator("#day-totals")).to_contain_text("Carbohydrate", timeout=30_000)
            expect(page.locator("#meals-plot canvas, #meals-plot svg").first).to_be_visible(timeout=30_000)
            expect(page.locator("#daily-plot canvas, #daily-plot svg").first).to_be_visible(timeout=30_000)
            page.screenshot(path=str(ARTIFACTS / "app-today.png"), full_page=True)
        finally:
            browser.close()

    entries = service.list_meals(LOCAL_USER, *_today_bounds())
    assert [e["food"] for e in entries] == ["Espresso"]


def test_webcam_snapshot_is_analysed(server):
    """Chromium's fake camera (a test pattern) stands in for a webcam."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"],
        )
        try:
            page = browser.new_context(permissions=["camera"]).new_page()
            page.goto(server.url)
            page.get_by_text("Use the webcam").click()
            page.get_by_text("Click to Access Webcam").click()
            # Capture only once the (fake) camera delivers frames.
            page.wait_for_function(
                "() => { const v = document.querySelector('video'); return v && v.readyState >= 2 && v.videoWidth > 0; }",
                timeout=30_000,
            )
            page.get_by_role("button", name="capture photo").click()
            headline = page.locator("#analysis-headline")
            sync_api.expect(headline).to_contain_text(re.compile("best guess", re.I), timeout=60_000)
        finally:
            browser.close()


def _today_bounds():
    from datetime import datetime, time, timedelta

    start = datetime.combine(datetime.now().date(), time.min)
    return start, start + timedelta(days=1)
