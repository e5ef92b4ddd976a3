"""One model file that knows a food model's dishes and ImageNet's foods: two networks, one top-5.

Food-101 has no banana, espresso or broccoli; ImageNet-1k has 46 food classes and few dishes. The
merged file runs both on the same photo and answers over the union of their labels:

    p = softmax(food model)                  over its own dishes
    q = softmax(ImageNet EfficientNet-Lite0) over all 1,000 ImageNet classes
    E = ImageNet's food classes the food model lacks (models.labels.IMAGENET_FOOD_CLASSES), less its
        prepared dishes (models.labels.IMAGENET_DISHES: they fire on any dish photo)
    merged[dish] = p[dish] * (1 - sum(q[E]))     merged[e] = q[e] for e in E

ImageNet's probability that the photo shows one of its extra foods takes that share; the food model
divides the rest among its dishes (ImageNet's mass on dogs, plates or its own pizza is no vote for
an extra food). The merged output is log(merged), so the engine's softmax gives `merged` back.

Why a merge and not one student distilled from both teachers: a student learns a class from photos
of it, and no photos of ImageNet's extra foods are here (its teacher would only ever say "not a
banana" on Food-101 photos). Why at the graph level: the one file keeps everything the app and the
batch tool read (labels, preprocessing, an embedding output for personal dishes: ImageNet's).

The file's input is the ImageNet branch's size (`imagenet_size`); the food branch gets it scaled
down inside the graph by two matrix products that apply exactly the resampling weights PIL uses
(the food model's own interpolation), so neither branch sees a resize it was not trained with.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from PIL import Image

from models.errors import ModelError
from models.metadata import EXPORT_VERSION, read_metadata, set_metadata
from models.preprocess import PIL_FILTERS, PreprocessConfig

IMAGENET_SIZE = 160  # Lite0 at 160 px: with the food model, no slower than Lite0 alone at 224 px


def resize_matrix(source: int, target: int, interpolation: str) -> np.ndarray:
    """(target, source) weights such that A @ row resamples a row of `source` pixels to `target`
    exactly as PIL resizes an image (float mode: PIL's own filter weights, no rounding)."""
    matrix = np.zeros((target, source), dtype=np.float32)
    for j in range(source):
        impulse = np.zeros((1, source), dtype=np.float32)
        impulse[0, j] = 1.0
        resized = Image.fromarray(impulse, mode="F").resize((target, 1), PIL_FILTERS[interpolation])
        matrix[:, j] = np.asarray(resized, dtype=np.float32)[0]
    return matrix


def imagenet_extras(food_labels: list[str]) -> list[tuple[int, str]]:
    """(ImageNet class index, label) of ImageNet's foods that the food model does not know."""
    from models.labels import IMAGENET_DISHES, IMAGENET_FOOD_CLASSES

    known = set(food_labels) | IMAGENET_DISHES
    return [(index, label) for index, label in IMAGENET_FOOD_CLASSES.items() if label not in known]


def export_imagenet_branch(out: Path, size: int) -> Path:
    """The packaged ImageNet EfficientNet-Lite0 (all 1,000 classes) exported at `size` px."""
    from models.export import export_onnx
    from models.registry import create_model

    model = create_model("efficientnet_lite0")
    model.preprocess = dataclasses.replace(model.preprocess, input_size=size)
    return export_onnx(model, out)


def merge_with_imagenet(food_path: Path, out_path: Path, imagenet_size: int = IMAGENET_SIZE,
                        imagenet_path: Path | None = None) -> Path:
    """Write the merged model of the food model at `food_path` and ImageNet's extra foods."""
    food_path, out_path = Path(food_path), Path(out_path)
    food_meta = read_metadata(food_path)
    food_pre = PreprocessConfig.from_json(food_meta["preprocess"])
    if imagenet_size < food_pre.input_size:
        raise ModelError(f"merge: the ImageNet branch's size ({imagenet_size}) must be at least the food model's "
                         f"({food_pre.input_size})")
    extras = imagenet_extras(food_pre.labels)
    if not extras:
        raise ModelError(f"merge: {food_path.name} already knows every ImageNet food; nothing to add")
    with tempfile.TemporaryDirectory(dir=out_path.parent if out_path.parent.exists() else None) as tmp:
        if imagenet_path is None:
            imagenet_path = export_imagenet_branch(Path(tmp) / "imagenet.onnx", imagenet_size)
        imagenet_meta = read_metadata(imagenet_path)
        imagenet_pre = PreprocessConfig.from_json(imagenet_meta["preprocess"])
        if imagenet_pre.input_size != imagenet_size or len(imagenet_pre.labels) != 1000:
            raise ModelError(f"merge: {imagenet_path} is not a 1,000-class ImageNet model at {imagenet_size} px")
        # The resize below commutes with normalisation only when both branches normalise alike.
        if (food_pre.mean, food_pre.std, food_pre.crop_pct) != (imagenet_pre.mean, imagenet_pre.std, imagenet_pre.crop_pct):
            raise ModelError("merge: the two models normalise or crop photos differently; they cannot share one input")
        # Personal dishes (models.dishes) use ImageNet's embedding when it has one: on dishes neither
        # model was trained on it separates them better than a 64 px Food-101 student's (docs/dishes.md).
        branch, embedding_meta = next(((name, meta) for name, meta in (("imagenet", imagenet_meta), ("food", food_meta))
                                       if "embedding_output" in meta), (None, None))
        proto = _merged_graph(onnx.load(str(food_path)), onnx.load(str(imagenet_path)), food_pre,
                              imagenet_size, extras, branch, embedding_meta and embedding_meta["embedding_output"])
        labels = food_pre.labels + [label for _, label in extras]
        preprocess = dataclasses.replace(food_pre, input_size=imagenet_size, labels=labels)
        set_metadata(proto, {
            "model_name": f"{food_meta['model_name']}+imagenet_foods",
            "labels": json.dumps(labels),
            "preprocess": preprocess.to_json(),
            "merged_from": json.dumps({"food_model": {"file": food_path.name, "version": food_meta["version"],
                                                      "input_size": food_pre.input_size},
                                       "imagenet": {"version": imagenet_meta["version"], "input_size": imagenet_size,
                                                    "extra_classes": [index for index, _ in extras]},
                                       "embedding": branch}),
            "export_version": str(EXPORT_VERSION),
            "precision": "fp32",
            **({"embedding_output": embedding_meta["embedding_output"]} if embedding_meta else {}),
        })
        staged = Path(tmp) / "merged.onnx"
        onnx.save(proto, str(staged))
        staged.chmod(0o600)
        onnx.checker.check_model(str(staged))
        out_path.parent.mkdir(parents=True, exist_ok=True)
        os.replace(staged, out_path)  # atomic, as models.export
    return out_path


def _merged_graph(food: onnx.ModelProto, imagenet: onnx.ModelProto, food_pre: PreprocessConfig, size: int,
                  extras: list[tuple[int, str]], branch: str | None, embedding: str | None) -> onnx.ModelProto:
    food = onnx.compose.add_prefix(food, "food/")
    imagenet = onnx.compose.add_prefix(imagenet, "imagenet/")
    rows = resize_matrix(size, food_pre.input_size, food_pre.interpolation)
    constants = [
        numpy_helper.from_array(rows, "merge/rows"),                 # (food size, size)
        numpy_helper.from_array(rows.T.copy(), "merge/columns"),     # (size, food size)
        numpy_helper.from_array(np.array([index for index, _ in extras], dtype=np.int64), "merge/extra_classes"),
        numpy_helper.from_array(np.array([1], dtype=np.int64), "merge/class_axis"),
        numpy_helper.from_array(np.array(1.0, dtype=np.float32), "merge/one"),
        numpy_helper.from_array(np.array(1e-12, dtype=np.float32), "merge/tiny"),
    ]
    nodes = [
        # images (N, 3, size, size) -> the food model's input: columns first, then rows.
        helper.make_node("MatMul", ["images", "merge/columns"], ["merge/narrow"]),
        helper.make_node("MatMul", ["merge/rows", "merge/narrow"], ["food/images"]),
        helper.make_node("Identity", ["images"], ["imagenet/images"]),
        *food.graph.node,
        *imagenet.graph.node,
        helper.make_node("Softmax", ["food/logits"], ["merge/dishes"], axis=1),
        helper.make_node("Softmax", ["imagenet/logits"], ["merge/imagenet"], axis=1),
        helper.make_node("Gather", ["merge/imagenet", "merge/extra_classes"], ["merge/extras"], axis=1),
        helper.make_node("ReduceSum", ["merge/extras", "merge/class_axis"], ["merge/extras_share"], keepdims=1),
        helper.make_node("Sub", ["merge/one", "merge/extras_share"], ["merge/dishes_share"]),
        helper.make_node("Mul", ["merge/dishes", "merge/dishes_share"], ["merge/dishes_scaled"]),
        helper.make_node("Concat", ["merge/dishes_scaled", "merge/extras"], ["merge/probabilities"], axis=1),
        helper.make_node("Add", ["merge/probabilities", "merge/tiny"], ["merge/kept_positive"]),
        helper.make_node("Log", ["merge/kept_positive"], ["logits"]),
    ]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", len(food_pre.labels) + len(extras)])]
    if embedding:
        nodes.append(helper.make_node("Identity", [f"{branch}/{embedding}"], [embedding]))
        outputs.append(helper.make_tensor_value_info(embedding, TensorProto.FLOAT, ["batch", None]))
    graph = helper.make_graph(
        nodes, "food_and_imagenet_foods",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, ["batch", 3, size, size])], outputs,
        initializer=[*constants, *food.graph.initializer, *imagenet.graph.initializer],
        value_info=[*food.graph.value_info, *imagenet.graph.value_info],
    )
    opsets = {}
    for model in (food, imagenet):
        for opset in model.opset_import:
            opsets[opset.domain] = max(opsets.get(opset.domain, 0), opset.version)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets.items()],
                             ir_version=max(food.ir_version, imagenet.ir_version))
