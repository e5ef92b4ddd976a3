"""Fused export, int8 with its agreement guard, fp16, engine session settings, draft decoding."""

import json
import os

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch

from conftest import FOOD10
from models import engine as engine_module
from models.bench import benchmark, phone_jpeg
from models.engine import Engine, SessionSettings, cpu_features, default_providers
from models.errors import ModelError
from models.export import export_onnx, parity_images
from models.images import load_image
from models.metadata import read_metadata
from models.quantize import SPEED_TIE, candidates_for, format_report, quantize_model
from models.timing import Speed
from models.registry import create_model
from models.variants import write_fp16

LABELS = ["apple_pie", "bagel", "pizza", "sushi"]
MICRO = {"img_size": 32, "patch_size": 8, "depth": 2, "embed_dim": 32, "num_heads": 2}


@pytest.fixture(scope="module")
def micro():
    torch.manual_seed(0)
    return create_model("vit_micro", labels=LABELS, **MICRO).eval()


@pytest.fixture(scope="module")
def fused_path(micro, tmp_path_factory):
    return export_onnx(micro, tmp_path_factory.mktemp("fused") / "micro.onnx")


@pytest.fixture(scope="module")
def photos_dir(tmp_path_factory):
    """Twelve photo-like JPEGs in an ImageFolder-style tree."""
    root = tmp_path_factory.mktemp("photos")
    for i, image in enumerate(parity_images(count=12, size=96, seed=3)):
        folder = root / LABELS[i % len(LABELS)]
        folder.mkdir(exist_ok=True)
        image.save(folder / f"{i}.jpg", quality=95)
    return root


def _ops(path):
    return {node.op_type for node in onnx.load(str(path)).graph.node}


def _logits(model, engine, images):
    batch = np.stack([engine.preprocess_image(image) for image in images])
    with torch.inference_mode():
        return model(torch.from_numpy(batch)).numpy(), engine.run(batch)


def test_fused_export_runs_attention_layernorm_and_gelu_as_single_ops(micro, fused_path, tmp_path):
    plain_path = export_onnx(micro, tmp_path / "plain.onnx", fuse=False)
    assert {"Attention", "LayerNormalization", "BiasGelu"} <= _ops(fused_path)
    assert "SkipLayerNormalization" not in _ops(fused_path)  # ONNX Runtime's CPU kernel for it is slow
    assert "Attention" not in _ops(plain_path) and "Softmax" in _ops(plain_path)
    meta = read_metadata(fused_path)
    assert json.loads(meta["fused_ops"])["Attention"] == MICRO["depth"]
    assert meta["precision"] == "fp32" and json.loads(meta["labels"]) == LABELS
    assert meta["version"] != read_metadata(plain_path)["version"]
    engine = Engine(fused_path)
    for batch_size in (1, 5):  # dynamic batch through the contrib op
        expected, actual = _logits(micro, engine, parity_images(batch_size))
        np.testing.assert_allclose(actual, expected, atol=1e-4, rtol=1e-4)


def test_int8_keeps_metadata_and_agrees_with_fp32(fused_path, photos_dir, tmp_path):
    out = tmp_path / "micro.int8.onnx"
    report = quantize_model(fused_path, out, photos_dir=photos_dir, agreement_threshold=0.9, timing_batches=())
    assert report.photos == 12 and report.out_path == str(out)
    # Untimed, per-tensor dynamic is checked first and agrees well enough: the others are not checked.
    assert report.candidates[0]["name"] == "dynamic" == report.chosen
    assert [c["top1_agreement"] is None for c in report.candidates] == [False] + [True] * (len(report.candidates) - 1)
    assert "QAttention" in _ops(out)
    source, meta = read_metadata(fused_path), read_metadata(out)
    assert meta["precision"] == "int8" and meta["quantization"] == report.chosen
    assert meta["quantized_on_cpu_features"] == ",".join(sorted(cpu_features()))
    assert meta["labels"] == source["labels"] and meta["preprocess"] == source["preprocess"]
    assert meta["source_version"] == source["version"] != meta["version"]
    # The report's agreement is what the two files really do on those photos.
    fp32, int8 = Engine(fused_path), Engine(out)
    photos = np.stack([fp32.preprocess_image(load_image(p)) for p in sorted(photos_dir.rglob("*.jpg"))])
    agreement = float((fp32.run(photos).argmax(1) == int8.run(photos).argmax(1)).mean())
    assert report.top1_agreement == pytest.approx(agreement) and agreement >= 0.9


