"""`python -m app batch` end to end with a tiny exported model and a private seeded database."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest
from PIL import Image

from app.batch import BatchConfig, main, plan_batch, run_batch
from app.batch.rows import result_columns
from batch_support import (  # batch_database, model: fixtures
    KNOWN_LABELS, UNKNOWN_LABEL, batch_database, interrupt_after, jpeg_bytes, model, photo, read_csv, read_rows, tiny_model, write_csv,
)

REPO = Path(__file__).resolve().parents[1]


def run(csv: Path, out: Path, model: Path, *extra, threshold: float | None = 0) -> int:
    """The batch command line; the tiny model is never sure, so its rows get cards only under
    threshold 0 (None: the --log-user's own threshold)."""
    chosen = [] if threshold is None else ["--confidence-threshold", threshold]
    return main([str(csv), "--out", str(out), "--model", str(model), "--workers", "2", *map(str, [*chosen, *extra])])


def meals_csv(folder: Path, count: int = 10) -> tuple[Path, list[str], list[list[str]]]:
    """`count` photos and a CSV naming them, with awkward pass-through cells."""
    header = ["image", "grams", "eaten_at", "user", "meal", "note", "comment", "Extra Col"]
    rows = []
    for i in range(count):
        photo(folder / "photos" / f"img{i}.jpg", seed=i)
        rows.append([
            f"photos/img{i}.jpg", "" if i % 3 == 0 else str(50 + i), f"2024-05-0{1 + i % 2} 12:{i:02d}",
            ["ann", "bob"][i % 2], "lunch", f"note {i}", f'say "hi", {i}\nsecond line', "ünïcödé ✓",
        ])
    return write_csv(folder / "meals.csv", header, rows), header, rows


def test_every_row_once_in_order_with_pass_through_and_summary(tmp_path, model):
    from models.engine import Engine

    csv, header, rows = meals_csv(tmp_path)
    out = tmp_path / "results.csv"
    assert run(csv, out, model, "--top-k", 3, "--batch-size", 4) == 0
    written = read_rows(out)
    # A new user's unit (15 g US choices), named in the column; --confidence-threshold 0.
    assert written[0] == header + list(result_columns(15.0)) and "exchanges_15g" in written[0]
    assert len(written) == len(rows) + 1
    version = Engine(model).version
    for row, cells in zip(rows, written[1:]):
        assert cells[: len(header)] == row
        result = dict(zip(written[0], cells))
        assert result["status"] == "ok" and result["error"] == ""
        assert result["predicted_label"] in KNOWN_LABELS
        assert 0 < float(result["probability"]) <= 1
        assert result["low_confidence"] == "false"
        assert len(result["top_k"].split("; ")) == 3
        assert result["model_version"] == version
        assert result["fdc_id"].isdigit() and float(result["kcal"]) > 0
        if row[1]:
            assert float(result["portion_g"]) == float(row[1])
        else:
            assert result["portion_serving"]  # the food's default serving
    summary = read_csv(tmp_path / "results.summary.csv")
    assert [(s["user"], s["date"], s["rows"], s["errors"]) for s in summary] == [
        ("ann", "2024-05-01", "5", "0"), ("bob", "2024-05-02", "5", "0"),
    ]
    ann_kcal = sum(float(c[written[0].index("kcal")]) for c in written[1:] if c[3] == "ann")
    assert float(summary[0]["kcal"]) == pytest.approx(ann_kcal, abs=0.05)


def test_exchanges_in_the_log_users_unit_and_no_food_under_their_threshold(tmp_path, model):
    """The app's confidence rule: an unsure row gets no guessed card and is not logged; a row
    whose `food` cell names the food gets that food's card and is logged as a correction."""
    from db import service
    from db.session import configure, init_db

    photo(tmp_path / "a.jpg", seed=1)
    csv = write_csv(tmp_path / "meals.csv", ["image", "Food", "grams"], [["a.jpg", "", "100"], ["a.jpg", "banana", "100"]])
    out = tmp_path / "results.csv"
    configure(f"sqlite:///{tmp_path / 'foodtag.db'}")
    try:
        init_db()
        service.ensure_user("ann")
        service.update_settings("ann", exchange_unit_g=12.0, confidence_threshold=0.999)
        assert run(csv, out, model, "--log-user", "ann", threshold=None) == 1
        [logged] = service.day_summary("ann", datetime.now().date())["entries"]
    finally:
        configure(None)
    written = read_rows(out)
    unsure, named = (dict(zip(written[0], row)) for row in written[1:])
    assert unsure["low_confidence"] == "true" and unsure["status"] == "error"
    assert "not sure" in unsure["error"] and "'food' column" in unsure["error"]
    assert unsure["predicted_food"] == unsure["log_entry_id"] == ""
    assert named["low_confidence"] == "true" and named["status"] == "ok" and named["predicted_food"] == "Banana"
    assert logged["food"] == "Banana" and str(logged["id"]) == named["log_entry_id"]
    assert "exchanges_12g" in written[0] and "exchanges_15g" not in written[0]
    # BE count available carbohydrate in 12 g units.
    available = float(named["available_carbohydrate_g"])
    assert float(named["exchanges_12g"]) == pytest.approx(available / 12, abs=0.06)  # shown to 0.1
    assert "exchanges_12g" in read_rows(tmp_path / "results.summary.csv")[0]


def test_confidence_threshold_outside_0_to_1_is_refused(tmp_path, model):
    photo(tmp_path / "a.jpg")
    csv = write_csv(tmp_path / "meals.csv", ["image"], [["a.jpg"]])
    for bad in ("1.5", "-0.1", "nan"):
        assert run(csv, tmp_path / "out.csv", model, threshold=bad) == 2
    assert not (tmp_path / "out.csv").exists()


def test_bad_rows_fail_alone(tmp_path, model):
    folder = tmp_path
    photo(folder / "good.jpg")
    (folder / "empty.jpg").write_bytes(b"")
    (folder / "text.jpg").write_text("just some text")
    (folder / "truncated.jpg").write_bytes(jpeg_bytes(3)[:300])
    Image.new("1", (9000, 9000)).save(folder / "bomb.png")  # 81 MP in a few kB
    (folder / "folder.jpg").mkdir()
    cases = [
        (["missing.jpg", ""], "file not found"),
        (["empty.jpg", ""], "empty"),
        (["text.jpg", ""], "not an image"),
        (["truncated.jpg", ""], "truncated"),
        (["bomb.png", ""], "too large"),
        (["folder.jpg", ""], "not a regular file"),
        # The list, refused as the UI, the API and the CLI refuse them (db.validate).
        (["good.jpg", "abc"], "grams must be a number"),
        (["good.jpg", "-1"], "grams must be from 1 to 5000"),
        *((["good.jpg", bad], "grams must be a number") for bad in ("5e-324", "nan", "inf", "1e308", "1_000")),
        (["good.jpg", "100", "yesterday"], "not understood"),
        (["good.jpg", "100", "0001-01-01"], "outside the years 1900-2100"),
        (["good.jpg", "100", "", "cup"], "not both"),
        (["good.jpg", "", "", "no such serving"], "serving"),
        (["good.jpg"], "fields"),
        (["", "100"], "empty"),
    ]
    rows = [["good.jpg", "100", "", ""]]
    for cells, _ in cases:
        rows += [(cells + ["", "", "", ""])[:4] if len(cells) > 1 else cells, ["good.jpg", "100", "", ""]]
    csv = folder / "meals.csv"
    with open(csv, "w", newline="") as handle:
        handle.write("image,grams,eaten_at,serving\r\n")
        for cells in rows:
            handle.write(",".join(cells) + "\r\n")
    out = folder / "out.csv"
    assert run(csv, out, model) == 1
    results = read_csv(out)
    assert len(results) == len(rows)
    assert [r["status"] for r in results[::2]] == ["ok"] * (len(cases) + 1)
    for (cells, reason), result in zip(cases, results[1::2]):
        assert result["status"] == "error", cells
        assert reason in result["error"], (cells, result["error"])
    assert read_csv(folder / "out.summary.csv")[0]["errors"] == str(len(cases))


def test_paths_leaving_the_images_root_are_refused(tmp_path, model):
    root = tmp_path / "root"
    photo(root / "img.jpg")
    outside = photo(tmp_path / "outside.jpg")
    (root / "link.jpg").symlink_to(outside)
    csv = write_csv(root / "meals.csv", ["image"], [["../outside.jpg"], [str(outside)], ["link.jpg"], ["img.jpg"]])
    assert run(csv, tmp_path / "out.csv", model) == 1
    results = read_csv(tmp_path / "out.csv")
    assert [r["status"] for r in results] == ["error", "error", "error", "ok"]
    assert all("refused" in r["error"] and "--allow-outside-root" in r["error"] for r in results[:3])
    assert run(csv, tmp_path / "out2.csv", model, "--allow-outside-root") == 0


def test_images_root_option(tmp_path, model):
    photo(tmp_path / "pics" / "a.jpg")
    photo(tmp_path / "csvs" / "b.jpg")
    csv = write_csv(tmp_path / "csvs" / "m.csv", ["image"], [["a.jpg"], ["../csvs/b.jpg"]])
    assert run(csv, tmp_path / "out.csv", model, "--images-root", tmp_path / "pics") == 1
    assert [r["status"] for r in read_csv(tmp_path / "out.csv")] == ["ok", "error"]


def test_formula_cells_are_neutralised_including_pass_through(tmp_path, model):
    photo(tmp_path / "a.jpg")
    header = ["image", "=evil()", "note", "n"]
    formulas = ["=1+1", "+cmd|' /C calc'!A0", "-5", "@SUM(A1)", "\tx", "\rx"]
    rows = [["a.jpg", cell, cell, "ok"] for cell in formulas] + [["=a.jpg", "x", "x", "x"]]
    csv = write_csv(tmp_path / "m.csv", header, rows)
    assert run(csv, tmp_path / "out.csv", model) == 1  # "=a.jpg" is not a file
    written = read_rows(tmp_path / "out.csv")
    assert written[0][:4] == ["image", "'=evil()", "note", "n"]
    for cell, cells in zip(formulas, written[1:]):
        assert cells[1:4] == ["'" + cell, "'" + cell, "ok"]
    assert written[-1][0] == "'=a.jpg"
    for cells in written[1:]:
        assert not any(c.startswith(("=", "+", "-", "@", "\t", "\r")) for c in cells)


def test_unknown_food_label_is_a_row_error(tmp_path, model):
    unknown = tiny_model(tmp_path.parent, [UNKNOWN_LABEL])
    photo(tmp_path / "a.jpg")
    csv = write_csv(tmp_path / "m.csv", ["image"], [["a.jpg"], ["a.jpg"]])
    assert run(csv, tmp_path / "out.csv", unknown) == 1
    for result in read_csv(tmp_path / "out.csv"):
        assert result["status"] == "error" and "no nutrition data" in result["error"]
        assert result["predicted_label"] == UNKNOWN_LABEL and result["kcal"] == ""


def test_resume_after_interrupt_equals_an_uninterrupted_run(tmp_path, model):
    from models.engine import Engine

    csv, _, rows = meals_csv(tmp_path, count=11)
    with open(csv, "a", newline="") as handle:
        handle.write("photos/missing.jpg,,,ann,,,,\r\n")  # an error row inside a chunk
    reference = tmp_path / "reference.csv"
    assert run(csv, reference, model, "--batch-size", 4) == 1
    whole = reference.read_bytes()

    # 1. Interrupted (Ctrl-C) after two chunks, then resumed.
    out = tmp_path / "interrupted.csv"
    plan = plan_batch(BatchConfig(input=csv, out=out, model=model, batch_size=4, workers=2, confidence_threshold=0))
    with pytest.raises(KeyboardInterrupt):
        run_batch(plan, Engine(model), progress=interrupt_after(8))  # two chunks
    assert len(read_rows(out)) == 9
    assert run(csv, out, model, "--batch-size", 4, "--resume") == 1
    assert out.read_bytes() == whole
    assert (tmp_path / "interrupted.summary.csv").read_bytes() == (tmp_path / "reference.summary.csv").read_bytes()

    # 2. Killed mid-write: torn inside a row, inside a quoted line break, and on a row boundary.
    newline_in_cell = whole.index(b"\nsecond line", whole.index(b"note 5")) + 1
    for cut in (len(whole) // 2, newline_in_cell, whole.index(b"photos/img7.jpg")):
        out.write_bytes(whole[:cut])
        assert run(csv, out, model, "--batch-size", 4, "--resume") == 1
        assert out.read_bytes() == whole, cut

    # 3. Resuming a finished output changes nothing.
    assert run(csv, out, model, "--batch-size", 4, "--resume") == 1
    assert out.read_bytes() == whole


def test_resume_refuses_an_output_of_another_input(tmp_path, model, capsys):
    csv, header, rows = meals_csv(tmp_path, count=4)
    out = tmp_path / "out.csv"
    assert run(csv, out, model) == 0
    before = out.read_bytes()
    other = write_csv(tmp_path / "other.csv", header, [rows[0], rows[2], rows[1], rows[3]])
    assert run(other, out, model, "--resume") == 2
    assert "does not match" in capsys.readouterr().err
    assert out.read_bytes() == before
    renamed = write_csv(tmp_path / "renamed.csv", ["image", *header[1:-1], "other"], rows)
    assert run(renamed, out, model, "--resume") == 2
    assert "different header" in capsys.readouterr().err
    other_model = tiny_model(tmp_path.parent, ["baklava", "apple_pie"])
    assert run(csv, out, other_model, "--resume") == 2
    assert "model version" in capsys.readouterr().err
    assert out.read_bytes() == before


def test_log_user_twice_adds_each_meal_once(tmp_path, model):
    from db import service

    csv, _, rows = meals_csv(tmp_path, count=6)
    out = tmp_path / "out.csv"
    span = (datetime(2000, 1, 1), datetime(2100, 1, 1))
    assert run(csv, out, model, "--log-user", "ann") == 0
    first = read_csv(out)
    entries = service.list_meals("ann", *span)
    # Rows whose user column names bob stay out of ann's log.
    assert len(entries) == 3 == sum(bool(r["log_entry_id"]) for r in first)
    assert {str(e["id"]) for e in entries} == {r["log_entry_id"] for r in first if r["log_entry_id"]}
    assert all(e["external_id"].startswith("batch:") and e["model_version"] for e in entries)
    assert run(csv, out, model, "--log-user", "ann") == 0
    assert len(service.list_meals("ann", *span)) == 3
    assert [r["log_entry_id"] for r in read_csv(out)] == [r["log_entry_id"] for r in first]
    out.write_bytes(out.read_bytes()[: out.stat().st_size // 2])
    assert run(csv, out, model, "--log-user", "ann", "--resume") == 0
    assert len(service.list_meals("ann", *span)) == 3


def test_nutrition_lookups_are_cached(tmp_path, model):
    from models.engine import Engine

    photo(tmp_path / "a.jpg")
    csv = write_csv(tmp_path / "m.csv", ["image", "grams"], [["a.jpg", "100"]] * 30)
    plan = plan_batch(BatchConfig(input=csv, out=tmp_path / "out.csv", batch_size=8, workers=2, confidence_threshold=0))
    result = run_batch(plan, Engine(model))
    assert result.rows == 30 and result.errors == 0
    assert result.lookups == 1 and result.cache_hits == 29


def test_unusable_csv_exits_2_before_any_work(tmp_path, model, capsys):
    csv = tmp_path / "m.csv"
    csv.write_text("image;grams\na.jpg;100\n")
    out = tmp_path / "out.csv"
    assert run(csv, out, model) == 2
    err = capsys.readouterr().err
    assert "semicolon" in err and err.count("\n") == 1
    assert not out.exists()
    assert run(tmp_path / "absent.csv", out, model) == 2
    csv.write_text("image,kcal\na.jpg,5\n")
    assert run(csv, out, model) == 2
    assert "clash" in capsys.readouterr().err
    csv.write_text("image\na.jpg\n")
    assert run(csv, out, model, "--batch-size", 0) == 2
    assert run(csv, csv, model) == 2
    assert not out.exists()


def test_python_dash_m_app_batch(tmp_path):
    csv = tmp_path / "m.csv"
    csv.write_bytes(b"")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-m", "app", "batch", str(csv), "--out", str(tmp_path / "o.csv")],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert "empty" in done.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their permissions")
def test_unreadable_photo_is_a_row_error(tmp_path, model):
    locked = photo(tmp_path / "locked.jpg")
    locked.chmod(0)
    photo(tmp_path / "a.jpg")
    csv = write_csv(tmp_path / "m.csv", ["image"], [["locked.jpg"], ["a.jpg"]])
    assert run(csv, tmp_path / "out.csv", model) == 1
    results = read_csv(tmp_path / "out.csv")
    assert results[0]["status"] == "error" and "permission denied" in results[0]["error"]
    assert results[1]["status"] == "ok"
