"""python -m db: set up the database, look foods up, search, export a user's log.

    python -m db init
    python -m db lookup pizza --grams 150 [--unit 12] [--json]
    python -m db search "spagetti"
    python -m db export-log --user alice --out alice.csv
    python -m db check-seed [DIR]     (every problem in db/seed/*.csv, one per line)
    python -m db build-sr28 ../shared/data/usda-sr28   (rebuild db/seed/sr28_*.csv.gz)
    python -m db build-fndds ../shared/data/fndds-2021-2023   (db/seed/fndds_*.csv.gz)
    python -m db build-cofid ../shared/data/cofid-2021   (db/seed/cofid_foods.csv.gz)
    python -m db build-swiss ../shared/data/swiss-fcdb-5.3   (db/seed/swiss_foods.csv.gz)
    python -m db migrate-sqlite-to --url postgresql+psycopg://USER:PW@HOST/DB [--from FILE]

Errors print one line ("error: ...") to stderr and exit with status 2.
"""

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from db.cards import GI_UNKNOWN
from db.nutrition import DEFAULT_EXCHANGE_UNIT_G, EXCHANGE_UNITS_G
from models.cli import unknown_command
from models.errors import FoodtagError


def main(argv: list[str] | None = None) -> int:
    from models.paths import owner_only_files

    owner_only_files()  # the database and exported logs are health data
    argv = list(sys.argv[1:] if argv is None else argv)
    parser, commands = _parser()
    if (status := unknown_command(argv, commands.choices, parser.prog)) is not None:
        return status
    args = parser.parse_args(argv)
    # Imported after parsing so --help stays instant.
    from db import cards, service
    from db.seed import SEED_DIR
    from db.session import database_url, default_sqlite_file, display_url, init_db

    try:
        if args.command == "check-seed":
            from db.seed_audit import check_seed

            return check_seed(Path(args.dir) if args.dir else SEED_DIR)
        if args.command == "build-sr28":
            from db import sr28

            foods, portions = sr28.read_release(args.release)
            out = args.out or SEED_DIR
            sr28.write_compact(foods, portions, out)
            print(f"wrote {len(foods)} foods and {len(portions)} portions to {out}")
            return 0
        if args.command in TABLE_COMMANDS:
            return _build_table(args.command, Path(args.source), Path(args.out or SEED_DIR))
        if args.command == "migrate-sqlite-to":
            return _migrate_sqlite_to(args.url, args.source or str(default_sqlite_file()))
        init_db()  # idempotent: every command works on a fresh install
        if args.command == "init":
            print(f"database ready: {display_url(database_url())} ({service.food_count()} foods)")
        elif args.command == "lookup":
            card = service.lookup(" ".join(args.name), grams=args.grams, serving=args.serving,
                                  exchange_unit_g=args.unit)
            print(json.dumps(card, ensure_ascii=False) if args.json else _card_text(card))
        elif args.command == "search":
            results = service.search(" ".join(args.text), limit=args.limit, user=args.user,
                                     group=args.group)
            unit_g = args.unit or (service.get_settings(args.user)["exchange_unit_g"] if args.user
                                   else DEFAULT_EXCHANGE_UNIT_G)
            for hit in results:
                score = "" if hit["score"] is None else f"{hit['score']:6.2f}"
                print(f"{score:>6}  {hit['food']}  ({hit['category']})  "
                      f"{cards.hit_text(hit, unit_g)}")
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


