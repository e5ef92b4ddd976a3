"""Training runs on CPU with synthetic data and tiny ViTs: outputs, KD variants, eval report."""

import json

import pytest
import torch
import yaml

from distill import data
from distill_support import TINY_VIT, run_cli, tiny_args
from models.registry import create_model


@pytest.fixture(scope="session")
def teacher(tmp_path_factory) -> str:
    """A tiny ViT trained supervised on the synthetic classes (the packaged-teacher workflow)."""
    out = tmp_path_factory.mktemp("teacher")
    assert run_cli("train", *tiny_args(out, epochs=3, lr=3e-3)) == 0
    return f"ckpt:{out / 'last.pt'}"


def test_supervised_run_writes_checkpoints_config_and_logs(tmp_path):
    assert run_cli("train", *tiny_args(tmp_path, epochs=2, tensorboard="true", save_every=3)) == 0
    files = {p.name for p in tmp_path.iterdir()}
    assert {"last.pt", "best.pt", "config.yaml", "metrics.jsonl", "curves.png", "tensorboard"} <= files
    ckpt = torch.load(tmp_path / "last.pt", weights_only=True)
    assert ckpt["classes"] == ["class_0", "class_1", "class_2", "class_3"]
    assert ckpt["step"] == 16 and ckpt["epoch"] == 2 and ckpt["epoch_samples"] == 0 and ckpt["teacher"] is None
    saved = yaml.safe_load((tmp_path / "config.yaml").read_text())
    assert saved == ckpt["config"] and saved["optim"]["epochs"] == 2
    records = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in records if "train/loss" in r] == list(range(1, 17))
    assert sum("val/top1" in r for r in records) == 2
    model = create_model(f"ckpt:{tmp_path / 'best.pt'}")  # what `python -m models export ckpt:` does
    assert model.preprocess.labels == ckpt["classes"] and model.preprocess.input_size == 16
    assert model(torch.zeros(2, 3, 16, 16)).shape == (2, 4)


def test_distillation_and_eval_report(tmp_path, teacher, capsys):
    out = tmp_path / "kd"
    assert run_cli("train", *tiny_args(out, teacher=teacher, epochs=2, alpha=0.3, temperature=2)) == 0
    assert torch.load(out / "last.pt", weights_only=True)["teacher"] == teacher
    capsys.readouterr()
    assert run_cli("eval", "--checkpoint", str(out / "best.pt"), "--data", "synthetic", "--num-workers", "0",
                   "--json", str(tmp_path / "m.json")) == 0
    text = capsys.readouterr().out
    assert "top-1" in text and "top-5" in text and "teacher agreement" in text and "class_3" in text
    metrics = json.loads((tmp_path / "m.json").read_text())
    assert set(metrics["per_class"]) == {f"class_{i}" for i in range(4)} and 0 <= metrics["agreement"] <= 1


def test_label_free_distillation_from_unlabelled_photos(tmp_path, teacher, capsys):
    """No labels at all: the classes come from the teacher; validation reports agreement."""
    photos = tmp_path / "photos"
    photos.mkdir()
    synthetic = data.make_dataset(data.open_source("synthetic", "train", 4, 48), None, seed=7)
    for i in range(48):
        synthetic.load(i)[0].save(photos / f"{i:02d}.png")
    out = tmp_path / "run"
    assert run_cli("train", *tiny_args(out, data=photos, val_data=photos, teacher=teacher, alpha=0,
                                       epochs=4, lr=3e-3)) == 0
    metrics = torch.load(out / "last.pt", weights_only=True)["metrics"]
    assert "top1" not in metrics and metrics["agreement"] >= 0.5
    assert run_cli("train", *tiny_args(tmp_path / "bad", data=photos, teacher=teacher)) == 2
    assert "use --alpha 0" in capsys.readouterr().err


