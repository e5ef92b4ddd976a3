"""Config: YAML + command-line layering, type checks, unknown keys, --help, SageMaker env."""

import pytest

from distill import config
from distill.config import EvalConfig, TrainConfig
from distill.errors import DistillError
from distill_support import run_cli


def build(argv, yaml_text=None, tmp_path=None):
    if yaml_text is not None:
        path = tmp_path / "cfg.yaml"
        path.write_text(yaml_text)
        argv = ["--config", str(path), *argv]
    return config.build(TrainConfig, config.parse_args(TrainConfig, argv, "t", "t"))


def test_defaults_then_yaml_then_command_line(tmp_path):
    cfg = build(["--lr", "0.01", "--zero", "--model-kwargs", "{depth: 2}"],
                "data: synthetic\nteacher: none\noptim:\n  lr: 1e-3\n  epochs: 3\nbatch_size: 16\n", tmp_path)
    assert cfg.data.data == "synthetic" and cfg.data.batch_size == 16
    assert cfg.optim.epochs == 3 and cfg.optim.lr == 0.01  # the command line wins over YAML
    assert cfg.optim.zero is True and cfg.model.model_kwargs == {"depth": 2}
    assert cfg.optim.weight_decay == 0.05  # untouched default
    assert build(["--data", "synthetic", "--teacher", "none", "--zero", "false"]).optim.zero is False


def test_saved_config_round_trips(tmp_path):
    cfg = build(["--data", "synthetic", "--teacher", "none", "--epochs", "7"])
    config.save_yaml(cfg, tmp_path / "config.yaml")
    assert build(["--config", str(tmp_path / "config.yaml")]) == cfg


@pytest.mark.parametrize("yaml_text, message", [
    ("data: synthetic\nteacher: none\nlearning_rate: 0.1\n", "unknown option 'learning_rate'"),
    ("data: synthetic\nteacher: none\noptim: {batch_size: 3}\n", "unknown option optim.batch_size"),
    ("data: synthetic\nteacher: none\nepochs: three\n", "epochs must be int"),
    ("data: synthetic\nteacher: none\nzero: 1\n", "zero must be bool"),
    ("[1, 2]\n", "must hold a mapping"),
])
def test_yaml_errors(tmp_path, yaml_text, message):
    with pytest.raises(DistillError, match=message):
        build([], yaml_text, tmp_path)


@pytest.mark.parametrize("argv", [["--learning-rate", "1"], ["--epochs", "x"], ["--precision", "fp8"],
                                  ["--zero", "maybe"], ["--model-kwargs", "[1]"]])
def test_command_line_errors_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        build(["--data", "synthetic", "--teacher", "none", *argv])
    assert exc.value.code == 2
    assert "error:" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--data", "synthetic", "--teacher", "none", "--alpha", "1.5"], "alpha must be in"),
    (["--data", "synthetic", "--teacher", "none", "--batch-size", "7"], "even batch_size"),
    (["--data", "synthetic", "--teacher", "none", "--batch-size", "0"], "batch_size must be > 0"),
    (["--data", "synthetic"], "choose --teacher"),
    (["--teacher", "none"], "no training data"),
    (["--data", "synthetic", "--teacher", "vit_micro", "--logit-pixels", "true"], "pass --logit-cache DIR too"),
])
def test_cross_field_checks(argv, message):
    with pytest.raises(DistillError, match=message):
        build(argv)


def test_help_documents_every_option(capsys):
    for command, cls in (("train", TrainConfig), ("eval", EvalConfig)):
        with pytest.raises(SystemExit) as exc:
            run_cli(command, "--help")
        assert exc.value.code == 0
        text = capsys.readouterr().out
        for name in config._leaf_fields(cls):
            assert "--" + name.replace("_", "-") in text, name


def test_sagemaker_environment_and_variables(monkeypatch):
    env = {"SM_CHANNEL_TRAINING": "/opt/ml/input/data/training", "SM_CHANNEL_VALIDATION": "/opt/ml/input/data/validation",
           "SM_MODEL_DIR": "/opt/ml/model", "SM_OUTPUT_DATA_DIR": "/opt/ml/output/data"}
    assert config.sagemaker_defaults(env) == {"data": env["SM_CHANNEL_TRAINING"], "val_data": env["SM_CHANNEL_VALIDATION"],
                                              "out": env["SM_MODEL_DIR"], "log_dir": env["SM_OUTPUT_DATA_DIR"]}
    monkeypatch.setenv("SM_CHANNEL_TEACHER", "/opt/ml/input/data/teacher")
    cfg = config.build(TrainConfig, config.sagemaker_defaults(env),
                       {"teacher": "ckpt:$SM_CHANNEL_TEACHER/best.pt", "epochs": 2})
    assert cfg.model.teacher == "ckpt:/opt/ml/input/data/teacher/best.pt"
    assert cfg.data.data == "/opt/ml/input/data/training" and cfg.run.out == "/opt/ml/model"
