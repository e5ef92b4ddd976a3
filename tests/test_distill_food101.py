"""The food101 recipe: `python -m distill prepare-food101` (the shared 64 px tars as an ImageFolder,
with photos and classes held out) and the food101 preset run end to end on a 101-class set in
miniature."""

from __future__ import annotations

import copy
import io
import json
import tarfile
from pathlib import Path

import pytest
import yaml
from PIL import Image

from distill_support import run_cli

FOOD101_64 = Path(__file__).resolve().parents[2] / "shared" / "data" / "food101-64"


def _jpeg(colour: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (64, 64), (colour, 40, 200 - colour)).save(out, "JPEG")
    return out.getvalue()


def shared_copy(root: Path, classes: dict[str, list[str]]) -> Path:
    """A folder laid out as ../shared/data/food101-64: one tar per split and class."""
    for split in ("train", "val"):
        (root / split).mkdir(parents=True)
        for name, ids in classes.items():
            with tarfile.open(root / split / f"{name}.tar", "w") as tar:
                for i, photo in enumerate(ids if split == "train" else ids[:1]):
                    data = _jpeg(10 * i)
                    info = tarfile.TarInfo(f"{name}/{split}{photo}.jpg")
                    info.size = len(data)
                    tar.addfile(info, io.BytesIO(data))
    return root


def test_prepare_holds_out_photos_and_classes(tmp_path, capsys):
    source = shared_copy(tmp_path / "shared", {"apple_pie": ["1", "2", "3"], "sushi": ["4", "5"], "ramen": ["6"]})
    held = tmp_path / "food10-val" / "apple_pie"
    held.mkdir(parents=True)
    (held / "train2.jpg").write_bytes(_jpeg(0))  # a full-size copy of apple_pie/train2.jpg
    (tmp_path / "food10-train" / "ramen").mkdir(parents=True)
    out = tmp_path / "prepared"
    assert run_cli("prepare-food101", str(source), str(out), "--hold-out", str(tmp_path / "food10-val"),
                   "--without-classes-of", str(tmp_path / "food10-train")) == 0
    assert "4 train and 2 val photos of 2 classes (1 held out)" in capsys.readouterr().out
    assert sorted(p.name for p in (out / "train" / "apple_pie").iterdir()) == ["train1.jpg", "train3.jpg"]
    assert not (out / "train" / "ramen").exists() and not (out / "val" / "ramen").exists()
    record = json.loads((out / "prepared.json").read_text())
    assert record["classes_left_out"] == ["ramen"] and record["held_out"] == 1 and record["photos"]["train"] == 4
    # An existing folder is never overwritten.
    assert run_cli("prepare-food101", str(source), str(out)) == 2
    assert "exists; choose a new folder" in capsys.readouterr().err
    assert run_cli("prepare-food101", str(tmp_path / "food10-val"), str(tmp_path / "x")) == 2
    assert "no train/ and val/ folders" in capsys.readouterr().err


def test_prepare_refuses_members_outside_the_folder(tmp_path):
    from distill.food101 import prepare

    source = shared_copy(tmp_path / "shared", {"sushi": ["1"]})
    with tarfile.open(source / "train" / "evil.tar", "w") as tar:
        info = tarfile.TarInfo("../../escaped.jpg")
        info.size = 3
        tar.addfile(info, io.BytesIO(b"abc"))
    with pytest.raises(tarfile.OutsideDestinationError):
        prepare(source, tmp_path / "out")
    assert not (tmp_path / "escaped.jpg").exists() and not (tmp_path / "out").exists()


@pytest.mark.skipif(not FOOD101_64.is_dir(), reason="needs ../shared/data/food101-64")
def test_prepare_reads_the_shared_copy(tmp_path):
    from distill.food101 import prepare

    record = prepare(FOOD101_64, tmp_path / "f101")
    assert record["classes"] == 101 and record["photos"] == {"train": 70659, "val": 5050}


def test_the_food101_preset_runs_on_101_classes_in_miniature(tmp_path):
    """The shipped recipe's every option (head warm-up, layer decay, EMA, Mixup, cached
    views, ...) on 101 synthetic classes, with tiny ViTs in place of its networks so it takes
    seconds: every stage runs and the student knows 101 labels. (The networks themselves are
    exported and run by tests/test_models_registry.py.)"""
    from distill.pipeline import Pipeline, PipelineConfig
    from distill.preset import load_preset
    from models.metadata import read_metadata

    preset = copy.deepcopy(load_preset("food101").source)
    tiny = {"model": "vit_micro", "pretrained": False, "img_size": 16, "epochs": 1, "max_steps": 2, "warmup_steps": 0,
            "model_kwargs": {"img_size": 16, "patch_size": 8, "depth": 1, "embed_dim": 16, "num_heads": 2}}
    for member in preset["teacher"]:
        member["warmup"] = {**member["warmup"], **tiny}
        later = {k: v for k, v in tiny.items() if k != "model"}  # a later cycle starts from the one before
        member["finetune"] = [{**cycle, **(tiny if i == 0 else later)} for i, cycle in enumerate(member["finetune"])]
    preset["student"]["options"].update(tiny, logit_views=1)
    preset["train"].update(batch_size=8, num_workers=0, synthetic_classes=101, synthetic_images=101)
    path = tmp_path / "food101-tiny.yaml"
    path.write_text(yaml.safe_dump(preset))
    run_dir = tmp_path / "run"
    assert run_cli("pipeline", "--data", "synthetic", "--out", str(run_dir), "--preset", str(path),
                   "--baseline", "false", "--bench-rounds", "1") == 0
    log = (run_dir / "pipeline.log").read_text()
    for stage in ("teacher-head", "teacher", "teacher-cycle2", "export-teacher",
                  "student", "int8", "bench", "report"):
        assert f"[{stage}] running" in log
    for name in ("teacher", "student"):
        assert len(json.loads(read_metadata(run_dir / f"{name}.onnx")["labels"])) == 101
    assert "| student |" in (run_dir / "report.md").read_text()
