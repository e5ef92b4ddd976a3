"""Always-on step timing: where each training step's wall time goes.

The trainer calls `mark(section)` at the end of each phase, so the marks partition the
time line: data (waiting for the loader, host-to-device copy, Mixup), teacher (forward),
student (forward and loss), backward (on DDP it includes the gradient all-reduce, which
overlaps it), optimizer (clip, step, zero_grad, EMA) and comm (the metrics all-reduce at
each log). The sections therefore add up to the step time. Checkpointing and evaluation
are left out (`restart()`).

On CUDA each mark records an event on the current stream instead of reading a clock, so
nothing synchronises per step; the durations are read in `window()`, which the trainer
calls at its logging sync point. A data section measured this way is the time the device
sat idle waiting for input (the exposed wait), which is what matters.
"""

from __future__ import annotations

import time
from collections import defaultdict

import torch

SECTIONS = ("data", "teacher", "student", "backward", "optimizer", "comm")


class StepTimer:
    def __init__(self, device: torch.device):
        self.cuda = device.type == "cuda"
        self.marks: list[tuple[str | None, object]] = []  # (section ending here, clock or event)
        self.steps = 0
        self.step_ms: list[float] = []  # every step of the run, for outlier detection
        self.total_ms: dict[str, float] = defaultdict(float)
        self.run_steps = 0
        self.restart()

    def _now(self):
        if not self.cuda:
            return time.perf_counter()
        event = torch.cuda.Event(enable_timing=True)
        event.record()
        return event

    def restart(self) -> None:
        """Start timing afresh from now (after a checkpoint or an evaluation)."""
        self.marks.append((None, self._now()))

    def mark(self, section: str) -> None:
        self.marks.append((section, self._now()))

    def end_step(self) -> None:
        self.marks.append(("|", None))  # a step boundary in the mark list
        self.steps += 1

    def _elapsed_ms(self, start, end) -> float:
        return start.elapsed_time(end) if self.cuda else (end - start) * 1000

    def window(self) -> dict[str, float]:
        """Mean ms per step of each section since the last call (and its steps), then reset."""
        clocks = [clock for _, clock in self.marks if clock is not None]
        if self.cuda and clocks:
            clocks[-1].synchronize()  # the one sync point: every earlier event has completed too
        sums: dict[str, float] = defaultdict(float)
        step, previous = 0.0, None
        for section, clock in self.marks:
            if section == "|":
                self.step_ms.append(step)
                step = 0.0
                continue
            if section is not None and previous is not None:
                ms = self._elapsed_ms(previous, clock)
                sums[section] += ms
                step += ms
            previous = clock
        if step and self.step_ms:  # sections after the last step boundary (comm at logging) are its
            self.step_ms[-1] += step
        steps, self.steps = self.steps, 0
        self.marks = [(None, previous)] if previous is not None else []
        for section, ms in sums.items():
            self.total_ms[section] += ms
        self.run_steps += steps
        return {section: sums.get(section, 0.0) / max(steps, 1) for section in SECTIONS} | {"steps": steps}

    def record(self) -> dict[str, float]:
        """The window's figures as metrics: time/<section>_ms, time/step_ms, time/data_share."""
        window = self.window()
        step = sum(window[s] for s in SECTIONS)
        record = {f"time/{s}_ms": round(window[s], 3) for s in SECTIONS}
        record["time/step_ms"] = round(step, 3)
        record["time/data_share"] = round(window["data"] / step, 4) if step else 0.0
        return record

    def table(self) -> str:
        """The whole run's breakdown, one line per section."""
        steps = max(self.run_steps, 1)
        total = sum(self.total_ms.values()) / steps
        lines = [f"step time breakdown over {self.run_steps} steps ({total:.1f} ms/step):"]
        for section in SECTIONS:
            ms = self.total_ms.get(section, 0.0) / steps
            lines.append(f"  {section:<10} {ms:9.1f} ms  {100 * ms / total if total else 0:5.1f}%")
        return "\n".join(lines)
