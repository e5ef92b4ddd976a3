"""The model the repository ships (models/shipped/): it loads, knows Food-101, maps to foods, matches
its card, and a fresh data folder serves it merged with ImageNet's foods without any training."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from models.metadata import read_metadata
from models.labels import FOOD101_CLASSES, IMAGENET_DISHES, IMAGENET_FOOD_CLASSES
from models.shipped import MAX_SHIPPED_BYTES, SHIPPED_CARD, SHIPPED_MODEL, render_card

ROOT = Path(__file__).resolve().parents[1]


def test_the_shipped_file_is_small_knows_food101_and_embeds():
    from models.engine import Engine

    assert SHIPPED_MODEL.stat().st_size <= MAX_SHIPPED_BYTES
    engine = Engine(SHIPPED_MODEL)
    assert engine.model_name == "food101" and sorted(engine.labels) == sorted(FOOD101_CLASSES)
    batch = np.zeros((2, 3, engine.preprocess.input_size, engine.preprocess.input_size), dtype=np.float32)
    assert engine.run(batch).shape == (2, 101)
    _logits, embedding = engine.run_with_embedding(batch)
    assert embedding.shape[0] == 2  # personal dishes read the food-trained embedding


def test_the_card_is_the_files_own_and_names_its_data_and_command():
    assert SHIPPED_CARD.read_text() == render_card(SHIPPED_MODEL), "card and file disagree: rerun `python -m models ship`"
    card = SHIPPED_CARD.read_text()
    meta = json.loads(read_metadata(SHIPPED_MODEL)["model_card"])
    assert f"top-1 {meta['val_top1']:.1%}" in card and "Food-101" in card and "fair use" in card
    assert "python -m distill pipeline" in card and "--preset food101" in card


def test_every_label_of_the_default_maps_to_a_food():
    from db import composites
    from db.seed import SEED_DIR, read_seed

    served = list(FOOD101_CLASSES) + [label for label in IMAGENET_FOOD_CLASSES.values()
                                      if label not in FOOD101_CLASSES and label not in IMAGENET_DISHES]
    seed = read_seed(SEED_DIR)
    labels = {label for food in seed.foods for label in food.labels}
    labels |= {label for found in composites.labels(SEED_DIR).values() for label in found}
    assert not sorted(set(served) - labels)


def test_ship_writes_the_renamed_file_and_its_card(tmp_path):
    """`python -m models ship` on a pipeline run's exported model (a tiny one here)."""
    from models.export import export_onnx
    from models.registry import create_model
    from models.shipped import ship

    labels = ["apple_pie", "waffles"]
    model = export_onnx(create_model("vit_micro", labels=labels, img_size=32, patch_size=16, depth=1, embed_dim=32,
                                     num_heads=2), tmp_path / "student.onnx")
    run = tmp_path / "run"
    run.mkdir()
    (run / "pipeline.json").write_text(json.dumps({"preset_name": "food101", "photos": {"labelled": 40}}))
    scores = {"data": "ImageFolder val (4 images, 2 classes)", "images": 4, "top1": 0.5, "top5": 1.0,
              "per_class": {"apple_pie": 0.0, "waffles": 1.0}}
    (tmp_path / "eval.json").write_text(json.dumps(scores))
    out = ship(model, tmp_path / "eval.json", run, out=tmp_path / "shipped" / "food101.onnx")
    meta = read_metadata(out)
    assert meta["model_name"] == "food101" and meta["version"] == read_metadata(model)["version"]
    card = out.with_suffix(".md").read_text()
    assert card == render_card(out) and "top-1 50.0%" in card and "| apple pie | 0% |" in card.split("weak")[-1]


def test_a_fresh_home_serves_the_shipped_model_without_training(tmp_path):
    """The default merges the committed file with the packaged ImageNet weights: no data, no training."""
    code = ("from models.default import default_model_path; from models.engine import Engine; "
            "e = Engine(default_model_path()); print(e.model_name, len(e.labels))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600,
                         env={**os.environ, "FOODTAG_HOME": str(tmp_path)})
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split()[-2:] == ["food101+imagenet_foods", str(101 + 31)]
    assert (tmp_path / "models" / "food101.report.json").is_file()  # its val top-1 for the Models tab


@pytest.mark.parametrize("broken", [b"", b"not onnx"])
def test_a_broken_merged_file_is_made_again(tmp_path, monkeypatch, broken):
    monkeypatch.setenv("FOODTAG_HOME", str(tmp_path))
    from models.default import default_model_path
    from models.engine import Engine

    (tmp_path / "models").mkdir(mode=0o700)
    (tmp_path / "models" / "food101.onnx").write_bytes(broken)
    assert Engine(default_model_path()).model_name == "food101+imagenet_foods"
