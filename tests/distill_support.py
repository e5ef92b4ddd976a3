"""Helpers for the distill tests: tiny configs, image trees, teacher checkpoints, launchers."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import torch
from PIL import Image

REPO = Path(__file__).resolve().parents[1]
TINY_VIT = {"img_size": 16, "patch_size": 8, "depth": 1, "embed_dim": 16, "num_heads": 2}
TINY_VIT_YAML = "{img_size: 16, patch_size: 8, depth: 1, embed_dim: 16, num_heads: 2}"


def tiny_args(out: Path | str | None, **options) -> list[str]:
    """`train` options for a seconds-long CPU run; keyword options override (None drops one)."""
    values = {
        "data": "synthetic", "synthetic_images": 64, "synthetic_classes": 4, "model": "vit_micro",
        "model_kwargs": TINY_VIT_YAML, "teacher": "none", "batch_size": 8, "epochs": 1, "num_workers": 0,
        "augment": "false", "progress": "false", "tensorboard": "false", "lr": 1e-3, "warmup_steps": 0,
        "log_every": 1, "out": None if out is None else str(out),
        # fp32 everywhere: `auto` picks bf16 on CPUs with native bf16, and the tests that compare
        # two batch layouts (DDP against one process) need the same arithmetic on every machine.
        "precision": "fp32",
    }
    values.update(options)
    args = []
    for key, value in values.items():
        if value is not None:
            args += ["--" + key.replace("_", "-"), str(value)]
    return args


def run_cli(*args: str) -> int:
    """`python -m distill ...` in this process (faster than a subprocess); returns the exit code."""
    from distill.__main__ import main

    return main(list(args))


def launch_env() -> dict[str, str]:
    """This environment without any launcher variables of an outer torchrun, one thread per process."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(REPO)}
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "TORCHELASTIC_RESTART_COUNT"):
        env.pop(name, None)
    return env


def torchrun(*launcher_args: str) -> list[str]:
    return [sys.executable, "-m", "torch.distributed.run", *launcher_args]


def run_subprocess(args: list[str], nproc: int = 0, timeout: float = 180, **popen) -> subprocess.CompletedProcess:
    """The real entry point: `python -m distill` or, with nproc, `torchrun --nproc-per-node`."""
    launcher = torchrun("--standalone", "--nproc-per-node", str(nproc)) if nproc else [sys.executable]
    return subprocess.run([*launcher, "-m", "distill", *args], cwd=REPO, env=launch_env(), capture_output=True,
                          text=True, timeout=timeout, **popen)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def save_teacher(path: Path, classes: list[str], seed: int = 0, **kwargs) -> Path:
    """An untrained tiny ViT saved in the training-checkpoint layout ("model" record)."""
    from models.checkpoint import model_record
    from models.registry import create_model

    torch.manual_seed(seed)
    model = create_model("vit_micro", labels=classes, pretrained=False, **{**TINY_VIT, **kwargs})
    torch.save({"model": model_record(model)}, path)
    return path


def checkpoint_weights(path: Path) -> dict[str, torch.Tensor]:
    """The raw student weights of a training checkpoint."""
    ckpt = torch.load(path, map_location="cpu", weights_only=True)
    return ckpt["student"] or ckpt["model"]["state_dict"]


def max_difference(a: dict, b: dict) -> float:
    assert a.keys() == b.keys()
    return max((a[k].float() - b[k].float()).abs().max().item() for k in a)


def write_image(path: Path, label: int, index: int, size: int = 24) -> None:
    """A small photo-like image whose colour depends on the class."""
    rng = np.random.default_rng([label, index])
    colour = np.array([(label * 70) % 256, (label * 130 + 60) % 256, (label * 200 + 30) % 256], dtype=np.float64)
    pixels = np.clip(colour + rng.normal(0, 20, (size, size, 3)), 0, 255).astype(np.uint8)
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(pixels, "RGB").save(path)


def image_folder(root: Path, classes: list[str], per_class: int) -> Path:
    for label, name in enumerate(classes):
        for i in range(per_class):
            write_image(root / name / f"{i:03d}.png", label, i)
    return root


def process_tree(pid: int) -> list[int]:
    """pid and all its descendants (torchrun starts its workers in their own sessions, so killing
    the launcher's process group would leave them running)."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:  # already gone
        return []
    return [pid] + [p for child in children for p in process_tree(int(child))]
