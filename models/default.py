"""The embedded default model: exported to ONNX on first use, verified, then reused."""

from __future__ import annotations

from pathlib import Path

from models.errors import ModelError
from models.paths import data_home

DEFAULT_MODEL = "food_default"


def default_model_path() -> Path:
    """Path of the default food model's ONNX file, exporting it on the first call."""
    import json

    from models.labels import IMAGENET_FOOD_CLASSES
    from models.metadata import EXPORT_VERSION, read_metadata

    folder = data_home() / "models"
    folder.mkdir(mode=0o700, exist_ok=True)  # private, like the data folder around it
    path = folder / f"{DEFAULT_MODEL}.onnx"
    if path.is_file():
        try:
            meta = read_metadata(path)
            if (json.loads(meta["labels"]) == list(IMAGENET_FOOD_CLASSES.values())
                    and meta.get("export_version") == str(EXPORT_VERSION)):
                return path
        except ModelError:
            pass  # unreadable, foreign or stale file: export a fresh one over it
    from models.export import export_onnx
    from models.registry import create_model

    # export_onnx writes to a temp file and renames, so concurrent first runs cannot corrupt it.
    return export_onnx(create_model(DEFAULT_MODEL), path)
