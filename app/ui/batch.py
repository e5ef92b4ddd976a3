"""The app's Batch tab: a CSV of meals plus a zip of their photos in, results and a
per-day summary out. The same work as `python -m app batch`, through `app.batch.upload`.

Each run works in a private temporary folder; the photos unpacked there are deleted as soon as
the run ends, the two result files shortly after Gradio has copied them for download, and the
uploaded CSV and zip once the run is done.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import gradio as gr

from app.batch.runner import BatchResult
from app.batch.upload import run_upload
from app.errors import user_error
from app.security import Uploads, private_dir
from app.ui.common import AppContext, SliderField
from db import service
from models.errors import FoodtagError
from models.paths import data_home

MAX_TOP_K = 10
# Seconds our result files outlive a run: Gradio has long copied them for download by then.
KEEP_RESULTS_S = 120.0


def result_message(result: BatchResult) -> str:
    rate = result.processed / result.seconds if result.seconds else 0.0
    if result.errors:
        outcome = f"⚠️ **{result.errors} of {result.rows} rows failed**: see the `status` and `error` columns."
    else:
        outcome = f"✅ **All {result.rows} rows analysed.**"
    return f"{outcome} ({result.seconds:.1f} s, {rate:.1f} photos/s)"


_pending: set[Path] = set()


def _remove_later(work: Path) -> None:
    """Delete a run's folder once Gradio has copied its files for download (right after the
    handler returns), so no second copy of anyone's meal data stays on the server."""

    def remove() -> None:
        shutil.rmtree(work, ignore_errors=True)
        _pending.discard(work)

    _pending.add(work)
    timer = threading.Timer(KEEP_RESULTS_S, remove)
    timer.daemon = True
    timer.start()


@atexit.register
def _remove_pending() -> None:
    # Timers are daemon threads and die with the process; their folders must not outlive it.
    for work in list(_pending):
        shutil.rmtree(work, ignore_errors=True)


class BatchTab:
    """The Batch tab. ``get_engine(request)`` is the model it runs for the uploader, in folders
    under ``work_root``; ``owned_stem(stem, request)`` names result files for the user, whose
    BatchConfig settings (exchange unit, confidence threshold, whose dishes) ``user_settings(request)``
    gives; ``uploads`` (Gradio's) deletes the CSV and the zip once run; ``in_turn(handler)``
    gives the run's event options (the app's: the uploader's turn among batch runs). ``c``
    holds the components, made by build()."""

    def __init__(self, get_engine: Callable[[gr.Request], object], work_root: Path | None = None,
                 owned_stem: Callable[[str, gr.Request], str] = lambda stem, _request: stem,
                 user_settings: Callable[[gr.Request], dict] = lambda _request: {},
                 uploads: Uploads | None = None,
                 in_turn: Callable[[Callable], dict] = lambda handler: {"fn": handler}) -> None:
        self.get_engine = get_engine
        self.work_root = work_root
        self.owned_stem = owned_stem
        self.user_settings = user_settings
        self.uploads = uploads or Uploads()
        self.in_turn = in_turn
        self.c = SimpleNamespace()

    @classmethod
    def for_app(cls, ctx: AppContext) -> BatchTab:
        """The tab as the app serves it: the model, dishes, unit and threshold the Analyse tab
        uses for the uploader (app.meals), and result files only they may download."""

        def owned_stem(stem: str, request: gr.Request) -> str:
            return ctx.files.name(stem, "", ctx.user(request))

        def settings(request: gr.Request) -> dict:
            user = ctx.user(request)
            chosen = service.get_settings(user)
            return {"user": user, **{key: chosen[key] for key in ("exchange_unit_g", "confidence_threshold")}}

        return cls(lambda request: ctx.analyzer.engine_for(ctx.user(request))[0], private_dir(data_home() / "tmp"),
                   owned_stem, settings, ctx.uploads, lambda handler: ctx.in_turn(handler, ctx.batch_slots))

    def run(self, csv_path: str | None, zip_path: str | None, top_k: float, request: gr.Request,
            progress=gr.Progress()):
        """The results file, the per-day summary and a line on how it went."""
        if not csv_path:
            raise user_error("Upload the meals CSV first.")
        if not zip_path:
            raise user_error("Upload the photos as a .zip as well.")
        work = Path(tempfile.mkdtemp(prefix="foodtag-batch-", dir=self.work_root))
        csv_file = Path(csv_path)

        def report(done: int, total: int) -> None:
            progress((done, total), desc="Analysing photos", unit="photos")

        try:
            result = run_upload(csv_file, Path(zip_path), int(top_k), self.get_engine(request), work, report,
                                owned_stem=lambda stem: self.owned_stem(stem, request),
                                settings=self.user_settings(request))
        except FoodtagError as exc:
            shutil.rmtree(work, ignore_errors=True)
            # Name the upload as the user knows it, not by the server's temporary path.
            raise user_error(str(exc).replace(str(csv_file), csv_file.name)) from None
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            raise
        self.uploads.discard(csv_path, zip_path)  # kept after a refusal, to run again once corrected
        _remove_later(work)
        c = self.c
        return {c.results: str(result.out), c.summary: str(result.summary), c.status: result_message(result)}

    def build(self) -> None:
        """The tab's layout and wiring; call inside gr.Tabs."""
        c = self.c
        with gr.Tab("Batch", id="batch"):
            gr.Markdown(
                "Analyse many meals at once. The **CSV** needs an `image` column with each photo's path "
                "inside the **zip**; optional columns `food` (needed where the model is not sure: such "
                "rows get no guessed food), `grams` or `serving`, `eaten_at`, `user`, `meal`, `note`, and "
                "any others, which are copied to the results unchanged."
            )
            with gr.Row():
                c.csv_in = gr.File(label="Meals CSV", file_types=[".csv"], type="filepath")
                c.zip_in = gr.File(label="Photos (.zip)", file_types=[".zip"], type="filepath")
            c.top_k = SliderField(1, MAX_TOP_K, value=3, step=1, label="Alternatives listed per photo (top-k)")
            c.run_btn = gr.Button("Analyse CSV", variant="primary")
            c.status = gr.Markdown()
            with gr.Row():
                c.results = gr.File(label="Results CSV", interactive=False)
                c.summary = gr.File(label="Per-day summary CSV", interactive=False)

        c.run_btn.click(inputs=[c.csv_in, c.zip_in, c.top_k], outputs=[c.results, c.summary, c.status],
                        api_name="batch_run", **self.in_turn(self.run))
