"""A batch run from an upload (the app's Batch tab, app.ui.batch): a CSV of meals plus a zip of
their photos.

The photos are unpacked with `extract_zip` (no zip-slip, no symlinks, size and count limits)
into a folder that is the images root: CSV paths can reach nothing else, and there is no switch
to allow it here. The folder is deleted as soon as the run ends.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

from app.batch.archive import extract_zip
from app.batch.csvfile import inspect_input
from app.batch.runner import BatchConfig, BatchResult, Progress, plan_batch, run_batch


def run_upload(csv_file: Path, zip_file: Path, top_k: int, engine, work: Path, progress: Progress | None = None,
               owned_stem: Callable[[str], str] = lambda stem: stem,
               settings: dict[str, float] | None = None) -> BatchResult:
    """Check the CSV, unpack the photos into `work`, run the batch; outputs stay in `work`.
    `owned_stem` names the result files (the app marks them as the uploader's); `settings`
    (exchange_unit_g, confidence_threshold) are the uploader's."""
    inspect_input(csv_file)  # a bad CSV fails before a large zip is unpacked
    photos = work / "photos"
    extract_zip(zip_file, photos)
    try:
        stem = re.sub(r"[^A-Za-z0-9._-]+", "_", csv_file.stem)[:80] or "meals"
        plan = plan_batch(BatchConfig(
            input=csv_file, out=work / f"{owned_stem(stem)}.results.csv", images_root=photos, top_k=top_k,
            refusal_hint="only photos inside the uploaded zip can be used", **(settings or {}),
        ))
        return run_batch(plan, engine, progress=progress)
    finally:
        shutil.rmtree(photos, ignore_errors=True)
