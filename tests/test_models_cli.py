import subprocess
import sys

from models.images import ALLOWED_FORMATS


def _run(*args):
    return subprocess.run([sys.executable, "-m", "models", *args], capture_output=True, text=True, timeout=300)


def test_list_shows_teachers_and_students():
    out = _run("list")
    assert out.returncode == 0
    assert "food_default" in out.stdout and "vit_tiny_patch16_224" in out.stdout


def test_predict_prints_top_k_and_reports_bad_files(tmp_path, default_model_path, coffee_image):
    photo = tmp_path / "coffee.jpg"
    coffee_image.save(photo)
    bad = tmp_path / "bad.jpg"
    bad.write_text("not an image")
    out = _run("predict", str(default_model_path), str(photo), str(bad), "--top-k", "2")
    assert out.returncode == 1
    assert f"{photo}: espresso" in out.stdout
    accepted = ", ".join(ALLOWED_FORMATS)
    assert out.stderr.strip().splitlines() == [f"error: {bad}: not an image or an unsupported format (accepted: {accepted})"]


def test_export_writes_a_usable_file_and_errors_are_one_line(tmp_path):
    from models.engine import Engine

    out = _run("export", "food_default", "--out", str(tmp_path / "food.onnx"))
    assert out.returncode == 0, out.stderr
    assert Engine(tmp_path / "food.onnx").model_name == "food_default"
    bad = _run("export", "no_such_model", "--out", str(tmp_path / "x.onnx"))
    assert bad.returncode == 2
    assert bad.stderr.startswith("error: unknown model 'no_such_model'") and "Traceback" not in bad.stderr
    assert not (tmp_path / "x.onnx").exists()
