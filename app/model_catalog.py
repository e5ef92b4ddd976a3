"""The models the app can use: the default, every ONNX file in data_home()/models/ and any
passed with --model; which one is active; one ONNX Runtime engine per file, created once.
`DefaultFollower` keeps the active one equal to the default stored in the database, so that
every app process serves the model an admin chose on any of them."""

from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

from db import validate
from models.errors import ModelError
from models.paths import data_home

log = logging.getLogger("foodtag.models")


@dataclass(frozen=True)
class ModelInfo:
    name: str  # shown in the UI and accepted by activate(): the file name without .onnx
    path: Path
    model_name: str  # registry name from the ONNX metadata
    version: str
    classes: int
    accuracy: float | None  # top-1 in [0, 1] from the report JSON, None without one
    report: Path | None
    default: bool


def find_report(path: Path) -> Path | None:
    """``<model>.report.json`` next to ``<model>.onnx``, as ``python -m distill eval --json`` writes it."""
    report = path.with_suffix(".report.json")
    return report if report.is_file() else None


def read_accuracy(report: Path) -> float | None:
    """The report's ``top1`` (a fraction in [0, 1]), or None when it has none or is unreadable."""
    try:
        value = json.loads(report.read_text(encoding="utf-8")).get("top1")
    except (OSError, ValueError, AttributeError):
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1:
        return float(value)
    return None


def describe(path: Path, default: bool) -> ModelInfo:
    """Read what the UI lists about a model file, without starting an inference session."""
    from models.metadata import read_metadata

    meta = read_metadata(path)
    report = find_report(path)
    return ModelInfo(
        name=path.stem,
        path=path,
        model_name=meta["model_name"],
        version=meta["version"],
        classes=len(json.loads(meta["labels"])),
        accuracy=read_accuracy(report) if report else None,
        report=report,
        default=default,
    )


