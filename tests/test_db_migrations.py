"""Schema: Alembic migrations match the models, upgrade from empty and downgrade to base;
init_db is idempotent and safe when several processes run it at once; SQLite settings."""

import subprocess
import sys
from pathlib import Path

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from db_support import write_seed
from sqlalchemy import create_engine, inspect, select, text

from db import migrate
from db.fts import include_name
from db.models import Base, Food
from db.session import configure, get_engine, init_db, session_scope

REPO = Path(__file__).resolve().parents[1]
TABLES = {"foods", "food_labels", "food_aliases", "servings", "glycemic_index", "users",
          "meal_entries"}


def test_upgrade_from_empty_then_downgrade_to_base(tmp_path):
    engine = create_engine(f"sqlite:///{tmp_path / 'm.db'}")
    with engine.begin() as conn:
        assert migrate.current_revision(conn) is None
        migrate.upgrade(conn)
        assert migrate.current_revision(conn) == migrate.head_revision()
        assert TABLES <= set(inspect(conn).get_table_names())
    with engine.begin() as conn:
        migrate.downgrade(conn, "base")
        assert migrate.current_revision(conn) is None
        assert set(inspect(conn).get_table_names()) <= {"alembic_version"}
    with engine.begin() as conn:  # and up again: downgrade left nothing behind
        migrate.upgrade(conn)
        assert TABLES <= set(inspect(conn).get_table_names())
    engine.dispose()


def test_migrations_create_exactly_the_models(tmp_path):
    engine = create_engine(f"sqlite:///{tmp_path / 'm.db'}")
    with engine.begin() as conn:
        migrate.upgrade(conn)
        context = MigrationContext.configure(conn, opts={"include_name": include_name})
        diff = compare_metadata(context, Base.metadata)
    engine.dispose()
    assert diff == [], f"db/models.py and db/migrations differ: {diff}"


def test_init_db_is_idempotent_and_sets_up_sqlite(tmp_path):
    seed = write_seed(tmp_path / "seed")
    configure(f"sqlite:///{tmp_path / 'foodtag.db'}")
    try:
        init_db(seed_dir=seed)
        init_db(seed_dir=seed)
        with session_scope(write=False) as session:
            assert len(session.scalars(select(Food)).all()) == 5
            assert session.execute(text("PRAGMA journal_mode")).scalar() == "wal"
            assert session.execute(text("PRAGMA foreign_keys")).scalar() == 1
            assert session.execute(text("PRAGMA busy_timeout")).scalar() == 30000
    finally:
        configure(None)


def test_default_database_is_in_data_home(tmp_path, monkeypatch):
    monkeypatch.setenv("FOODTAG_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("FOODTAG_DB_URL", raising=False)
    configure(None)
    try:
        assert get_engine().url.database == str(tmp_path / "home" / "foodtag.db")
        monkeypatch.setenv("FOODTAG_DB_URL", f"sqlite:///{tmp_path / 'other.db'}")
        configure(None)
        assert get_engine().url.database == str(tmp_path / "other.db")
    finally:
        configure(None)


def test_concurrent_first_runs_in_separate_processes(tmp_path):
    seed = write_seed(tmp_path / "seed")
    url = f"sqlite:///{tmp_path / 'race.db'}"
    script = (
        "import sys; from pathlib import Path\n"
        "from db.session import configure, init_db\n"
        "configure(sys.argv[1]); init_db(seed_dir=Path(sys.argv[2]))\n"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", script, url, str(seed)], cwd=REPO,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(3)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    configure(url)
    try:
        with session_scope(write=False) as session:
            names = session.scalars(select(Food.name)).all()
        assert sorted(names) == sorted(set(names)) and len(names) == 5  # seeded exactly once
    finally:
        configure(None)


def test_in_memory_database(tmp_path):
    configure("sqlite://")
    try:
        init_db(seed_dir=write_seed(tmp_path / "seed"))
        with session_scope(write=False) as session:
            assert session.scalar(select(Food.id).where(Food.name == "Banana")) is not None
    finally:
        configure(None)
