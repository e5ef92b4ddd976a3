"""Bad input: one clear line on stderr, exit code 2, no traceback, nothing saved is lost."""

import pytest

from distill_support import image_folder, run_cli, run_subprocess, save_teacher, tiny_args


def fails(capsys, *argv, match: str) -> None:
    capsys.readouterr()
    assert run_cli(*argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and len(err.splitlines()) == 1, err
    assert match in err, err


def test_empty_data_folder(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    fails(capsys, "train", *tiny_args(tmp_path / "out", data=tmp_path / "empty"), match="no images found")
    (tmp_path / "classes" / "soup").mkdir(parents=True)
    image_folder(tmp_path / "classes", ["pho"], 1)
    fails(capsys, "train", *tiny_args(tmp_path / "out", data=tmp_path / "classes"), match="soup has no images")
    fails(capsys, "train", *tiny_args(tmp_path / "out", data=tmp_path / "missing"), match="does not exist")
    assert not (tmp_path / "out").exists()  # nothing written for a run that never started


def test_one_class_only(tmp_path, capsys):
    image_folder(tmp_path / "data", ["pho"], 4)
    fails(capsys, "train", *tiny_args(tmp_path / "out", data=tmp_path / "data"), match="only one class")


def test_fewer_images_than_a_step(tmp_path, capsys):
    image_folder(tmp_path / "data", ["pho", "ramen"], 2)
    fails(capsys, "train", *tiny_args(tmp_path / "out", data=tmp_path / "data", val_data="none"),
          match="fewer images than one optimizer step")


def test_corrupt_images_are_skipped_and_counted(tmp_path, capsys):
    """Decision: a corrupt photo is skipped with a warning and counted, not fatal."""
    image_folder(tmp_path / "data", ["pho", "ramen"], 8)
    (tmp_path / "data" / "pho" / "003.png").write_bytes(b"\x89PNG\r\n\x1a\n cut short")
    assert run_cli("train", *tiny_args(tmp_path / "out", data=tmp_path / "data", val_data="none")) == 0
    assert "003.png: " in capsys.readouterr().err
    records = (tmp_path / "out" / "metrics.jsonl").read_text()
    assert '"train/skipped_images": 1' in records
    for path in (tmp_path / "data").rglob("*.png"):  # nothing readable left: an error, also from a worker
        path.write_bytes(b"")
    assert run_cli("train", *tiny_args(tmp_path / "out2", data=tmp_path / "data", val_data="none", num_workers=1)) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1].startswith("error: data: not one image of ImageFolder")


def test_teacher_label_space_mismatch(tmp_path, capsys):
    teacher = save_teacher(tmp_path / "t.pt", ["class_0", "class_1", "pizza"])
    fails(capsys, "train", *tiny_args(tmp_path / "out", teacher=f"ckpt:{teacher}"),
          match="not in the teacher: class_2, class_3; not in the data: pizza")
    fails(capsys, "train", *tiny_args(tmp_path / "out", teacher=f"ckpt:{tmp_path / 'nope.pt'}"), match="nope.pt does not exist")
    fails(capsys, "train", *tiny_args(tmp_path / "out", teacher="no_such_model"), match="unknown model")


def test_teacher_with_same_labels_in_another_order_is_reordered(tmp_path):
    teacher = save_teacher(tmp_path / "t.pt", ["class_3", "class_1", "class_0", "class_2"])
    assert run_cli("train", *tiny_args(tmp_path / "out", teacher=f"ckpt:{teacher}")) == 0


def test_resume_from_missing_or_truncated_checkpoint(tmp_path, capsys):
    out = tmp_path / "run"
    assert run_cli("train", *tiny_args(out)) == 0
    fails(capsys, "train", "--resume", str(out / "nope.pt"), match="does not exist")
    good = (out / "last.pt").read_bytes()
    (out / "cut.pt").write_bytes(good[: len(good) // 2])
    fails(capsys, "train", "--resume", str(out / "cut.pt"), match="truncated or corrupt")
    fails(capsys, "eval", "--checkpoint", str(out / "cut.pt"), "--data", "synthetic", match="truncated or corrupt")
    (out / "notes.pt").write_bytes(b"hello")
    fails(capsys, "train", "--resume", str(out / "notes.pt"), match="truncated or corrupt")
    assert (out / "last.pt").read_bytes() == good and len((out / "cut.pt").read_bytes()) == len(good) // 2


def test_existing_run_folder_is_not_overwritten(tmp_path, capsys):
    assert run_cli("train", *tiny_args(tmp_path)) == 0
    before = (tmp_path / "last.pt").read_bytes()
    fails(capsys, "train", *tiny_args(tmp_path, epochs=2), match="already holds last.pt")
    assert (tmp_path / "last.pt").read_bytes() == before


def test_real_process_exit_code_and_no_traceback(tmp_path):
    (tmp_path / "bad.pt").write_bytes(b"\x00" * 100)
    result = run_subprocess(["train", "--resume", str(tmp_path / "bad.pt")])
    assert result.returncode == 2
    assert result.stderr.strip().startswith("error: resume: ") and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("option", ["--unknown-option", "--epochs"])
def test_bad_options_exit_2(tmp_path, option, capsys):
    with pytest.raises(SystemExit) as exc:
        run_cli("train", *tiny_args(tmp_path), option)
    assert exc.value.code == 2
