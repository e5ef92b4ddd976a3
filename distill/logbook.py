"""Run logging on rank 0: tqdm bar, metrics.jsonl, TensorBoard scalars, curves.png at the end."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from tqdm import tqdm


class Logbook:
    def __init__(self, log_dir: Path | None, *, total_steps: int, step: int, progress: bool, tensorboard: bool):
        """log_dir None: this process logs nothing (not rank 0)."""
        self.log_dir = log_dir
        self.bar = self.writer = None
        if log_dir is None:
            return
        log_dir.mkdir(parents=True, exist_ok=True)
        self.jsonl = log_dir / "metrics.jsonl"
        self._drop_after(step)
        if progress:
            self.bar = tqdm(total=total_steps, initial=step, unit="step", dynamic_ncols=True, file=sys.stderr)
        if tensorboard:
            try:
                from torch.utils.tensorboard import SummaryWriter
            except ImportError:  # tensorboard is optional
                SummaryWriter = None
            if SummaryWriter is not None:
                self.writer = SummaryWriter(str(log_dir / "tensorboard"), purge_step=step or None)

    def _drop_after(self, step: int) -> None:
        """A resumed run repeats the steps after its checkpoint: forget their old records."""
        if not self.jsonl.exists():
            return
        records = [line for line in self.jsonl.read_text().splitlines() if line.strip()]
        kept = [line for line in records if json.loads(line).get("step", 0) <= step]
        if len(kept) != len(records):
            tmp = self.jsonl.with_suffix(".tmp")
            tmp.write_text("".join(line + "\n" for line in kept))
            os.replace(tmp, self.jsonl)

    def advance(self, steps: int = 1, **postfix) -> None:
        if self.bar is not None:
            self.bar.update(steps)
            if postfix:
                self.bar.set_postfix(postfix, refresh=False)

    def message(self, text: str) -> None:
        if self.log_dir is None:
            return
        if self.bar is not None:
            self.bar.write(text, file=sys.stderr)
        else:
            print(text, file=sys.stderr, flush=True)

    def log(self, record: dict) -> None:
        if self.log_dir is None:
            return
        with open(self.jsonl, "a") as f:
            f.write(json.dumps(record) + "\n")
        if self.writer is not None:
            for key, value in record.items():
                if isinstance(value, (int, float)) and key not in ("step", "epoch"):
                    self.writer.add_scalar(key, value, record["step"])

    def close(self, plot: bool = True) -> Path | None:
        if self.log_dir is None:
            return None
        if self.bar is not None:
            self.bar.close()
        if self.writer is not None:
            self.writer.close()
        return plot_curves(self.jsonl, self.log_dir / "curves.png") if plot else None


def plot_curves(jsonl: Path, out: Path) -> Path | None:
    """Training loss per step and validation accuracy per epoch, from metrics.jsonl."""
    if not jsonl.exists():
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    records = [json.loads(line) for line in jsonl.read_text().splitlines() if line.strip()]
    train = [r for r in records if "train/loss" in r]
    val = [r for r in records if any(k.startswith("val/") for k in r)]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.plot([r["step"] for r in train], [r["train/loss"] for r in train])
    left.set(xlabel="step", ylabel="training loss", title="loss")
    for key, name in (("val/top1", "top-1"), ("val/top5", "top-5"), ("val/agreement", "teacher agreement")):
        points = [(r["step"], r[key]) for r in val if key in r]
        if points:
            right.plot(*zip(*points), marker="o", label=name)
    right.set(xlabel="step", ylabel="validation", title="accuracy", ylim=(0, 1))
    if right.get_legend_handles_labels()[0]:
        right.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out
