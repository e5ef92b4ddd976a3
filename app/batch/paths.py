"""Where a row's `image` cell points, and whether the batch may read it.

Relative paths resolve against the images root (--images-root, else the CSV's folder).
Unless outside paths are allowed, the resolved real path (symlinks followed, `..` applied)
must stay inside that root: a shared CSV must not make the tool read /etc/shadow or
another user's photos.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from app.batch.errors import RowError


@dataclass(frozen=True)
class ImageResolver:
    root: Path
    allow_outside_root: bool = False
    # Appended to a refusal so the message names the switch of the tool in use.
    refusal_hint: str = "pass --allow-outside-root to permit it"

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", Path(self.root).resolve())

    def resolve(self, cell: str) -> Path:
        text = cell.strip()
        if not text:
            raise RowError("the image cell is empty")
        if "\x00" in text:
            raise RowError("the image path contains a NUL character")
        path = Path(text)
        if not path.is_absolute():
            path = self.root / path
        try:
            real = path.resolve()
        except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop on older Pythons
            raise RowError(f"{text}: cannot resolve the path ({exc})") from None
        if not self.allow_outside_root and not real.is_relative_to(self.root):
            hint = f"; {self.refusal_hint}" if self.refusal_hint else ""
            raise RowError(f"{text}: refused, the path leads outside the images folder{hint}")
        return real
