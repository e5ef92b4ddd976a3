"""Hostile and exotic photos for the loader, app and batch tests, built fast in memory."""

from __future__ import annotations

import io
import struct
import zlib

import numpy as np
from PIL import Image


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def blank_png(width: int, height: int, rgba: bool = False, rgb: bool = False) -> bytes:
    """An all-zero PNG of any size, streamed row by row, so an 8000x8000 RGBA bomb costs the
    test a few hundred kB instead of the 256 MB Pillow would allocate to write it."""
    channels, color_type = (4, 6) if rgba else (3, 2) if rgb else (1, 0)
    compressor = zlib.compressobj(9)
    row = b"\x00" * (1 + width * channels)  # filter byte + pixels
    parts = [compressor.compress(row) for _ in range(height)]
    idat = b"".join(parts) + compressor.flush()
    header = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", idat) + _chunk(b"IEND", b"")


def large_jpeg(width: int = 9000, height: int = 6700, *, progressive: bool = False,
               subsampling: int = 2) -> bytes:
    """A ~60 MP photo-like JPEG (a smooth gradient compresses to a few MB). ``subsampling``:
    Pillow's 0 (4:4:4), 1 (4:2:2) or 2 (4:2:0, as cameras write)."""
    gradient = np.linspace(0, 255, width, dtype=np.float32).astype(np.uint8)
    image = Image.fromarray(np.broadcast_to(gradient, (height, width)).copy(), "L").convert("RGB")
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=70, progressive=progressive, subsampling=subsampling)
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


def zip_bomb(path, entries: int = 16, entry_bytes: int = 64 * 2**20) -> int:
    """A zip of `entries` files of zeros, each `entry_bytes` unpacked (16 x 64 MiB = 1 GiB in
    about 1 MB). Deflated once and the same bytes written for every entry, as a zip bomb
    would be; returns the unpacked total. (zipfile would compress each entry: ~13 s.)"""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)  # raw deflate, as zip stores it
    chunk = b"\0" * 2**20
    packed = b"".join(compressor.compress(chunk) for _ in range(entry_bytes // len(chunk))) + compressor.flush()
    crc = 0
    for _ in range(entry_bytes // len(chunk)):
        crc = zlib.crc32(chunk, crc)
    local_parts, central_parts, offset = [], [], 0
    for index in range(entries):
        name = f"photo{index:02d}.jpg".encode()
        fields = struct.pack("<HHHHHIII", 20, 0, 8, 0, 0, crc, len(packed), entry_bytes)
        local = b"PK\x03\x04" + fields + struct.pack("<HH", len(name), 0) + name
        central_parts.append(b"PK\x01\x02" + struct.pack("<H", 20) + fields
                             + struct.pack("<HHHHHII", len(name), 0, 0, 0, 0, 0, offset) + name)
        local_parts += [local, packed]
        offset += len(local) + len(packed)
    central = b"".join(central_parts)
    end = b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, entries, entries, len(central), offset, 0)
    path.write_bytes(b"".join(local_parts) + central + end)
    return entries * entry_bytes
