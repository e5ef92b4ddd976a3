"""python -m app [serve options] | users add|list|remove|passwd|admin ... | batch ...

  python -m app [--region UK]        serve on 127.0.0.1:7860, single-user local mode
  python -m app --accounts --host 0.0.0.0
                                     serve to the network; everyone signs in
  python -m app users add NAME [--admin] [--region US|UK|DE]
                                     create a user (asks for the password twice;
                                     --password-stdin reads one line instead); admins
                                     (and the first account) change the default model
  python -m app users list           every user, admin or not, meals logged
  python -m app users passwd NAME    a new password (ends the user's sign-in sessions)
  python -m app users admin NAME [--revoke]
                                     grant (or take away) admin rights
  python -m app users remove NAME [--yes]
                                     delete the user and everything that is theirs
  python -m app batch ...            analyse a CSV of photos (see `python -m app batch -h`)
  python -m app photos export USER --out DIR [--household]
                                     the user's (or household's) kept meal photos as an
                                     ImageFolder: DIR/labelled/<food>/*.jpg, DIR/unlabelled/*.jpg
  python -m app glucose import|report|meals|foods|zone|export ...
                                     CGM and meter readings beside the meal log (see
                                     `python -m app glucose -h`); shows what happened, no dosing advice
  python -m app dishes add USER NAME --food FOOD PHOTO...
                                     teach USER a dish of their own from 1-10 photos
  python -m app dishes list USER [--json]
                                     their dishes, photo counts and held-out accuracy
  python -m app dishes remove USER NAME
                                     delete a dish with its vectors
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from db.nutrition import DEFAULT_REGION, REGIONS
from models.cli import unknown_command
from models.errors import FoodtagError


def serve_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m app",
        description="Serve the foodtag web app. Other commands: `users ...`, `batch ...`, `photos ...`, `glucose ...`.",
    )
    parser.add_argument("--host", help="address to listen on (env FOODTAG_HOST; default 127.0.0.1)")
    parser.add_argument("--port", type=int, help="port (env FOODTAG_PORT; default 7860)")
    parser.add_argument("--model", action="append", type=Path, metavar="FILE.onnx",
                        help="an extra ONNX model to offer; repeatable; the first is active at start "
                             "(env FOODTAG_MODEL; default: the built-in default model)")
    parser.add_argument("--db-url", help="SQLAlchemy database URL (env FOODTAG_DB_URL; default SQLite in FOODTAG_HOME)")
    parser.add_argument("--region", type=str.upper, choices=list(REGIONS),
                        help="single-user mode: where the local user counts carbohydrate, set at "
                             "first start (env FOODTAG_REGION; default US): US 15 g choices, "
                             "UK 10 g CP, DE 12 g BE; changeable in Settings")
    parser.add_argument("--accounts", action="store_const", const=True,
                        help="require sign-in (env FOODTAG_ACCOUNTS=1); needed to listen beyond this machine")
    parser.add_argument("--max-upload-mb", type=float, help="largest photo accepted (default 20)")
    parser.add_argument("--concurrency", type=int, help="concurrent UI events per handler (default 2)")
    parser.add_argument("--session-idle-minutes", type=float,
                        help="sign-in sessions end after this long unused (env FOODTAG_SESSION_IDLE_MINUTES; default 30)")
    parser.add_argument("--model-poll-seconds", type=float,
                        help="how often to pick up a default-model change made on another app process "
                             "(env FOODTAG_MODEL_POLL_SECONDS; default 5)")
    parser.add_argument("--photos-dir", type=Path,
                        help="where meal photos are kept for users who consent; every app process on "
                             "one database needs the same folder (env FOODTAG_PHOTOS_DIR; default "
                             "FOODTAG_HOME/photos)")
    return parser


def users_parser() -> tuple[argparse.ArgumentParser, argparse.Action]:
    """The parser, and its action of subcommands (whose choices name them)."""
    parser = argparse.ArgumentParser(prog="python -m app users", description="Manage sign-in accounts.")
    database = argparse.ArgumentParser(add_help=False)
    database.add_argument("--db-url", help="SQLAlchemy database URL (default as for serving)")
    sub = parser.add_subparsers(dest="action", required=True)
    add = sub.add_parser("add", parents=[database], help="create a user who signs in with a password")
    add.add_argument("name")
    add.add_argument("--password-stdin", action="store_true", help="read the password from one line of stdin")
    add.add_argument("--admin", action="store_true",
                     help="may change the server's default model (the first account always may)")
    add.add_argument("--region", type=str.upper, choices=list(REGIONS), default=DEFAULT_REGION,
                     help="where the user counts carbohydrate: sets their exchange unit (US 15 g "
                          "choice, UK 10 g CP, DE 12 g BE) and the food names search prefers; "
                          f"changeable in Settings (default {DEFAULT_REGION})")
    sub.add_parser("list", parents=[database], help="every user: admin or not, password or local, meals logged")
    remove = sub.add_parser("remove", parents=[database],
                            help="delete a user with their meal log, kept photos, own foods, favourites and settings")
    remove.add_argument("name")
    remove.add_argument("--yes", action="store_true", help="do not ask to confirm (needed without a terminal)")
    passwd = sub.add_parser("passwd", parents=[database], help="set a user's password; ends their sign-in sessions")
    passwd.add_argument("name")
    passwd.add_argument("--password-stdin", action="store_true", help="read the password from one line of stdin")
    admin = sub.add_parser("admin", parents=[database], help="let a user change the server's default model")
    admin.add_argument("name")
    admin.add_argument("--revoke", action="store_true", help="take that right away instead")
    return parser, sub


def users_main(argv: list[str]) -> int:
    from app.auth import read_new_password
    from db import service, session

    parser, actions = users_parser()
    if (status := unknown_command(argv, actions.choices, parser.prog)) is not None:
        return status
    args = parser.parse_args(argv)
    if args.action in ("add", "passwd"):
        password = read_new_password(args.password_stdin)  # before the database: a typo costs nothing
    if args.db_url:
        session.configure(args.db_url)
    session.init_db()
    if args.action == "add":
        # The first account is the one who set the server up: it administers the models.
        admin = args.admin or service.account_count() == 0
        service.create_user(args.name, password, admin=admin, region=args.region)
        role = "an admin" if admin else "a user"
        print(f"user {args.name!r} created as {role}; start the app with --accounts to require sign-in")
    elif args.action == "list":
        print(f"{'user':<24} {'role':<6} {'signs in':<9} {'meals':>6}  created (UTC)")
        for user in service.list_users():
            print(f"{user['name']:<24} {'admin' if user['admin'] else 'user':<6} "
                  f"{'password' if user['password'] else 'local':<9} {user['meals']:>6}  {user['created_at']:%Y-%m-%d %H:%M}")
    elif args.action == "remove":
        if not args.yes and not confirm_removal(args.name):
            print(f"nothing removed: pass --yes, or type the user name {args.name!r} when asked", file=sys.stderr)
            return 2
        meals = service.remove_user(args.name)
        print(f"user {args.name!r} removed, with {meals} logged meals, own foods, favourites and settings")
    elif args.action == "passwd":
        service.set_password(args.name, password)
        print(f"password of {args.name!r} changed; their sign-in sessions have ended")
    elif args.action == "admin":
        changed = service.set_admin(args.name, not args.revoke)
        state = "is no longer an admin" if args.revoke else "is an admin"
        print(f"user {args.name!r} {state}" + ("" if changed else " (no change)"))
    return 0


def photos_parser() -> tuple[argparse.ArgumentParser, argparse.Action]:
    parser = argparse.ArgumentParser(prog="python -m app photos",
                                     description="Meal photos kept with their owners' consent.")
    sub = parser.add_subparsers(dest="action", required=True)
    export = sub.add_parser("export", help="write a user's kept photos as an ImageFolder: labelled ones "
                                           "in OUT/labelled/<food>/, the others in OUT/unlabelled/")
    export.add_argument("user")
    export.add_argument("--out", type=Path, required=True, help="a new or empty folder")
    export.add_argument("--household", action="store_true",
                        help="the photos of every member of the user's household, not only theirs")
    export.add_argument("--db-url", help="SQLAlchemy database URL (default as for serving)")
    export.add_argument("--photos-dir", type=Path, help="the kept photos' folder (default as for serving)")
    return parser, sub


def photos_main(argv: list[str]) -> int:
    from db import photos, session

    parser, actions = photos_parser()
    if (status := unknown_command(argv, actions.choices, parser.prog)) is not None:
        return status
    args = parser.parse_args(argv)
    if args.db_url:
        session.configure(args.db_url)
    if args.photos_dir:
        photos.configure(args.photos_dir)
    session.init_db()
    counts = photos.export_image_folder(args.user, args.out, household=args.household)
    print(f"{counts['labelled']} labelled photos of {counts['foods']} foods in {args.out / 'labelled'}, "
          f"{counts['unlabelled']} unlabelled in {args.out / 'unlabelled'}")
    if counts["missing"]:
        print(f"warning: {counts['missing']} kept photos have no file in {photos.folder()} (deleted by hand?)",
              file=sys.stderr)
    return 0


def dishes_parser() -> tuple[argparse.ArgumentParser, argparse.Action]:
    parser = argparse.ArgumentParser(prog="python -m app dishes",
                                     description="A user's own dishes, recognised from a few photos each.")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db-url", help="SQLAlchemy database URL (default as for serving)")
    common.add_argument("--model", type=Path, metavar="FILE.onnx",
                        help="the model whose embeddings the dish is learned in (default: the one the app "
                             "analyses USER's photos with: their own pick, else the server's default)")
    sub = parser.add_subparsers(dest="action", required=True)
    add = sub.add_parser("add", parents=[common], help="teach USER the dish NAME from 1-10 photos "
                                                       "(to an existing dish, the photos are added)")
    add.add_argument("user")
    add.add_argument("name")
    add.add_argument("--food", required=True, help="the database food or the user's own recipe the dish is")
    add.add_argument("photos", nargs="+", type=Path, metavar="PHOTO")
    listing = sub.add_parser("list", parents=[common], help="the user's dishes with photo counts and held-out accuracy")
    listing.add_argument("user")
    listing.add_argument("--json", action="store_true", help="one JSON document instead of a table")
    remove = sub.add_parser("remove", parents=[common], help="delete a dish and its vectors")
    remove.add_argument("user")
    remove.add_argument("name")
    return parser, sub


def dishes_main(argv: list[str]) -> int:
    import json

    from app import dishes
    from app.meals import command_line_engine
    from db import dishes as stored
    from db import session
    from models.images import load_image

    parser, actions = dishes_parser()
    if (status := unknown_command(argv, actions.choices, parser.prog)) is not None:
        return status
    args = parser.parse_args(argv)
    if args.action == "add":
        if len(args.photos) > stored.MAX_PHOTOS_PER_ADD:
            parser.error(f"at most {stored.MAX_PHOTOS_PER_ADD} photos per add, got {len(args.photos)}")
        images = [load_image(path) for path in args.photos]  # before the database: a bad photo costs nothing
    if args.db_url:
        session.configure(args.db_url)
    session.init_db()
    if args.action == "add":
        engine = command_line_engine(args.model, args.user)
        added = dishes.add_dish(engine, args.user, args.name, args.food, images)
        print(f"dish {added['dish']!r} ({added['food']}) of {args.user!r}: {added['photos']} photos")
    elif args.action == "list":
        engine = command_line_engine(args.model, args.user)
        found = dishes.dish_summaries(args.user, engine)
        if args.json:
            print(json.dumps([{**d, "created_at": d["created_at"].isoformat()} for d in found], indent=2))
        else:
            print(f"{'dish':<30} {'photos':>6} {'held out':>9}  food")
            for d in found:
                print(f"{d['dish']:<30} {d['photos']:>6} {dishes.held_out_text(d):>9}  {d['food']}")
            recognised, tried = dishes.overall_held_out(found)
            if tried:
                print(f"held out (each photo recognised from the others): {recognised} of {tried}, {recognised / tried:.0%}")
    elif args.action == "remove":
        photos = stored.remove_dish(args.user, args.name)
        print(f"dish {args.name!r} of {args.user!r} removed with the vectors of {photos} photos")
    return 0


def confirm_removal(name: str) -> bool:
    """Asks at a terminal; without one (a script), removal needs --yes."""
    if not sys.stdin.isatty():
        return False
    return input(f"Remove {name!r} and everything they logged? Type the user name to confirm: ").strip() == name


def serve_main(argv: list[str]) -> int:
    from app.config import AppConfig

    args = serve_parser().parse_args(argv)
    config = AppConfig.from_env(
        host=args.host, port=args.port, models=args.model, db_url=args.db_url, accounts=args.accounts,
        region=args.region,
        max_upload_mb=args.max_upload_mb, concurrency=args.concurrency,
        session_idle_minutes=args.session_idle_minutes, model_poll_seconds=args.model_poll_seconds,
        photos_dir=args.photos_dir,
    )
    from app.server import serve  # Gradio and the model stack: only once the config is valid

    serve(config)
    return 0


def main(argv: list[str] | None = None) -> int:
    from models.memory import limit_arenas
    from models.paths import owner_only_files

    owner_only_files()
    limit_arenas()  # first, before any library starts threads (see models.memory)
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv[:1] == ["users"]:
            return users_main(argv[1:])
        if argv[:1] == ["dishes"]:
            return dishes_main(argv[1:])
        if argv[:1] == ["batch"]:
            from app.batch import main as batch_main

            return batch_main(argv[1:])
        if argv[:1] == ["photos"]:
            return photos_main(argv[1:])
        if argv[:1] == ["glucose"]:
            from app.glucose.cli import main as glucose_main

            return glucose_main(argv[1:])
        if (status := unknown_command(argv, ("users", "batch", "photos", "dishes", "glucose"), "python -m app")) is not None:
            return status
        return serve_main(argv)
    except FoodtagError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
