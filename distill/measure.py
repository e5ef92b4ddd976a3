"""What the pipeline measures on exported models: accuracy of the ONNX file itself on the
validation data (per class, confusion matrix, every prediction), parameters and multiply-adds.

Evaluating the exported file (not the PyTorch weights) measures what the app will serve,
preprocessed by the PreprocessConfig in its metadata.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import torch
from torch import nn

from distill import data
from distill.errors import DistillError


def evaluate_onnx(onnx_path: Path, val: data.Source, *, seed: int = 0, batch_size: int = 32,
                  num_workers: int = 0) -> dict:
    """Top-1/top-5, per-class accuracy, confusion matrix and predictions of an ONNX model."""
    from models.engine import Engine

    engine = Engine(onnx_path)
    classes = engine.labels
    val = data.remap(val, classes, f"validation data for {onnx_path.name}")
    if val.classes is None:
        raise DistillError(f"data: {val.description} has no labels to evaluate {onnx_path.name} on")
    dataset = data.make_dataset(val, data.EvalTransform(engine.preprocess), seed)
    loader = data.make_loader(dataset, data.ShardSampler(len(dataset)), batch_size, num_workers, False)
    predictions, top5_hits, targets = [], 0, []
    for images, labels, _ in loader:
        logits = engine.run(images.numpy())
        top = np.argsort(-logits, axis=1)[:, : min(5, len(classes))]
        predictions += top[:, 0].tolist()
        top5_hits += int((top == labels.numpy()[:, None]).any(1).sum())
        targets += labels.tolist()
    n = len(classes)
    confusion = np.zeros((n, n), dtype=np.int64)  # rows: true class, columns: predicted
    np.add.at(confusion, (np.asarray(targets), np.asarray(predictions)), 1)
    totals = confusion.sum(1)
    return {
        "model": onnx_path.name, "model_name": engine.model_name, "version": engine.version,
        "data": val.description, "images": len(targets),
        "top1": float(np.trace(confusion) / len(targets)), "top5": top5_hits / len(targets),
        "per_class": {c: float(confusion[i, i] / totals[i]) for i, c in enumerate(classes) if totals[i]},
        "per_class_images": {c: int(totals[i]) for i, c in enumerate(classes) if totals[i]},
        "classes": classes, "confusion": confusion.tolist(), "targets": targets, "predictions": predictions,
    }


def photo_folder(source: data.Source, folder: Path, *, seed: int = 0, limit: int = 2000) -> Path:
    """A folder of (at most ``limit``) photos of a source, for tools that read photo folders:
    links to the files, or PNGs of generated (synthetic) images. Rewritten on every call."""
    import shutil

    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    dataset = data.make_dataset(source, None, seed)
    step = max(1, -(-len(dataset) // limit))  # every k-th photo keeps all classes
    for index in range(0, len(dataset), step):
        if source.synthetic:
            image, _, _ = dataset.load(index)
            image.save(folder / f"{index:06d}.png")
        else:
            path = Path(source.items[index][0])
            (folder / f"{index:06d}{path.suffix.lower()}").symlink_to(path.resolve())
    return folder


def write_model_report(metrics: dict, path: Path, **extra) -> Path:
    """``<model>.report.json`` next to the ONNX file: what the app's Models tab reads (top1)."""
    keep = ("model", "model_name", "version", "data", "images", "top1", "top5", "per_class", "per_class_images")
    path.write_text(json.dumps({**{k: metrics[k] for k in keep}, **extra}, indent=2))
    return path


def agreement(a: dict, b: dict) -> float:
    """Fraction of validation images on which two evaluated models predict the same class."""
    if a["targets"] != b["targets"] or a["classes"] != b["classes"]:
        raise DistillError(f"{a['model']} and {b['model']} were evaluated on different data")
    return float(np.mean(np.asarray(a["predictions"]) == np.asarray(b["predictions"])))


def count_parameters(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters())


def count_gmacs(model: nn.Module) -> float:
    """Multiply-adds (10^9) of one image, counted by torch's FlopCounterMode (FLOPs / 2)."""
    from torch.utils.flop_counter import FlopCounterMode

    size = model.preprocess.input_size
    counter = FlopCounterMode(display=False)
    with counter, torch.no_grad():
        model.eval()(torch.zeros(1, 3, size, size))
    return counter.get_total_flops() / 2 / 1e9
