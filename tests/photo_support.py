"""Helpers for the kept-photo tests: small generated photos with EXIF (a GPS position, an
orientation), and a photos folder per test."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image

# Pillow's numbers for the EXIF tags used here.
GPS_IFD, GPS_LATITUDE_REF, GPS_LATITUDE, ORIENTATION, MAKE = 0x8825, 1, 2, 0x0112, 0x010F


def photo_with_location(size: tuple[int, int] = (1200, 900), orientation: int = 1,
                        colour: tuple[int, int, int] = (200, 120, 40)) -> bytes:
    """A JPEG as a phone writes one: EXIF with the camera, a GPS latitude and an orientation.
    The left half is ``colour``, the right half white, so a rotation can be seen."""
    image = Image.new("RGB", size, (255, 255, 255))
    image.paste(colour, (0, 0, size[0] // 2, size[1]))
    exif = Image.Exif()
    exif[MAKE] = "PhoneMaker"
    exif[ORIENTATION] = orientation
    exif.get_ifd(GPS_IFD).update({GPS_LATITUDE_REF: "N", GPS_LATITUDE: (51.0, 30.0, 12.5)})
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=92, exif=exif)
    return out.getvalue()


@pytest.fixture
def photos_dir(tmp_path: Path) -> Iterator[Path]:
    """A photos folder of this test's own (db.photos.configure), not yet created."""
    from db import photos

    folder = tmp_path / "kept-photos"
    photos.configure(folder)
    yield folder
    photos.configure(None)


def files_in(folder: Path) -> list[Path]:
    """Every file under ``folder`` (none when it does not exist)."""
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []
