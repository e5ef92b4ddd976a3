"""--engine ray: the photos decoded and predicted by Ray Data actors, on one machine or a cluster.

This process (the driver) keeps everything that needs the input file, the database or the
order of the rows: reading and checking the CSV, path confinement, nutrition lookups, the
meal log, writing and --resume (app.batch.runner, shared with the local engine). Only the
per-photo work goes to Ray: the decodable photos of each chunk become rows of a Ray Dataset
(the resolved path and the cell as written, nothing else), and `map_batches` hands them in
batches of --batch-size to a pool of PhotoPredictor actors. Each actor holds one ONNX Runtime
session for its lifetime and runs the local engine's own decode-and-predict code
(`app.batch.pipeline.predicted_chunks`) on every batch, so the row errors, the padding of each
model call to exactly --batch-size and the probabilities are the local engine's. Results come
back in input order (Ray Data's preserve_order) and the driver writes them as the local
engine does: the same file, byte for byte (tests/test_batch_ray.py).

The input streams through in windows of whole chunks, one Ray Dataset each, so the driver's
memory stays flat on any file size. A window starts its actor pool anew (about 3 s on the
development machine), so it holds at least WINDOW_ROWS rows and 16 batches per actor.

The workers open the photos themselves, by the path the driver resolved: on a cluster the
photos must be at the same path on every node (a shared file system). The model file need
not be: its bytes go through Ray's object store once, and each node keeps one copy in its
temporary folder (the KEPT_MODEL_COPIES most recently used models; older copies are deleted).
"""

from __future__ import annotations

import hashlib
import logging
import os
import socket
import tempfile
import time
from collections import deque
from collections.abc import Iterable, Iterator
from itertools import islice
from pathlib import Path

import numpy as np

from app.batch.errors import BatchInputError
from app.batch.pipeline import Item, predicted_chunks

WINDOW_ROWS = 8192
BATCHES_PER_ACTOR = 16
CONNECT_TIMEOUT_S = 10
DEFAULT_ACTOR_CPUS = 1
KEPT_MODEL_COPIES = 4  # per node, most recently used first
STAGING_TIMEOUT_S = 3600  # a staging file this old belongs to a killed actor


def _ray():
    try:
        import ray
    except ImportError:
        raise BatchInputError(
            "--engine ray needs Ray, an optional dependency: pip install 'foodtag[ray]' (or --engine local)"
        ) from None
    return ray


class PhotoPredictor:
    """A Ray Data actor: one ONNX Runtime session, reused for every batch it is handed."""

    def __init__(self, model: list, digest: str, *, top_k: int, batch_size: int, threads: int):
        from models.engine import Engine

        self.engine = Engine(model_file(model[0], digest), threads=threads)
        self.top_k, self.batch_size, self.threads = top_k, batch_size, threads

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        items = [Item(row=None, name=str(name), path=Path(path)) for name, path in zip(batch["name"], batch["path"])]
        engine = self.engine
        for _ in predicted_chunks(
            [items], engine.preprocess_image, lambda arrays: engine.predict_arrays(arrays, top_k=self.top_k),
            workers=self.threads, batch_size=self.batch_size, prefetch=0, min_side=engine.preprocess.decode_side,
        ):
            pass  # one chunk: `items` now hold their predictions or errors
        k = max(1, min(self.top_k, len(engine.labels)))
        labels = np.full((len(items), k), "", dtype=object)
        probabilities = np.zeros((len(items), k), dtype=np.float64)
        for i, item in enumerate(items):
            for j, prediction in enumerate(item.predictions or ()):
                labels[i, j], probabilities[i, j] = prediction.label, prediction.probability
        return {
            "seq": batch["seq"],
            "error": np.array([item.error for item in items], dtype=object),
            "labels": labels.astype(str),
            "probabilities": probabilities,
        }



def model_file(model, digest: str) -> Path:
    """The model as a file on this node: written by the first actor that needs it, then shared
    by every actor of every window (ONNX Runtime and the metadata reader open files).

    `model` is the ObjectRef of the file's bytes. It arrives inside a list: Ray resolves only
    top-level arguments, so the actor gets the reference and fetches the bytes only when the
    node has no copy yet. A file already there is used only when its SHA-256 matches.
    """
    import ray

    folder = Path(tempfile.gettempdir()) / "foodtag-ray-models"
    folder.mkdir(mode=0o700, exist_ok=True)
    path = folder / f"{digest}.onnx"
    if path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == digest:
        os.utime(path)  # recently used: kept by prune_model_copies
        return path
    staged = folder / f"{digest}.{os.getpid()}.tmp"
    staged.write_bytes(ray.get(model))
    os.replace(staged, path)  # atomic: an actor starting meanwhile never reads half a file
    prune_model_copies(folder)
    return path


def prune_model_copies(folder: Path, keep: int = KEPT_MODEL_COPIES) -> None:
    """Delete all but the ``keep`` most recently used model copies in ``folder``, and staging
    files that a killed actor left behind, so a long-lived worker's disk does not fill up with
    one file per model it ever ran. A deleted copy that an actor still needs is written again."""
    copies = sorted(folder.glob("*.onnx"), key=_modified, reverse=True)
    stale_staging = [f for f in folder.glob("*.tmp") if time.time() - _modified(f) > STAGING_TIMEOUT_S]
    for path in copies[keep:] + stale_staging:
        path.unlink(missing_ok=True)  # another actor may have pruned it first


