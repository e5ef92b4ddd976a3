"""python -m db migrate-sqlite-to: a SQLite database (the whole shipped catalog, users, meal
logs, own foods, recipes, favourites, model changes) copied into PostgreSQL, verified; refusals
that leave the target as it was."""

import shutil
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from db import migrate, personal, service, signins, transfer
from db.__main__ import main
from db.session import configure, init_db

NOON = datetime(2024, 5, 1, 12, 0)
PHOTO = "ab" * 32


def _add_people() -> None:
    """Users, settings, meals (from a photo, corrected, idempotent), own foods, a recipe,
    favourites, model changes and the default model, a sign-in session and a download's owner,
    on the configured database."""
    service.create_user("alice", "correct horse", admin=True)
    service.create_user("bob", "battery staple")
    service.update_settings("alice", exchange_unit_g=12, daily_carb_target_g=180)
    service.log_meal("alice", "banana", eaten_at=NOON, meal_type="lunch", note="ripe",
                     predicted_label="banana", confidence=0.93, model_version="food_default@1",
                     external_id="photo-1", photo_sha256=PHOTO, is_correction=False)
    service.log_meal("alice", "pizza", grams=214, eaten_at=NOON + timedelta(hours=7),
                     predicted_label="banana", confidence=0.4, is_correction=True)
    personal.create_own_food("bob", "Muesli bar", {"kcal": 120, "carbohydrate_g": 20,
                                                   "protein_g": 3, "fat_g": 4},
                             serving_grams=30, per_serving=True)
    personal.create_recipe("bob", "Banana bowl", [("banana", 118), ("Muesli bar", 30)], 2)
    service.log_meal("bob", "banana bowl", eaten_at=NOON)
    personal.set_favourite("alice", "espresso")
    service.set_user_model("bob", "student")
    service.set_default_model("alice", "student", replaces="food_default")
    signins.start("alice", "alice-session-token", max_age_s=3600)
    service.own_file("bob", "0123456789abcdef0123456789abcdef")


def _snapshot(url: str) -> dict:
    """What the service layer shows of the people's data on ``url``."""
    configure(url)
    try:
        day = (NOON - timedelta(hours=12), NOON + timedelta(hours=12))
        return {
            "alice": service.list_meals("alice", *day),
            "bob": service.list_meals("bob", *day),
            "settings": service.get_settings("alice"),
            "bob_foods": personal.own_foods("bob"),
            "changes": [{k: v for k, v in c.items()} for c in service.model_changes()],
            "bob_model": service.user_model("bob"),
            "default_model": service.default_model(),
            "alice_session": signins.user_for("alice-session-token", idle_s=3600),
            "file_owner": service.file_owner("0123456789abcdef0123456789abcdef"),
            "admin": service.is_admin("alice"),
            "foods": service.food_count(),
        }
    finally:
        configure(None)


def _digests(url: str) -> list[transfer.TableCopy]:
    engine = create_engine(url)
    with engine.connect() as conn:
        found = transfer.digests(conn)
    engine.dispose()
    return found


@pytest.fixture(scope="module")
def full_source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite database on the whole shipped seed, with people's data."""
    path = tmp_path_factory.mktemp("sqlite-source") / "foodtag.db"
    configure(f"sqlite:///{path}")
    init_db()
    _add_people()
    configure(None)
    return path


@pytest.fixture
def small_source(seeded_template: Path, tmp_path: Path) -> Path:
    """A SQLite database on the small test seed, with people's data."""
    path = tmp_path / "small.db"
    shutil.copyfile(seeded_template, path)
    configure(f"sqlite:///{path}")
    _add_people()
    configure(None)
    return path


