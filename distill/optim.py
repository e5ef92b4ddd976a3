"""AdamW without weight decay on biases and norms (optionally with timm's layer-wise lr decay),
and timm's warmup + cosine schedule (which honours each group's lr_scale)."""

from __future__ import annotations

import torch
from timm.optim import param_groups_layer_decay, param_groups_weight_decay
from timm.scheduler import CosineLRScheduler
from torch import nn

from distill import dist


def make_optimizer(student: nn.Module, lr: float, weight_decay: float, zero: bool,
                   layer_decay: float = 1.0) -> torch.optim.Optimizer:
    """Frozen parameters (requires_grad False) are left out of every group."""
    skip = student.no_weight_decay() if hasattr(student, "no_weight_decay") else ()
    if layer_decay < 1 and hasattr(student, "group_matcher"):
        groups = param_groups_layer_decay(student, weight_decay, no_weight_decay_list=skip, layer_decay=layer_decay)
    else:
        groups = param_groups_weight_decay(student, weight_decay, no_weight_decay_list=skip)
    return dist.make_optimizer(groups, zero, lr=lr, weight_decay=weight_decay)


def make_scheduler(optimizer: torch.optim.Optimizer, total_steps: int, warmup_steps: int, min_lr: float) -> CosineLRScheduler:
    """Per-step schedule: call step_update(step) before each optimizer step."""
    return CosineLRScheduler(
        optimizer, t_initial=total_steps, lr_min=min_lr, warmup_t=warmup_steps,
        warmup_lr_init=min_lr, t_in_epochs=False,
    )
