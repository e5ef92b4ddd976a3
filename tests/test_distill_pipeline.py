"""`python -m distill pipeline` in miniature (synthetic photos, tiny ViTs, a few steps), its
resume after an interruption, the report, and `python -m distill deploy` with its label check."""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

import pytest
import torch
import yaml

from distill.errors import DistillError
from distill_support import run_cli

TINY = {"pretrained": False, "model_kwargs": {"img_size": 16, "patch_size": 8, "depth": 1, "embed_dim": 16, "num_heads": 2}}
TINY_PRESET = {
    "description": "miniature recipe for the tests",
    "train": {"batch_size": 8, "num_workers": 0, "progress": False, "tensorboard": False, "log_every": 1,
              "synthetic_images": 32, "synthetic_classes": 4, "augment": False, "warmup_steps": 0, "lr": 3e-3},
    "teacher": [{"name": "tiny",
                 "warmup": {"model": "vit_micro", **TINY, "epochs": 1},
                 "finetune": {"epochs": 3, "layer_decay": 0.8}}],
    "student": {"why": "the smallest ViT that runs", "options": {"model": "vit_micro", **TINY, "epochs": 2,
                                                                  "alpha": 0.1, "temperature": 1.0}},
    "baseline": {},
}
TRAINING_STAGES = ["teacher-head", "teacher", "student", "baseline"]


def stage_lines(log: str) -> dict[str, str]:
    """stage -> what happened to it in one invocation's log ('running' or 'done already')."""
    out = {}
    for line in log.splitlines():
        if "] done already" in line or "] running" in line:
            name = line.split("[", 1)[1].split("]", 1)[0]
            out[name] = "skipped" if "done already" in line else "ran"
    return out


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """One miniature pipeline, killed inside the student stage and then run again."""
    from distill import train

    root = tmp_path_factory.mktemp("pipeline")
    preset = root / "tiny.yaml"
    preset.write_text(yaml.safe_dump(TINY_PRESET))
    run_dir = root / "run"
    args = ["pipeline", "--data", "synthetic", "--out", str(run_dir), "--preset", str(preset), "--bench-rounds", "1"]

    # First invocation: the student stage dies right after its first checkpoint (epoch 1 of 2).
    original_save = train.Trainer.save

    def save_then_die(self, best=False):
        original_save(self, best)
        if self.out.name == "student":
            raise KeyboardInterrupt("killed")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(train.Trainer, "save", save_then_die)
        with pytest.raises(KeyboardInterrupt):
            run_cli(*args)
    first_log = (run_dir / "pipeline.log").read_text()
    assert torch.load(run_dir / "student" / "last.pt", weights_only=True)["step"] == 4
    assert not (run_dir / "stages" / "student.json").exists()

    assert run_cli(*args) == 0
    second_log = (run_dir / "pipeline.log").read_text()[len(first_log):]
    assert run_cli(*args) == 0
    third_log = (run_dir / "pipeline.log").read_text()[len(first_log) + len(second_log):]
    return {"dir": run_dir, "preset": preset, "logs": (first_log, second_log, third_log)}


def test_interrupted_pipeline_resumes_at_the_stage_it_was_in(run):
    first, second, third = (stage_lines(log) for log in run["logs"])
    assert first == {"teacher-head": "ran", "teacher": "ran", "export-teacher": "ran", "eval-teacher": "ran",
                     "student": "ran"}
    assert all(second[name] == "skipped" for name in first if name != "student")
    assert second["student"] == "ran" and "continuing from" in run["logs"][1]
    record = json.loads((run["dir"] / "stages" / "student.json").read_text())
    assert record["details"]["resumed"] and record["details"]["steps"] == record["details"]["total_steps"] == 8
    assert record["details"]["started_at_step"] == 4
    # The report projects the resumed stage's time from its last attempt (4 of 8 steps): twice as long.
    from distill.report import stage_seconds

    assert stage_seconds(record) == (pytest.approx(record["seconds"] * 2), True)
    assert "resumed from last.pt at step 4" in (run["dir"] / "report.md").read_text()
    # Steps 1-4 were logged once, by the first invocation; the second logged 5-8.
    steps = [json.loads(line)["step"] for line in (run["dir"] / "student" / "metrics.jsonl").read_text().splitlines()
             if "train/loss" in line]
    assert steps == list(range(1, 9))
    # A finished run skips every stage.
    assert third and set(third.values()) == {"skipped"}


