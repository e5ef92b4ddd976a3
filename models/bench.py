"""Every way this project can run a model, measured side by side in one run.

Variants: PyTorch eager (fp32; bf16 only on a CPU with native bf16), ONNX Runtime fp32 as
exported plainly, fused (models.fusion), int8 (models.quantize), and on a machine with CUDA or
TensorRT providers the GPU variants (fp32, fp16). Rounds are interleaved so machine noise hits
every variant alike. With a photo folder, each variant's top-1 agreement with PyTorch fp32 is
measured on it, and a 12 MP phone-sized JPEG is analysed end to end (decode + preprocess +
model) with full decoding and with JPEG draft decoding. The result says which ONNX Runtime file
the app would serve on this machine, and why (models.runtime_choice).
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
import onnx
import torch
from PIL import Image

from models.engine import GPU_PROVIDERS, Engine, SessionSettings, cpu_features, default_providers
from models.export import export_onnx, parity_images
from models.fusion import fused_operator_counts
from models.images import load_image
from models.timing import interleaved_speeds, seconds_per_call, settle_and_warm_up
from models.quantize import MAX_AGREEMENT_PHOTOS, photo_paths, preprocessed_photos, quantize_model, top1
from models.runtime_choice import Candidate, Choice, choose
from models.variants import write_fp16

PHONE_SIZE = (4032, 3024)  # a 12 MP phone photo, landscape


@dataclass
class Variant:
    name: str
    run: Callable[[np.ndarray], np.ndarray]  # preprocessed batch -> logits
    note: str = ""
    fused_ops: dict[str, int] = field(default_factory=dict)


@dataclass
class BenchRow:
    variant: str
    batch: int
    images_per_s: float
    p50_ms: float
    p95_ms: float
    vs_eager: float  # images/s relative to PyTorch eager fp32 at the same batch
    top1_agreement: float | None  # with PyTorch fp32 on the photo folder


@dataclass
class EndToEndRow:
    decode: str  # "full" or "draft"
    p50_ms: float
    p95_ms: float
    tensor_shape: tuple[int, ...]
    top1: str


@dataclass
class BenchResult:
    model: str
    input_size: int
    machine: dict
    rows: list[BenchRow]
    variants: dict[str, dict]
    end_to_end: list[EndToEndRow] = field(default_factory=list)
    draft_top1_agreement: float | None = None
    photos: int = 0
    served: dict = field(default_factory=dict)  # models.runtime_choice.Choice: the file the app would serve here

    def to_dict(self) -> dict:
        return asdict(self)


def _eager(model: torch.nn.Module, dtype: torch.dtype | None = None) -> Callable[[np.ndarray], np.ndarray]:
    def run(batch: np.ndarray) -> np.ndarray:
        autocast = torch.autocast("cpu", dtype=dtype) if dtype else contextlib.nullcontext()
        with torch.inference_mode(), autocast:
            return model(torch.from_numpy(batch)).float().numpy()

    return run


def _ort_variant(name: str, path: Path, providers: list | None = None, note: str = "", settings: SessionSettings | None = None) -> Variant:
    engine = Engine(path, providers=providers, settings=settings)
    return Variant(name, engine.run, note or f"{', '.join(engine.providers)}", fused_operator_counts(onnx.load(str(path), load_external_data=False)))


def build_variants(
    model: torch.nn.Module, workdir: Path, photos_dir: Path | None, calibration_dir: Path | None,
    settings: SessionSettings, batches: tuple[int, ...],
) -> list[Variant]:
    variants = [Variant("pytorch-eager", _eager(model), f"torch {torch.get_num_threads()} threads")]
    if {"avx512_bf16", "amx_bf16"} & cpu_features():
        variants.append(Variant("pytorch-eager-bf16", _eager(model, torch.bfloat16), "CPU autocast bf16"))
    plain = export_onnx(model, workdir / "plain.onnx", fuse=False)
    fused = export_onnx(model, workdir / "fused.onnx")
    cpu = ["CPUExecutionProvider"]
    variants.append(_ort_variant("ort-fp32", plain, cpu, settings=settings))
    fused_variant = _ort_variant("ort-fused", fused, cpu, settings=settings)
    if fused_variant.fused_ops.get("Attention"):  # for CNNs the fused export is the plain one
        variants.append(fused_variant)
    if photos_dir is not None:
        # Timed at the bench's batch sizes with its settings: the int8 file this machine runs fastest.
        report = quantize_model(fused, workdir / "int8.onnx", photos_dir=photos_dir, calibration_dir=calibration_dir,
                                allow_below_threshold=True, timing_batches=batches, settings=settings)
        variants.append(_ort_variant("ort-int8", workdir / "int8.onnx", cpu, f"{report.chosen}, {report.top1_agreement:.2%} vs fp32 ORT",
                                     settings=settings))
    gpu = [p for p in default_providers() if p in GPU_PROVIDERS]
    if "CUDAExecutionProvider" in gpu:
        half = write_fp16(fused, workdir / "fp16.onnx")
        variants.append(_ort_variant("ort-cuda-fp32", fused, ["CUDAExecutionProvider", "CPUExecutionProvider"]))
        variants.append(_ort_variant("ort-cuda-fp16", half, ["CUDAExecutionProvider", "CPUExecutionProvider"]))
    if "TensorrtExecutionProvider" in gpu:
        trt = [("TensorrtExecutionProvider", {"trt_fp16_enable": True, "trt_engine_cache_enable": True,
                                              "trt_engine_cache_path": str(workdir / "trt")}), "CUDAExecutionProvider"]
        variants.append(_ort_variant("ort-tensorrt-fp16", fused, trt))
    return variants


def time_variants(variants: list[Variant], inputs: dict[int, np.ndarray], iterations: int, rounds: int = 4) -> dict[tuple[str, int], list[float]]:
    """Seconds per call for every (variant, batch), interleaved round by round."""
    times: dict[tuple[str, int], list[float]] = {(v.name, b): [] for v in variants for b in inputs}
    for variant in variants:  # warm up: first calls allocate, JIT and tune
        for array in inputs.values():
            seconds_per_call(lambda: variant.run(array), 2)
    for _ in range(rounds):
        for batch, array in inputs.items():
            per_round = max(2, -(-iterations // rounds) if batch == 1 else -(-iterations // (4 * rounds)))
            for variant in variants:
                settle_and_warm_up(lambda: variant.run(array))
                times[variant.name, batch] += seconds_per_call(lambda: variant.run(array), per_round)
    return times


def compare_engines(engines: dict[str, Engine], batches=(1, 32), rounds: int = 5, calls: int = 8) -> dict:
    """ONNX Runtime images/s of several model files, measured side by side (the pipeline's bench).

    Each model's speed relative to the first one is the median of the per-round ratios
    (models.timing: robust on a shared machine).
    """
    images = parity_images(count=4)
    # Each file preprocesses as its own metadata says, so each gets its own arrays.
    arrays = {name: {b: np.stack([e.preprocess_image(images[i % len(images)]) for i in range(b)]) for b in batches}
              for name, e in engines.items()}
    runs = {name: (lambda batch, name=name, e=e: e.run(arrays[name][batch])) for name, e in engines.items()}
    speeds = interleaved_speeds(runs, tuple(batches), rounds=rounds, calls=calls)
    rows = [{"model": name, "batch": batch, "images_per_s": speed.images_per_s, "vs_first": speed.vs_first}
            for name, by_batch in speeds.items() for batch, speed in by_batch.items()]
    return {"rounds": rounds, "reference": next(iter(engines)), "rows": rows}


# The ONNX Runtime CPU files the app can serve, in models.runtime_choice's order (most exact first).
SERVABLE = {"ort-fp32": ("fp32", "plain.onnx"), "ort-fused": ("fused", "fused.onnx"), "ort-int8": ("int8", "int8.onnx")}


def serving_choice(variants: list[Variant], times: dict[tuple[str, int], list[float]], agreement: dict[str, float],
                   workdir: Path, batch: int) -> Choice:
    """What the app would serve on this machine, decided by the bench's own timings at ``batch``
    (agreement with PyTorch fp32 where photos measured it)."""
    rate = {SERVABLE[v.name][0]: batch / float(np.median(times[v.name, batch])) for v in variants if v.name in SERVABLE}
    candidates = [Candidate(short, workdir / file, agreement.get(name, 1.0))
                  for name, (short, file) in SERVABLE.items() if short in rate]
    return choose(candidates, measure=lambda timed: {c.name: rate[c.name] / rate[timed[0].name] for c in timed},
                  batch_label=f"batch {batch}")


def phone_jpeg(image: Image.Image, size: tuple[int, int] = PHONE_SIZE, quality: int = 92) -> bytes:
    """``image`` resized to a 12 MP phone photo and saved as a JPEG, as a phone would send it."""
    out = io.BytesIO()
    image.convert("RGB").resize(size, Image.Resampling.BICUBIC).save(out, format="JPEG", quality=quality)
    return out.getvalue()


def end_to_end(engine: Engine, jpeg: bytes, iterations: int) -> list[EndToEndRow]:
    """Decode + preprocess + model for one JPEG, full decode against draft decode, interleaved."""
    min_sides = {"full": None, "draft": engine.preprocess.decode_side}

    def analyse(min_side):
        tensor = engine.preprocess_image(load_image(jpeg, "phone.jpg", min_side=min_side))
        return tensor, engine.run(tensor[None])[0]

    times = {mode: [] for mode in min_sides}
    for _ in range(iterations):
        for mode, min_side in min_sides.items():
            times[mode] += seconds_per_call(lambda: analyse(min_side), 1)
    rows = []
    for mode, min_side in min_sides.items():
        tensor, logits = analyse(min_side)
        ms = np.asarray(times[mode]) * 1000
        rows.append(EndToEndRow(mode, float(np.percentile(ms, 50)), float(np.percentile(ms, 95)), tuple(tensor.shape), engine.labels[int(logits.argmax())]))
    return rows


def draft_agreement(engine: Engine, paths: list[Path]) -> float:
    """Top-1 agreement of draft-decoded against fully decoded photos."""
    cfg = engine.preprocess
    full = np.stack([cfg.apply(load_image(p)) for p in paths])
    draft = preprocessed_photos(paths, cfg)  # decodes with min_side, as the app does
    return float((top1(engine, full) == top1(engine, draft)).mean())


def benchmark(
    model: torch.nn.Module,
    *,
    photos_dir: Path | None = None,
    calibration_dir: Path | None = None,
    batches: tuple[int, ...] = (1, 32),
    iterations: int = 40,
    e2e_iterations: int = 10,
    workdir: Path | None = None,
    settings: SessionSettings | None = None,
) -> BenchResult:
    """Every variant side by side; ``settings`` (default: from the machine) for every ONNX Runtime
    session, and its thread count for PyTorch too, so both use the same cores."""
    model = model.eval()
    settings = settings or SessionSettings()
    torch_threads = torch.get_num_threads()
    torch.set_num_threads(settings.intra_op_threads)
    try:
        return _measure(model, settings, photos_dir, calibration_dir, batches, iterations, e2e_iterations, workdir)
    finally:
        torch.set_num_threads(torch_threads)


def _measure(model, settings, photos_dir, calibration_dir, batches, iterations, e2e_iterations, workdir) -> BenchResult:
    cfg = model.preprocess
    with tempfile.TemporaryDirectory() as tmp:
        variants = build_variants(model, Path(workdir or tmp), photos_dir, calibration_dir, settings, batches)
        images = parity_images(count=4)
        sample = np.stack([cfg.apply(image) for image in images])
        inputs = {b: np.ascontiguousarray(sample[np.arange(b) % len(sample)]) for b in batches}
        times = time_variants(variants, inputs, iterations)
        agreement: dict[str, float] = {}
        paths: list[Path] = []
        if photos_dir is not None:
            paths = photo_paths(photos_dir, MAX_AGREEMENT_PHOTOS)
            photos = preprocessed_photos(paths, cfg)
            reference = np.concatenate([variants[0].run(photos[i : i + 32]).argmax(1) for i in range(0, len(photos), 32)])
            for variant in variants:
                predicted = np.concatenate([variant.run(photos[i : i + 32]).argmax(1) for i in range(0, len(photos), 32)])
                agreement[variant.name] = float((predicted == reference).mean())
        rows = []
        for batch in batches:
            eager_rate = batch / float(np.median(times["pytorch-eager", batch]))
            for variant in variants:
                seconds = np.asarray(times[variant.name, batch])
                rate = batch / float(np.median(seconds))
                rows.append(BenchRow(
                    variant.name, batch, rate, float(np.percentile(seconds, 50) * 1000), float(np.percentile(seconds, 95) * 1000),
                    rate / eager_rate, agreement.get(variant.name),
                ))
        served = serving_choice(variants, times, agreement, Path(workdir or tmp), min(batches))
        fused_path = Path(workdir or tmp) / "fused.onnx"
        engine = Engine(fused_path, providers=["CPUExecutionProvider"], settings=settings)
        source = load_image(paths[0]) if paths else images[0]
        result = BenchResult(
            model=getattr(model, "registry_name", type(model).__name__), input_size=cfg.input_size,
            machine={"cpu_features": sorted(cpu_features()), "ort_threads": engine.settings.intra_op_threads,
                     "ort_spinning": settings.allow_spinning, "ort_micro_batch": settings.cpu_run_size, "load_average": os.getloadavg()[0],
                     "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", "default"),
                     "torch_threads": torch.get_num_threads(), "providers": default_providers()},
            rows=rows, variants={v.name: {"note": v.note, "fused_ops": v.fused_ops} for v in variants},
            end_to_end=end_to_end(engine, phone_jpeg(source), e2e_iterations),
            draft_top1_agreement=draft_agreement(engine, paths) if paths else None, photos=len(paths),
            served=served.to_dict(),
        )
    return result


def format_result(result: BenchResult) -> str:
    lines = [
        f"model {result.model}, input {result.input_size}px; CPU features {', '.join(result.machine['cpu_features']) or 'none'}; "
        f"ORT threads {result.machine['ort_threads']} (spinning {'on' if result.machine['ort_spinning'] else 'off'}, "
        f"CPU runs of {result.machine.get('ort_micro_batch') or 'whole batches'}), "
        f"torch threads {result.machine['torch_threads']} (OMP_WAIT_POLICY {result.machine['omp_wait_policy']}); providers {result.machine['providers']}; "
        f"load average {result.machine['load_average']:.1f} at the end",
        "",
        "| variant | batch | images/s | p50 ms | p95 ms | vs eager | top-1 agreement |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in result.rows:
        agree = f"{r.top1_agreement:.2%}" if r.top1_agreement is not None else "-"
        lines.append(f"| {r.variant} | {r.batch} | {r.images_per_s:.1f} | {r.p50_ms:.1f} | {r.p95_ms:.1f} | {r.vs_eager:.2f}x | {agree} |")
    lines.append("")
    for name, info in result.variants.items():
        ops = ", ".join(f"{op} {n}" for op, n in sorted(info["fused_ops"].items())) or "-"
        lines.append(f"{name}: {info['note']}; fused ops: {ops}")
    lines += ["", "| 12 MP JPEG end to end | p50 ms | p95 ms | tensor | top-1 |", "|---|---|---|---|---|"]
    lines += [f"| {r.decode} decode | {r.p50_ms:.1f} | {r.p95_ms:.1f} | {'x'.join(map(str, r.tensor_shape))} | {r.top1} |" for r in result.end_to_end]
    if result.served:
        lines.append(f"\nserved on this machine: {result.served['reason']}")
    if result.draft_top1_agreement is not None:
        lines.append(f"\ndraft vs full decode: top-1 agreement {result.draft_top1_agreement:.2%} on {result.photos} photos")
    return "\n".join(lines)
