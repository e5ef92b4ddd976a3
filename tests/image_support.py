"""Hostile and exotic photos for the loader, app and batch tests, built fast in memory."""

from __future__ import annotations

import io
import struct
import zlib

import numpy as np
from PIL import Image


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def blank_png(width: int, height: int, rgba: bool = False) -> bytes:
    """An all-zero PNG of any size, streamed row by row, so an 8000x8000 RGBA bomb costs the
    test a few hundred kB instead of the 256 MB Pillow would allocate to write it."""
    channels, color_type = (4, 6) if rgba else (1, 0)
    compressor = zlib.compressobj(9)
    row = b"\x00" * (1 + width * channels)  # filter byte + pixels
    parts = [compressor.compress(row) for _ in range(height)]
    idat = b"".join(parts) + compressor.flush()
    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", idat) + _chunk(b"IEND", b"")


def large_jpeg(width: int = 9000, height: int = 6700) -> bytes:
    """A ~60 MP photo-like JPEG (a smooth gradient compresses to a few MB)."""
    gradient = np.linspace(0, 255, width, dtype=np.float32).astype(np.uint8)
    image = Image.fromarray(np.broadcast_to(gradient, (height, width)).copy(), "L").convert("RGB")
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=70)
    return out.getvalue()


def heic_bytes(image: Image.Image, quality: int = 95) -> bytes:
    """`image` as a HEIC file, as an iPhone would send it (pillow-heif's encoder)."""
    import pillow_heif

    out = io.BytesIO()
    pillow_heif.from_pillow(image.convert("RGB")).save(out, quality=quality)
    return out.getvalue()


def bombs() -> dict[str, bytes]:
    """The issue's hostile photos: file name -> bytes."""
    return {
        "sliver-1x100000.png": blank_png(1, 100_000),
        "sliver-1x8000.png": blank_png(1, 8000),
        "rgba-8000x8000.png": blank_png(8000, 8000, rgba=True),
        "photo-60mp.jpg": large_jpeg(),
    }
