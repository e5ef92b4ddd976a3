"""Data: sources (ImageFolder, Food-101, CSV, unlabelled folder, synthetic), transforms, samplers.

Reproducibility: every sample is transformed under an RNG seeded from (seed, epoch, index),
and the sampler is a pure function of (seed, epoch, position). So augmentation does not
depend on worker count, process count or where a resumed run restarted, and the global
RNG (dropout) is untouched by data loading.

Corrupt images (empty, truncated, not an image, missing from a manifest) are skipped with a
warning on stderr and counted: the next image of the list takes the slot, so batch shapes
and the step count stay fixed, and the count is reported as `skipped_images` in the
metrics. A source where no image can be read is an error.
"""

from __future__ import annotations

import contextlib
import csv
import os
import random
import sys
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import torch
from PIL import Image
from torch.utils.data import DataLoader, Dataset, Sampler

from distill.errors import DistillError
from models.errors import ImageError
from models.images import load_image
from models.preprocess import PreprocessConfig

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")
VAL_FOLDERS = ("val", "valid", "validation", "test")
UNLABELLED = -1  # the label of a photo without one: the losses skip it in the cross-entropy


@dataclass
class Source:
    """What a data spec resolved to: image paths with labels (-1 = unlabelled), or synthetic."""

    description: str
    classes: list[str] | None  # None: unlabelled photos
    items: list[tuple[str, int]]
    synthetic: tuple[int, int, int] | None = None  # (classes, images, split seed)

    def __len__(self) -> int:
        return self.synthetic[1] if self.synthetic else len(self.items)


# --- finding the images -----------------------------------------------------------------------


