"""python -m app glucose import|report|meals|foods|zone|unit|export ...

  python -m app glucose import USER FILE [--format auto|clarity|libreview|nightscout|csv] [--tz ZONE]
                                   readings added, duplicates skipped, rows refused (by line)
  python -m app glucose report USER [--days 14] [--end DATE] [--json] [--png FILE] [--pdf FILE]
                                   the standard CGM report (consensus metrics; the one-page
                                   report with the AGP and daily profiles as PNG or PDF)
  python -m app glucose meals USER [--json]
                                   each meal's glucose response
  python -m app glucose foods USER [--json]
                                   the person's own response per food (enough meals only)
  python -m app glucose zone USER [ZONE]
                                   show or set the time zone zone-less exports are read in
  python -m app glucose unit USER [mg/dL|mmol/L|region]
                                   show or set the unit glucose is shown in (region: the region's)
  python -m app glucose export USER FILE
                                   every reading as CSV, for the diabetes team

Glucose is shown in the user's unit; --json keeps the values in their mg/dL fields (a report's
and foods' "glucose_unit" names the user's unit).
It shows what happened: no dosing advice, no prediction.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from db.errors import InvalidValue
from db.glucose import metrics
from db.glucose.units import shown
from models.cli import unknown_command


def parser() -> tuple[argparse.ArgumentParser, argparse.Action]:
    main = argparse.ArgumentParser(prog="python -m app glucose",
                                   description="CGM and meter readings beside the meal log. Shows what "
                                               "happened: no dosing advice, no prediction.")
    database = argparse.ArgumentParser(add_help=False)
    database.add_argument("--db-url", help="SQLAlchemy database URL (default as for serving)")
    sub = main.add_subparsers(dest="action", required=True)
    load = sub.add_parser("import", parents=[database], help="import a Dexcom Clarity, LibreView, "
                          "Nightscout or plain CSV export")
    load.add_argument("user")
    load.add_argument("file", type=Path)
    load.add_argument("--format", default="auto",
                      choices=["auto", "clarity", "libreview", "nightscout", "csv"])
    load.add_argument("--tz", help="IANA time zone of the export's zone-less times (default: the "
                                   "user's, see `glucose zone`)")
    report = sub.add_parser("report", parents=[database], help="the standard CGM report")
    report.add_argument("user")
    report.add_argument("--days", type=int, default=14)
    report.add_argument("--end", help="last day, YYYY-MM-DD (default: today in the user's zone)")
    report.add_argument("--json", action="store_true")
    report.add_argument("--png", type=Path, help="also write the one-page report (AGP, daily profiles) as a PNG")
    report.add_argument("--pdf", type=Path, help="also write the one-page report as a PDF")
    for name, what in (("meals", "each meal's glucose response"),
                       ("foods", "the person's own response per food")):
        command = sub.add_parser(name, parents=[database], help=what)
        command.add_argument("user")
        command.add_argument("--json", action="store_true")
    zone = sub.add_parser("zone", parents=[database], help="show or set the user's time zone")
    zone.add_argument("user")
    zone.add_argument("zone", nargs="?")
    unit = sub.add_parser("unit", parents=[database], help="show or set the unit glucose is shown in")
    unit.add_argument("user")
    unit.add_argument("unit", nargs="?", help="mg/dL, mmol/L, or region (the user's region's unit)")
    export = sub.add_parser("export", parents=[database], help="every reading as CSV")
    export.add_argument("user")
    export.add_argument("file", type=Path)
    return main, sub


def main(argv: list[str]) -> int:
    from db import service, session
    from db.glucose import service as glucose

    built, actions = parser()
    if (status := unknown_command(argv, actions.choices, built.prog)) is not None:
        return status
    args = built.parse_args(argv)
    if args.db_url:
        session.configure(args.db_url)
    session.init_db()
    if args.action == "import":
        return _import(glucose, args)
    if args.action == "report":
        return _report(glucose, args)
    if args.action == "meals":
        meals = glucose.meal_responses_json(args.user)
        print(json.dumps(meals, indent=1) if args.json else meals_table(meals, glucose.glucose_unit(args.user)))
    elif args.action == "foods":
        foods = glucose.food_responses(args.user)
        print(json.dumps(foods, indent=1) if args.json else foods_table(foods))
    elif args.action == "zone":
        zone = glucose.set_time_zone(args.user, args.zone) if args.zone else glucose.time_zone(args.user)
        print(f"{args.user}: {zone}")
    elif args.action == "unit":
        if args.unit:  # "region" clears the person's own choice
            service.update_settings(args.user, glucose_unit=None if args.unit == "region" else args.unit)
        print(f"{args.user}: {glucose.glucose_unit(args.user)}")
    elif args.action == "export":
        with _open_out(args.file) as out:
            count = glucose.export_readings_csv(args.user, out)
        print(f"{count} readings written to {args.file}")
    return 0


def _import(glucose, args) -> int:
    try:
        size = args.file.stat().st_size
    except OSError as exc:
        raise InvalidValue(f"cannot read {args.file}: {exc.strerror}") from None
    if size > glucose.MAX_IMPORT_BYTES:
        raise InvalidValue(f"{args.file} is larger than {glucose.MAX_IMPORT_BYTES // 2**20} MB; "
                           "export a shorter period")
    result = glucose.import_file(args.user, args.file, fmt=args.format, tz=args.tz)
    print(f"{args.file}: read as {result['format']} in {result['time_zone']}: "
          f"{result['added']} readings added, {result['duplicates']} duplicates skipped, "
          f"{result['events_added']} insulin and carbohydrate events added, {result['refused']} rows refused")
    for row in result["refused_rows"]:
        print(f"  refused {row}", file=sys.stderr)
    if result["refused"] > len(result["refused_rows"]):
        print(f"  ... and {result['refused'] - len(result['refused_rows'])} more", file=sys.stderr)
    return 0


def _report(glucose, args) -> int:
    from app.glucose import chart

    report = glucose.report(args.user, days=args.days, end=args.end)
    for path, draw in ((args.png, chart.report_png), (args.pdf, chart.report_pdf)):
        if path:
            _write(path, draw(report))
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print(f"{args.user}: {report['start']} to {report['end']} ({report['time_zone']})")
        print(chart.report_text(report))
    return 0


def meals_table(meals: list[dict], unit: str) -> str:
    """Each meal's response, glucose in ``unit``."""
    lines = [f"{'meal (local time)':<17} {'carbs g':>7} {'base':>5} {'peak':>5} {'rise':>5} "
             f"{'min':>4} {'iAUC 2h':>8}  foods; flags"]
    for meal in meals:
        r = meal["response"]
        cell = lambda v, w: f"{'-' if v is None else f'{v:g}':>{w}}"  # noqa: E731
        glucose = lambda key, w: f"{shown(r[key], unit):>{w}}"  # noqa: E731
        flags = [f for f in r["flags"] if f != metrics.FLAG_INSULIN_UNKNOWN]
        if meal.get("kept") and set(flags) & set(metrics.EXCLUDING_FLAGS):
            flags.append("kept in the per-food figures")
        lines.append(f"{meal['eaten_at'].replace('T', ' '):<17} {cell(meal['carbohydrate_g'], 7)} "
                     f"{glucose('baseline_mg_dl', 5)} {glucose('peak_mg_dl', 5)} {glucose('rise_mg_dl', 5)} "
                     f"{cell(r['minutes_to_peak'], 4)} {glucose('iauc_2h', 8)}  {', '.join(meal['foods'])}"
                     + (f"; {'; '.join(flags)}" if flags else ""))
    lines.append(f"{unit}; iAUC in {unit} x min. A correction bolus cannot be excluded for any meal: "
                 "foodtag holds no insulin data. Shows what happened; not dosing advice.")
    return "\n".join(lines)


