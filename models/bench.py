"""PyTorch eager vs ONNX Runtime on the same model, measured side by side in one run."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import torch

from models.engine import Engine
from models.export import parity_images


@dataclass
class BenchRow:
    runtime: str
    batch: int
    images_per_s: float
    p50_ms: float
    p95_ms: float


def _time_calls(call, iterations: int, warmup: int = 3) -> list[float]:
    for _ in range(warmup):
        call()
    times = []
    for _ in range(iterations):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return times


def benchmark(model: torch.nn.Module, engine: Engine, batches=(1, 32), iterations: int = 20) -> list[BenchRow]:
    model = model.eval()
    images = parity_images(count=4)
    rows = []
    for batch in batches:
        array = np.stack([engine.preprocess_image(images[i % len(images)]) for i in range(batch)])
        tensor = torch.from_numpy(array)
        n = max(3, iterations if batch == 1 else iterations // 4)

        def torch_call():
            with torch.inference_mode():
                model(tensor)

        # Alternate the two runtimes so machine noise hits both alike.
        torch_times, ort_times = [], []
        for _ in range(2):
            torch_times += _time_calls(torch_call, n // 2 + 1)
            ort_times += _time_calls(lambda: engine.run(array), n // 2 + 1)
        for name, times in (("pytorch-eager", torch_times), ("onnxruntime", ort_times)):
            times_ms = np.asarray(times) * 1000
            rows.append(BenchRow(name, batch, batch / float(np.median(times)), float(np.percentile(times_ms, 50)), float(np.percentile(times_ms, 95))))
    return rows


def format_table(rows: list[BenchRow]) -> str:
    lines = [f"{'runtime':<15}{'batch':>6}{'images/s':>11}{'p50 ms':>10}{'p95 ms':>10}"]
    lines += [f"{r.runtime:<15}{r.batch:>6}{r.images_per_s:>11.1f}{r.p50_ms:>10.1f}{r.p95_ms:>10.1f}" for r in rows]
    return "\n".join(lines)


def compare_engines(engines: dict[str, Engine], batches=(1, 32), rounds: int = 5, calls: int = 8) -> dict:
    """ONNX Runtime images/s of several models, measured side by side in one run.

    Each round times every model in turn (interleaved, so machine noise hits all alike); the
    result per model and batch is the median over rounds, and each model's speed relative to
    the first one is the median of the per-round ratios (robust on a shared machine).
    """
    names = list(engines)
    images = parity_images(count=4)
    per_round: dict[tuple[str, int], list[float]] = {(n, b): [] for n in names for b in batches}
    for batch in batches:
        arrays = {n: np.stack([e.preprocess_image(images[i % len(images)]) for i in range(batch)]) for n, e in engines.items()}
        n_calls = calls if batch == 1 else max(2, calls // 4)
        for _ in range(rounds):
            for name, engine in engines.items():
                times = _time_calls(lambda: engine.run(arrays[name]), n_calls, warmup=1)
                per_round[(name, batch)].append(batch / float(np.median(times)))
    rows = []
    for name in names:
        for batch in batches:
            speeds = np.asarray(per_round[(name, batch)])
            ratios = speeds / np.asarray(per_round[(names[0], batch)])
            rows.append({"model": name, "batch": batch, "images_per_s": float(np.median(speeds)),
                         "vs_first": float(np.median(ratios))})
    return {"rounds": rounds, "reference": names[0], "rows": rows}
