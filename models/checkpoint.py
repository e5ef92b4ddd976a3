"""A model's record inside a checkpoint, and reading checkpoints safely.

Rebuilding a model from its record needs the registry, so that half lives in
`models.registry` (which imports this module, never the other way round)."""

from __future__ import annotations

from pathlib import Path

import torch
from torch import nn

from models.errors import ModelError


def model_record(model: nn.Module) -> dict:
    """Registry name, constructor kwargs, preprocessing (with labels) and weights."""
    return {
        "name": model.registry_name,
        "kwargs": dict(model.registry_kwargs),
        "preprocess": model.preprocess.to_dict(),
        "state_dict": {k: v.detach().cpu() for k, v in model.state_dict().items()},
    }


def read_checkpoint(path: str | Path, what: str = "checkpoint") -> dict:
    """A torch.save'd checkpoint dict (tensors and plain types only: nothing is executed).

    Missing, truncated or foreign files are one-line errors naming the file.
    """
    path = Path(path)
    if not path.is_file():
        raise ModelError(f"{what}: {path} does not exist")
    try:
        checkpoint = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # truncated zip, garbage bytes, foreign pickle: all unusable
        detail = str(exc).splitlines()[0][:120] if str(exc) else type(exc).__name__
        raise ModelError(f"{what}: {path} is truncated or corrupt ({detail})") from None
    if not isinstance(checkpoint, dict):
        raise ModelError(f"{what}: {path} is not a foodtag checkpoint")
    return checkpoint
