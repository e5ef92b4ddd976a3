"""The embedded default model: the shipped Food-101 model merged with ImageNet's extra foods.

On first use the committed file (models/shipped/food101.onnx: 101 dishes) is merged with the packaged
ImageNet EfficientNet-Lite0 (models/merge.py: banana, espresso, broccoli and the other foods Food-101
lacks) into ``data_home()/models/food101.onnx``, verified, then reused. The ImageNet model alone
(46 foods, the default before Food-101) stays available as ``food_default``:
``python -m models export food_default --out DATA_HOME/models/food_default.onnx``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from models.errors import ModelError
from models.paths import data_home
from models.shipped import SHIPPED_MODEL, SHIPPED_NAME


def _is_current(path: Path, shipped: dict) -> bool:
    """Whether ``path`` is this code's merge of the shipped model (and not stale or foreign)."""
    from models.merge import imagenet_extras
    from models.metadata import EXPORT_VERSION, read_metadata

    try:
        meta = read_metadata(path)
        merged_from = json.loads(meta.get("merged_from", "{}"))
    except (ModelError, ValueError):
        return False  # unreadable, foreign or stale file: merge a fresh one over it
    extras = [index for index, _ in imagenet_extras(json.loads(shipped["labels"]))]
    return (merged_from.get("food_model", {}).get("version") == shipped["version"]
            and merged_from.get("imagenet", {}).get("extra_classes") == extras
            and merged_from.get("embedding") == "imagenet"
            and meta.get("export_version") == str(EXPORT_VERSION))


def default_model_path() -> Path:
    """Path of the default food model's ONNX file, merging it on the first call (a few seconds)."""
    from models.merge import merge_with_imagenet
    from models.metadata import read_metadata

    if not SHIPPED_MODEL.is_file():
        raise ModelError(f"the shipped model {SHIPPED_MODEL} is missing from this checkout: restore it with "
                         "`git checkout -- models/shipped` (it is committed; Git LFS is not used)")
    shipped = read_metadata(SHIPPED_MODEL)
    folder = data_home() / "models"
    folder.mkdir(mode=0o700, exist_ok=True)  # private, like the data folder around it
    path = folder / f"{SHIPPED_NAME}.onnx"
    if not _is_current(path, shipped):
        # merge_with_imagenet writes to a temp file and renames: concurrent first runs cannot corrupt it.
        merge_with_imagenet(SHIPPED_MODEL, path)
        report = SHIPPED_MODEL.with_suffix(".report.json")
        if report.is_file():  # the merged file's val scores, for the Models tab
            shutil.copyfile(report, path.with_suffix(".report.json"))
    return path
