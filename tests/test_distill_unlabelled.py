"""`pipeline --unlabelled`: labelled photos teach the teacher, the teacher's soft labels on cached
views of the unlabelled photos teach the student beside them; the run resumes after a kill and
the report gives the counts and the unlabelled photos' gain. Also the cache and the bad inputs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml
from distill_support import TINY_VIT, image_folder, run_cli, save_teacher, tiny_args, write_image

from distill import data
from distill.errors import DistillError
from distill.logit_cache import ReplayDataset, build_logit_cache, logit_cache_folder
from distill.teacher import FrozenTeacher
from models.preprocess import PreprocessConfig
from models.registry import create_model

CLASSES = ["a", "b", "c"]
PRE = PreprocessConfig(input_size=16, mean=(0.5, 0.5, 0.5), std=(0.25, 0.25, 0.25))
TINY = {"pretrained": False, "model_kwargs": TINY_VIT}
PRESET = {
    "description": "miniature recipe with unlabelled photos",
    "train": {"batch_size": 8, "num_workers": 0, "progress": False, "tensorboard": False, "log_every": 1,
              "warmup_steps": 0, "lr": 3e-3, "mixup": 0.0, "cutmix": 0.0, "precision": "fp32"},
    "teacher": [{"name": "tiny", "warmup": {"model": "vit_micro", **TINY, "epochs": 1},
                 "finetune": {"epochs": 2, "layer_decay": 0.8}}],
    "student": {"why": "the smallest ViT that runs", "options": {
        "model": "vit_micro", **TINY, "epochs": 2, "alpha": 0.1, "temperature": 1.0, "logit_views": 2,
        "logit_pixels": True}},
    "baseline": {},
}


def unlabelled_folder(root: Path, count: int) -> Path:
    """Photos of the classes' colours (class i % 3), flat, without their labels."""
    for i in range(count):
        write_image(root / f"meal-{i:03d}.png", i % len(CLASSES), 100 + i)
    return root


@pytest.fixture
def photos(tmp_path):
    for split in ("train", "val"):
        image_folder(tmp_path / "photos" / split, CLASSES, 4)
    return tmp_path / "photos"


def make_teacher(path: Path) -> FrozenTeacher:
    return FrozenTeacher(create_model(f"ckpt:{save_teacher(path, CLASSES)}"), f"ckpt:{path}", PRE, CLASSES)


def train_set(source: data.Source) -> data.ImageDataset:
    return data.make_dataset(source, data.train_transform(PRE, True, "rand-m9-mstd0.5-inc1", 0.08, 0.25), seed=0)


def test_the_cache_labels_unlabelled_photos_on_the_views_the_student_replays(tmp_path, photos):
    labelled = data.open_source(str(photos), "train")
    both = data.with_unlabelled(labelled, data.open_unlabelled(str(unlabelled_folder(tmp_path / "u", 6))))
    teacher, dataset = make_teacher(tmp_path / "t.pt"), train_set(both)
    cache = build_logit_cache(teacher, dataset, tmp_path / "cache", views=2, pixels=True, log=lambda _: None)
    assert cache.folder.manifest["unlabelled"] == 6 and cache.folder.manifest["size"] == 18
    replay = ReplayDataset(dataset, cache)
    labels = [replay[i][1] for i in range(18)]
    assert labels == [0] * 4 + [1] * 4 + [2] * 4 + [data.UNLABELLED] * 6
    for index in (12, 17):  # an unlabelled photo: the teacher's logits on exactly the pixels replayed
        pixels, _, _, logits = replay[index]
        torch.testing.assert_close(logits, teacher(pixels[None])[0], atol=1e-5, rtol=1e-5)
    # Another unlabelled photo is another cache; the same ones are the same cache.
    write_image(tmp_path / "u" / "meal-new.png", 0, 999)
    more = data.with_unlabelled(labelled, data.open_unlabelled(str(tmp_path / "u")))
    args = dict(views=2, topk=3, precision="fp32", num_classes=3, pixels=True)  # the build caps topk at the classes
    assert logit_cache_folder(teacher, train_set(more), tmp_path / "cache", **args).path != cache.path
    (tmp_path / "u" / "meal-new.png").unlink()
    assert logit_cache_folder(teacher, train_set(both), tmp_path / "cache", **args).path == cache.path