def test_everything_is_copied_and_verified(full_source, postgres_url, capsys):
    source_url = f"sqlite:///{full_source}"
    assert main(["migrate-sqlite-to", "--url", postgres_url, "--from", str(full_source)]) == 0
    out = capsys.readouterr().out
    expected = _digests(source_url)
    assert _digests(postgres_url) == expected  # read back independently of the command
    counts = {c.table: c.rows for c in expected}
    assert counts["foods"] > 8800 and counts["servings"] > 15000 and counts["meal_entries"] == 3
    for copy in expected:
        assert f"  {copy.table:20} {copy.rows:8} rows  sha256 {copy.sha256[:16]}" in out
    assert out.rstrip().endswith(f"{sum(counts.values())} rows; row counts and checksums "
                                 "match the source")

    assert _snapshot(postgres_url) == _snapshot(source_url)
    configure(postgres_url)
    try:
        assert service.verify_password("alice", "correct horse")
        assert service.search("white rice")[0]["food"] == (
            "Rice, white, long-grain, regular, enriched, cooked")
        assert "Muesli bar" not in [h["food"] for h in service.search("muesli", user="alice")]
        assert service.search("muesli bar", user="bob")[0]["food"] == "Muesli bar"
        # New rows continue after the copied ids (the id sequences were moved).
        service.create_user("carol")
        entry = service.log_meal("carol", "apple", eaten_at=NOON)
        assert entry["id"] == counts["meal_entries"] + 1
        assert personal.create_own_food("carol", "Oat cake", {
            "kcal": 400, "carbohydrate_g": 60, "protein_g": 8, "fat_g": 12})["food_id"] > max(
            f["food_id"] for f in personal.own_foods("bob"))
    finally:
        configure(None)


def test_a_target_that_is_not_empty_is_refused(small_source, postgres_url, capsys):
    assert main(["migrate-sqlite-to", "--url", postgres_url, "--from", str(small_source)]) == 0
    before = _digests(postgres_url)
    capsys.readouterr()
    assert main(["migrate-sqlite-to", "--url", postgres_url, "--from", str(small_source)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {postgres_url} is not empty (model_changes: 2 rows, ")
    assert "users: 2 rows, foods: 7 rows" in err and "never merges or overwrites" in err
    assert _digests(postgres_url) == before


def test_a_row_postgresql_refuses_rolls_the_whole_copy_back(small_source, postgres_url,
                                                             capsys):
    # SQLite does not enforce VARCHAR lengths; PostgreSQL does.
    engine = create_engine(f"sqlite:///{small_source}")
    with engine.begin() as conn:
        conn.execute(text("UPDATE meal_entries SET meal_type = :long WHERE id = 2"),
                     {"long": "x" * 41})
    engine.dispose()
    assert main(["migrate-sqlite-to", "--url", postgres_url, "--from", str(small_source)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: table meal_entries: PostgreSQL refused a row of the source")
    assert err.rstrip().endswith("nothing was written")
    engine = create_engine(postgres_url)
    with engine.connect() as conn:  # not even the schema: one transaction, rolled back
        assert migrate.current_revision(conn) is None
    engine.dispose()


def test_checksums_see_a_changed_value(small_source, postgres_url):
    assert transfer.copy_sqlite_to(postgres_url, str(small_source))
    engine = create_engine(postgres_url)
    with engine.begin() as conn:  # the smallest change: one bit of one double
        conn.execute(text("UPDATE meal_entries SET kcal = kcal * (1 + 2.2e-16) WHERE id = 1"))
    engine.dispose()
    source, target = _digests(f"sqlite:///{small_source}"), _digests(postgres_url)
    assert [s.table for s, t in zip(source, target) if s != t] == ["meal_entries"]


def test_bad_sources_and_targets_are_refused(small_source, postgres_url, tmp_path, capsys):
    old = tmp_path / "old.db"
    engine = create_engine(f"sqlite:///{old}")
    with engine.begin() as conn:
        migrate.upgrade(conn, "0002")
    engine.dispose()
    cases = [
        (["--url", postgres_url, "--from", str(tmp_path / "missing.db")],
         f"error: no SQLite database file at {tmp_path / 'missing.db'}"),
        (["--url", postgres_url, "--from", "postgresql://u:secret@h/db"],
         "error: --from must be a SQLite database file, got postgresql://u:***@h/db"),
        (["--url", f"sqlite:///{tmp_path / 'x.db'}", "--from", str(small_source)],
         "error: --url must be a PostgreSQL URL"),
        (["--url", postgres_url, "--from", str(old)],
         f"error: {old} is at schema revision 0002, this version writes "
         f"{migrate.head_revision()}: bring it up to date first"),
    ]
    for argv, message in cases:
        assert main(["migrate-sqlite-to", *argv]) == 2
        assert capsys.readouterr().err.startswith(message)
    assert not (tmp_path / "x.db").exists()
    engine = create_engine(postgres_url)
    with engine.connect() as conn:
        assert migrate.current_revision(conn) is None
    engine.dispose()
