"""Importing a 90-day, 5-minute CGM export (about 26,000 readings) and reporting on it.

    python -m benchmarks.bench_glucose [--days 90] [--url URL]

Writes a Dexcom Clarity export laid out as Clarity writes one (header, patient and alert rows,
then one EGV row every 5 minutes, zone-less local times) for --days days, imports it into a
new SQLite database (or the empty database at --url) through db.glucose.service.import_file,
the function behind the CLI, the API and the Glucose tab, then imports it again (every reading
a duplicate), and builds the 14-day and 90-day reports and the meal responses. Prints, per step,
the readings, the seconds, and the peak Python memory (tracemalloc, in a second run of the step:
tracing slows the step it measures). Target: the import in under 5 seconds.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from datetime import date, datetime, timedelta
from pathlib import Path

CLARITY_HEADER = ("Index,Timestamp (YYYY-MM-DDThh:mm:ss),Event Type,Event Subtype,Patient Info,"
                  "Device Info,Source Device ID,Glucose Value (mg/dL),Insulin Value (u),"
                  "Carb Value (grams),Duration (hh:mm:ss),Glucose Rate of Change (mg/dL/min),"
                  "Transmitter Time (Long Integer),Transmitter ID")
CLARITY_INFO = ("1,,FirstName,,Bench,,,,,,,,,", "2,,LastName,,Mark,,,,,,,,,",
                "3,,Device,,,G7 Mobile App,Android G7,,,,,,,",
                "4,,Alert,High,,,Android G7,250,,,,,,", "5,,Alert,Low,,,Android G7,70,,,,,,")


def clarity_export(days: int, first: date) -> bytes:
    """A Clarity CSV of ``days`` days of 5-minute readings from midnight of ``first``: a daily
    wave between about 80 and 220 mg/dL, "Low" once a day, so every range is visited."""
    lines = [CLARITY_HEADER, *CLARITY_INFO]
    start = datetime.combine(first, datetime.min.time())
    for i in range(days * 288):
        when = start + timedelta(minutes=5 * i)
        minute = when.hour * 60 + when.minute
        value = "Low" if minute == 180 else str(round(150 + 70 * math.sin(2 * math.pi * minute / 1440)
                                                      + 25 * math.sin(i / 7.0)))
        lines.append(f"{i + 6},{when:%Y-%m-%dT%H:%M:%S},EGV,,,,Android G7,{value},,,,,{i * 300},8BENCH")
    return ("\r\n".join(lines) + "\r\n").encode()


def measure(step: Callable[[], object]) -> tuple[float, float, object]:
    """(seconds, peak traced MB of a second run, result of the first run)."""
    began = time.perf_counter()
    result = step()
    seconds = time.perf_counter() - began
    tracemalloc.start()
    step()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return seconds, peak, result


def run(days: int, url: str | None) -> list[tuple[str, int, float, float]]:
    from sqlalchemy import delete

    from db import service
    from db.glucose import service as glucose
    from db.tables import GlucoseReading
    from db.session import configure, get_engine, init_db, session_scope

    with tempfile.TemporaryDirectory() as folder:
        configure(url or f"sqlite:///{Path(folder) / 'bench.db'}")
        seed = Path(folder) / "seed"
        seed.mkdir()
        (seed / "foods.csv").write_text(
            "name,labels,aliases,category,fdc_dataset,fdc_id,source_code,fdc_description,proxy_note,"
            "kcal,carbohydrate_g,sugars_g,fiber_g,protein_g,fat_g,saturated_fat_g,sodium_mg,energy_note\n"
            'Banana,banana,,Fruit,SR Legacy,173944,09040,"Bananas, raw",,89,22.84,12.23,2.6,1.09,0.33,0.112,1,\n')
        (seed / "servings.csv").write_text(
            'food,serving,grams,is_default,source\nBanana,1 medium,118,true,"SR Legacy, FDC 173944"\n')
        (seed / "glycemic_index.csv").write_text("food,gi,reference,gi_source\n")
        init_db(seed_dir=seed)
        service.ensure_user("bench")
        glucose.set_time_zone("bench", "Europe/London")  # the export's zone-less times are read in it
        last = date(2026, 11, 30)
        first = last - timedelta(days=days - 1)
        for day in range(days):  # three meals a day to place on the curve
            for hour in (8, 13, 19):
                service.log_meal("bench", "banana", eaten_at=datetime.combine(
                    first + timedelta(days=day), datetime.min.time()) + timedelta(hours=hour))
        data = clarity_export(days, first)
        export = Path(folder) / "clarity.csv"
        export.write_bytes(data)

        def fresh_import():
            with session_scope() as session:
                session.execute(delete(GlucoseReading))
            return glucose.import_file("bench", export, fmt="clarity")

        rows = []
        seconds, peak, result = measure(fresh_import)
        rows.append((f"import {days} days ({len(data) / 2**20:.1f} MB)", result["added"], seconds, peak))
        seconds, peak, again = measure(lambda: glucose.import_file("bench", export))
        rows.append(("re-import (all duplicates)", again["duplicates"], seconds, peak))
        for span in (14, days):
            seconds, peak, report = measure(lambda s=span: glucose.report("bench", days=s, end=last))
            rows.append((f"report {span} days", report["readings"], seconds, peak))
        seconds, peak, meals = measure(lambda: glucose.meal_responses("bench"))
        rows.append((f"meal responses ({len(meals)} meals)", sum(len(m["curve"]) for m in meals), seconds, peak))
        get_engine().dispose()
        configure(None)
    return rows


def table(rows: list[tuple[str, int, float, float]]) -> str:
    out = ["| step | readings | seconds | peak Python MB |", "|---|---:|---:|---:|"]
    out += [f"| {name} | {count:,} | {seconds:.2f} | {peak:.1f} |" for name, count, seconds, peak in rows]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_glucose", description=__doc__.split("\n")[0])
    parser.add_argument("--days", type=int, default=90)
    parser.add_argument("--url", help="an empty database to fill (default: a new SQLite file)")
    args = parser.parse_args(argv)
    print(table(run(args.days, args.url)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
