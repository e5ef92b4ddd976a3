"""The metadata an exported ONNX file carries: labels, preprocessing, model name, version.

Kept apart from export so that inference (engine, app, batch) never imports torch.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import onnx

from models.errors import ModelError

META_PREFIX = "foodtag."
REQUIRED_KEYS = ("preprocess", "labels", "model_name", "version")
# Raised when an export of the same weights gets faster or better: files of an older version
# (absent: 1) are re-exported where the project makes them itself (models.default).
# 2: 'same' padding written as constants (models.fusion.with_static_padding), which ONNX Runtime folds.
# 3: ViTs keep the residual add apart from its LayerNorm (models.fusion.optimize_transformer).
# 4: a second output, the image embedding, named by the ``embedding_output`` key (models.embedding).
EXPORT_VERSION = 4


def read_metadata(path: Path) -> dict[str, str]:
    """The ``foodtag.*`` metadata of an ONNX file, without the prefix."""
    try:
        proto = onnx.load(str(path), load_external_data=False)
    except Exception as exc:
        raise ModelError(f"{path}: not a readable ONNX file ({type(exc).__name__})") from None
    meta = {p.key[len(META_PREFIX):]: p.value for p in proto.metadata_props if p.key.startswith(META_PREFIX)}
    missing = [key for key in REQUIRED_KEYS if key not in meta]
    if missing:
        raise ModelError(
            f"{path}: ONNX file has no foodtag metadata ({', '.join(missing)} missing); "
            "re-export it with `python -m models export`"
        )
    return meta


def set_metadata(proto: onnx.ModelProto, values: dict[str, str]) -> onnx.ModelProto:
    """Replace the file's metadata with ``values`` plus ``version``, a hash of the graph.

    The hash covers weights and graph, not the metadata, so the same model exported twice gets
    the same version, and any variant (fused, int8, fp16) gets its own.
    """
    del proto.metadata_props[:]
    values = {**values, "version": hashlib.sha256(proto.SerializeToString()).hexdigest()[:12]}
    for key, value in values.items():
        proto.metadata_props.add(key=META_PREFIX + key, value=value)
    return proto
