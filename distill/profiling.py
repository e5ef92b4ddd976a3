"""Profiling: a torch.profiler window over training steps, and bottleneck rules on what it saw.

`--profile-steps N` (and `python -m distill profile`, which sets it) wraps N steps, after
`wait` steps of loader start-up and one warmup step, in torch.profiler: a Chrome/Perfetto
trace (profile_trace.json), a TensorBoard trace (tensorboard/plugins/profile, for the
PyTorch Profiler plugin) and the top operators by self time.

The rules follow SageMaker Debugger's ProfilerReport: each states its figure, its threshold,
whether it fired, and the flag that addresses it. They read `Facts` (the per-step timing and
memory records the trainer logs anyway, plus CPU and accelerator busy shares measured over
the window), so each can be tested on a constructed case.
"""

from __future__ import annotations

import os
import shutil
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile, schedule, tensorboard_trace_handler


def system_cpu_times() -> tuple[float, float]:
    """(busy, total) jiffies of all CPUs since boot, from /proc/stat ((0, 0) where there is none)."""
    try:
        fields = [float(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except OSError:
        return 0.0, 0.0
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0.0)  # idle + iowait
    return sum(fields) - idle, sum(fields)


def memory_record(device: torch.device) -> dict[str, float]:
    """This process's memory now: resident set (CPU) or allocated (CUDA), MiB."""
    if device.type == "cuda":
        return {"mem/cuda_mib": torch.cuda.memory_allocated(device) / 2**20,
                "mem/cuda_peak_mib": torch.cuda.max_memory_allocated(device) / 2**20}
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
        return {"mem/rss_mib": round(pages * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)}
    except (OSError, ValueError):
        return {}


class StepProfiler:
    """Call step() after every optimizer step; a no-op unless steps > 0 (rank 0 only)."""

    WAIT = 2  # steps left out first: the DataLoader's workers start during them

    def __init__(self, steps: int, out_dir: Path | None, device: torch.device, wait: int = WAIT):
        self.prof = None
        self.cpu_busy = self.gpu_busy = None
        self.top_ops = ""
        self._window_start()
        if steps <= 0 or out_dir is None:
            return
        self.remaining = wait + 1 + steps  # one warmup step: the first profiled one pays for lazy init
        self.steps, self.wait, self.done = steps, wait, 0
        self.out_dir, self.device = out_dir, device
        activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.type == "cuda" else [])
        self.prof = profile(activities=activities, schedule=schedule(wait=wait, warmup=1, active=steps, repeat=1),
                            on_trace_ready=self._ready, profile_memory=True)
        self.prof.start()

    def _window_start(self) -> None:
        self._cpu0, self._t0 = system_cpu_times(), time.perf_counter()

    def _ready(self, prof) -> None:
        wall_us = (time.perf_counter() - self._t0) * 1e6
        busy, total = (b - a for a, b in zip(self._cpu0, system_cpu_times()))
        self.cpu_busy = busy / total if total else None
        averages = prof.key_averages()
        if self.device.type == "cuda":
            self.gpu_busy = min(1.0, sum(e.self_device_time_total for e in averages) / wall_us)
        # a trace can be saved once: the TensorBoard plugin's file, copied for chrome://tracing
        tb_dir = self.out_dir / "tensorboard" / "plugins" / "profile"
        tensorboard_trace_handler(str(tb_dir))(prof)
        trace = self.out_dir / "profile_trace.json"
        shutil.copyfile(max(tb_dir.glob("*.pt.trace.json"), key=lambda p: p.stat().st_mtime), trace)
        key = "self_cuda_time_total" if self.device.type == "cuda" else "self_cpu_time_total"
        self.top_ops = averages.table(sort_by=key, row_limit=15)
        print(self.top_ops, flush=True)
        print(f"profiler trace: {trace} (open in chrome://tracing or https://ui.perfetto.dev); TensorBoard trace "
              f"in {self.out_dir / 'tensorboard'} (tensorboard --logdir, PyTorch Profiler plugin)", flush=True)

    def step(self) -> None:
        if self.prof is None:
            return
        self.prof.step()
        self.done += 1
        if self.done == self.wait + 1:  # the active window starts now (after the warmup step)
            self._window_start()
        self.remaining -= 1
        if self.remaining == 0:
            self.close()

    def close(self) -> None:
        if self.prof is not None:
            prof, self.prof = self.prof, None
            prof.stop()


