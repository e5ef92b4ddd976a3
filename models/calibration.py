"""Confidence that means what it says: temperature scaling (Guo et al., ICML 2017).

A network's softmax is over-confident after training with few epochs and label smoothing off, or
under-confident with it; the app shows it as "85% sure" and decides on it (the user's confidence
threshold). One number fixes most of that: the logits divided by a temperature T, fitted on
held-out photos by the negative log-likelihood. It never changes the ranking (top-1 and top-5 stay
as they were), only how sure each answer claims to be.

T is written into the graph (``logits / T`` on the ``logits`` output), so every reader of the file
(the engine, the merge with ImageNet, the batch tool, int8 variants made from it) gets calibrated
logits without knowing about calibration, and the file's version changes with it. The fit and its
measurements travel in the ``calibration`` metadata key.

    python -m models calibrate models/shipped/food101.onnx --data data/food101-64/val

fits T on every other photo of each class and measures on the rest (expected calibration error,
15 equal-width bins), so the figures it reports are on photos the fit never saw.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper

from models.errors import ModelError

BINS = 15
DIVIDE_NODE = "calibration/divide"
TEMPERATURE_NAME = "calibration/temperature"
RAW_LOGITS = "calibration/raw_logits"


def softmax(logits: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    scaled = logits.astype(np.float64) / temperature
    scaled -= scaled.max(axis=1, keepdims=True)
    exp = np.exp(scaled)
    return exp / exp.sum(axis=1, keepdims=True)


def negative_log_likelihood(logits: np.ndarray, labels: np.ndarray, temperature: float) -> float:
    probabilities = softmax(logits, temperature)
    return float(-np.log(np.clip(probabilities[np.arange(len(labels)), labels], 1e-300, None)).mean())


def fit_temperature(logits: np.ndarray, labels: np.ndarray) -> float:
    """The T in [0.05, 20] that minimises the NLL: a coarse grid over log T, then golden-section
    search around its best point (the NLL is convex in 1/T, so this finds the minimum)."""
    if len(labels) == 0:
        raise ModelError("calibrate: no photos to fit the temperature on")
    grid = np.exp(np.linspace(np.log(0.05), np.log(20.0), 61))
    losses = [negative_log_likelihood(logits, labels, t) for t in grid]
    best = int(np.argmin(losses))
    low, high = np.log(grid[max(best - 1, 0)]), np.log(grid[min(best + 1, len(grid) - 1)])
    ratio = (np.sqrt(5) - 1) / 2
    for _ in range(40):
        a, b = high - ratio * (high - low), low + ratio * (high - low)
        if negative_log_likelihood(logits, labels, np.exp(a)) < negative_log_likelihood(logits, labels, np.exp(b)):
            high = b
        else:
            low = a
    return float(np.exp((low + high) / 2))


@dataclass(frozen=True)
class ReliabilityBin:
    low: float
    high: float
    photos: int
    confidence: float  # mean top-1 probability of the bin's photos (nan: empty bin)
    accuracy: float  # share of them whose top-1 is right


def reliability(probabilities: np.ndarray, labels: np.ndarray, bins: int = BINS) -> list[ReliabilityBin]:
    """Photos binned by their top-1 probability (equal-width bins): claimed against real accuracy."""
    confidence = probabilities.max(axis=1)
    correct = probabilities.argmax(axis=1) == labels
    edges = np.linspace(0.0, 1.0, bins + 1)
    which = np.clip(np.digitize(confidence, edges[1:-1], right=True), 0, bins - 1)
    table = []
    for i in range(bins):
        inside = which == i
        n = int(inside.sum())
        table.append(ReliabilityBin(float(edges[i]), float(edges[i + 1]), n,
                                    float(confidence[inside].mean()) if n else float("nan"),
                                    float(correct[inside].mean()) if n else float("nan")))
    return table


def calibration_error(probabilities: np.ndarray, labels: np.ndarray, bins: int = BINS) -> float:
    """Expected calibration error: the photo-weighted mean gap between claimed and real accuracy."""
    total = len(labels)
    return float(sum(b.photos / total * abs(b.confidence - b.accuracy) for b in reliability(probabilities, labels, bins)
                     if b.photos))


def with_temperature(proto: onnx.ModelProto, temperature: float) -> onnx.ModelProto:
    """The graph with its ``logits`` output divided by ``temperature`` (a file calibrated before
    gets its temperature replaced: fit on the raw logits, see calibrate())."""
    if not temperature > 0:
        raise ModelError(f"calibrate: the temperature must be above 0, not {temperature}")
    graph = proto.graph
    constant = helper.make_tensor(TEMPERATURE_NAME, TensorProto.FLOAT, [], [float(temperature)])
    existing = [init for init in graph.initializer if init.name == TEMPERATURE_NAME]
    if existing:
        existing[0].CopyFrom(constant)
        return proto
    if "logits" not in [output.name for output in graph.output]:
        raise ModelError("calibrate: the model file has no 'logits' output")
    for node in graph.node:
        node.output[:] = [RAW_LOGITS if name == "logits" else name for name in node.output]
        node.input[:] = [RAW_LOGITS if name == "logits" else name for name in node.input]
    graph.initializer.append(constant)
    graph.node.append(helper.make_node("Div", [RAW_LOGITS, TEMPERATURE_NAME], ["logits"], name=DIVIDE_NODE))
    return proto


def current_temperature(proto: onnx.ModelProto) -> float:
    """The temperature written into the graph (1.0: never calibrated)."""
    for init in proto.graph.initializer:
        if init.name == TEMPERATURE_NAME:
            return float(onnx.numpy_helper.to_array(init))
    return 1.0


@dataclass(frozen=True)
class Calibration:
    temperature: float
    fitted_on: int  # photos
    measured_on: int
    top1: float  # on the measured photos (the same before and after: T keeps the ranking)
    ece_before: float
    ece_after: float
    data: str

    def to_json(self) -> str:
        return json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in asdict(self).items()})


def split_alternate(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(fit, measure) indices: every other photo of each class, so both halves hold every class."""
    fit, measure = [], []
    for label in np.unique(labels):
        indices = np.flatnonzero(labels == label)
        fit.extend(indices[0::2])
        measure.extend(indices[1::2])
    return np.array(sorted(fit)), np.array(sorted(measure))


