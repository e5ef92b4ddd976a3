"""The batch tool's CSV files: checking the input before any work, streaming its rows,
writing results safe to open in a spreadsheet, and reading back a half-written output.

Input is UTF-8 (a BOM is fine), comma-separated, with a header row. Every check that can
reject the whole file runs in `inspect_input`, one streaming pass, so a bad file fails in
seconds instead of after hours of inference.
"""

from __future__ import annotations

import codecs
import csv
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from app.batch.errors import BatchInputError
from db.spreadsheet import neutralise

# Columns the tool reads; matched after strip() and lower(), so "Image " works too.
RECOGNISED_COLUMNS = ("image", "food", "grams", "serving", "eaten_at", "user", "meal", "note")

_OTHER_DELIMITERS = {";": "semicolon", "\t": "tab", "|": "pipe"}
_FOREIGN_MAGIC = {
    b"\xff\xfe\x00\x00": "UTF-32", b"\x00\x00\xfe\xff": "UTF-32",
    b"\xff\xfe": "UTF-16", b"\xfe\xff": "UTF-16",
    b"PK\x03\x04": "a zip file (an Excel .xlsx workbook?)",
    b"\xd0\xcf\x11\xe0": "an old Excel .xls workbook",
}


@dataclass(frozen=True)
class InputSpec:
    """What `inspect_input` learnt about a valid input file."""

    path: Path
    header: list[str]
    columns: dict[str, int]  # recognised column -> index in header
    rows: int  # data rows (blank lines are not rows)

    def value(self, cells: list[str], column: str) -> str:
        """A recognised column's cell, stripped; "" when the file has no such column."""
        index = self.columns.get(column)
        return cells[index].strip() if index is not None else ""


@dataclass
class InputRow:
    index: int  # 0-based among data rows
    cells: list[str]  # exactly len(header) cells: short rows padded, long rows cut
    problem: str = ""  # why the row's shape is wrong, if it is


def recognised_columns(header: list[str]) -> dict[str, int]:
    """Recognised column name -> index; raises when one appears twice."""
    columns: dict[str, int] = {}
    for index, name in enumerate(header):
        key = name.strip().lower()
        if key in RECOGNISED_COLUMNS:
            if key in columns:
                raise BatchInputError(f"column {key!r} appears twice in the header")
            columns[key] = index
    return columns


def _open_text(path: Path):
    # newline="" lets the csv module see quoted line breaks; utf-8-sig drops a BOM.
    return open(path, encoding="utf-8-sig", newline="", errors="strict")


def _reader(handle) -> Iterator[list[str]]:
    return csv.reader(handle, strict=True)


def inspect_input(path: Path) -> InputSpec:
    """Validate the whole input (encoding, CSV syntax, header) and count its rows."""
    if not path.is_file():
        raise BatchInputError(f"{path}: input CSV not found")
    try:
        with open(path, "rb") as raw:
            start = raw.read(4)
    except OSError as exc:
        raise BatchInputError(f"{path}: cannot read the input CSV ({exc.strerror})") from None
    for magic, what in _FOREIGN_MAGIC.items():
        if start.startswith(magic):
            raise BatchInputError(f"{path}: this is {what}, not a UTF-8 CSV; save it as 'CSV UTF-8 (comma delimited)'")
    reader = None
    try:
        with _open_text(path) as handle:
            reader = _reader(handle)
            header = next((row for row in reader if row), None)
            if header is None:
                raise BatchInputError(f"{path}: the file is empty (a header row with an 'image' column is needed)")
            _refuse_nul(path, header, reader.line_num)
            try:
                columns = recognised_columns(header)
            except BatchInputError as exc:
                raise BatchInputError(f"{path}: {exc}") from None
            if "image" not in columns:
                raise BatchInputError(f"{path}: {_missing_image_reason(header)}")
            rows = 0
            for row in reader:
                _refuse_nul(path, row, reader.line_num)
                rows += bool(row)
    except UnicodeDecodeError:
        bad_line, byte = _first_bad_byte(path)
        raise BatchInputError(
            f"{path}: line {bad_line} is not UTF-8 (byte 0x{byte:02x}); save the file as 'CSV UTF-8'"
        ) from None
    except csv.Error as exc:
        line = reader.line_num if reader is not None else 1
        raise BatchInputError(f"{path}: line {line}: not valid CSV ({exc})") from None
    if rows == 0:
        raise BatchInputError(f"{path}: the header has no data rows under it")
    return InputSpec(path=path, header=header, columns=columns, rows=rows)


