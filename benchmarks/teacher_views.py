"""How good a teacher's labels are on the student's views: val top-1 at its own size and on crops.

    python benchmarks/teacher_views.py --teacher runs/food10-cpu/teacher/best.pt [--data food10]

A distilled student learns from whatever the teacher says about the images it is shown. This
evaluates the teacher checkpoint on the validation photos three ways: with its own
preprocessing (e.g. 224 px for Lite0), on the student's 128 px crop resized up to the teacher's
size (what the teacher saw during training before views were rendered at its size), and on the
128 px crop as it is. The gap between the first two is what rendering each view at the teacher's
resolution recovers (distill.data.teacher_view_size: the teacher-logit cache and a live teacher).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.train_throughput import default_data  # noqa: E402
from distill import data  # noqa: E402
from distill.evaluate import evaluate  # noqa: E402
from distill.teacher import FrozenTeacher  # noqa: E402
from models.registry import create_model  # noqa: E402


def top1(model, preprocess, source, workers: int) -> float:
    dataset = data.make_dataset(source, data.EvalTransform(preprocess), seed=0)
    loader = torch.utils.data.DataLoader(dataset, batch_size=32, num_workers=workers)
    return evaluate(model, loader, source.classes, device=torch.device("cpu"))["top1"]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--teacher", type=Path, required=True, help="a training checkpoint (best.pt)")
    p.add_argument("--data", type=Path, default=default_data(), help="ImageFolder root with val/")
    p.add_argument("--student-size", type=int, default=128)
    args = p.parse_args()
    source = data.open_source(str(args.data), "val")
    teacher = create_model(f"ckpt:{args.teacher}")
    student = create_model("vit_micro", labels=source.classes, pretrained=False, img_size=args.student_size)
    workers = data.resolve_workers("auto")
    own = teacher.preprocess.input_size
    rows = [
        (f"own preprocessing ({own} px)", top1(teacher, teacher.preprocess, source, workers)),
        (f"{args.student_size} px crop resized to {own} px",
         top1(FrozenTeacher(teacher, "teacher", student.preprocess, source.classes, resize=True),
              student.preprocess, source, workers)),
        (f"{args.student_size} px crop as it is",
         top1(FrozenTeacher(teacher, "teacher", student.preprocess, source.classes, resize=False),
              student.preprocess, source, workers)),
    ]
    print(f"teacher {args.teacher} on {len(source)} val photos of {args.data}")
    print(f"{'input':<36} {'top-1':>7}")
    for name, value in rows:
        print(f"{name:<36} {value:7.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