def test_every_artifact_is_written(run):
    from models.metadata import read_metadata

    d = run["dir"]
    for stage in TRAINING_STAGES:
        assert {"best.pt", "last.pt", "config.yaml", "metrics.jsonl", "curves.png"} <= {p.name for p in (d / stage).iterdir()}
    for name in ("teacher", "student", "baseline"):
        meta = read_metadata(d / f"{name}.onnx")
        assert json.loads(meta["labels"]) == [f"class_{i}" for i in range(4)]
        assert json.loads(meta["preprocess"])["input_size"] == 16
        report = json.loads((d / f"{name}.report.json").read_text())
        evaluated = json.loads((d / "eval" / f"{name}.json").read_text())
        assert report["top1"] == evaluated["top1"] and evaluated["images"] == 8
        assert sum(map(sum, evaluated["confusion"])) == 8
    int8 = json.loads((d / "int8.json").read_text())
    written = [m for m in ("teacher", "student", "baseline") if int8[m]["out_path"]]
    for name in ("teacher", "student", "baseline"):
        if name in written:
            assert read_metadata(d / f"{name}.int8.onnx")["precision"] == "int8"
            assert json.loads((d / "eval" / f"{name}.int8.json").read_text())["images"] == 8
        else:
            assert "agreement" in int8[name]["refused"] and not (d / f"{name}.int8.onnx").exists()
    bench = json.loads((d / "bench.json").read_text())
    assert {(r["model"], r["batch"]) for r in bench["rows"]} == {
        (f"{m}{kind}.onnx", b) for m in ("teacher", "student", "baseline") for b in (1, 32)
        for kind in ([""] + [".int8"] * (m in written))}
    # Each model is served here from its fp32 file, or from its int8 file only when that was written.
    for name in ("teacher", "student", "baseline"):
        served = bench["served"][name]
        assert served["name"] in (["fp32", "int8"] if name in written else ["fp32"])
        assert served["path"] == str(d / (f"{name}.int8.onnx" if served["name"] == "int8" else f"{name}.onnx"))
    for png in ("confusion-teacher.png", "confusion-student.png", "confusion-baseline.png", "curves.png"):
        assert (d / png).stat().st_size > 1000
    text = (d / "report.md").read_text()
    for heading in ("## Results", "## Measured", "## Agreement", "## Per-class top-1", "## Stages",
                    "## The student and why", "## Configuration"):
        assert heading in text
    # The preset states no targets, so nothing is judged.
    assert "## Targets" not in text and "met**" not in text
    assert "the smallest ViT that runs" in text and "int8 (`models.quantize`" in text
    assert f"- student: {bench['served']['student']['reason']}" in text
    assert "| student |" in text and "| baseline |" in text and "| class_3 | 2 |" in text


def test_exported_models_load_in_the_app(run):
    from app.model_catalog import describe
    from app.config import AppConfig
    from models.engine import Engine
    from models.export import parity_images

    for name in ("teacher", "student", "baseline"):
        path = run["dir"] / f"{name}.onnx"
        AppConfig(models=[path])  # what `python -m app --model` and `app batch --model` check first
        info = describe(path, default=False)
        assert info.accuracy == json.loads((run["dir"] / f"{name}.report.json").read_text())["top1"]
        predictions = Engine(path).predict(parity_images(count=2), top_k=2)
        assert [len(p) for p in predictions] == [2, 2]


def test_a_changed_teacher_retrains_what_depends_on_it(run, tmp_path):
    """Stage validity follows the inputs: new teacher weights make the student stale."""
    import shutil

    from distill.pipeline import Pipeline, PipelineConfig

    copy = tmp_path / "run"
    shutil.copytree(run["dir"], copy)
    pipeline = Pipeline(PipelineConfig(data="synthetic", out=str(copy), preset=str(run["preset"])))
    stages = {s.name: s for s in pipeline.stages()}
    assert all(pipeline.book.is_done(s) for s in stages.values())
    (copy / "teacher" / "best.pt").write_bytes((copy / "teacher" / "best.pt").read_bytes())  # new mtime
    assert not pipeline.book.is_done(stages["student"]) and pipeline.book.has_stale_record(stages["student"])
    assert not pipeline.book.is_done(stages["export-teacher"])
    assert pipeline.book.is_done(stages["baseline"]) and pipeline.book.is_done(stages["teacher-head"])


