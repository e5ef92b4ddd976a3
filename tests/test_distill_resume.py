"""Resume exactness: a run SIGKILLed mid-epoch and resumed ends with the uninterrupted weights.

CPU, --deterministic, same thread count. Augmentation (RandAugment, random erasing,
Mixup/CutMix), dropout and EMA are all on, and the killed run loads data with 2 workers
while the others load in-process: none of that may change a single bit.
"""

import os
import signal
import subprocess
import sys
import time

import torch

from distill_support import REPO, TINY_VIT, run_cli, tiny_args

KWARGS = "{" + ", ".join(f"{k}: {v}" for k, v in {**TINY_VIT, "drop_rate": 0.1}.items()) + "}"


def args(out, **extra):
    return tiny_args(out, synthetic_images=96, epochs=3, model_kwargs=KWARGS, augment="true", ema="true",
                     deterministic="true", save_every=5, log_every=4, **extra)


def test_killed_mid_epoch_and_resumed_matches_uninterrupted(tmp_path):
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    assert run_cli("train", *args(whole)) == 0

    env = {**os.environ, "PYTHONPATH": str(REPO), "OMP_NUM_THREADS": str(torch.get_num_threads())}
    process = subprocess.Popen([sys.executable, "-m", "distill", "train", *args(killed, num_workers=2)],
                               cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not (killed / "last.pt").exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    process.send_signal(signal.SIGKILL)
    _, err = process.communicate(timeout=30)
    assert process.returncode == -signal.SIGKILL, err.decode()[-2000:]
    state = torch.load(killed / "last.pt", weights_only=True)
    assert 0 < state["step"] < 36 and state["epoch_samples"] > 0, "the kill should land mid-epoch"

    assert run_cli("train", "--resume", str(killed / "last.pt")) == 0
    a = torch.load(whole / "last.pt", weights_only=True)
    b = torch.load(killed / "last.pt", weights_only=True)
    assert a["step"] == b["step"] == 36
    for key in ("student", "ema"):
        assert a[key].keys() == b[key].keys()
        assert all(torch.equal(a[key][k], b[key][k]) for k in a[key]), key
    assert all(torch.equal(a["optimizer"]["state"][i]["exp_avg"], b["optimizer"]["state"][i]["exp_avg"])
               for i in a["optimizer"]["state"])
    assert a["metrics"] == b["metrics"]
    # metrics.jsonl holds each step once, even though the killed run logged past its checkpoint
    steps = [line for line in (killed / "metrics.jsonl").read_text().splitlines() if "train/loss" in line]
    assert len(steps) == 9
