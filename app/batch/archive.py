"""Unpacking an uploaded zip of photos without letting it write or read outside its folder.

The whole archive is checked before one byte is written, and refused as a whole if any
entry is unsafe: an absolute path or `..` (zip-slip), a symlink, an encrypted entry, or
more files or bytes than the limits, or a compression ratio no zip of photos has (a zip bomb). Extraction then counts the bytes it really writes,
in case the sizes in the directory lie.
"""

from __future__ import annotations

import shutil
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from db import validate
from models.errors import FoodtagError

_CHUNK = 1 << 20


class ZipRejected(FoodtagError):
    """The upload is not a zip we are willing to unpack; nothing was extracted."""


@dataclass(frozen=True)
class ZipLimits:
    max_files: int = 20_000
    max_file_bytes: int = 64 * 2**20  # one photo; the image reader refuses bigger pictures anyway
    max_total_bytes: int = 2 * 2**30
    # Unpacked bytes per packed byte, over the whole archive. Photos are compressed already
    # (a zip of JPEGs is about 1:1); a zip bomb is 1:1000. Archives that unpack to less than
    # `ratio_floor_bytes` are not held to it (a few screenshots or blank test images).
    max_ratio: float = 20.0
    ratio_floor_bytes: int = 32 * 2**20


def _unsafe_reason(info: zipfile.ZipInfo) -> str | None:
    name = info.filename
    if "\x00" in name:
        return "has a NUL character in its name"
    if stat.S_ISLNK(info.external_attr >> 16):
        return "is a symbolic link"
    if info.flag_bits & 0x1:
        return "is encrypted"
    parts = PurePosixPath(name.replace("\\", "/")).parts
    if name.startswith(("/", "\\")) or (parts and parts[0].endswith(":")):
        return "has an absolute path"
    if ".." in parts:
        return "climbs out of the archive with '..'"
    return None


def extract_zip(archive: Path, dest: Path, limits: ZipLimits = ZipLimits()) -> int:
    """Unpack `archive` into the new folder `dest`; returns the number of files."""
    try:
        zf = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError) as exc:
        raise ZipRejected(f"{archive.name}: not a readable zip file ({exc})") from None
    with zf:
        infos = zf.infolist()
        files = [info for info in infos if not info.is_dir()]
        if len(files) > limits.max_files:
            raise ZipRejected(f"{archive.name}: {len(files)} files, more than the limit of {limits.max_files}")
        total = 0
        for info in infos:
            reason = _unsafe_reason(info)
            if reason:
                raise ZipRejected(f"{archive.name}: entry {validate.echo(info.filename)} {reason}; nothing was extracted")
            if info.file_size > limits.max_file_bytes:
                raise ZipRejected(
                    f"{archive.name}: {validate.echo(info.filename)} is {info.file_size / 2**20:.0f} MiB, "
                    f"more than the limit of {limits.max_file_bytes / 2**20:.0f} MiB"
                )
            total += info.file_size
        if total > limits.max_total_bytes:
            raise ZipRejected(
                f"{archive.name}: unpacks to {total / 2**30:.1f} GiB, more than the limit of "
                f"{limits.max_total_bytes / 2**30:.1f} GiB"
            )
        packed = max(archive.stat().st_size, 1)
        if total > limits.ratio_floor_bytes and total > limits.max_ratio * packed:
            raise ZipRejected(
                f"{archive.name}: {packed / 2**20:.1f} MiB that unpack to {total / 2**20:.0f} MiB "
                f"({total / packed:.0f}:1), more than the {limits.max_ratio:g}:1 a zip of photos needs; "
                "nothing was extracted"
            )
        dest.mkdir(parents=True)  # a new folder: on failure it is removed whole
        root = dest.resolve()
        try:
            for info in files:
                _extract_one(zf, info, root, limits)
        except BaseException:
            shutil.rmtree(root, ignore_errors=True)
            raise
    return len(files)


def _extract_one(zf: zipfile.ZipFile, info: zipfile.ZipInfo, root: Path, limits: ZipLimits) -> None:
    target = (root / info.filename.replace("\\", "/")).resolve()
    if not target.is_relative_to(root) or target == root:
        raise ZipRejected(f"entry {validate.echo(info.filename)} would be written outside the upload folder")
    target.parent.mkdir(parents=True, exist_ok=True)
    written = 0
    try:
        # "xb": a second entry with the same name is refused instead of overwriting the first.
        with zf.open(info) as source, open(target, "xb") as sink:
            while chunk := source.read(_CHUNK):
                written += len(chunk)
                if written > min(info.file_size, limits.max_file_bytes):
                    raise ZipRejected(f"entry {validate.echo(info.filename)} unpacks to more than its declared size")
                sink.write(chunk)
    except FileExistsError:
        raise ZipRejected(f"entry {validate.echo(info.filename)} appears twice in the archive") from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError) as exc:
        raise ZipRejected(f"entry {validate.echo(info.filename)} cannot be extracted ({exc})") from None