def test_a_changed_recipe_redoes_the_stages_it_touches(run, tmp_path):
    import shutil

    from distill.pipeline import Pipeline, PipelineConfig

    copy = tmp_path / "run"
    shutil.copytree(run["dir"], copy)
    other = tmp_path / "other.yaml"
    other.write_text(yaml.safe_dump({**TINY_PRESET, "student": {"why": "x", "options": {
        **TINY_PRESET["student"]["options"], "epochs": 3}}}))
    pipeline = Pipeline(PipelineConfig(data="synthetic", out=str(copy), preset=str(other)))
    done = {s.name: pipeline.book.is_done(s) for s in pipeline.stages()}
    assert done["teacher"] and done["export-teacher"] and not done["student"]
    # The baseline shares the student's options, so it changes too.
    assert not done["baseline"]
    # ...but not with options that only a teacher uses.
    other.write_text(yaml.safe_dump({**TINY_PRESET, "student": {"why": "x", "options": {
        **TINY_PRESET["student"]["options"], "alpha": 0.3, "temperature": 2.0, "logit_views": 3}}}))
    pipeline = Pipeline(PipelineConfig(data="synthetic", out=str(copy), preset=str(other)))
    done = {s.name: pipeline.book.is_done(s) for s in pipeline.stages()}
    assert not done["student"] and done["baseline"]
    # Nor with how a stage runs (loader workers, logging): finished training stays finished.
    other.write_text(yaml.safe_dump({**TINY_PRESET, "train": {**TINY_PRESET["train"], "num_workers": "auto",
                                                              "log_every": 5, "progress": True}}))
    pipeline = Pipeline(PipelineConfig(data="synthetic", out=str(copy), preset=str(other)))
    assert all(pipeline.book.is_done(s) for s in pipeline.stages())


def test_more_seeds_train_the_student_and_baseline_again_and_the_report_averages_their_gain(run, tmp_path):
    """`--seeds 3` on a finished run: only the new seeds' stages (and the report) run; each seed's
    models differ from the first seed's; the KD target reads the mean gain over the three."""
    import shutil

    from distill.report import collect, measurements

    copy = tmp_path / "run"
    shutil.copytree(run["dir"], copy)
    args = ["pipeline", "--data", "synthetic", "--out", str(copy), "--preset", str(run["preset"]), "--bench-rounds", "1"]
    before = (copy / "pipeline.log").read_text()
    assert run_cli(*args, "--seeds", "3") == 0
    ran = {name for name, what in stage_lines((copy / "pipeline.log").read_text()[len(before):]).items() if what == "ran"}
    assert ran == {f"{step}{model}-seed{seed}" for seed in (1, 2) for model in ("student", "baseline")
                   for step in ("", "export-", "eval-")} | {"report"}
    for seed in (1, 2):
        config = yaml.safe_load((copy / f"student-seed{seed}" / "config.yaml").read_text())
        assert config["run"]["seed"] == seed and config["model"]["teacher"].startswith("ckpt:")
        assert yaml.safe_load((copy / f"baseline-seed{seed}" / "config.yaml").read_text())["model"]["teacher"] == "none"
        first = torch.load(copy / "student" / "best.pt", weights_only=False)["model"]["state_dict"]
        other = torch.load(copy / f"student-seed{seed}" / "best.pt", weights_only=False)["model"]["state_dict"]
        assert any(not torch.equal(first[k], other[k]) for k in first)  # its own initialisation

    info = collect(copy)
    assert sorted(info["seeds"]) == [0, 1, 2]
    gains = [pair["student"]["top1"] - pair["baseline"]["top1"] for pair in info["seeds"].values()]
    kd = next(measured for name, _, measured, _ in measurements(info) if name == "kd_gain")
    assert kd.startswith(f"{sum(gains) / 3 * 100:+.1f} points, the mean over 3 seeds")
    text = (copy / "report.md").read_text()
    assert "## The teacher's gain over seeds" in text and "| 2 | " in text and "| mean | " in text
    assert "the extra seeds' stages:" in text
    before = (copy / "pipeline.log").read_text()
    assert run_cli(*args, "--seeds", "3") == 0  # all done: nothing runs again
    again = stage_lines((copy / "pipeline.log").read_text()[len(before):])
    assert len(again) == 25 and set(again.values()) == {"skipped"}


