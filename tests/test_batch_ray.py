"""`python -m app batch --engine ray`: the same output files as the local engine, on a local Ray instance."""

from __future__ import annotations

import hashlib
import logging
import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import ray
from PIL import Image

from app.batch import BatchConfig, main, plan_batch, run_batch
from app.batch.rayengine import STAGING_TIMEOUT_S, model_file, prune_model_copies
from batch_support import (  # batch_database, model: fixtures
    UNKNOWN_LABEL, batch_database, interrupt_after, jpeg_bytes, model, photo, read_csv, read_rows, tiny_model, write_csv,
)

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module", autouse=True)
def ray_instance(tmp_path_factory):
    # One small instance for the module: starting Ray costs seconds, each run only its actors.
    # The actors' model copies go to a temporary folder of the test run, not the machine's.
    workers_tmp = str(tmp_path_factory.mktemp("ray-workers"))
    ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False,
             runtime_env={"env_vars": {"TMPDIR": workers_tmp}})
    yield
    ray.shutdown()


def run(csv: Path, out: Path, model: Path, engine: str, *extra) -> int:
    return main([str(csv), "--out", str(out), "--model", str(model), "--workers", "2", "--batch-size", "4",
                 "--engine", engine, "--confidence-threshold", "0", *map(str, extra)])


def awkward_input(folder: Path) -> Path:
    """Good photos among every kind of bad row, over several chunks of 4."""
    root = folder / "photos"
    for i in range(7):
        photo(root / f"img{i}.jpg", seed=i)
    (root / "corrupt.jpg").write_bytes(jpeg_bytes(3)[:300])
    (root / "text.jpg").write_text("just some text")
    Image.new("1", (9000, 9000)).save(root / "bomb.png")  # over the pixel limit
    outside = photo(folder / "outside.jpg")
    (root / "link.jpg").symlink_to(outside)
    rows = [
        ["img0.jpg", "100", "2024-05-01 12:00", "ann", "=HYPERLINK(\"x\")"],
        ["missing.jpg", "", "", "ann", ""],
        ["img1.jpg", "", "2024-05-01 19:00", "bob", "-5"],
        ["corrupt.jpg", "", "", "", ""],
        ["../outside.jpg", "", "", "", ""],
        ["img2.jpg", "abc", "", "", ""],
        ["img3.jpg", "80", "2024-05-02", "ann", "@SUM(A1)"],
        ["link.jpg", "", "", "", ""],
        [str(outside), "", "", "", ""],
        ["text.jpg", "", "", "", ""],
        ["bomb.png", "", "", "", ""],
        ["img4.jpg", "", "yesterday", "", ""],
        ["img5.jpg", "50", "", "bob", "note"],
        ["", "10", "", "", ""],
        ["img6.jpg", "70", "2024-05-02 08:00", "bob", "+1"],
    ]
    return write_csv(root / "meals.csv", ["image", "grams", "eaten_at", "user", "note"], rows)


@pytest.mark.parametrize("labels", ["known", "unknown"])
def test_both_engines_write_identical_files(tmp_path, model, labels):
    used = model if labels == "known" else tiny_model(tmp_path.parent, [UNKNOWN_LABEL])
    csv = awkward_input(tmp_path)
    assert run(csv, tmp_path / "local.csv", used, "local") == 1
    assert run(csv, tmp_path / "ray.csv", used, "ray") == 1
    local = (tmp_path / "local.csv").read_bytes()
    assert (tmp_path / "ray.csv").read_bytes() == local
    assert (tmp_path / "ray.summary.csv").read_bytes() == (tmp_path / "local.summary.csv").read_bytes()
    results = read_csv(tmp_path / "ray.csv")
    errors = {r["image"]: r["error"] for r in results if r["status"] == "error"}
    assert "file not found" in errors["missing.jpg"]
    assert "truncated" in errors["corrupt.jpg"] and "not an image" in errors["text.jpg"]
    assert "too large" in errors["bomb.png"]
    assert all("refused" in errors[name] for name in ("../outside.jpg", "link.jpg", str(tmp_path / "outside.jpg")))
    assert "grams must be a number" in errors["img2.jpg"] and "not understood" in errors["img4.jpg"]
    if labels == "known":
        assert [r["image"] for r in results if r["status"] == "ok"] == [f"img{i}.jpg" for i in (0, 1, 3, 5, 6)]
        assert [cells[4] for cells in read_rows(tmp_path / "ray.csv")[1:8:6]] == ["'=HYPERLINK(\"x\")", "'@SUM(A1)"]
    else:
        assert not any(r["status"] == "ok" for r in results)
        assert "no nutrition data" in errors["img0.jpg"] and results[0]["predicted_label"] == UNKNOWN_LABEL


