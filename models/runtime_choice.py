"""Which of a model's files this machine serves (fp32, fused or int8), by a short timing here.

An int8 file can be much faster than fp32 on one CPU and slower on another (or on the same CPU
under another load), so the choice is made on the machine that serves: every candidate that
meets the agreement threshold is timed at batch 1 on a synthetic input of the model's own size
(models.timing, interleaved rounds), and the fastest is served; candidates within SERVE_MARGIN
of the fastest count as tied, and then the earliest (the most exact) wins. The decision is cached
in ``<model>.choice.json`` beside the model, keyed by the candidate files' SHA-256 and the CPU
kind, so the next start reads it instead of timing again, and a new file or CPU times afresh.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

import numpy as np

from models.engine import Engine, cpu_features
from models.errors import ModelError
from models.machine import cpu_description
from models.metadata import read_metadata
from models.quantize import AGREEMENT_THRESHOLD
from models.timing import interleaved_speeds

log = logging.getLogger("foodtag.models")

INT8_SUFFIX = ".int8.onnx"
CHOICE_SUFFIX = ".choice.json"
# Three rounds of five calls at batch 1 keep a start short (about a second per candidate for the
# Lite0 default model on 2 busy cores).
TIMING_ROUNDS = 3
TIMING_CALLS = 5
# A less exact file is served only when it is more than 10% faster: such a short timing on a busy
# machine put the same int8 file at 0.80x to 1.07x fp32 from one start to the next.
SERVE_MARGIN = 0.10


@dataclass(frozen=True)
class Candidate:
    name: str  # "fp32", "fused", "int8"
    path: Path
    agreement: float  # top-1 agreement with the fp32 reference (1.0 for the reference itself)


@dataclass(frozen=True)
class Choice:
    name: str
    path: Path
    reason: str
    vs_first: dict[str, float]  # timed candidate -> images/s at batch 1 relative to the first candidate
    cached: bool = False

    def to_dict(self) -> dict:
        return {**asdict(self), "path": str(self.path)}


# A function that times candidates: their images/s at batch 1 relative to the first one's.
Measure = Callable[[list[Candidate]], dict[str, float]]


def cpu_kind() -> str:
    """This CPU as the choice depends on it: model, core count and the flags of its int8/bf16 kernels."""
    return f"{cpu_description()} ({', '.join(sorted(cpu_features())) or 'no SIMD flags found'})"


def serving_candidates(path: Path) -> list[Candidate]:
    """A model file (the reference) and, when present, its int8 variant ``<stem>.int8.onnx``
    (made from this file: its recorded source version matches; its agreement from its metadata)."""
    path = Path(path)
    candidates = [Candidate("fp32", path, 1.0)]
    int8 = path.with_name(path.stem + INT8_SUFFIX)
    if int8.is_file():
        meta = read_metadata(int8)
        if meta.get("source_version") != read_metadata(path)["version"]:
            log.warning("%s was not quantised from %s; serving without it", int8.name, path.name)
        else:
            candidates.append(Candidate("int8", int8, float(meta.get("top1_agreement", 0.0))))
    return candidates


def time_at_batch_1(candidates: list[Candidate]) -> dict[str, float]:
    """Each candidate's images/s at batch 1 relative to the first's, on this machine, interleaved."""
    engines = {c.name: Engine(c.path) for c in candidates}
    size = engines[candidates[0].name].preprocess.input_size
    image = np.random.default_rng(0).standard_normal((1, 3, size, size), dtype=np.float32)
    speeds = interleaved_speeds({name: (lambda _batch, e=e: e.run(image)) for name, e in engines.items()}, (1,),
                                rounds=TIMING_ROUNDS, calls=TIMING_CALLS)
    return {name: by_batch[1].vs_first for name, by_batch in speeds.items()}


def choose(
    candidates: list[Candidate], *, cache: Path | None = None, threshold: float = AGREEMENT_THRESHOLD,
    measure: Measure | None = None, cpu: Callable[[], str] = cpu_kind, batch_label: str = "batch 1",
) -> Choice:
    """The candidate to serve on this machine (see the module docstring); ``candidates[0]`` is the
    reference, served unless another that meets ``threshold`` is faster beyond SERVE_MARGIN.
    ``measure`` times the candidates (default: time_at_batch_1); ``cpu`` names this CPU kind."""
    if not candidates:
        raise ModelError("no model file to choose from")
    first = candidates[0]
    eligible = [c for c in candidates if c.agreement >= threshold or c is first]
    refused = [f"{c.name} agrees on {c.agreement:.2%}, under the {threshold:.0%} threshold" for c in candidates
               if c not in eligible]
    if len(eligible) == 1:
        return Choice(first.name, first.path, "; ".join([f"{first.name}: the only file", *refused]), {})
    kind = cpu()
    key = None
    if cache is not None:
        key = {"cpu": kind, "threshold": threshold, "files": {c.name: _sha256(c.path) for c in eligible}}
        cached = _read_cache(cache, key)
        if cached is not None:
            return cached
    vs_first = (measure or time_at_batch_1)(eligible)
    fastest = max(vs_first.values())
    chosen = next(c for c in eligible if vs_first[c.name] * (1 + SERVE_MARGIN) >= fastest)
    where = f"at {batch_label} on {kind}"
    if chosen is first:
        reason = f"{first.name}: " + ", ".join(f"{c.name} was {vs_first[c.name]:.2f}x" for c in eligible[1:]) + f" {where}"
    else:
        reason = f"{chosen.name}: {vs_first[chosen.name]:.2f}x {first.name} {where}, agreement {chosen.agreement:.2%}"
    reason = "; ".join([reason, *refused])
    choice = Choice(chosen.name, chosen.path, reason, vs_first)
    if cache is not None:
        _write_cache(cache, key, choice)
    return choice


def choose_for_file(path: Path, **options) -> Choice:
    """The file to serve for the model at ``path``, cached in ``<stem>.choice.json`` beside it."""
    path = Path(path)
    return choose(serving_candidates(path), cache=path.with_name(path.stem + CHOICE_SUFFIX), **options)


def is_variant(path: Path) -> bool:
    """An int8 file served through its fp32 sibling's choice, not listed as a model of its own."""
    path = Path(path)
    return path.name.endswith(INT8_SUFFIX) and path.with_name(path.name[: -len(INT8_SUFFIX)] + ".onnx").is_file()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _read_cache(cache: Path, key: dict) -> Choice | None:
    try:
        record = json.loads(cache.read_text())
    except (OSError, ValueError):
        return None  # absent or unreadable: time again
    if not isinstance(record, dict) or record.get("key") != key:
        return None
    path = Path(cache).with_name(record["file"])
    if not path.is_file():
        return None
    return Choice(record["name"], path, record["reason"], record["vs_first"], cached=True)


def _write_cache(cache: Path, key: dict, choice: Choice) -> None:
    record = {"key": key, "name": choice.name, "file": choice.path.name, "reason": choice.reason,
              "vs_first": choice.vs_first}
    try:
        with tempfile.NamedTemporaryFile("w", dir=cache.parent, prefix=".choice-", delete=False) as f:
            json.dump(record, f, indent=2)
        os.replace(f.name, cache)  # atomic: two processes starting at once both write a whole file
    except OSError as exc:  # a read-only model folder: serve the choice, time again next start
        log.warning("could not cache the serving choice in %s (%s)", cache, exc)
