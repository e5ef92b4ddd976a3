"""Screenshots of the app's main flows, phone (390x844) and desktop (1280x900), for the docs.

    .venv/bin/python docs/screenshots/make_screenshots.py [--chromium /usr/bin/chromium]

Starts `python -m app` (single-user mode) on a fresh, temporary FOODTAG_HOME, so nobody's
meal log is shown or changed (the default model is exported there first: about a minute).
It analyses scikit-image's espresso photo, types a portion, logs it, and writes into this
folder: {phone,desktop}-analyse.png (the first screen after the analysis, as a person sees
it), {phone,desktop}-logged.png (the whole Analyse page after Log) and
{phone,desktop}-today.png (the Today tab). Rerun it after a layout change.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "benchmarks"))
from bench_app import photo_bytes, start_server  # noqa: E402  (the same app start as the benchmark)

VIEWPORTS = {
    "phone": {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True},
    "desktop": {"viewport": {"width": 1280, "height": 900}},
}


def shoot(browser, url: str, photo: Path, name: str, options: dict) -> None:
    from playwright.sync_api import expect

    page = browser.new_context(**options).new_page()
    page.goto(url)
    page.locator("#photo-upload input[type=file]").set_input_files(str(photo))
    expect(page.locator("#carb-headline")).to_contain_text("carbs", timeout=120_000)
    page.screenshot(path=str(HERE / f"{name}-analyse.png"))
    grams = page.locator("#portion-grams input, #portion-grams textarea").first
    grams.click()
    grams.press_sequentially("60", delay=50)
    grams.press("Enter")
    expect(page.locator("#carb-headline")).to_contain_text("60 g", timeout=60_000)
    page.locator("#log-meal").click()
    expect(page.locator("#log-status")).to_contain_text("Logged", timeout=60_000)
    page.screenshot(path=str(HERE / f"{name}-logged.png"), full_page=True)
    page.get_by_role("tab", name="Today").click()
    expect(page.locator("#day-entries")).to_contain_text("Espresso", timeout=60_000)
    page.screenshot(path=str(HERE / f"{name}-today.png"), full_page=True)
    page.context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", default="/usr/bin/chromium", help="Chromium to drive (default: Debian's)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="foodtag-screens-") as home:
        os.environ["FOODTAG_HOME"] = home
        photo = Path(home) / "espresso.jpg"
        photo.write_bytes(photo_bytes(None))
        server, url = start_server()
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=args.chromium,
                                            args=["--headless", "--no-sandbox", "--disable-gpu"])
                for name, options in VIEWPORTS.items():
                    shoot(browser, url, photo, name, options)
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=30)
    for path in sorted(HERE.glob("*.png")):
        print(path.relative_to(HERE.parents[1]))


if __name__ == "__main__":
    main()