def test_static_qdq_is_tried_with_a_calibration_folder(fused_path, photos_dir, tmp_path):
    report = quantize_model(fused_path, tmp_path / "q.onnx", photos_dir=photos_dir, calibration_dir=photos_dir,
                            modes=("static",), agreement_threshold=0.5, timing_batches=())
    assert report.chosen == "static-qdq-per-channel"  # untimed: the first in the expected order
    assert "QuantizeLinear" in _ops(tmp_path / "q.onnx")


def test_quantize_refuses_a_file_without_metadata(micro, photos_dir, tmp_path):
    plain = tmp_path / "plain.onnx"
    torch.onnx.export(micro, (torch.zeros(1, 3, 32, 32),), str(plain), opset_version=17, dynamo=False)
    with pytest.raises(ModelError, match="no foodtag metadata"):
        quantize_model(plain, tmp_path / "out.onnx", photos_dir=photos_dir)
    assert not (tmp_path / "out.onnx").exists()


@pytest.fixture(scope="module")
def outlier_path(tmp_path_factory):
    """A model int8 cannot represent: one activation channel of 1e4 that fp32 multiplies by 0.

    Per-tensor activation quantisation takes its scale from that channel (about 40 per step), so
    every other input of the last MLP rounds to 0 and the int8 model loses the MLP that decides.
    """
    torch.manual_seed(0)
    model = create_model("vit_micro", labels=LABELS, **MICRO).eval()
    mlp = model.blocks[-1].mlp
    with torch.no_grad():
        mlp.fc1.bias[0] = 1e4
        mlp.fc2.weight[:, 0] = 0
        mlp.fc2.weight.mul_(20)
    return export_onnx(model, tmp_path_factory.mktemp("outlier") / "outlier.onnx")


def test_quantize_refuses_below_the_threshold_unless_allowed(outlier_path, photos_dir, tmp_path):
    out = tmp_path / "out.int8.onnx"
    with pytest.raises(ModelError, match=r"under the 90% threshold; nothing was written.*Candidates: .*dynamic-per-channel \d"):
        quantize_model(outlier_path, out, photos_dir=photos_dir, agreement_threshold=0.9)
    assert list(tmp_path.iterdir()) == []
    with pytest.warns(UserWarning, match="BELOW-THRESHOLD"):
        report = quantize_model(outlier_path, out, photos_dir=photos_dir, agreement_threshold=0.9, allow_below_threshold=True)
    assert report.below_threshold and read_metadata(out)["below_threshold"] == "true"
    # None passes, so every candidate's agreement was measured and the best one written.
    expected = [c.name for c in candidates_for(("dynamic",), False, cpu_features())]
    assert sorted(c["name"] for c in report.candidates) == sorted(expected)
    assert report.top1_agreement == max(c["top1_agreement"] for c in report.candidates) < 0.9


def test_quantize_cli_reports_refusal(outlier_path, photos_dir, tmp_path, capsys):
    from models.__main__ import main

    code = main(["quantize", str(outlier_path), "--out", str(tmp_path / "q.onnx"), "--photos", str(photos_dir), "--threshold", "0.9"])
    assert code == 2 and "top-1 agreement with fp32 is" in capsys.readouterr().err