class ModelCatalog:
    def __init__(self, extra: list[Path] | None = None, default_path: Callable[[], Path] | None = None) -> None:
        self._extra = [Path(p).resolve() for p in extra or []]
        self._default_path_fn = default_path
        self._default: Path | None = None
        self._engines: dict[Path, object] = {}
        # describe() parses the whole ONNX protobuf; the Models tab lists on every page load.
        self._described: dict[Path, tuple[tuple, ModelInfo]] = {}
        self._active: ModelInfo | None = None
        # Re-entrant: active() holds it while start() loads the engine.
        self._lock = threading.RLock()

    def default_path(self) -> Path:
        """The default model's file (exported on the very first call; can take a minute)."""
        if self._default is None:
            if self._default_path_fn is None:
                from models.default import default_model_path

                self._default_path_fn = default_model_path
            self._default = Path(self._default_path_fn()).resolve()
        return self._default

    def list(self) -> tuple[list[ModelInfo], list[str]]:
        """(usable models, one line per file that could not be read)."""
        default = self.default_path()
        folder = data_home() / "models"
        from models.runtime_choice import is_variant

        # An int8 file beside its fp32 model is one of that model's files, not a model of its own.
        installed = sorted(p.resolve() for p in folder.glob("*.onnx") if not is_variant(p))
        paths = [default, *installed, *self._extra]
        seen: set[Path] = set()
        infos, problems = [], []
        for path in paths:
            if path in seen:
                continue
            seen.add(path)
            try:
                info = self._describe(path, default=path == default)
            except ModelError as exc:
                problems.append(str(exc))
                continue
            if any(other.name == info.name for other in infos):
                # Same file name in two folders: the folder tells them apart.
                info = replace(info, name=f"{info.name} ({path.parent})")
            infos.append(info)
        return infos, problems

    def start(self, preferred: str | None = None) -> ModelInfo:
        """Load the model that is active at start: ``preferred`` (the stored server default)
        when it is listed and loads, else the first --model, else the built-in default."""
        if preferred is not None:
            try:
                self._active = self.load(preferred)
                return self._active
            except ModelError as exc:
                log.warning("the stored default model cannot be used here (%s); starting with this "
                            "process's own", exc)
        path = self._extra[0] if self._extra else self.default_path()
        info = self._describe(path, default=path == self.default_path())
        self._engine(path)
        self._active = info
        return info

    def active(self):
        """(engine, info) of the active model, loading it on first use."""
        if self._active is None:
            with self._lock:
                if self._active is None:
                    self.start()
        info = self._active
        return self._engine(info.path), info

    @property
    def active_info(self) -> ModelInfo | None:
        return self._active

    def activate(self, name: str) -> ModelInfo:
        """Make the listed model called `name` the server's default (for every user who has
        not picked one). The caller checks that an admin asked."""
        info = self.load(name)  # loaded before switching, so a broken file never becomes active
        self._active = info
        return info

    def load(self, name: str) -> ModelInfo:
        """The listed model called `name`, with its engine created (ModelError if it cannot be)."""
        info = self.find(name)
        self._engine(info.path)
        return info

    def find(self, name: str) -> ModelInfo:
        """The listed model called `name`."""
        infos, _ = self.list()
        for info in infos:
            if info.name == name:
                return info
        known = ", ".join(info.name for info in infos)
        raise ModelError(f"no model called {validate.echo(name)}; available: {known}")

    def named(self, name: str | None):
        """(engine, info) of the listed model `name`; None: the server's default."""
        if name is None:
            return self.active()
        info = self.find(name)
        return self._engine(info.path), info

    def _describe(self, path: Path, default: bool) -> ModelInfo:
        """describe(), cached until the file or its report changes."""
        if not path.is_file():
            raise ModelError(f"{path}: model file not found")
        report = find_report(path)
        stamp = tuple((p.stat().st_mtime_ns, p.stat().st_size) for p in (path, report) if p is not None)
        cached = self._described.get(path)
        if cached is None or cached[0] != stamp or cached[1].default != default:
            cached = self._described[path] = (stamp, describe(path, default))
        return cached[1]

    def _engine(self, path: Path):
        from models.engine import Engine
        from models.runtime_choice import choose_for_file

        with self._lock:
            engine = self._engines.get(path)
            if engine is None:
                # The model's fastest file on this machine among those that agree with it (fp32 or int8).
                choice = choose_for_file(path)
                log.info("%s: serving %s", path.name, choice.reason)
                engine = self._engines[path] = Engine(choice.path)
            return engine


class DefaultFollower:
    """Every ``interval_s`` reads the stored default model's name (``read``) and, when it is
    not the active one, loads and activates it (only a listed model can be: the built-in
    default, $FOODTAG_HOME/models/*.onnx and --model files). So a change an admin makes on one
    app process is served by every other within ``interval_s`` plus the model's load time.
    A name this process cannot use (not installed here, broken) keeps the current model and
    is retried every RETRY_S (a file may be copied in later)."""

    RETRY_S = 60.0

    def __init__(self, catalog: ModelCatalog, read: Callable[[], str | None], interval_s: float) -> None:
        self.catalog, self.read, self.interval_s = catalog, read, interval_s
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._refused: tuple[str, float] | None = None  # (name, when)

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="default-model-follower", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)

    def poll(self) -> ModelInfo | None:
        """One look at the stored default; the newly activated model, or None when unchanged."""
        name = self.read()
        active = self.catalog.active_info
        if name is None or (active is not None and active.name == name):
            return None
        if self._refused and self._refused[0] == name and time.monotonic() - self._refused[1] < self.RETRY_S:
            return None
        try:
            info = self.catalog.activate(name)
        except ModelError as exc:
            self._refused = (name, time.monotonic())
            log.warning("the stored default model cannot be used here: %s; keeping %s", exc,
                        active.name if active else "none")
            return None
        self._refused = None
        log.info("default model is now %s (changed on another app process)", info.name)
        return info

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                self.poll()
            except Exception:  # a database hiccup must not end the following for good
                log.exception("could not read the stored default model; trying again in %.0f s", self.interval_s)
