"""Each product benchmark (benchmarks/) runs end to end on tiny inputs and prints its table.

These check that the benchmarks still run against today's code, not what they measure: no figure
is compared with a threshold (that is the benchmarks' own job, on a machine chosen for it).
"""

from __future__ import annotations

import argparse
import json
import re

import pytest
import torch
import yaml
from torch.utils.flop_counter import FlopCounterMode
from batch_support import photo, tiny_model
from distill_support import image_folder

from benchmarks import bench_app, bench_batch, bench_batch_engines, bench_glucose, bench_search, pipeline_results, preset_speed
from benchmarks import train_throughput
from benchmarks.common import percentile, photos_under, write_paths_csv
from distill.precision import use_plain_kernels
from models.registry import create_model


def table_rows(text: str) -> list[list[str]]:
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in text.splitlines()
            if line.startswith("|") and not line.startswith("|-")]


def four_photos(folder) -> str:
    for i in range(4):
        photo(folder / f"{i}.jpg", seed=i)
    return str(folder)


def test_common_helpers(tmp_path):
    assert percentile([], 50) != percentile([], 50)  # NaN: nothing measured
    assert [percentile([5.0, 1.0, 3.0, 2.0, 4.0], q) for q in (0, 50, 95, 100)] == [1.0, 3.0, 5.0, 5.0]
    photos = [photo(tmp_path / "b" / "2.jpg"), photo(tmp_path / "a" / "1.JPG"), photo(tmp_path / "c.png")]
    (tmp_path / "notes.txt").write_text("not a photo")
    assert photos_under(tmp_path) == sorted(photos)
    rows = write_paths_csv(tmp_path / "in.csv", photos, 5).read_text().splitlines()
    assert rows[0] == "image,eaten_at,user,note" and len(rows) == 6
    assert rows[4].startswith(f"{photos[0]},2024-05-04 12:00,user0,row 3")  # photos cycle


@pytest.mark.slow
def test_bench_search_prints_every_kind_of_query(tmp_path, capsys):
    status = bench_search.main(["--rounds", "1", "--db", str(tmp_path / "search.db")])
    out = capsys.readouterr().out
    kinds = {line.split()[0]: line.split()[1] for line in out.splitlines()
             if line.split()[:1] and line.split()[0] in ("common", "typing", "typos", "catalog", "personal", "regional", "all")}
    assert kinds == {"common": "40", "typing": "29", "typos": "12", "catalog": "300", "personal": "40", "regional": "12",
                     "all": "433"}
    verdict = re.search(r"p95 over all queries: [\d.]+ ms \(target < 50 ms\): (met|NOT met)", out)
    assert verdict and status == (0 if verdict.group(1) == "met" else 1)


@pytest.mark.server
def test_bench_app_times_a_server_it_starts(default_model_path, capsys):
    assert bench_app.main(["--warmup", "1", "--requests", "3", "--clients", "2", "--seconds", "1"]) == 0
    rows = table_rows(capsys.readouterr().out)
    assert rows[0][:3] == ["scenario", "requests", "errors"]
    assert rows[1][:3] == ["1 client, sequential", "3", "0"]
    assert rows[2][0] == "2 clients, 1 s" and rows[2][2] == "0" and int(rows[2][1]) >= 1


@pytest.mark.slow
def test_bench_batch_measures_throughput_and_memory(tmp_path, capsys):
    bench_batch.main(["--model", str(tiny_model(tmp_path)), "--data", four_photos(tmp_path / "photos"),
                      "--rows", "8", "--small-rows", "4", "--batch-size", "2", "--repeats", "1"])
    out = capsys.readouterr().out
    assert "end-to-end rows with status=error: 0 of 4" in out
    measures = [row[0] for row in table_rows(out)[1:]]
    assert measures == ["pure inference, decoded tensors (best)", "end-to-end batch, decode+infer+lookup+CSV (best)",
                        "end-to-end / pure, median of 1 rounds", "peak RSS, inference only (batch 2)",
                        "peak RSS, 4-row CSV batch", "peak RSS, 8-row CSV batch"]


