"""Temperature scaling (models.calibration): the fit finds the temperature that made the labels,
the calibration error is computed as defined, the temperature lands in the graph (once, whatever
how often the file is calibrated), and the shipped default's confidence means what it says."""

from __future__ import annotations

import json

import numpy as np
import onnx
import pytest
from batch_support import photo, tiny_model

from models.calibration import (
    calibration_error,
    current_temperature,
    fit_temperature,
    softmax,
    with_temperature,
)
from models.engine import Engine
from models.errors import ModelError
from models.metadata import read_metadata
from models.shipped import SHIPPED_MODEL


def labels_drawn_from(logits: np.ndarray, temperature: float, seed: int = 0) -> np.ndarray:
    """Labels sampled from softmax(logits / T): logits whose calibrating temperature is T."""
    rng = np.random.default_rng(seed)
    probabilities = softmax(logits, temperature)
    return np.array([rng.choice(len(row), p=row) for row in probabilities])


@pytest.mark.parametrize("true_temperature", [0.6, 1.0, 2.5])
def test_the_fit_recovers_the_temperature_that_made_the_labels(true_temperature):
    logits = np.random.default_rng(1).normal(0, 3, (4000, 20))
    labels = labels_drawn_from(logits, true_temperature)
    assert fit_temperature(logits, labels) == pytest.approx(true_temperature, rel=0.08)
    fitted = fit_temperature(logits, labels)
    ece_raw = calibration_error(softmax(logits), labels)
    ece_fit = calibration_error(softmax(logits, fitted), labels)
    assert ece_fit < 0.03 and (true_temperature == 1.0 or ece_fit < ece_raw)


def test_calibration_error_by_hand():
    # Two photos at 0.9 (one right), two at 0.6 (both right): bins |0.9 - 0.5| and |0.6 - 1.0|,
    # each holding half the photos: ECE = 0.5 * 0.4 + 0.5 * 0.4 = 0.4.
    probabilities = np.array([[0.9, 0.1], [0.9, 0.1], [0.6, 0.4], [0.6, 0.4]])
    labels = np.array([0, 1, 0, 0])
    assert calibration_error(probabilities, labels) == pytest.approx(0.4)
    assert calibration_error(np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([0, 1])) == 0.0


def test_the_temperature_is_written_into_the_graph_once(tmp_path):
    model = tiny_model(tmp_path, seed=3)
    batch = np.random.default_rng(0).normal(size=(3, 3, 32, 32)).astype(np.float32)
    raw = Engine(model).run(batch)
    proto = with_temperature(onnx.load(str(model)), 0.5)
    once = tmp_path / "once.onnx"
    onnx.save(proto, str(once))
    np.testing.assert_allclose(Engine(once).run(batch), raw / 0.5, rtol=1e-5, atol=1e-5)
    again = tmp_path / "again.onnx"  # calibrated again: the temperature is replaced, not stacked
    onnx.save(with_temperature(onnx.load(str(once)), 2.0), str(again))
    np.testing.assert_allclose(Engine(again).run(batch), raw / 2.0, rtol=1e-5, atol=1e-5)
    assert current_temperature(onnx.load(str(again))) == 2.0
    with pytest.raises(ModelError, match="above 0"):
        with_temperature(onnx.load(str(model)), 0.0)


def test_calibrate_command_writes_the_fit_and_keeps_the_ranking(tmp_path, capsys):
    from models.__main__ import main

    labels = ["apple_pie", "baklava", "beignets", "breakfast_burrito"]
    model = tiny_model(tmp_path, labels, seed=4)
    data = tmp_path / "val"
    for i in range(40):
        photo(data / labels[i % 4] / f"{i}.jpg", seed=i)
    out, figure = tmp_path / "calibrated.onnx", tmp_path / "reliability.png"
    assert main(["calibrate", str(model), "--data", str(data), "--out", str(out), "--held-out", "beignets",
                 "--figure", str(figure)]) == 0
    said = capsys.readouterr().out
    assert "temperature" in said and "fitted on 20 photos" in said and "1 classes" in said
    fit = json.loads(read_metadata(out)["calibration"])
    assert fit["temperature"] == pytest.approx(current_temperature(onnx.load(str(out))), rel=1e-3)
    assert fit["fitted_on"] == fit["measured_on"] == 20 and fit["out_of_class"]["classes"] == 1
    assert read_metadata(out)["version"] != read_metadata(model)["version"]  # other probabilities, another version
    batch = np.random.default_rng(0).normal(size=(4, 3, 32, 32)).astype(np.float32)
    assert (Engine(out).run(batch).argmax(1) == Engine(model).run(batch).argmax(1)).all()
    assert figure.stat().st_size > 10_000
    assert main(["calibrate", str(model), "--data", str(tmp_path / "nothing")]) == 2
    assert "one folder a class" in capsys.readouterr().err


def test_the_shipped_default_is_calibrated():
    """Measured on the half of the val photos the fit did not see (docs/experiments.md)."""
    fit = json.loads(read_metadata(SHIPPED_MODEL)["calibration"])
    assert fit["ece_after"] <= 0.05 < fit["ece_before"]
    assert current_temperature(onnx.load(str(SHIPPED_MODEL))) == pytest.approx(fit["temperature"], rel=1e-3)
