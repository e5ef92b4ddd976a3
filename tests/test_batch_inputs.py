"""Batch input handling without a model or database: CSV checks, paths, zips, injection."""

from __future__ import annotations

import os
import stat
import zipfile
from pathlib import Path

import pytest

from app.batch.csvfile import inspect_input, iter_rows, read_records
from app.batch.errors import BatchInputError, RowError
from app.batch.paths import ImageResolver
from app.batch.archive import ZipLimits, ZipRejected, extract_zip
from batch_support import jpeg_bytes
from db.spreadsheet import neutralise


# --- CSV injection ------------------------------------------------------------------------------

@pytest.mark.parametrize("cell", ["=1+1", "+cmd", "-5", "@SUM(A1)", "\tx", "\rx", "=HYPERLINK(\"http://x\")"])
def test_formula_cells_are_neutralised(cell):
    assert neutralise(cell) == "'" + cell


@pytest.mark.parametrize("cell", ["", "pizza", "5", " =1", "'=1", "a=b", "0.5"])
def test_plain_cells_are_unchanged(cell):
    assert neutralise(cell) == cell


# --- whole-file checks: one clear error before any work ----------------------------------------

@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "empty"),
        (b"\xef\xbb\xbf", "empty"),
        (b"\n\n", "empty"),
        (b"image,grams\n", "no data rows"),
        (b"photo,grams\na.jpg,100\n", "no 'image' column"),
        (b"image;grams\na.jpg;100\n", "semicolon-separated"),
        (b"image\tgrams\na.jpg\t100\n", "tab-separated"),
        (b"image,note\na.jpg,ok\nb.jpg,caf\xe9\n", r"line 3 is not UTF-8 \(byte 0xe9\)"),
        ("image,note\na.jpg,x\n".encode("utf-16"), "UTF-16"),
        (b"PK\x03\x04rest-of-an-xlsx", "Excel"),
        (b'image,note\na.jpg,"unclosed\n', "not valid CSV"),
        (b'image,note\na.jpg,"x"y\n', "not valid CSV"),
        (b"image,note\na.jpg,\x00\n", "line 2 contains NUL"),
        ("image,note\na.jpg,x\n".encode("utf-16-le"), "line 1 contains NUL"),
        (b"image,Image\na.jpg,b.jpg\n", "appears twice"),
    ],
    ids=["empty", "bom-only", "blank-lines", "header-only", "no-image", "semicolon", "tab", "latin1",
         "utf16", "xlsx", "unclosed-quote", "bad-quote", "nul", "utf16-no-bom", "duplicate-image"],
)
def test_unusable_input_is_one_clear_error(tmp_path, content, message):
    path = tmp_path / "in.csv"
    path.write_bytes(content)
    with pytest.raises(BatchInputError, match=message) as info:
        inspect_input(path)
    assert "\n" not in str(info.value)


def test_missing_input_file(tmp_path):
    with pytest.raises(BatchInputError, match="not found"):
        inspect_input(tmp_path / "nope.csv")


def test_rows_stream_with_bom_blank_lines_quotes_and_bad_shapes(tmp_path):
    path = tmp_path / "in.csv"
    path.write_bytes(
        "\ufeffImage ,note,extra\r\n"
        'a.jpg,"line one\nline two","x,y"\r\n'
        "\r\n"
        "b.jpg,short\r\n"
        "c.jpg,too,many,fields\r\n".encode()
    )
    spec = inspect_input(path)
    assert spec.rows == 3 and spec.columns == {"image": 0, "note": 1}
    rows = list(iter_rows(spec))
    assert [r.cells for r in rows] == [
        ["a.jpg", "line one\nline two", "x,y"], ["b.jpg", "short", ""], ["c.jpg", "too", "many"],
    ]
    assert [bool(r.problem) for r in rows] == [False, True, True]
    assert "4 fields" in rows[2].problem


