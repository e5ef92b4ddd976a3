"""Decoded-image cache (the idea behind FFCV's dataset files): decode every photo once.

Each image is decoded, turned upright and RGB (models.images.load_image), and shrunk so its
shorter side is `size` (the student's eval resize size, a little above the training
resolution; a smaller photo, e.g. Food-101's 64 px copy, is stored as it is, so 75,709 of them
take 0.9 GB) with the longer side centre-cropped to at most 2 x size; the pixels go into one
memory-mapped uint8 array, one fixed slot per image, filled only as far as the image needs
(the rest of the file stays sparse). Random crops, flips and RandAugment then run on these
small arrays instead of multi-megapixel JPEGs.

    store = build_image_cache(dataset, "caches/", size=146, workers=2)
    dataset.store = store       # ImageDataset.load now reads the cache

The folder name is a fingerprint of the images (paths, sizes, content digests) and the
size, so an edited photo or a new resolution builds a new cache; a photo copied again with the
same content keeps it. Unreadable photos are skipped at build time exactly as at load time
(the next readable one takes the slot). The build runs in a pool of worker processes, each rank of a DDP run filling its share; a killed
build resumes from its per-image done flags.
"""

from __future__ import annotations

import multiprocessing

import numpy as np
from PIL import Image

from distill import dist
from distill.cache_files import CacheFolder, fingerprint, mark_done, source_identity
from distill.data import ImageDataset

CHUNK = 32  # images per done-flag flush
RESAMPLE = Image.Resampling.BICUBIC
MAX_ASPECT = 2
# The stored arrays' layout: bump it whenever they change shape or meaning, so a folder written by
# an older version gets a new name and is never read with the new layout.
LAYOUT = 3  # 2: shapes rows hold (height, width, label, skipped); 3: photos smaller than the size kept as they are


def shrink(image: Image.Image, size: int) -> Image.Image:
    """Shorter side -> size (never enlarged: a smaller photo is kept as it is, since the training
    crop resizes it anyway), longer side centre-cropped to at most MAX_ASPECT x size."""
    w, h = image.size
    if min(w, h) > size:
        scale = size / min(w, h)
        w, h = max(size, round(w * scale)), max(size, round(h * scale))
        image = image.resize((w, h), RESAMPLE, reducing_gap=3.0)
    short = min(w, h)
    crop_w, crop_h = min(w, MAX_ASPECT * short), min(h, MAX_ASPECT * short)
    left, top = (w - crop_w) // 2, (h - crop_h) // 2
    return image.crop((left, top, left + crop_w, top + crop_h)) if (crop_w, crop_h) != (w, h) else image


class ImageStore:
    """A complete cache: load(index) -> (PIL image, label, images skipped), from the memory maps."""

    def __init__(self, folder: CacheFolder):
        self.folder, self.path, self.key = folder, folder.path, folder.manifest["key"]
        self._arrays = None

    def __getstate__(self) -> dict:  # DataLoader workers re-open the maps
        return {**self.__dict__, "_arrays": None}

    def load(self, index: int) -> tuple[Image.Image, int, int]:
        if self._arrays is None:
            self._arrays = self.folder.array("pixels"), self.folder.array("shapes")
        pixels, shapes = self._arrays
        h, w, label, skipped = (int(v) for v in shapes[index])
        return Image.fromarray(np.array(pixels[index, : h * w * 3]).reshape(h, w, 3), "RGB"), label, skipped


def image_cache_folder(dataset: ImageDataset, root: str, size: int) -> CacheFolder:
    inputs = {"images": fingerprint(source_identity(dataset.source, root)), "size": size, "resample": RESAMPLE.name,
              "max_aspect": MAX_ASPECT, "source": dataset.source.description, "layout": LAYOUT}
    return CacheFolder(root, "images", fingerprint(inputs), inputs)


def build_image_cache(dataset: ImageDataset, root: str, size: int, workers: int = 0, log=print) -> ImageStore:
    """Open the cache of dataset's images at this size, building (or finishing) it first.

    Collective under DDP: call it on every rank; each fills its share with `workers` processes.
    """
    folder = image_cache_folder(dataset, root, size)
    if not folder.complete:
        n = len(dataset)
        folder.create({"pixels": ((n, size * MAX_ASPECT * size * 3), "uint8"), "shapes": ((n, 4), "int32")}, n)
        env = dist.env()
        pending = folder.pending(range(env.rank, n, env.world_size))
        if pending:
            log(f"decoded-image cache: decoding {len(pending)} of {n} images at {size}px ({folder.path})")
            chunks = [pending[i:i + CHUNK] for i in range(0, len(pending), CHUNK)]
            if workers > 0:
                # fork: the workers inherit the dataset instead of unpickling it
                with multiprocessing.get_context("fork").Pool(workers, _init_worker, (dataset, folder, size)) as pool:
                    for _ in pool.imap_unordered(_fill_chunk, chunks):
                        pass
            else:
                _init_worker(dataset, folder, size)
                for chunk in chunks:
                    _fill_chunk(chunk)
        folder.finish()
    return ImageStore(folder)


_job: dict = {}


def _init_worker(dataset: ImageDataset, folder: CacheFolder, size: int) -> None:
    _job.update(dataset=dataset, folder=folder, size=size)


def _fill_chunk(indices: list[int]) -> None:
    dataset, folder, size = _job["dataset"], _job["folder"], _job["size"]
    pixels, shapes = folder.array("pixels", writable=True), folder.array("shapes", writable=True)
    for index in indices:
        image, label, skipped = dataset.decode(index)
        array = np.asarray(shrink(image, size), dtype=np.uint8)
        h, w = array.shape[:2]
        pixels[index, : h * w * 3] = array.reshape(-1)
        shapes[index] = (h, w, label, skipped)
    mark_done(folder, [pixels, shapes], indices)
