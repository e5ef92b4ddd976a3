"""The batch tool's two engines side by side: `python -m benchmarks.bench_batch_engines`.

Runs `run_batch` end to end (decode, predict, nutrition lookups, CSV, summary) on a CSV of
the food10 val photos with --engine local and with --engine ray, in interleaved rounds so
every engine sees the same load on a shared machine, and prints images/s per engine and its
ratio to the local engine of the same round (target: ray >= 0.7x local on one machine). Each
ray round's time includes starting its actor pool, as every run pays it; the Ray instance
itself is started once before the rounds (on a cluster it is already running) and its start
is reported apart. Every round's output is compared byte for byte with the local engine's.

    python -m benchmarks.bench_batch_engines [--data DIR] [--rounds 3] [--ray 1x2,2x1] [--model M.onnx]

`--ray AxC,...`: the ray configurations to measure, A actors of C CPUs each.
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import food10, photos_under, use_scratch_database, write_paths_csv


def run_once(onnx_engine, csv_path: Path, out: Path, data: Path, batch_size: int, workers: int, **ray_options) -> float:
    from app.batch import BatchConfig, plan_batch, run_batch

    plan = plan_batch(BatchConfig(
        input=csv_path, out=out, images_root=data, top_k=5, batch_size=batch_size, workers=workers,
        confidence_threshold=0.0, **ray_options,  # every row gets its card: the work a confident row costs
    ))
    result = run_batch(plan, onnx_engine)
    if result.errors:
        sys.exit(f"{result.errors} rows failed in {out}; the benchmark needs a clean run")
    return result.rows / result.seconds


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", type=Path, help="ONNX model (default: the embedded default model)")
    parser.add_argument("--data", type=Path, default=food10() / "val", help="folder of photos (searched recursively)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--workers", type=int, default=None, help="the local engine's decoding threads (default as the CLI)")
    parser.add_argument("--ray", default="1x2,2x1", help="ray configurations, ACTORSxCPUS, comma-separated")
    args = parser.parse_args(argv)

    import ray

    from app.batch import default_workers
    from models.default import default_model_path
    from models.engine import Engine

    workers = args.workers or default_workers()
    configs = [tuple(int(n) for n in text.split("x")) for text in args.ray.split(",")]
    args.data = args.data.resolve()  # the CSV lists absolute paths
    photos = photos_under(args.data)
    if not photos:
        sys.exit(f"no photos under {args.data}")
    model = (args.model or default_model_path()).resolve()
    engine = Engine(model)
    started = time.perf_counter()
    ray.init(num_cpus=os.cpu_count(), include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False)
    ray_start = time.perf_counter() - started
    variants = {"local": {}} | {  # name -> BatchConfig options
        f"ray {a} actor{'s' * (a > 1)} x {c} CPU{'s' * (c > 1)}": {"engine": "ray", "actors": a, "actor_cpus": c}
        for a, c in configs
    }
    names = list(variants)
    rates: dict[str, list[float]] = {name: [] for name in names}
    ratios: dict[str, list[float]] = {name: [] for name in names}
    identical = True
    try:
        with tempfile.TemporaryDirectory(prefix="bench-engines-") as tmp:
            scratch = Path(tmp)
            use_scratch_database(scratch)
            csv_path = write_paths_csv(scratch / "val.csv", photos, len(photos))
            run_once(engine, csv_path, scratch / "warmup.csv", args.data, args.batch_size, workers)  # caches, lookups
            for round_ in range(args.rounds):
                # Each round starts with another engine, so none always runs first (or last).
                order = names[round_ % len(names):] + names[:round_ % len(names)]
                outputs = {name: scratch / f"round{round_}-{i}.csv" for i, name in enumerate(names)}
                for name in order:
                    rates[name].append(run_once(engine, csv_path, outputs[name], args.data, args.batch_size, workers,
                                                **variants[name]))
                for name in names:
                    ratios[name].append(rates[name][-1] / rates["local"][-1])
                    identical &= outputs[name].read_bytes() == outputs["local"].read_bytes()
                print(f"round {round_ + 1}: " + ", ".join(f"{n} {rates[n][-1]:.1f} img/s" for n in names), file=sys.stderr)
    finally:
        ray.shutdown()

    print(f"\nmodel {engine.model_name} ({model.name}), {len(photos)} photos from {args.data}, batch {args.batch_size}, "
          f"{os.cpu_count()} CPUs, local engine {workers} decoding threads; Ray instance started in {ray_start:.1f} s "
          f"(not counted); every ray output identical to the local one: {'yes' if identical else 'NO'}\n")
    width = max(len(name) for name in names)
    print(f"| {'engine':<{width}} | img/s, median of {args.rounds} rounds | x local, median of rounds (each round) |")
    print(f"|{'-' * (width + 2)}|------|------|")
    for name in names:
        each = ", ".join(f"{r:.2f}" for r in ratios[name])
        print(f"| {name:<{width}} | {statistics.median(rates[name]):.1f} | {statistics.median(ratios[name]):.2f} ({each}) |")
    print("\ntarget: ray >= 0.70x local on one machine")


if __name__ == "__main__":
    main()
