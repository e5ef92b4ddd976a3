import json
import os
import subprocess
import sys

import numpy as np
import onnx
import pytest
import torch

from models.engine import Engine
from models.metadata import read_metadata
from models.errors import ModelError
from models.export import check_parity, export_onnx, parity_images
from models.registry import create_model

LABELS = ["apple_pie", "bagel", "pizza", "sushi"]
MICRO = {"img_size": 32, "patch_size": 8, "depth": 1, "embed_dim": 32, "num_heads": 2}


@pytest.fixture()
def micro():
    torch.manual_seed(0)
    return create_model("vit_micro", labels=LABELS, **MICRO).eval()


def test_export_embeds_metadata_and_matches_pytorch(tmp_path, micro):
    path = export_onnx(micro, tmp_path / "micro.onnx")
    meta = read_metadata(path)
    assert json.loads(meta["labels"]) == LABELS
    assert meta["model_name"] == "vit_micro"
    assert len(meta["version"]) == 12
    assert int(meta["opset"]) >= 17
    engine = Engine(path)
    assert engine.preprocess == micro.preprocess
    assert engine.labels == LABELS
    for batch_size in (1, 5):  # dynamic batch axis
        batch = np.stack([engine.preprocess_image(parity_images(5)[i]) for i in range(batch_size)])
        with torch.inference_mode():
            expected = micro(torch.from_numpy(batch)).numpy()
        np.testing.assert_allclose(engine.run(batch), expected, atol=1e-4, rtol=1e-4)
    predictions = engine.predict(parity_images(2), top_k=3)
    assert [len(p) for p in predictions] == [3, 3]
    # Every label ranked, for every image: probabilities are the softmax of the logits, best first.
    logits = engine.run(batch).astype(np.float64)
    softmax = np.exp(logits - logits.max(axis=1, keepdims=True))
    softmax /= softmax.sum(axis=1, keepdims=True)
    for row, ranked in zip(softmax, engine.predict_arrays(batch, top_k=len(LABELS))):
        assert [p.label for p in ranked] == [LABELS[i] for i in np.argsort(-row)]
        assert [p.probability for p in ranked] == pytest.approx(sorted(row, reverse=True), abs=1e-9)
        assert sum(p.probability for p in ranked) == pytest.approx(1.0)


def test_parity_check_rejects_a_model_that_disagrees(tmp_path, micro):
    path = export_onnx(micro, tmp_path / "micro.onnx")
    torch.manual_seed(1)
    other = create_model("vit_micro", labels=LABELS, **MICRO).eval()
    with pytest.raises(ModelError, match="disagrees with PyTorch"):
        check_parity(other, path)


def test_failed_parity_leaves_no_file(tmp_path, micro, monkeypatch):
    import models.export

    def disagree(model, path):
        raise ModelError("ONNX Runtime disagrees with PyTorch")

    monkeypatch.setattr(models.export, "check_parity", disagree)
    out = tmp_path / "out" / "micro.onnx"
    with pytest.raises(ModelError):
        export_onnx(micro, out)
    assert list(out.parent.iterdir()) == []


def test_onnx_without_metadata_is_refused(tmp_path, micro):
    plain = tmp_path / "plain.onnx"
    torch.onnx.export(micro, (torch.zeros(1, 3, 32, 32),), str(plain), opset_version=17, dynamo=False)
    with pytest.raises(ModelError, match="no foodtag metadata"):
        Engine(plain)
    garbage = tmp_path / "garbage.onnx"
    garbage.write_text("not a model")
    with pytest.raises(ModelError, match="not a readable ONNX file"):
        Engine(garbage)
    with pytest.raises(ModelError, match="model file not found"):
        Engine(tmp_path / "absent.onnx")


def test_default_model_recognises_espresso_and_is_reused(default_model_path, coffee_image):
    engine = Engine(default_model_path)
    assert engine.model_name == "food101+imagenet_foods"  # the shipped Food-101 model and ImageNet's foods
    assert len(engine.labels) == 101 + 31
    top = engine.predict([coffee_image])[0]
    assert top[0].label == "espresso" and top[0].probability > 0.5
    from models.default import default_model_path as again

    before = default_model_path.stat().st_mtime_ns
    assert again() == default_model_path
    assert default_model_path.stat().st_mtime_ns == before


def test_a_default_model_of_an_older_export_is_exported_again(default_model_path, tmp_path, monkeypatch):
    from models.default import default_model_path as ensure_default
    from models.metadata import EXPORT_VERSION, META_PREFIX, read_metadata

    monkeypatch.setenv("FOODTAG_HOME", str(tmp_path))
    proto = onnx.load(str(default_model_path))
    for prop in proto.metadata_props:
        if prop.key == META_PREFIX + "export_version":
            prop.value = str(EXPORT_VERSION - 1)
    (tmp_path / "models").mkdir(mode=0o700)
    onnx.save(proto, str(tmp_path / "models" / "food101.onnx"))
    path = ensure_default()
    assert path == tmp_path / "models" / "food101.onnx"
    assert read_metadata(path)["export_version"] == str(EXPORT_VERSION)


def test_concurrent_first_runs_produce_one_valid_file(tmp_path):
    code = "from models.default import default_model_path; print(default_model_path())"
    env = {**os.environ, "FOODTAG_HOME": str(tmp_path)}
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [p.communicate(timeout=300)[0].strip() for p in procs]
    assert [p.returncode for p in procs] == [0, 0]
    assert outputs[0] == outputs[1]
    onnx.checker.check_model(outputs[0])
    assert Engine(outputs[0]).model_name == "food101+imagenet_foods"
    assert sorted(p.name for p in (tmp_path / "models").iterdir()) == ["food101.onnx", "food101.report.json"]


def test_inference_does_not_load_torch():
    # Serving processes should not pay torch's ~600 MB; only export and training need it.
    code = "import sys, models.engine, models.default, models.images; assert 'torch' not in sys.modules"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_same_padding_exports_as_constants_that_onnx_runtime_folds_into_the_convolutions(tmp_path):
    """The Lite stems pad 'same' (timm's Conv2dSame works it out per call); at the file's size it is a constant."""
    import onnxruntime as ort
    from timm.layers.conv2d_same import Conv2dSame

    torch.manual_seed(0)
    student = create_model("vit_hybrid_lite0", labels=LABELS, pretrained=False, img_size=64, stem_stages=3, depth=1).eval()
    strided = sum(isinstance(m, Conv2dSame) for m in student.modules())
    assert strided >= 2
    path = export_onnx(student, tmp_path / "hybrid.onnx")  # parity with PyTorch is checked inside
    ops = [node.op_type for node in onnx.load(path).graph.node]
    assert "Ceil" not in ops and ops.count("Pad") == strided
    assert sum(isinstance(m, Conv2dSame) for m in student.modules()) == strided  # the caller's model is untouched
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    options.optimized_model_filepath = str(tmp_path / "optimized.onnx")
    ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    assert "Pad" not in [node.op_type for node in onnx.load(tmp_path / "optimized.onnx").graph.node]
