"""Helpers for the batch tests: a tiny exported model, test photos, CSV files, a private DB."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

# Foods the seed database has (Food-101 labels, the first classes of the food10 photos).
KNOWN_LABELS = ["apple_pie", "baklava", "beignets", "breakfast_burrito"]
UNKNOWN_LABEL = "zz_not_a_food"

_models: dict[tuple, Path] = {}


def tiny_model(folder: Path, labels: list[str] = KNOWN_LABELS, seed: int | None = None) -> Path:
    """A 1-block ViT on 32 px inputs, exported once per test session (about 3 s); with ``seed``,
    its random weights are the same in every session."""
    key = (tuple(labels), seed)
    if key not in _models:
        import torch

        from models.export import export_onnx
        from models.registry import create_model

        with torch.random.fork_rng():  # the seed stays here: other tests' random streams are untouched
            if seed is not None:
                torch.manual_seed(seed)
            model = create_model(
                "vit_micro", labels=list(labels), pretrained=False,
                img_size=32, patch_size=16, depth=1, embed_dim=32, num_heads=2,
            )
        _models[key] = export_onnx(model, folder / f"tiny-{len(_models)}.onnx")
    return _models[key]


def photo(path: Path, seed: int = 0, size: tuple[int, int] = (48, 40)) -> Path:
    rng = np.random.default_rng(seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(rng.integers(0, 255, (size[1], size[0], 3), dtype=np.uint8)).save(path, "JPEG")
    return path


def jpeg_bytes(seed: int = 0) -> bytes:
    buffer = io.BytesIO()
    rng = np.random.default_rng(seed)
    Image.fromarray(rng.integers(0, 255, (40, 48, 3), dtype=np.uint8)).save(buffer, "JPEG")
    return buffer.getvalue()


def write_csv(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def read_rows(path: Path) -> list[list[str]]:
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.reader(handle))


def use_database(folder: Path) -> None:
    """Point db at a SQLite file in `folder` (seeded once per file)."""
    from db.session import configure, init_db

    configure(f"sqlite:///{folder / 'batch.db'}")
    init_db()


def interrupt_after(rows: int):
    """A run_batch progress callback that stops the run as Ctrl-C does once `rows` rows are written."""

    def progress(done: int, total: int) -> None:
        if done >= rows:
            raise KeyboardInterrupt

    return progress


# Fixtures for the batch test modules (`from batch_support import batch_database, model`).


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    return tiny_model(tmp_path_factory.getbasetemp())


@pytest.fixture(scope="module", autouse=True)
def batch_database(tmp_path_factory):
    """A private seeded database for every test of the module that imports this."""
    from db.session import configure

    use_database(tmp_path_factory.mktemp("batch-db"))
    yield
    configure(None)