@pytest.mark.ray
def test_bench_batch_engines_compares_ray_with_local(tmp_path, capsys):
    bench_batch_engines.main(["--model", str(tiny_model(tmp_path)), "--data", four_photos(tmp_path / "photos"),
                              "--rounds", "1", "--batch-size", "2", "--workers", "1", "--ray", "1x1"])
    out = capsys.readouterr().out
    assert "every ray output identical to the local one: yes" in out
    assert [row[0] for row in table_rows(out)[1:]] == ["local", "ray 1 actor x 1 CPU"]


def test_preset_speed_times_a_presets_student_against_its_teacher(tmp_path, capsys):
    tiny = {"pretrained": False, "model_kwargs": {"img_size": 16, "patch_size": 8, "depth": 1, "embed_dim": 16,
                                                  "num_heads": 2}, "img_size": 16}
    preset = tmp_path / "tiny.yaml"
    preset.write_text(yaml.safe_dump({
        "teacher": [{"name": "t1", "finetune": {"model": "vit_micro", **tiny}},
                    {"name": "t2", "finetune": {"model": "vit_micro", **tiny}}],
        "student": {"why": "a smoke test", "options": {"model": "vit_micro", **tiny}},
    }))
    assert preset_speed.main(["--preset", str(preset), "--classes", "2", "--rounds", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("preset tiny (2 teacher member(s), timed as the pipeline exports them)")
    rows = [line.split() for line in lines[2:]]
    assert sorted((row[0], row[3], row[4]) for row in rows) == [
        ("student", "16", "1"), ("student", "16", "32"), ("teacher", "16", "1"), ("teacher", "16", "32")]
    assert {row[-1] for row in rows if row[0] == "teacher"} == {"1.00x"}  # the teacher against itself
    gmacs = {row[0]: float(row[2]) for row in rows}
    assert gmacs["teacher"] == pytest.approx(2 * gmacs["student"], rel=0.05)  # the ensemble: both members


def test_pipeline_results_reports_a_run_against_the_projects_targets(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    (run / "pipeline.json").write_text(json.dumps({"data": "food10", "preset": {"description": "a recipe"}}))
    results = tmp_path / "results.md"
    assert pipeline_results.main(["--out", str(run), "--report-only", "--results", str(results)]) == 0
    text = results.read_text()
    assert text.startswith("# Results: the model pipeline\n\nGenerated ")
    assert "python -m benchmarks.pipeline_results --data ../shared/data/food10 --out runs/run --preset cpu" in text
    assert "| teacher top-1 >= 85% | - | not measured yet |" in text
    assert "| whole pipeline under 3 h | 0.00 h so far | not measured yet |" in text


def test_pipeline_results_of_the_food101_preset_judge_its_targets_and_reproduce_its_data(tmp_path):
    run = tmp_path / "food101"
    run.mkdir()
    (run / "pipeline.json").write_text(json.dumps({"data": "data/food101-64", "preset": {"description": "101"}}))
    results = tmp_path / "results.md"
    assert pipeline_results.main(["--out", str(run), "--report-only", "--preset", "food101",
                                  "--results", str(results)]) == 0
    text = results.read_text()
    assert ("```bash\n.venv/bin/python -m distill prepare-food101 ../shared/data/food101-64 data/food101-64 "
            "--hold-out ../shared/data/food10/val\n.venv/bin/python -m benchmarks.pipeline_results "
            "--data data/food101-64 --out runs/food101 --preset food101\n```") in text
    judged = [row.split(" | ")[0] for row in text.split("## Targets", 1)[1].split("\n\n")[1].splitlines()[2:]]
    assert judged == ["| teacher top-1 >= 75%", "| student top-1 >= 93% of the teacher's",
                      "| student >= 3x the teacher's images/s", "| student >= 3x the teacher's images/s",
                      "| whole pipeline under 12 h"]


def test_household_split_links_k_labelled_photos_per_dish_and_the_rest_unlabelled(tmp_path):
    data = tmp_path / "food"
    image_folder(data / "train", ["pho", "ramen"], 5)
    image_folder(data / "val", ["pho", "ramen"], 1)
    root, unlabelled = pipeline_results.household_split(data, 2, tmp_path / "split")
    labelled = sorted(p.resolve() for p in (root / "train").rglob("*.png"))
    others = sorted(p.resolve() for p in unlabelled.iterdir())
    assert [p.parent.name for p in labelled] == ["pho", "pho", "ramen", "ramen"] and len(others) == 6
    assert sorted(labelled + others) == sorted((data / "train").rglob("*.png"))  # each photo once
    assert not any("pho" in p.name or "ramen" in p.name for p in unlabelled.iterdir())  # no dish in a name
    assert (root / "val").resolve() == (data / "val").resolve()
    again, _ = pipeline_results.household_split(data, 2, tmp_path / "split")  # kept: the run's caches stay valid
    assert sorted(p.resolve() for p in (again / "train").rglob("*.png")) == labelled
    with pytest.raises(SystemExit, match="holds another split"):
        pipeline_results.household_split(data, 3, tmp_path / "split")
    with pytest.raises(SystemExit, match="no unlabelled ones beside 5 labelled"):
        pipeline_results.household_split(data, 5, tmp_path / "other")


def test_pipeline_results_of_a_household_run_judge_the_unlabelled_photos(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "pipeline.json").write_text(json.dumps({"data": "split", "unlabelled": "split/unlabelled",
                                                   "photos": {"labelled": 200, "unlabelled": 3180},
                                                   "preset": {"description": "a recipe"}}))
    results = tmp_path / "results.md"
    assert pipeline_results.main(["--out", str(run), "--report-only", "--results", str(results),
                                  "--labelled-per-class", "20"]) == 0
    text = results.read_text()
    assert text.startswith("# Results: distillation from unlabelled photos\n")
    assert "--labelled-per-class 20" in text and "Training photos: 200 labelled, 3180 unlabelled" in text
    assert "| KD student >= 5 points above the no-teacher baseline | - | not measured yet |" in text
    assert "teacher top-1 >=" not in text


@pytest.mark.slow
def test_train_throughput_times_the_naive_loop_and_the_trainer(tmp_path, capsys):
    data = tmp_path / "photos"
    image_folder(data / "train", ["a", "b"], 4)
    status = train_throughput.main([
        "--data", str(data), "--rows", "naive,default", "--per-class", "4", "--student-depth", "1",
        "--img-size", "32", "--batch-size", "4", "--warmup", "1", "--steps", "1", "--rounds", "1",
        "--work", str(tmp_path / "work"), "--json", str(tmp_path / "out.json")])
    assert status == 0
    result = json.loads((tmp_path / "out.json").read_text())
    assert [row["name"] for row in result["rows"]] == ["naive", "default"]
    assert all(row["images_per_s"] > 0 and 0 <= row["data_wait_share"] <= 1 for row in result["rows"])
    out = capsys.readouterr().out
    assert re.search(r"^default +[\d.]+ +\d+% +- +[\d.]+ +\d+%$", out, re.MULTILINE)
    assert re.search(r"^the student step's ceiling: [\d.]+ GFLOP per image .* at most \d+ images/s", out, re.MULTILINE)
    assert result["step_ceiling"]["gflop_per_image"] > 0 and result["step_ceiling"]["matmul_gflops"] > 0


@pytest.mark.parametrize(("precision", "flags"), [("bf16", ["--amp", "--amp-dtype", "bfloat16"]),
                                                  ("fp16", ["--amp", "--amp-dtype", "float16"]), ("fp32", [])])
def test_timm_trains_at_our_precision_with_its_own_flags(precision, flags):
    assert train_throughput.timm_precision_flags(precision) == flags


def test_the_throughput_table_puts_the_same_precision_ratio_first(capsys):
    summary = {"all_caches": {"images_per_s": 300.0, "data_wait_share": 0.06, "rounds": [300.0, 280.0]},
               "timm": {"images_per_s": 100.0, "data_wait_share": 0.01, "rounds": [100.0, 80.0]},
               "timm_plain_attn": {"images_per_s": 120.0, "data_wait_share": 0.01},
               "timm_fp32": {"images_per_s": 60.0, "data_wait_share": 0.01}}
    train_throughput.print_table(summary, "bf16", {"gflop_per_image": 1.0, "matmul_gflops": 400.0})
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0] == ("all_caches: 3.00x timm train.py at the same precision (bf16, --amp --amp-dtype bfloat16) "
                        "(each round: 3.00, 3.50); 2.50x with TIMM_FUSED_ATTN=0; 5.00x timm in fp32")
    assert lines[2].split() == ["row", "images/s", "data", "wait", "x", "timm", "x", "timm", "fp32", "x", "naive",
                                "%", "ceiling"]
    assert lines[3].split() == ["all_caches", "300.0", "6%", "3.00", "5.00", "-", "75%"]
    assert lines[5].split() == ["timm_plain_attn", "120.0", "1%", "1.20", "2.00", "-", "30%"]
    assert lines[-1] == ("the student step's ceiling: 1.000 GFLOP per image (forward and backward), bf16 matmuls at "
                         "400 GFLOP/s here (2048^3) -> at most 400 images/s, 4.00x timm at the same precision")


def test_the_steps_training_flops_are_about_three_times_its_forward_pass():
    """Backward costs two matmuls per forward one (less the input image's gradient, which no one needs)."""
    args = argparse.Namespace(student="vit_tiny_patch16_224", img_size=64, student_depth=2)
    student = create_model(args.student, labels=["a", "b"], pretrained=False, img_size=64, depth=2)
    use_plain_kernels(student)  # FlopCounterMode counts the plain attention's matmuls, not a fused kernel
    counter = FlopCounterMode(display=False)
    with counter, torch.no_grad():
        student(torch.zeros(1, 3, 64, 64))
    forward = counter.get_total_flops() / 1e9
    assert 2.5 * forward < train_throughput.training_gflop_per_image(args, 2) < 3 * forward
    assert train_throughput.matmul_gflops("fp32", "cpu", size=128, repeats=1) > 0


def test_the_compiled_row_is_compared_with_timm_compiled(capsys):
    summary = {"all_caches": {"images_per_s": 300.0, "data_wait_share": 0.06},
               "all_caches_compiled": {"images_per_s": 360.0, "data_wait_share": 0.06},
               "timm": {"images_per_s": 100.0, "data_wait_share": 0.01},
               "timm_compiled": {"images_per_s": 90.0, "data_wait_share": 0.01}}
    train_throughput.print_table(summary, "fp32", {"gflop_per_image": 1.0, "matmul_gflops": 400.0})
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[:2] == ["all_caches: 3.00x timm train.py at the same precision (fp32, no --amp)",
                         "all_caches_compiled: 4.00x timm train.py --torchcompile at the same precision"]
    assert lines[3].split() == ["row", "images/s", "data", "wait", "x", "timm", "x", "naive", "%", "ceiling"]


def test_bench_glucose_imports_reimports_and_reports(capsys):
    assert bench_glucose.main(["--days", "2"]) == 0
    rows = table_rows(capsys.readouterr().out)
    assert rows[0] == ["step", "readings", "seconds", "peak Python MB"]
    steps = {row[0].split(" (")[0]: row[1] for row in rows[1:]}
    assert steps["import 2 days"] == "576" and steps["re-import"] == "576"
    assert steps["report 14 days"] == "576" and steps["meal responses"] == "258"  # 6 meals x 43 five-minute readings
