"""Screenshots of the app's main flows, phone (390x844) and desktop (1280x900), for the docs.

    .venv/bin/python docs/screenshots/make_screenshots.py [--chromium /usr/bin/chromium]

Starts `python -m app` (single-user mode) on a fresh, temporary FOODTAG_HOME, so nobody's
meal log is shown or changed (the default model is exported there first: about a minute).
It analyses scikit-image's espresso photo, types a portion, logs it, and writes into this
folder: {phone,desktop}-analyse.png (the first screen after the analysis, as a person sees
it), {phone,desktop}-logged.png (the whole Analyse page after Log) and
{phone,desktop}-today.png (the Today tab). Then it logs a fortnight of meals for the same
single user, imports a 14-day CGM series made to follow them (a plain timestamp,value,unit CSV,
written here, deterministic) through the Glucose tab's own import, and writes
desktop-glucose.png: the standard report with its AGP chart and the meals overlaid.
Rerun it after a layout change (``--glucose-only`` for the last picture alone).
"""

from __future__ import annotations

import argparse
import math
import os
import random
import sys
import tempfile
from datetime import date, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # app, db
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


# The fortnight shown in desktop-glucose.png, fixed so that the picture is the same each run.
GLUCOSE_FIRST_DAY = date(2026, 11, 3)
GLUCOSE_DAYS = 14
# (time of day, [(food, grams), ...] rotating over the days): three meals a day.
MEAL_PLAN = (
    ((7, 30), [("Pancakes", 150), ("Banana", 120), ("French toast", 130), ("Waffles", 120)]),
    ((12, 45), [("Club sandwich", 250), ("Ramen", 450), ("Sushi", 220), ("Burrito", 300), ("Pho", 500)]),
    ((19, 0), [("Spaghetti bolognese", 350), ("Fried rice", 300), ("Chicken curry", 350),
               ("Cheese pizza", 250), ("Pad thai", 300), ("Risotto", 300)]),
)


def log_fortnight_of_meals(user: str) -> list[tuple[datetime, float]]:
    """Log MEAL_PLAN's meals for GLUCOSE_DAYS days through db.service (the app's own database
    under FOODTAG_HOME); returns (eaten at, carbohydrate g) of each, from the log itself."""
    from db import service

    logged = []
    for day in range(GLUCOSE_DAYS):
        for (hour, minute), foods in MEAL_PLAN:
            food, grams = foods[day % len(foods)]
            when = datetime.combine(GLUCOSE_FIRST_DAY + timedelta(days=day), datetime.min.time()).replace(
                hour=hour, minute=minute)
            entry = service.log_meal(user, food, grams=grams, eaten_at=when)
            logged.append((when, entry["carbohydrate_g"] or 0.0))
    return logged


def cgm_csv(meals: list[tuple[datetime, float]], seed: int = 32) -> str:
    """A plausible 5-minute CGM fortnight as a plain timestamp,value,unit CSV: a basal level
    with a dawn rise, each meal's carbohydrate as a rise peaking about 50 min later and gone by
    about 3 h, sensor noise, and two overnight lows; deterministic for a given seed."""
    noise = random.Random(seed)
    start = datetime.combine(GLUCOSE_FIRST_DAY, datetime.min.time())
    lines, drift = ["timestamp,value,unit"], 0.0
    for step in range(GLUCOSE_DAYS * 288):
        when = start + timedelta(minutes=5 * step)
        hour = when.hour + when.minute / 60
        value = 118 + 18 * math.exp(-((hour - 6.5) / 1.5) ** 2)  # the dawn phenomenon
        for eaten_at, carbs in meals:
            after = (when - eaten_at).total_seconds() / 60
            if 0 < after < 300:  # a gamma-shaped response, its peak (x = 1) at 50 min
                x = after / 50
                value += 1.6 * carbs * x ** 2 * math.exp(2 * (1 - x))
        if (when - start).days in (3, 10) and 2 <= hour <= 4:
            value -= 65 * math.sin(math.pi * (hour - 2) / 2)  # an overnight low
        drift = 0.9 * drift + noise.gauss(0, 4)  # sensor noise, correlated over ~1 h
        lines.append(f"{when:%Y-%m-%dT%H:%M:%S},{round(min(max(value + drift, 40), 400))},mg/dL")
    return "\n".join(lines) + "\n"


def shoot_glucose(browser, url: str, export: Path) -> None:
    """desktop-glucose.png: the Glucose tab after importing ``export``, showing the report."""
    from playwright.sync_api import expect

    page = browser.new_context(**VIEWPORTS["desktop"]).new_page()
    page.goto(url)
    page.get_by_role("tab", name="Glucose").click()
    page.locator("#glucose-file input[type=file]").set_input_files(str(export))
    page.locator("#glucose-import").click()
    expect(page.locator("#glucose-import-status")).to_contain_text("readings added", timeout=60_000)
    last_day = GLUCOSE_FIRST_DAY + timedelta(days=GLUCOSE_DAYS - 1)
    page.get_by_label("Last day (YYYY-MM-DD; empty: today)").fill(last_day.isoformat())
    page.locator("#glucose-report").click()
    expect(page.locator("#glucose-metrics")).to_contain_text(f"{GLUCOSE_DAYS * 288} readings", timeout=60_000)
    chart = page.locator("#glucose-agp img, #glucose-agp svg, #glucose-agp canvas").first
    expect(chart).to_be_visible(timeout=30_000)
    page.get_by_text("Import readings").click()  # folded: the picture is the report
    expect(page.locator("#glucose-file")).to_be_hidden(timeout=30_000)
    top = page.get_by_role("tablist").first.bounding_box()
    bottom = page.locator("#glucose-agp").bounding_box()
    clip = {"x": 0, "y": top["y"], "width": VIEWPORTS["desktop"]["viewport"]["width"],
            "height": bottom["y"] + bottom["height"] + 16 - top["y"]}
    page.screenshot(path=str(HERE / "desktop-glucose.png"), full_page=True, clip=clip)
    page.context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chromium", default="/usr/bin/chromium", help="Chromium to drive (default: Debian's)")
    parser.add_argument("--glucose-only", action="store_true", help="only desktop-glucose.png")
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
                for name, options in ({} if args.glucose_only else VIEWPORTS).items():
                    shoot(browser, url, photo, name, options)
                from app.config import LOCAL_USER

                export = Path(home) / "cgm.csv"
                export.write_text(cgm_csv(log_fortnight_of_meals(LOCAL_USER)))
                shoot_glucose(browser, url, export)
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=30)
    for path in sorted(HERE.glob("*.png")):
        print(path.relative_to(HERE.parents[1]))


if __name__ == "__main__":
    main()
