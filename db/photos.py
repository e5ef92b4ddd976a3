"""Meal photos kept with their owner's consent, to learn the dishes a household eats.

Only when the person has turned on "keep my meal photos" (User.keep_photos, off by default)
is the photo of a meal they log kept: the app hands over a JPEG it made from the upload
(models.images.keepable_jpeg: shorter side at most 512 px, no metadata), checked again here,
written owner-only (0600) as ``<random token>.jpg`` in folder(), and recorded in kept_photos
with the food logged and whether that was a correction of the model (a label) or its answer
accepted (a pseudo-label). Deleting the entry, withdrawing consent or removing the account
deletes the rows, then the files. A user's photos reach only them, or the members of their
household (db.households).

Files change only after the database agrees: a new file is removed again when its row is
not committed (undone_on_error), and a file is unlinked only after its row's deletion is
committed (forget, then remove_files). Another process sharing the folder (the app behind
a load balancer) therefore never sees a row without its file; a crash mid-way can leave a
file without a row, which sweep_orphans removes.
"""

import hashlib
import io
import os
import re
import secrets
import shutil
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from PIL import Image, UnidentifiedImageError
from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from db import households, repo
from db.errors import InvalidValue, NotFound
from db.keys import name_key
from db.tables import KeptPhoto, MealEntry, User
from db.session import session_scope
from models.errors import FoodtagError
from models.paths import data_home

FOLDER_ENV = "FOODTAG_PHOTOS_DIR"
# The shorter side of a kept photo: enough to learn a dish from (models see 224-384 px
# crops). The app makes it with models.images.keepable_jpeg(short_side=MAX_SIDE).
MAX_SIDE = 512
# A 512 x 5120 JPEG at quality 90 is well under this; more is not a kept photo.
MAX_BYTES = 4 * 2**20
# Where a JPEG carries metadata besides its pixels (Pillow's names for the segments).
_METADATA = {"exif", "xmp", "comment", "photoshop", "icc_profile"}
_FILE_NAME = re.compile(r"([0-9a-f]{32})\.(?:jpg|part)")
_configured: Path | None = None


def configure(folder: str | os.PathLike | None) -> None:
    """Keep photos in ``folder`` from now on (None: back to $FOODTAG_PHOTOS_DIR / the default);
    every app process serving one database must use the same folder."""
    global _configured
    _configured = None if folder is None else Path(folder).expanduser()


def folder() -> Path:
    """configure()'s folder, else $FOODTAG_PHOTOS_DIR, else data_home()/photos; created
    owner-only (0700) and tightened when it exists."""
    path = _configured or (Path(os.environ[FOLDER_ENV]).expanduser() if os.environ.get(FOLDER_ENV)
                           else data_home() / "photos")
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    if path.stat().st_mode & 0o077:
        path.chmod(0o700)
    return path


def photo_path(token: str) -> Path:
    return folder() / f"{token}.jpg"


def check_jpeg(data: object) -> bytes | None:
    """None, or bytes that are a photo as kept: a JPEG whose shorter side is at most MAX_SIDE
    and that carries no metadata (EXIF with its GPS position, XMP, comments, a profile). Read
    from the header only."""
    if data is None:
        return None
    if not isinstance(data, (bytes, bytearray)) or not data:
        raise InvalidValue("photo must be the bytes of a JPEG")
    if len(data) > MAX_BYTES:
        raise InvalidValue(f"photo is {len(data) / 2**20:.1f} MB; a kept photo is at most "
                           f"{MAX_BYTES // 2**20} MB")
    try:
        with Image.open(io.BytesIO(data), formats=("JPEG",)) as image:
            short = min(image.size)
            metadata = bool(image.getexif()) or bool(_METADATA & set(image.info))
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError) as exc:
        raise InvalidValue(f"photo is not a readable JPEG ({exc})") from None
    if short > MAX_SIDE or metadata:
        raise InvalidValue(f"photo must be downscaled to a shorter side of at most {MAX_SIDE} px "
                           "and carry no metadata (models.images.keepable_jpeg makes one)")
    return bytes(data)


# --- inside a unit of work (the caller's session) ---------------------------------------------

def keep(session: Session, owner: User, entry: MealEntry, jpeg: bytes | None) -> str | None:
    """Keep ``jpeg`` (checked by check_jpeg) as the photo of ``entry`` when ``owner`` consents;
    returns the new file's token (None: nothing written). Call inside undone_on_error."""
    if jpeg is None or not owner.keep_photos:
        return None
    token = secrets.token_hex(16)
    session.add(KeptPhoto(user_id=owner.id, entry_id=entry.id, token=token, food_name=entry.food_name,
                          labelled=bool(entry.is_correction), sha256=hashlib.sha256(jpeg).hexdigest()))
    session.flush()
    _write(photo_path(token), jpeg)
    return token


@contextmanager
def undone_on_error() -> Iterator[list[str | None]]:
    """Collects the tokens keep() returns; if the block fails (its commit included), their
    files are removed, so no file outlives a row that was never stored. Open it outside
    session_scope, so that the commit happens inside it."""
    written: list[str | None] = []
    try:
        yield written
    except BaseException:
        remove_files(written)
        raise


def forget(session: Session, rows: Iterable[KeptPhoto]) -> list[str]:
    """Delete these photos' rows; returns their tokens, for remove_files once committed."""
    tokens = []
    for row in list(rows):
        tokens.append(row.token)
        session.delete(row)
    session.flush()
    return tokens


def of_user(user: User) -> Select[tuple[KeptPhoto]]:
    return select(KeptPhoto).where(KeptPhoto.user_id == user.id)