@pytest.mark.parametrize(("ratios", "order"), [
    ({"dynamic": 1.2, "dynamic-per-channel": 1.8, "dynamic-reduce-range": 1.5},
     ["dynamic-per-channel", "dynamic-reduce-range", "dynamic"]),
    # Within SPEED_TIE of the fastest counts as tied: per tensor keeps its place before per channel.
    ({"dynamic": 1.75, "dynamic-per-channel": 1.8, "dynamic-reduce-range": 1.5},
     ["dynamic", "dynamic-per-channel", "dynamic-reduce-range"]),
])
def test_quantize_writes_the_fastest_candidate_that_agrees(fused_path, photos_dir, tmp_path, monkeypatch, ratios, order):
    """Fake timings rank the candidates: the first in that order is chosen (it agrees), the
    others' agreement is never computed, and the table lists them in that order."""
    from models import quantize

    def fake_timing(reference, engines, photos, batches, rounds):
        assert batches == (1, 4) and rounds == 1 and len(photos) == 12
        return {"fp32": {b: Speed(10.0, 1.0) for b in batches},
                **{name: {b: Speed(10.0 * ratios[name], ratios[name]) for b in batches} for name in engines}}

    monkeypatch.setattr(quantize, "_time_candidates", fake_timing)
    monkeypatch.setattr(quantize, "cpu_features", lambda: frozenset({"avx2"}))  # an AVX2 CPU without VNNI
    out = tmp_path / "q.onnx"
    report = quantize_model(fused_path, out, photos_dir=photos_dir, agreement_threshold=0.5, timing_batches=(1, 4), timing_rounds=1)
    assert [c["name"] for c in report.candidates] == order and report.chosen == order[0] == read_metadata(out)["quantization"]
    assert report.candidates[0]["top1_agreement"] >= 0.5
    assert [c["top1_agreement"] for c in report.candidates[1:]] == [None, None]
    ratio = ratios[order[0]]
    assert report.candidates[0]["vs_fp32"] == {"1": ratio, "4": ratio} and report.fp32_images_per_s == {"1": 10.0, "4": 10.0}
    assert json.loads(read_metadata(out)["speed_vs_fp32"]) == {"1": ratio, "4": ratio}
    table = format_report(report)
    assert f"| {order[0]} | {report.top1_agreement:.2%} | {10 * ratio:.1f} | {ratio:.2f}x |" in table and "not checked" in table


def test_quantize_times_every_candidate_on_this_machine(fused_path, photos_dir, tmp_path):
    report = quantize_model(fused_path, tmp_path / "q.onnx", photos_dir=photos_dir, agreement_threshold=0.5,
                            timing_batches=(1, 3), timing_rounds=1)
    assert set(report.fp32_images_per_s) == {"1", "3"}
    speedups = [np.sqrt(c["vs_fp32"]["1"] * c["vs_fp32"]["3"]) for c in report.candidates]
    untied = [s for s in speedups if s < max(speedups) * (1 - SPEED_TIE)]  # tied ones keep the expected order
    assert speedups[len(speedups) - len(untied):] == sorted(untied, reverse=True) and all(s > 0 for s in speedups)
    checked = [c for c in report.candidates if c["top1_agreement"] is not None]
    # Checked fastest first up to the first that agrees: that one is chosen.
    assert checked == report.candidates[: len(checked)] and checked[-1]["name"] == report.chosen
    assert checked[-1]["top1_agreement"] >= 0.5 and all(c["top1_agreement"] < 0.5 for c in checked[:-1])


@pytest.mark.parametrize(("features", "dynamic", "static"), [
    # AVX2 without VNNI: the u8s8 kernel saturates int16 pair sums, so 7-bit weights are a candidate.
    ({"avx2"}, ["dynamic", "dynamic-per-channel", "dynamic-reduce-range"], ["static-qdq-per-channel", "static-qdq-per-channel-reduce-range"]),
    ({"avx2", "avx512f"}, ["dynamic", "dynamic-per-channel", "dynamic-reduce-range"], ["static-qdq-per-channel", "static-qdq-per-channel-reduce-range"]),
    ({"avx2", "avx512f", "avx512_vnni"}, ["dynamic", "dynamic-per-channel"], ["static-qdq-per-channel"]),
    ({"avx2", "avx_vnni"}, ["dynamic", "dynamic-per-channel"], ["static-qdq-per-channel"]),
    (set(), ["dynamic", "dynamic-per-channel"], ["static-qdq-per-channel"]),  # not x86 (no flags read)
])
def test_candidates_follow_the_cpu(features, dynamic, static):
    names = lambda *args: [c.name for c in candidates_for(*args, frozenset(features))]  # noqa: E731
    assert names(("dynamic",), False) == dynamic
    assert names(("dynamic", "static"), False) == dynamic + static
    assert names(("dynamic", "static"), True) == static + dynamic  # convolutional: static expected fastest


