"""`python -m distill tune-loader`: measure the training DataLoader over worker counts (then
prefetch depth and pinned memory) on the real dataset and transform, and pick a setting.

The search measures every worker count on a doubling ladder (0, 1, 2, 4, ... up to twice the
cores), then tries prefetch factors (and pinned memory on CUDA) at the best count. It picks
the smallest worker count within 5% of the fastest: on a CPU-trained run the workers share
the cores with the training step, so a worker that buys nothing costs compute. `--full-grid`
also measures every combination and reports how far the pick is from the grid's best.
"""

from __future__ import annotations

import itertools
import time
import warnings
from dataclasses import dataclass

import torch

from distill import data

WITHIN = 0.05  # "as fast as the best" for the pick


@dataclass(frozen=True)
class Setting:
    workers: int
    prefetch: int = 2
    pin: bool = False

    def flags(self) -> str:
        return f"--num-workers {self.workers}"


def throughput(dataset, setting: Setting, batch_size: int, batches: int, seed: int = 0) -> float:
    """Images per second of the loader alone, from creating the iterator (worker start-up is a
    real cost each epoch) to the last of workers x prefetch + batches batches: timing only a few
    batches after the first would mostly drain what the workers prefetched meanwhile."""
    total = setting.workers * setting.prefetch + batches
    sampler = torch.utils.data.RandomSampler(dataset, replacement=True, num_samples=total * batch_size,
                                             generator=torch.Generator().manual_seed(seed))
    start = time.perf_counter()
    with warnings.catch_warnings():  # more workers than cores is a point of the search, not a mistake
        warnings.filterwarnings("ignore", message=".*worker processes in total")
        loader = data.make_loader(dataset, sampler, batch_size, setting.workers, setting.pin, setting.prefetch)
        count = sum(len(batch[0]) for batch in loader)
    seconds = time.perf_counter() - start
    return count / seconds if seconds > 0 else 0.0


def ladder(cpus: int) -> list[int]:
    counts, n = [0, 1], 2
    while n <= 2 * cpus:
        counts.append(n)
        n *= 2
    return counts


def pick(results: dict[Setting, float]) -> Setting:
    best = max(results.values())
    return min((s for s, v in results.items() if v >= (1 - WITHIN) * best), key=lambda s: (s.workers, s.prefetch, s.pin))


def tune(dataset, batch_size: int, batches: int, cuda: bool, cpus: int, full_grid: bool, log=print) -> Setting:
    results: dict[Setting, float] = {}

    def measure(setting: Setting) -> float:
        if setting not in results:
            results[setting] = throughput(dataset, setting, batch_size, batches)
            log(f"  {setting.workers:>3} workers  prefetch {setting.prefetch}  pin {str(setting.pin):<5}  "
                f"{results[setting]:8.1f} images/s")
        return results[setting]

    log(f"loader throughput over workers x prefetch + {batches} batches of {batch_size}, start-up "
        f"included ({cpus} cores):")
    for workers in ladder(cpus):
        measure(Setting(workers, pin=cuda))
    best_workers = pick({s: v for s, v in results.items()}).workers
    if best_workers:
        for prefetch, pin in itertools.product((2, 4), (False, True) if cuda else (False,)):
            measure(Setting(best_workers, prefetch, pin))
    chosen = pick(results)
    fastest = max(results, key=results.get)
    log(f"chosen: {chosen.flags()} (prefetch {chosen.prefetch}, pin {chosen.pin}): {results[chosen]:.1f} images/s"
        + (f", the smallest setting within {WITHIN:.0%} of the fastest ({fastest.workers} workers, "
           f"{results[fastest]:.1f} images/s): spare cores go to the training step" if chosen != fastest else
           ", the fastest measured"))
    if full_grid:
        searched = dict(results)
        for workers, prefetch, pin in itertools.product(range(0, 2 * cpus + 1), (2, 4), (False, True) if cuda else (False,)):
            if workers or prefetch == 2:
                measure(Setting(workers, prefetch, pin))
        grid_best = max(results.values())
        log(f"full grid: best {grid_best:.1f} images/s; the pick reaches {searched[chosen] / grid_best:.0%} of it "
            f"with {len(searched)} of {len(results)} measurements")
    return chosen