def of_entry(entry: MealEntry) -> Select[tuple[KeptPhoto]]:
    return select(KeptPhoto).where(KeptPhoto.entry_id == entry.id)


def relabel(session: Session, entry: MealEntry) -> None:
    """The person changed the entry's food: its photos show that food, by their own choice."""
    for row in session.scalars(of_entry(entry)):
        row.food_name, row.labelled = entry.food_name, True


def remove_files(tokens: Iterable[str | None]) -> None:
    for token in tokens:
        if token:
            photo_path(token).unlink(missing_ok=True)


def sweep_orphans(min_age_s: float = 3600.0) -> int:
    """Remove files in folder() that no row names (left by a crash between a file and its
    row) once they are ``min_age_s`` old, so a write another process has in flight is spared;
    returns how many. The app runs it at start."""
    with session_scope(write=False) as session:
        known = set(session.scalars(select(KeptPhoto.token)))
    cutoff = time.time() - min_age_s
    removed = 0
    for path in folder().iterdir():
        # Only names this module writes: a folder shared by mistake keeps everything else.
        ours = _FILE_NAME.fullmatch(path.name)
        if ours and ours.group(1) not in known and path.is_file() and path.stat().st_mtime < cutoff:
            path.unlink(missing_ok=True)
            removed += 1
    return removed


def _write(path: Path, data: bytes) -> None:
    """Owner-only whatever the umask, and whole or not at all: a crash leaves a .part file."""
    part = path.with_suffix(".part")
    handle = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(part, 0o600)
        os.replace(part, path)
    except BaseException:
        part.unlink(missing_ok=True)
        raise


# --- units of work ------------------------------------------------------------------------------

def delete_photos(user: str, photo_ids: Sequence[int]) -> int:
    """Delete some of the user's own kept photos (rows and files), e.g. those of a dish they
    remove; returns how many. Another user's ids answer as unknown, and nothing is deleted."""
    ids = sorted({int(i) for i in photo_ids})
    with session_scope() as session:
        owner = repo.get_user(user, session=session)
        rows = list(session.scalars(of_user(owner).where(KeptPhoto.id.in_(ids))))
        if len(rows) != len(ids):
            raise NotFound(f"you have no kept photo {sorted(set(ids) - {r.id for r in rows})}")
        tokens = forget(session, rows)
    remove_files(tokens)
    return len(tokens)


def forget_meal_photos(user: str) -> int:
    """Delete every meal photo kept for the user (consent withdrawn); returns how many."""
    with session_scope() as session:
        owner = repo.get_user(user, session=session)
        tokens = forget(session, session.scalars(of_user(owner).where(KeptPhoto.entry_id.is_not(None))))
    remove_files(tokens)
    return len(tokens)


def kept_photos(user: str, *, household: bool = False) -> list[dict[str, Any]]:
    """The user's kept photos (with ``household``: those of every member of their household),
    oldest first: {"id", "owner", "entry_id", "food", "labelled", "sha256", "created_at", "path"}."""
    with session_scope(write=False) as session:
        owner = repo.get_user(user, session=session)
        ids = households.member_ids(session, owner) if household else [owner.id]
        rows = session.execute(select(KeptPhoto, User.name).join(User, User.id == KeptPhoto.user_id)
                               .where(KeptPhoto.user_id.in_(ids))
                               .order_by(KeptPhoto.created_at, KeptPhoto.id)).all()
        return [{"id": row.id, "owner": name, "entry_id": row.entry_id, "food": row.food_name,
                 "labelled": row.labelled, "sha256": row.sha256, "created_at": row.created_at,
                 "path": photo_path(row.token)} for row, name in rows]


def export_image_folder(user: str, out: str | os.PathLike, *, household: bool = False) -> dict[str, int]:
    """Copy the user's (or household's) kept photos into ``out``, which must be empty or new:
    labelled ones as an ImageFolder, ``out/labelled/<food slug>/<id>.jpg``, the others in
    ``out/unlabelled/``. Returns {"labelled", "unlabelled", "foods", "missing"} (missing: rows
    whose file is gone, e.g. deleted by hand)."""
    photos = kept_photos(user, household=household)
    target = Path(out).expanduser()
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise FoodtagError(f"{target} is not an empty folder: give a new or empty one")
    slugs = food_slugs(p["food"] for p in photos if p["labelled"])
    counts = {"labelled": 0, "unlabelled": 0, "foods": len(set(slugs.values())), "missing": 0}
    try:
        for kind in ("labelled", "unlabelled"):
            (target / kind).mkdir(parents=True, exist_ok=True)
        for photo in photos:
            if not photo["path"].is_file():
                counts["missing"] += 1
                continue
            kind = "labelled" if photo["labelled"] else "unlabelled"
            place = target / kind / slugs[photo["food"]] if photo["labelled"] else target / kind
            place.mkdir(exist_ok=True)
            shutil.copyfile(photo["path"], place / f"{photo['id']}.jpg")
            counts[kind] += 1
    except OSError as exc:
        raise FoodtagError(f"cannot write to {target}: {exc.strerror}") from None
    return counts


def food_slugs(names: Iterable[str]) -> dict[str, str]:
    """Food name -> a folder name (lower case letters, digits and dashes), distinct per name:
    "Crème brûlée, baked" -> "creme-brulee-baked"; a second name with the same slug gets "-2"."""
    slugs: dict[str, str] = {}
    for name in sorted(set(names)):
        base = re.sub(r"[^a-z0-9]+", "-", name_key(name)).strip("-")[:80] or "food"
        slug, n = base, 1
        while slug in slugs.values():
            n += 1
            slug = f"{base}-{n}"
        slugs[name] = slug
    return slugs
