"""A real browser: upload a photo, read the nutrition card, log the meal (headless Chromium)."""

from __future__ import annotations

import re

import pytest
from app_support import ARTIFACTS, chromium_page, jpeg_bytes, module_server, needs_chromium, settled

from app.config import LOCAL_USER
from db import service

pytestmark = needs_chromium
server = module_server("app-browser")


def test_upload_photo_see_card_and_log(server, coffee_image, tmp_path):
    expect = pytest.importorskip("playwright.sync_api").expect
    photo = tmp_path / "espresso.jpg"
    photo.write_bytes(jpeg_bytes(coffee_image))
    ARTIFACTS.mkdir(exist_ok=True)

    with chromium_page(server.url, viewport={"width": 1280, "height": 1400}) as page:
        expect(page.locator("#safety-note")).to_contain_text("not medical advice", timeout=30_000)
        settled(server)  # the page's load events done (an upload sent as they end can stay pending)

        page.locator("#photo-upload input[type=file]").set_input_files(str(photo))
        card = page.locator("#nutrition-card")
        expect(card).to_contain_text("Espresso", timeout=60_000)
        expect(card).to_contain_text("FDC ID 171891")
        expect(card).to_contain_text("exchanges")
        expect(page.locator("#analysis-headline")).to_contain_text("espresso")
        # The preview (served to its owner only) shows; the upload box is empty again, as its file
        # is gone from the server.
        page.wait_for_function("() => { const img = document.querySelector('#analysed-photo img');"
                               " return img && img.complete && img.naturalWidth > 0; }", timeout=30_000)
        expect(page.locator("#photo-upload")).to_contain_text("Click to Upload", timeout=30_000)

        page.locator("#log-meal").click()
        expect(page.locator("#log-status")).to_contain_text("Logged: Espresso", timeout=30_000)
        page.screenshot(path=str(ARTIFACTS / "app.png"), full_page=True)
        page.get_by_role("tab", name="Today").click()
        expect(page.locator("#day-totals")).to_contain_text("Carbohydrate", timeout=30_000)
        expect(page.locator("#meals-plot canvas, #meals-plot svg").first).to_be_visible(timeout=30_000)
        expect(page.locator("#daily-plot canvas, #daily-plot svg").first).to_be_visible(timeout=30_000)
        page.screenshot(path=str(ARTIFACTS / "app-today.png"), full_page=True)

    entries = service.list_meals(LOCAL_USER, *_today_bounds())
    assert [e["food"] for e in entries] == ["Espresso"]


def test_webcam_snapshot_is_analysed(server):
    """Chromium's fake camera (a test pattern) stands in for a webcam."""
    expect = pytest.importorskip("playwright.sync_api").expect
    with chromium_page(server.url, flags=("--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"),
                       permissions=["camera"]) as page:
        expect(page.locator("#safety-note")).to_contain_text("not medical advice", timeout=30_000)
        settled(server)
        page.get_by_text("Use the webcam").click()
        page.get_by_text("Click to Access Webcam").click()
        # Capture only once the (fake) camera delivers frames.
        page.wait_for_function(
            "() => { const v = document.querySelector('video'); return v && v.readyState >= 2 && v.videoWidth > 0; }",
            timeout=30_000,
        )
        page.get_by_role("button", name="capture photo").click()
        headline = page.locator("#analysis-headline")
        expect(headline).to_contain_text(re.compile("best guess", re.I), timeout=60_000)


def _today_bounds():
    from datetime import datetime, time, timedelta

    start = datetime.combine(datetime.now().date(), time.min)
    return start, start + timedelta(days=1)
