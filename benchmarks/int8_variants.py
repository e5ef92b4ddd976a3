"""Which int8 ONNX file runs a ViT fastest on this CPU: every quantisation choice side by side.

    .venv/bin/python benchmarks/int8_variants.py vit_tiny_patch16_224 --random-init \
        --photos ../shared/data/food10/val [--threads N] [--no-spin] [--batch 1 --batch 32] [--rounds 3]

On a machine other processes keep busy, run it as ``OMP_WAIT_POLICY=PASSIVE ... --no-spin`` so
that neither PyTorch's nor ONNX Runtime's threads busy-wait (as ``python -m models bench
--no-spin`` does); a spinning runtime loses its time slices to the other processes.

One run, interleaved rounds (models.timing), each row's speed relative to PyTorch eager fp32 and
to ONNX Runtime fp32 as the median of per-round ratios. The rows are the choices
``models quantize`` could make and the ones it leaves out, so that what it leaves out is shown
here rather than assumed:

- the source graph: fused (Attention quantised into QAttention, as ``models quantize`` does with
  the default export) or plain (``--no-fuse``; ONNX Runtime fuses at load time), quantised with
  ``onnxruntime.quantization.quantize_dynamic``; and the plain one quantised, then run through
  ONNX Runtime's transformer optimizer (quantise, then fuse);
- ``op_types_to_quantize``: MatMul and Attention, MatMul only, Attention only, plus Gemm;
- per tensor or per channel; ``reduce_range`` (7-bit weights); weights QInt8 (u8s8 kernels) or
  QUInt8 (u8u8 kernels); ``MatMulConstBOnly`` (activation x activation products stay fp32);
- static QDQ (calibrated on the photo folder) of the plain graph.

With ``--photos`` each row also gets its top-1 agreement with ONNX Runtime fp32 on those photos
(meaningful only for a trained model).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import onnx  # noqa: E402
import torch  # noqa: E402
from onnxruntime.quantization import QuantFormat, QuantType, quantize_dynamic, quantize_static  # noqa: E402

from models.engine import Engine, SessionSettings, cpu_features  # noqa: E402
from models.export import export_onnx, parity_images  # noqa: E402
from models.fusion import optimize_transformer, transformer_shape  # noqa: E402
from models.machine import cpu_description  # noqa: E402
from models.quantize import photo_paths, preprocessed_photos, top1  # noqa: E402
from models.registry import create_model  # noqa: E402
from models.timing import interleaved_speeds  # noqa: E402

FLOAT_OUTPUTS = {"DefaultTensorType": onnx.TensorProto.FLOAT}  # contrib ops have no shape inference

# name -> (source graph, quantize_dynamic keyword arguments)
DYNAMIC = {
    "fused MatMul+Attention s8": ("fused", {"op_types_to_quantize": ["MatMul", "Attention"]}),
    "fused MatMul+Attention s8 per-channel": ("fused", {"op_types_to_quantize": ["MatMul", "Attention"], "per_channel": True}),
    "fused MatMul+Attention s8 reduce-range": ("fused", {"op_types_to_quantize": ["MatMul", "Attention"], "reduce_range": True}),
    "fused MatMul+Attention u8 weights": ("fused", {"op_types_to_quantize": ["MatMul", "Attention"], "weight_type": QuantType.QUInt8}),
    "fused MatMul only s8": ("fused", {"op_types_to_quantize": ["MatMul"]}),
    "fused Attention only s8": ("fused", {"op_types_to_quantize": ["Attention"]}),
    "fused MatMul+Attention+Gemm s8": ("fused", {"op_types_to_quantize": ["MatMul", "Attention", "Gemm"]}),
    "plain MatMul s8": ("plain", {"op_types_to_quantize": ["MatMul"]}),
    "plain MatMul s8 const-B only": ("plain", {"op_types_to_quantize": ["MatMul"], "extra_options": {"MatMulConstBOnly": True}}),
}


class _Calibration:
    def __init__(self, photos: np.ndarray):
        self._batches = iter([{"images": photos[i : i + 8]} for i in range(0, len(photos), 8)])

    def get_next(self):
        return next(self._batches, None)


def write_variants(model: torch.nn.Module, folder: Path, calibration: np.ndarray | None) -> dict[str, Path]:
    sources = {"plain": export_onnx(model, folder / "plain.onnx", fuse=False), "fused": export_onnx(model, folder / "fused.onnx")}
    files = {"ort fp32 plain": sources["plain"], "ort fp32 fused": sources["fused"]}
    for index, (name, (source, kwargs)) in enumerate(DYNAMIC.items()):
        out = folder / f"dynamic{index}.onnx"
        options = {"weight_type": QuantType.QInt8, **kwargs}
        options["extra_options"] = {**FLOAT_OUTPUTS, **kwargs.get("extra_options", {})}
        quantize_dynamic(sources[source], out, **options)
        files[name] = out
    # Quantise first, then fuse: the transformer optimizer on the quantised plain graph (it fuses
    # LayerNorm and GELU; attention, now MatMulInteger, is no longer a pattern it knows).
    shape = transformer_shape(model)
    if shape is not None:
        fused_after = optimize_transformer(files["plain MatMul s8 const-B only"], *shape)
        files["plain MatMul s8 const-B only, then fused"] = folder / "quantized-then-fused.onnx"
        onnx.save(fused_after, str(files["plain MatMul s8 const-B only, then fused"]))
    if calibration is not None:
        out = folder / "static.onnx"
        quantize_static(sources["plain"], out, _Calibration(calibration[:64]), quant_format=QuantFormat.QDQ, op_types_to_quantize=["MatMul"],
                        per_channel=True, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                        extra_options={**FLOAT_OUTPUTS, "MatMulConstBOnly": True})
        files["plain static QDQ s8 per-channel"] = out
    return files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("name", help="registry name, timm:<name> or ckpt:<path>")
    parser.add_argument("--random-init", action="store_true", help="random weights (speed only)")
    parser.add_argument("--photos", type=Path, help="photo folder: top-1 agreement with ONNX Runtime fp32, and calibration")
    parser.add_argument("--threads", type=int, help="threads for PyTorch and ONNX Runtime alike (default: the usable cores)")
    parser.add_argument("--spin", action=argparse.BooleanOptionalAction, default=True, help="ONNX Runtime threads busy-wait")
    parser.add_argument("--batch", type=int, action="append", help="batch sizes (repeatable; default 1 and 32)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    settings = SessionSettings(allow_spinning=args.spin, **({"intra_op_threads": args.threads} if args.threads else {}))
    torch.set_num_threads(settings.intra_op_threads)
    model = create_model(args.name, **({"pretrained": False} if args.random_init else {})).eval()
    cfg = model.preprocess
    batches = tuple(args.batch or (1, 32))
    photos = preprocessed_photos(photo_paths(args.photos, 2000), cfg) if args.photos else None
    with tempfile.TemporaryDirectory() as tmp:
        files = write_variants(model, Path(tmp), photos)
        engines = {name: Engine(path, providers=["CPUExecutionProvider"], settings=settings) for name, path in files.items()}
    sample = photos if photos is not None else np.stack([cfg.apply(image) for image in parity_images(4)])
    inputs = {b: np.ascontiguousarray(sample[np.arange(b) % len(sample)]) for b in batches}

    def eager(batch: int) -> None:
        with torch.inference_mode():
            model(torch.from_numpy(inputs[batch]))

    runs = {"pytorch eager fp32": eager, **{name: (lambda b, e=e: e.run(inputs[b])) for name, e in engines.items()}}
    speeds = interleaved_speeds(runs, batches, rounds=args.rounds, calls=6)
    agreement = {}
    if photos is not None:
        expected = top1(engines["ort fp32 fused"], photos)
        agreement = {name: float((top1(engine, photos) == expected).mean()) for name, engine in engines.items()}

    print(f"{args.name}, input {cfg.input_size}px; {cpu_description()}; CPU features {', '.join(sorted(cpu_features())) or 'none'}; "
          f"threads {settings.intra_op_threads}, ORT spinning {'on' if args.spin else 'off'}, "
          f"OMP_WAIT_POLICY {os.environ.get('OMP_WAIT_POLICY', 'default')}; {args.rounds} rounds; "
          f"load average {os.getloadavg()[0]:.1f} at the end")
    print("| variant | " + " | ".join(f"b{b} images/s | b{b} x eager | b{b} x ORT fp32 fused" for b in batches) + " | top-1 agreement |")
    print("|---|" + "---|---|---|" * len(batches) + "---|")
    for name, by_batch in speeds.items():
        cells = []
        for b in batches:
            fused = by_batch[b].vs_first / speeds["ort fp32 fused"][b].vs_first  # ratio of medians of per-round ratios
            cells.append(f"{by_batch[b].images_per_s:.1f} | {by_batch[b].vs_first:.2f}x | {fused:.2f}x")
        agree = f"{agreement[name]:.2%}" if name in agreement else "-"
        print(f"| {name} | " + " | ".join(cells) + f" | {agree} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
