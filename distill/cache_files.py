"""What the two on-disk caches (decoded images, teacher logits) share: a folder named by a
fingerprint of everything its contents depend on, arrays as memory-mapped .npy files, a
per-image `done` flag written after the image's rows are flushed (so a killed build resumes
where it stopped and never trusts a half-written row), and a manifest that says complete.

Every process (DDP ranks, DataLoader workers) maps the same files read-only, so the
operating system keeps one copy in its page cache for all of them.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np

from distill import dist
from distill.errors import DistillError


def fingerprint(*parts) -> str:
    """A short stable hash of JSON-able parts (and bytes)."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part if isinstance(part, bytes) else json.dumps(part, sort_keys=True, default=str).encode())
    return digest.hexdigest()[:16]


DIGESTS = "file-digests.json"


def source_identity(source, memo_root: str | Path) -> list:
    """Paths, labels, sizes and content digests: an edited, added or removed photo changes it; a
    photo copied or touched without a change does not, so re-copied data keeps its caches (a
    logit cache can be hours of teacher time). Digests are remembered in <memo_root>/DIGESTS
    by (size, mtime), so an untouched data set costs one stat per file and a touched one a read.
    Whenever the memo changes, photos that no longer exist are forgotten, so it does not grow
    with every photo ever cached under this root."""
    if source.synthetic:
        return ["synthetic", list(source.synthetic)]
    memo_path = Path(memo_root).expanduser() / DIGESTS
    try:
        memo = json.loads(memo_path.read_text())
    except (OSError, ValueError):
        memo = {}
    identity, changed = [], False
    for path, label in source.items:
        try:
            stat = os.stat(path)
            stamp = [stat.st_size, stat.st_mtime_ns]
            remembered = memo.get(path)
            if remembered is None or remembered[:2] != stamp:
                with open(path, "rb") as file:
                    memo[path] = [*stamp, hashlib.file_digest(file, "blake2b").hexdigest()[:32]]
                changed = True
            identity.append([path, label, stat.st_size, memo[path][2]])
        except OSError:
            identity.append([path, label, None, None])  # unreadable now: skipped, and so it is cached
    if changed:
        _write_memo(memo_path, {path: entry for path, entry in memo.items() if os.path.exists(path)})
    return identity


def _write_memo(path: Path, memo: dict) -> None:
    """Atomic, and best effort: without it the next run only reads the photos again."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(memo))
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)


class CacheFolder:
    """<root>/<kind>-<fingerprint>/ with manifest.json, done.npy and the arrays.

    open_or_create is collective under DDP: rank 0 creates the files, the others wait and map them.
    """

    def __init__(self, root: str | Path, kind: str, key: str, manifest: dict):
        self.path = Path(root).expanduser() / f"{kind}-{key}"
        self.manifest = {"kind": kind, "key": key, **manifest}

    @property
    def complete(self) -> bool:
        try:
            return json.loads((self.path / "manifest.json").read_text()).get("complete", False)
        except (OSError, ValueError):
            return False

    def create(self, arrays: dict[str, tuple[tuple, str]], size: int) -> None:
        """Rank 0: make the folder and zero-filled arrays unless a previous (killed) build left them."""
        if dist.is_main() and not (self.path / "manifest.json").exists():
            try:
                self.path.mkdir(parents=True, exist_ok=True)
                for name, (shape, dtype) in {**arrays, "done": ((size,), "uint8")}.items():
                    np.lib.format.open_memmap(self.path / f"{name}.npy", mode="w+", dtype=dtype, shape=shape).flush()
            except OSError as exc:
                raise DistillError(f"cache: cannot write {self.path}: {exc}") from None
            self._write_manifest(complete=False)  # last: its presence says the arrays exist
        dist.barrier()

    def array(self, name: str, writable: bool = False) -> np.memmap:
        return np.load(self.path / f"{name}.npy", mmap_mode="r+" if writable else "r")

    def pending(self, indices) -> list[int]:
        done = self.array("done")
        return [i for i in indices if not done[i]]

    def finish(self) -> None:
        """Collective: wait for every rank's share, check it, then mark the cache complete."""
        dist.barrier()
        missing = int((self.array("done") == 0).sum())
        if missing:
            raise DistillError(f"cache: {self.path} is missing {missing} images after the build")
        if dist.is_main():
            self._write_manifest(complete=True)
        dist.barrier()

    def _write_manifest(self, complete: bool) -> None:
        tmp = self.path / "manifest.json.tmp"
        tmp.write_text(json.dumps({**self.manifest, "complete": complete}, indent=1, default=str))
        os.replace(tmp, self.path / "manifest.json")


def mark_done(folder: CacheFolder, arrays: list[np.memmap], indices: list[int]) -> None:
    """Flush the rows first, then the flags: a flag on disk always means its rows are too."""
    for array in arrays:
        array.flush()
    done = folder.array("done", writable=True)
    done[indices] = 1
    done.flush()
