"""Distillation losses. Each is a few lines so the tests can check it against the formula.

Conventions (Hinton et al. 2015; DeiT, Touvron et al. 2021):
  soft KD  = T^2 * KL(softmax(teacher/T) || softmax(student/T)), averaged over the batch
  hard KD  = cross-entropy(student, argmax(teacher))
  total    = alpha * CE(student, labels) + (1 - alpha) * KD
An unlabelled photo (label data.UNLABELLED, trained beside labelled ones) adds 0 to the
cross-entropy's sum but still counts in its batch mean, so each photo weighs the same whatever
its batch-mates: per photo, alpha * CE + (1 - alpha) * KD with labels, (1 - alpha) * KD without.
A DeiT student with a distillation token puts CE on its class head and KD on its
distillation head.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from distill.data import UNLABELLED


def soft_kd(student_logits: torch.Tensor, teacher_logits: torch.Tensor, temperature: float) -> torch.Tensor:
    # T^2 keeps the gradient scale independent of T (the soft gradients shrink as 1/T^2).
    return F.kl_div(
        F.log_softmax(student_logits.float() / temperature, dim=-1),
        F.log_softmax(teacher_logits.float() / temperature, dim=-1),
        reduction="batchmean",
        log_target=True,
    ) * (temperature * temperature)


def hard_kd(student_logits: torch.Tensor, teacher_logits: torch.Tensor) -> torch.Tensor:
    return F.cross_entropy(student_logits.float(), teacher_logits.argmax(dim=-1))


def hard_label_ce(logits: torch.Tensor, targets: torch.Tensor, label_smoothing: float = 0.0) -> torch.Tensor:
    """Cross-entropy with class indices (UNLABELLED rows add 0, see the module doc), or with per-class
    probabilities (after Mixup/CutMix)."""
    if targets.dtype.is_floating_point:
        return torch.sum(-targets * F.log_softmax(logits.float(), dim=-1), dim=-1).mean()
    return F.cross_entropy(logits.float(), targets, ignore_index=UNLABELLED, label_smoothing=label_smoothing,
                           reduction="sum") / len(targets)


def distillation_loss(
    output: torch.Tensor | tuple[torch.Tensor, torch.Tensor],
    targets: torch.Tensor | None,
    teacher_logits: torch.Tensor | None,
    *,
    kind: str = "soft",
    alpha: float = 0.5,
    temperature: float = 1.0,
    label_smoothing: float = 0.0,
) -> dict[str, torch.Tensor]:
    """Total loss and its parts for one batch.

    output: student logits, or (class logits, distillation logits) from a DeiT distilled
    student in training mode. teacher_logits None = supervised; targets None = label-free.
    """
    cls_logits, dist_logits = output if isinstance(output, tuple) else (output, output)
    parts: dict[str, torch.Tensor] = {}
    if teacher_logits is None:
        # Supervised: both heads of a distilled student learn the labels.
        parts["ce"] = hard_label_ce(cls_logits, targets, label_smoothing)
        if dist_logits is not cls_logits:
            parts["ce"] = (parts["ce"] + hard_label_ce(dist_logits, targets, label_smoothing)) / 2
        parts["loss"] = parts["ce"]
        return parts
    if kind == "soft":
        parts["kd"] = soft_kd(dist_logits, teacher_logits, temperature)
    else:
        parts["kd"] = hard_kd(dist_logits, teacher_logits)
    if targets is None or alpha == 0:
        parts["loss"] = parts["kd"]
        return parts
    parts["ce"] = hard_label_ce(cls_logits, targets, label_smoothing)
    parts["loss"] = alpha * parts["ce"] + (1 - alpha) * parts["kd"]
    return parts