def fit(raw_logits: np.ndarray, labels: np.ndarray, data: str) -> Calibration:
    """Fit on one half of the photos, measure on the other."""
    fit_on, measure_on = split_alternate(labels)
    temperature = fit_temperature(raw_logits[fit_on], labels[fit_on])
    held = raw_logits[measure_on], labels[measure_on]
    return Calibration(
        temperature=temperature, fitted_on=len(fit_on), measured_on=len(measure_on),
        top1=float((held[0].argmax(axis=1) == held[1]).mean()),
        ece_before=calibration_error(softmax(held[0]), held[1]),
        ece_after=calibration_error(softmax(held[0], temperature), held[1]), data=data)


def unsure_share_out_of_class(raw_logits: np.ndarray, labels: np.ndarray, held_out: list[int], temperature: float,
                              threshold: float) -> float:
    """Share of photos of the ``held_out`` classes that a model without those classes would answer
    with confidence >= ``threshold``: their columns are dropped, as if the model never knew them
    (the photos have no right answer left, so every confident answer is a wrong one)."""
    kept = [i for i in range(raw_logits.shape[1]) if i not in set(held_out)]
    photos = np.isin(labels, held_out)
    if not photos.any():
        raise ModelError("calibrate: no photos of the held-out classes")
    return float((softmax(raw_logits[photos][:, kept], temperature).max(axis=1) >= threshold).mean())


