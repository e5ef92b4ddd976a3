"""The per-user, per-day summary written next to the results (RESULTS.summary.csv).

It is computed from the finished results file, not from memory, so a resumed run and an
uninterrupted one produce the same summary, and a 100,000-row file needs memory only for
its (user, day) groups. Rows with status=error count as errors and add no nutrients.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from app.batch.csvfile import ResultWriter, open_results, read_records, recognised_columns
from app.batch.errors import RowError
from app.batch.rows import number, parse_eaten_at
from db.nutrition import NUTRIENTS

SUMMED_COLUMNS = ("portion_g", *NUTRIENTS, "glycemic_load", "exchanges")
SUMMARY_COLUMNS = ("user", "date", "rows", "ok", "errors", *SUMMED_COLUMNS)


def summary_path(results: Path) -> Path:
    """RESULTS.csv -> RESULTS.summary.csv (any other name just gets .summary.csv added)."""
    stem = results.name[:-4] if results.name.lower().endswith(".csv") else results.name
    return results.with_name(stem + ".summary.csv")


@dataclass
class _Group:
    rows: int = 0
    ok: int = 0
    sums: dict[str, float] = field(default_factory=dict)


def write_summary(results: Path, out: Path, *, default_user: str = "") -> int:
    """Summarise `results` into `out` (replaced atomically); returns the number of groups."""
    records = read_records(results)
    header = next(records).cells
    columns = recognised_columns(header)
    position = {name: index for index, name in enumerate(header)}
    # The results name their exchanges column with its unit ("exchanges_15g"); so does this.
    exchanges = next(name for name in header if name.startswith("exchanges_"))
    summed = [exchanges if name == "exchanges" else name for name in SUMMED_COLUMNS]
    groups: dict[tuple[str, str], _Group] = {}
    for record in records:
        cells = record.cells
        user = cells[columns["user"]].strip() if "user" in columns else ""
        day = ""
        if "eaten_at" in columns:
            try:
                eaten_at = parse_eaten_at(cells[columns["eaten_at"]].strip())
                day = eaten_at.date().isoformat() if eaten_at else ""
            except RowError:
                pass  # that row is an error row already; it is counted under no date
        group = groups.setdefault((user or default_user, day), _Group())
        group.rows += 1
        if cells[position["status"]] != "ok":
            continue
        group.ok += 1
        for name in summed:
            text = cells[position[name]]
            if text:
                group.sums[name] = group.sums.get(name, 0.0) + float(text)
    staged = out.with_name(out.name + ".tmp")
    with open_results(staged, append=False) as handle:
        writer = ResultWriter(handle)
        writer.write([exchanges if name == "exchanges" else name for name in SUMMARY_COLUMNS])
        # Undated rows last within each user.
        for (user, day), group in sorted(groups.items(), key=lambda kv: (kv[0][0], kv[0][1] == "", kv[0][1])):
            sums = [number(group.sums.get(name), 2 if name == exchanges else 1) for name in summed]
            writer.write([user, day, str(group.rows), str(group.ok), str(group.rows - group.ok), *sums])
    os.replace(staged, out)
    return len(groups)
