"""`python -m app batch`: recognise every photo listed in a CSV and add its nutrition.

    python -m app batch meals.csv --out results.csv [--model M.onnx] [--images-root DIR]
        [--top-k K] [--log-user USER] [--user USER] [--confidence-threshold T] [--resume]
        [--allow-outside-root]
        [--workers N] [--batch-size B]
        [--engine local|ray] [--address ray://HOST:PORT|auto] [--actors N] [--actor-cpus C]

Input: a UTF-8, comma-separated CSV with an `image` column (a path; relative paths resolve
against --images-root, else the CSV's folder) and optionally `food` (the food in the photo,
when you know it better than the model), `grams` or `serving`, `eaten_at`, `user`, `meal` and
`note`. Every other column passes through unchanged.

Output: every input row once, in input order: its own cells, then RESULT_COLUMNS
(prediction, low_confidence, portion, nutrients, GI/GL, exchanges, FDC id, model version,
status, error), plus RESULTS.summary.csv with per-user, per-day totals. Cells that a spreadsheet would run
as a formula (starting with = + - @, tab or CR) get a leading ' - pass-through cells too,
so an input cell "-5" comes out as "'-5". Exchanges are in the --log-user's unit (else 15 g
US choices), in a column named with it (exchanges_15g, exchanges_12g, exchanges_10g);
low_confidence is true when the best guess is under --confidence-threshold (else the
--log-user's setting, else 0.5). As in the app, such a row gets no guessed food: without a
`food` cell it has status=error (and is not logged), so no card is ever built on a guess the
model itself doubts.

Engines: `local` (the default) decodes in a thread pool of this process; `ray` sends the
decoding and the model to Ray Data actors (app.batch.rayengine), on a private Ray instance or
the cluster at --address. Both run the same per-row code and write the same bytes.

Exit status: 0 every row ok, 1 some rows have status=error, 2 the input or an option is
unusable (nothing was processed), 130 interrupted (rerun with --resume to continue).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from functools import partial
from itertools import chain, islice
from pathlib import Path

from app.batch.csvfile import InputRow, InputSpec, ResultWriter, inspect_input, iter_rows, open_results
from app.batch.errors import BatchInputError, RowError
from app.batch.log import MealLog
from app.batch.nutrition import NutritionCache
from app.batch.paths import ImageResolver
from app.batch.pipeline import Item, predicted_chunks
from app.batch.resume import ResumePoint, find_resume_point
from app.batch.rows import RESULT_COLUMNS, chosen_food, nutrition_cells, parse_request, prediction_cells, result_columns, result_row
from app.batch.summary import summary_path, write_summary
from app import meals
from app.dishes import PersonalDishes, embedding_space, ranked_with_dishes
from db import service
from db.tables import DEFAULT_CONFIDENCE_THRESHOLD
from db.nutrition import DEFAULT_EXCHANGE_UNIT_G, EXCHANGE_UNITS_G
from models.engine import Prediction
from models.errors import FoodtagError

Progress = Callable[[int, int], None]  # (rows done, rows in the file)
MAX_BATCH_SIZE = 1024
ENGINES = ("local", "ray")


def default_workers() -> int:
    # Decoding threads; more than the cores only adds switching.
    return max(1, min(8, os.cpu_count() or 1))


@dataclass
class BatchConfig:
    input: Path
    out: Path
    model: Path | None = None
    images_root: Path | None = None
    top_k: int = 5
    log_user: str | None = None
    user: str | None = None  # whose personal dishes join the predictions
    resume: bool = False
    allow_outside_root: bool = False
    workers: int = field(default_factory=default_workers)
    batch_size: int = 32
    engine: str = "local"
    address: str | None = None  # ray: ray://HOST:PORT or auto; None starts a private instance
    actors: int | None = None  # ray: inference actors (None: the cluster's CPUs / actor_cpus)
    actor_cpus: int | None = None  # ray: CPUs each actor reserves and uses as threads (None: 1)
    # How a refused path's message tells the user to allow it (the app has no such switch).
    refusal_hint: str = "pass --allow-outside-root to permit it"
    # Exchanges in this unit (15, 12 or 10 g) and rows under this confidence flagged; None:
    # the log user's settings, else a new user's defaults.
    exchange_unit_g: float | None = None
    confidence_threshold: float | None = None

    def __post_init__(self) -> None:
        self.input, self.out = Path(self.input), Path(self.out)
        self.model = Path(self.model) if self.model else None
        self.images_root = Path(self.images_root) if self.images_root else None
        if self.top_k < 1:
            raise BatchInputError(f"--top-k must be at least 1, got {self.top_k}")
        if self.workers < 1:
            raise BatchInputError(f"--workers must be at least 1, got {self.workers}")
        if not 1 <= self.batch_size <= MAX_BATCH_SIZE:
            raise BatchInputError(f"--batch-size must be between 1 and {MAX_BATCH_SIZE}, got {self.batch_size}")
        if self.log_user is not None and not self.log_user.strip():
            raise BatchInputError("--log-user needs a user name")
        if self.user is not None and not self.user.strip():
            raise BatchInputError("--user needs a user name")
        if self.user is not None and self.engine != "local":
            raise BatchInputError("--user works with --engine local only")
        if self.engine not in ENGINES:
            raise BatchInputError(f"--engine must be one of {', '.join(ENGINES)}, got {self.engine!r}")
        if self.engine != "ray" and (self.address or self.actors is not None or self.actor_cpus is not None):
            raise BatchInputError("--address, --actors and --actor-cpus are options of --engine ray")
        if self.address is not None and not (self.address == "auto" or self.address.startswith("ray://")):
            raise BatchInputError(f"--address must be ray://HOST:PORT or auto, got {self.address!r}")
        if self.confidence_threshold is not None and not 0 <= self.confidence_threshold <= 1:
            raise BatchInputError(f"--confidence-threshold must be from 0 to 1, got {self.confidence_threshold:g}")
        if any(n is not None and n < 1 for n in (self.actors, self.actor_cpus)):
            raise BatchInputError("--actors and --actor-cpus must be at least 1")


@dataclass(frozen=True)
class BatchPlan:
    """A checked configuration: the input is valid and the outputs can be written."""

    config: BatchConfig
    spec: InputSpec
    resolver: ImageResolver
    summary: Path

    def header(self, exchange_unit_g: float) -> list[str]:
        return [*self.spec.header, *result_columns(exchange_unit_g)]


@dataclass(frozen=True)
class BatchResult:
    out: Path
    summary: Path
    rows: int  # rows in the output (all of the input)
    processed: int  # rows this run computed (fewer when resuming)
    errors: int  # rows with status=error, in the whole output
    seconds: float
    lookups: int  # nutrition lookups that reached the database
    cache_hits: int


def plan_batch(config: BatchConfig) -> BatchPlan:
    """Every check that can reject the whole job, before any model or database work."""
    spec = inspect_input(config.input)
    ours = {name.lower() for unit_g in EXCHANGE_UNITS_G for name in (*RESULT_COLUMNS, *result_columns(unit_g))}
    clashes = [name for name in spec.header if name.strip().lower() in ours]
    if clashes:
        raise BatchInputError(
            f"{config.input}: column(s) {', '.join(map(repr, clashes))} would clash with result columns; rename them"
        )
    summary = summary_path(config.out)
    if config.out.is_dir():
        raise BatchInputError(f"--out {config.out} is a folder; give a file name")
    if not config.out.parent.is_dir():
        raise BatchInputError(f"--out {config.out}: folder {config.out.parent} does not exist")
    if config.input.resolve() in (config.out.resolve(), summary.resolve()):
        raise BatchInputError("--out would overwrite the input CSV")
    root = config.images_root or config.input.parent
    if not root.is_dir():
        raise BatchInputError(f"--images-root {root} is not a folder")
    resolver = ImageResolver(root, config.allow_outside_root, config.refusal_hint)
    return BatchPlan(config=config, spec=spec, resolver=resolver, summary=summary)


def _chunked(items: Iterable[Item], size: int) -> Iterator[list[Item]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


class _Runner:
    """Turns input rows into result rows; one per run_batch call."""

    def __init__(self, plan: BatchPlan, engine, ray_engine=None):
        self.plan, self.engine, self.ray_engine = plan, engine, ray_engine
        config = plan.config
        self.meal_log = None
        # Exchanges in this unit, rows under this confidence flagged: the config's, else the
        # log user's settings, else a new user's defaults.
        settings = {"exchange_unit_g": DEFAULT_EXCHANGE_UNIT_G, "confidence_threshold": DEFAULT_CONFIDENCE_THRESHOLD}
        if config.log_user:
            service.ensure_user(config.log_user)
            settings = service.get_settings(config.log_user)
            self.meal_log = MealLog(config.log_user, plan.spec, meals.log)
        self.exchange_unit_g = float(config.exchange_unit_g or settings["exchange_unit_g"])
        self.confidence_threshold = float(settings["confidence_threshold"] if config.confidence_threshold is None
                                          else config.confidence_threshold)
        self.header = plan.header(self.exchange_unit_g)
        lookup = partial(service.lookup, user=config.user) if config.user else service.lookup
        self.nutrition = NutritionCache(lookup, exchange_unit_g=self.exchange_unit_g)
        self.personal = None
        if config.user:
            service.get_settings(config.user)  # an unknown user is refused before any photo
            if engine.has_embedding:
                self.personal = PersonalDishes().for_user(config.user, embedding_space(engine))[0]

    def already_written(self, row: InputRow) -> None:
        if self.meal_log is not None:
            self.meal_log.external_id(row.cells)  # counts this row, so later rows keep their ids

    def item(self, row: InputRow, write: bool) -> Item:
        spec = self.plan.spec
        item = Item(row=row, write=write, name=spec.value(row.cells, "image"))
        try:
            if row.problem:
                raise RowError(row.problem)
            item.request = parse_request(spec, row.cells)
            item.path = self.plan.resolver.resolve(item.name)
        except RowError as exc:
            item.error = str(exc)
        return item

    def result(self, item: Item) -> tuple[list[str], bool]:
        """The output row for a predicted (or failed) item, and whether it is ok."""
        values: dict[str, str] = {}
        error = item.error
        external_id = self.meal_log.external_id(item.row.cells) if self.meal_log else ""
        if item.predictions:
            values.update(prediction_cells(item.predictions, self.confidence_threshold))
            values["model_version"] = self.engine.version
        if not error:
            best, request = item.predictions[0], item.request
            try:
                food = chosen_food(request, best, self.confidence_threshold)
                values.update(nutrition_cells(self.nutrition.card(food, request.grams, request.serving)))
                if self.meal_log is not None and self.meal_log.belongs(request):
                    values["log_entry_id"] = self.meal_log.add(request, food, best, self.engine.version, external_id)
            except RowError as exc:
                error = str(exc)
        values["status"] = "error" if error else "ok"
        values["error"] = error
        return [*item.row.cells, *result_row(values)], not error

    def predicted(self, items: Iterable[Item]) -> Iterator[list[Item]]:
        config = self.plan.config
        if self.ray_engine is not None:
            return self.ray_engine.predicted(_chunked(items, config.batch_size))
        return predicted_chunks(
            _chunked(items, config.batch_size),
            self.engine.preprocess_image,
            self._predict,
            workers=config.workers,
            batch_size=config.batch_size,
            min_side=self.engine.preprocess.decode_side,
        )


    def _predict(self, batch):
        """The top-k of each photo: the model's classes, with the --user's dishes when given."""
        ranked, _ = ranked_with_dishes(self.engine, self.personal, batch, self.plan.config.top_k)
        return [[Prediction(r.label, r.probability, r.dish_food) for r in row] for row in ranked]


def run_batch(plan: BatchPlan, engine, *, progress: Progress | None = None) -> BatchResult:
    """Process the plan's input into its output and summary (see the module docstring).

    `engine` is a models.engine.Engine (the ray engine loads its file, `engine.path`, in each
    actor).
    """
    config = plan.config
    ray_engine = _connect_ray(config, engine) if config.engine == "ray" else None
    try:
        return _run(plan, _Runner(plan, engine, ray_engine), progress)
    finally:
        if ray_engine is not None:
            ray_engine.close()


def _connect_ray(config: BatchConfig, engine):
    """The Ray engine, connected before the output is touched: a failure leaves it as it was."""
    from app.batch.rayengine import RayEngine

    return RayEngine(
        engine.path, address=config.address, actors=config.actors, actor_cpus=config.actor_cpus,
        batch_size=config.batch_size, top_k=config.top_k,
    )


def _run(plan: BatchPlan, runner: _Runner, progress: Progress | None) -> BatchResult:
    config, spec, engine = plan.config, plan.spec, runner.engine
    started = time.perf_counter()
    rows = iter_rows(spec)
    start = ResumePoint()
    if config.resume and config.out.exists():
        start = find_resume_point(
            config.out, runner.header, len(spec.header), spec.path, rows, version=engine.version,
            batch_size=config.batch_size, on_row=runner.already_written,
        )
    done, errors = start.done, start.errors
    if progress:
        progress(done, spec.rows)
    replay = start.replay if done < spec.rows else []  # a finished output needs nothing again
    items = chain((runner.item(row, write=False) for row in replay), (runner.item(row, write=True) for row in rows))
    with open_results(config.out, append=bool(start.end)) as handle:
        writer = ResultWriter(handle)
        if not start.end:
            writer.write(runner.header)
        chunks = runner.predicted(items)
        with closing(chunks):  # on an interrupt, stop the decoding threads now, not at garbage collection
            for chunk in chunks:
                for item in filter(lambda item: item.write, chunk):
                    cells, ok = runner.result(item)
                    writer.write(cells)
                    done, errors = done + 1, errors + (not ok)
                handle.flush()  # a killed run loses at most this chunk; --resume finds the rest
                if progress:
                    progress(done, spec.rows)
    write_summary(config.out, plan.summary, default_user=config.log_user or "")
    return BatchResult(
        out=config.out, summary=plan.summary, rows=done, processed=done - start.done, errors=errors,
        seconds=time.perf_counter() - started, lookups=runner.nutrition.misses, cache_hits=runner.nutrition.hits,
    )


# --- command line ----------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m app batch",
        description="Recognise the food in every photo listed in a CSV and add its nutrition.",
        epilog="Exit status: 0 all rows ok, 1 some rows failed (status=error), 2 unusable input, 130 interrupted.",
    )
    parser.add_argument("input", type=Path, metavar="INPUT.csv", help="CSV with an 'image' column")
    parser.add_argument("--out", type=Path, required=True, metavar="RESULTS.csv", help="results CSV to write")
    parser.add_argument("--model", type=Path, metavar="M.onnx", help="ONNX model (default: the app's model for --user, else --log-user: their own pick, else the server's default)")
    parser.add_argument("--images-root", type=Path, metavar="DIR", help="folder relative image paths start from (default: the CSV's folder)")
    parser.add_argument("--top-k", type=int, default=5, metavar="K", help="alternatives listed per photo (default 5; at most the model's labels)")
    parser.add_argument("--log-user", metavar="USER", help="also add the rows to USER's meal log (once, however often you rerun)")
    parser.add_argument("--user", metavar="USER", help="include USER's own dishes in the predictions (predicted_label names the dish)")
    parser.add_argument("--confidence-threshold", type=float, metavar="T",
                        help="from 0 to 1: a photo the model is less sure of gets no food unless its row names one "
                             "in a 'food' column (default: the --log-user's setting, else 0.5)")
    parser.add_argument("--resume", action="store_true", help="continue a half-written RESULTS.csv")
    parser.add_argument("--allow-outside-root", action="store_true", help="let image paths leave the images folder")
    parser.add_argument("--workers", type=int, default=default_workers(), metavar="N", help="local: decoding threads (default: cores, at most 8)")
    parser.add_argument("--batch-size", type=int, default=32, metavar="B", help="photos per model call (default 32)")
    ray = parser.add_argument_group("engine", "where the photos are decoded and predicted (the rest stays in this process)")
    ray.add_argument("--engine", choices=ENGINES, default="local", help="local: a thread pool here (default); ray: Ray Data actors")
    ray.add_argument("--address", metavar="ray://HOST:PORT|auto", help="ray: the cluster to use (default: start a private Ray instance on this machine)")
    ray.add_argument("--actors", type=int, metavar="N", help="ray: inference actors, one ONNX Runtime session each (default: the cluster's CPUs / --actor-cpus)")
    ray.add_argument("--actor-cpus", type=int, metavar="C", help="ray: CPUs each actor reserves and uses for decoding and the model (default 1)")
    return parser


def _tqdm_progress() -> tuple[Progress, Callable[[], None]]:
    from tqdm import tqdm

    bars = []

    def progress(done: int, total: int) -> None:
        if not bars:  # created at the first report, so a resumed run's rate counts new rows only
            bars.append(tqdm(total=total, initial=done, unit="img", dynamic_ncols=True, smoothing=0.05))
        bars[0].update(done - bars[0].n)

    def close() -> None:
        if bars:
            bars[0].close()

    return progress, close


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    progress, close_bar = _tqdm_progress()
    try:
        plan = plan_batch(BatchConfig(
            input=args.input, out=args.out, model=args.model, images_root=args.images_root,
            top_k=args.top_k, log_user=args.log_user, user=args.user, resume=args.resume,
            allow_outside_root=args.allow_outside_root, workers=args.workers, batch_size=args.batch_size,
            engine=args.engine, address=args.address, actors=args.actors, actor_cpus=args.actor_cpus,
            confidence_threshold=args.confidence_threshold,
        ))
        from app.meals import command_line_engine
        from db.session import init_db

        init_db()
        engine = command_line_engine(plan.config.model, plan.config.user or plan.config.log_user)
        result = run_batch(plan, engine, progress=progress)
    except KeyboardInterrupt:
        close_bar()
        print(f"\ninterrupted; run again with --resume to continue {args.out}", file=sys.stderr)
        return 130
    except FoodtagError as exc:
        close_bar()
        print(f"python -m app batch: error: {exc}", file=sys.stderr)
        return 2
    close_bar()
    rate = result.processed / result.seconds if result.seconds else 0.0
    print(
        f"{result.rows} rows -> {result.out} ({result.errors} with status=error); summary -> {result.summary}\n"
        f"{result.processed} rows this run in {result.seconds:.1f} s ({rate:.1f} img/s); "
        f"nutrition lookups {result.lookups}, cache hits {result.cache_hits}"
    )
    return 1 if result.errors else 0


if __name__ == "__main__":
    sys.exit(main())
