"""Meal photos kept with consent (db.photos) and households (db.households): nothing is kept
with the setting off; what is kept is small, without location and owner-only; deleting an
entry, withdrawing consent or removing the account deletes files and rows; a photo reaches
only its owner and their household; the export is an ImageFolder."""

from __future__ import annotations

import hashlib
import io
import os
import stat
import time
from datetime import date, datetime, timedelta

import pytest
from db_support import alice, db_url  # noqa: F401  (fixtures)
from photo_support import GPS_IFD, files_in, photo_with_location, photos_dir  # noqa: F401
from PIL import Image
from sqlalchemy import select

from db import households, photos, repo, service
from db.errors import InvalidValue, NotFound, UnknownUser
from db.tables import HouseholdInvite, KeptPhoto
from db.session import session_scope
from models.errors import FoodtagError
from models.images import keepable_jpeg


@pytest.fixture(scope="module")
def kept_jpeg() -> bytes:
    return keepable_jpeg(photo_with_location(), short_side=photos.MAX_SIDE)


def log_from_photo(user: str, jpeg: bytes, food: str = "banana", *, corrected: bool = False) -> dict:
    """A meal logged from an analysed photo, as the app logs it."""
    return service.log_meal(user, food, predicted_label="banana", confidence=0.8, model_version="test",
                            photo_sha256=hashlib.sha256(b"upload").hexdigest(), is_correction=corrected,
                            photo=jpeg)


def rows() -> list[KeptPhoto]:
    with session_scope(write=False) as session:
        found = list(session.scalars(select(KeptPhoto).order_by(KeptPhoto.id)))
        session.expunge_all()
        return found


def test_the_setting_is_off_by_default_and_nothing_is_kept(alice, photos_dir, kept_jpeg):
    assert service.get_settings("alice")["keep_photos"] is False
    entry = log_from_photo("alice", kept_jpeg)
    assert entry["created"] and entry["photo_sha256"]
    assert rows() == [] and files_in(photos_dir) == []
    assert photos.kept_photos("alice") == []


def test_kept_photo_is_downscaled_upright_without_location_and_owner_only(alice, photos_dir):
    service.update_settings("alice", keep_photos=True)
    # 1200 x 900, EXIF orientation 6 (the camera was turned): upright it is 900 x 1200.
    upload = photo_with_location(orientation=6)
    assert Image.open(io.BytesIO(upload)).getexif().get_ifd(GPS_IFD)  # the upload has a position
    entry = log_from_photo("alice", keepable_jpeg(upload, short_side=photos.MAX_SIDE))
    [row] = rows()
    [path] = files_in(photos_dir)
    assert path == photos_dir / f"{row.token}.jpg" and len(row.token) == 32
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(photos_dir.stat().st_mode) == 0o700
    kept = Image.open(path)
    assert kept.format == "JPEG" and kept.size == (photos.MAX_SIDE, round(1200 * photos.MAX_SIDE / 900))
    assert len(kept.getexif()) == 0 and not {"exif", "xmp", "comment", "icc_profile"} & set(kept.info)
    # Upright: the coloured half of the upload (its left) is now on top.
    assert kept.getpixel((256, 20))[2] < 100 and kept.getpixel((256, 660)) > (240, 240, 240)
    assert row.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert (row.entry_id, row.food_name, row.labelled) == (entry["id"], "Banana", False)
    small = keepable_jpeg(photo_with_location(size=(300, 200)), short_side=photos.MAX_SIDE)
    assert Image.open(io.BytesIO(small)).size == (300, 200)  # never enlarged


def test_a_correction_is_a_labelled_photo_and_an_edit_relabels_it(alice, photos_dir, kept_jpeg):
    service.update_settings("alice", keep_photos=True)
    corrected = log_from_photo("alice", kept_jpeg, "espresso", corrected=True)
    accepted = log_from_photo("alice", kept_jpeg, "banana")
    assert [(r.entry_id, r.food_name, r.labelled) for r in rows()] == [
        (corrected["id"], "Espresso", True), (accepted["id"], "Banana", False)]
    service.update_meal("alice", accepted["id"], food="pizza")  # the person says what it was
    assert (rows()[1].food_name, rows()[1].labelled) == ("Cheese pizza", True)
    service.update_meal("alice", corrected["id"], grams=60)  # a new portion: the label stays
    assert (rows()[0].food_name, rows()[0].labelled) == ("Espresso", True)


