"""What rendering each view again at the teacher's size costs the training loader.

    python benchmarks/teacher_view_loader.py [--data food10] [--teacher efficientnet_lite0] [--rounds 3]

A live teacher larger than the student gets each augmented view rendered at its own size too
(distill.data.TeacherViews, the rendering the teacher-logit cache uses). This times the loader
alone, images/s from creating the iterator to the last batch (distill.loader_tuning.throughput,
worker start-up included), on the training photos with the cpu preset's student transform
(128 px, RandAugment m9, random erasing 0.25), in interleaved rounds:

  student only   one rendering per sample: the live path before, and still the path for a
                 teacher of the student's size
  + teacher      the same view also rendered at the teacher's input size

each from the JPEGs and from the decoded-image cache, which training keeps at the student's
resize size without teacher renderings and at the teacher's with them.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from benchmarks.train_throughput import default_data, subset  # noqa: E402


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--data", type=Path, default=default_data(), help="ImageFolder root with train/")
    p.add_argument("--teacher", default="efficientnet_lite0", help="registry name; only its input size matters")
    p.add_argument("--img-size", type=int, default=128, help="the student's")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--batches", type=int, default=10, help="timed batches per measurement (after the prefetched)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--per-class", type=int, default=64, help="first N training photos per class (0 = all)")
    p.add_argument("--image-cache", default="true", choices=("true", "false"), help="also measure from the cache")
    p.add_argument("--work", type=Path, default=REPO / "runs" / "teacher_view_loader", help="subset and caches")
    args = p.parse_args()

    from distill import data
    from distill.image_cache import build_image_cache
    from distill.loader_tuning import Setting, throughput
    from distill.teacher import FrozenTeacher
    from models.registry import create_model

    args.work.mkdir(parents=True, exist_ok=True)
    root = subset(args.data, args.work, args.per_class)
    source = data.open_source(str(root), "train")
    student = create_model("vit_micro", labels=source.classes, pretrained=False, img_size=args.img_size)
    teacher_model = create_model(args.teacher, labels=source.classes)
    teacher = FrozenTeacher(teacher_model, args.teacher, student.preprocess, source.classes)
    transform = data.train_transform(student.preprocess, True, "rand-m9-mstd0.5-inc1", 0.2, 0.25)
    size = data.teacher_view_size(teacher, transform)
    if size is None:
        p.error(f"{args.teacher} ({teacher_model.preprocess.input_size} px) is not larger than the student")

    def dataset(teacher_views: bool, cached: bool):
        base = data.make_dataset(source, transform, seed=0)
        if cached:
            resize = teacher_model.preprocess.resize_size if teacher_views else student.preprocess.resize_size
            base.store = build_image_cache(base, str(args.work / "caches"), resize, workers=data.resolve_workers("auto"))
        return data.TeacherViews(base, size) if teacher_views else base

    sources = [("JPEG", False)] + ([("image cache", True)] if args.image_cache == "true" else [])
    variants = {(where, views): dataset(views, cached) for where, cached in sources for views in (False, True)}
    setting = Setting(data.resolve_workers("auto"))
    results: dict = {key: [] for key in variants}
    for r in range(args.rounds):
        order = list(variants) if r % 2 == 0 else list(reversed(variants))  # alternate who goes first
        for key in order:
            results[key].append(throughput(variants[key], setting, args.batch_size, args.batches, seed=r))
    print(f"{len(source)} photos of {root}; student {args.img_size} px, teacher {args.teacher} at {size} px; batch "
          f"{args.batch_size}, {setting.workers} loader workers, {args.rounds} interleaved rounds, medians")
    print(f"{'photos from':<12} {'student only':>13} {'+ teacher':>10} {'ratio':>6}   rounds (student only / + teacher)")
    for where, _ in sources:
        alone, both = results[(where, False)], results[(where, True)]
        a, b = statistics.median(alone), statistics.median(both)
        rounds = ", ".join(f"{x:.0f}/{y:.0f}" for x, y in zip(alone, both))
        print(f"{where:<12} {a:13.1f} {b:10.1f} {b / a:6.2f}   {rounds}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
