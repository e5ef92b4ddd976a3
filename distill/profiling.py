"""`--profile-steps N`: torch.profiler over N training steps, a trace file and a top-ops table."""

from __future__ import annotations

from pathlib import Path

import torch
from torch.profiler import ProfilerActivity, profile, schedule


class StepProfiler:
    """Call step() after every optimizer step; a no-op unless steps > 0 (rank 0 only)."""

    def __init__(self, steps: int, out_dir: Path | None, device: torch.device):
        self.prof = None
        if steps <= 0 or out_dir is None:
            return
        self.remaining = steps + 1  # one warmup step: the first one pays for lazy init
        self.out_dir, self.device = out_dir, device
        activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.type == "cuda" else [])
        self.prof = profile(activities=activities, schedule=schedule(wait=0, warmup=1, active=steps, repeat=1),
                            on_trace_ready=self._ready)
        self.prof.start()

    def _ready(self, prof) -> None:
        self.out_dir.mkdir(parents=True, exist_ok=True)
        trace = self.out_dir / "profile_trace.json"
        prof.export_chrome_trace(str(trace))
        key = "self_cuda_time_total" if self.device.type == "cuda" else "self_cpu_time_total"
        print(prof.key_averages().table(sort_by=key, row_limit=15), flush=True)
        print(f"profiler trace: {trace} (open in chrome://tracing or https://ui.perfetto.dev)", flush=True)

    def step(self) -> None:
        if self.prof is None:
            return
        self.prof.step()
        self.remaining -= 1
        if self.remaining == 0:
            self.close()

    def close(self) -> None:
        if self.prof is not None:
            prof, self.prof = self.prof, None
            prof.stop()