def test_a_photo_that_is_not_as_kept_is_refused_before_anything_is_saved(alice, photos_dir, kept_jpeg):
    service.update_settings("alice", keep_photos=True)
    raw = photo_with_location(size=(600, 600))  # small enough, but with EXIF and GPS
    big = io.BytesIO()
    Image.new("RGB", (800, 700)).save(big, format="JPEG")
    png = io.BytesIO()
    Image.new("RGB", (64, 64)).save(png, format="PNG")
    for bad, words in ((raw, "no metadata"), (big.getvalue(), "512 px"), (png.getvalue(), "not a readable JPEG"),
                       (b"", "bytes of a JPEG"), ("photo.jpg", "bytes of a JPEG")):
        with pytest.raises(InvalidValue, match=words):
            log_from_photo("alice", bad)
    assert service.day_summary("alice", date.today())["entries"] == []
    assert rows() == [] and files_in(photos_dir) == []


def test_a_file_whose_row_is_not_committed_is_removed(alice, photos_dir, kept_jpeg):
    service.update_settings("alice", keep_photos=True)
    entry_id = service.log_meal("alice", "banana")["id"]
    with pytest.raises(RuntimeError, match="commit failed"):
        with photos.undone_on_error() as kept, session_scope() as session:
            owner = repo.get_user("alice", session=session)
            kept.append(photos.keep(session, owner, repo.get_entry(owner, entry_id, session=session), kept_jpeg))
            assert len(files_in(photos_dir)) == 1
            raise RuntimeError("commit failed")
    assert rows() == [] and files_in(photos_dir) == []


def test_sweep_removes_only_old_files_of_ours_that_no_row_names(alice, photos_dir, kept_jpeg):
    service.update_settings("alice", keep_photos=True)
    log_from_photo("alice", kept_jpeg)
    [kept] = files_in(photos_dir)
    old_stray, new_stray = photos_dir / f"{'a' * 32}.jpg", photos_dir / f"{'b' * 32}.part"
    foreign = photos_dir / "holiday.jpg"  # a folder shared by mistake: not ours to delete
    for path in (old_stray, new_stray, foreign):
        path.write_bytes(kept_jpeg)
    hour_ago = time.time() - 3601
    for path in (kept, old_stray, foreign):
        os.utime(path, (hour_ago, hour_ago))
    assert photos.sweep_orphans() == 1
    assert files_in(photos_dir) == sorted([kept, new_stray, foreign])


def test_deleting_the_entry_or_withdrawing_consent_deletes_files_and_rows(alice, photos_dir, kept_jpeg):
    service.update_settings("alice", keep_photos=True)
    first, second, third = (log_from_photo("alice", kept_jpeg) for _ in range(3))
    assert len(files_in(photos_dir)) == 3
    service.delete_meal("alice", first["id"])
    assert [r.entry_id for r in rows()] == [second["id"], third["id"]] and len(files_in(photos_dir)) == 2
    [photo] = [p for p in photos.kept_photos("alice") if p["entry_id"] == second["id"]]
    assert photos.delete_photos("alice", [photo["id"]]) == 1  # what removing a dish calls
    assert [r.entry_id for r in rows()] == [third["id"]] and len(files_in(photos_dir)) == 1
    settings = service.update_settings("alice", keep_photos=False)
    assert settings["keep_photos"] is False
    assert rows() == [] and files_in(photos_dir) == []
    everything = (datetime(2000, 1, 1), datetime(2100, 1, 1))
    assert [e["id"] for e in service.list_meals("alice", *everything)] == [second["id"], third["id"]]


def test_removing_the_account_deletes_its_photos_and_no_one_elses(alice, photos_dir, kept_jpeg):
    service.create_user("bob")
    for user in ("alice", "bob"):
        service.update_settings(user, keep_photos=True)
        log_from_photo(user, kept_jpeg)
    bobs = photos.kept_photos("bob")[0]["path"]
    service.remove_user("alice")
    assert files_in(photos_dir) == [bobs]
    assert [p["owner"] for p in photos.kept_photos("bob")] == ["bob"]
    assert len(rows()) == 1


