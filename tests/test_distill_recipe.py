"""The fine-tuning knobs of the teacher recipe: frozen-body warm-up, layer-wise learning rates,
early stopping on validation."""

from __future__ import annotations

import json

import pytest
import torch

from distill.optim import make_optimizer, make_scheduler
from distill_support import TINY_VIT, checkpoint_weights, run_cli, tiny_args
from models.registry import create_model


def test_freeze_body_trains_only_the_head(tmp_path):
    torch.manual_seed(0)
    start = create_model("vit_micro", labels=[f"class_{i}" for i in range(4)], pretrained=False, **TINY_VIT)
    assert run_cli("train", *tiny_args(tmp_path / "a", freeze_body="true")) == 0
    weights = checkpoint_weights(tmp_path / "a" / "last.pt")
    initial = start.state_dict()
    changed = {k for k in weights if not torch.equal(weights[k], initial[k])}
    assert changed == {"head.weight", "head.bias"}


def test_layer_decay_scales_learning_rates_from_the_head_down():
    model = create_model("efficientnet_lite0", labels=["a", "b"], pretrained=False)
    optimizer = make_optimizer(model, 1e-3, 0.01, zero=False, layer_decay=0.5)
    scheduler = make_scheduler(optimizer, total_steps=10, warmup_steps=0, min_lr=0.0)
    scheduler.step_update(0)
    by_param = {id(p): g["lr"] for g in optimizer.param_groups for p in g["params"]}
    head = by_param[id(model.classifier.weight)]
    stem = by_param[id(model.conv_stem.weight)]
    assert head == pytest.approx(1e-3)
    assert stem < head * 0.5 ** 5  # several groups below the head
    assert len({round(lr, 12) for lr in by_param.values()}) > 3


def test_layer_decay_keeps_frozen_parameters_out():
    model = create_model("efficientnet_lite0", labels=["a", "b"], pretrained=False)
    from distill.train import freeze_body

    freeze_body(model)
    optimizer = make_optimizer(model, 1e-3, 0.01, zero=False, layer_decay=0.7)
    params = [p for g in optimizer.param_groups for p in g["params"]]
    assert {id(p) for p in params} == {id(p) for p in model.classifier.parameters()}


def test_patience_stops_after_validations_without_improvement(tmp_path):
    # lr 0: the model never changes, so validation never improves after the first epoch.
    assert run_cli("train", *tiny_args(tmp_path, epochs=6, lr=1e-9, min_lr=0.0, patience=2)) == 0
    ckpt = torch.load(tmp_path / "last.pt", weights_only=True)
    assert ckpt["epoch"] == 3 and ckpt["stale_validations"] == 2
    records = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert sum("val/top1" in r for r in records) == 3
    # Resuming a run that stopped early does not train on.
    assert run_cli("train", "--resume", str(tmp_path / "last.pt")) == 0
    assert torch.load(tmp_path / "last.pt", weights_only=True)["step"] == ckpt["step"]


def test_patience_running_out_at_the_last_epoch_is_not_an_early_stop(tmp_path, capsys):
    assert run_cli("train", *tiny_args(tmp_path / "short", epochs=3, lr=1e-9, min_lr=0.0, patience=2)) == 0
    assert "early stop" not in capsys.readouterr().err
    assert run_cli("train", *tiny_args(tmp_path / "long", epochs=4, lr=1e-9, min_lr=0.0, patience=2)) == 0
    assert "early stop: no better validation top-1 for 2 epochs" in capsys.readouterr().err


def test_recipe_options_are_checked(tmp_path, capsys):
    assert run_cli("train", *tiny_args(tmp_path / "a", layer_decay=1.5)) == 2
    assert "layer_decay must be in (0, 1]" in capsys.readouterr().err
    assert run_cli("train", *tiny_args(tmp_path / "b", patience=-1)) == 2
    assert "patience must be >= 0" in capsys.readouterr().err
