"""int8 ONNX models with an accuracy guard: quantise, compare with fp32 on real photos, then write.

Candidates (all with ``onnxruntime.quantization``):

- dynamic, per tensor and per channel: weights int8, activations quantised per call. Right for
  the MatMul-heavy ViT students, whose activation ranges vary from photo to photo. Only MatMul
  and the fused Attention are quantised; convolutions stay fp32 (ConvInteger is slow on CPU).
- static QDQ, per channel, when a calibration folder is given: activation ranges fixed from
  those photos, so convolutions are quantised too (the better choice for CNNs). The classifier
  head (Gemm) stays fp32: it is tiny and its bias cannot take an int32 scale after a Gather.

Candidates are tried fastest-first for the graph (dynamic first for transformers, static first
for convolutional models) and the first whose top-1 agrees with the fp32 model on the photo
folder at least ``AGREEMENT_THRESHOLD`` of the time wins: per-channel is used only where
per-tensor falls short. If none reaches it, nothing is written unless the caller allows it
(then the best one is written, and its metadata says it is below the threshold).
"""

from __future__ import annotations

import os
import tempfile
import warnings
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import onnx

from models.engine import Engine, SessionSettings
from models.errors import FoodtagError, ModelError
from models.images import load_image
from models.metadata import read_metadata, set_metadata
from models.preprocess import PreprocessConfig

# An int8 model may change the top-1 food of at most 1 photo in 100 against its fp32 source:
# below that a user sees a visibly different answer, and the speed is not worth it.
AGREEMENT_THRESHOLD = 0.99
PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp", ".bmp")
MAX_AGREEMENT_PHOTOS = 2000
MAX_CALIBRATION_PHOTOS = 256
_BATCH = 32
# Contrib ops (Attention) have no ONNX shape inference; their outputs are float32.
_EXTRA_OPTIONS = {"DefaultTensorType": onnx.TensorProto.FLOAT}


@dataclass
class Candidate:
    mode: str  # "dynamic" or "static-qdq"
    per_channel: bool
    top1_agreement: float | None = None

    @property
    def name(self) -> str:
        return f"{self.mode}{'-per-channel' if self.per_channel else ''}"


@dataclass
class QuantizeReport:
    source: str
    out_path: str | None
    chosen: str
    top1_agreement: float
    photos: int
    threshold: float
    below_threshold: bool
    candidates: list[dict] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


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
            arrays.append(cfg.apply(load_image(path, min_side=cfg.resize_size)))
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
            weight_type=QuantType.QInt8, extra_options=_EXTRA_OPTIONS,
        )
    else:
        quantize_static(
            source, out, _CalibrationReader(input_name, calibration), quant_format=QuantFormat.QDQ,
            op_types_to_quantize=["Conv", "MatMul"], per_channel=candidate.per_channel, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
            extra_options=_EXTRA_OPTIONS,
        )


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
) -> QuantizeReport:
    """Write the int8 variant of an exported fp32 model, if it agrees with fp32 on the photos.

    ``modes`` limits the candidates ("dynamic", "static"); by default dynamic is tried, and static
    QDQ too when ``calibration_dir`` is given (see the module docstring for the order). Raises ModelError (nothing written) for a file
    without foodtag metadata, an already quantised file, or agreement under the threshold
    (unless ``allow_below_threshold``, which writes it with a warning).
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

    settings = SessionSettings()
    reference = Engine(fp32_path, providers=["CPUExecutionProvider"], settings=settings)
    photos = preprocessed_photos(photo_paths(photos_dir, max_photos), reference.preprocess)
    expected = top1(reference, photos)
    calibration = None
    if "static" in modes:
        calibration = preprocessed_photos(photo_paths(calibration_dir, MAX_CALIBRATION_PHOTOS), reference.preprocess)
    candidates = [Candidate("dynamic", False), Candidate("dynamic", True)] if "dynamic" in modes else []
    if "static" in modes:
        static = Candidate("static-qdq", True)
        candidates = [static, *candidates] if _convolution_heavy(fp32_path) else [*candidates, static]

    out_path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out_path.parent, prefix=".quantize-") as tmp:
        best: tuple[Candidate, Path] | None = None
        tried = []
        for candidate in candidates:
            staged = Path(tmp) / f"{candidate.name}.onnx"
            _quantize(candidate, fp32_path, staged, calibration, reference.input_name)
            # The quantizer keeps the source's metadata, so the staged file loads like any model.
            engine = Engine(staged, providers=["CPUExecutionProvider"], settings=settings)
            candidate.top1_agreement = float((top1(engine, photos) == expected).mean())
            tried.append(candidate)
            if best is None or candidate.top1_agreement > best[0].top1_agreement:
                best = (candidate, staged)
            if candidate.top1_agreement >= agreement_threshold:
                break  # the fastest one that agrees well enough
        chosen, staged = best
        below = chosen.top1_agreement < agreement_threshold
        report = QuantizeReport(
            source=str(fp32_path), out_path=None, chosen=chosen.name, top1_agreement=chosen.top1_agreement,
            photos=len(photos), threshold=agreement_threshold, below_threshold=below,
            candidates=[{"name": c.name, "top1_agreement": c.top1_agreement} for c in tried],
        )
        if below and not allow_below_threshold:
            raise ModelError(
                f"{fp32_path.name}: int8 top-1 agreement with fp32 is {chosen.top1_agreement:.2%} on {len(photos)} photos, "
                f"under the {agreement_threshold:.0%} threshold; nothing was written (allow it explicitly to write anyway)"
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
        })
        final = Path(tmp) / "final.onnx"
        onnx.save(proto, str(final))
        os.replace(final, out_path)  # atomic, like export
    report.out_path = str(out_path)
    return report
