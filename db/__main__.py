"""python -m db: set up the database, look foods up, search, export a user's log.

    python -m db init
    python -m db lookup pizza --grams 150 [--unit 12] [--json]
    python -m db search "spagetti"
    python -m db export-log --user alice --out alice.csv
    python -m db check-seed [DIR]     (every problem in db/seed/*.csv, one per line)

Errors print one line ("error: ...") to stderr and exit with status 2.
"""

import argparse
import json
import sys
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from models.errors import FoodtagError


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    # Imported after parsing so --help stays instant.
    from db import service
    from db.seed import seed_problems
    from db.session import database_url, init_db

    try:
        if args.command == "check-seed":
            data, problems = seed_problems(args.dir)
            for problem in problems:
                print(problem)
            if problems:
                count = len(problems)
                return _fail(f"{count} problem{'s' if count > 1 else ''} in the seed")
            print(f"seed ok: {len(data.foods)} foods, {len(data.servings)} servings, "
                  f"{len(data.glycemic_index)} GI values")
            return 0
        init_db()  # idempotent: every command works on a fresh install
        if args.command == "init":
            print(f"database ready: {_safe_url(database_url())} ({service.food_count()} foods)")
        elif args.command == "lookup":
            card = service.lookup(" ".join(args.name), grams=args.grams, serving=args.serving,
                                  exchange_unit_g=args.unit)
            print(json.dumps(card, ensure_ascii=False) if args.json else _card_text(card))
        elif args.command == "search":
            results = service.search(" ".join(args.text), limit=args.limit)
            for hit in results:
                print(f"{hit['score']:.3f}  {hit['food']}  ({hit['category']})")
            if not results:
                print("no matches", file=sys.stderr)
        elif args.command == "export-log":
            rows = service.export_log_csv(args.user, args.out)
            print(f"wrote {rows} entries to {args.out}")
    except FoodtagError as exc:
        return _fail(str(exc))
    except SQLAlchemyError as exc:
        return _fail(f"database: {str(exc).splitlines()[0]}")
    except OSError as exc:
        return _fail(f"{exc.filename or ''}: {exc.strerror or exc}")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m db", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("init", help="create or upgrade the database and load the seed foods")
    lookup = commands.add_parser("lookup", help="nutrition card for a label, name or alias")
    lookup.add_argument("name", nargs="+", help="model label, food name or alias")
    portion = lookup.add_mutually_exclusive_group()
    portion.add_argument("--grams", help="portion in grams (default: default serving)")
    portion.add_argument("--serving", help="a named serving of the food")
    lookup.add_argument("--unit", type=float, default=15.0, choices=(15.0, 12.0, 10.0),
                        help="carbohydrate exchange in grams: 15 (US), 12 (BE), 10 (KE)")
    lookup.add_argument("--json", action="store_true", help="print the card as one JSON object")
    search = commands.add_parser("search", help="fuzzy food search, best match first")
    search.add_argument("text", nargs="+")
    search.add_argument("--limit", type=int, default=10)
    export = commands.add_parser("export-log", help="write a user's meal log as CSV")
    export.add_argument("--user", required=True)
    export.add_argument("--out", required=True, help="CSV file to write")
    check = commands.add_parser("check-seed", help="list every problem in the seed CSV files")
    check.add_argument("dir", nargs="?", help="folder with the three CSVs (default: db/seed)")
    return parser


def _card_text(card: dict[str, Any]) -> str:
    p, src = card["portion"], card["source"]

    def g(key: str, unit: str = "g") -> str:
        return "n/a" if p[key] is None else f"{p[key]:g} {unit}"

    portion = f"{p['serving']} ({p['grams']:g} g)" if p["serving"] else f"{p['grams']:g} g"
    lines = [
        f"{card['food']} [{card['category']}], {portion}",
        f"  energy {g('kcal', 'kcal')}; carbohydrate {g('carbohydrate_g')} "
        f"(available {g('available_carbohydrate_g')}, sugars {g('sugars_g')}, "
        f"fiber {g('fiber_g')}); protein {g('protein_g')}; fat {g('fat_g')} "
        f"(saturated {g('saturated_fat_g')}); sodium {g('sodium_mg', 'mg')}",
    ]
    ex = card["exchanges"]
    if ex["value"] is not None:
        lines.append(f"  exchanges: {ex['value']:g} x {ex['unit_g']:g} g")
    gi, gl = card["glycemic_index"], card["glycemic_load"]
    if gi and gl:
        lines.append(f"  GI {gi['value']} -> glycemic load {gl['value']:g} ({gl['band']}); "
                     f"GI source: {gi['source']}")
    else:
        lines.append("  GI: no published value")
    ids = [f"FDC {src['fdc_id']}" if src["fdc_id"] else "",
           f"code {src['code']}" if src["code"] else ""]
    lines.append(f"  source: USDA {src['dataset']} {', '.join(i for i in ids if i)}: "
                 f"{src['description']}")
    if src["proxy_note"]:
        lines.append(f"  stand-in: {src['proxy_note']}")
    servings = ", ".join(f"{s['name']} {s['grams']:g} g" + (" (default)" if s["default"] else "")
                         for s in card["servings"])
    lines.append(f"  servings: {servings}")
    return "\n".join(lines)


def _safe_url(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