def test_read_records_stops_at_a_torn_last_record(tmp_path):
    path = tmp_path / "out.csv"
    whole = b'a,b\r\n1,"two\r\nlines"\r\n3,4\r\n'
    path.write_bytes(whole)
    records = list(read_records(path))
    assert [r.cells for r in records] == [["a", "b"], ["1", "two\r\nlines"], ["3", "4"]]
    assert records[-1].end == len(whole)
    for cut in (len(whole) - 1, len(whole) - 3, whole.index(b"two") + 3, whole.index(b"lines")):
        path.write_bytes(whole[:cut])
        kept = list(read_records(path))
        assert kept == records[: len(kept)] and len(kept) < 3
        assert kept[-1].end <= cut


def test_read_records_refuses_damage_in_the_middle(tmp_path):
    path = tmp_path / "out.csv"
    path.write_bytes(b'a,b\r\n1,"x"y\r\n3,4\r\n')
    with pytest.raises(BatchInputError, match="damaged"):
        list(read_records(path))


# --- image paths --------------------------------------------------------------------------------

@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "a.jpg").write_bytes(jpeg_bytes())
    outside = tmp_path / "secret.jpg"
    outside.write_bytes(jpeg_bytes())
    (root / "link_out.jpg").symlink_to(outside)
    (root / "link_in.jpg").symlink_to(root / "sub" / "a.jpg")
    return root, outside


def test_paths_inside_the_root_resolve(tree):
    root, _ = tree
    resolver = ImageResolver(root)
    assert resolver.resolve("sub/a.jpg") == (root / "sub" / "a.jpg").resolve()
    assert resolver.resolve(" sub/../sub/a.jpg ") == (root / "sub" / "a.jpg").resolve()
    assert resolver.resolve(str(root / "sub" / "a.jpg")) == (root / "sub" / "a.jpg").resolve()
    assert resolver.resolve("link_in.jpg") == (root / "sub" / "a.jpg").resolve()


@pytest.mark.parametrize("kind", ["dotdot", "absolute", "symlink"])
def test_paths_leaving_the_root_are_refused(tree, kind):
    root, outside = tree
    cell = {"dotdot": "../secret.jpg", "absolute": str(outside), "symlink": "link_out.jpg"}[kind]
    with pytest.raises(RowError, match="refused"):
        ImageResolver(root).resolve(cell)
    assert ImageResolver(root, allow_outside_root=True).resolve(cell) == outside.resolve()


@pytest.mark.parametrize("cell", ["", "   ", "a\x00.jpg"])
def test_empty_or_nul_paths_are_row_errors(tree, cell):
    with pytest.raises(RowError):
        ImageResolver(tree[0]).resolve(cell)


# --- zip uploads ---------------------------------------------------------------------------------

def _zip(path: Path, entries: dict[str, bytes], symlinks: dict[str, str] | None = None) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
        for name, target in (symlinks or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, target)
    return path


def test_zip_extracts_photos_in_folders(tmp_path):
    archive = _zip(tmp_path / "p.zip", {"a.jpg": jpeg_bytes(1), "day1/b.jpg": jpeg_bytes(2), "day1/": b""})
    assert extract_zip(archive, tmp_path / "out") == 2
    assert (tmp_path / "out" / "day1" / "b.jpg").read_bytes() == jpeg_bytes(2)


