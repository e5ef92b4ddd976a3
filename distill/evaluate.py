"""Evaluation: top-1/top-5, per-class accuracy, teacher-student agreement, across processes.

Used at every epoch end by the trainer and by `python -m distill eval`. Each process
evaluates its shard (no padding), and the counts are summed, so the numbers are exact
for any number of processes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch
from torch import nn

from distill import checkpoint, data, dist
from distill.config import EvalConfig
from distill.errors import DistillError
from distill.precision import autocast, resolve
from distill.teacher import FrozenTeacher, load_teacher_model


@torch.inference_mode()
def evaluate(model: nn.Module, loader, classes: list[str], *, device: torch.device, precision: str = "fp32",
             teacher: FrozenTeacher | None = None, channels_last: bool = False) -> dict:
    was_training = model.training
    model.eval()
    n = len(classes)
    k = min(5, n)
    # [top1, top5, labelled, agree, seen, skipped] then per-class correct and totals
    counts = torch.zeros(6 + 2 * n, dtype=torch.float64, device=device)
    for images, labels, skipped in loader:
        # data.EvalViews gives the teacher its own rendering of each photo.
        images, teacher_images = images if isinstance(images, (list, tuple)) else (images, images)
        images = images.to(device, non_blocking=True)
        teacher_images = teacher_images.to(device, non_blocking=True)
        if channels_last:
            images = images.contiguous(memory_format=torch.channels_last)
        labels = labels.to(device, non_blocking=True)
        with autocast(precision, device):
            logits = model(images)
            if isinstance(logits, tuple):  # a distilled ViT in eval mode averages its heads already
                logits = (logits[0] + logits[1]) / 2
            teacher_top = teacher(teacher_images).argmax(1) if teacher is not None else None
        top = logits.float().topk(k, dim=1).indices
        mask = labels >= 0
        if mask.any():
            hit1 = top[:, 0] == labels
            counts[0] += hit1[mask].sum()
            counts[1] += (top == labels[:, None]).any(1)[mask].sum()
            counts[2] += mask.sum()
            counts[6:6 + n] += torch.bincount(labels[mask & hit1], minlength=n)[:n]
            counts[6 + n:] += torch.bincount(labels[mask], minlength=n)[:n]
        if teacher_top is not None:
            counts[3] += (teacher_top == top[:, 0]).sum()
        counts[4] += len(images)
        counts[5] += skipped.sum()
    counts = dist.all_reduce_sum(counts).tolist()
    model.train(was_training)
    top1, top5, labelled, agree, seen, skipped = counts[:6]
    metrics = {"images": int(seen), "labelled": int(labelled), "skipped_images": int(skipped)}
    if labelled:
        metrics.update(top1=top1 / labelled, top5=top5 / labelled)
        metrics["per_class"] = {
            name: counts[6 + i] / counts[6 + n + i] for i, name in enumerate(classes) if counts[6 + n + i]
        }
        metrics["per_class_images"] = {name: int(counts[6 + n + i]) for i, name in enumerate(classes) if counts[6 + n + i]}
    if teacher is not None and seen:
        metrics["agreement"] = agree / seen
    return metrics


def summary(metrics: dict) -> str:
    """One line for logs: top-1, top-5, agreement."""
    parts = []
    if "top1" in metrics:
        parts += [f"top-1 {metrics['top1']:.2%}", f"top-5 {metrics['top5']:.2%}"]
    if "agreement" in metrics:
        parts.append(f"teacher agreement {metrics['agreement']:.2%}")
    if metrics.get("skipped_images"):
        parts.append(f"{metrics['skipped_images']} unreadable images skipped")
    return ", ".join(parts) + f" ({metrics['images']} images)"


def report(metrics: dict) -> str:
    lines = [summary(metrics)]
    if metrics.get("per_class"):
        lines.append("per-class top-1:")
        width = max(len(name) for name in metrics["per_class"])
        for name, accuracy in metrics["per_class"].items():
            lines.append(f"  {name:<{width}}  {accuracy:7.2%}  ({metrics['per_class_images'][name]} images)")
    return "\n".join(lines)


def run(cfg: EvalConfig) -> dict:
    """`python -m distill eval`: load a checkpoint, evaluate it on --data, print the report."""
    from models.registry import model_from_record

    env = dist.env()
    ckpt = checkpoint.load(cfg.checkpoint)
    try:
        model = model_from_record(ckpt["model"])
    except (KeyError, RuntimeError, TypeError) as exc:
        raise DistillError(f"checkpoint: {cfg.checkpoint} does not match its model ({str(exc).splitlines()[0]})") from None
    classes = list(ckpt["classes"])
    train_cfg = ckpt.get("config") or {}
    seed = train_cfg.get("run", {}).get("seed", 0)
    trained_on = train_cfg.get("data", {})
    source = data.open_source(cfg.data, "val", cfg.synthetic_classes or trained_on.get("synthetic_classes", 4),
                              cfg.synthetic_images or trained_on.get("synthetic_images", 256))
    if source is None:
        raise DistillError(f"data: {cfg.data} has a train/ folder but no val/ or test/ folder to evaluate")
    source = data.remap(source, classes, cfg.data)
    spec = cfg.teacher or ckpt.get("teacher") or "none"
    try:
        teacher_model = load_teacher_model(spec)
    except DistillError as exc:
        if cfg.teacher:
            raise
        raise DistillError(f"{exc} (the teacher recorded in the checkpoint; --teacher none skips agreement)") from None
    teacher = None
    if teacher_model is not None:
        teacher = FrozenTeacher(teacher_model, spec, model.preprocess, classes, cfg.teacher_resize)
    if source.classes is None and teacher is None:
        raise DistillError(f"data: {source.description} has no labels: give --teacher to measure agreement")
    model = model.to(env.device)
    if teacher is not None:
        teacher = teacher.to(env.device)
    dataset = data.make_dataset(source, data.eval_transform(model.preprocess, teacher), seed)
    loader = data.make_loader(dataset, data.ShardSampler(len(dataset), env.rank, env.world_size),
                              cfg.batch_size, data.resolve_workers(cfg.num_workers, env.world_size),
                              env.device.type == "cuda")
    metrics = evaluate(model, loader, classes, device=env.device, precision=resolve(cfg.precision, env.device),
                       teacher=teacher)
    if dist.is_main():
        print(f"checkpoint {cfg.checkpoint}: {ckpt['model']['name']}, {len(classes)} classes, "
              f"step {ckpt.get('step')}; data {source.description}" + (f"; teacher {spec}" if teacher is not None else ""))
        print(report(metrics))
        if cfg.json:
            Path(cfg.json).write_text(json.dumps(metrics, indent=2))
        sys.stdout.flush()
    return metrics