def test_deit_distillation_token_student(tmp_path, teacher):
    out = tmp_path / "deit"
    args = tiny_args(out, teacher=teacher, model="deit_tiny_distilled_patch16_224", pretrained="false", kd="hard")
    assert run_cli("train", *args) == 0
    model = create_model(f"ckpt:{out / 'last.pt'}")
    assert model.preprocess.input_size == 16
    assert model(torch.zeros(1, 3, 16, 16)).shape == (1, 4)  # eval mode: the two heads averaged


@pytest.mark.parametrize("precision", ["bf16", "fp16"])
def test_mixed_precision_accumulation_ema_augmentation(tmp_path, teacher, precision, capsys):
    args = tiny_args(tmp_path, teacher=teacher, precision=precision, accum_steps=2, ema="true",
                     channels_last="true", augment="true", clip_grad=0.5, batch_size=4)
    assert run_cli("train", *args) == 0
    # bf16 on a CPU trains the ViT's attention and patch embedding on plain matmuls (fp16 is for CUDA)
    assert ("attention and patch embedding on plain matmuls" in capsys.readouterr().err) == (precision == "bf16")
    ckpt = torch.load(tmp_path / "last.pt", weights_only=True)
    assert ckpt["step"] == 8 and ckpt["ema"] is not None and ckpt["student"] is not None
    if precision == "fp16":  # fp16 gradients need loss scaling: the scaler ran and saved its scale
        assert ckpt["scaler"]["scale"] > 0 and ckpt["scaler"]["growth_interval"] == 2000
    else:  # bf16 has fp32's range: no scaler, nothing saved
        assert ckpt["scaler"] == {}
    ema = {k.removeprefix("module."): v for k, v in ckpt["ema"].items()}
    assert all(torch.equal(ema[k], v) for k, v in ckpt["model"]["state_dict"].items())  # the EMA is the model


def test_profile_steps_writes_trace_and_prints_table(tmp_path, capsys):
    assert run_cli("train", *tiny_args(tmp_path, profile_steps=2)) == 0
    assert (tmp_path / "profile_trace.json").stat().st_size > 0
    assert "Self CPU" in capsys.readouterr().out


def test_student_input_size_follows_img_size(tmp_path):
    kwargs = "{" + ", ".join(f"{k}: {v}" for k, v in {**TINY_VIT, "img_size": 24}.items()) + "}"
    assert run_cli("train", *tiny_args(tmp_path, model_kwargs=kwargs, img_size=24)) == 0
    assert create_model(f"ckpt:{tmp_path / 'last.pt'}").preprocess.input_size == 24


def test_sagemaker_job_layout(tmp_path, monkeypatch):
    """As a SageMaker PyTorch estimator runs it: no subcommand, paths from SM_* variables."""
    from distill_support import image_folder

    image_folder(tmp_path / "training", ["pho", "ramen"], 8)
    image_folder(tmp_path / "validation", ["pho", "ramen"], 2)
    for name, path in (("SM_CHANNEL_TRAINING", "training"), ("SM_CHANNEL_VALIDATION", "validation"),
                       ("SM_MODEL_DIR", "model"), ("SM_OUTPUT_DATA_DIR", "output")):
        monkeypatch.setenv(name, str(tmp_path / path))
    args = [a for a in tiny_args("unused") if a not in ("--out", "unused", "--data", "synthetic")]
    assert run_cli(*args, "--progress", "true") == 0
    assert {"last.pt", "best.pt", "config.yaml"} <= {p.name for p in (tmp_path / "model").iterdir()}
    assert {"metrics.jsonl", "curves.png"} <= {p.name for p in (tmp_path / "output").iterdir()}
    assert torch.load(tmp_path / "model" / "last.pt", weights_only=True)["classes"] == ["pho", "ramen"]


def test_smddp_backend_without_the_package_is_a_clear_error(tmp_path, capsys):
    import importlib.util

    if importlib.util.find_spec("smdistributed") is not None:
        pytest.skip("smdistributed is installed here")
    assert run_cli("train", *tiny_args(tmp_path, backend="smddp")) == 2
    assert "smdistributed.dataparallel" in capsys.readouterr().err
