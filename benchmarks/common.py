"""What several benchmarks share: where things are, percentiles, photos, a scratch database."""

from __future__ import annotations

import csv
import socket
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png")


def food10() -> Path:
    """The food10 photos beside the checkout (../shared/data/food10), or ./food10."""
    for root in (ROOT.parent, ROOT.parent.parent):
        if (root / "shared" / "data" / "food10").is_dir():
            return root / "shared" / "data" / "food10"
    return Path("food10")


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (nearest rank) of values; NaN for none."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def photos_under(folder: Path) -> list[Path]:
    """Every JPEG and PNG under folder, sorted."""
    return sorted(p for p in folder.rglob("*") if p.suffix.lower() in PHOTO_SUFFIXES)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def commit() -> str:
    """The checkout's short commit, or 'unknown'."""
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def use_scratch_database(folder: Path) -> None:
    """A fresh SQLite database in folder for the nutrition lookups, migrated and seeded."""
    from db.session import configure, init_db

    configure(f"sqlite:///{folder / 'bench.db'}")
    init_db()


def write_paths_csv(path: Path, photos: list[Path], rows: int) -> Path:
    """A batch-tool CSV of rows rows, cycling through photos, over three users and 28 days."""
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["image", "eaten_at", "user", "note"])
        for i in range(rows):
            writer.writerow([str(photos[i % len(photos)]), f"2024-05-{1 + i % 28:02d} 12:00", f"user{i % 3}", f"row {i}"])
    return path
