"""Reading user photos robustly: every failure becomes one ImageError naming the file.

Photos come from strangers on the internet, so what a decode may cost is decided from the
header before a single pixel is decoded: only photo formats are parsed, absurd sizes and
shapes are refused, JPEGs are decoded at a reduced scale when the caller needs a small
image anyway (a progressive JPEG still holds its coefficients at full size: it is charged for
them, and refused above MAX_PROGRESSIVE_BYTES), and all decodes in the process share one memory budget, so many large photos at
once wait for each other instead of multiplying the memory they need.
"""

from __future__ import annotations

import io
import os
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Iterator

import numpy as np
from PIL import Image, ImageMode, ImageOps, UnidentifiedImageError, features
from pillow_heif import register_heif_opener

from models.errors import ImageError
from models.memory import release_freed

# HEIC/HEIF is the default format of iPhone cameras; pillow-heif teaches Pillow to open it.
register_heif_opener()

# Photo formats only: Pillow would otherwise try every format it knows (PSD, EPS via
# Ghostscript, ICNS, ...), each parser one more thing a hostile upload can aim at.
# (The JPEG opener also returns the multi-picture JPEGs many cameras write, as format "MPO".)
ALLOWED_FORMATS: tuple[str, ...] = ("JPEG", "PNG", "WEBP", "GIF", "BMP", "TIFF", "HEIF") + (
    ("AVIF",) if features.check("avif") else ()
)

# Phone photos are up to ~50 MP; anything far beyond is a decompression bomb, not a meal.
MAX_PIXELS = 64_000_000
# Panoramas reach about 10:1. Thinner images are not meals, and resizing one's shorter side to
# the model's size would blow its longer side up (a 1x8000 PNG would become 256x2,048,000).
MAX_ASPECT_RATIO = 10
# Memory that all decodes in this process may hold at once. Each decode reserves its estimate
# (see _decode_cost) and waits while others hold the rest; a photo
# whose estimate alone exceeds it is refused. 256 MiB fits a 24 MP photo decoded at full size
# and any baseline JPEG decoded for inference (which downscales while decoding).
DECODE_BUDGET_BYTES = 256 * 2**20
# A progressive JPEG holds its DCT coefficients at full size whatever scale it is decoded to
# (3 bytes a pixel in 4:2:0, 6 in 4:4:4): above this it is refused, so no photo costs much more
# than a baseline one, which is decoded at reduced scale (about 21 MP in 4:2:0 fits).
MAX_PROGRESSIVE_BYTES = 64 * 2**20
# After a decode of this estimate or more, freed memory goes back to the system (see
# models.memory): the next large decode may run on another thread, in another malloc arena.
RELEASE_AFTER_BYTES = 32 * 2**20