# --- bottleneck rules ---------------------------------------------------------------------------


@dataclass
class Facts:
    """What the rules read. Shares are of the step time; None = not measurable on this device."""

    device: str
    step_ms: list[float]
    shares: dict[str, float]
    num_workers: int
    processes: int
    cpus: int
    batch_size: int
    memory_mib: list[float] = field(default_factory=list)
    cpu_busy: float | None = None
    gpu_busy: float | None = None
    gpu_memory_share: float | None = None
    teacher_runtime: str = "torch"


@dataclass
class Finding:
    rule: str
    fired: bool | None  # None: does not apply here
    figure: str
    threshold: str
    suggestion: str

    def line(self) -> str:
        status = "n/a" if self.fired is None else "FIRED" if self.fired else "ok"
        text = f"[{status:>5}] {self.rule}: {self.figure} (threshold {self.threshold})"
        return text + (f"\n        -> {self.suggestion}" if self.fired else "")


DATA_SHARE, TEACHER_SHARE, CPU_BUSY, GPU_BUSY_LOW, GPU_BUSY_CPU_BOUND = 0.20, 0.30, 0.90, 0.70, 0.50
OUTLIER_SIGMAS, MEMORY_GROWTH, MEMORY_GROWTH_MIB, GPU_MEMORY_SHARE = 3.0, 0.10, 64.0, 0.30


def data_loader_bound(f: Facts) -> Finding:
    share = f.shares.get("data", 0.0)
    return Finding("data loader bound", share > DATA_SHARE, f"waiting for data {share:.0%} of step time",
                   f"{DATA_SHARE:.0%}", "more loader workers (python -m distill tune-loader, then --num-workers N), "
                   "and --image-cache DIR so each JPEG is decoded once")


def teacher_bound(f: Facts) -> Finding:
    share = f.shares.get("teacher", 0.0)
    faster = ("--teacher-runtime onnxruntime (3-5x faster for a CNN teacher on CPU), or "
              if f.teacher_runtime == "torch" and f.device == "cpu" else "")
    return Finding("teacher bound", share > TEACHER_SHARE, f"teacher forward {share:.0%} of step time",
                   f"{TEACHER_SHARE:.0%}", faster + "--logit-cache DIR: compute the teacher once on "
                   "--logit-views views per image")


def cpu_bound(f: Facts) -> Finding:
    if f.gpu_busy is None or f.cpu_busy is None:
        return Finding("CPU bound", None, "no accelerator: the CPU is the compute device", "-", "")
    fired = f.cpu_busy > CPU_BUSY and f.gpu_busy < GPU_BUSY_CPU_BOUND
    return Finding("CPU bound", fired, f"CPU busy {f.cpu_busy:.0%} while the accelerator is busy {f.gpu_busy:.0%}",
                   f"CPU > {CPU_BUSY:.0%} and accelerator < {GPU_BUSY_CPU_BOUND:.0%}",
                   "move work off the CPU: --image-cache DIR (no JPEG decode), --logit-cache DIR, fewer "
                   "--num-workers if they starve the training process")


def low_gpu_utilization(f: Facts) -> Finding:
    if f.gpu_busy is None:
        return Finding("low accelerator utilisation", None, "no accelerator", "-", "")
    return Finding("low accelerator utilisation", f.gpu_busy < GPU_BUSY_LOW, f"accelerator busy {f.gpu_busy:.0%}",
                   f"{GPU_BUSY_LOW:.0%}", f"--batch-size {2 * f.batch_size} (more work per launch), --compile, "
                   "and the data rules above")


def step_outliers(f: Facts) -> Finding:
    steps = f.step_ms
    if len(steps) < 5:
        return Finding("step-time outliers", None, f"only {len(steps)} steps", "5 steps", "")
    median = statistics.median(steps)
    # robust sigma (median absolute deviation): one slow step must not hide itself in the std
    sigma = 1.4826 * statistics.median(abs(s - median) for s in steps)
    limit = max(median + OUTLIER_SIGMAS * sigma, 1.5 * median)
    slow = [s for s in steps if s > limit]
    return Finding("step-time outliers", bool(slow), f"{len(slow)} of {len(steps)} steps over {limit:.0f} ms "
                   f"(median {median:.0f} ms, max {max(steps):.0f} ms)", f"median + {OUTLIER_SIGMAS:g} sigma",
                   "look for periodic stalls: checkpoints (--save-every), the loader running dry "
                   "(--num-workers), or other jobs on the machine")