def _modified(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except FileNotFoundError:  # pruned by another actor meanwhile
        return 0.0


class RayEngine:
    """The driver's side: connects to Ray, streams chunks through actors, yields them in order."""

    def __init__(self, model: Path, *, address: str | None, actors: int | None, actor_cpus: int | None,
                 batch_size: int, top_k: int):
        ray = _ray()
        self.started = False
        if not ray.is_initialized():  # a caller (a test, a notebook) may have connected already
            self._connect(ray, address)
        from ray.data import ActorPoolStrategy, DataContext

        context = DataContext.get_current()
        context.execution_options.preserve_order = True
        context.enable_progress_bars = False  # the command line has its own bar
        logging.getLogger("ray.data").setLevel(logging.WARNING)
        cpus = int(ray.cluster_resources().get("CPU", 0))
        if actor_cpus is None:
            # Narrow actors: while one decodes, another runs its model, and a single-threaded
            # session wastes nothing on synchronisation (python -m benchmarks.bench_batch_engines:
            # on 2 cores, 2 actors x 1 CPU ran at least as fast as 1 actor x 2 CPUs).
            actor_cpus = DEFAULT_ACTOR_CPUS
        if actor_cpus > cpus:
            self.close()
            raise BatchInputError(f"--actor-cpus {actor_cpus}: the Ray cluster has only {cpus} CPUs")
        fit = cpus // actor_cpus
        actors = actors or fit
        self.actors, self.actor_cpus, self.batch_size = actors, actor_cpus, batch_size
        # Starts with the actors the cluster holds now; an autoscaling cluster may add nodes for more.
        self.compute = ActorPoolStrategy(min_size=min(actors, fit), max_size=actors)
        data = Path(model).read_bytes()
        self.model = ray.put(data)  # held for the whole run, so a restarted actor finds it too
        self.constructor = {
            "model": [self.model], "digest": hashlib.sha256(data).hexdigest(),
            "top_k": top_k, "batch_size": batch_size, "threads": actor_cpus,
        }
        self.window_chunks = max(WINDOW_ROWS, BATCHES_PER_ACTOR * actors * batch_size) // batch_size

    def _connect(self, ray, address: str | None) -> None:
        if address and address.startswith("ray://"):
            _check_reachable(address)
        options = {"logging_level": logging.WARNING, "log_to_driver": False}
        if address is None:
            options["include_dashboard"] = False  # a private instance on this machine
        try:
            ray.init(address=address, **options)
        except (ConnectionError, TimeoutError, RuntimeError, ValueError) as exc:
            where = f"the Ray cluster at {address}" if address else "a local Ray instance"
            raise BatchInputError(f"--engine ray: cannot connect to {where} ({type(exc).__name__}: {exc})") from None
        self.started = True

    def close(self) -> None:
        if self.started:
            _ray().shutdown()
            self.started = False

    def predicted(self, chunks: Iterable[list[Item]]) -> Iterator[list[Item]]:
        """Each chunk, in order, with `predictions` or `error` set on every decodable item."""
        chunks = iter(chunks)
        while window := list(islice(chunks, self.window_chunks)):
            yield from self._window(window)

    def _window(self, window: list[list[Item]]) -> Iterator[list[Item]]:
        import ray

        todo = [item for chunk in window for item in chunk if item.path is not None]
        if not todo:
            yield from window
            return
        dataset = ray.data.from_items(
            [{"seq": seq, "path": str(item.path), "name": item.name} for seq, item in enumerate(todo)]
        ).map_batches(
            PhotoPredictor, fn_constructor_kwargs=self.constructor, batch_size=self.batch_size,
            compute=self.compute, num_cpus=self.actor_cpus, batch_format="numpy",
        )
        # How many photos each chunk waits for; a chunk is yielded once they have all come back.
        waiting = deque((chunk, sum(item.path is not None for item in chunk)) for chunk in window)
        returned = released = 0  # photos back from Ray; photos of the chunks yielded so far
        for batch in dataset.iter_batches(batch_size=None, batch_format="numpy"):
            for seq, error, labels, probabilities in zip(batch["seq"], batch["error"], batch["labels"], batch["probabilities"]):
                if seq != returned:  # preserve_order is what keeps the output in input order
                    raise RuntimeError(f"Ray returned photo {seq} of the window where {returned} was due")
                _store(todo[seq], str(error), labels, probabilities)
                returned += 1
            while waiting and released + waiting[0][1] <= returned:
                chunk, needed = waiting.popleft()
                released += needed
                yield chunk
        if returned != len(todo):
            raise RuntimeError(f"Ray returned {returned} of the window's {len(todo)} photos")
        yield from (chunk for chunk, _ in waiting)  # chunks at the end whose rows all failed before decoding


def _check_reachable(address: str) -> None:
    """Fail in seconds when nothing listens at a ray:// address (Ray's client retries for 30 s)."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise BatchInputError(f"--address {address}: give ray://HOST:PORT (the head's Ray Client port, 10001 by default)")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as exc:
        raise BatchInputError(
            f"--address {address}: cannot reach {host}:{port} ({exc.strerror or exc}); is the Ray head "
            f"running there with its client server on that port (ray start --head --ray-client-server-port {port})?"
        ) from None


def _store(item: Item, error: str, labels: np.ndarray, probabilities: np.ndarray) -> None:
    from models.engine import Prediction

    if error:
        item.error = error
    else:
        item.predictions = [Prediction(str(label), float(p)) for label, p in zip(labels, probabilities)]

