"""Checkpoint files: atomic writes, clear errors on bad reads, RNG state capture.

A checkpoint is a torch.save'd dict of plain types (loadable with weights_only=True):
  model       models.checkpoint.model_record of the weights to use (the EMA when --ema),
              so `python -m models export ckpt:PATH` and teacher "ckpt:PATH" work
  classes     class names, in the model's output order
  student     raw student state_dict when "model" holds the EMA (else None)
  ema         EMA state_dict or None
  optimizer   full AdamW state (ZeRO shards consolidated on rank 0)
  scheduler, scaler, config (the resolved TrainConfig as a dict), teacher (spec string)
  epoch, step, epoch_samples (global samples consumed in `epoch`: the mid-epoch position)
  rng         one RNG snapshot per rank; world_size; best_top1; metrics (last validation)
"""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import numpy as np
import torch

from models.checkpoint import read_checkpoint

from distill.errors import DistillError

FORMAT = "foodtag-distill/1"


def save_atomic(obj: dict, path: Path) -> None:
    """Write to a temp file in the same folder, fsync, then os.replace: never a half file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        with open(tmp, "wb") as f:
            torch.save(obj, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def copy_atomic(src: Path, dst: Path) -> None:
    tmp = dst.with_name(f".{dst.name}.tmp-{os.getpid()}")
    try:
        shutil.copyfile(src, tmp)
        os.replace(tmp, dst)
    finally:
        tmp.unlink(missing_ok=True)


def load(path: str | Path, what: str = "checkpoint") -> dict:
    """Read a training checkpoint; missing, truncated or foreign files are one-line errors."""
    ckpt = read_checkpoint(path, what)
    if ckpt.get("format") != FORMAT:
        raise DistillError(f"{what}: {path} is not a distill training checkpoint")
    return ckpt


def rng_state() -> dict:
    np_state = np.random.get_state()
    return {
        "torch": torch.get_rng_state(),
        "cuda": torch.cuda.get_rng_state() if torch.cuda.is_available() and torch.cuda.is_initialized() else None,
        "numpy": [np_state[0], np_state[1].tolist(), *np_state[2:]],
        "python": random.getstate(),
    }


def set_rng_state(state: dict) -> None:
    torch.set_rng_state(state["torch"])
    if state.get("cuda") is not None and torch.cuda.is_available():
        torch.cuda.set_rng_state(state["cuda"])
    kind, keys, *rest = state["numpy"]
    np.random.set_state((kind, np.asarray(keys, dtype=np.uint32), *rest))
    version, internal, gauss = state["python"]
    random.setstate((version, tuple(internal), gauss))
