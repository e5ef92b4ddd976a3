"""ONNX export with the preprocessing contract embedded, and a parity check before writing."""

from __future__ import annotations

import json
import os
import tempfile
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import onnx
import torch
from PIL import Image
from torch import nn

from models.errors import ModelError
from models.fusion import (ORT_DOMAIN, fused_operator_counts, optimize_transformer, transformer_shape,
                           with_exportable_attention, with_static_padding)
from models.embedding import EMBEDDING_OUTPUT, with_embedding
from models.metadata import EXPORT_VERSION, set_metadata

OPSET = 17
# PyTorch and ONNX Runtime fuse and reorder float ops differently; logits of a correct export
# agree to ~1e-5 relative. 1e-3 of the logit range catches real mistakes (wrong weights,
# wrong layout) without flagging float noise.
PARITY_RELATIVE_TOLERANCE = 1e-3


def parity_images(count: int = 4, size: int = 320, seed: int = 0) -> list[Image.Image]:
    """Photo-like test inputs: smooth colour fields with soft blobs, not white noise."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:size, 0:size] / size
    images = []
    for _ in range(count):
        base = rng.uniform(0.2, 0.8, 3)[None, None, :] + 0.3 * (xx[..., None] * rng.uniform(-1, 1, 3) + yy[..., None] * rng.uniform(-1, 1, 3))
        for _ in range(6):
            cx, cy, radius = rng.uniform(0, 1, 2).tolist() + [rng.uniform(0.05, 0.3)]
            blob = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * radius**2))
            base = base + blob[..., None] * rng.uniform(-0.5, 0.5, 3)
        images.append(Image.fromarray((np.clip(base, 0, 1) * 255).astype(np.uint8), "RGB"))
    return images


def export_onnx(model: nn.Module, out_path: str | Path, *, opset: int = OPSET, parity: bool = True, fuse: bool = True) -> Path:
    """Write ``model`` as ONNX (dynamic batch) with its metadata; refuse if ORT disagrees.

    With ``fuse`` (the default), ViT attention exports as ONNX Runtime's fused Attention op and
    the transformer optimizer fuses LayerNorm and GELU (models.fusion); ``fuse=False`` gives the
    plain graph, for comparison. Either way 'same' padding is written as the constant the file's
    image size needs (models.fusion.with_static_padding).
    """
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    model = model.eval().float().cpu()
    cfg = model.preprocess
    dummy = torch.zeros(2, 3, cfg.input_size, cfg.input_size)
    exported, fused_blocks = with_exportable_attention(model) if fuse else (model, 0)
    exported, _ = with_static_padding(exported, cfg.input_size)
    # A second output, the pooled features the classifier reads: personal dishes use it.
    with_vectors = with_embedding(exported, cfg.input_size)
    outputs = ["logits", EMBEDDING_OUTPUT] if with_vectors is not None else ["logits"]
    with tempfile.TemporaryDirectory(dir=out_path.parent, prefix=".export-") as tmp:
        raw_path = Path(tmp) / "model.onnx"
        with torch.no_grad():
            torch.onnx.export(
                with_vectors or exported, (dummy,), str(raw_path), input_names=["images"], output_names=outputs,
                dynamic_axes={"images": {0: "batch"}, **{name: {0: "batch"} for name in outputs}},
                opset_version=opset, dynamo=False, custom_opsets={ORT_DOMAIN: 1} if fused_blocks else None,
            )
        shape = transformer_shape(model) if fuse else None
        if shape is not None:
            proto = optimize_transformer(raw_path, *shape)
        else:
            proto = onnx.load(str(raw_path))
        set_metadata(proto, {
            "model_name": getattr(model, "registry_name", type(model).__name__),
            "labels": json.dumps(cfg.labels),
            "preprocess": cfg.to_json(),
            "exported_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "opset": str(opset),
            "export_version": str(EXPORT_VERSION),
            "precision": "fp32",
            "fused_ops": json.dumps(fused_operator_counts(proto)),
            **({"embedding_output": EMBEDDING_OUTPUT} if with_vectors is not None else {}),
        })
        staged = Path(tmp) / out_path.name
        onnx.save(proto, str(staged))
        # Owner-only like the data folder models are deployed to; share one by copying it.
        staged.chmod(0o600)
        if parity:
            check_parity(model, staged)
        # Atomic: readers (and concurrent first runs) see the old file or the whole new one.
        os.replace(staged, out_path)
    return out_path


def check_parity(model: nn.Module, onnx_path: Path) -> dict:
    """Compare PyTorch and ONNX Runtime on photo-like inputs; raise ModelError on disagreement."""
    from models.engine import Engine

    engine = Engine(onnx_path)
    batch = np.stack([engine.preprocess_image(image) for image in parity_images()])
    with torch.no_grad():
        expected = model(torch.from_numpy(batch)).float().numpy()
    actual = engine.run(batch)
    max_abs = float(np.abs(expected - actual).max())
    scale = max(1.0, float(np.abs(expected).max()))
    top1_agreement = float((expected.argmax(1) == actual.argmax(1)).mean())
    if max_abs > PARITY_RELATIVE_TOLERANCE * scale or top1_agreement < 1.0:
        raise ModelError(
            f"{onnx_path.name}: ONNX Runtime disagrees with PyTorch (max |logit diff| {max_abs:.2e}, "
            f"top-1 agreement {top1_agreement:.0%}); the file was not written"
        )
    return {"max_abs_logit_diff": max_abs, "top1_agreement": top1_agreement}
