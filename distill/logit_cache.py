"""Teacher-logit cache: run the teacher once, on K augmented views per image, and replay them.

The idea of FKD / ReLabel, kept consistent with the student's input as Beyer et al.
("Knowledge distillation: a good teacher is patient and consistent") require: each stored
view carries its parameters (relative crop box, flip, seed of RandAugment and random
erasing), so the student trains on the view the teacher saw, and the training step skips
the teacher. Where the teacher's resolution is above the student's (and it resizes), each
view is rendered for the teacher at the teacher's own size from the stored photo: the same
crop, flip and RandAugment, only sharper than the student's crop upsampled (which costs a CNN
teacher points of accuracy: docs/experiments.md). Random erasing
then draws its own rectangle at that size; whether a view is erased, and how much of it,
stays the same. A live teacher gets the same renderings (distill.data.teacher_view_size and
TeacherViews), so cached and live training distil the same teacher.

    cache = build_logit_cache(teacher, dataset, "caches/", views=8, topk=10)
    train_set = ReplayDataset(dataset, cache)   # items: (image, label, skipped, teacher logits)

Per image and view it stores the top-k logits and their class indices, plus the
log-sum-exp of the other logits: `LogitCache.logits` spreads that mass evenly over the
other classes, so the softmax at T=1 keeps the exact top-k probabilities (exact logits when
k >= classes). At epoch e an image replays view (e + offset_i) mod K, so K epochs use every
view once. With `pixels=True` it also stores each view's student rendering (crop, flip and
RandAugment as uint8, K x N x size^2 x 3 bytes), so replay reads it instead of decoding,
cropping and augmenting again: a batch is one gather from the memory map and one normalisation,
then random erasing from each view's seed, exactly the tensors a fresh rendering gives; cheap
enough that training on a CPU loads it in its own process (Trainer.train_workers). The folder name is a
fingerprint of the teacher's weights and name, the images (paths, sizes, contents; the
decoded-image cache if one is used), the transform, the seed, K, k, the precision and whether
renderings are stored: change any and a new cache is built. Building is resumable (per-image
done flags) and distributed: each rank fills its shard of the images.

Unlabelled photos (--unlabelled-data, label data.UNLABELLED) are cached like the labelled ones
they train beside: the teacher's logits on each stored view are their only target, on exactly
the view the student replays (Beyer et al.'s consistent teaching; noisy student, Xie et al.
2020). Their labels are part of the images' fingerprint, and the manifest counts them.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

from distill import dist, precision as amp
from distill.cache_files import CacheFolder, fingerprint, mark_done, source_identity
from distill.data import UNLABELLED, ExtendedDataset, ImageDataset, View, ViewTransform, sample_seed, teacher_view_size
from distill.errors import DistillError

# The stored arrays' layout: bump it whenever they change shape or meaning (see image_cache.LAYOUT).
# 2: random erasing draws from its own seed (data.ViewTransform.finish_view), so views render anew.
LAYOUT = 2
VIEW_STREAM = 2**31  # view seeds use "epochs" from here on, apart from live training's epochs


class LogitCache:
    """A complete cache, read through memory maps (opened lazily in each DataLoader worker)."""

    def __init__(self, folder: CacheFolder):
        self.folder, self.path = folder, folder.path
        m = folder.manifest
        self.views, self.topk, self.num_classes = m["views"], m["topk"], m["num_classes"]
        self.pixels = bool(m.get("pixels"))
        self._arrays: dict | None = None

    def __getstate__(self) -> dict:  # workers re-open the maps instead of pickling them
        return {**self.__dict__, "_arrays": None}

    def _array(self, name: str) -> np.ndarray:
        if self._arrays is None:
            self._arrays = {n: self.folder.array(n) for n in array_specs(self.folder.manifest)}
        return self._arrays[name]

    def choose(self, seed: int, epoch: int, index: int) -> int:
        return (epoch + sample_seed(seed, VIEW_STREAM - 1, index)) % self.views

    def views_at(self, indices: np.ndarray, ks: np.ndarray) -> list[View]:
        return [View.from_row(row) for row in self._array("view_params")[indices, ks].tolist()]

    def rendered(self, indices: np.ndarray, ks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The stored student renderings of views ks of images indices (B x H x W x 3 uint8), their
        labels and skipped counts: one gather from the memory maps."""
        return self._array("pixels")[indices, ks], self._array("labels")[indices], self._array("skipped")[indices]

    def logits(self, indices: np.ndarray, ks: np.ndarray) -> torch.Tensor:
        """Full logits (B x classes) of views ks of images indices, rebuilt from the top-k (see the module doc)."""
        others = self.num_classes - self.topk
        rest = torch.from_numpy(self._array("rest")[indices, ks].astype(np.float32))
        out = (rest - math.log(others) if others else torch.zeros_like(rest))[:, None].repeat(1, self.num_classes)
        top_index = torch.from_numpy(self._array("top_index")[indices, ks].astype(np.int64))
        return out.scatter_(1, top_index, torch.from_numpy(self._array("top_values")[indices, ks].astype(np.float32)))