def test_quantize_cli_prints_the_candidate_table(fused_path, photos_dir, tmp_path, capsys):
    from models.__main__ import main

    out = tmp_path / "q.onnx"
    code = main(["quantize", str(fused_path), "--out", str(out), "--photos", str(photos_dir), "--threshold", "0.5", "--time-batch", "2"])
    printed = capsys.readouterr().out
    assert code == 0 and out.is_file()
    assert "| candidate | top-1 agreement | batch 2 images/s | x fp32 | chosen |" in printed
    assert f"wrote {out} ({read_metadata(out)['quantization']}, " in printed


def test_fp16_variant_keeps_metadata_and_float32_io(fused_path, micro, tmp_path):
    half = write_fp16(fused_path, tmp_path / "micro.fp16.onnx")
    meta = read_metadata(half)
    assert meta["precision"] == "fp16" and meta["source_version"] == read_metadata(fused_path)["version"]
    engine = Engine(half, providers=["CPUExecutionProvider"])
    assert engine.input_dtype == np.float32  # float32 in and out: callers are unchanged
    expected, actual = _logits(micro, engine, parity_images(3))
    np.testing.assert_allclose(actual, expected, atol=5e-2 * max(1.0, np.abs(expected).max()))


def test_a_cpu_engine_runs_a_large_batch_as_micro_batches_with_the_same_logits(fused_path):
    images = np.stack([Engine(fused_path).preprocess_image(image) for image in parity_images(5)])
    whole = Engine(fused_path, settings=SessionSettings(micro_batch=0))
    pieces = Engine(fused_path, settings=SessionSettings(micro_batch=2))
    assert SessionSettings(intra_op_threads=2).cpu_run_size == 8  # default: 4 images per thread
    sizes = []
    run = pieces.session.run
    pieces.session.run = lambda names, feed: sizes.append(len(feed[pieces.input_name])) or run(names, feed)
    np.testing.assert_allclose(pieces.run(images), whole.run(images), rtol=1e-5, atol=1e-5)
    assert sizes == [2, 2, 1]
    with pytest.raises(ModelError, match="micro_batch must be >= 0"):
        SessionSettings(micro_batch=-1)


def test_engine_takes_session_settings_from_the_machine_or_the_caller(fused_path):
    default = Engine(fused_path)
    options = default.session.get_session_options()
    assert options.intra_op_num_threads == len(os.sched_getaffinity(0)) == default.settings.intra_op_threads
    assert options.graph_optimization_level == ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    custom = Engine(fused_path, settings=SessionSettings(intra_op_threads=1, graph_optimization="basic"))
    options = custom.session.get_session_options()
    assert options.intra_op_num_threads == 1
    assert options.graph_optimization_level == ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    assert Engine(fused_path, threads=1).session.get_session_options().intra_op_num_threads == 1
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "1"  # ONNX Runtime's default
    assert default.session.get_session_options().get_session_config_entry("session.dynamic_block_base") == "4"
    quiet = Engine(fused_path, threads=1, settings=SessionSettings(allow_spinning=False)).session.get_session_options()
    assert quiet.get_session_config_entry("session.intra_op.allow_spinning") == "0" and quiet.intra_op_num_threads == 1
    with pytest.raises(ModelError, match="graph_optimization must be one of"):
        SessionSettings(graph_optimization="max")
    assert cpu_features() <= {"avx2", "avx512f", "avx512_vnni", "avx_vnni", "avx512_bf16", "amx_bf16", "amx_int8"}


