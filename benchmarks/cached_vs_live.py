"""Validation accuracy of a student trained with cached teacher logits against a live teacher.

    python benchmarks/cached_vs_live.py --teacher ckpt:runs/food10-cpu/teacher/best.pt \
        [--data food10] [--epochs 4] [--mixup 0.8 --cutmix 1.0] [--json PATH]

Two `python -m distill train` runs, identical but for --logit-cache: same seed, photos, student
(the cpu preset's 5-block ViT at 128 px), schedule and augmentation, both reading photos
through one decoded-image cache so their pixels come from the same stored arrays, and both
giving a larger teacher each view rendered at its own size (distill.data.teacher_view_size). The cache
holds --epochs views per photo, so each epoch replays a view it has not used yet, as a live
teacher sees a new view each epoch. What still differs is (1) which random views are drawn
(the cache's views have their own seeds), and (2) under Mixup/CutMix the cached target is the
mix of the two photos' teacher outputs, where a live teacher looks at the mixed pixels. Run it
once with the defaults and once with --mixup 0 --cutmix 0 to separate the two. It prints val
top-1 after each epoch for both runs and the wall time of each (the cached one including its
one-time cache build).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.train_throughput import default_data, subset  # noqa: E402

STUDENT = ["--model", "vit_micro", "--pretrained", "false", "--img-size", "128",
           "--model-kwargs", "{img_size: 128, patch_size: 16, depth: 5, embed_dim: 192, num_heads: 3}"]


def train(args, out: Path, *extra: str) -> dict:
    command = [sys.executable, "-m", "distill", "train", "--data", str(args.data), "--teacher", args.teacher,
               *STUDENT, "--epochs", str(args.epochs), "--batch-size", str(args.batch_size), "--lr", "1e-3",
               "--warmup-steps", "100", "--alpha", "0.1", "--temperature", "1.0",
               "--mixup", str(args.mixup), "--cutmix", str(args.cutmix), "--seed", str(args.seed),
               "--image-cache", str(args.work / "caches"), "--progress", "false", "--tensorboard", "false",
               "--out", str(out), *extra]
    start = time.perf_counter()
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"distill train failed ({out}):\n{result.stderr[-3000:]}")
    records = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines() if line.strip()]
    top1 = [r["val/top1"] for r in records if "val/top1" in r]
    return {"val_top1": top1, "seconds": seconds}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--teacher", required=True, help="a teacher fine-tuned on the data's classes (ckpt:PATH)")
    p.add_argument("--data", type=Path, default=default_data())
    p.add_argument("--per-class", type=int, default=0, help="first N training photos per class (0 = all)")
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--mixup", type=float, default=0.8)
    p.add_argument("--cutmix", type=float, default=1.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--work", type=Path, default=REPO / "runs" / "cached_vs_live")
    p.add_argument("--json", type=Path)
    args = p.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    args.data = subset(args.data, args.work, args.per_class)
    name = f"e{args.epochs}-mix{args.mixup:g}-cut{args.cutmix:g}-s{args.seed}"
    live = train(args, args.work / f"live-{name}")
    cached = train(args, args.work / f"cached-{name}", "--logit-cache", str(args.work / "caches"),
                   "--logit-views", str(args.epochs))
    print(f"student vit_micro (5 blocks, 128 px) from {args.teacher}, {args.epochs} epochs, mixup {args.mixup}, "
          f"cutmix {args.cutmix}, seed {args.seed}, data {args.data}")
    print(f"{'epoch':>5} {'live top-1':>11} {'cached top-1':>13} {'cached - live':>14}")
    for epoch, (a, b) in enumerate(zip(live["val_top1"], cached["val_top1"]), 1):
        print(f"{epoch:>5} {a:11.1%} {b:13.1%} {100 * (b - a):+13.1f}p")
    print(f"wall time: live {live['seconds'] / 60:.1f} min, cached {cached['seconds'] / 60:.1f} min "
          f"(including its cache build)")
    if args.json:
        args.json.write_text(json.dumps({"teacher": args.teacher, "epochs": args.epochs, "mixup": args.mixup,
                                         "cutmix": args.cutmix, "seed": args.seed, "live": live,
                                         "cached": cached}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