def open_source(spec: str, split: str, synthetic_classes: int = 4, synthetic_images: int = 256) -> Source | None:
    """Resolve a --data/--val-data spec. split "val" of a training spec finds its val part."""
    if spec == "synthetic":
        count = synthetic_images if split == "train" else max(synthetic_images // 4, synthetic_classes)
        classes = [f"class_{i}" for i in range(synthetic_classes)]
        return Source(f"synthetic {split} ({count} images)", classes, [],
                      (synthetic_classes, count, 0 if split == "train" else 1))
    path = Path(spec).expanduser()
    if not path.exists():
        raise DistillError(f"data: {path} does not exist")
    if path.is_file():
        if path.suffix.lower() != ".csv":
            raise DistillError(f"data: {path} is a file but not a .csv manifest")
        return _csv_source(path)
    if (path / "meta" / "classes.txt").is_file() and (path / "images").is_dir():
        return _food101_source(path, "train" if split == "train" else "test")
    if (path / "train").is_dir():
        if split == "train":
            return _folder_source(path / "train")
        for name in VAL_FOLDERS:
            if (path / name).is_dir():
                return _folder_source(path / name)
        return None
    return _folder_source(path)


def has_val_split(spec: str) -> bool:
    """Whether a training spec carries its own validation part (used when --val-data is empty)."""
    if spec == "synthetic":
        return True
    path = Path(spec).expanduser()
    if (path / "meta" / "classes.txt").is_file() and (path / "images").is_dir():
        return (path / "meta" / "test.txt").is_file()
    return (path / "train").is_dir() and any((path / name).is_dir() for name in VAL_FOLDERS)


def _is_image(path: Path) -> bool:
    return path.suffix.lower() in IMG_EXTENSIONS and not path.name.startswith(".")


def _folder_source(root: Path) -> Source:
    """ImageFolder layout (root/<class>/**/img), else a flat folder of unlabelled photos."""
    class_dirs = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    if class_dirs:
        classes = [p.name for p in class_dirs]
        items = []
        for label, class_dir in enumerate(class_dirs):
            files = sorted(str(p) for p in class_dir.rglob("*") if p.is_file() and _is_image(p))
            if not files:
                raise DistillError(f"data: class folder {class_dir} has no images "
                                   f"({', '.join(IMG_EXTENSIONS)}); remove it or add images")
            items += [(f, label) for f in files]
        return Source(f"ImageFolder {root} ({len(items)} images, {len(classes)} classes)", classes, items)
    files = sorted(str(p) for p in root.iterdir() if p.is_file() and _is_image(p))
    if not files:
        raise DistillError(f"data: no images found in {root} (expected class folders or photos "
                           f"with extensions {', '.join(IMG_EXTENSIONS)})")
    return Source(f"unlabelled photos {root} ({len(files)} images)", None, [(f, UNLABELLED) for f in files])


def _food101_source(root: Path, split: str) -> Source:
    classes = [line.strip() for line in (root / "meta" / "classes.txt").read_text().splitlines() if line.strip()]
    split_file = root / "meta" / f"{split}.txt"
    if not split_file.is_file():
        raise DistillError(f"data: Food-101 split file {split_file} is missing")
    index = {name: i for i, name in enumerate(classes)}
    items = []
    for n, line in enumerate(split_file.read_text().splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        name = line.split("/")[0]
        if name not in index:
            raise DistillError(f"data: {split_file}:{n}: class {name!r} is not in meta/classes.txt")
        items.append((str(root / "images" / f"{line}.jpg"), index[name]))
    if not items:
        raise DistillError(f"data: {split_file} lists no images")
    return Source(f"Food-101 {root} {split} split ({len(items)} images, {len(classes)} classes)", classes, items)


def _csv_source(path: Path) -> Source:
    with open(path, newline="", encoding="utf-8-sig") as f:
        reader = csv.DictReader(f)
        if not reader.fieldnames or "path" not in reader.fieldnames:
            raise DistillError(f"data: {path} needs a header row with a 'path' column (and 'label')")
        rows = [(row["path"] or "", (row.get("label") or "").strip()) for row in reader]
    rows = [(p, label) for p, label in rows if p.strip()]
    if not rows:
        raise DistillError(f"data: {path} lists no images")
    labelled = [label != "" for _, label in rows]
    if any(labelled) and not all(labelled):
        raise DistillError(f"data: {path} mixes labelled and unlabelled rows; label all or none")
    resolve = lambda p: str(Path(p) if Path(p).is_absolute() else path.parent / p)  # noqa: E731
    if not all(labelled):
        return Source(f"CSV {path} ({len(rows)} unlabelled images)", None, [(resolve(p), UNLABELLED) for p, _ in rows])
    classes = sorted({label for _, label in rows})
    index = {name: i for i, name in enumerate(classes)}
    items = [(resolve(p), index[label]) for p, label in rows]
    return Source(f"CSV {path} ({len(items)} images, {len(classes)} classes)", classes, items)


def open_unlabelled(spec: str) -> Source:
    """--unlabelled-data: a flat folder of photos or a CSV manifest without labels. A folder of class
    folders is refused rather than its labels dropped: labelled photos belong in --data."""
    if spec == "synthetic":
        raise DistillError("data: unlabelled photos are files: pass a folder of photos (not 'synthetic')")
    path = Path(spec).expanduser()
    if path.is_dir():
        try:
            next(path.iterdir(), None)
        except OSError as exc:
            raise DistillError(f"data: cannot read the unlabelled photos' folder {path}: {exc.strerror}") from None
    source = open_source(spec, "train")
    if source.classes is not None:
        raise DistillError(f"data: {source.description} has labels; unlabelled photos go in one flat folder "
                           "(labelled ones in --data)")
    return source


def with_unlabelled(labelled: Source, unlabelled: Source) -> Source:
    """One training source: the labelled photos, then the unlabelled ones (label UNLABELLED), so one
    sampler, one image cache and one teacher-logit cache cover both."""
    if labelled.synthetic or labelled.classes is None:
        raise DistillError(f"data: unlabelled photos are trained beside labelled photos; {labelled.description} "
                           "is " + ("synthetic" if labelled.synthetic else "unlabelled itself"))
    return Source(f"{labelled.description} + {unlabelled.description}", labelled.classes,
                  labelled.items + unlabelled.items)


def repeated(source: Source, times: int) -> Source:
    """The photos `times` over: each copy is a sample of its own (its own augmentation seed)."""
    if times == 1:
        return source
    if source.synthetic:
        raise DistillError("data: --repeats passes over photos again; the synthetic source draws new ones instead "
                           "(raise --synthetic-images)")
    return Source(f"{source.description}, {times} passes per epoch", source.classes, source.items * times)


def check_training_source(source: Source) -> None:
    if source.classes is not None and len(source.classes) < 2:
        raise DistillError(f"data: {source.description} has only one class "
                           f"({source.classes[0]!r}); classification needs at least 2")


def remap(source: Source, classes: list[str], what: str) -> Source:
    """Express a source's labels in the model's class order (val folders may list fewer)."""
    if source.classes is None or source.classes == classes:
        return source
    index = {name: i for i, name in enumerate(classes)}
    unknown = [c for c in source.classes if c not in index]
    if unknown:
        raise DistillError(f"data: {what} has classes the model does not know: "
                           f"{', '.join(unknown[:5])}{' ...' if len(unknown) > 5 else ''}")
    if source.synthetic:
        return source
    items = [(p, index[source.classes[label]]) for p, label in source.items]
    return Source(source.description, list(classes), items)


# --- datasets -----------------------------------------------------------------------------------


def reseed(seed: int) -> None:
    """Seed the RNGs transforms draw from: Python's, NumPy's and torch's CPU generator (CUDA streams
    are not ours to reseed). Inside `seeded`, so the caller's states come back afterwards."""
    torch.default_generator.manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed)


@contextlib.contextmanager
def seeded(seed: int):
    """Run a transform under its own RNG seed, leaving the global RNG states as they were."""
    py_state, np_state = random.getstate(), np.random.get_state()
    with torch.random.fork_rng(devices=[]):
        reseed(seed)
        try:
            yield
        finally:
            random.setstate(py_state)
            np.random.set_state(np_state)


FINISH_STREAM = 1  # a view's random erasing draws from sample_seed(view.seed, FINISH_STREAM, 0)


def sample_seed(seed: int, epoch: int, index: int) -> int:
    return int(np.random.SeedSequence([seed, epoch, index]).generate_state(1)[0])


class ImageDataset(Dataset):
    """(image tensor, label, skipped) per index; `skipped` counts unreadable files replaced."""

    def __init__(self, source: Source, transform, seed: int = 0):
        self.source, self.transform, self.seed, self.epoch = source, transform, seed, 0
        self.store = None  # an image_cache.ImageStore: decoded images instead of the files
        self._warned: set[str] = set()

    def __len__(self) -> int:
        return len(self.source)

    def load(self, index: int) -> tuple[Image.Image, int, int]:
        """The image at index (or the next readable one), its label and how many were skipped."""
        if self.store is not None:
            return self.store.load(index)
        return self.decode(index)

    def decode(self, index: int) -> tuple[Image.Image, int, int]:
        items = self.source.items
        for offset in range(len(items)):
            path, label = items[(index + offset) % len(items)]
            try:
                return load_image(path), label, offset
            except ImageError as exc:
                if path not in self._warned:
                    self._warned.add(path)
                    print(f"warning: skipping unreadable image: {exc}", file=sys.stderr, flush=True)
        raise DistillError(f"data: not one image of {self.source.description} can be read")

    def __getitem__(self, index: int):
        image, label, skipped = self.load(index)
        if isinstance(self.transform, ViewTransform):
            return self.transform.apply(image, self.view(image, index)), label, skipped
        with seeded(sample_seed(self.seed, self.epoch, index)):
            return self.transform(image), label, skipped

    def view(self, image: Image.Image, index: int) -> View:
        """This epoch's augmented view of image `index` (a ViewTransform's crop box, flip and seed)."""
        return self.transform.sample(image, sample_seed(self.seed, self.epoch, index))


class ExtendedDataset(Dataset):
    """A training ImageDataset whose items carry a 4th element for the teacher (see its subclasses);
    the epoch that seeds augmentation is the base's."""

    def __init__(self, base: ImageDataset):
        self.base = base

    @property
    def epoch(self) -> int:
        return self.base.epoch

    @epoch.setter
    def epoch(self, value: int) -> None:
        self.base.epoch = value

    def __len__(self) -> int:
        return len(self.base)


class SyntheticDataset(ImageDataset):
    """Labelled images whose class sets the colour, stripe angle and stripe frequency.

    Noise and a random phase make every image different; the class stays easy to learn.
    """

    SIZE = 64

    def decode(self, index: int) -> tuple[Image.Image, int, int]:
        num_classes, _, split_seed = self.source.synthetic
        label = index % num_classes
        rng = np.random.default_rng([self.seed, split_seed, index])
        yy, xx = np.mgrid[0:self.SIZE, 0:self.SIZE] / self.SIZE
        angle = np.pi * label / num_classes
        frequency = 3 + 2 * (label % 3)
        stripes = np.sin(2 * np.pi * frequency * (xx * np.cos(angle) + yy * np.sin(angle)) + rng.uniform(0, 2 * np.pi))
        hue = np.array([np.cos(2 * np.pi * (label / num_classes + k / 3)) for k in range(3)]) * 0.35 + 0.5
        image = hue * (0.65 + 0.35 * stripes[..., None]) + rng.normal(0, 0.08, (self.SIZE, self.SIZE, 3))
        return Image.fromarray((np.clip(image, 0, 1) * 255).astype(np.uint8), "RGB"), label, 0


def make_dataset(source: Source, transform, seed: int) -> ImageDataset:
    return (SyntheticDataset if source.synthetic else ImageDataset)(source, transform, seed)


# --- transforms -------------------------------------------------------------------------------------


class EvalTransform:
    """The model's own preprocessing (PreprocessConfig.apply), as a picklable callable."""

    def __init__(self, preprocess: PreprocessConfig):
        self.preprocess = preprocess

    def __call__(self, image: Image.Image) -> torch.Tensor:
        return torch.from_numpy(self.preprocess.apply(image))


class EvalViews:
    """Validation with a teacher of another input size: each photo through the student's own
    preprocessing, and through the same preprocessing at the teacher's size. So the agreement
    figure compares the teacher on a view as sharp as it was trained for, not on the student's
    pixels resized (as training's TeacherViews and the teacher-logit cache render it)."""

    def __init__(self, preprocess: PreprocessConfig, teacher_size: int):
        self.student = EvalTransform(preprocess)
        self.teacher = EvalTransform(replace(preprocess, input_size=teacher_size))

    def __call__(self, image: Image.Image) -> tuple[torch.Tensor, torch.Tensor]:
        return self.student(image), self.teacher(image)


def eval_transform(preprocess: PreprocessConfig, teacher=None):
    """The validation transform: the student's preprocessing, and with a teacher that resizes to
    its own input size (FrozenTeacher.size), that rendering too (EvalViews)."""
    if teacher is not None and teacher.size is not None:
        return EvalViews(preprocess, teacher.size)
    return EvalTransform(preprocess)


def train_transform(preprocess: PreprocessConfig, augment: bool, rand_augment: str, scale_min: float, re_prob: float):
    """timm's training pipeline (RandomResizedCrop, flip, RandAugment, normalise, random erasing) as
    a ViewTransform; the eval transform when augment is off."""
    if not augment:
        return EvalTransform(preprocess)
    return ViewTransform(preprocess, rand_augment, scale_min, re_prob)


@dataclass(frozen=True)
class View:
    """One augmented view of an image: what the teacher-logit cache stores to replay it.

    The crop box is relative to the image (so it replays on a decoded-image cache's smaller
    copy too); `seed` drives everything after the crop and flip (RandAugment, random erasing).
    """

    top: float
    left: float
    height: float
    width: float
    flip: bool
    seed: int

    def to_row(self) -> list[float]:
        return [self.top, self.left, self.height, self.width, float(self.flip), float(self.seed)]

    @classmethod
    def from_row(cls, row) -> "View":
        return cls(*(float(v) for v in row[:4]), bool(row[4]), int(row[5]))


class ViewTransform:
    """timm's training transform split at the crop: sample(image, seed) draws a View (crop box,
    flip, seed), apply(image, view) renders it. A live run samples a fresh view per epoch; a
    teacher-logit cache stores K views per image and the student replays them exactly."""

    def __init__(self, preprocess: PreprocessConfig, rand_augment: str, scale_min: float, re_prob: float):
        from timm.data import create_transform

        self.description = (f"size={preprocess.input_size} interpolation={preprocess.interpolation} "
                            f"mean={preprocess.mean} std={preprocess.std} rand_augment={rand_augment} "
                            f"scale_min={scale_min} re_prob={re_prob}")
        primary, self.recolour, self.finish = create_transform(
            preprocess.input_size, is_training=True, scale=(scale_min, 1.0), hflip=0.5,
            auto_augment=None if rand_augment.lower() == "none" else rand_augment,
            interpolation=preprocess.interpolation, mean=preprocess.mean, std=preprocess.std,
            re_prob=re_prob, re_mode="pixel", separate=True,
        )
        self.crop = primary.transforms[0]  # RandomResizedCropAndInterpolation: its scale and ratio ranges
        _, self.normalize, *erase = self.finish.transforms  # MaybeToTensor, Normalize[, RandomErasing]
        self.erase = erase[0] if erase else None
        self.size = preprocess.input_size
        self.resample = getattr(Image.Resampling, preprocess.interpolation.upper())

    def sample(self, image: Image.Image, seed: int) -> View:
        with seeded(seed):
            top, left, height, width = self.crop.get_params(image, self.crop.scale, self.crop.ratio)
            flip = random.random() < 0.5
            rest = random.getrandbits(31)
        w, h = image.size
        return View(top / h, left / w, height / h, width / w, flip, rest)

    def apply(self, image: Image.Image, view: View, size: int | None = None) -> torch.Tensor:
        """The view as a normalised tensor at `size` px (default: the student's)."""
        return self.finish_view(self.render(image, view, size), view)

    def render(self, image: Image.Image, view: View, size: int | None = None) -> Image.Image:
        """The view's crop, flip and RandAugment at `size` px: uint8 pixels, not yet normalised.
        RandAugment's geometry is relative to the image, so a teacher's larger rendering shows the
        same content, only sharper."""
        w, h = image.size
        size = size or self.size
        box = (view.left * w, view.top * h, (view.left + view.width) * w, (view.top + view.height) * h)
        image = image.resize((size, size), self.resample, box=box)
        if view.flip:
            image = image.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
        with seeded(view.seed):
            return self.recolour(image)

    def finish_view(self, rendered: Image.Image | np.ndarray, view: View) -> torch.Tensor:
        """A rendered view (PIL image or HWC uint8 array: the same tensor) normalised, then randomly
        erased. Erasing draws from a seed of its own (derived from the view's), so a rendering stored
        by the teacher-logit cache finishes exactly as a fresh one does."""
        with seeded(sample_seed(view.seed, FINISH_STREAM, 0)):
            return self.finish(rendered)

    def finish_views(self, rendered: np.ndarray, views: list[View]) -> torch.Tensor:
        """finish_view over a batch of renderings (B x H x W x 3 uint8) at once: the same tensors,
        converted and normalised in one operation each, only the erasing per view."""
        from torchvision.transforms.functional import normalize

        batch = torch.from_numpy(rendered).permute(0, 3, 1, 2).contiguous().float().div_(255)
        normalize(batch, self.normalize.mean, self.normalize.std, inplace=True)
        if self.erase is not None:
            with seeded(0):  # the RNG states saved and restored once per batch, not per view
                for image, view in zip(batch, views):
                    reseed(sample_seed(view.seed, FINISH_STREAM, 0))
                    self.erase(image)  # in place
        return batch


# --- the teacher's own rendering of a view ---------------------------------------------------------


def teacher_view_size(teacher, transform) -> int | None:
    """The size each augmented view is rendered at for the teacher, live (TeacherViews) or cached
    (distill.logit_cache): its own input size where it resizes up to it. None: the teacher takes the
    student's rendering (no augmentation, an equal or smaller teacher, or --teacher-resize false)."""
    if isinstance(transform, ViewTransform) and teacher is not None and teacher.size is not None \
            and teacher.size > transform.size:
        return teacher.size
    return None


class TeacherViews(ExtendedDataset):
    """Live distillation from a teacher larger than the student: (image, label, skipped, teacher image).

    Each sample's view (one crop box, flip and seed, drawn as ImageDataset draws it) is rendered
    twice from the photo: at the student's size (the same pixels the base dataset gives) and at
    the teacher's, as the teacher-logit cache renders it (see `teacher_view_size`). So a live
    teacher sees what a cached one saw, sharp instead of the student's crop upsampled.
    """

    def __init__(self, base: ImageDataset, size: int):
        super().__init__(base)
        self.size = size

    def __getitem__(self, index: int):
        image, label, skipped = self.base.load(index)
        view, transform = self.base.view(image, index), self.base.transform
        return transform.apply(image, view), label, skipped, transform.apply(image, view, self.size)


# --- sampling and loading -------------------------------------------------------------------------


class EpochSampler(Sampler[int]):
    """This process's share of one training epoch.

    A permutation seeded by (seed, epoch) is cut to whole optimizer steps, the first `skip`
    samples (a resumed mid-epoch position) are dropped, and process r takes every
    world_size-th index from r. Batch k of every process together is global batch k, so
    P processes x batch B see exactly what 1 process x batch P*B sees.
    """

    def __init__(self, size: int, *, step_samples: int, seed: int, epoch: int, skip: int = 0,
                 rank: int = 0, world_size: int = 1):
        self.usable = size // step_samples * step_samples
        self.seed, self.epoch, self.skip, self.rank, self.world_size = seed, epoch, skip, rank, world_size
        self.size = size

    def __iter__(self):
        generator = torch.Generator().manual_seed(self.seed * 100_003 + self.epoch)
        order = torch.randperm(self.size, generator=generator)[: self.usable][self.skip:]
        return iter(order[self.rank :: self.world_size].tolist())

    def __len__(self) -> int:
        return (self.usable - self.skip) // self.world_size


class ShardSampler(Sampler[int]):
    """Evaluation: every index exactly once across processes (no padding, no duplicates)."""

    def __init__(self, size: int, rank: int = 0, world_size: int = 1):
        self.indices = list(range(rank, size, world_size))

    def __iter__(self):
        return iter(self.indices)

    def __len__(self) -> int:
        return len(self.indices)


def make_loader(dataset: Dataset, sampler: Sampler, batch_size: int, num_workers: int, pin_memory: bool,
                prefetch_factor: int | None = None) -> DataLoader:
    return DataLoader(
        dataset, batch_size=batch_size, sampler=sampler, num_workers=num_workers, pin_memory=pin_memory,
        prefetch_factor=prefetch_factor if num_workers else None,
        # Its own generator: creating an iterator must not draw from the global RNG, or a
        # resumed run's dropout would diverge from the uninterrupted one.
        generator=torch.Generator().manual_seed(0),
    )


def available_cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def resolve_workers(value: str, processes: int = 1) -> int:
    """--num-workers: a number, or auto = this machine's cores shared among the training
    processes (at most 8 each: beyond that a worker mostly adds memory)."""
    if value != "auto":
        return int(value)
    return max(1, min(8, available_cpus() // max(processes, 1)))
