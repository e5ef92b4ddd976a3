"""The Batch tab: upload handling, and the tab served by Gradio driven with gradio_client."""

from __future__ import annotations

import zipfile
from pathlib import Path

import gradio as gr
import pytest
from gradio_client import Client, handle_file

from app.batch.archive import ZipRejected
from app.batch.upload import run_upload
from app.ui.batch import BatchTab
from batch_support import batch_database, jpeg_bytes, photo, read_csv, tiny_model, write_csv  # batch_database: a fixture


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    from models.engine import Engine

    return Engine(tiny_model(tmp_path_factory.getbasetemp()))


SURE = {"confidence_threshold": 0.0}  # the tiny model is never sure: every row gets its guess's card


def upload(folder: Path, entries: dict[str, bytes], rows: list[list[str]]) -> tuple[Path, Path]:
    archive = folder / "photos.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
    return write_csv(folder / "meals.csv", ["image", "grams", "note"], rows), archive


def test_upload_runs_and_leaves_no_photos_behind(tmp_path, engine):
    secret = photo(tmp_path / "secret.jpg")
    csv, archive = upload(
        tmp_path,
        {"a.jpg": jpeg_bytes(1), "day2/b.jpg": jpeg_bytes(2)},
        [["a.jpg", "120", "=HYPERLINK()"], ["day2/b.jpg", "", ""], [str(secret), "", ""], ["../secret.jpg", "", ""]],
    )
    work = tmp_path / "work"
    work.mkdir()
    seen = []
    result = run_upload(csv, archive, 3, engine, work, lambda done, total: seen.append((done, total)),
                        settings=SURE)
    assert result.rows == 4 and result.errors == 2
    assert seen[0] == (0, 4) and seen[-1] == (4, 4)
    rows = read_csv(result.out)
    assert [r["status"] for r in rows] == ["ok", "ok", "error", "error"]
    assert rows[0]["note"] == "'=HYPERLINK()"
    assert all("only photos inside the uploaded zip" in r["error"] for r in rows[2:])
    assert result.summary.exists()
    assert not (work / "photos").exists()


def test_upload_uses_the_uploaders_unit_and_threshold(tmp_path, engine):
    csv, archive = upload(tmp_path, {"a.jpg": jpeg_bytes(1)}, [["a.jpg", "120", ""]])
    work = tmp_path / "work"
    work.mkdir()
    result = run_upload(csv, archive, 3, engine, work,
                        settings={"exchange_unit_g": 10.0, "confidence_threshold": 1.0})
    [row] = read_csv(result.out)
    assert "exchanges_10g" in row and "exchanges_15g" not in row
    assert row["low_confidence"] == "true" and row["status"] == "error" and "not sure" in row["error"]


def test_upload_refuses_zip_slip(tmp_path, engine):
    csv, archive = upload(tmp_path, {"a.jpg": jpeg_bytes(), "../../escaped.jpg": jpeg_bytes()}, [["a.jpg", "", ""]])
    work = tmp_path / "deep" / "work"
    work.mkdir(parents=True)
    with pytest.raises(ZipRejected, match=r"\.\."):
        run_upload(csv, archive, 3, engine, work)
    assert not (tmp_path / "escaped.jpg").exists() and not (work / "photos").exists()


def test_batch_tab_over_gradio_client(tmp_path, engine, monkeypatch):
    monkeypatch.setenv("GRADIO_TEMP_DIR", str(tmp_path / "gradio"))  # its uploads, and no one else's
    csv, archive = upload(tmp_path, {"a.jpg": jpeg_bytes(1)}, [["a.jpg", "100", "x"], ["missing.jpg", "", ""]])
    with gr.Blocks() as demo:
        BatchTab(lambda _request: engine, user_settings=lambda _request: SURE).build()
    demo.queue().launch(prevent_thread_lock=True, quiet=True)
    try:
        client = Client(demo.local_url, verbose=False)
        results, summary, message = client.predict(
            handle_file(str(csv)), handle_file(str(archive)), 2, api_name="/batch_run"
        )
        rows = read_csv(Path(results))
        assert [r["status"] for r in rows] == ["ok", "error"]
        assert len(rows[0]["top_k"].split("; ")) == 2
        assert read_csv(Path(summary))[0]["errors"] == "1"
        assert "1 of 2 rows failed" in message
        uploaded = [p.name for p in (tmp_path / "gradio").rglob("*")]
        assert "meals.csv" not in uploaded and "photos.zip" not in uploaded  # deleted once run
        assert "meals.results.csv" in uploaded  # Gradio's copy for download: the folder is the right one
        bad = tmp_path / "bad.csv"
        bad.write_text("photo\nx.jpg\n")
        with pytest.raises(Exception, match="bad.csv: no 'image' column") as info:
            client.predict(handle_file(str(bad)), handle_file(str(archive)), 2, api_name="/batch_run")
        assert "/" not in str(info.value)  # the server's temporary paths stay private
    finally:
        demo.close()
