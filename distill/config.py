"""Configuration: one dataclass per component, composed into TrainConfig / EvalConfig.

Precedence, lowest first: dataclass defaults < SageMaker environment (SM_CHANNEL_TRAINING,
SM_CHANNEL_VALIDATION, SM_MODEL_DIR, SM_OUTPUT_DATA_DIR) < the checkpoint's config when
resuming < a YAML file (--config) < command-line options. Option names are the field
names with dashes (``--batch-size 32``); every field name is unique across sections, so
YAML may be written flat or in sections (``optim: {lr: 1e-3}``), as the saved
``config.yaml`` is. Values are type-checked and unknown keys are errors. String values
may name environment variables (``ckpt:$SM_CHANNEL_TEACHER/best.pt``).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import typing
from dataclasses import asdict, dataclass, field
from pathlib import Path

import yaml

from distill.errors import DistillError


def opt(default, help: str, choices: tuple | None = None):
    """A config field with its --help text (and allowed values, checked on construction)."""
    metadata = {"help": help, "choices": choices}
    if isinstance(default, dict):
        return field(default_factory=lambda: dict(default), metadata=metadata)
    return field(default=default, metadata=metadata)


@dataclass
class DataConfig:
    data: str = opt("", "training data: an ImageFolder tree (class/img.jpg; a root with train/ and val/ "
                        "also works), a Food-101 root (images/, meta/train.txt, meta/test.txt, "
                        "meta/classes.txt), a CSV manifest (path,label; empty labels = unlabelled), a "
                        "folder of unlabelled photos, or 'synthetic'. Default: $SM_CHANNEL_TRAINING")
    unlabelled_data: str = opt("", "photos without labels trained on beside --data (a flat folder of photos or a "
                                   "CSV manifest with empty labels): the teacher's soft labels on the view the "
                                   "student sees are their only target (noisy student). Needs a --teacher and no "
                                   "Mixup/CutMix")
    repeats: int = opt(1, "passes over the training photos in one epoch, each photo with its own augmentation "
                          "per pass: a few photos trained for many steps validate and checkpoint less often")
    val_data: str = opt("", "validation data, same kinds; default: the val/ (or test/) folder next to "
                            "train/, Food-101's test split, or the synthetic val split; 'none' skips "
                            "validation. Default under SageMaker: $SM_CHANNEL_VALIDATION")
    batch_size: int = opt(64, "images per process per micro-step (global batch = batch_size x "
                              "processes x accum_steps)")
    num_workers: str = opt("auto", "DataLoader worker processes per training process: a number (0 = "
                                   "load in the main process) or auto (this machine's cores shared "
                                   "among the processes, and 0 for --logit-pixels batches on a CPU; "
                                   "python -m distill tune-loader measures)")
    img_size: int = opt(0, "input resolution; 0 = the student's own. Also sets the saved "
                           "preprocessing. ViT students need the same img_size in --model-kwargs")
    augment: bool = opt(True, "training augmentation (RandomResizedCrop, flip, RandAugment, random "
                              "erasing, Mixup/CutMix); false = the eval transform, no mixing")
    rand_augment: str = opt("rand-m9-mstd0.5-inc1", "timm RandAugment policy; 'none' disables it")
    scale_min: float = opt(0.08, "smallest RandomResizedCrop area fraction")
    re_prob: float = opt(0.25, "random erasing probability")
    mixup: float = opt(0.8, "Mixup alpha (0 = off)")
    cutmix: float = opt(1.0, "CutMix alpha (0 = off)")
    label_smoothing: float = opt(0.1, "label smoothing of the hard-label cross-entropy")
    synthetic_classes: int = opt(4, "classes of the 'synthetic' source")
    synthetic_images: int = opt(256, "training images of the 'synthetic' source (val gets a quarter)")


@dataclass
class CacheConfig:
    image_cache: str = opt("", "folder for a decoded-image cache: every photo decoded once, resized to "
                               "the eval resize size, kept as memory-mapped uint8 arrays that "
                               "augmentation reads instead of the JPEGs ('' = off)")
    logit_cache: str = opt("", "folder for a teacher-logit cache: the teacher's top-k logits on "
                               "logit_views augmented views per image, computed once; training replays "
                               "the views and skips the teacher ('' = off)")
    logit_views: int = opt(8, "augmented views per image in the teacher-logit cache (epochs beyond "
                              "this repeat views)")
    logit_topk: int = opt(10, "logits kept per view (all of them when the classes are fewer)")
    logit_pixels: bool = opt(False, "with logit_cache: also store each view's student rendering (crop, flip, "
                                    "RandAugment; uint8, views x images x size^2 x 3 bytes), so the loader "
                                    "reads it instead of decoding and augmenting again")


@dataclass
class ModelConfig:
    model: str = opt("vit_tiny_patch16_224", "student: a registry name (python -m models list), "
                                             "timm:<name>, or ckpt:<path> to fine-tune a checkpoint")
    model_kwargs: dict = opt({}, "student constructor kwargs as YAML, e.g. "
                                 "'{img_size: 64, depth: 4, embed_dim: 96, num_heads: 3}'")
    pretrained: bool = opt(True, "start the student from its pretrained weights (where it has any)")
    teacher: str = opt("", "teacher: a registry name, timm:<name>, ckpt:<path>, ensemble:<a>+<b>, or "
                           "'none' for plain supervised training. Its labels must be the data's classes")
    teacher_resize: bool = opt(True, "give the teacher its own input size when it differs from the student's: "
                                     "a larger teacher gets each augmented view rendered at its size from "
                                     "the photo, otherwise the batch is resized")
    teacher_runtime: str = opt("auto", "where the teacher's forward pass runs: onnxruntime (exported at "
                                       "start, checked against PyTorch; 3-5x faster than PyTorch eager "
                                       "for a CNN teacher on CPU), torch, or auto (onnxruntime on CPU, "
                                       "torch on CUDA)", ("auto", "onnxruntime", "torch"))
    freeze_body: bool = opt(False, "train only the classifier head (the body's weights stay as loaded): "
                                   "the head warm-up before fine-tuning a pretrained model")


@dataclass
class LossConfig:
    kd: str = opt("soft", "distillation loss: soft (KL of T-softened distributions x T^2) or hard "
                          "(cross-entropy on the teacher's argmax)", ("soft", "hard"))
    alpha: float = opt(0.5, "weight of the hard-label cross-entropy; the teacher term gets 1 - alpha. "
                            "0 = label-free distillation (works on unlabelled photos)")
    temperature: float = opt(4.0, "softmax temperature of the soft KD loss")


@dataclass
class OptimConfig:
    epochs: int = opt(10, "training epochs")
    max_steps: int = opt(0, "if > 0: train this many optimizer steps instead (the schedule is sized "
                            "to it)")
    lr: float = opt(5e-4, "peak AdamW learning rate")
    min_lr: float = opt(1e-6, "learning rate at the end of the cosine schedule")
    weight_decay: float = opt(0.05, "AdamW weight decay (not applied to biases and norms)")
    warmup_steps: int = opt(100, "linear warmup steps (capped at a tenth of the run)")
    accum_steps: int = opt(1, "micro-batches accumulated per optimizer step")
    clip_grad: float = opt(1.0, "clip the gradient norm to this value (0 = off)")
    zero: bool = opt(False, "shard the optimizer state across processes "
                            "(torch.distributed.optim.ZeroRedundancyOptimizer)")
    ema: bool = opt(False, "keep an exponential moving average of the weights (timm ModelEmaV3); "
                           "the EMA weights are then the ones evaluated and saved as the model")
    ema_decay: float = opt(0.9998, "EMA decay per optimizer step")
    layer_decay: float = opt(1.0, "discriminative learning rates: each layer group below the head gets "
                                  "this factor times the lr of the group above (timm layer decay; 1 = "
                                  "one lr for all)")
    patience: int = opt(0, "early stopping: end the run after this many validations without a better "
                           "top-1 (0 = never)")


@dataclass
class RunConfig:
    out: str = opt("", "run folder for checkpoints, config.yaml and logs. Default: $SM_MODEL_DIR, "
                       "else runs/distill-<time>")
    log_dir: str = opt("", "folder for metrics.jsonl, TensorBoard, curves.png, profiler trace. "
                           "Default: $SM_OUTPUT_DATA_DIR, else the run folder")
    resume: str = opt("", "continue exactly from this checkpoint (last.pt); its config is the base "
                          "and options given here override it. auto: the run folder's last.pt if it "
                          "exists, else a fresh start (what a torchrun restart does by itself)")
    seed: int = opt(0, "random seed (data order, augmentation, initialisation)")
    device: str = opt("auto", "auto (cuda if available), cuda or cpu", ("auto", "cuda", "cpu"))
    precision: str = opt("auto", "autocast dtype: auto (bf16 where native: CUDA that supports it, CPUs "
                                 "with AVX-512 BF16 or AMX; else fp32), bf16, fp16 (with a GradScaler) "
                                 "or fp32", ("auto", "bf16", "fp16", "fp32"))
    channels_last: bool = opt(False, "channels_last memory format for the student and the input")
    compile: bool = opt(False, "torch.compile the student (needs a C++ compiler on a CPU; about 1.1x "
                               "per step for the CPU students here, after 12 s of compiling)")
    backend: str = opt("auto", "process group backend: auto (nccl on CUDA, gloo on CPU), nccl, gloo, "
                               "or smddp (SageMaker data parallel, when installed)",
                       ("auto", "nccl", "gloo", "smddp"))
    dist_timeout: int = opt(300, "seconds a process waits for the others in a collective before it "
                                 "fails with an error (a stopped node ends the run, never hangs it)")
    deterministic: bool = opt(False, "torch.use_deterministic_algorithms (reproducible, slower)")
    save_every: int = opt(500, "write last.pt every N optimizer steps (also at each epoch end)")
    log_every: int = opt(10, "log training metrics every N optimizer steps")
    profile_steps: int = opt(0, "profile N optimizer steps with torch.profiler (after one warmup "
                                "step): writes a trace and prints the top ops")
    progress: bool = opt(True, "tqdm progress bar (rank 0)")
    tensorboard: bool = opt(True, "TensorBoard scalars when tensorboard is installed")


@dataclass
class TrainConfig:
    data: DataConfig = field(default_factory=DataConfig)
    cache: CacheConfig = field(default_factory=CacheConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    loss: LossConfig = field(default_factory=LossConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)
    run: RunConfig = field(default_factory=RunConfig)

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            _check_choices(getattr(self, f.name))
        d, o, lo = self.data, self.optim, self.loss
        if not d.data:
            raise DistillError("config: no training data: pass --data PATH (or 'synthetic')")
        if not self.model.teacher:
            raise DistillError("config: choose --teacher: a registry name, timm:<name>, ckpt:<path>, "
                               "ensemble:<a>+<b>, or none (plain supervised training)")
        _positive(batch_size=d.batch_size, epochs=o.epochs, accum_steps=o.accum_steps, lr=o.lr,
                  temperature=lo.temperature, save_every=self.run.save_every, dist_timeout=self.run.dist_timeout,
                  log_every=self.run.log_every, synthetic_classes=d.synthetic_classes,
                  synthetic_images=d.synthetic_images, logit_views=self.cache.logit_views, repeats=d.repeats,
                  logit_topk=self.cache.logit_topk)
        check_workers(d.num_workers)
        if self.cache.logit_cache and self.supervised:
            raise DistillError("config: --logit-cache needs a --teacher (there is nothing to cache with --teacher none)")
        if d.unlabelled_data and self.supervised:
            raise DistillError("config: --unlabelled-data has no labels to learn from without a --teacher "
                               "(its soft labels are their only target)")
        if d.unlabelled_data and self.mixing:
            raise DistillError("config: --unlabelled-data needs --mixup 0 --cutmix 0 (a mixed pair of a labelled and "
                               "an unlabelled photo has no label to mix)")
        if self.cache.logit_pixels and not self.cache.logit_cache:
            raise DistillError("config: --logit-pixels stores the renderings in the teacher-logit cache: "
                               "pass --logit-cache DIR too")
        _non_negative(img_size=d.img_size, max_steps=o.max_steps,
                      warmup_steps=o.warmup_steps, clip_grad=o.clip_grad, mixup=d.mixup,
                      cutmix=d.cutmix, weight_decay=o.weight_decay, min_lr=o.min_lr,
                      profile_steps=self.run.profile_steps, patience=o.patience)
        for name, value in (("alpha", lo.alpha), ("label_smoothing", d.label_smoothing),
                            ("re_prob", d.re_prob), ("ema_decay", o.ema_decay)):
            if not 0 <= value <= 1:
                raise DistillError(f"config: {name} must be in [0, 1], got {value}")
        if not 0 < o.layer_decay <= 1:
            raise DistillError(f"config: layer_decay must be in (0, 1], got {o.layer_decay}")
        if not 0 < d.scale_min <= 1:
            raise DistillError(f"config: scale_min must be in (0, 1], got {d.scale_min}")
        # timm's Mixup pairs each image with its mirror in the batch, so it needs an even batch.
        if self.mixing and d.batch_size % 2:
            raise DistillError(f"config: Mixup/CutMix needs an even batch_size, got {d.batch_size}")

    @property
    def mixing(self) -> bool:
        return self.data.augment and (self.data.mixup > 0 or self.data.cutmix > 0)

    @property
    def supervised(self) -> bool:
        return self.model.teacher.lower() == "none"

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class EvalConfig:
    checkpoint: str = opt("", "training checkpoint (.pt) to evaluate")
    data: str = opt("", "evaluation data (same kinds as training: ImageFolder, Food-101 root (test "
                        "split), CSV manifest, unlabelled folder, synthetic)")
    teacher: str = opt("", "teacher for teacher-student agreement; default: the one recorded in the "
                           "checkpoint (if any); 'none' to skip")
    batch_size: int = opt(64, "images per process per batch")
    num_workers: str = opt("auto", "DataLoader worker processes: a number or auto")
    device: str = opt("auto", "auto, cuda or cpu", ("auto", "cuda", "cpu"))
    precision: str = opt("auto", "autocast dtype: auto, bf16, fp16 or fp32", ("auto", "bf16", "fp16", "fp32"))
    backend: str = opt("auto", "process group backend under torchrun", ("auto", "nccl", "gloo", "smddp"))
    teacher_resize: bool = opt(True, "resize batches to the teacher's input size when it differs")
    synthetic_classes: int = opt(0, "classes of the 'synthetic' source (0 = as in the checkpoint's run)")
    synthetic_images: int = opt(0, "training images of the 'synthetic' source, whose val split is "
                                   "evaluated (0 = as in the checkpoint's run)")
    json: str = opt("", "also write the metrics to this JSON file")

    def __post_init__(self) -> None:
        _check_choices(self)
        if not self.checkpoint:
            raise DistillError("config: pass --checkpoint PATH")
        if not self.data:
            raise DistillError("config: pass --data PATH")
        _positive(batch_size=self.batch_size)
        check_workers(self.num_workers)
        _non_negative(synthetic_classes=self.synthetic_classes,
                      synthetic_images=self.synthetic_images)


# --- building configs from defaults, environment, checkpoint, YAML and CLI ---------------------


def _leaf_fields(cls) -> dict[str, tuple[str | None, dataclasses.Field, type]]:
    """name -> (section or None, field, resolved type) for every option of a config class."""
    out = {}
    hints = typing.get_type_hints(cls)
    for f in dataclasses.fields(cls):
        if dataclasses.is_dataclass(hints[f.name]):
            for name, (_, sub, typ) in _leaf_fields(hints[f.name]).items():
                if name in out:
                    raise AssertionError(f"config field {name} appears in two sections")
                out[name] = (f.name, sub, typ)
        else:
            out[f.name] = (None, f, hints[f.name])
    return out


def _check_choices(section) -> None:
    for f in dataclasses.fields(section):
        choices = f.metadata.get("choices")
        if choices and getattr(section, f.name) not in choices:
            raise DistillError(f"config: {f.name} must be one of {', '.join(choices)}, "
                               f"got {getattr(section, f.name)!r}")


def check_workers(value: str) -> None:
    if value != "auto" and not (value.isdigit()):
        raise DistillError(f"config: num_workers must be auto or a number >= 0, got {value!r}")


def _positive(**values) -> None:
    for name, value in values.items():
        if value <= 0:
            raise DistillError(f"config: {name} must be > 0, got {value}")


def _non_negative(**values) -> None:
    for name, value in values.items():
        if value < 0:
            raise DistillError(f"config: {name} must be >= 0, got {value}")


def parse_bool(text: str) -> bool:
    lowered = str(text).strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def parse_dict(text: str) -> dict:
    try:
        value = yaml.safe_load(text) if text.strip() else {}
    except yaml.YAMLError as exc:
        raise argparse.ArgumentTypeError(f"not valid YAML: {exc}".splitlines()[0]) from None
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"expected a mapping like '{{depth: 4}}', got {text!r}")
    return value


_PARSERS = {int: int, float: float, str: str, bool: parse_bool, dict: parse_dict}


def add_options(parser: argparse.ArgumentParser, cls) -> None:
    """One --option per config field; defaults are SUPPRESSed so only given options come back."""
    groups: dict[str | None, argparse._ArgumentGroup] = {}
    for name, (section, f, typ) in _leaf_fields(cls).items():
        group = groups.setdefault(section, parser.add_argument_group(section) if section else parser)
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
        kwargs = dict(dest=name, type=_PARSERS[typ], default=argparse.SUPPRESS,
                      help=f"{f.metadata['help']} (default: {default!r})")
        if typ is bool:
            kwargs.update(nargs="?", const=True, metavar="BOOL")
        elif f.metadata.get("choices"):
            kwargs["choices"] = f.metadata["choices"]
        group.add_argument("--" + name.replace("_", "-"), **kwargs)


def _check_type(name: str, value, typ):
    """Type-check one YAML/checkpoint value (ints are fine where floats are expected)."""
    if typ is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if typ is str and isinstance(value, int) and not isinstance(value, bool):
        return str(value)  # num_workers: 4 in YAML or an older checkpoint's config
    if typ is float and isinstance(value, str):
        try:  # PyYAML reads '1e-3' (no dot) as a string
            return float(value)
        except ValueError:
            pass
    if not isinstance(value, typ) or (typ is int and isinstance(value, bool)):
        raise DistillError(f"config: {name} must be {typ.__name__}, got {value!r}")
    return value


def flatten(values: dict, cls, where: str) -> dict:
    """Sectioned or flat mapping -> flat {field: value}, type-checked; unknown keys are errors."""
    fields = _leaf_fields(cls)
    sections = {s for s, _, _ in fields.values() if s}
    flat = {}
    for key, value in (values or {}).items():
        if key in sections and isinstance(value, dict):
            for sub_key, sub_value in value.items():
                if sub_key not in fields or fields[sub_key][0] != key:
                    raise DistillError(f"{where}: unknown option {key}.{sub_key}")
                flat[sub_key] = _check_type(sub_key, sub_value, fields[sub_key][2])
        elif key in fields:
            flat[key] = _check_type(key, value, fields[key][2])
        else:
            raise DistillError(f"{where}: unknown option {key!r}")
    return flat


def load_yaml(path: str) -> dict:
    p = Path(path)
    if not p.is_file():
        raise DistillError(f"config: {p} does not exist")
    try:
        values = yaml.safe_load(p.read_text())
    except yaml.YAMLError as exc:
        raise DistillError(f"config: {p} is not valid YAML ({str(exc).splitlines()[0]})") from None
    if values is not None and not isinstance(values, dict):
        raise DistillError(f"config: {p} must hold a mapping of options")
    return values or {}


def sagemaker_defaults(env=os.environ) -> dict:
    """Defaults a SageMaker PyTorch estimator job provides through SM_* variables."""
    values = {}
    if env.get("SM_CHANNEL_TRAINING") or env.get("SM_CHANNEL_TRAIN"):
        values["data"] = env.get("SM_CHANNEL_TRAINING") or env["SM_CHANNEL_TRAIN"]
    for channel in ("SM_CHANNEL_VALIDATION", "SM_CHANNEL_VAL", "SM_CHANNEL_TEST"):
        if env.get(channel):
            values["val_data"] = env[channel]
            break
    if env.get("SM_MODEL_DIR"):
        values["out"] = env["SM_MODEL_DIR"]
    if env.get("SM_OUTPUT_DATA_DIR"):
        values["log_dir"] = env["SM_OUTPUT_DATA_DIR"]
    return values


def build(cls, *layers: dict):
    """Instantiate a (composed) config class from flat option layers, later layers winning."""
    flat: dict = {}
    for layer in layers:
        flat.update(layer)
    flat = {k: os.path.expandvars(v) if isinstance(v, str) else v for k, v in flat.items()}
    fields = _leaf_fields(cls)
    sections: dict[str | None, dict] = {}
    for name, value in flat.items():
        sections.setdefault(fields[name][0], {})[name] = value
    hints = typing.get_type_hints(cls)
    kwargs = dict(sections.get(None, {}))
    for section, values in sections.items():
        if section is not None:
            kwargs[section] = hints[section](**values)
    return cls(**kwargs)


def parse_args(cls, argv: list[str], prog: str, description: str) -> dict:
    """Command line -> flat explicit options (YAML file first, command line on top)."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--config", metavar="YAML", default=None,
                        help="YAML file of options (flat or in sections, like a run's config.yaml)")
    add_options(parser, cls)
    args = vars(parser.parse_args(argv))
    yaml_path = args.pop("config")
    explicit = flatten(load_yaml(yaml_path), cls, f"config {yaml_path}") if yaml_path else {}
    explicit.update(args)
    return explicit


def save_yaml(cfg, path: Path) -> None:
    path.write_text(yaml.safe_dump(asdict(cfg), sort_keys=False))
