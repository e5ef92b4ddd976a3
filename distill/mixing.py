"""Mixup/CutMix through timm, also mixing what the teacher gets with the same weight and box.

timm's Mixup pairs image i with image B-1-i and mixes a whole batch with one weight lam
(the pasted area's share for CutMix). It returns mixed one-hot targets, not lam, so lam is
read from a probe: targets 0 for the first half of the batch and 1 for the second, mixed
by a two-class Mixup, give lam as the first row's class-0 weight. The real labels are then
mixed with timm's `mixup_target`, and cached teacher logits (the teacher saw the unmixed
views) as lam * logits + (1 - lam) * logits of the partner: an approximation of what the
teacher would say about the mixed image (what it costs: docs/experiments.md).

A live teacher with its own, larger rendering of each view (distill.data.TeacherViews) gets
that rendering mixed exactly as the student's: the same pairs, lam and CutMix box, the box
scaled to the teacher's size. The box is read with the same probe, as an extra image channel
mixed along with the student's batch: afterwards the first row's probe channel is the
partner's weight at every pixel (1 - lam everywhere for Mixup, 1 inside CutMix's box, 0
outside), and that map, resized to the teacher's size (nearest), mixes the teacher's batch.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


class BatchMixer:
    def __init__(self, mixup: float, cutmix: float, label_smoothing: float, num_classes: int):
        from timm.data import Mixup

        self.mix = Mixup(mixup_alpha=mixup, cutmix_alpha=cutmix, label_smoothing=0.0, num_classes=2)
        self.label_smoothing, self.num_classes = label_smoothing, num_classes

    def __call__(self, images: torch.Tensor, labels: torch.Tensor, teacher_logits: torch.Tensor | None = None,
                 teacher_images: torch.Tensor | None = None):
        """-> mixed images, mixed soft targets, mixed teacher logits, mixed teacher images (None stays None)."""
        from timm.data.mixup import mixup_target

        probe = (torch.arange(len(images), device=images.device) >= len(images) // 2).long()
        if teacher_images is None:
            images, probe_targets = self.mix(images, probe)
        else:
            channel = probe.to(images.dtype).view(-1, 1, 1, 1).expand(-1, 1, *images.shape[-2:])
            mixed, probe_targets = self.mix(torch.cat([images, channel], dim=1), probe)
            images, partner_weight = mixed[:, :-1].contiguous(), mixed[:1, -1:]
            partner_weight = F.interpolate(partner_weight, size=teacher_images.shape[-2:], mode="nearest")
            teacher_images = torch.lerp(teacher_images, teacher_images.flip(0), partner_weight)
        lam = float(probe_targets[0, 0])
        targets = mixup_target(labels, self.num_classes, lam, self.label_smoothing)
        if teacher_logits is not None:
            teacher_logits = lam * teacher_logits + (1 - lam) * teacher_logits.flip(0)
        return images, targets, teacher_logits, teacher_images
