"""Mixup/CutMix through timm, also mixing cached teacher logits with the same weight.

timm's Mixup pairs image i with image B-1-i and mixes a whole batch with one weight lam
(the pasted area's share for CutMix). It returns mixed one-hot targets, not lam, so lam is
read from a probe: targets 0 for the first half of the batch and 1 for the second, mixed
by a two-class Mixup, give lam as the first row's class-0 weight. The real labels are then
mixed with timm's `mixup_target`, and cached teacher logits (the teacher saw the unmixed
views) as lam * logits + (1 - lam) * logits of the partner: an approximation of what the
teacher would say about the mixed image (see the README for what it costs).
"""

from __future__ import annotations

import torch


class BatchMixer:
    def __init__(self, mixup: float, cutmix: float, label_smoothing: float, num_classes: int):
        from timm.data import Mixup

        self.mix = Mixup(mixup_alpha=mixup, cutmix_alpha=cutmix, label_smoothing=0.0, num_classes=2)
        self.label_smoothing, self.num_classes = label_smoothing, num_classes

    def __call__(self, images: torch.Tensor, labels: torch.Tensor, teacher_logits: torch.Tensor | None = None):
        """-> mixed images, mixed soft targets, mixed teacher logits (None stays None)."""
        from timm.data.mixup import mixup_target

        probe = (torch.arange(len(images), device=images.device) >= len(images) // 2).long()
        images, probe_targets = self.mix(images, probe)
        lam = float(probe_targets[0, 0])
        targets = mixup_target(labels, self.num_classes, lam, self.label_smoothing)
        if teacher_logits is not None:
            teacher_logits = lam * teacher_logits + (1 - lam) * teacher_logits.flip(0)
        return images, targets, teacher_logits
