"""AdamW without weight decay on biases and norms, and timm's warmup + cosine schedule."""

from __future__ import annotations

import torch
from timm.optim import param_groups_weight_decay
from timm.scheduler import CosineLRScheduler
from torch import nn

from distill import dist


def make_optimizer(student: nn.Module, lr: float, weight_decay: float, zero: bool) -> torch.optim.Optimizer:
    skip = student.no_weight_decay() if hasattr(student, "no_weight_decay") else ()
    groups = param_groups_weight_decay(student, weight_decay, no_weight_decay_list=skip)
    return dist.make_optimizer(groups, zero, lr=lr, weight_decay=weight_decay)


def make_scheduler(optimizer: torch.optim.Optimizer, total_steps: int, warmup_steps: int, min_lr: float) -> CosineLRScheduler:
    """Per-step schedule: call step_update(step) before each optimizer step."""
    return CosineLRScheduler(
        optimizer, t_initial=total_steps, lr_min=min_lr, warmup_t=warmup_steps,
        warmup_lr_init=min_lr, t_in_epochs=False,
    )