def test_unlabelled_rows_add_only_the_teachers_term(tmp_path):
    from distill.losses import distillation_loss, soft_kd

    g = torch.Generator().manual_seed(0)
    student, teacher = torch.randn(4, 3, generator=g), torch.randn(4, 3, generator=g)
    labels = torch.tensor([0, data.UNLABELLED, 2, data.UNLABELLED])
    loss = distillation_loss(student, labels, teacher, alpha=0.25, temperature=2.0)["loss"]
    def ce(i: int) -> torch.Tensor:
        return -torch.log_softmax(student[i], 0)[labels[i]] if labels[i] >= 0 else torch.tensor(0.0)

    per_photo = [0.25 * ce(i) + 0.75 * soft_kd(student[i:i + 1], teacher[i:i + 1], 2.0) for i in range(4)]
    assert loss.item() == pytest.approx(torch.stack(per_photo).mean().item(), rel=1e-5)


def test_training_beside_unlabelled_photos(tmp_path, photos, capsys):
    unlabelled = unlabelled_folder(tmp_path / "u", 12)
    save_teacher(tmp_path / "t.pt", CLASSES)
    args = tiny_args(tmp_path / "run", data=photos, unlabelled_data=unlabelled, teacher=f"ckpt:{tmp_path / 't.pt'}",
                     augment="true", mixup=0, cutmix=0, batch_size=4, logit_cache=tmp_path / "cache", logit_views=2)
    assert run_cli("train", *args) == 0
    err = capsys.readouterr().err
    assert "teacher-logit cache: 24 of 24 images (12 of them unlabelled) x 2 views" in err
    assert "(12 images, 3 classes) + unlabelled photos" in err
    assert torch.load(tmp_path / "run" / "last.pt", weights_only=False)["step"] == 6  # 24 photos / 4


@pytest.mark.parametrize("change, message", [
    ({"teacher": "none"}, "--unlabelled-data has no labels to learn from without a --teacher"),
    ({"mixup": 0.8}, "--unlabelled-data needs --mixup 0 --cutmix 0"),
])
def test_unlabelled_photos_need_a_teacher_and_no_mixing(tmp_path, photos, change, message, capsys):
    save_teacher(tmp_path / "t.pt", CLASSES)
    options = dict(data=photos, unlabelled_data=unlabelled_folder(tmp_path / "u", 4), augment="true", mixup=0,
                   cutmix=0, teacher=f"ckpt:{tmp_path / 't.pt'}")
    assert run_cli("train", *tiny_args(tmp_path / "run", **{**options, **change})) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def bad_unlabelled(tmp_path: Path, kind: str) -> str:
    folder = tmp_path / kind
    if kind == "missing":
        return str(folder)
    folder.mkdir()
    if kind == "labelled":
        image_folder(folder, ["x", "y"], 1)
    elif kind == "unreadable":
        write_image(folder / "meal.png", 0, 0)
        folder.chmod(0)
    elif kind == "not-photos":
        (folder / "notes.txt").write_text("lunch")
    return str(folder)


@pytest.mark.parametrize("kind, message", [
    ("missing", "does not exist"),
    ("empty", "no images found in"),
    ("not-photos", "no images found in"),
    ("labelled", "has labels; unlabelled photos go in one flat folder"),
    ("unreadable", "cannot read the unlabelled photos' folder"),
])
def test_bad_unlabelled_folders_are_refused_before_anything_is_written(tmp_path, photos, kind, message, capsys):
    import os

    spec = bad_unlabelled(tmp_path, kind)
    if kind == "unreadable" and os.access(spec, os.R_OK):
        pytest.skip("running as root: a folder without permissions stays readable")
    try:
        assert run_cli("pipeline", "--data", str(photos), "--out", str(tmp_path / "run"), "--unlabelled", spec) == 2
    finally:
        Path(spec).chmod(0o755) if Path(spec).exists() else None
    assert message in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_a_preset_whose_student_mixes_images_is_refused_before_training(tmp_path, photos, capsys):
    assert run_cli("pipeline", "--data", str(photos), "--out", str(tmp_path / "run"), "--preset", "gpu",
                   "--unlabelled", str(unlabelled_folder(tmp_path / "u", 2))) == 2
    assert "the gpu preset's student cannot learn unlabelled photos" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_unlabelled_photos_need_labelled_photos_beside_them(tmp_path):
    from distill.pipeline import PipelineConfig

    with pytest.raises(DistillError, match="--data synthetic has none"):
        PipelineConfig(data="synthetic", out=str(tmp_path / "run"), unlabelled=str(unlabelled_folder(tmp_path / "u", 2)))
    with pytest.raises(DistillError, match="holds no pipeline run to continue"):
        PipelineConfig(data="synthetic", out=str(tmp_path / "run"), resume=True)