class ReplayDataset(ExtendedDataset):
    """The training dataset with the cache's views and teacher logits: (image, label, skipped, logits)."""

    def __init__(self, base: ImageDataset, cache: LogitCache):
        super().__init__(base)
        self.cache = cache

    def __getitem__(self, index: int):
        return self.__getitems__([index])[0]

    def __getitems__(self, indices: list[int]) -> list[tuple]:
        """A batch's samples (the DataLoader calls this instead of __getitem__ per index). With stored
        renderings the batch is read, converted and normalised at once: a few milliseconds, cheap
        enough to load in the training process itself (see Trainer.train_workers)."""
        ks = np.array([self.cache.choose(self.base.seed, self.base.epoch, i) for i in indices])
        indices = np.array(indices)
        views, logits, transform = self.cache.views_at(indices, ks), self.cache.logits(indices, ks), self.base.transform
        if self.cache.pixels:  # nothing to decode or render: only normalise and erase
            rendered, labels, skipped = self.cache.rendered(indices, ks)
            return list(zip(transform.finish_views(rendered, views), labels.tolist(), skipped.tolist(), logits))
        batch = []
        for index, view, row in zip(indices.tolist(), views, logits):
            image, label, skipped = self.base.load(index)
            pixels = transform.apply(image, view) if isinstance(transform, ViewTransform) else transform(image)
            batch.append((pixels, label, skipped, row))
        return batch


class _AllViews(Dataset):
    """For the build: image index -> (index, its K view tensors for the teacher at render_size, their
    View rows, label, skipped, and with pixels the K student renderings as uint8 (else an empty array))."""

    def __init__(self, base: ImageDataset, indices: list[int], views: int, render_size: int | None, pixels: bool):
        self.base, self.indices, self.views, self.render_size, self.pixels = base, indices, views, render_size, pixels

    def __len__(self) -> int:
        return len(self.indices)

    def __getitem__(self, position: int):
        index = self.indices[position]
        image, label, skipped = self.base.load(index)
        transform = self.base.transform
        if not isinstance(transform, ViewTransform):  # no augmentation: the one eval view
            return index, transform(image)[None], torch.zeros(1, 6, dtype=torch.float64), label, skipped, np.zeros(0, np.uint8)
        views = [transform.sample(image, sample_seed(self.base.seed, VIEW_STREAM + k, index)) for k in range(self.views)]
        student = [transform.render(image, v) for v in views]
        if self.render_size is None:  # the teacher takes the student's rendering
            teacher = [transform.finish_view(r, v) for r, v in zip(student, views)]
        else:
            teacher = [transform.apply(image, v, self.render_size) for v in views]
        stored = np.stack([np.asarray(r) for r in student]) if self.pixels else np.zeros(0, np.uint8)
        return (index, torch.stack(teacher), torch.tensor([v.to_row() for v in views], dtype=torch.float64),
                label, skipped, stored)


def _teacher_identity(teacher) -> str:
    """Hash of the teacher's weights and how it adapts the student's batch."""
    tensors = [t.detach().cpu().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()
               for t in teacher.state_dict().values()]
    return fingerprint(teacher.name, str(teacher.size), teacher.mode, teacher.renormalise,
                       [float(v) for v in teacher.scale.flatten()] + [float(v) for v in teacher.shift.flatten()],
                       None if teacher.order is None else teacher.order.tolist(), *tensors)


def logit_cache_folder(teacher, dataset: ImageDataset, root: str, *, views: int, topk: int, precision: str,
                       num_classes: int, pixels: bool = False) -> CacheFolder:
    """Where the cache for these inputs lives (whether or not it is built yet). Stored renderings
    (pixels) exist for augmented views only: without augmentation the image cache covers it."""
    transform = dataset.transform
    augmented = isinstance(transform, ViewTransform)
    views = views if augmented else 1
    inputs = {
        "render_size": teacher_view_size(teacher, transform), "pixels": transform.size if pixels and augmented else None,
        "teacher": teacher.name, "teacher_weights": _teacher_identity(teacher),
        "images": fingerprint(source_identity(dataset.source, root)), "image_store": getattr(dataset.store, "key", None),
        "transform": transform.description if augmented else "eval " + str(transform.preprocess.to_dict()),
        "seed": dataset.seed, "views": views, "topk": topk, "precision": precision, "layout": LAYOUT,
    }
    # The images' labels are in their fingerprint; the count without one says what the cache is for.
    unlabelled = sum(label == UNLABELLED for _, label in dataset.source.items)
    return CacheFolder(root, "logits", fingerprint(inputs), {**inputs, "num_classes": num_classes, "size": len(dataset),
                                                             "unlabelled": unlabelled})


