"""Step timing, the profiler's bottleneck rules, loader tuning, workers and precision choices."""

from __future__ import annotations

import json
import time

import pytest
import torch
from clock_support import FakeClock
from distill_support import TINY_VIT, run_cli, tiny_args

from distill import data, loader_tuning, precision, profiling

SLOW_IMAGE_S = 0.01


def sleep_in_getitem(monkeypatch, seconds: float) -> None:
    """A dataset that sleeps in __getitem__ (while decoding): a data-bound run."""
    decode = data.SyntheticDataset.decode

    def slow(self, index):
        time.sleep(seconds)
        return decode(self, index)

    monkeypatch.setattr(data.SyntheticDataset, "decode", slow)


def test_timing_breakdown_sums_to_the_measured_step_time(tmp_path, monkeypatch, capsys):
    from distill import timing, train

    clock = FakeClock()
    monkeypatch.setattr(timing, "time", clock)
    monkeypatch.setattr(train, "time", clock)
    decode = data.SyntheticDataset.decode
    monkeypatch.setattr(data.SyntheticDataset, "decode", lambda self, i: (clock.advance(SLOW_IMAGE_S), decode(self, i))[1])
    assert run_cli("train", *tiny_args(tmp_path, epochs=2, log_every=2, val_data="none")) == 0
    records = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert len(records) == 8
    for record in records:
        measured_ms = 1000 * 8 / record["train/images_per_s"]  # batch 8, the clock between logs
        parts = sum(record[f"time/{s}_ms"] for s in ("data", "teacher", "student", "backward", "optimizer", "comm"))
        assert parts == pytest.approx(record["time/step_ms"], abs=0.01)
        # Only decoding moves the clock: each step is exactly its 8 images' decoding, all of it data wait.
        assert record["time/step_ms"] == pytest.approx(measured_ms, abs=0.01)
        assert record["time/data_ms"] == pytest.approx(8 * SLOW_IMAGE_S * 1000, abs=0.01)
        assert record["time/teacher_ms"] == record["time/backward_ms"] == 0  # --teacher none; the clock stood
    err = capsys.readouterr().err
    assert "step time breakdown over 16 steps" in err and "data" in err


def test_profile_reports_a_sleeping_dataset_as_data_bound(tmp_path, monkeypatch, capsys):
    sleep_in_getitem(monkeypatch, 0.1)  # 0.8 s per step of 8: far above the tiny model's compute
    assert run_cli("profile", *tiny_args(tmp_path, profile_steps=3, val_data="none")) == 0
    out = capsys.readouterr().out
    assert "[FIRED] data loader bound: waiting for data" in out
    assert "--num-workers N" in out and "--image-cache DIR" in out
    assert "[   ok] teacher bound" in out
    assert (tmp_path / "profile_trace.json").stat().st_size > 0
    assert list((tmp_path / "tensorboard" / "plugins" / "profile").glob("*.pt.trace.json"))
    assert "aten::" in out  # the top-operators table


def healthy(**changes) -> profiling.Facts:
    facts = dict(device="cuda:0", step_ms=[100.0, 101, 99, 100, 102, 98, 100, 101], batch_size=64,
                 shares={"data": 0.02, "teacher": 0.1, "student": 0.3, "backward": 0.5, "optimizer": 0.07, "comm": 0.01},
                 num_workers=4, processes=2, cpus=16, memory_mib=[1000, 1001, 1000, 1002],
                 cpu_busy=0.4, gpu_busy=0.95, gpu_memory_share=0.6)
    return profiling.Facts(**{**facts, **changes})


FIRING = {
    "data loader bound": dict(shares={"data": 0.6, "backward": 0.4}),
    "teacher bound": dict(shares={"teacher": 0.5, "backward": 0.5}),
    "CPU bound": dict(cpu_busy=0.97, gpu_busy=0.2),
    "low accelerator utilisation": dict(gpu_busy=0.4),
    "step-time outliers": dict(step_ms=[100.0, 101, 99, 100, 400, 98, 100, 101]),
    "memory growth": dict(memory_mib=[1000, 1100, 1200, 1300]),
    "loader workers vs cores": dict(num_workers=16),
    "batch too small for memory": dict(gpu_memory_share=0.05),
}


@pytest.mark.parametrize("rule", list(FIRING))
def test_each_rule_fires_on_its_case_with_figure_threshold_and_flag(rule):
    fired = {f.rule: f for f in profiling.findings(healthy(**FIRING[rule])) if f.fired}
    assert rule in fired
    finding = fired[rule]
    assert finding.figure and finding.threshold
    assert "--" in finding.suggestion or "python -m distill" in finding.suggestion
    assert "FIRED" in finding.line() and finding.threshold in finding.line()


def test_a_teacher_bound_cpu_run_on_pytorch_is_pointed_to_onnxruntime():
    teacher_bound = dict(device="cpu", shares={"teacher": 0.6, "backward": 0.4})
    on_torch, on_ort = (next(f for f in profiling.findings(healthy(**teacher_bound, teacher_runtime=runtime))
                             if f.rule == "teacher bound") for runtime in ("torch", "onnxruntime"))
    assert on_torch.fired and "--teacher-runtime onnxruntime" in on_torch.suggestion
    assert on_ort.fired and "--teacher-runtime" not in on_ort.suggestion and "--logit-cache" in on_ort.suggestion


def test_rules_stay_silent_on_a_healthy_run():
    assert [f.rule for f in profiling.findings(healthy()) if f.fired] == []
    on_cpu = profiling.findings(healthy(device="cpu", cpu_busy=None, gpu_busy=None, gpu_memory_share=None))
    assert not any(f.fired for f in on_cpu)
    assert {f.rule for f in on_cpu if f.fired is None} == {"CPU bound", "low accelerator utilisation",
                                                           "batch too small for memory"}


