"""Multi-node torchrun (two "nodes" on this host: c10d rendezvous, gloo) and elastic restarts.

Two nodes x 1 process x batch B must give the weights of 1 process x batch 2B, as in
test_distill_ddp (same tolerance, same reason). A worker killed under --max-restarts 1 is
restarted with its group, continues from the run folder's last.pt and ends bit for bit where
an uninterrupted 2-process run ends (--deterministic; the trainer's resume is exact). A node
that stops ends the other node's run with a one-line error within seconds, never a hang.
"""

import os
import signal
import socket
import subprocess
import time

import pytest
import torch

from distill_support import (REPO, checkpoint_weights, free_port, launch_env, max_difference, process_tree,
                             run_cli, save_teacher, tiny_args, torchrun)
from distill.train import resume_path

TOLERANCE = 1e-5
CLASSES = [f"class_{i}" for i in range(4)]
STEPS = 32  # 256 synthetic training images (and 64 validation), 8 per global batch


def args(out, teacher, **extra):
    options = dict(teacher=f"ckpt:{teacher}", synthetic_images=256, alpha=0.5, temperature=2, ema="true",
                   ema_decay=0.9, clip_grad=0.5, save_every=4, deterministic="true", log_every=10, dist_timeout=30)
    return tiny_args(out, **{**options, **extra})


def start_node(port: int, train_args: list[str], log) -> subprocess.Popen:
    command = torchrun("--nnodes", "2", "--nproc-per-node", "1", "--rdzv-backend", "c10d",
                       "--rdzv-endpoint", f"127.0.0.1:{port}", "-m", "distill", "train", *train_args)
    return subprocess.Popen(command, cwd=REPO, env=launch_env(), stdout=subprocess.DEVNULL, stderr=log)


def start_two_nodes(train_args: list[str], logs: list) -> list[subprocess.Popen]:
    """Node 0 first, so that it hosts the rendezvous store (as the --rdzv-endpoint host would)."""
    port = free_port()
    first = start_node(port, train_args, logs[0])
    deadline = time.monotonic() + 60
    while not _listening(port) and first.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    return [first, start_node(port, train_args, logs[1])]


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def wait_for(path, process, timeout=90):
    deadline = time.monotonic() + timeout
    while not path.exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert path.exists(), f"{path} never appeared"


def kill_tree(pid: int) -> None:
    for p in reversed(process_tree(pid)):
        os.kill(p, signal.SIGKILL)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("multinode")
    teacher = save_teacher(root / "teacher.pt", CLASSES, seed=1)
    assert run_cli("train", *args(root / "single", teacher, batch_size=8)) == 0
    logs = [open(root / f"node{n}.log", "w+") for n in range(2)]
    nodes = start_two_nodes(args(root / "nodes", teacher, batch_size=4), logs)
    for node, log in zip(nodes, logs):
        assert node.wait(timeout=180) == 0, (log.seek(0), log.read()[-3000:])[1]
    return root, teacher


def test_two_nodes_match_one_process_with_double_batch(runs):
    root, _ = runs
    single, nodes = (torch.load(root / n / "last.pt", weights_only=True) for n in ("single", "nodes"))
    assert single["step"] == nodes["step"] == STEPS and nodes["world_size"] == 2
    assert max_difference(checkpoint_weights(root / "single" / "last.pt"), checkpoint_weights(root / "nodes" / "last.pt")) < TOLERANCE
    assert max_difference(single["model"]["state_dict"], nodes["model"]["state_dict"]) < TOLERANCE  # the EMA
    assert max_difference(checkpoint_weights(root / "single" / "last.pt"),
                          torch.load(root / "teacher.pt")["model"]["state_dict"]) > 100 * TOLERANCE


