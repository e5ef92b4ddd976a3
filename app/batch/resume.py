"""--resume: check that a half-written output belongs to this input, and find where to go on.

The output is trusted only as far as it verifiably matches: same header, each row's
pass-through cells equal to the input row at the same position, and every ok row from the
same model version. Anything else is refused (exit 2) instead of being "continued" into a
file that mixes two inputs or two models. A torn last row (a killed write) is dropped.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from app.batch.csvfile import InputRow, read_records
from app.batch.errors import BatchInputError
from db.spreadsheet import neutralise


@dataclass
class ResumePoint:
    done: int = 0  # complete rows already in the output
    errors: int = 0  # of which status != ok
    end: int = 0  # byte offset after the last complete row; 0: write a fresh file
    # The rows of the unfinished chunk that are already written: predicted again, not
    # written, so the chunk's batch is the one an uninterrupted run would have had.
    replay: list[InputRow] = field(default_factory=list)


def find_resume_point(
    out: Path,
    header: list[str],
    input_width: int,
    source: Path,
    rows: Iterator[InputRow],
    *,
    version: str,
    batch_size: int,
    on_row: Callable[[InputRow], None] | None = None,
) -> ResumePoint:
    """Verify `out` against the input `rows` (consuming the ones it has) and truncate it there.

    `header` is the output header, whose first `input_width` columns are the input's.
    `on_row` sees every input row that is already in the output, in order.
    """
    records = read_records(out)
    first = next(records, None)
    if first is None:
        return ResumePoint()  # empty, or interrupted inside the header: start over
    if first.cells != [neutralise(name) for name in header]:
        raise BatchInputError(f"--resume: {out} has a different header; it is not an output of {source}")
    point = ResumePoint(end=first.end)
    status_at, version_at = header.index("status"), header.index("model_version")
    recent: deque[InputRow] = deque(maxlen=batch_size)
    for record in records:
        row = next(rows, None)
        if row is None:
            raise BatchInputError(f"--resume: {out} has more rows than {source}; it is not this input's output")
        if len(record.cells) != len(header) or record.cells[:input_width] != [neutralise(c) for c in row.cells]:
            raise BatchInputError(f"--resume: row {row.index + 1} of {out} does not match row {row.index + 1} of {source}")
        if record.cells[status_at] == "ok" and record.cells[version_at] != version:
            raise BatchInputError(
                f"--resume: {out} was written with model version {record.cells[version_at]}, this run "
                f"uses {version}; use the same --model or start a new output"
            )
        point.errors += record.cells[status_at] != "ok"
        if on_row is not None:
            on_row(row)
        recent.append(row)
        point.done, point.end = point.done + 1, record.end
    unfinished = point.done % batch_size
    point.replay = list(recent)[len(recent) - unfinished:] if unfinished else []
    with open(out, "r+b") as handle:
        handle.truncate(point.end)  # drop a torn last row, if the interruption left one
    return point
