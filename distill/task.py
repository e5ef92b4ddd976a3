"""The distillation task: images and targets in, loss (and parts) out, for one micro-batch.

Like timm's task objects: the student is called through its (DDP) wrapper, the teacher is
a FrozenTeacher outside DDP. A DeiT *_distilled_* student returns (class, distillation)
logits in training mode; the loss routes the teacher to the distillation head.
"""

from __future__ import annotations

import torch
from torch import nn

from distill.config import LossConfig
from distill.losses import distillation_loss
from distill.teacher import FrozenTeacher


def enable_distillation_head(student: nn.Module) -> bool:
    """timm distilled ViTs average their two heads unless told they are being distilled."""
    if hasattr(student, "set_distilled_training"):
        student.set_distilled_training(True)
        return True
    return False


class DistillTask:
    def __init__(self, model: nn.Module, teacher: FrozenTeacher | None, loss: LossConfig,
                 *, labelled: bool, label_smoothing: float):
        self.model, self.teacher, self.loss = model, teacher, loss
        self.labelled, self.label_smoothing = labelled, label_smoothing

    def __call__(self, images: torch.Tensor, targets: torch.Tensor,
                 teacher_logits: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
        """teacher_logits: given (from the teacher-logit cache, or a call the trainer timed), else
        the teacher is called here (None without a teacher: supervised)."""
        if teacher_logits is None and self.teacher is not None:
            teacher_logits = self.teacher(images)
        output = self.model(images)
        parts = distillation_loss(
            output, targets if self.labelled else None, teacher_logits,
            kind=self.loss.kd, alpha=self.loss.alpha, temperature=self.loss.temperature,
            label_smoothing=self.label_smoothing,
        )
        parts["logits"] = output[0] if isinstance(output, tuple) else output
        return parts