@pytest.mark.parametrize("name", ["cpu", "cpu-ensemble", "gpu"])
def test_shipped_presets_plan_extra_seeds(name, tmp_path):
    from distill.pipeline import Pipeline, PipelineConfig

    pipeline = Pipeline(PipelineConfig(data="synthetic", out=str(tmp_path / "run"), preset=name, seeds=3))
    names = [stage.name for stage in pipeline.stages()]
    assert pipeline.extra_seeds() == [1, 2]
    assert names.index("student-seed1") < names.index("baseline-seed2") < names.index("int8")
    assert "eval/student-seed2.json" in {str(p.relative_to(pipeline.run_dir)) for p in
                                          next(s for s in pipeline.stages() if s.name == "report").inputs}


def test_seeds_need_a_baseline(run, tmp_path, capsys):
    assert run_cli("pipeline", "--data", "synthetic", "--out", str(tmp_path / "run"), "--preset", str(run["preset"]),
                   "--baseline", "false", "--seeds", "2") == 2
    assert "--seeds measures the teacher's gain over the baseline" in capsys.readouterr().err
    assert run_cli("pipeline", "--data", "synthetic", "--out", str(tmp_path / "run"), "--seeds", "0") == 2
    assert "seeds must be >= 1" in capsys.readouterr().err


def test_run_folder_of_other_data_is_refused(run, tmp_path):
    from distill.pipeline import Pipeline, PipelineConfig
    from distill_support import image_folder

    for split in ("train", "val"):
        image_folder(tmp_path / "photos" / split, ["a", "b"], 2)
    with pytest.raises(DistillError, match="holds a run on other data"):
        Pipeline(PipelineConfig(data=str(tmp_path / "photos"), out=str(run["dir"]), preset=str(run["preset"])))


def test_report_command_rewrites_the_report(run, tmp_path, capsys):
    out = tmp_path / "results.md"
    assert run_cli("report", str(run["dir"]), "--out", str(out), "--images", "false") == 0
    text = out.read_text()
    assert "## Targets" not in text and "![" not in text
    assert "paired bootstrap over the 8 photos" in text  # the miniature run's synthetic val split
    assert run_cli("report", str(run["dir"]), "--out", str(out), "--images", "false",
                   "--target", "teacher_top1=0.01", "--target", "kd_gain=5") == 0
    text = out.read_text()
    assert "| teacher top-1 >= 1% | " in text and "| KD student >= 500 points above the no-teacher baseline | " in text
    assert text.count("**met**") == 1 and text.count("**not met**") == 1  # no other target is judged
    assert run_cli("report", str(tmp_path)) == 2
    assert "not a pipeline run folder" in capsys.readouterr().err


def test_a_stage_resumed_at_its_last_step_says_its_time_is_unknown():
    from distill.report import _stage_line, unmeasured

    record = {"stage": "student", "seconds": 4.0, "details": {"best_top1": 0.5, "steps": 10, "total_steps": 10,
                                                               "resumed": True, "started_at_step": 10}}
    assert unmeasured(record) and "time not measured" in _stage_line(record)
    record["details"]["started_at_step"] = 5
    assert not unmeasured(record) and "projected to all 10" in _stage_line(record)


def test_the_kd_gain_interval_is_a_paired_bootstrap_over_the_same_photos():
    from distill.report import paired_gain_interval

    targets = [i % 4 for i in range(100)]
    same = {"targets": targets, "predictions": targets[:50] + [9] * 50}  # right on the first half
    assert paired_gain_interval(same, same) == (0.0, 0.0)
    better = {"targets": targets, "predictions": targets[:90] + [9] * 10}  # and on 40 more
    low, high = paired_gain_interval(better, same)
    assert 0.28 < low < 0.35 and 0.45 < high < 0.52  # +40 points, every discordant photo in its favour
    swapped = {"targets": targets, "predictions": [9] * 40 + targets[40:90] + [9] * 10}  # 40 wins, 40 losses
    low, high = paired_gain_interval(swapped, same)
    assert low < -0.1 and high > 0.1 and abs(low + high) < 0.02  # symmetric about no gain
    assert paired_gain_interval(same, {"targets": targets[::-1], "predictions": targets}) is None


