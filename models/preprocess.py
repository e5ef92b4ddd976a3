"""The preprocessing contract of a model: size, normalisation, resize, crop and labels.

One implementation serves every consumer: training evaluation, ONNX export metadata, the
inference engine, the app and the batch tool all call `PreprocessConfig.apply`, so they
cannot disagree about how a photo becomes a tensor.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field

import numpy as np
from PIL import Image

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)

PIL_FILTERS = {
    "bicubic": Image.Resampling.BICUBIC,
    "bilinear": Image.Resampling.BILINEAR,
    "nearest": Image.Resampling.NEAREST,
    "lanczos": Image.Resampling.LANCZOS,
}


@dataclass
class PreprocessConfig:
    input_size: int
    mean: tuple[float, float, float]
    std: tuple[float, float, float]
    interpolation: str = "bicubic"
    crop_pct: float = 0.875
    labels: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.mean = tuple(float(v) for v in self.mean)
        self.std = tuple(float(v) for v in self.std)
        self.labels = list(self.labels)
        if self.interpolation not in PIL_FILTERS:
            raise ValueError(f"interpolation must be one of {sorted(PIL_FILTERS)}, got {self.interpolation!r}")
        if not 0 < self.crop_pct <= 1:
            raise ValueError(f"crop_pct must be in (0, 1], got {self.crop_pct}")

    @property
    def resize_size(self) -> int:
        """Shorter side before the centre crop (timm's eval convention)."""
        return math.floor(self.input_size / self.crop_pct)

    @property
    def decode_side(self) -> int:
        """Shorter side a large photo is decoded down to (at least) before `apply`.

        Twice `resize_size`: JPEG DCT scaling and box reduction do the coarse shrinking cheaply,
        and `apply`'s own filter does the last halving, as in training. Decoding straight down to
        `resize_size` changed a student's predictions on many photos (docs/experiments.md).
        """
        return 2 * self.resize_size

    def apply(self, image: Image.Image) -> np.ndarray:
        """RGB PIL image -> normalised float32 array (3, input_size, input_size)."""
        width, height = image.size
        scale = self.resize_size / min(width, height)
        new_size = (max(self.input_size, round(width * scale)), max(self.input_size, round(height * scale)))
        image = image.resize(new_size, PIL_FILTERS[self.interpolation])
        left = (new_size[0] - self.input_size) // 2
        top = (new_size[1] - self.input_size) // 2
        image = image.crop((left, top, left + self.input_size, top + self.input_size))
        # (x / 255 - mean) / std as one multiply-add per pixel, on the CHW layout the model takes.
        scale = (1.0 / (255.0 * np.asarray(self.std, np.float32)))[:, None, None]
        offset = (-np.asarray(self.mean, np.float32) / np.asarray(self.std, np.float32))[:, None, None]
        chw = np.asarray(image, dtype=np.float32).transpose(2, 0, 1)
        return np.ascontiguousarray(chw * scale + offset, dtype=np.float32)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict) -> "PreprocessConfig":
        return cls(**values)

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_json(cls, text: str) -> "PreprocessConfig":
        return cls.from_dict(json.loads(text))