def _refuse_nul(path: Path, cells: list[str], line: int) -> None:
    # Text never holds NUL; it means UTF-16 without a BOM, or a binary file renamed .csv.
    if any("\x00" in cell for cell in cells):
        raise BatchInputError(f"{path}: line {line} contains NUL bytes; this is not a UTF-8 text CSV")


def _missing_image_reason(header: list[str]) -> str:
    if len(header) == 1:
        for delimiter, name in _OTHER_DELIMITERS.items():
            if "image" in (part.strip().lower() for part in header[0].split(delimiter)):
                return f"the header is {name}-separated; foodtag batch reads comma-separated CSV"
    shown = ", ".join(repr(name) for name in header[:12])
    return f"no 'image' column in the header (found {shown})"


def _first_bad_byte(path: Path) -> tuple[int, int]:
    """Line number and value of the first byte that is not valid UTF-8."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    lines_before = 0
    with open(path, "rb") as raw:
        while chunk := raw.read(1 << 16):
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError as exc:
                # exc.start counts from bytes the decoder still held back (at most 3).
                at = max(0, exc.start - len(exc.object) + len(chunk))
                return lines_before + chunk[:at].count(b"\n") + 1, exc.object[exc.start]
            lines_before += chunk.count(b"\n")
    return lines_before + 1, 0


def iter_rows(spec: InputSpec) -> Iterator[InputRow]:
    """The data rows in file order, one at a time (memory stays flat on any file size)."""
    width = len(spec.header)
    with _open_text(spec.path) as handle:
        reader = _reader(handle)
        next(row for row in reader if row)  # the header, already checked
        index = 0
        for cells in reader:
            if not cells:
                continue
            problem = ""
            if len(cells) != width:
                problem = f"row has {len(cells)} fields, the header has {width}"
                cells = (cells + [""] * width)[:width]
            yield InputRow(index=index, cells=cells, problem=problem)
            index += 1


class ResultWriter:
    """CSV rows out, every cell neutralised against formula injection."""

    def __init__(self, handle):
        self.handle = handle
        self._writer = csv.writer(handle)  # QUOTE_MINIMAL, \r\n: quotes any cell with \r or \n

    def write(self, cells: list[str]) -> None:
        self._writer.writerow([neutralise(cell) for cell in cells])


def open_results(path: Path, *, append: bool):
    return open(path, "a" if append else "w", encoding="utf-8", newline="")


@dataclass(frozen=True)
class WrittenRecord:
    cells: list[str]
    end: int  # byte offset just after this record


def read_records(path: Path) -> Iterator[WrittenRecord]:
    """Complete CSV records of a file we wrote, with their end offsets.

    Stops quietly at a torn last record (an interrupted write); raises BatchInputError when
    damage is followed by more data, since then the file is not a half-written output.
    """
    size = path.stat().st_size
    state = {"offset": 0, "newline": True}

    def lines(raw) -> Iterator[str]:
        for chunk in raw:  # binary iteration splits after b"\n" only
            state["offset"] += len(chunk)
            state["newline"] = chunk.endswith(b"\n")
            yield chunk.decode("utf-8")

    with open(path, "rb") as raw:
        reader = csv.reader(lines(raw), strict=True)
        count = 0
        while True:
            try:
                cells = next(reader)
            except StopIteration:
                return
            except (csv.Error, UnicodeDecodeError) as exc:
                if state["offset"] >= size:
                    return  # torn at the very end: the interrupted write
                raise BatchInputError(f"{path}: record {count + 1} is damaged ({exc}); cannot resume from it") from None
            if not state["newline"]:
                return  # the last line has no line break: torn
            yield WrittenRecord(cells, state["offset"])
            count += 1