def test_the_mean_gain_over_seeds_averages_each_photos_differences_before_resampling():
    from distill.report import mean_gain_interval, paired_gain_interval

    targets = [i % 4 for i in range(100)]
    same = {"targets": targets, "predictions": targets[:50] + [9] * 50}
    better = {"targets": targets, "predictions": targets[:90] + [9] * 10}
    # One seed +40 points, one seed none: a mean of +20, every photo's difference +0.5 or 0.
    low, high = mean_gain_interval([(better, same), (same, same)])
    assert 0.14 < low < 0.18 and 0.22 < high < 0.26
    assert mean_gain_interval([(better, same)]) == paired_gain_interval(better, same)
    assert mean_gain_interval([(better, same), (same, {"targets": targets[::-1], "predictions": targets})]) is None


def synthetic_eval(classes: list[str], counts: dict[tuple[str, str], int]) -> dict:
    """An eval/*.json of `counts` photos per (true class, predicted class), classes in the given order."""
    pairs = sorted((classes.index(true), classes.index(predicted)) for (true, predicted), n in counts.items()
                   for _ in range(n))  # by true class: two evals of the same photos list them alike
    targets, predictions = [t for t, _ in pairs], [p for _, p in pairs]
    confusion = [[counts.get((true, predicted), 0) for predicted in classes] for true in classes]
    totals = {c: sum(row) for c, row in zip(classes, confusion)}
    return {"model": "m.onnx", "top1": sum(t == p for t, p in pairs) / len(pairs), "top5": 1.0,
            "per_class": {c: confusion[i][i] / totals[c] for i, c in enumerate(classes)}, "per_class_images": totals,
            "classes": classes, "confusion": confusion, "targets": targets, "predictions": predictions}


def test_the_report_lists_each_models_most_confused_pairs_largest_first_ties_by_name(tmp_path):
    from distill.report import collect, markdown, most_confused

    classes = ["dates", "cake", "bread", "apple"]  # not in name order: ties are broken by name, not index
    teacher = synthetic_eval(classes, {
        ("apple", "apple"): 5, ("apple", "bread"): 3, ("apple", "dates"): 3, ("bread", "bread"): 4,
        ("bread", "apple"): 2, ("bread", "cake"): 3, ("cake", "cake"): 6, ("cake", "bread"): 1,
        ("dates", "dates"): 2, ("dates", "apple"): 3})
    assert most_confused(teacher) == [
        ("apple", "bread", 3, 3 / 11), ("apple", "dates", 3, 3 / 11), ("bread", "cake", 3, 3 / 9),
        ("dates", "apple", 3, 3 / 5), ("bread", "apple", 2, 2 / 9), ("cake", "bread", 1, 1 / 7)]
    assert [pair[:2] for pair in most_confused(teacher, top=3)] == [("apple", "bread"), ("apple", "dates"),
                                                                    ("bread", "cake")]
    student = synthetic_eval(classes, {(c, c): n for c, n in teacher["per_class_images"].items()})  # all right
    (tmp_path / "eval").mkdir()
    for name, metrics in (("teacher", teacher), ("student", student)):
        (tmp_path / "eval" / f"{name}.json").write_text(json.dumps(metrics))
    text = markdown(collect(tmp_path), images=False)
    assert ("## The 10 most confused pairs (off-diagonal entries of the confusion matrix)\n\nteacher:\n\n"
            "| true class | predicted | photos | share of the true class's photos |\n|---|---|---|---|\n"
            "| apple | bread | 3 | 27.3% |\n| apple | dates | 3 | 27.3% |\n| bread | cake | 3 | 33.3% |\n"
            "| dates | apple | 3 | 60.0% |\n| bread | apple | 2 | 22.2% |\n| cake | bread | 1 | 14.3% |\n\n"
            "student: no photo predicted as another class.\n\n## Stages") in text