def test_a_corrupt_unlabelled_photo_is_named_and_skipped(tmp_path, photos, capsys):
    unlabelled = unlabelled_folder(tmp_path / "u", 8)
    (unlabelled / "meal-003.png").write_bytes(b"\x89PNG\r\n\x1a\n cut short")
    save_teacher(tmp_path / "t.pt", CLASSES)
    assert run_cli("train", *tiny_args(tmp_path / "run", data=photos, unlabelled_data=unlabelled, augment="false", batch_size=4,
                                       teacher=f"ckpt:{tmp_path / 't.pt'}", val_data="none")) == 0
    assert "meal-003.png: " in capsys.readouterr().err
    assert '"train/skipped_images": 1' in (tmp_path / "run" / "metrics.jsonl").read_text()


def stage_runs(log: str) -> list[str]:
    return [line.split("[", 1)[1].split("]", 1)[0] for line in log.splitlines() if "] running" in line]


def test_pipeline_with_unlabelled_photos_resumes_and_reports_their_gain(tmp_path, photos):
    from distill import train

    preset = tmp_path / "tiny.yaml"
    preset.write_text(yaml.safe_dump(PRESET))
    unlabelled = unlabelled_folder(tmp_path / "u", 20)
    run_dir = tmp_path / "run"
    args = ["pipeline", "--data", str(photos), "--out", str(run_dir), "--preset", str(preset), "--bench-rounds", "1",
            "--unlabelled", str(unlabelled)]
    original_save = train.Trainer.save

    def save_then_die(self, best=False):  # the student dies after its first epoch
        original_save(self, best)
        if self.out.name == "student":
            raise KeyboardInterrupt("killed")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(train.Trainer, "save", save_then_die)
        with pytest.raises(KeyboardInterrupt):
            run_cli(*args)
    first = (run_dir / "pipeline.log").read_text()
    assert stage_runs(first)[-1] == "student"
    assert run_cli(*args, "--resume") == 0
    second = (run_dir / "pipeline.log").read_text()[len(first):]
    assert "[student] continuing from" in second and "teacher-head" not in stage_runs(second)

    # The student learnt from 12 labelled + 20 unlabelled photos; the labelled-only arms had its budget.
    student = yaml.safe_load((run_dir / "student" / "config.yaml").read_text())
    assert student["data"]["unlabelled_data"] == str(unlabelled)
    steps = 2 * (32 // 8)
    for arm in ("student-labelled", "baseline"):
        config = yaml.safe_load((run_dir / arm / "config.yaml").read_text())
        assert config["data"]["unlabelled_data"] == "" and config["optim"]["max_steps"] == steps
        assert config["data"]["repeats"] == 3  # 32 photos / 12 labelled: an epoch about the student's
        assert json.loads((run_dir / "stages" / f"{arm}.json").read_text())["details"]["steps"] == steps
    assert yaml.safe_load((run_dir / "student-labelled" / "config.yaml").read_text())["cache"]["logit_cache"] == ""
    manifests = [json.loads(p.read_text()) for p in (run_dir / "cache").glob("logits-*/manifest.json")]
    assert [(m["size"], m["unlabelled"], m["views"]) for m in manifests] == [(32, 20, 2)]

    text = (run_dir / "report.md").read_text()
    assert f"Training photos: 12 labelled, 20 unlabelled (`{unlabelled}`" in text
    evals = {m: json.loads((run_dir / "eval" / f"{m}.json").read_text()) for m in ("student", "student-labelled")}
    gain = (evals["student"]["top1"] - evals["student-labelled"]["top1"]) * 100
    assert f"| student's top-1 over the same student distilled from the labelled photos alone (the unlabelled " \
           f"photos' gain) | {gain:+.1f} points" in text
    assert "| student-labelled |" in text
    # A household's new photo retrains the student (the labelled-only arms and the teacher stay).
    from distill.pipeline import Pipeline, parse_args

    write_image(unlabelled / "meal-new.png", 1, 555)
    pipeline = Pipeline(parse_args(args[1:]))
    done = {s.name: pipeline.book.is_done(s) for s in pipeline.stages()}
    assert not done["student"] and done["student-labelled"] and done["baseline"] and done["teacher"]
    # Judged only when asked.
    assert run_cli("report", str(run_dir), "--images", "false", "--target", "unlabelled_gain=0.05") == 0
    assert "student >= 5 points above the one distilled from the labelled photos alone" in \
           (run_dir / "report.md").read_text()


def test_repeats_pass_over_each_photo_again_with_its_own_augmentation(photos):
    source = data.open_source(str(photos), "train")
    twice = data.repeated(source, 2)
    assert twice.items == source.items * 2 and twice.classes == source.classes
    dataset = train_set(twice)
    first, again = dataset[0], dataset[len(source)]
    assert first[1] == again[1] == 0 and not torch.equal(first[0], again[0])  # same photo, another view
    assert data.repeated(source, 1) is source
    with pytest.raises(DistillError, match="draws new ones instead"):
        data.repeated(data.open_source("synthetic", "train"), 2)