def test_resume_with_ray_equals_an_uninterrupted_run(tmp_path, model):
    from models.engine import Engine

    csv = awkward_input(tmp_path)
    reference = tmp_path / "reference.csv"
    assert run(csv, reference, model, "local") == 1
    whole = reference.read_bytes()
    out = tmp_path / "out.csv"
    plan = plan_batch(BatchConfig(input=csv, out=out, model=model, batch_size=4, workers=2, engine="ray",
                                  confidence_threshold=0))
    with pytest.raises(KeyboardInterrupt):
        run_batch(plan, Engine(model), progress=interrupt_after(8))  # two chunks
    assert len(read_rows(out)) == 9
    assert ray.is_initialized()  # the caller's instance is left running
    assert run(csv, out, model, "ray", "--resume") == 1
    assert out.read_bytes() == whole
    # Torn inside a chunk, by either engine: a ray resume completes it the same way.
    out.write_bytes(whole[: whole.index(b"img5.jpg")])
    assert run(csv, out, model, "ray", "--resume") == 1
    assert out.read_bytes() == whole


def test_without_ray_installed_the_error_says_how_to_install_it(tmp_path, model, monkeypatch, capsys):
    photo(tmp_path / "a.jpg")
    csv = write_csv(tmp_path / "m.csv", ["image"], [["a.jpg"]])
    monkeypatch.setitem(sys.modules, "ray", None)  # what `import ray` does where it is not installed
    assert run(csv, tmp_path / "out.csv", model, "ray") == 2
    assert "pip install 'foodtag[ray]'" in capsys.readouterr().err
    assert not (tmp_path / "out.csv").exists()


def test_bad_engine_options_exit_2(tmp_path, model, capsys):
    photo(tmp_path / "a.jpg")
    csv = write_csv(tmp_path / "m.csv", ["image"], [["a.jpg"]])
    assert run(csv, tmp_path / "out.csv", model, "local", "--address", "auto") == 2
    assert "options of --engine ray" in capsys.readouterr().err
    assert run(csv, tmp_path / "out.csv", model, "ray", "--address", "10.0.0.1:6379") == 2
    assert "ray://HOST:PORT or auto" in capsys.readouterr().err
    assert run(csv, tmp_path / "out.csv", model, "ray", "--actor-cpus", "64") == 2
    assert "only 2 CPUs" in capsys.readouterr().err
    assert not (tmp_path / "out.csv").exists()


def batch_process(*args: str) -> subprocess.CompletedProcess:
    """`python -m app batch ARGS` in a fresh process (this one is connected to the module's Ray)."""
    return subprocess.run(
        [sys.executable, "-m", "app", "batch", *args],
        cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True, timeout=180,
    )


def test_address_auto_joins_the_running_cluster(tmp_path, model):
    csv = awkward_input(tmp_path)
    assert run(csv, tmp_path / "local.csv", model, "local") == 1
    done = batch_process(str(csv), "--out", str(tmp_path / "ray.csv"), "--model", str(model), "--batch-size", "4",
                         "--engine", "ray", "--address", "auto", "--confidence-threshold", "0")
    assert done.returncode == 1, done.stderr
    assert (tmp_path / "ray.csv").read_bytes() == (tmp_path / "local.csv").read_bytes()


def test_unreachable_address_is_a_clear_error_and_touches_nothing(tmp_path, model):
    photo(tmp_path / "a.jpg")
    csv = write_csv(tmp_path / "m.csv", ["image"], [["a.jpg"]])
    out = tmp_path / "out.csv"
    out.write_text("kept\n")
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = batch_process(str(csv), "--out", str(out), "--model", str(model),
                         "--engine", "ray", "--address", f"ray://127.0.0.1:{port}", "--resume")
    assert done.returncode == 2, done.stderr
    assert f"cannot reach 127.0.0.1:{port}" in done.stderr and "ray start --head" in done.stderr
    assert out.read_text() == "kept\n"


def test_each_node_keeps_one_checked_copy_of_the_model(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    data = b"the model's bytes"
    digest, reference = hashlib.sha256(data).hexdigest(), ray.put(data)
    path = model_file(reference, digest)
    assert path.read_bytes() == data
    path.write_bytes(b"planted by someone else")  # replaced, never loaded
    assert model_file(reference, digest) == path and path.read_bytes() == data
    assert list(path.parent.iterdir()) == [path]


def test_a_node_keeps_only_its_most_recently_used_model_copies(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))

    def copy_of(i: int) -> Path:
        data = f"model {i}".encode()
        return model_file(ray.put(data), hashlib.sha256(data).hexdigest())

    paths = []
    for i in range(4):
        paths.append(copy_of(i))
        os.utime(paths[-1], (1000 + i, 1000 + i))  # written in this order, a second apart
    assert copy_of(0) == paths[0]  # model 0 runs again: kept, although it was written first
    paths += [copy_of(4), copy_of(5)]
    assert sorted(tmp_path.glob("*/*.onnx")) == sorted([paths[0], paths[3], paths[4], paths[5]])


def test_pruning_deletes_staging_files_of_killed_actors_only(tmp_path):
    abandoned, in_progress = tmp_path / "a.123.tmp", tmp_path / "b.456.tmp"
    for path in (abandoned, in_progress):
        path.write_bytes(b"half a model")
    old = abandoned.stat().st_mtime - STAGING_TIMEOUT_S - 60
    os.utime(abandoned, (old, old))
    prune_model_copies(tmp_path)
    assert sorted(tmp_path.iterdir()) == [in_progress]