def test_an_ensemble_teacher_trains_each_member_and_exports_their_average(run, tmp_path):
    from distill.pipeline import Pipeline, PipelineConfig
    from models.export import export_onnx
    from models.registry import create_model

    two = tmp_path / "two.yaml"
    member = TINY_PRESET["teacher"][0]
    two.write_text(yaml.safe_dump({**TINY_PRESET, "teacher": [{**member, "name": "a"}, {**member, "name": "b"}]}))
    pipeline = Pipeline(PipelineConfig(data="synthetic", out=str(tmp_path / "run"), preset=str(two)))
    stages = {s.name: s for s in pipeline.stages()}
    assert [n for n in stages if n.startswith("teacher")] == ["teacher-a-head", "teacher-a", "teacher-b-head", "teacher-b"]
    spec = stages["student"].settings["teacher"]
    assert spec == "ensemble:ckpt:$RUN_DIR/teacher-a/best.pt+ckpt:$RUN_DIR/teacher-b/best.pt"
    assert set(stages["student"].inputs) == {tmp_path / "run" / f"teacher-{m}" / "best.pt" for m in "ab"}
    # What export-teacher does with two members (here the miniature run's teacher twice).
    teacher = run["dir"] / "teacher" / "best.pt"
    path = export_onnx(create_model(f"ensemble:ckpt:{teacher}+ckpt:{teacher}"), tmp_path / "ensemble.onnx")
    assert path.is_file()


# --- deploy -----------------------------------------------------------------------------------------


def test_deploy_refuses_labels_the_database_cannot_describe(run, capsys):
    from models.paths import data_home

    assert run_cli("deploy", str(run["dir"]), "--name", "refused") == 2
    err = capsys.readouterr().err
    assert "cannot describe 4 of the model's 4 labels: class_0, class_1, class_2, class_3" in err
    assert "--label-map" in err
    assert not (data_home() / "models" / "refused.onnx").exists()
    assert not (data_home() / "models" / "refused.report.json").exists()


def test_deploy_with_a_label_map_installs_where_the_app_lists_it(run, tmp_path, capsys):
    from app.model_catalog import ModelCatalog
    from models.engine import Engine
    from models.paths import data_home

    partial = tmp_path / "partial.yaml"
    partial.write_text("class_0: pizza\nclass_1: banana\n")
    assert run_cli("deploy", str(run["dir"]), "--name", "tiny", "--label-map", str(partial)) == 2
    assert "cannot describe 2 of the model's 4 labels: class_2, class_3" in capsys.readouterr().err

    mapping = tmp_path / "map.json"
    mapping.write_text(json.dumps({"class_0": "pizza", "class_1": "banana", "class_2": "hot_dog", "class_3": "espresso"}))
    caller_umask = os.umask(0o022)  # a caller's usual umask: the installed files stay owner-only
    try:
        assert run_cli("deploy", str(run["dir"]), "--name", "tiny", "--label-map", str(mapping)) == 0
    finally:
        os.umask(caller_umask)
    for suffix in (".onnx", ".report.json", ".report.md"):
        assert stat.S_IMODE((data_home() / "models" / f"tiny{suffix}").stat().st_mode) == 0o600, suffix
    installed = data_home() / "models" / "tiny.onnx"
    assert Engine(installed).labels == ["pizza", "banana", "hot_dog", "espresso"]
    assert Engine(installed).preprocess.labels == ["pizza", "banana", "hot_dog", "espresso"]
    report = json.loads((data_home() / "models" / "tiny.report.json").read_text())
    assert report["top1"] == json.loads((run["dir"] / "student.report.json").read_text())["top1"]
    assert (data_home() / "models" / "tiny.report.md").is_file()
    infos, _ = ModelCatalog(default_path=lambda: installed).list()
    assert any(info.name == "tiny" and info.accuracy == report["top1"] for info in infos)

    # `python -m app batch --model` on the installed file: every row gets a food and its card
    # (threshold 0: a two-epoch tiny student is never sure).
    from app.batch.runner import main as batch_main
    from batch_support import photo, read_csv, write_csv

    photo(tmp_path / "a.jpg", seed=1)
    photo(tmp_path / "b.jpg", seed=2)
    csv = write_csv(tmp_path / "meals.csv", ["image"], [["a.jpg"], ["b.jpg"]])
    assert batch_main([str(csv), "--out", str(tmp_path / "out.csv"), "--model", str(installed), "--workers", "1",
                       "--confidence-threshold", "0"]) == 0
    rows = read_csv(tmp_path / "out.csv")
    assert [r["status"] for r in rows] == ["ok", "ok"]
    assert {r["predicted_label"] for r in rows} <= {"pizza", "banana", "hot_dog", "espresso"}
    assert all(float(r["carbohydrate_g"]) >= 0 for r in rows)

    # The pipeline's --deploy stage installs under the run folder's name.
    from distill.deploy import installed_path

    assert installed_path(run["dir"]) == data_home() / "models" / "run-student.onnx"
    # Deploying the same model again is fine; another model under that name needs --force.
    assert run_cli("deploy", str(run["dir"]), "--name", "tiny", "--label-map", str(mapping)) == 0
    assert run_cli("deploy", str(run["dir"]), "--model", "baseline", "--name", "tiny", "--label-map", str(mapping)) == 2
    assert "already exists" in capsys.readouterr().err
    bad = tmp_path / "bad.yaml"
    bad.write_text("class_9: pizza\n")
    assert run_cli("deploy", str(run["dir"]), "--name", "x", "--label-map", str(bad)) == 2
    assert "labels the model does not have: class_9" in capsys.readouterr().err


