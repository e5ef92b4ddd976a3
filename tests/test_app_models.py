"""The Models tab's catalogue: default + deployed + --model files, accuracy, switching."""

from __future__ import annotations

import json
from pathlib import Path
import shutil
import time

import pytest

from app.model_catalog import DefaultFollower, ModelCatalog
from models.errors import ModelError


def test_lists_default_and_extra_models_and_switches(default_model_path, tmp_path, coffee_image):
    deployed = tmp_path / "student_vit.onnx"
    shutil.copy(default_model_path, deployed)
    (tmp_path / "student_vit.report.json").write_text(json.dumps({"top1": 0.812, "top5": 0.97}))
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not onnx at all")

    catalog = ModelCatalog([deployed, broken])
    infos, problems = catalog.list()
    by_name = {info.name: info for info in infos}
    # The shipped default's val top-1 comes with it (models/shipped/food101.report.json).
    shipped = json.loads((Path(__file__).parents[1] / "models" / "shipped" / "food101.report.json").read_text())
    assert by_name["food101"].default and by_name["food101"].accuracy == pytest.approx(shipped["top1"])
    assert by_name["student_vit"].accuracy == pytest.approx(0.812) and by_name["student_vit"].classes == 132
    assert len(problems) == 1 and "broken.onnx" in problems[0]

    # The first --model is active at start; switching loads each engine once.
    engine, info = catalog.active()
    assert info.name == "student_vit"
    assert catalog.activate("food101").name == "food101"
    default_engine, _ = catalog.active()
    assert default_engine is not engine
    catalog.activate("student_vit")
    assert catalog.active()[0] is engine
    assert engine.predict([coffee_image])[0][0].label == "espresso"

    with pytest.raises(ModelError, match="no model called 'nope'"):
        catalog.activate("nope")


def test_a_broken_model_never_becomes_active(default_model_path, tmp_path):
    import onnx

    # Metadata intact (so it is listed and can be picked), graph unloadable by ONNX Runtime:
    # only activate()'s load-before-switch guard stands between it and every user.
    proto = onnx.load(str(default_model_path))
    proto.graph.node[0].op_type = "NoSuchOperator"
    broken = tmp_path / "broken_graph.onnx"
    onnx.save(proto, str(broken))
    catalog = ModelCatalog([default_model_path, broken])
    assert catalog.start().name == "food101"
    assert "broken_graph" in [info.name for info in catalog.list()[0]]
    with pytest.raises(ModelError, match="broken_graph.onnx: ONNX Runtime cannot load it"):
        catalog.activate("broken_graph")
    assert catalog.active()[1].name == "food101"


def test_the_stored_default_wins_at_start_and_is_followed(default_model_path, tmp_path, caplog):
    student = tmp_path / "student.onnx"
    shutil.copy(default_model_path, student)
    # Started with --model student, but an admin stored food_default: that one serves.
    catalog = ModelCatalog([student, default_model_path])
    assert catalog.start(preferred="food101").name == "food101"
    # A stored name this server does not list: it starts with its own first --model.
    assert ModelCatalog([student]).start(preferred="gone").name == "student"

    stored = {"name": None}
    follower = DefaultFollower(catalog, lambda: stored["name"], interval_s=0.05)
    assert follower.poll() is None  # nothing stored: keep what runs
    stored["name"] = "student"
    assert follower.poll().name == "student" and catalog.active()[1].name == "student"
    assert follower.poll() is None  # already active

    stored["name"] = "not-installed"
    caplog.set_level("WARNING", logger="foodtag.models")
    assert follower.poll() is None and follower.poll() is None
    assert catalog.active()[1].name == "student"
    assert len([r for r in caplog.records if "not-installed" in r.getMessage()]) == 1  # retried after RETRY_S

    follower.start()  # the thread applies a change by itself
    stored["name"] = "food101"
    for _ in range(100):
        if catalog.active_info.name == "food101":
            break
        time.sleep(0.05)
    follower.stop()
    assert catalog.active_info.name == "food101"
