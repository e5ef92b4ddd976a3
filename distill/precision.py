"""Mixed precision: which autocast dtype, and whether a GradScaler is needed (fp16 only)."""

from __future__ import annotations

import contextlib

import torch


def resolve(precision: str, device: torch.device) -> str:
    if precision == "auto":
        return "bf16" if device.type == "cuda" and torch.cuda.is_bf16_supported() else "fp32"
    return precision


def autocast(precision: str, device: torch.device):
    """A fresh autocast context for a resolved precision (nullcontext for fp32)."""
    if precision == "fp32":
        return contextlib.nullcontext()
    return torch.autocast(device.type, dtype=torch.bfloat16 if precision == "bf16" else torch.float16)


def grad_scaler(precision: str, device: torch.device) -> torch.amp.GradScaler:
    # bf16 has fp32's exponent range, so only fp16 gradients need loss scaling.
    return torch.amp.GradScaler(device.type, enabled=precision == "fp16")