# --- presets ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["cpu", "cpu-ensemble", "gpu"])
def test_shipped_presets_are_valid(name):
    from distill.preset import load_preset

    preset = load_preset(name)
    assert preset.teachers and preset.student["model"] and preset.student_why and preset.baseline is not None
    assert all(m.warmup["freeze_body"] for m in preset.teachers)


def test_a_second_fine_tuning_cycle_continues_the_finished_teacher(tmp_path):
    """A preset that adds a cycle keeps the trained teacher: only the new cycle and what follows run,
    from the first cycle's best.pt, and the student learns from the new cycle's teacher."""
    preset, run_dir = {**TINY_PRESET, "baseline": False}, tmp_path / "run"
    path = tmp_path / "tiny.yaml"
    path.write_text(yaml.safe_dump(preset))
    args = ["pipeline", "--data", "synthetic", "--out", str(run_dir), "--preset", str(path), "--bench-rounds", "1"]
    assert run_cli(*args) == 0
    first = (run_dir / "pipeline.log").read_text()
    cycles = [preset["teacher"][0]["finetune"], {"epochs": 1, "lr": 1e-3}]
    path.write_text(yaml.safe_dump({**preset, "teacher": [{**preset["teacher"][0], "finetune": cycles}]}))
    assert run_cli(*args) == 0
    ran = stage_lines((run_dir / "pipeline.log").read_text()[len(first):])
    assert ran["teacher-head"] == ran["teacher"] == "skipped"
    assert ran["teacher-cycle2"] == ran["student"] == "ran"
    config = yaml.safe_load((run_dir / "teacher-cycle2" / "config.yaml").read_text())
    assert config["model"]["model"] == f"ckpt:{run_dir / 'teacher' / 'best.pt'}"
    assert not config["model"]["freeze_body"]
    student = json.loads((run_dir / "stages" / "student.json").read_text())
    assert list(student["inputs"]) == ["teacher-cycle2/best.pt"]


@pytest.mark.parametrize("change, message", [
    ({"teacher": [{"name": "a", "finetune": [{"model": "vit_micro"}, {"model": "vit_micro"}]}]},
     "a later fine-tuning cycle starts from the one before it"),
    ({"teacher": [{"name": "a", "finetune": []}]}, "empty finetune list"),
    ({"student": {"options": {"modle": "vit_micro"}}}, "unknown option 'modle'"),
    ({"student": {"options": {"teacher": "none"}}}, "teacher are set by the pipeline"),
    ({"teacher": []}, "teacher must be a list"),
    ({"teacher": [{"name": "a", "finetune": {"epochs": 1}}]}, "names no model"),
    ({"extra": 1}, "unknown key"),
])
def test_bad_presets_are_refused_before_training(tmp_path, change, message, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump({**TINY_PRESET, **change}))
    assert run_cli("pipeline", "--data", "synthetic", "--out", str(tmp_path / "run"), "--preset", str(path)) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_pipeline_deploy_refuses_undescribable_classes_before_training(tmp_path, capsys):
    preset = tmp_path / "tiny.yaml"
    preset.write_text(yaml.safe_dump(TINY_PRESET))
    assert run_cli("pipeline", "--data", "synthetic", "--out", str(tmp_path / "run"), "--preset", str(preset),
                   "--deploy") == 2
    assert "cannot describe 4 of the model's 4 labels" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_pipeline_needs_validation_data(tmp_path, capsys):
    from distill_support import image_folder

    image_folder(tmp_path / "photos", ["a", "b"], 2)
    assert run_cli("pipeline", "--data", str(tmp_path / "photos"), "--out", str(tmp_path / "run")) == 2
    assert "no val/ folder" in capsys.readouterr().err


