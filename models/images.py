"""Reading user photos robustly: every failure becomes one ImageError naming the file."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import BinaryIO

import numpy as np
from PIL import Image, ImageOps, UnidentifiedImageError

from models.errors import ImageError

# Phone photos are up to ~50 MP; anything far beyond is a decompression bomb, not a meal.
MAX_PIXELS = 64_000_000


def load_image(source: str | os.PathLike | bytes | BinaryIO, name: str | None = None) -> Image.Image:
    """Open a photo as an upright 8-bit RGB image (first frame of animations)."""
    name = name or (str(source) if isinstance(source, (str, os.PathLike)) else "image")
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
    try:
        with Image.open(source) as image:
            # open() reads only the header: refuse bombs before decoding a single pixel.
            if image.width * image.height > MAX_PIXELS:
                raise Image.DecompressionBombError(image.size)
            image.seek(0)
            image.load()
            return _to_rgb(ImageOps.exif_transpose(image))
    except Image.DecompressionBombError:
        raise ImageError(f"{name}: image is too large (over {MAX_PIXELS // 1_000_000} megapixels)") from None
    except UnidentifiedImageError:
        raise ImageError(f"{name}: not an image or an unsupported format") from None
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        raise ImageError(f"{name}: corrupt or truncated image ({exc})") from None


def _to_rgb(image: Image.Image) -> Image.Image:
    """Any PIL mode -> RGB. Transparency is flattened onto white, as a photo viewer shows it."""
    if image.mode in ("I;16", "I;16B", "I;16L", "I;16N", "I", "F"):
        # Scale high-bit-depth data to 8 bits instead of letting convert() clip it at 255.
        array = np.asarray(image, dtype=np.float64)
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