@pytest.mark.parametrize(
    ("entries", "symlinks", "message"),
    [
        ({"ok.jpg": b"x", "../evil.txt": b"x"}, None, "'..'"),
        ({"ok.jpg": b"x", "a/../../evil.txt": b"x"}, None, "'..'"),
        ({"/tmp/evil.txt": b"x"}, None, "absolute"),
        ({"..\\evil.txt": b"x"}, None, "'..'"),
        ({"C:/evil.txt": b"x"}, None, "absolute"),
        ({"ok.jpg": b"x"}, {"link.jpg": "/etc/passwd"}, "symbolic link"),
    ],
    ids=["dotdot", "nested-dotdot", "absolute", "backslash", "drive", "symlink"],
)
def test_unsafe_zips_are_refused_before_writing_anything(tmp_path, entries, symlinks, message):
    archive = _zip(tmp_path / "p.zip", entries, symlinks)
    with pytest.raises(ZipRejected, match=message):
        extract_zip(archive, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert not (tmp_path / "evil.txt").exists()


def test_zip_limits(tmp_path):
    archive = _zip(tmp_path / "p.zip", {f"{i}.jpg": b"x" * 100 for i in range(5)})
    with pytest.raises(ZipRejected, match="more than the limit of 4"):
        extract_zip(archive, tmp_path / "a", ZipLimits(max_files=4))
    with pytest.raises(ZipRejected, match="more than the limit"):
        extract_zip(archive, tmp_path / "b", ZipLimits(max_file_bytes=99))
    with pytest.raises(ZipRejected, match="GiB"):
        extract_zip(archive, tmp_path / "c", ZipLimits(max_total_bytes=499))
    assert extract_zip(archive, tmp_path / "d", ZipLimits(max_files=5, max_file_bytes=100, max_total_bytes=500)) == 5


def test_zip_bomb_is_refused_before_anything_is_written(tmp_path):
    from image_support import zip_bomb

    archive = tmp_path / "photos.zip"
    unpacked = zip_bomb(archive)  # 16 x 64 MiB: every entry within the per-file limit
    assert unpacked == 2**30 and archive.stat().st_size < 1.1 * 2**20
    with pytest.raises(ZipRejected, match=r"photos.zip: 1.0 MiB that unpack to 1024 MiB \(1027:1\).*nothing was extracted"):
        extract_zip(archive, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_zip_error_messages_quote_only_the_start_of_a_name(tmp_path):
    archive = _zip(tmp_path / "p.zip", {"../" + "x" * 5000 + ".jpg": b"1"})
    with pytest.raises(ZipRejected) as info:
        extract_zip(archive, tmp_path / "out")
    assert len(str(info.value)) < 200 and "..." in str(info.value)


def test_zip_with_duplicate_names_or_garbage_is_refused(tmp_path):
    archive = tmp_path / "dup.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("a.jpg", b"1")
        with pytest.warns(UserWarning):
            zf.writestr("a.jpg", b"2")
    with pytest.raises(ZipRejected, match="twice"):
        extract_zip(archive, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    garbage = tmp_path / "g.zip"
    garbage.write_bytes(b"this is not a zip")
    with pytest.raises(ZipRejected, match="not a readable zip"):
        extract_zip(garbage, tmp_path / "out2")
    assert not (tmp_path / "out2").exists()


# --- decoding one photo ----------------------------------------------------------------------------

def test_decode_turns_every_failure_into_a_row_error(tmp_path, monkeypatch):
    import app.batch.pipeline as pipeline

    good = tmp_path / "a.jpg"
    good.write_bytes(jpeg_bytes())
    assert pipeline.decode(good, "a.jpg", lambda image: image.size) == (48, 40)
    fifo = tmp_path / "pipe.jpg"
    os.mkfifo(fifo)
    with pytest.raises(RowError, match="pipe.jpg: not a regular file"):
        pipeline.decode(fifo, "pipe.jpg", lambda image: image)  # must not block on open()

    def locked(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(pipeline, "open", locked, raising=False)
    with pytest.raises(RowError, match="a.jpg: permission denied"):
        pipeline.decode(good, "a.jpg", lambda image: image)
    monkeypatch.undo()

    def broken(image):
        raise MemoryError("out of memory")

    with pytest.raises(RowError, match="a.jpg: cannot read the image \\(MemoryError"):
        pipeline.decode(good, "a.jpg", broken)


# --- result cells -------------------------------------------------------------------------------

def test_a_result_carries_every_nutrient_of_the_card():
    from app.batch.rows import RESULT_COLUMNS, nutrition_cells, result_row
    from db.nutrition import NUTRIENTS

    portion = {"grams": 150.0, "serving": None, **{name: i + 0.5 for i, name in enumerate(NUTRIENTS)}}
    card = {"food": "Pizza", "portion": portion, "source": {"fdc_id": 1}}
    row = dict(zip(RESULT_COLUMNS, result_row(nutrition_cells(card))))
    assert {name: row[name] for name in NUTRIENTS} == {name: f"{i + 0.5:.1f}" for i, name in enumerate(NUTRIENTS)}
