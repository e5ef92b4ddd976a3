"""A model's record inside a checkpoint: enough to rebuild it without the training code."""

from __future__ import annotations

from pathlib import Path

import torch
from torch import nn

from models.errors import ModelError
from models.preprocess import PreprocessConfig


def model_record(model: nn.Module) -> dict:
    """Registry name, constructor kwargs, preprocessing (with labels) and weights."""
    return {
        "name": model.registry_name,
        "kwargs": dict(model.registry_kwargs),
        "preprocess": model.preprocess.to_dict(),
        "state_dict": {k: v.detach().cpu() for k, v in model.state_dict().items()},
    }


def model_from_record(record: dict) -> nn.Module:
    from models.registry import create_model

    preprocess = PreprocessConfig.from_dict(record["preprocess"])
    model = create_model(record["name"], labels=preprocess.labels, pretrained=False, **record["kwargs"])
    model.load_state_dict(record["state_dict"])
    model.preprocess = preprocess
    return model.eval()


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


def load_checkpoint_model(path: str | Path, labels: list[str] | None = None) -> nn.Module:
    """The model stored under the ``model`` key of a training checkpoint."""
    checkpoint = read_checkpoint(path)
    if "model" not in checkpoint:
        raise ModelError(f"checkpoint: {path} is not a foodtag checkpoint (no 'model' record)")
    try:
        model = model_from_record(checkpoint["model"])
    except (KeyError, RuntimeError, TypeError) as exc:
        raise ModelError(f"checkpoint: {path} does not match its model ({exc})") from None
    if labels is not None and list(labels) != model.preprocess.labels:
        raise ModelError(f"checkpoint: {path} has other labels than the requested ones")
    return model