def memory_growth(f: Facts) -> Finding:
    if len(f.memory_mib) < 3:
        return Finding("memory growth", None, "fewer than 3 memory readings", "-", "")
    first, last = f.memory_mib[0], f.memory_mib[-1]
    growth = (last - first) / first if first else 0.0
    return Finding("memory growth", growth > MEMORY_GROWTH and last - first > MEMORY_GROWTH_MIB,
                   f"{first:.0f} -> {last:.0f} MiB over {len(f.memory_mib)} steps ({growth:+.0%})",
                   f"+{MEMORY_GROWTH:.0%} and +{MEMORY_GROWTH_MIB:.0f} MiB",
                   "something keeps tensors across steps; profile longer (--profile-steps) and read the memory "
                   "timeline in the TensorBoard trace")


def worker_count(f: Facts) -> Finding:
    total = f.num_workers * f.processes
    over = total > f.cpus
    starved = f.num_workers == 0 and f.shares.get("data", 0.0) > DATA_SHARE / 2
    return Finding("loader workers vs cores", over or starved,
                   f"{f.num_workers} workers x {f.processes} processes on {f.cpus} cores",
                   "workers x processes <= cores, and > 0 workers when loading shows",
                   "--num-workers auto (or measure: python -m distill tune-loader)")


def batch_too_small(f: Facts) -> Finding:
    if f.gpu_memory_share is None:
        return Finding("batch too small for memory", None, "no accelerator memory to fill", "-", "")
    return Finding("batch too small for memory", f.gpu_memory_share < GPU_MEMORY_SHARE,
                   f"peak {f.gpu_memory_share:.0%} of accelerator memory", f"{GPU_MEMORY_SHARE:.0%}",
                   f"--batch-size {2 * f.batch_size} (scale --lr with it)")


RULES = (data_loader_bound, teacher_bound, cpu_bound, low_gpu_utilization, step_outliers, memory_growth,
         worker_count, batch_too_small)


def findings(facts: Facts) -> list[Finding]:
    return [rule(facts) for rule in RULES]


def collect_facts(trainer, skip: int) -> Facts:
    """Facts from a finished run's metrics.jsonl (logged every step) after its first `skip` steps."""
    import json

    from distill.data import available_cpus
    from distill.timing import SECTIONS

    lines = (trainer.log_dir / "metrics.jsonl").read_text().splitlines()
    records = [r for r in map(json.loads, filter(None, lines)) if "time/step_ms" in r and r["step"] > skip]
    total = sum(r["time/step_ms"] for r in records) or 1.0
    memory_key = "mem/cuda_mib" if trainer.device.type == "cuda" else "mem/rss_mib"
    gpu_share = None
    if trainer.device.type == "cuda":
        peak = max((r.get("mem/cuda_peak_mib", 0.0) for r in records), default=0.0)
        gpu_share = peak * 2**20 / torch.cuda.get_device_properties(trainer.device).total_memory
    return Facts(device=str(trainer.device), step_ms=[r["time/step_ms"] for r in records],
                 shares={s: sum(r[f"time/{s}_ms"] for r in records) / total for s in SECTIONS},
                 num_workers=trainer.train_workers, processes=trainer.world, cpus=available_cpus(),
                 batch_size=trainer.cfg.data.batch_size, memory_mib=[r[memory_key] for r in records if memory_key in r],
                 cpu_busy=trainer.profiler.cpu_busy, gpu_busy=trainer.profiler.gpu_busy, gpu_memory_share=gpu_share,
                 teacher_runtime=trainer.teacher.runtime if trainer.teacher is not None else "torch")


def report(facts: Facts) -> str:
    lines = [f"bottleneck report ({len(facts.step_ms)} profiled steps on {facts.device}):"]
    return "\n".join(lines + [finding.line() for finding in findings(facts)])
