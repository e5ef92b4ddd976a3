"""models.merge: a Food-101 model and ImageNet's extra foods in one file, checked against the two
networks run apart and the merge rule computed by hand."""

from __future__ import annotations

import json

import numpy as np
import onnxruntime as ort
import pytest
from PIL import Image

from models.errors import ModelError


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A small 101-dish model (untrained: the arithmetic is what is checked), the ImageNet branch
    at 128 px and their merge."""
    from models.export import export_onnx
    from models.labels import FOOD101_CLASSES
    from models.merge import export_imagenet_branch, merge_with_imagenet
    from models.registry import create_model

    root = tmp_path_factory.mktemp("merge")
    food = create_model("vit_hybrid_lite0", labels=list(FOOD101_CLASSES), pretrained=False, img_size=64,
                        stem_stages=4, depth=1, embed_dim=32, num_heads=2)
    export_onnx(food, root / "food.onnx")
    export_imagenet_branch(root / "imagenet.onnx", 128)
    merge_with_imagenet(root / "food.onnx", root / "merged.onnx", imagenet_size=128,
                        imagenet_path=root / "imagenet.onnx")
    return root


def _run(path, batch):
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, {session.get_inputs()[0].name: batch})


def _softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_the_resize_matrix_is_pils_own_resampling():
    from models.merge import resize_matrix

    rng = np.random.default_rng(0)
    image = rng.random((40, 40), dtype=np.float32)
    a = resize_matrix(40, 24, "bicubic")
    expected = np.asarray(Image.fromarray(image, mode="F").resize((24, 24), Image.Resampling.BICUBIC))
    np.testing.assert_allclose(a @ image @ a.T, expected, atol=1e-5)
    np.testing.assert_allclose(a.sum(axis=1), 1.0, atol=1e-5)  # so it commutes with normalisation


def test_merged_answers_are_the_rule_applied_to_both_networks(files):
    from models.labels import FOOD101_CLASSES, IMAGENET_DISHES, IMAGENET_FOOD_CLASSES
    from models.merge import resize_matrix

    rng = np.random.default_rng(1)
    batch = rng.uniform(-1, 1, (3, 3, 128, 128)).astype(np.float32)
    logits, embedding = _run(files / "merged.onnx", batch)
    a = resize_matrix(128, 64, "bicubic")
    food_logits, food_embedding = _run(files / "food.onnx", (a @ batch @ a.T).astype(np.float32))
    imagenet_logits, imagenet_embedding = _run(files / "imagenet.onnx", batch)
    extras = [i for i, label in IMAGENET_FOOD_CLASSES.items()
              if label not in FOOD101_CLASSES and label not in IMAGENET_DISHES]
    q = _softmax(imagenet_logits.astype(np.float64))[:, extras]
    expected = np.concatenate([_softmax(food_logits.astype(np.float64)) * (1 - q.sum(1, keepdims=True)), q], axis=1)
    np.testing.assert_allclose(np.exp(logits), expected, atol=1e-5)
    # Personal dishes read ImageNet's features: they separate dishes neither model trained on better.
    np.testing.assert_allclose(embedding, imagenet_embedding, atol=1e-5)
    assert food_embedding.shape == (3, 32) and embedding.shape == (3, 1280)
    assert logits.shape == (3, 101 + len(extras)) and len(extras) == 31  # banana, espresso, broccoli...


def test_the_engine_serves_the_merged_file(files, coffee_image):
    from models.engine import Engine
    from models.labels import FOOD101_CLASSES
    from models.metadata import read_metadata

    engine = Engine(files / "merged.onnx")
    assert engine.labels[:101] == list(FOOD101_CLASSES) and "espresso" in engine.labels and "banana" in engine.labels
    assert "pizza" not in engine.labels[101:]  # a dish both know is the food model's
    assert engine.preprocess.input_size == 128
    top = engine.predict([coffee_image], top_k=5)[0]
    assert abs(sum(p.probability for p in engine.predict([coffee_image], top_k=len(engine.labels))[0]) - 1) < 1e-6
    assert len(top) == 5
    meta = read_metadata(files / "merged.onnx")
    assert json.loads(meta["merged_from"])["food_model"]["input_size"] == 64
    assert json.loads(meta["merged_from"])["embedding"] == "imagenet" and meta["embedding_output"] == "embedding"
    assert engine.embed([coffee_image]).shape[0] == 1


def test_merging_is_refused_where_it_cannot_work(files, tmp_path):
    from models.merge import merge_with_imagenet

    with pytest.raises(ModelError, match="must be at least the food model's"):
        merge_with_imagenet(files / "food.onnx", tmp_path / "x.onnx", imagenet_size=32)
    with pytest.raises(ModelError, match="not a 1,000-class ImageNet model"):
        merge_with_imagenet(files / "food.onnx", tmp_path / "x.onnx", imagenet_size=128,
                            imagenet_path=files / "food.onnx")
    with pytest.raises(ModelError, match="not a readable ONNX file"):
        (tmp_path / "broken.onnx").write_bytes(b"not onnx")
        merge_with_imagenet(tmp_path / "broken.onnx", tmp_path / "x.onnx")
    assert not (tmp_path / "x.onnx").exists()


def test_merge_command(files, tmp_path, capsys):
    from models.__main__ import main

    assert main(["merge", str(files / "food.onnx"), "--out", str(tmp_path / "m.onnx"), "--imagenet-size", "96"]) == 0
    assert "101 labels of food.onnx and" in capsys.readouterr().out
    assert main(["merge", str(tmp_path / "missing.onnx"), "--out", str(tmp_path / "n.onnx")]) == 2
    assert "not a readable ONNX file" in capsys.readouterr().err