def _parser() -> tuple[argparse.ArgumentParser, argparse.Action]:
    """The parser, and its action of subcommands (whose choices name them)."""
    parser = argparse.ArgumentParser(prog="python -m db", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("init", help="create or upgrade the database and load the seed foods")
    lookup = commands.add_parser("lookup", help="nutrition card for a label, name or alias")
    lookup.add_argument("name", nargs="+", help="model label, food name or alias")
    portion = lookup.add_mutually_exclusive_group()
    portion.add_argument("--grams", help="portion in grams (default: default serving)")
    portion.add_argument("--serving", help="a named serving of the food")
    lookup.add_argument("--unit", type=float, default=DEFAULT_EXCHANGE_UNIT_G,
                        choices=tuple(EXCHANGE_UNITS_G),
                        help="carbohydrate exchange in grams: 15 (US), 12 (BE), 10 (KE, UK CP)")
    lookup.add_argument("--json", action="store_true", help="print the card as one JSON object")
    search = commands.add_parser("search", help="food search (typos allowed), best match first")
    search.add_argument("text", nargs="+")
    search.add_argument("--limit", type=int, default=10)
    search.add_argument("--group", help="only this food group, e.g. Beverages")
    search.add_argument("--user", help="include this user's own foods; favourites and recent "
                                       "foods first")
    search.add_argument("--unit", type=float, choices=tuple(EXCHANGE_UNITS_G),
                        help="the carbohydrate shown: total for 15 (US), available for 12 and 10 "
                             "(BE, KE, UK CP); default: the user's unit, else 15")
    export = commands.add_parser("export-log", help="write a user's meal log as CSV")
    export.add_argument("--user", required=True)
    export.add_argument("--out", required=True, help="CSV file to write")
    check = commands.add_parser("check-seed", help="list every problem in the seed CSV files")
    check.add_argument("dir", nargs="?", help="folder with the three CSVs (default: db/seed)")
    for command, (module, what) in TABLE_COMMANDS.items():
        build_table = commands.add_parser(
            command, help=f"turn {what} into the compact seed shipped in db/seed")
        build_table.add_argument("source", help=f"folder with {what}")
        build_table.add_argument("--out", help="output folder (default: db/seed)")
    build = commands.add_parser("build-sr28", help="turn the USDA SR28 release files into the "
                                                   "compact seed shipped in db/seed")
    build.add_argument("release", help="folder with FOOD_DES.txt, ABBREV.txt, WEIGHT.txt, "
                                       "FD_GROUP.txt")
    build.add_argument("--out", help="output folder (default: db/seed)")
    move = commands.add_parser(
        "migrate-sqlite-to", help="copy a SQLite database (foods, users, meal logs, all of it) "
                                  "into a new, empty PostgreSQL database, verified")
    move.add_argument("--url", required=True,
                      help="the PostgreSQL database: postgresql+psycopg://USER:PASSWORD@HOST/DB")
    move.add_argument("--from", dest="source",
                      help="SQLite file or sqlite:/// URL (default: $FOODTAG_HOME/foodtag.db)")
    return parser, commands


# The tables beside SR Legacy (db.composition): command -> (module, what it reads).
TABLE_COMMANDS = {
    "build-fndds": ("fndds", "FNDDS 2021-2023's nutrient_values.csv and portions_weights.csv"),
    "build-cofid": ("cofid", "CoFID 2021's cofid_2021.csv"),
    "build-swiss": ("swiss", "the Swiss FCDB V5.3's swiss_fcdb_5.3.tsv"),
}


def _build_table(command: str, source: Path, out: Path) -> int:
    import importlib

    from db import composition

    module = importlib.import_module(f"db.{TABLE_COMMANDS[command][0]}")
    foods, measures = module.read_source(source)
    composition.write_compact(module.TABLE, foods, measures, out)
    print(f"wrote {len(foods)} {module.TABLE.dataset.name} foods and {len(measures)} portions "
          f"to {out}")
    return 0


def _migrate_sqlite_to(target: str, source: str) -> int:
    from db import transfer
    from db.session import display_url

    tables = transfer.copy_sqlite_to(target, source)
    print(f"copied {transfer.sqlite_url(source)} to {display_url(target)}")
    for copy in tables:
        print(f"  {copy.table:20} {copy.rows:8} rows  sha256 {copy.sha256[:16]}")
    print(f"verified: {len(tables)} tables, {sum(c.rows for c in tables)} rows; row counts and "
          "checksums match the source")
    return 0


def _card_text(card: dict[str, Any]) -> str:
    from db import cards

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
        exact = "" if ex["as_taught"] == ex["value"] else f"exact {ex['value']:g}; "
        lines.append(f"  exchanges: {ex['as_taught']:g} x {ex['unit']} ({exact}{ex['unit_g']:g} g, "
                     f"counted from {ex['basis']})")
    gi, gl = card["glycemic_index"], card["glycemic_load"]
    if gi:
        load = f" -> glycemic load {gl['value']:g} ({gl['band']})" if gl else ""
        lines.append(f"  GI {gi['value']} ({gi['citation']}){load}; how chosen: {gi['source']}")
    else:
        lines.append(f"  GI: {GI_UNKNOWN}")
    lines.append(f"  source: {cards.source_text(src)}: {src['description']}")
    if src["proxy_note"]:
        lines.append(f"  stand-in: {src['proxy_note']}")
    servings = ", ".join(f"{s['name']} {s['grams']:g} g" + (" (default)" if s["default"] else "")
                         for s in card["servings"])
    lines.append(f"  servings: {servings}")
    return "\n".join(lines)


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
