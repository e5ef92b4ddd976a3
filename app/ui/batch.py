"""The app's Batch tab: a CSV of meals plus a zip of their photos in, results and a
per-day summary out. The same work as `python -m app batch`, through `app.batch.upload`.

Each run works in a private temporary folder; the photos unpacked there are deleted as soon as
the run ends, the two result files shortly after Gradio has copied them for download.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

import gradio as gr

from app.batch.runner import BatchResult
from app.batch.upload import run_upload
from app.errors import user_error
from models.errors import FoodtagError

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


def build_batch_tab(get_engine: Callable[[], object], work_root: Path | None = None,
                    owned_stem: Callable[[str, gr.Request], str] = lambda stem, _request: stem,
                    user_settings: Callable[[gr.Request], dict[str, float]] = lambda _request: {}) -> None:
    """Components and events of the Batch tab; call inside `with gr.Tab("Batch"):`.
    Runs work in folders under `work_root`; `owned_stem` names result files for the user,
    whose exchange unit and confidence threshold `user_settings` gives."""

    def run(csv_path: str | None, zip_path: str | None, top_k: float, request: gr.Request,
            progress=gr.Progress()):
        if not csv_path:
            raise user_error("Upload the meals CSV first.")
        if not zip_path:
            raise user_error("Upload the photos as a .zip as well.")
        work = Path(tempfile.mkdtemp(prefix="foodtag-batch-", dir=work_root))
        csv_file = Path(csv_path)

        def report(done: int, total: int) -> None:
            progress((done, total), desc="Analysing photos", unit="photos")

        try:
            result = run_upload(csv_file, Path(zip_path), int(top_k), get_engine(), work, report,
                                owned_stem=lambda stem: owned_stem(stem, request), settings=user_settings(request))
        except FoodtagError as exc:
            shutil.rmtree(work, ignore_errors=True)
            # Name the upload as the user knows it, not by the server's temporary path.
            raise user_error(str(exc).replace(str(csv_file), csv_file.name)) from None
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            raise
        _remove_later(work)
        return str(result.out), str(result.summary), result_message(result)

    gr.Markdown(
        "Analyse many meals at once. The **CSV** needs an `image` column with each photo's path "
        "inside the **zip**; optional columns `food` (needed where the model is not sure: such "
        "rows get no guessed food), `grams` or `serving`, `eaten_at`, `user`, `meal`, `note`, and "
        "any others, which are copied to the results unchanged."
    )
    with gr.Row():
        csv_in = gr.File(label="Meals CSV", file_types=[".csv"], type="filepath")
        zip_in = gr.File(label="Photos (.zip)", file_types=[".zip"], type="filepath")
    top_k = gr.Slider(1, MAX_TOP_K, value=3, step=1, label="Alternatives listed per photo (top-k)")
    run_btn = gr.Button("Analyse CSV", variant="primary")
    status = gr.Markdown()
    with gr.Row():
        results = gr.File(label="Results CSV", interactive=False)
        summary = gr.File(label="Per-day summary CSV", interactive=False)

    run_btn.click(run, [csv_in, zip_in, top_k], [results, summary, status], api_name="batch_run")
