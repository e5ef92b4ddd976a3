"""Which file a model is served from on this machine (models.runtime_choice), decided with fake
timings so that no assertion depends on this machine's speed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import onnx
import pytest

from batch_support import tiny_model
from models import runtime_choice
from models.metadata import read_metadata, set_metadata
from models.runtime_choice import choose, choose_for_file, serving_candidates

CPU = "AMD EPYC 9R14, 2 cores (avx2, avx512_bf16, avx512_vnni, avx512f)"


def write_int8(fp32: Path, agreement: float, source_version: str | None = None) -> Path:
    """A stand-in for the quantiser's output beside ``fp32``: the same graph, int8 metadata."""
    meta = read_metadata(fp32)
    path = fp32.with_name(fp32.stem + ".int8.onnx")
    proto = set_metadata(onnx.load(str(fp32)), {**meta, "precision": "int8", "top1_agreement": f"{agreement:.4f}",
                                                 "source_version": source_version or meta["version"]})
    onnx.save(proto, str(path))
    return path


@pytest.fixture
def model(tmp_path, tmp_path_factory) -> Path:
    path = tmp_path / "models" / "meal.onnx"
    path.parent.mkdir()
    shutil.copyfile(tiny_model(tmp_path_factory.mktemp("tiny")), path)
    write_int8(path, 0.995)
    return path


class FakeTimer:
    """Times int8 at ``int8`` x fp32 and counts how often it was asked."""

    def __init__(self, int8: float):
        self.int8, self.calls = int8, 0

    def __call__(self, candidates):
        self.calls += 1
        assert [c.name for c in candidates] == ["fp32", "int8"]
        return {"fp32": 1.0, "int8": self.int8}


def test_int8_is_served_only_where_it_is_faster_than_fp32(model):
    slower = choose(serving_candidates(model), measure=FakeTimer(0.62), cpu=lambda: CPU)
    assert (slower.name, slower.path) == ("fp32", model)
    assert slower.reason == f"fp32: int8 was 0.62x at batch 1 on {CPU}"

    faster = choose(serving_candidates(model), measure=FakeTimer(1.38), cpu=lambda: CPU)
    assert (faster.name, faster.path) == ("int8", model.with_name("meal.int8.onnx"))
    assert faster.reason == f"int8: 1.38x fp32 at batch 1 on {CPU}, agreement 99.50%"

    # Within a short timing's noise (SERVE_MARGIN) the exact file is kept.
    assert choose(serving_candidates(model), measure=FakeTimer(1.08), cpu=lambda: CPU).name == "fp32"
    assert choose(serving_candidates(model), measure=FakeTimer(1.12), cpu=lambda: CPU).name == "int8"


def test_int8_under_the_agreement_threshold_is_not_even_timed(model):
    write_int8(model, 0.97)

    def no_timing(candidates):
        raise AssertionError("a file that disagrees with fp32 must not be timed")

    choice = choose_for_file(model, measure=no_timing, cpu=lambda: CPU)
    assert choice.path == model
    assert choice.reason == "fp32: the only file; int8 agrees on 97.00%, under the 99% threshold"


def test_an_int8_file_of_another_model_is_not_a_candidate(model):
    write_int8(model, 0.995, source_version="0123456789ab")
    assert [c.name for c in serving_candidates(model)] == ["fp32"]


def test_the_choice_is_cached_per_file_and_cpu_kind(model):
    timer = FakeTimer(1.38)
    first = choose_for_file(model, measure=timer, cpu=lambda: CPU)
    cache = model.with_name("meal.choice.json")
    assert timer.calls == 1 and not first.cached and json.loads(cache.read_text())["name"] == "int8"

    again = choose_for_file(model, measure=timer, cpu=lambda: CPU)
    assert timer.calls == 1 and again.cached
    assert (again.name, again.path, again.reason) == (first.name, first.path, first.reason)

    # Another CPU kind (the same folder on another machine) times again, and may choose otherwise.
    other = choose_for_file(model, measure=FakeTimer(0.8), cpu=lambda: "Intel Xeon E5-2680, 2 cores (avx2)")
    assert (other.name, other.cached) == ("fp32", False)

    # A new int8 file (another quantisation) times again.
    write_int8(model, 0.996)
    timer = FakeTimer(1.5)
    assert choose_for_file(model, measure=timer, cpu=lambda: CPU).reason.startswith("int8: 1.50x fp32")
    assert timer.calls == 1

    # An unreadable cache is timed over, not an error.
    cache.write_text("{not json")
    assert not choose_for_file(model, measure=FakeTimer(1.38), cpu=lambda: CPU).cached


def test_the_app_serves_the_chosen_file_and_lists_the_model_once(model, monkeypatch):
    from app.model_catalog import ModelCatalog

    monkeypatch.setenv("FOODTAG_HOME", str(model.parent.parent))
    monkeypatch.setattr(runtime_choice, "time_at_batch_1", FakeTimer(1.38))
    catalog = ModelCatalog(default_path=lambda: model)
    infos, problems = catalog.list()
    assert [info.name for info in infos] == ["meal"] and not problems
    engine, info = catalog.active()
    assert info.path == model.resolve() and engine.path == model.with_name("meal.int8.onnx").resolve()

    monkeypatch.setattr(runtime_choice, "time_at_batch_1", FakeTimer(0.62))
    model.with_name("meal.choice.json").unlink()
    engine, _ = ModelCatalog(default_path=lambda: model).active()
    assert engine.path == model.resolve()


def test_deploy_installs_the_int8_file_beside_the_student_and_drops_a_stale_one(model, tmp_path, monkeypatch):
    from app.model_catalog import ModelCatalog
    from distill.deploy import deploy

    monkeypatch.setenv("FOODTAG_HOME", str(tmp_path / "home"))
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    shutil.copyfile(model, run_dir / "student.onnx")
    shutil.copyfile(model.with_name("meal.int8.onnx"), run_dir / "student.int8.onnx")
    (run_dir / "student.report.json").write_text(json.dumps({"top1": 0.5}))

    installed = deploy(run_dir, name="meal")
    int8 = installed.with_name("meal.int8.onnx")
    assert read_metadata(int8)["source_version"] == read_metadata(installed)["version"]
    assert [c.name for c in serving_candidates(installed)] == ["fp32", "int8"]
    infos, _ = ModelCatalog(default_path=lambda: installed).list()
    assert [info.name for info in infos] == ["meal"]

    # A later model without an int8 file must not be served through the earlier model's int8 file.
    (run_dir / "student.int8.onnx").unlink()
    deploy(run_dir, name="meal", force=True)
    assert not int8.exists() and [c.name for c in serving_candidates(installed)] == ["fp32"]