def foods_table(foods: dict) -> str:
    """The response per food (db.glucose.service.food_responses), in its glucose unit."""
    unit = foods["glucose_unit"]
    lines = [f"Foods with at least {foods['minimum_meals']} clean meals (the food gives at least "
             f"{foods['main_food_share']:.0%} of the meal's carbohydrate; no other meal, no missing data):"]
    lines += [f"  {f['food']:<30} {f['meals']:>3} meals  iAUC/10 g {shown(f['iauc_per_10g'], unit)} "
              f"(SD {shown(f['iauc_per_10g_sd'], unit)}) {unit} x min  rise/10 g {shown(f['rise_per_10g'], unit)} "
              f"(SD {shown(f['rise_per_10g_sd'], unit)}) {unit}"
              for f in foods["foods"]] or ["  none yet"]
    lines.append(foods["disclaimer"])
    return "\n".join(lines)


def _write(path: Path, data: bytes) -> None:
    try:
        path.write_bytes(data)
    except OSError as exc:
        raise InvalidValue(f"cannot write {path}: {exc.strerror}") from None


def _open_out(path: Path):
    try:
        return path.open("w", encoding="utf-8", newline="")
    except OSError as exc:
        raise InvalidValue(f"cannot write {path}: {exc.strerror}") from None
