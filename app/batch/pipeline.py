"""Decoding photos in a thread pool while the model runs, chunk by chunk, in input order.

Both engines run this code: the local engine over the whole file, each Ray actor
(app.batch.rayengine) over the batches Ray Data hands it.

Rows arrive in chunks of --batch-size. For each chunk a pool of threads opens, decodes and
preprocesses its photos (PIL and NumPy release the GIL for the heavy parts); the main
thread then stacks the arrays and runs one `predict_arrays` call (ONNX Runtime releases
the GIL too), always on a full batch (see `predicted_chunks`). Up to `prefetch` later
chunks are decoding while a chunk is in the model, so neither side waits for the other, and
at most (prefetch + 1) chunks of arrays are alive: memory does not grow with the file.

Chunks are fixed slices of the input (rows k*B .. k*B+B-1), never "whatever finished
first", so a chunk's batch is the same on every run: results do not depend on thread
timing, and a resumed run reproduces an uninterrupted one.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

from app.batch.csvfile import InputRow
from app.batch.errors import RowError
from app.batch.rows import RowRequest
from models.engine import Prediction
from models.errors import ImageError
from models.images import load_image


@dataclass
class Item:
    """A row on its way through the pipeline."""

    row: InputRow | None  # None inside a Ray actor, which is sent only the photo
    write: bool = True  # False: already in the output (a resumed chunk's first rows)
    request: RowRequest | None = None
    name: str = ""  # the image cell as written: error messages name it, not a real path
    path: Path | None = None  # None: the row failed before decoding
    error: str = ""
    predictions: list[Prediction] | None = None


def decode(path: Path, name: str, preprocess: Callable[[Image.Image], np.ndarray],
           min_side: int | None = None) -> np.ndarray:
    """One photo as the model's input array; every failure is a RowError naming the cell.
    `min_side`: the preprocessing's resize size, so large photos are decoded small."""
    try:
        if not path.exists():
            raise RowError(f"{name}: file not found")
        if not path.is_file():
            # Also keeps FIFOs and devices out: opening one could block the batch forever.
            raise RowError(f"{name}: not a regular file")
        with open(path, "rb"):
            pass  # a permission problem reads better than PIL's "corrupt image"
        return preprocess(load_image(path, name=name, min_side=min_side))
    except (RowError, ImageError) as exc:
        raise RowError(str(exc)) from None
    except PermissionError:
        raise RowError(f"{name}: permission denied") from None
    except Exception as exc:  # one odd file must never stop a 100,000-row run
        raise RowError(f"{name}: cannot read the image ({type(exc).__name__}: {exc})") from None


def predicted_chunks(
    chunks: Iterable[list[Item]],
    preprocess: Callable[[Image.Image], np.ndarray],
    predict: Callable[[np.ndarray], list[list[Prediction]]],
    *,
    workers: int,
    batch_size: int,
    prefetch: int = 2,
    min_side: int | None = None,
) -> Iterator[list[Item]]:
    """Yield each chunk, in order, with `predictions` or `error` set on every decodable item.

    Every model call gets exactly `batch_size` rows: a chunk cut short by failed rows (or
    the last chunk) is padded with zeros. ONNX Runtime's memory arena keeps growing for
    each new input shape; one shape keeps memory flat over a 100,000-row run.
    """
    chunks = iter(chunks)
    pending: deque[tuple[list[Item], list[Future | None]]] = deque()
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="batch-decode")

    def fill() -> None:
        while len(pending) <= prefetch:
            chunk = next(chunks, None)
            if chunk is None:
                return
            futures = [
                pool.submit(decode, item.path, item.name, preprocess, min_side) if item.path is not None else None
                for item in chunk
            ]
            pending.append((chunk, futures))

    try:
        fill()
        while pending:
            chunk, futures = pending.popleft()
            arrays, decoded = [], []
            for item, future in zip(chunk, futures):
                if future is None:
                    continue
                try:
                    arrays.append(future.result())
                    decoded.append(item)
                except RowError as exc:
                    item.error = str(exc)
            fill()  # queue the next chunk's decoding before the model runs this one
            if arrays:
                batch = np.zeros((max(batch_size, len(arrays)), *arrays[0].shape), dtype=np.float32)
                batch[: len(arrays)] = arrays
                for item, predictions in zip(decoded, predict(batch)):  # zip drops the padding
                    item.predictions = predictions
            yield chunk
    finally:
        # An interrupted run should stop promptly, not finish decoding queued chunks.
        pool.shutdown(wait=True, cancel_futures=True)