@pytest.mark.parametrize("gpu_present, expected", [
    (False, ["CPUExecutionProvider"]),
    (True, ["TensorrtExecutionProvider", "CUDAExecutionProvider", "CPUExecutionProvider"]),
])
def test_engine_picks_gpu_providers_only_with_a_gpu(monkeypatch, gpu_present, expected):
    listed = ["TensorrtExecutionProvider", "CUDAExecutionProvider", "AzureExecutionProvider", "CPUExecutionProvider"]
    monkeypatch.setattr(engine_module.ort, "get_available_providers", lambda: listed)
    monkeypatch.setattr(engine_module, "_cuda_device_present", lambda: gpu_present)
    assert default_providers() == expected


@pytest.mark.skipif(not FOOD10.is_dir(), reason="food10 photos not present")
def test_draft_decoding_keeps_tensor_size_and_top1_on_phone_sized_photos(default_model_path):
    engine = Engine(default_model_path)
    side = engine.preprocess.decode_side
    decided = 0
    for path in sorted((FOOD10 / "val").rglob("*.jpg"))[::37]:  # one photo from each class
        jpeg = phone_jpeg(load_image(path), size=(2016, 1512))
        full, draft = (engine.preprocess_image(load_image(jpeg, min_side=m)) for m in (None, side))
        assert full.shape == draft.shape == (3, engine.preprocess.input_size, engine.preprocess.input_size)
        first, second = engine.predict_arrays(full[None], top_k=2)[0]
        # Measured on 31 photos: the two decodes differ only where the top two foods all but tie
        # (0.184 vs 0.176); wherever the model has decided, the top-1 must be the same.
        if first.probability - second.probability >= 0.05:
            decided += 1
            assert engine.predict_arrays(draft[None], top_k=1)[0][0].label == first.label, path.name
    assert decided >= 5


def test_bench_measures_every_cpu_variant_and_the_phone_photo(micro, photos_dir):
    threads = torch.get_num_threads()
    result = benchmark(micro, photos_dir=photos_dir, batches=(1, 2), iterations=2, e2e_iterations=1,
                       settings=SessionSettings(intra_op_threads=1, allow_spinning=False))
    # One thread for PyTorch and ONNX Runtime alike during the run, PyTorch's own setting after it.
    assert (result.machine["torch_threads"], result.machine["ort_threads"], result.machine["ort_spinning"]) == (1, 1, False)
    assert torch.get_num_threads() == threads
    names = {row.variant for row in result.rows}
    assert {"pytorch-eager", "ort-fp32", "ort-fused", "ort-int8"} <= names
    assert all(row.top1_agreement is not None and row.p50_ms > 0 for row in result.rows)
    assert next(r for r in result.rows if r.variant == "pytorch-eager").top1_agreement == 1.0
    assert [r.decode for r in result.end_to_end] == ["full", "draft"]
    assert result.end_to_end[0].tensor_shape == result.end_to_end[1].tensor_shape == (3, 32, 32)
    assert result.variants["ort-fused"]["fused_ops"]["Attention"] == MICRO["depth"]
    # The file the app would serve here comes from these very timings: never one slower than fp32.
    served = {"fp32": "ort-fp32", "fused": "ort-fused", "int8": "ort-int8"}[result.served["name"]]
    at_batch_1 = {row.variant: row.images_per_s for row in result.rows if row.batch == 1}
    assert result.served["reason"].startswith(f"{result.served['name']}: ") and " at batch 1 on " in result.served["reason"]
    assert at_batch_1[served] >= at_batch_1["ort-fp32"]


def test_compare_engines_reports_every_file_relative_to_the_first(fused_path, tmp_path, micro):
    from models.bench import compare_engines

    plain = export_onnx(micro, tmp_path / "plain.onnx", fuse=False)
    result = compare_engines({"fused": Engine(fused_path), "plain": Engine(plain)}, batches=(1, 2), rounds=2, calls=2)
    assert [(r["model"], r["batch"]) for r in result["rows"]] == [("fused", 1), ("fused", 2), ("plain", 1), ("plain", 2)]
    assert all(r["images_per_s"] > 0 for r in result["rows"])
    assert [r["vs_first"] for r in result["rows"][:2]] == [1.0, 1.0]