def test_loader_pick_is_the_smallest_setting_near_the_best():
    S = loader_tuning.Setting
    assert loader_tuning.pick({S(0): 50.0, S(1): 95.0, S(2): 99.0, S(4): 100.0}).workers == 1
    assert loader_tuning.pick({S(0): 10.0, S(2): 50.0, S(4): 100.0}).workers == 4
    assert loader_tuning.ladder(2) == [0, 1, 2, 4] and loader_tuning.ladder(8)[-1] == 16


def test_tune_loader_measures_the_real_dataset(capsys):
    assert run_cli("tune-loader", "--data", "synthetic", "--synthetic-images", "64", "--batch-size", "8",
                   "--batches", "2", "--model", "vit_micro", "--model-kwargs",
                   "{img_size: 16, patch_size: 8, depth: 1, embed_dim: 16, num_heads: 2}") == 0
    out = capsys.readouterr().out
    assert "0 workers" in out and "chosen: --num-workers" in out
    assert run_cli("tune-loader", "--data", "synthetic", "--batches", "0") == 2


def test_num_workers_auto_shares_the_cores(monkeypatch):
    monkeypatch.setattr(data, "available_cpus", lambda: 16)
    assert data.resolve_workers("auto", 1) == 8 and data.resolve_workers("auto", 4) == 4
    monkeypatch.setattr(data, "available_cpus", lambda: 2)
    assert data.resolve_workers("auto", 2) == 1 and data.resolve_workers("3", 1) == 3


def test_bad_num_workers_is_refused(tmp_path, capsys):
    assert run_cli("train", *tiny_args(tmp_path, num_workers="many")) == 2
    assert "num_workers must be auto or a number" in capsys.readouterr().err


def test_auto_precision_uses_bf16_only_where_the_cpu_has_it(monkeypatch):
    cpu = torch.device("cpu")
    monkeypatch.setattr(precision, "cpu_flags", lambda: frozenset({"avx2", "fma"}))
    assert precision.resolve("auto", cpu) == "fp32" and "no native bf16" in precision.capability(cpu)
    monkeypatch.setattr(precision, "cpu_flags", lambda: frozenset({"avx2", "avx512f", "avx512_bf16"}))
    assert precision.resolve("auto", cpu) == "bf16"
    assert precision.resolve("fp32", cpu) == "fp32"


def test_auto_precision_on_a_native_bf16_cpu_trains_in_whichever_is_faster_here(tmp_path, monkeypatch, capsys):
    """Native bf16 is not enough: Lite0 trained 1.6x faster in fp32 than in bf16 on an AMX Xeon."""
    from models.registry import create_model

    model = create_model("vit_micro", labels=["a", "b"], pretrained=False, **TINY_VIT)
    choice, rates = precision.faster_on_cpu(model, 16, channels_last=True, batch=2, rounds=1)
    assert set(rates) == {"fp32", "bf16"} and choice == max(rates, key=rates.get)
    assert all(p.grad is None for p in model.parameters())  # timed on a copy

    monkeypatch.setattr(precision, "cpu_flags", lambda: frozenset({"avx512f", "amx_bf16"}))
    for faster in ("fp32", "bf16"):
        monkeypatch.setattr(precision, "faster_on_cpu", lambda *a, f=faster, **k: (f, {"fp32": 1.0, "bf16": 2.0}))
        assert run_cli("train", *tiny_args(tmp_path / faster, precision="auto", max_steps=1)) == 0
        assert f"--precision auto: {faster}, timed here (fp32 1 images/s, bf16 2 images/s)" in capsys.readouterr().err


def test_plain_kernels_only_for_bf16_on_a_cpu_and_they_compute_the_same():
    from models.registry import create_model

    assert precision.plain_kernels_are_faster("bf16", torch.device("cpu"))
    assert not precision.plain_kernels_are_faster("fp32", torch.device("cpu"))
    assert not precision.plain_kernels_are_faster("bf16", torch.device("cuda"))
    model = create_model("vit_micro", labels=["a", "b", "c"], pretrained=False).eval()
    size = model.preprocess.input_size
    images = torch.randn(2, 3, size, size)
    names = set(model.state_dict())
    with torch.no_grad():
        fused = model(images)
        assert precision.use_plain_kernels(model) == {"attention": len(model.blocks), "patch embedding": 1}
        assert not any(block.attn.fused_attn for block in model.blocks)
        assert isinstance(model.patch_embed.proj, precision.PatchMatmul) and set(model.state_dict()) == names
        torch.testing.assert_close(model(images), fused, rtol=1e-4, atol=1e-5)
    conv = torch.nn.Conv2d(3, 8, 4, stride=4)
    patches = precision.PatchMatmul(3, 8, 4, stride=4)
    patches.load_state_dict(conv.state_dict())
    for side in (16, 18):  # 18: not whole patches, the convolution's own path
        x = torch.randn(2, 3, side, side)
        torch.testing.assert_close(patches(x), conv(x), rtol=1e-4, atol=1e-5)
    patches.to(memory_format=torch.channels_last)  # --channels-last: NHWC weight and input
    x = torch.randn(2, 3, 16, 16).contiguous(memory_format=torch.channels_last)
    torch.testing.assert_close(patches(x), conv(x), rtol=1e-4, atol=1e-5)
    assert not precision.PatchMatmul.replaces(torch.nn.Conv2d(3, 8, 3, stride=1, padding=1))
    assert not precision.PatchMatmul.replaces(torch.nn.Conv2d(3, 8, 1))
