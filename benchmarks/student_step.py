"""Training-step time of a preset's student with 0 to all of its stem stages frozen.

    .venv/bin/python benchmarks/student_step.py [--preset cpu] [--batch-size 32] [--rounds 5]

One forward and backward pass of the preset's student (its model and model_kwargs, except
frozen_stem_stages, which each row sets) on a random batch, at the precision `--precision auto`
gives on this machine, with contiguous and channels-last tensors. Rows are interleaved over
--rounds and each figure is the median over rounds, so a noisy machine slows every row alike.
The optimizer step (a few ms) and the data are left out: this measures what freezing saves.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402

from distill import precision  # noqa: E402
from distill.preset import load_preset  # noqa: E402
from models.machine import cpu_description  # noqa: E402
from models.registry import create_model  # noqa: E402


def step(model: torch.nn.Module, images: torch.Tensor, labels: torch.Tensor, mode: str) -> None:
    with precision.autocast(mode, images.device):
        loss = torch.nn.functional.cross_entropy(model(images), labels)
    loss.backward()
    model.zero_grad(set_to_none=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--preset", default="cpu")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=3, help="timed steps per row and round")
    args = parser.parse_args()

    options = load_preset(args.preset).student
    kwargs = {k: v for k, v in (options.get("model_kwargs") or {}).items() if k != "frozen_stem_stages"}
    if options["model"] != "vit_hybrid_lite0":
        raise SystemExit(f"--preset {args.preset}: its student {options['model']} has no stem stages to freeze")
    device = torch.device("cpu")
    mode = precision.resolve("auto", device)
    labels = [str(i) for i in range(10)]
    size = options.get("img_size") or kwargs.get("img_size", 128)
    images = torch.randn(args.batch_size, 3, size, size)
    targets = torch.randint(0, len(labels), (args.batch_size,))

    rows = {}
    for frozen in range(kwargs.get("stem_stages", 4) + 1):
        for channels_last in (False, True):
            model = create_model(options["model"], labels=labels, frozen_stem_stages=frozen, **kwargs).train()
            if precision.plain_kernels_are_faster(mode, device):  # as the trainer decides
                precision.use_plain_kernels(model)
            batch = images
            if channels_last:
                model, batch = model.to(memory_format=torch.channels_last), images.contiguous(memory_format=torch.channels_last)
            rows[(frozen, channels_last)] = (model, batch, [])
    for _ in range(args.rounds):
        for model, batch, times in rows.values():
            step(model, batch, targets, mode)  # warm-up of this row's kernels
            started = time.perf_counter()
            for _ in range(args.steps):
                step(model, batch, targets, mode)
            times.append((time.perf_counter() - started) / args.steps * 1000)

    print(f"{options['model']} {kwargs}, batch {args.batch_size} at {size} px, {mode} "
          f"({precision.capability(device)}), {torch.get_num_threads()} threads, {cpu_description()}; "
          f"median of {args.rounds} interleaved rounds x {args.steps} steps")
    print("| frozen stem stages | memory format | ms per step (forward + backward) | speed vs none frozen, contiguous |")
    print("|---|---|---|---|")
    first = statistics.median(rows[(0, False)][2])
    for (frozen, channels_last), (_, _, times) in rows.items():
        ms = statistics.median(times)
        print(f"| {frozen} | {'channels-last' if channels_last else 'contiguous'} | {ms:.1f} | {first / ms:.2f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