class _DecodeBudget:
    """A counting semaphore over bytes: the one place that bounds concurrent decoding."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._free = capacity
        self._changed = threading.Condition()

    @contextmanager
    def reserve(self, amount: int) -> Iterator[None]:
        amount = min(amount, self.capacity)
        with self._changed:
            self._changed.wait_for(lambda: self._free >= amount)
            self._free -= amount
        try:
            yield
        finally:
            with self._changed:
                self._free += amount
                self._changed.notify_all()


_budget = _DecodeBudget(DECODE_BUDGET_BYTES)
# Modes whose convert("RGB") is one step (no alpha to flatten, no bit depth to rescale).
_DIRECT_TO_RGB = frozenset({"1", "L", "RGB", "CMYK", "YCbCr", "LAB", "HSV"})


def load_image(source: str | os.PathLike | bytes | BinaryIO, name: str | None = None, *,
               min_side: int | None = None) -> Image.Image:
    """Open a photo as an upright 8-bit RGB image (first frame of animations).

    With `min_side`, the image is decoded cheaply to the smallest size whose shorter side is
    still at least `min_side` (JPEG's DCT-domain scaling, then an integer box reduction), for
    callers that resize to that size next. Without it, the full resolution is decoded.
    `image.info["animated"]` says whether the file had more frames than the one returned.
    """
    name = name or (str(source) if isinstance(source, (str, os.PathLike)) else "image")
    if min_side is not None and min_side < 1:
        raise ValueError(f"min_side must be at least 1, got {min_side}")
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if not path.is_file():
            raise ImageError(f"{name}: file not found")
        if path.stat().st_size == 0:
            raise ImageError(f"{name}: file is empty (0 bytes)")
        source = path
    elif isinstance(source, (bytes, bytearray)):
        if not source:
            raise ImageError(f"{name}: file is empty (0 bytes)")
        source = io.BytesIO(source)
    cost = 0
    try:
        with Image.open(source, formats=ALLOWED_FORMATS) as image:
            _check_header(image, name)
            animated = bool(getattr(image, "is_animated", False))
            image.seek(0)
            # Read before draft(), which shrinks image.size to the scaled output.
            coefficients = _progressive_jpeg_coefficients(image)
            if coefficients > MAX_PROGRESSIVE_BYTES:
                raise ImageError(f"{name}: a progressive JPEG of {image.width}x{image.height} is too large to "
                                 f"decode (its coefficients need {coefficients // 2**20} MB); save it as a "
                                 "baseline JPEG or at a smaller size")
            if min_side is not None and image.format in ("JPEG", "MPO"):
                short = min(image.size)
                image.draft(None, tuple(-(-side * min_side // short) for side in image.size))
            cost = _decode_cost(image) + coefficients
            if cost > DECODE_BUDGET_BYTES:
                raise ImageError(f"{name}: image is too large to decode ({image.width}x{image.height} "
                                 f"{image.mode} needs about {cost // 2**20} MB)")
            with _budget.reserve(cost):
                image.load()
                photo = _to_rgb(ImageOps.exif_transpose(_reduce(image, min_side)))
    except Image.DecompressionBombError:
        raise ImageError(f"{name}: image is too large (over {MAX_PIXELS // 1_000_000} megapixels)") from None
    except UnidentifiedImageError:
        raise ImageError(f"{name}: not an image or an unsupported format "
                         f"(accepted: {', '.join(ALLOWED_FORMATS)})") from None
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        raise ImageError(f"{name}: corrupt or truncated image ({exc})") from None
    finally:
        if cost >= RELEASE_AFTER_BYTES:
            release_freed()
    photo.info["animated"] = animated
    return photo


# A kept meal photo is learned from, not looked at closely: quality 90 keeps what a model
# sees at a fraction of a phone photo's bytes.
KEPT_PHOTO_QUALITY = 90


def keepable_jpeg(data: bytes, name: str = "photo", *, short_side: int) -> bytes:
    """An upload as the photo that is kept of it (db.photos sets ``short_side``): upright,
    shorter side at most ``short_side``, re-encoded as a fresh JPEG that carries none of the
    file's metadata (no EXIF, so no GPS position, camera or time; no XMP, ICC profile or comment)."""
    image = load_image(data, name, min_side=short_side)
    scale = short_side / min(image.size)
    if scale < 1:
        size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
        image = image.resize(size, Image.Resampling.LANCZOS)
    # Only the pixels travel: a new image has no info for the encoder to copy.
    pixels = Image.frombytes("RGB", image.size, image.tobytes())
    out = io.BytesIO()
    pixels.save(out, format="JPEG", quality=KEPT_PHOTO_QUALITY, optimize=True)
    return out.getvalue()


def _check_header(image: Image.Image, name: str) -> None:
    """open() has read only the header: refuse bombs and slivers before decoding a pixel."""
    width, height = image.size
    if width < 1 or height < 1:
        raise ImageError(f"{name}: image has no pixels ({width}x{height})")
    if width * height > MAX_PIXELS:
        raise Image.DecompressionBombError(image.size)
    if max(width, height) > MAX_ASPECT_RATIO * min(width, height):
        raise ImageError(f"{name}: image is {width}x{height}, too long and thin for a photo "
                         f"(at most {MAX_ASPECT_RATIO}:1)")


def _decode_cost(image: Image.Image) -> int:
    """Bytes a decode of `image` at its (possibly drafted) size may hold at its peak: the
    decoded pixels, an EXIF-rotated copy, and the RGB conversion (which goes through RGBA for
    transparency and palettes, and through float32 for high bit depths)."""
    mode = ImageMode.getmode(image.mode)
    item_bytes = int(mode.typestr[-1]) if mode.typestr[-1].isdigit() else 1
    decoded = len(mode.bands) * item_bytes
    converted = 3 if image.mode in _DIRECT_TO_RGB else 8
    return image.width * image.height * (2 * decoded + converted)


def _progressive_jpeg_coefficients(image: Image.Image) -> int:
    """Bytes libjpeg holds for a progressive JPEG's DCT coefficients: every 8x8 block of every
    component at full size (64 coefficients of 2 bytes), whatever scale it is drafted to; a
    baseline JPEG is decoded one row of blocks at a time (0 here)."""
    if image.format not in ("JPEG", "MPO") or not image.info.get("progressive"):
        return 0
    layers = image.layer  # (component id, horizontal sampling, vertical sampling, table)
    h_max, v_max = max(layer[1] for layer in layers), max(layer[2] for layer in layers)
    # Whole MCUs: each component's blocks are padded to its sampling factor.
    mcus_wide, mcus_high = -(-image.width // (8 * h_max)), -(-image.height // (8 * v_max))
    return sum(mcus_wide * h * mcus_high * v * 64 * 2 for _, h, v, _ in layers)


def _reduce(image: Image.Image, min_side: int | None) -> Image.Image:
    """Box-reduce by the largest integer factor that keeps the shorter side >= min_side."""
    factor = min(image.size) // min_side if min_side else 1
    if factor < 2:
        return image
    # Read the orientation first: TIFF keeps it in tags that the reduced copy does not carry.
    exif = image.getexif()
    reduced = image.reduce(factor)
    reduced.info["exif"] = exif.tobytes()
    return reduced


def _to_rgb(image: Image.Image) -> Image.Image:
    """Any PIL mode -> RGB. Transparency is flattened onto white, as a photo viewer shows it."""
    if image.mode in ("I;16", "I;16B", "I;16L", "I;16N", "I", "F"):
        # Scale high-bit-depth data to 8 bits instead of letting convert() clip it at 255.
        array = np.asarray(image, dtype=np.float32)
        peak = 65535.0 if image.mode.startswith("I;16") else max(float(array.max()), 1.0)
        image = Image.fromarray(np.clip(array / peak * 255.0, 0, 255).astype(np.uint8), "L")
    if image.mode == "P":
        image = image.convert("RGBA")
    if image.mode in ("RGBA", "LA", "PA", "RGBa", "La"):
        rgba = image.convert("RGBA")
        background = Image.new("RGB", rgba.size, (255, 255, 255))
        background.paste(rgba, mask=rgba.getchannel("A"))
        return background
    return image.convert("RGB")
