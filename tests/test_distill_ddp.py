"""torchrun DDP on CPU (gloo): equivalence with one process, ZeRO, and cross-world checkpoints.

2 processes x batch B must give the weights of 1 process x batch 2B after k steps: the
sampler makes the global batches identical, DDP averages the gradients. What differs is
float summation order (two half-batch means averaged vs one mean, per-process matmul
blocking), so weights agree to TOLERANCE, not bit for bit. AdamW normalises each update to
about lr = 1e-3 per step, so a real mistake (wrong batch, unsynchronised gradients, a
missed step) moves weights by ~1e-3, far above it.
"""

import json

import pytest
import torch

from distill_support import checkpoint_weights, max_difference, run_cli, run_subprocess, save_teacher, tiny_args

TOLERANCE = 1e-5
CLASSES = [f"class_{i}" for i in range(4)]


def args(out, teacher, **extra):
    # no augmentation randomness, no dropout; KD + hard labels, clipping and EMA all in play
    return tiny_args(out, teacher=f"ckpt:{teacher}", synthetic_images=48, alpha=0.5, temperature=2,
                     ema="true", ema_decay=0.9, clip_grad=0.5, save_every=4, **extra)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("ddp")
    teacher = save_teacher(root / "teacher.pt", CLASSES, seed=1)
    assert run_cli("train", *args(root / "single", teacher, batch_size=8)) == 0
    for name, extra in (("ddp", {}), ("zero", {"zero": "true"})):
        result = run_subprocess(["train", *args(root / name, teacher, batch_size=4, **extra)], nproc=2)
        assert result.returncode == 0, result.stderr[-3000:]
    return root


def test_two_processes_match_one_process_with_double_batch(runs):
    single, ddp = (torch.load(runs / n / "last.pt", weights_only=True) for n in ("single", "ddp"))
    assert single["step"] == ddp["step"] == 6 and ddp["world_size"] == 2 and len(ddp["rng"]) == 2
    assert max_difference(checkpoint_weights(runs / "single" / "last.pt"), checkpoint_weights(runs / "ddp" / "last.pt")) < TOLERANCE
    assert max_difference(single["model"]["state_dict"], ddp["model"]["state_dict"]) < TOLERANCE  # the EMA
    # and training really moved the weights by far more than the tolerance
    assert max_difference(checkpoint_weights(runs / "single" / "last.pt"), torch.load(runs / "teacher.pt")["model"]["state_dict"]) > 100 * TOLERANCE


def test_zero_matches_plain_ddp_and_saves_the_full_optimizer_state(runs):
    ddp, zero = (torch.load(runs / n / "last.pt", weights_only=True) for n in ("ddp", "zero"))
    assert max_difference(checkpoint_weights(runs / "ddp" / "last.pt"), checkpoint_weights(runs / "zero" / "last.pt")) < TOLERANCE
    # consolidated on rank 0: every parameter's AdamW state, as without ZeRO
    assert zero["optimizer"]["state"].keys() == ddp["optimizer"]["state"].keys()
    for i, state in ddp["optimizer"]["state"].items():
        assert (state["exp_avg"] - zero["optimizer"]["state"][i]["exp_avg"]).abs().max() < TOLERANCE


def test_two_process_checkpoint_in_one_process_eval(runs, tmp_path):
    out = tmp_path / "metrics.json"
    assert run_cli("eval", "--checkpoint", str(runs / "ddp" / "last.pt"), "--data", "synthetic",
                   "--num-workers", "0", "--json", str(out)) == 0
    metrics = json.loads(out.read_text())
    during_training = torch.load(runs / "ddp" / "last.pt", weights_only=True)["metrics"]  # evaluated by 2 processes
    assert metrics["images"] == during_training["images"] == 12
    assert metrics["top1"] == during_training["top1"] and metrics["agreement"] == during_training["agreement"]


def test_two_process_run_resumes_in_one_process(runs):
    """A 2-process checkpoint continues on 1 process (a new world size re-seeds dropout only)."""
    assert run_cli("train", "--resume", str(runs / "zero" / "last.pt"), "--epochs", "2", "--batch-size", "8",
                   "--out", str(runs / "zero-resumed")) == 0
    assert torch.load(runs / "zero-resumed" / "last.pt", weights_only=True)["step"] == 12
