"""Reduced-precision float variants of an exported model, for GPU providers.

fp16 halves the weights and runs on tensor cores under CUDA; TensorRT builds its own fp16 engine
from the fp32 file (``trt_fp16_enable``), so it needs no separate file. The variant keeps float32
inputs and outputs, so callers and the engine are unchanged. No CPU variant is written: ONNX
Runtime's x86 CPU provider has no fp16 or bf16 GEMM kernels, so such a file would run slower there
than fp32 (``python -m models bench`` shows PyTorch's CPU bf16 only on a CPU with native bf16).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import onnx

from models.errors import ModelError
from models.metadata import read_metadata, set_metadata


def write_fp16(fp32_path: str | Path, out_path: str | Path) -> Path:
    """Write the fp16 variant of an exported fp32 model, metadata kept (precision fp16)."""
    from onnxruntime.transformers.float16 import convert_float_to_float16

    fp32_path, out_path = Path(fp32_path), Path(out_path)
    meta = read_metadata(fp32_path)  # refuses files without metadata
    if meta.get("precision", "fp32") != "fp32":
        raise ModelError(f"{fp32_path}: already {meta['precision']}; convert the fp32 export")
    half = convert_float_to_float16(onnx.load(str(fp32_path)), keep_io_types=True)
    set_metadata(half, {**meta, "source_version": meta["version"], "precision": "fp16"})
    out_path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out_path.parent, prefix=".fp16-") as tmp:
        staged = Path(tmp) / out_path.name
        onnx.save(half, str(staged))
        os.replace(staged, out_path)
    return out_path