# ../shared/data/food10 from a clone, ../../shared/data/food10 from a worktree under wt/.
FOOD10 = next((p for p in (Path(__file__).resolve().parents[i] / "shared" / "data" / "food10" for i in (2, 3))
               if (p / "train").is_dir()), Path("food10-absent"))


@pytest.mark.skipif(not (FOOD10 / "train").is_dir(), reason="food10 photos not present")
def test_food10_classes_can_be_deployed_without_a_map():
    from distill import data
    from distill.deploy import unknown_labels

    classes = data.open_source(str(FOOD10), "train").classes
    assert len(classes) == 10 and unknown_labels(classes) == []


def fake_run(**targets) -> dict:
    """What collect() gives for a finished run: teacher 80%, student 76%, baseline 70%, 2.5 h."""
    evals = {"teacher": {"top1": 0.80}, "student": {"top1": 0.76, "targets": []},
             "baseline": {"top1": 0.70, "targets": []}}
    return {"evals": evals, "speed": {"student.onnx": {1: {"vs_first": 2.5}, 32: {"vs_first": 1.5}}},
            "records": {"report": {"stage": "report", "seconds": 9000.0}}, "seeds": {}, "targets": targets}


def test_a_run_is_judged_only_by_the_targets_it_states():
    from distill.report import targets

    assert targets(fake_run()) == []
    judged = targets(fake_run(teacher_top1=0.85, student_fraction=0.9, speedup=2.0, kd_gain=0.05, hours=3.0))
    assert [(target, ok) for target, _, ok in judged] == [
        ("teacher top-1 >= 85%", False),
        ("student top-1 >= 90% of the teacher's", True),  # 0.76 / 0.80 = 95%
        ("student >= 2x the teacher's images/s", True), ("student >= 2x the teacher's images/s", False),
        ("KD student >= 5 points above the no-teacher baseline", True),
        ("whole pipeline under 3 h", True),
    ]
    assert [ok for _, _, ok in targets(fake_run(hours=2.0))] == [False]


def test_targets_come_from_the_preset_and_the_command_line_wins(tmp_path):
    from distill.report import collect

    preset = {**TINY_PRESET, "targets": {"teacher_top1": 0.5, "hours": 2}}
    (tmp_path / "pipeline.json").write_text(json.dumps({"preset": preset, "targets": {"hours": 1.0}}))
    assert collect(tmp_path)["targets"] == {"teacher_top1": 0.5, "hours": 1.0}
    assert collect(tmp_path, {"teacher_top1": 0.7})["targets"] == {"teacher_top1": 0.7, "hours": 1.0}


@pytest.mark.parametrize("targets, message", [
    ({"teacher_top": 0.85}, "unknown target(s) teacher_top; known: teacher_top1"),
    ({"hours": "three"}, "target hours must be a positive number, got 'three'"),
    ({"kd_gain": -1}, "target kd_gain must be a positive number"),
])
def test_a_preset_with_a_bad_target_is_refused(tmp_path, targets, message):
    from distill.preset import load_preset

    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump({**TINY_PRESET, "targets": targets}))
    with pytest.raises(DistillError, match=re.escape(message)):
        load_preset(str(path))


def test_pipeline_takes_targets_on_the_command_line(tmp_path, capsys):
    from distill.pipeline import parse_args

    cfg = parse_args(["--data", "synthetic", "--out", str(tmp_path), "--target", "teacher_top1=0.85",
                      "--target", "hours=3"])
    assert cfg.targets == {"teacher_top1": 0.85, "hours": 3.0}
    with pytest.raises(SystemExit):
        parse_args(["--data", "synthetic", "--out", str(tmp_path), "--target", "speed=2"])
    assert "unknown target(s) speed" in capsys.readouterr().err


def test_shipped_presets_state_no_targets_and_a_short_why():
    from distill.preset import load_preset, preset_names

    for name in preset_names():
        preset = load_preset(name)
        assert preset.targets == {}  # a user's own photos are not judged by this project's food10 goals
        assert len(preset.student_why.split()) < 120 and "docs/experiments.md" in preset.student_why