def test_worker_killed_under_max_restarts_continues_and_matches_uninterrupted(runs, tmp_path):
    root, teacher = runs
    out = tmp_path / "elastic"
    with open(tmp_path / "torchrun.log", "w+") as log:
        launcher = subprocess.Popen(
            [*torchrun("--standalone", "--nproc-per-node", "2", "--max-restarts", "1"), "-m", "distill", "train",
             *args(out, teacher, batch_size=4)], cwd=REPO, env=launch_env(), stdout=subprocess.DEVNULL, stderr=log)
        wait_for(out / "last.pt", launcher)
        workers = process_tree(launcher.pid)[1:]
        os.kill(workers[-1], signal.SIGKILL)  # one worker dies mid-run; torchrun restarts the group
        killed_at = torch.load(out / "last.pt", weights_only=True)["step"]
        code = launcher.wait(timeout=180)
        log.seek(0)
        text = log.read()
    assert code == 0, text[-12000:]
    assert 0 < killed_at < STEPS, "the kill should land mid-run"
    assert "continuing from" in text and str(out / "last.pt") in text  # the restarted group resumed
    whole, restarted = (torch.load(p, weights_only=True) for p in (root / "nodes" / "last.pt", out / "last.pt"))
    assert whole["step"] == restarted["step"] == STEPS
    for key in ("student", "ema"):
        assert all(torch.equal(whole[key][k], restarted[key][k]) for k in whole[key]), key
    assert whole["metrics"] == restarted["metrics"]


def test_a_stopped_node_ends_the_other_with_a_clear_error(runs, tmp_path):
    _, teacher = runs
    out = tmp_path / "lost"
    logs = [open(tmp_path / f"node{n}.log", "w+") for n in range(2)]
    nodes = start_two_nodes(args(out, teacher, batch_size=4, synthetic_images=20000, save_every=2), logs)
    try:
        wait_for(out / "last.pt", nodes[0])
        kill_tree(nodes[1].pid)  # the whole node: launcher and worker
        code = nodes[0].wait(timeout=60)  # gloo sees the closed connection; --dist-timeout bounds the rest
    finally:
        for node in nodes:
            if node.poll() is None:
                kill_tree(node.pid)
    logs[0].seek(0)
    text = logs[0].read()
    assert code != 0
    assert "error: lost contact with the other training processes" in text, text[-3000:]
    assert torch.load(out / "last.pt", weights_only=True)["step"] > 0  # what was saved stays


def test_resume_auto_and_restarts_pick_the_run_folders_last_pt(tmp_path):
    last = tmp_path / "last.pt"
    out = {"out": str(tmp_path)}
    assert resume_path({**out, "resume": "auto"}, env={}) == ""  # nothing yet: a fresh start
    assert resume_path(out, env={"TORCHELASTIC_RESTART_COUNT": "1"}) == ""
    last.write_bytes(b"")
    assert resume_path({**out, "resume": "auto"}, env={}) == str(last)
    assert resume_path(out, env={"TORCHELASTIC_RESTART_COUNT": "1"}) == str(last)
    assert resume_path(out, env={"TORCHELASTIC_RESTART_COUNT": "0"}) == ""  # a first start still refuses later
    assert resume_path({"resume": str(tmp_path / "old.pt")}, env={"TORCHELASTIC_RESTART_COUNT": "2"}) == str(last)
    assert resume_path({}, env={"SM_MODEL_DIR": str(tmp_path), "TORCHELASTIC_RESTART_COUNT": "1"}) == str(last)


def test_resume_auto_needs_a_run_folder_and_a_plain_start_still_refuses(tmp_path, capsys):
    assert run_cli("train", *tiny_args(None, resume="auto")) == 2
    assert "--resume auto continues the run folder's last.pt: pass --out" in capsys.readouterr().err
    out = tmp_path / "run"
    assert run_cli("train", *tiny_args(out, max_steps=2)) == 0
    assert run_cli("train", *tiny_args(out, max_steps=2)) == 2
    assert "already holds last.pt: continue it with --resume auto" in capsys.readouterr().err
    assert run_cli("train", *tiny_args(out, max_steps=4, resume="auto")) == 0
    assert torch.load(out / "last.pt", weights_only=True)["step"] == 4
