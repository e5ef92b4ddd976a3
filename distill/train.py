"""The training loop. `Trainer.__init__` builds everything (and restores a checkpoint),
`fit` runs epochs, `train_step` is one optimizer step, `save` writes last.pt / best.pt.

Every check that can fail on user input runs before the run folder is touched, so a bad
--data, --teacher or --resume leaves existing files as they were.
"""

from __future__ import annotations

import dataclasses
import os
import random
import sys
import time
from datetime import datetime
from pathlib import Path

import numpy as np
import torch

from distill import checkpoint, config, data, dist, precision
from distill.config import TrainConfig
from distill.errors import DistillError, LostPeerError
from distill.evaluate import evaluate, summary
from distill.logbook import Logbook
from distill.mixing import BatchMixer
from distill.optim import make_optimizer, make_scheduler
from distill.profiling import StepProfiler, memory_record
from distill.task import DistillTask, enable_distillation_head
from distill.teacher import FrozenTeacher, absolute_spec, load_teacher_model
from distill.timing import StepTimer


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


class Trainer:
    def __init__(self, cfg: TrainConfig, resume: dict | None = None):
        self.cfg, env = cfg, dist.env()
        self.device, self.rank, self.world = env.device, env.rank, env.world_size
        self.precision = precision.resolve(cfg.run.precision, self.device)
        self.notes: list[str] = []
        if self.precision == "bf16" and not precision.native_bf16(self.device):
            self.notes.append(f"--precision bf16 is emulated on this device ({precision.capability(self.device)}) "
                              "and much slower than fp32: use --precision auto")
        if cfg.run.deterministic:
            os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # cuBLAS needs it to be deterministic
            torch.use_deterministic_algorithms(True)
            torch.backends.cudnn.benchmark = False
        seed_everything(cfg.run.seed)  # same on every rank: identical initial weights
        self._build_models(resume)
        self._build_data()
        self._build_optimization(resume)
        self._check_same_start()
        # only now touch the file system: every bad input has been rejected above
        self._build_outputs(resume)
        self._build_caches()

    # --- building -------------------------------------------------------------------------------

    def _build_models(self, resume: dict | None) -> None:
        """Training source, class list (the teacher's labels for unlabelled photos), student, teacher."""
        cfg, d = self.cfg, self.cfg.data
        self.train_source = data.open_source(d.data, "train", d.synthetic_classes, d.synthetic_images)
        data.check_training_source(self.train_source)
        if d.unlabelled_data:  # labels -1: the teacher's soft labels are their only target (losses.py)
            self.train_source = data.with_unlabelled(self.train_source, data.open_unlabelled(d.unlabelled_data))
        self.train_source = data.repeated(self.train_source, d.repeats)
        self.labelled = self.train_source.classes is not None
        if not self.labelled and cfg.supervised:
            raise DistillError(f"data: {self.train_source.description} has no labels; "
                               "label-free training needs a --teacher")
        if not self.labelled and cfg.loss.alpha > 0:
            raise DistillError(f"data: {self.train_source.description} has no labels: "
                               "use --alpha 0 (label-free distillation)")
        teacher_model = load_teacher_model(cfg.model.teacher)
        self.classes = self.train_source.classes or teacher_model.preprocess.labels
        if resume is not None and list(resume["classes"]) != self.classes:
            raise DistillError(f"resume: the checkpoint's {len(resume['classes'])} classes differ from "
                               f"the data's {len(self.classes)}")
        self.student = self._build_student(resume)
        enable_distillation_head(self.student)
        if cfg.run.precision == "auto" and self.precision == "bf16" and self.device.type == "cpu":
            # Every rank trains in rank 0's choice: their timings may differ.
            self.precision, rates = dist.broadcast_object(precision.faster_on_cpu(
                self.student, self.student.preprocess.input_size, cfg.run.channels_last,
                batch=min(cfg.data.batch_size, 32)))
            self.notes.append(f"--precision auto: {self.precision}, timed here ("
                              + ", ".join(f"{k} {v:.0f} images/s" for k, v in rates.items()) + ")")
        self.teacher = None
        if teacher_model is not None:
            self.teacher = FrozenTeacher(teacher_model, cfg.model.teacher, self.student.preprocess, self.classes,
                                         cfg.model.teacher_resize).to(self.device)
            if cfg.run.channels_last:
                self.teacher.to(memory_format=torch.channels_last)
            self._place_teacher(cfg.model.teacher_runtime)

    def _place_teacher(self, runtime: str) -> None:
        """Run the teacher on ONNX Runtime where asked, or (auto) on CPU; auto falls back to
        PyTorch with a note when the teacher cannot be exported."""
        if runtime == "torch" or (runtime == "auto" and self.device.type != "cpu"):
            return
        if self.device.type != "cpu":
            raise DistillError(f"--teacher-runtime onnxruntime runs the teacher on CPU; this run is on {self.device}")
        try:
            self.teacher.run_on_onnxruntime(threads=torch.get_num_threads())
        except DistillError as exc:
            if runtime == "onnxruntime":
                raise
            self.notes.append(f"{exc}; the teacher runs on PyTorch")

    def _build_data(self) -> None:
        """Datasets, loader workers and the step arithmetic: one optimizer step's global batch must fit
        in an epoch."""
        cfg, d = self.cfg, self.cfg.data
        self.val_source = self._val_source()
        self.step_samples = d.batch_size * self.world * cfg.optim.accum_steps
        self.num_workers = self.train_workers = data.resolve_workers(d.num_workers, self.world)
        c = cfg.cache
        if d.num_workers == "auto" and self.device.type == "cpu" and c.logit_cache and c.logit_pixels and d.augment:
            # a batch of stored renderings is one gather and one normalisation (a few ms); workers
            # would take the cores the step computes on (food10: student forward 44 -> 25 ms without)
            self.train_workers = 0
            self.notes.append("training batches are read in the training process (--num-workers auto with "
                              "--logit-pixels on a CPU); caches and validation use "
                              f"{self.num_workers} loader workers")
        transform = data.train_transform(self.student.preprocess, d.augment, d.rand_augment, d.scale_min, d.re_prob)
        self.train_set = data.make_dataset(self.train_source, transform, cfg.run.seed)
        self.steps_per_epoch = len(self.train_set) // self.step_samples
        if self.steps_per_epoch == 0:
            raise DistillError(f"data: {self.train_source.description} has fewer images than one optimizer "
                               f"step needs ({self.step_samples} = batch_size x processes x accum_steps)")
        self.total_steps = cfg.optim.max_steps or cfg.optim.epochs * self.steps_per_epoch
        self.val_loader = None
        if self.val_source is not None:
            val_set = data.make_dataset(self.val_source, data.eval_transform(self.student.preprocess, self.teacher),
                                        cfg.run.seed)
            self.val_loader = data.make_loader(val_set, data.ShardSampler(len(val_set), self.rank, self.world),
                                               d.batch_size, self.num_workers, self.device.type == "cuda")

    def _build_caches(self) -> None:
        """--image-cache and --logit-cache: open them, building what is missing (all ranks together).
        Then the training set's 4th item: cached teacher logits, or, for a live teacher larger than
        the student, each view rendered at the teacher's size too (data.TeacherViews)."""
        c, log = self.cfg.cache, self.book.message
        teacher_size = data.teacher_view_size(self.teacher, self.train_set.transform)
        if c.image_cache:
            from distill.image_cache import build_image_cache

            size = self.student.preprocess.resize_size
            if teacher_size:  # stored sharp enough for the teacher's renderings
                size = max(size, self.teacher.model.preprocess.resize_size)
            self.train_set.store = build_image_cache(self.train_set, c.image_cache, size, workers=self.num_workers,
                                                     log=log)
        if c.logit_cache:
            from distill.logit_cache import ReplayDataset, build_logit_cache

            cache = build_logit_cache(self.teacher, self.train_set, c.logit_cache, views=c.logit_views,
                                      topk=c.logit_topk, pixels=c.logit_pixels, batch_size=self.cfg.data.batch_size,
                                      num_workers=self.num_workers, precision=self.precision, device=self.device, log=log)
            self.train_set = ReplayDataset(self.train_set, cache)
            if self.cfg.mixing:
                log("note: with cached logits, Mixup/CutMix mixes the teacher's outputs for the unmixed views, "
                    "not what it says about the mixed image; on food10 the cpu preset's student scored "
                    "2.7 points higher with --mixup 0 --cutmix 0")
        elif teacher_size:
            self.train_set = data.TeacherViews(self.train_set, teacher_size)

    def _build_optimization(self, resume: dict | None) -> None:
        """Placement, EMA, compile, DDP, AdamW + schedule, scaler, Mixup, the task; then restore."""
        cfg, d, o = self.cfg, self.cfg.data, self.cfg.optim
        self.student.to(self.device)
        if cfg.run.channels_last:
            self.student.to(memory_format=torch.channels_last)
        if precision.plain_kernels_are_faster(self.precision, self.device):
            switched = {kind: n for kind, n in precision.use_plain_kernels(self.student).items() if n}
            if switched:
                self.notes.append(f"{' and '.join(switched)} on plain matmuls (faster than the fused kernels "
                                  "under bf16 on a CPU)")
        self.ema = None
        if o.ema:
            from timm.utils import ModelEmaV3

            # warmup: the decay ramps up to ema_decay, so short runs do not average in the init
            self.ema = ModelEmaV3(self.student, decay=o.ema_decay, use_warmup=True)
        # checkpoints, EMA and evaluation use the plain student; the step uses the wrapped one
        self.model = dist.wrap(torch.compile(self.student) if cfg.run.compile else self.student)
        self.optimizer = make_optimizer(self.student, o.lr, o.weight_decay, o.zero, o.layer_decay)
        self.scheduler = make_scheduler(self.optimizer, self.total_steps, min(o.warmup_steps, self.total_steps // 10), o.min_lr)
        self.scaler = precision.grad_scaler(self.precision, self.device)
        self.mixup = BatchMixer(d.mixup, d.cutmix, d.label_smoothing, len(self.classes)) if cfg.mixing else None
        self.task = DistillTask(self.model, self.teacher, cfg.loss, labelled=self.labelled,
                                label_smoothing=0.0 if self.mixup else d.label_smoothing)
        self.epoch = self.step = self.epoch_samples = 0
        self.best_top1, self.last_metrics, self.stale_validations = -1.0, {}, 0
        if resume is not None:
            self._restore(resume)
        else:  # training randomness (dropout, drop-path) differs per rank, like nanoGPT's seed offset
            seed_everything(cfg.run.seed + 1 + self.rank)

    def _build_outputs(self, resume: dict | None) -> None:
        cfg, main = self.cfg, dist.is_main()
        self.out = self._run_folder(resume)
        self.log_dir = Path(cfg.run.log_dir) if cfg.run.log_dir else self.out
        self.book = Logbook(self.log_dir if main else None, total_steps=self.total_steps, step=self.step,
                            progress=cfg.run.progress, tensorboard=cfg.run.tensorboard)
        self.profiler = StepProfiler(cfg.run.profile_steps, self.log_dir if main else None, self.device)
        self.timer = StepTimer(self.device)
        self._bar_step = self.step
        params = sum(p.numel() for p in self.student.parameters()) / 1e6
        self.book.message(
            f"{self.train_source.description}; val: {self.val_source.description if self.val_source else 'none'}\n"
            f"student {self.student.registry_name} ({params:.2f}M params, {self.student.preprocess.input_size}px), "
            f"teacher {cfg.model.teacher}" + (f" (on {self.teacher.runtime})" if self.teacher else "")
            + f", {self.world} process(es) on {self.device}, {self.precision} "
            f"({precision.capability(self.device)}), {self.train_workers} loader workers, "
            f"{self.steps_per_epoch} steps/epoch x {self.step_samples} images, {self.total_steps} steps; "
            f"run folder {self.out}")
        for note in self.notes:
            self.book.message(note)

    def _build_student(self, resume: dict | None) -> torch.nn.Module:
        from models.preprocess import PreprocessConfig
        from models.registry import create_model

        m = self.cfg.model
        model = create_model(m.model, labels=self.classes, pretrained=m.pretrained and resume is None, **m.model_kwargs)
        if resume is not None:
            model.load_state_dict(resume["student"] or resume["model"]["state_dict"])
            model.preprocess = PreprocessConfig.from_dict(resume["model"]["preprocess"])
        expected = getattr(getattr(model, "patch_embed", None), "img_size", None)
        size = self.cfg.data.img_size
        if resume is None and size:
            model.preprocess = dataclasses.replace(model.preprocess, input_size=size)
        if m.freeze_body:
            freeze_body(model)
        if expected is not None and tuple(expected) != (model.preprocess.input_size,) * 2:
            raise DistillError(f"config: student {m.model} is built for {tuple(expected)} inputs but img_size is "
                               f"{model.preprocess.input_size}: also pass --model-kwargs '{{img_size: "
                               f"{model.preprocess.input_size}}}'")
        return model

    def _val_source(self) -> data.Source | None:
        d = self.cfg.data
        if d.val_data.lower() == "none":
            return None
        spec = d.val_data or d.data
        source = data.open_source(spec, "val", d.synthetic_classes, d.synthetic_images) if (
            d.val_data or data.has_val_split(spec)) else None
        if source is None:
            self.notes.append("no validation data (pass --val-data): best.pt is not written")
            return None
        if source.classes is None and self.teacher is None:
            raise DistillError(f"data: validation data {source.description} has no labels and there is no teacher")
        return data.remap(source, self.classes, "validation data")

    def _run_folder(self, resume: dict | None) -> Path:
        if self.cfg.run.out:
            out = Path(self.cfg.run.out)
        elif resume is not None:
            out = Path(self.cfg.run.resume).resolve().parent
        else:  # rank 0's clock names the folder for everyone
            out = Path(dist.broadcast_object(f"runs/distill-{datetime.now():%Y%m%d-%H%M%S}"))
        if resume is None and (out / "last.pt").exists():
            raise DistillError(f"run folder {out} already holds last.pt: continue it with --resume auto "
                               f"(or --resume {out / 'last.pt'}) or choose another --out")
        self.cfg.run.out = str(out)  # recorded in config.yaml and checkpoints
        if dist.is_main():
            out.mkdir(parents=True, exist_ok=True)
            config.save_yaml(self.cfg, out / "config.yaml")
        return out

    def _check_same_start(self) -> None:
        """A node that cannot see the run folder's last.pt would start over while the others resume."""
        starts = dist.all_gather_object(self.step)
        if len(set(starts)) > 1:
            raise DistillError(f"resume: the processes would start from different steps {starts}: every node "
                               "must see the same run folder (put --out on shared storage)")

    def _restore(self, ckpt: dict) -> None:
        self.optimizer.load_state_dict(ckpt["optimizer"])
        self.scheduler.load_state_dict(ckpt["scheduler"])
        self.scaler.load_state_dict(ckpt["scaler"])
        if self.ema is not None:
            if ckpt["ema"] is None:
                raise DistillError("resume: the checkpoint has no EMA weights (it was trained without --ema)")
            self.ema.load_state_dict(ckpt["ema"])
        self.epoch, self.step, self.epoch_samples = ckpt["epoch"], ckpt["step"], ckpt["epoch_samples"]
        self.best_top1, self.last_metrics = ckpt["best_top1"], ckpt["metrics"]
        self.stale_validations = ckpt.get("stale_validations", 0)
        self.notes.append(f"continuing from {self.cfg.run.resume} at step {self.step}")
        if ckpt["world_size"] == self.world:
            checkpoint.set_rng_state(ckpt["rng"][self.rank])
        else:
            seed_everything(self.cfg.run.seed + 1 + self.rank + self.step)
            self.notes.append(f"resumed on {self.world} processes (was {ckpt['world_size']}): dropout RNG re-seeded")

    # --- the loop -------------------------------------------------------------------------------

    def train_loader(self):
        sampler = data.EpochSampler(len(self.train_set), step_samples=self.step_samples, seed=self.cfg.run.seed,
                                    epoch=self.epoch, skip=self.epoch_samples, rank=self.rank, world_size=self.world)
        self.train_set.epoch = self.epoch  # seeds this epoch's augmentation
        return data.make_loader(self.train_set, sampler, self.cfg.data.batch_size, self.train_workers,
                                self.device.type == "cuda")

    def fit(self) -> dict:
        epoch_samples = self.steps_per_epoch * self.step_samples
        stats = torch.zeros(3, device=self.device)  # loss sum, steps, skipped images since the last log
        tick, tick_step = time.perf_counter(), self.step
        self.timer.restart()
        while self.step < self.total_steps and not self.stopped_early:
            batches = iter(self.train_loader())
            while self.epoch_samples < epoch_samples and self.step < self.total_steps:
                self.scheduler.step_update(self.step)
                stats += self.train_step([next(batches) for _ in range(self.cfg.optim.accum_steps)])
                self.step += 1
                self.epoch_samples += self.step_samples
                self.profiler.step()
                if self.step % self.cfg.run.log_every == 0 or self.step == self.total_steps:
                    self.log_training(stats, (self.step - tick_step) * self.step_samples / (time.perf_counter() - tick))
                    stats.zero_()
                    tick, tick_step = time.perf_counter(), self.step
                if self.step % self.cfg.run.save_every == 0 and self.epoch_samples < epoch_samples and self.step < self.total_steps:
                    self.save()  # mid-epoch; end_of_epoch saves at the end of each epoch and of the run
                    self.timer.restart()
            if self.epoch_samples >= epoch_samples:
                self.epoch, self.epoch_samples = self.epoch + 1, 0
            self.end_of_epoch()
            self.timer.restart()
        return self.last_metrics

    def log_training(self, stats: torch.Tensor, images_per_s: float) -> None:
        self.timer.restart()  # (what ran since the optimizer step, e.g. a profiler export, is no phase)
        # .tolist() after the all-reduce is a CPU-GPU sync point: only every log_every steps
        loss_sum, steps, skipped = dist.all_reduce_sum(stats).tolist()
        self.timer.mark("comm")
        record = {"step": self.step, "epoch": self.epoch + self.epoch_samples / (self.steps_per_epoch * self.step_samples),
                  "train/loss": loss_sum / steps, "train/lr": self.optimizer.param_groups[0]["lr"],
                  "train/images_per_s": images_per_s, "train/skipped_images": int(skipped), **self.timer.record(),
                  **memory_record(self.device)}
        self.book.log(record)
        self.book.advance(self.step - self._bar_step, loss=f"{record['train/loss']:.4f}", img_s=f"{images_per_s:.0f}",
                          data=f"{record['time/data_share']:.0%}")
        self._bar_step = self.step
        self.timer.restart()  # the logging itself is not a training phase

    def train_step(self, batches: list) -> torch.Tensor:
        """One optimizer step over accum_steps micro-batches. Returns [loss, 1, skipped] (no sync).
        timer.mark(section) closes each phase (see distill.timing)."""
        stats = torch.zeros(3, device=self.device)
        for i, batch in enumerate(batches):
            images, targets, teacher_logits, teacher_images, skipped = self._prepare(batch, i)
            self.timer.mark("data")
            with dist.grad_sync(self.model, enabled=i == len(batches) - 1):
                with precision.autocast(self.precision, self.device):
                    if teacher_logits is None and self.teacher is not None:
                        teacher_logits = self.teacher(images if teacher_images is None else teacher_images)
                    self.timer.mark("teacher")
                    loss = self.task(images, targets, teacher_logits)["loss"] / len(batches)
                self.timer.mark("student")
                self.scaler.scale(loss).backward()
            self.timer.mark("backward")
            stats[0] += loss.detach()
            stats[2] += skipped.sum()
        if self.cfg.optim.clip_grad > 0:
            self.scaler.unscale_(self.optimizer)
            torch.nn.utils.clip_grad_norm_(self.student.parameters(), self.cfg.optim.clip_grad)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.optimizer.zero_grad(set_to_none=True)
        if self.ema is not None:
            self.ema.update(self.student, step=self.step)
        self.timer.mark("optimizer")
        self.timer.end_step()
        stats[1] = 1
        return stats

    def _prepare(self, batch: list, micro_step: int):
        """A loader batch on the device: images, targets, cached teacher logits (or None), the teacher's
        own rendering of the images (or None), skipped."""
        images, labels, skipped, *for_teacher = batch
        images = images.to(self.device, non_blocking=True)
        # unlabelled photos carry -1 (data.UNLABELLED): the cross-entropy skips them. A source without any
        # labels gets zeros instead, since Mixup needs valid indices (its loss has no cross-entropy).
        targets = labels.to(self.device, non_blocking=True) if self.labelled else torch.zeros_like(labels, device=self.device)
        for_teacher = for_teacher[0].to(self.device, non_blocking=True) if for_teacher else None
        rendered = isinstance(self.train_set, data.TeacherViews)
        teacher_logits, teacher_images = (None, for_teacher) if rendered else (for_teacher, None)
        if self.mixup is not None:  # timm's Mixup draws from numpy: seed it per step and rank
            with data.seeded(data.sample_seed(self.cfg.run.seed, self.step, micro_step * self.world + self.rank)):
                images, targets, teacher_logits, teacher_images = self.mixup(images, targets, teacher_logits,
                                                                             teacher_images)
        if self.cfg.run.channels_last:
            images = images.contiguous(memory_format=torch.channels_last)
            if teacher_images is not None:
                teacher_images = teacher_images.contiguous(memory_format=torch.channels_last)
        return images, targets, teacher_logits, teacher_images, skipped

    @property
    def deployed(self) -> torch.nn.Module:
        """The weights evaluated and saved as the model: the EMA when there is one."""
        return self.ema.module if self.ema is not None else self.student

    def end_of_epoch(self) -> None:
        best = False
        if self.val_loader is not None:
            metrics = evaluate(self.deployed, self.val_loader, self.classes, device=self.device,
                               precision=self.precision, teacher=self.teacher, channels_last=self.cfg.run.channels_last)
            self.last_metrics = metrics
            self.book.log({"step": self.step, "epoch": self.epoch,
                           **{f"val/{k}": v for k, v in metrics.items() if isinstance(v, (int, float))}})
            epoch = self.epoch + self.epoch_samples / (self.steps_per_epoch * self.step_samples)
            self.book.message(f"epoch {round(epoch, 2):g} step {self.step}: val {summary(metrics)}")
            top1 = metrics.get("top1", metrics.get("agreement", 0.0))
            if top1 > self.best_top1:
                self.best_top1, best, self.stale_validations = top1, True, 0
            else:
                self.stale_validations += 1
            if self.stopped_early:
                self.book.message(f"early stop: no better validation top-1 for {self.stale_validations} epochs")
        self.save(best=best)

    @property
    def stopped_early(self) -> bool:
        """Patience ran out with steps still to go (running out at the last step stops nothing)."""
        return 0 < self.cfg.optim.patience <= self.stale_validations and self.step < self.total_steps

    def save(self, best: bool = False) -> None:
        """Write last.pt (and best.pt). Collective: every rank takes part in gathering state."""
        from models.checkpoint import model_record

        optimizer = dist.optimizer_state(self.optimizer)
        rng = dist.all_gather_object(checkpoint.rng_state())
        if not dist.is_main():
            return
        ckpt = {
            "format": checkpoint.FORMAT,
            "model": model_record(self.deployed),
            "classes": list(self.classes),
            "student": self.student.state_dict() if self.ema is not None else None,
            "ema": self.ema.state_dict() if self.ema is not None else None,
            "optimizer": optimizer,
            "scheduler": self.scheduler.state_dict(),
            "scaler": self.scaler.state_dict(),
            "config": self.cfg.to_dict(),
            "teacher": absolute_spec(self.cfg.model.teacher) if self.teacher is not None else None,
            "epoch": self.epoch, "step": self.step, "epoch_samples": self.epoch_samples,
            "rng": rng, "world_size": self.world,
            "best_top1": self.best_top1, "metrics": self.last_metrics,
            "stale_validations": self.stale_validations,
        }
        checkpoint.save_atomic(ckpt, self.out / "last.pt")
        if best:
            checkpoint.copy_atomic(self.out / "last.pt", self.out / "best.pt")

    def close(self) -> None:
        self.profiler.close()
        if self.timer.run_steps:
            self.book.message(self.timer.table())
        plot = self.book.close(plot=self.step > 0)
        if dist.is_main():
            done = f"step {self.step}/{self.total_steps}"
            if self.last_metrics:
                done += f", val {summary(self.last_metrics)}"
            print(f"{done}; checkpoints in {self.out}" + (f"; curves {plot}" if plot else ""), file=sys.stderr)


def freeze_body(model: torch.nn.Module) -> None:
    """Only the classifier head learns. Applied before the DDP wrap, which then tracks just the head."""
    if not hasattr(model, "get_classifier"):
        raise DistillError(f"config: freeze_body needs a model with a classifier head (timm's get_classifier); "
                           f"{model.registry_name} has none")
    head = {id(p) for p in model.get_classifier().parameters()}
    for p in model.parameters():
        p.requires_grad_(id(p) in head)


def run(cfg: TrainConfig, resume: dict | None = None, then=None) -> Trainer:
    """One whole training run: join the process group, build, fit, then(trainer), close (also on
    failure)."""
    dist.init(cfg.run.device, cfg.run.backend, cfg.run.dist_timeout)
    trainer, finished = None, False
    try:
        trainer = Trainer(cfg, resume)
        trainer.fit()
        if then is not None:
            then(trainer)
        finished = True
    except RuntimeError as exc:
        if dist.is_lost_peer(exc):  # within --dist-timeout: a lost node ends the run instead of hanging it
            raise LostPeerError(str(exc)) from exc
        raise
    finally:
        if trainer is not None:
            trainer.close()
        dist.destroy(finished)  # a barrier first only on a normal finish (see dist.destroy)
    return trainer


def resume_path(explicit: dict, env=os.environ) -> str:
    """The checkpoint to continue from: --resume as given, or the run folder's last.pt.

    The run folder's last.pt wins with `--resume auto` and whenever torchrun (or SageMaker, which
    launches through it) restarts the worker group after a failure: the restarted processes get the
    same command line, and must continue the run rather than start it over or refuse to.
    """
    spec = explicit.get("resume") or ""
    restarted = int(env.get("TORCHELASTIC_RESTART_COUNT") or 0) > 0
    if spec != "auto" and not restarted:
        return spec
    out = (explicit.get("out") or config.sagemaker_defaults(env).get("out")
           or (str(Path(spec).parent) if spec not in ("", "auto") else ""))
    if not out:
        if spec == "auto":
            raise DistillError("resume: --resume auto continues the run folder's last.pt: pass --out DIR")
        return spec  # a restarted run with a timestamped folder: nothing to find, start fresh
    last = Path(os.path.expandvars(out)) / "last.pt"
    if last.exists():
        return str(last)
    return "" if spec == "auto" else spec


def resolve_config(explicit: dict) -> tuple[TrainConfig, dict | None]:
    """Defaults < SageMaker env < checkpoint config (when resuming) < YAML < command line."""
    explicit = {**explicit, "resume": resume_path(explicit)}
    resume = checkpoint.load(explicit["resume"], "resume") if explicit["resume"] else None
    base = config.flatten(resume["config"], TrainConfig, "resume checkpoint config") if resume else {}
    base.pop("out", None)  # continue next to the checkpoint (the folder may have moved) unless --out says otherwise
    return config.build(TrainConfig, config.sagemaker_defaults(), base, explicit), resume

