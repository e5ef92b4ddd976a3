"""Timing several ways of running a model side by side, robust on a shared machine.

Every round times each run in turn (the order reversed every other round, so slow drift in the
machine's load hits all of them alike); a run's speed is the median over rounds, and its speed
relative to the first run is the median of the per-round ratios, which cancels most of the noise
that other processes add.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import numpy as np


def seconds_per_call(call: Callable[[], object], count: int) -> list[float]:
    times = []
    for _ in range(count):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return times


# ONNX Runtime's pool threads busy-wait for a while after each call (allow_spinning), PyTorch's
# OpenMP threads too; on a 2-core machine the run timed next would share its cores with them.
# 50 ms was enough there: with it, food10 students of growing size timed in the order of their
# compute, run after run; without it, in an order that changed from run to run.
SETTLE_SECONDS = 0.05


def settle_and_warm_up(call: Callable[[], object]) -> None:
    """Before timing ``call`` after another run: let that run's threads sleep, then call once
    (the first call after another model's allocates and re-tunes)."""
    time.sleep(SETTLE_SECONDS)
    call()


@dataclass(frozen=True)
class Speed:
    images_per_s: float  # median over rounds
    vs_first: float  # median over rounds of this run's images/s over the first run's


def interleaved_speeds(
    runs: dict[str, Callable[[int], object]], batches: tuple[int, ...], rounds: int = 3, calls: int = 8,
) -> dict[str, dict[int, Speed]]:
    """images/s of every run at every batch size; ``runs[name](batch)`` runs one batch of that size.

    Per round each run is warmed up once, then timed for ``calls`` calls at batch 1 (a quarter of
    that, at least 2, at larger batches) and the round's figure is the median call.
    """
    if not runs or rounds < 1 or calls < 1:
        raise ValueError("interleaved_speeds needs at least one run, one round and one call")
    names = list(runs)
    per_round: dict[tuple[str, int], list[float]] = {(n, b): [] for n in names for b in batches}
    for batch in batches:
        count = calls if batch == 1 else max(2, calls // 4)
        for index in range(rounds):
            for name in names if index % 2 == 0 else names[::-1]:
                run = runs[name]
                settle_and_warm_up(lambda: run(batch))
                per_round[name, batch].append(batch / float(np.median(seconds_per_call(lambda: run(batch), count))))
    return {
        name: {
            batch: Speed(
                float(np.median(per_round[name, batch])),
                float(np.median(np.asarray(per_round[name, batch]) / np.asarray(per_round[names[0], batch]))),
            )
            for batch in batches
        }
        for name in names
    }