def array_specs(manifest: dict) -> dict[str, tuple[tuple, str]]:
    """The cache's arrays: name -> (shape, dtype)."""
    size, views, topk = manifest["size"], manifest["views"], manifest["topk"]
    specs = {"view_params": ((size, views, 6), "float64"), "top_values": ((size, views, topk), "float32"),
             "top_index": ((size, views, topk), "int16"), "rest": ((size, views), "float32")}
    if manifest.get("pixels"):
        side = manifest["pixels"]
        specs.update(pixels=((size, views, side, side, 3), "uint8"), labels=((size,), "int64"), skipped=((size,), "int32"))
    return specs


def build_logit_cache(teacher, dataset: ImageDataset, root: str, *, views: int = 8, topk: int = 10,
                      pixels: bool = False, batch_size: int = 64, num_workers: int = 0, precision: str = "fp32",
                      device: torch.device = torch.device("cpu"), log=print) -> LogitCache:
    """Open the cache for (teacher, dataset, its transform), building or finishing it first.

    teacher: a FrozenTeacher (on device); dataset: the training ImageDataset (ViewTransform
    for augmented views, else one eval view per image); pixels: also store the student's
    renderings (see the module doc). Collective under DDP: call it on every rank. A build
    killed part-way resumes from its done flags.
    """
    if views < 1 or topk < 1:
        raise DistillError(f"logit cache: views and topk must be >= 1, got {views} and {topk}")
    num_classes = len(dataset.source.classes) if dataset.source.classes else len(teacher.model.preprocess.labels)
    topk = min(topk, num_classes)
    folder = logit_cache_folder(teacher, dataset, root, views=views, topk=topk, precision=precision,
                                num_classes=num_classes, pixels=pixels)
    views, size = folder.manifest["views"], len(dataset)
    if not folder.complete:
        specs = array_specs(folder.manifest)
        folder.create(specs, size)
        env = dist.env()
        pending = folder.pending(range(env.rank, size, env.world_size))
        if pending:
            stored = folder.manifest["pixels"]
            unlabelled = folder.manifest["unlabelled"]
            log(f"teacher-logit cache: {len(pending)} of {size} images"
                + (f" ({unlabelled} of them unlabelled)" if unlabelled else "") + f" x {views} views to compute ({folder.path})"
                + (f"; storing the {stored} px renderings ({np.prod(specs['pixels'][0]) / 2**30:.2f} GiB)" if stored else ""))
            todo = _AllViews(dataset, pending, views, teacher_view_size(teacher, dataset.transform), bool(stored))
            _fill(folder, teacher, todo, topk, max(1, batch_size // views), num_workers, precision, device)
        folder.finish()
    return LogitCache(folder)


def _fill(folder: CacheFolder, teacher, todo: _AllViews, topk: int, images_per_batch: int, num_workers: int,
          precision: str, device: torch.device) -> None:
    arrays = {name: folder.array(name, writable=True) for name in array_specs(folder.manifest)}
    loader = DataLoader(todo, batch_size=images_per_batch, num_workers=num_workers,
                        generator=torch.Generator().manual_seed(0))
    for indices, pixels, rows, labels, skipped, rendered in loader:
        count, views = pixels.shape[:2]
        with amp.autocast(precision, device):
            logits = teacher(pixels.flatten(0, 1).to(device)).float().cpu()
        values, classes = logits.topk(topk, dim=1)
        others = logits.scatter(1, classes, float("-inf"))
        idx = indices.numpy()
        arrays["view_params"][idx] = rows.numpy()
        arrays["top_values"][idx] = values.view(count, views, topk).numpy()
        arrays["top_index"][idx] = classes.view(count, views, topk).numpy().astype(np.int16)
        arrays["rest"][idx] = others.logsumexp(dim=1).view(count, views).numpy()
        if "pixels" in arrays:
            arrays["pixels"][idx] = rendered.numpy()
            arrays["labels"][idx], arrays["skipped"][idx] = labels.numpy(), skipped.numpy()
        mark_done(folder, list(arrays.values()), idx.tolist())
