"""int8 ONNX models with an accuracy guard: quantise, compare with fp32 on real photos, time, write.

Candidates (all with ``onnxruntime.quantization``; weights int8, so ONNX Runtime runs its u8s8
GEMMs, the fastest int8 kernels on x86):

- dynamic, per tensor and per channel: activations quantised per call. Right for the
  MatMul-heavy ViT students, whose activation ranges vary from photo to photo. Only MatMul with
  a constant weight and the fused Attention (as ``QAttention``) are quantised; products of two
  activations (attention scores in an unfused graph) and convolutions stay fp32 (ConvInteger is
  slow on CPU).
- static QDQ, per channel, when a calibration folder is given: activation ranges fixed from
  those photos, so convolutions are quantised too (the better choice for CNNs). The classifier
  head (Gemm) stays fp32: it is tiny and its bias cannot take an int32 scale after a Gather.
- on an x86 CPU without VNNI (read at run time), each mode also with ``reduce_range`` (7-bit
  weights): there the u8s8 kernel sums pairs of u8 x s8 products in int16 (VPMADDUBSW), which
  saturates with full-range weights; 7 bits cannot overflow, with the same kernel. With VNNI the
  products go straight to int32, and 7 bits would only cost precision.

Every candidate is timed against the fp32 model on this machine (models.timing: interleaved
rounds, at the batch sizes asked for), then their top-1 agreement with the fp32 model on the
photo folder is checked fastest first: the fastest candidate that agrees at least
``AGREEMENT_THRESHOLD`` of the time wins (candidates within ``SPEED_TIE`` of each other count as
equally fast and keep the expected order). If none reaches it, nothing is written unless the
caller allows it (then the best-agreeing one is written, and its metadata says it is below the
threshold). Without timing (no batch sizes) the candidates are checked in a fixed order instead,
the one expected to be fastest for the graph first.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import onnx

from models.engine import Engine, SessionSettings, cpu_features
from models.errors import FoodtagError, ModelError
from models.images import load_image
from models.metadata import read_metadata, set_metadata
from models.preprocess import PreprocessConfig
from models.timing import Speed, interleaved_speeds

# An int8 model may change the top-1 food of at most 1 photo in 100 against its fp32 source:
# below that a user sees a visibly different answer, and the speed is not worth it.
AGREEMENT_THRESHOLD = 0.99
PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".bmp")
MAX_AGREEMENT_PHOTOS = 2000
MAX_CALIBRATION_PHOTOS = 256
_BATCH = 32
# The batch sizes candidates are timed at by default: one photo at a time (the app) and a batch
# (the batch tool); a few interleaved rounds are enough to rank int8 files that differ by >10%.
TIMING_BATCHES = (1, 32)
TIMING_ROUNDS = 3
# Candidates within 5% of the fastest count as tied (a few rounds on a shared machine cannot rank
# them closer): among those the expected order decides, so the choice does not flip run to run.
SPEED_TIE = 0.05
# Contrib ops (Attention) have no ONNX shape inference; their outputs are float32.
_EXTRA_OPTIONS = {"DefaultTensorType": onnx.TensorProto.FLOAT}
# CPU flags with an int8 dot product into int32 (no int16 intermediate that can saturate).
_INT8_DOT_PRODUCT = {"avx512_vnni", "avx_vnni", "amx_int8"}


@dataclass
class Candidate:
    mode: str  # "dynamic" or "static-qdq"
    per_channel: bool
    reduce_range: bool = False
    top1_agreement: float | None = None
    speed: dict[int, Speed] = field(default_factory=dict)  # batch size -> images/s and x fp32

    @property
    def name(self) -> str:
        return f"{self.mode}{'-per-channel' if self.per_channel else ''}{'-reduce-range' if self.reduce_range else ''}"

    @property
    def speedup(self) -> float:
        """Geometric mean over the timed batch sizes of images/s relative to fp32 (0: not timed)."""
        if not self.speed:
            return 0.0
        return math.exp(sum(math.log(s.vs_first) for s in self.speed.values()) / len(self.speed))

    def row(self) -> dict:
        return {
            "name": self.name, "top1_agreement": self.top1_agreement,
            "images_per_s": {str(b): s.images_per_s for b, s in self.speed.items()},
            "vs_fp32": {str(b): s.vs_first for b, s in self.speed.items()},
        }


@dataclass
class QuantizeReport:
    source: str
    out_path: str | None
    chosen: str
    top1_agreement: float
    photos: int
    threshold: float
    below_threshold: bool
    candidates: list[dict] = field(default_factory=list)  # Candidate.row() of each, fastest first when timed
    fp32_images_per_s: dict[str, float] = field(default_factory=dict)  # batch size -> the fp32 model's speed
    cpu_features: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


def format_report(report: QuantizeReport) -> str:
    """The candidates as a table (fastest first when timed), then what was written."""
    batches = list(report.fp32_images_per_s)
    lines = [
        f"CPU features: {', '.join(report.cpu_features) or 'none found'}",
        "| candidate | top-1 agreement | " + "".join(f"batch {b} images/s | x fp32 | " for b in batches) + "chosen |",
        "|---|---|" + "---|---|" * len(batches) + "---|",
        "| fp32 (source) | 100% | " + "".join(f"{report.fp32_images_per_s[b]:.1f} | 1.00x | " for b in batches) + " |",
    ]
    for row in report.candidates:
        agreement = "not checked" if row["top1_agreement"] is None else f"{row['top1_agreement']:.2%}"
        speed = "".join(f"{row['images_per_s'][b]:.1f} | {row['vs_fp32'][b]:.2f}x | " for b in batches)
        lines.append(f"| {row['name']} | {agreement} | {speed}{'yes' if row['name'] == report.chosen else ''} |")
    where = f"wrote {report.out_path}" if report.out_path else "nothing written"
    lines.append(f"{where} ({report.chosen}, {report.top1_agreement:.2%} agreement on {report.photos} photos, "
                 f"threshold {report.threshold:.0%})")
    return "\n".join(lines)


def photo_paths(folder: str | Path, limit: int) -> list[Path]:
    """Image files under ``folder`` (recursively, sorted, at most ``limit``, spread over classes)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ModelError(f"{folder}: photo folder not found")
    paths = sorted(p for p in folder.rglob("*") if p.suffix.lower() in PHOTO_SUFFIXES and p.is_file())
    if not paths:
        raise ModelError(f"{folder}: no photos ({', '.join(PHOTO_SUFFIXES)}) in it")
    if len(paths) > limit:  # every k-th file, so an ImageFolder tree keeps all its classes
        paths = paths[:: -(-len(paths) // limit)]
    return paths


def preprocessed_photos(paths: list[Path], cfg: PreprocessConfig) -> np.ndarray:
    """Photos as the model sees them (N, 3, S, S); unreadable files are skipped with a warning."""
    arrays = []
    for path in paths:
        try:
            arrays.append(cfg.apply(load_image(path, min_side=cfg.decode_side)))
        except FoodtagError as exc:
            warnings.warn(f"skipping {exc}", stacklevel=2)
    if not arrays:
        raise ModelError("none of the photos could be read")
    return np.stack(arrays)


def top1(engine: Engine, photos: np.ndarray) -> np.ndarray:
    return np.concatenate([engine.run(photos[i : i + _BATCH]).argmax(1) for i in range(0, len(photos), _BATCH)])


class _CalibrationReader:
    """Feeds calibration photos to quantize_static, one batch per call (the CalibrationDataReader protocol)."""

    def __init__(self, input_name: str, photos: np.ndarray):
        self._batches = iter([{input_name: photos[i : i + _BATCH]} for i in range(0, len(photos), _BATCH)])

    def get_next(self) -> dict | None:
        return next(self._batches, None)


def _quantize(candidate: Candidate, source: Path, out: Path, calibration: np.ndarray | None, input_name: str) -> None:
    from onnxruntime.quantization import QuantFormat, QuantType, quantize_dynamic, quantize_static

    if candidate.mode == "dynamic":
        quantize_dynamic(
            source, out, op_types_to_quantize=["MatMul", "Attention"], per_channel=candidate.per_channel,
            reduce_range=candidate.reduce_range, weight_type=QuantType.QInt8,
            extra_options={**_EXTRA_OPTIONS, "MatMulConstBOnly": True},
        )
    else:
        quantize_static(
            source, out, _CalibrationReader(input_name, calibration), quant_format=QuantFormat.QDQ,
            op_types_to_quantize=["Conv", "MatMul"], per_channel=candidate.per_channel, reduce_range=candidate.reduce_range,
            activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, extra_options=_EXTRA_OPTIONS,
        )


def saturating_int8_gemm(features: frozenset[str]) -> bool:
    """An x86 CPU whose u8s8 GEMM adds pairs of products in int16 (AVX2 or AVX-512 without VNNI)."""
    return "avx2" in features and not _INT8_DOT_PRODUCT & features


def candidates_for(modes: tuple[str, ...], convolution_heavy: bool, features: frozenset[str]) -> list[Candidate]:
    """The candidates worth trying on this CPU, the one expected fastest for the graph first."""
    dynamic = [Candidate("dynamic", False), Candidate("dynamic", True)] if "dynamic" in modes else []
    static = [Candidate("static-qdq", True)] if "static" in modes else []
    if saturating_int8_gemm(features):
        dynamic += [Candidate("dynamic", False, reduce_range=True)] if dynamic else []
        static += [Candidate("static-qdq", True, reduce_range=True)] if static else []
    return static + dynamic if convolution_heavy else dynamic + static


def _convolution_heavy(path: Path) -> bool:
    """More convolutions than matrix products: activations are worth calibrating (static QDQ)."""
    ops = [node.op_type for node in onnx.load(str(path), load_external_data=False).graph.node]
    return ops.count("Conv") > ops.count("MatMul") + ops.count("Attention") + ops.count("Gemm")


def quantize_model(
    fp32_path: str | Path,
    out_path: str | Path,
    *,
    photos_dir: str | Path,
    calibration_dir: str | Path | None = None,
    modes: tuple[str, ...] | None = None,
    agreement_threshold: float = AGREEMENT_THRESHOLD,
    allow_below_threshold: bool = False,
    max_photos: int = MAX_AGREEMENT_PHOTOS,
    timing_batches: tuple[int, ...] = TIMING_BATCHES,
    timing_rounds: int = TIMING_ROUNDS,
    settings: SessionSettings | None = None,
) -> QuantizeReport:
    """Write the fastest int8 variant of an exported fp32 model that agrees with fp32 on the photos.

    ``modes`` limits the candidates ("dynamic", "static"); by default dynamic is tried, and static
    QDQ too when ``calibration_dir`` is given. Candidates are timed at ``timing_batches`` with
    ``settings`` (default: the engine's, from this machine); an empty ``timing_batches`` skips
    timing and takes the first that agrees, in the module docstring's order. Raises ModelError
    (nothing written) for a file without foodtag metadata, an already quantised file, or agreement
    under the threshold (unless ``allow_below_threshold``, which writes it with a warning).
    """
    fp32_path, out_path = Path(fp32_path), Path(out_path)
    source_meta = read_metadata(fp32_path)  # refuses files without metadata
    if source_meta.get("precision", "fp32") != "fp32":
        raise ModelError(f"{fp32_path}: already {source_meta['precision']}; quantise the fp32 export")
    if not 0 < agreement_threshold <= 1:
        raise ModelError(f"agreement threshold must be in (0, 1], got {agreement_threshold}")
    modes = modes or (("dynamic", "static") if calibration_dir is not None else ("dynamic",))
    unknown = set(modes) - {"dynamic", "static"}
    if unknown:
        raise ModelError(f"unknown quantisation mode(s) {', '.join(sorted(unknown))}: use dynamic or static")
    if "static" in modes and calibration_dir is None:
        raise ModelError("static quantisation needs a calibration folder (--calibration DIR)")
    if any(b < 1 for b in timing_batches) or (timing_batches and timing_rounds < 1):
        raise ModelError("timing batch sizes and rounds must be at least 1")

    settings = settings or SessionSettings()
    reference = Engine(fp32_path, providers=["CPUExecutionProvider"], settings=settings)
    photos = preprocessed_photos(photo_paths(photos_dir, max_photos), reference.preprocess)
    expected = top1(reference, photos)
    calibration = None
    if "static" in modes:
        calibration = preprocessed_photos(photo_paths(calibration_dir, MAX_CALIBRATION_PHOTOS), reference.preprocess)
    features = cpu_features()
    candidates = candidates_for(tuple(modes), _convolution_heavy(fp32_path), features)

    out_path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out_path.parent, prefix=".quantize-") as tmp:
        engines = {}
        for candidate in candidates:
            staged = Path(tmp) / f"{candidate.name}.onnx"
            _quantize(candidate, fp32_path, staged, calibration, reference.input_name)
            # The quantizer keeps the source's metadata, so the staged file loads like any model.
            engines[candidate.name] = Engine(staged, providers=["CPUExecutionProvider"], settings=settings)
        fp32_speed = {}
        if timing_batches:
            speeds = _time_candidates(reference, engines, photos, timing_batches, timing_rounds)
            fp32_speed = {str(b): s.images_per_s for b, s in speeds.pop("fp32").items()}
            for candidate in candidates:
                candidate.speed = speeds[candidate.name]
            fastest = max(c.speedup for c in candidates)
            # Stable sort: the candidates tied with the fastest keep the expected order among themselves.
            candidates.sort(key=lambda c: (0, 0.0) if c.speedup >= fastest * (1 - SPEED_TIE) else (1, -c.speedup))
        best: Candidate | None = None
        for candidate in candidates:
            candidate.top1_agreement = float((top1(engines[candidate.name], photos) == expected).mean())
            if best is None or candidate.top1_agreement > best.top1_agreement:
                best = candidate
            if candidate.top1_agreement >= agreement_threshold:
                break  # the fastest one that agrees well enough
        chosen, staged = best, Path(tmp) / f"{best.name}.onnx"
        below = chosen.top1_agreement < agreement_threshold
        report = QuantizeReport(
            source=str(fp32_path), out_path=None, chosen=chosen.name, top1_agreement=chosen.top1_agreement,
            photos=len(photos), threshold=agreement_threshold, below_threshold=below,
            candidates=[c.row() for c in candidates], fp32_images_per_s=fp32_speed, cpu_features=sorted(features),
        )
        if below and not allow_below_threshold:
            raise ModelError(
                f"{fp32_path.name}: int8 top-1 agreement with fp32 is {chosen.top1_agreement:.2%} on {len(photos)} photos, "
                f"under the {agreement_threshold:.0%} threshold; nothing was written (allow it explicitly to write anyway). "
                "Candidates: " + ", ".join(f"{c.name} {c.top1_agreement:.2%}" for c in candidates)
            )
        if below:
            warnings.warn(
                f"WRITING A BELOW-THRESHOLD MODEL: int8 agrees with fp32 on only {chosen.top1_agreement:.2%} "
                f"of {len(photos)} photos (threshold {agreement_threshold:.0%})", stacklevel=2,
            )
        proto = set_metadata(onnx.load(str(staged)), {
            **source_meta,
            "source_version": source_meta["version"],
            "precision": "int8",
            "quantization": chosen.name,
            "top1_agreement": f"{chosen.top1_agreement:.4f}",
            "agreement_photos": str(len(photos)),
            "below_threshold": str(below).lower(),
            # Agreement and speed hold for the CPU they were measured on (saturating or not).
            "quantized_on_cpu_features": ",".join(sorted(features)),
            "speed_vs_fp32": json.dumps({str(b): round(s.vs_first, 3) for b, s in chosen.speed.items()}),
        })
        final = Path(tmp) / "final.onnx"
        onnx.save(proto, str(final))
        os.replace(final, out_path)  # atomic, like export
    report.out_path = str(out_path)
    return report


def _time_candidates(
    reference: Engine, engines: dict[str, Engine], photos: np.ndarray, batches: tuple[int, ...], rounds: int,
) -> dict[str, dict[int, Speed]]:
    """images/s of the fp32 model (first, as "fp32") and every candidate, on real photos, interleaved."""
    inputs = {b: np.ascontiguousarray(photos[np.arange(b) % len(photos)]) for b in batches}
    runs = {"fp32": reference, **engines}
    return interleaved_speeds({name: (lambda b, e=e: e.run(inputs[b])) for name, e in runs.items()}, batches, rounds=rounds, calls=4)