def test_photos_reach_only_their_owner_or_household(alice, photos_dir, kept_jpeg):
    for user in ("bob", "carol"):
        service.create_user(user)
    for user in ("alice", "bob", "carol"):
        service.update_settings(user, keep_photos=True)
        log_from_photo(user, kept_jpeg)
    assert [p["owner"] for p in photos.kept_photos("bob", household=True)] == ["bob"]
    assert service.household_members("bob") == ["bob"]
    # Naming the same household is not enough: joining takes a code a member made.
    households.create_household("alice", "Home")
    with pytest.raises(InvalidValue, match="already in the household 'Home'"):
        households.create_household("alice", "Home")
    with pytest.raises(InvalidValue, match="not valid"):
        households.join_household("bob", "Home")
    code = households.create_invite("alice")
    assert households.join_household("bob", f" {code} ") == {"name": "Home", "members": ["alice", "bob"]}
    with pytest.raises(InvalidValue, match="not valid"):
        households.join_household("carol", code)  # used up
    assert service.household_members("alice") == service.household_members("bob") == ["alice", "bob"]
    assert service.household_members("carol") == ["carol"]
    assert sorted(p["owner"] for p in photos.kept_photos("bob", household=True)) == ["alice", "bob"]
    assert [p["owner"] for p in photos.kept_photos("bob")] == ["bob"]
    assert [p["owner"] for p in photos.kept_photos("carol", household=True)] == ["carol"]
    # Nobody deletes another person's photo, household or not.
    alices = photos.kept_photos("alice")[0]["id"]
    with pytest.raises(NotFound):
        photos.delete_photos("bob", [alices])
    assert len(files_in(photos_dir)) == 3
    households.leave_household("bob")
    assert [p["owner"] for p in photos.kept_photos("bob", household=True)] == ["bob"]
    assert service.household_members("alice") == ["alice"]


def test_invites_expire_and_die_with_their_maker_leaving(alice):
    service.create_user("bob")
    with pytest.raises(InvalidValue, match="no household"):
        households.create_invite("alice")
    households.create_household("alice", "Flat 3")
    stale, live = households.create_invite("alice"), households.create_invite("alice")
    with session_scope() as session:
        for invite in session.scalars(select(HouseholdInvite)):
            if invite.code_hash == hashlib.sha256(stale.encode()).hexdigest():
                invite.expires_at = invite.created_at - timedelta(seconds=1)
    with pytest.raises(InvalidValue, match="not valid"):
        households.join_household("bob", stale)
    households.leave_household("alice")  # the last member: the household ends
    assert households.household("alice") is None
    with pytest.raises(InvalidValue, match="not valid"):
        households.join_household("bob", live)
    assert service.household_members("bob") == ["bob"]


def test_export_writes_an_image_folder_and_refuses_a_full_folder(alice, photos_dir, kept_jpeg, tmp_path):
    service.create_user("bob")
    for user in ("alice", "bob"):
        service.update_settings(user, keep_photos=True)
    log_from_photo("alice", kept_jpeg, "espresso", corrected=True)
    log_from_photo("alice", kept_jpeg, "creme brulee", corrected=True)
    log_from_photo("alice", kept_jpeg, "banana")
    log_from_photo("bob", kept_jpeg, "espresso", corrected=True)
    out = tmp_path / "export"
    counts = photos.export_image_folder("alice", out)
    assert counts == {"labelled": 2, "unlabelled": 1, "foods": 2, "missing": 0}
    ids = {p["food"]: p["id"] for p in photos.kept_photos("alice")}
    assert sorted(str(p.relative_to(out)) for p in files_in(out)) == sorted([
        f"labelled/espresso/{ids['Espresso']}.jpg", f"labelled/creme-brulee/{ids['Crème brûlée']}.jpg",
        f"unlabelled/{ids['Banana']}.jpg"])
    assert (out / f"unlabelled/{ids['Banana']}.jpg").read_bytes() == kept_jpeg
    with pytest.raises(FoodtagError, match="not an empty folder"):
        photos.export_image_folder("alice", out)
    with pytest.raises(UnknownUser, match="no user 'nobody'"):
        photos.export_image_folder("nobody", tmp_path / "other")
    # Bob's household export holds only his photo until they share a household.
    assert photos.export_image_folder("bob", tmp_path / "bob", household=True)["labelled"] == 1
    households.create_household("alice", "Home")
    households.join_household("bob", households.create_invite("alice"))
    counts = photos.export_image_folder("bob", tmp_path / "both", household=True)
    assert counts == {"labelled": 3, "unlabelled": 1, "foods": 2, "missing": 0}
    assert len(files_in(tmp_path / "both" / "labelled" / "espresso")) == 2


def test_food_slugs_are_folder_names_distinct_per_food():
    assert photos.food_slugs(["Rice, white, cooked", "Crème brûlée", "Rice white cooked", "???"]) == {
        "???": "food", "Crème brûlée": "creme-brulee", "Rice white cooked": "rice-white-cooked",
        "Rice, white, cooked": "rice-white-cooked-2"}