def save_figure(before: list[ReliabilityBin], after: list[ReliabilityBin], calibration: Calibration, path: Path) -> Path:
    """The reliability diagram, before and after: claimed confidence against accuracy per bin."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 2, figsize=(9, 4.2), sharey=True)
    for ax, table, title, ece in ((axes[0], before, "softmax as trained", calibration.ece_before),
                                  (axes[1], after, f"T = {calibration.temperature:.2f}", calibration.ece_after)):
        centres = [(b.low + b.high) / 2 for b in table if b.photos]
        ax.bar(centres, [b.accuracy for b in table if b.photos], width=1 / len(table), edgecolor="black",
               color="#d97706", label="accuracy")
        ax.plot([0, 1], [0, 1], "--", color="grey", label="perfectly calibrated")
        ax.set(title=f"{title}: ECE {ece:.1%}", xlabel="claimed confidence (top-1 probability)", xlim=(0, 1),
               ylim=(0, 1))
        ax.legend(loc="upper left")
    axes[0].set_ylabel("share right")
    figure.suptitle(f"Reliability on {calibration.measured_on:,} held-out photos ({calibration.data})")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def folder_logits(engine, folder: Path, batch: int = 64) -> tuple[np.ndarray, np.ndarray]:
    """The engine's logits and label indices for an image folder (one subfolder a class, named
    as the model's labels)."""
    from models.images import load_image

    folder = Path(folder)
    classes = sorted(p for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []
    unknown = [p.name for p in classes if p.name not in engine.labels]
    if not classes or unknown:
        raise ModelError(f"calibrate: {folder} must hold one folder a class named as the model's labels"
                         + (f"; not labels: {', '.join(unknown[:5])}" if unknown else ""))
    paths = [(path, engine.labels.index(cls.name)) for cls in classes for path in sorted(cls.iterdir()) if path.is_file()]
    logits = []
    for start in range(0, len(paths), batch):
        arrays = [engine.preprocess_image(load_image(path)) for path, _ in paths[start:start + batch]]
        logits.append(engine.run(np.stack(arrays)))
    return np.concatenate(logits), np.array([label for _, label in paths])


def calibrate_file(engine, data: Path, out: Path | None = None, *, held_out: tuple[str, ...] = (),
                   threshold: float = 0.5, figure: Path | None = None) -> tuple[Path, Calibration, dict]:
    """Fit the temperature of the file ``engine`` runs on ``data`` and write the calibrated file to
    ``out`` (default: in place). Returns the file, the fit, and the out-of-class shares before and
    after for the ``held_out`` classes (an empty dict without them). The caller builds the engine,
    as the engine imports this module's softmax."""
    import os
    import tempfile

    from models.metadata import read_metadata, set_metadata

    model = engine.path
    out = Path(out or model)
    proto = onnx.load(str(model))
    logits, labels = folder_logits(engine, data)
    raw = logits * current_temperature(proto)  # a calibrated file's logits are raw / T
    result = fit(raw, labels, f"{Path(data).name}: {len(labels):,} photos, {len(set(labels.tolist()))} classes")
    shares = {}
    if held_out:
        indices = [engine.labels.index(name) for name in held_out]
        shares = {"threshold": threshold, "classes": len(indices),
                  "before": unsure_share_out_of_class(raw, labels, indices, 1.0, threshold),
                  "after": unsure_share_out_of_class(raw, labels, indices, result.temperature, threshold)}
    meta = {key: value for key, value in read_metadata(model).items() if key != "version"}
    set_metadata(with_temperature(proto, result.temperature),
                 {**meta, "calibration": json.dumps({**json.loads(result.to_json()), "out_of_class": shares})})
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        staged = Path(tmp) / out.name
        onnx.save(proto, str(staged))
        staged.chmod(0o644)
        os.replace(staged, out)
    if figure is not None:
        _, measure = split_alternate(labels)
        save_figure(reliability(softmax(raw[measure]), labels[measure]),
                    reliability(softmax(raw[measure], result.temperature), labels[measure]), result, figure)
    return out, result, shares
