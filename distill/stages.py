"""Resumable stages: a stage runs unless its record says its outputs exist and are still valid.

After a stage succeeds, ``RUN_DIR/stages/<name>.json`` records its settings (a training
stage's options), the size and modification time of every input and output file, the wall
time and the stage's details. A later run skips the stage when its settings are the same,
every output still matches its record and every input is unchanged; otherwise the stage runs
again (a training stage continues from its last.pt). A killed run therefore restarts at the
stage it was in, and a changed recipe redoes exactly the stages it touches and those after.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable


@dataclass
class Stage:
    name: str
    run: Callable[[], dict | None]  # does the work; returns details for the record
    outputs: list[Path]
    inputs: list[Path] = field(default_factory=list)
    settings: dict = field(default_factory=dict)  # JSON-able; a change makes the stage run again
    run_only: tuple[str, ...] = ()  # settings that change how it runs, not what it writes: no reason to rerun


def fingerprint(path: Path) -> list[int] | None:
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return [stat.st_size, stat.st_mtime_ns]


class StageBook:
    """The records of one run folder."""

    def __init__(self, run_dir: Path):
        self.run_dir = run_dir
        self.folder = run_dir / "stages"

    def _path(self, name: str) -> Path:
        return self.folder / f"{name}.json"

    def record(self, name: str) -> dict | None:
        try:
            return json.loads(self._path(name).read_text())
        except (FileNotFoundError, ValueError):
            return None

    def _files(self, paths: list[Path]) -> dict[str, list[int] | None]:
        return {os.path.relpath(p, self.run_dir): fingerprint(p) for p in paths}

    def is_done(self, stage: Stage) -> bool:
        record = self.record(stage.name)
        if record is None:
            return False
        outputs = self._files(stage.outputs)

        def results_from(settings: dict) -> dict:
            return {k: v for k, v in settings.items() if k not in stage.run_only}

        return (all(v is not None for v in outputs.values()) and outputs == record["outputs"]
                and self._files(stage.inputs) == record["inputs"]
                and results_from(_jsonable(stage.settings)) == results_from(record["settings"]))

    def has_stale_record(self, stage: Stage) -> bool:
        """Finished once, but its inputs or outputs changed since: its folder is out of date."""
        return self.record(stage.name) is not None and not self.is_done(stage)

    def run(self, stage: Stage, log: Callable[[str], None]) -> dict:
        if self.is_done(stage):
            log(f"[{stage.name}] done already, skipped")
            return self.record(stage.name)
        log(f"[{stage.name}] running")
        start = time.perf_counter()
        details = stage.run() or {}
        seconds = time.perf_counter() - start
        record = {
            "stage": stage.name, "seconds": round(seconds, 1),
            "finished_at": datetime.now(timezone.utc).isoformat(timespec="microseconds"),
            "settings": _jsonable(stage.settings), "inputs": self._files(stage.inputs),
            "outputs": self._files(stage.outputs), "details": details,
        }
        missing = [k for k, v in record["outputs"].items() if v is None]
        if missing:
            raise AssertionError(f"stage {stage.name} finished without writing {', '.join(missing)}")
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self._path(stage.name).with_suffix(".tmp")
        tmp.write_text(json.dumps(record, indent=2))
        os.replace(tmp, self._path(stage.name))
        log(f"[{stage.name}] finished in {seconds / 60:.1f} min")
        return record

    def all_records(self) -> list[dict]:
        if not self.folder.is_dir():
            return []
        records = [self.record(p.stem) for p in self.folder.glob("*.json")]
        return sorted((r for r in records if r), key=lambda r: r["finished_at"])


def _jsonable(value: dict) -> dict:
    """As the record stores it (tuples become lists), so a fresh stage compares equal."""
    return json.loads(json.dumps(value))
