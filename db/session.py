"""The one engine and the one place sessions are opened.

Default database: SQLite file data_home()/foodtag.db; FOODTAG_DB_URL (any SQLAlchemy URL)
overrides it, and configure() overrides both (tests point it at a tmp file).

SQLite settings and why:
- WAL journal: readers never block the writer and vice versa (the app reads while logging).
- busy_timeout 30 s: a writer waits for the lock instead of failing at once.
- foreign_keys ON: SQLite leaves them off per connection unless asked.
- Write transactions start with BEGIN IMMEDIATE, taking the write lock up front. With the
  default deferred BEGIN, two transactions that read and then write can both hold a read
  snapshot; the second to write gets SQLITE_BUSY at once, without waiting the busy timeout.
  pysqlite's own transaction handling is switched off so that we can emit that BEGIN.
"""

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, event, select, text
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import StaticPool

from db import (catalog, cofid, composites, composition, fndds, fts, glycemic, migrate, seed,
                sr28, swiss)
from db.errors import InvalidValue
from db.tables import Food, SeedVersion
from models.paths import data_home

BUSY_TIMEOUT_S = 30.0
# Connection execution option: begin this connection's transactions with BEGIN IMMEDIATE.
_IMMEDIATE = "foodtag_begin_immediate"
# Postgres advisory-lock key serialising concurrent init_db() calls (any fixed bigint).
_PG_INIT_LOCK = 0x666F6F64746167

# The food tables beside SR Legacy, in loading order (db.composition).
TABLES = (fndds.TABLE, cofid.TABLE, swiss.TABLE)

_lock = threading.RLock()
# Alembic keeps its migration context in module globals: one migration per process at a time.
_init_lock = threading.Lock()
_configured_url: str | None = None
_engine: Engine | None = None
_sessions: sessionmaker[Session] | None = None


def database_url() -> str:
    """configure()'s URL, else $FOODTAG_DB_URL, else the SQLite file in data_home()."""
    if _configured_url:
        return _configured_url
    return os.environ.get("FOODTAG_DB_URL") or f"sqlite:///{default_sqlite_file()}"


def default_sqlite_file() -> Path:
    """The database file used when no URL is given."""
    return data_home() / "foodtag.db"


def display_url(url_text: str) -> str:
    """``url_text`` fit to print: the password masked (an unparsable URL: a short prefix)."""
    try:
        return make_url(url_text).render_as_string(hide_password=True)
    except ArgumentError:
        return repr(url_text[:40])


def configure(url: str | None) -> None:
    """Use ``url`` from now on (None: back to $FOODTAG_DB_URL / the default file)."""
    global _configured_url, _engine, _sessions
    with _lock:
        if _engine is not None:
            _engine.dispose()
        _configured_url, _engine, _sessions = url, None, None


def get_engine() -> Engine:
    """The engine for database_url(), created on first use."""
    global _engine, _sessions
    with _lock:
        if _engine is None:
            _engine = make_engine(database_url())
            _sessions = sessionmaker(_engine, expire_on_commit=False)
        return _engine


@contextmanager
def session_scope(*, write: bool = True) -> Iterator[Session]:
    """A session whose transaction commits when the block succeeds and rolls back otherwise.

    write=False is for read-only work: on SQLite it starts a plain (deferred) transaction and
    so does not queue behind writers.
    """
    get_engine()
    assert _sessions is not None
    session = _sessions()
    try:
        if write:
            session.connection(execution_options={_IMMEDIATE: True})
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


def init_db(*, seed_dir: Path | None = None) -> None:
    """Bring the schema to the newest migration and load the seed parts not loaded yet: the
    curated foods (db/seed/*.csv) into an empty database, then the SR Legacy catalog when the
    seed folder has one (db/seed/sr28_*.csv.gz; test seeds without it stay small).

    Idempotent. Concurrent first runs (several processes or threads) are serialised: the
    whole step is one transaction holding the SQLite write lock (BEGIN IMMEDIATE; SQLite
    DDL is transactional) or a Postgres advisory lock, so the second run finds the schema
    and foods in place. Other databases get only the in-process lock. seed_dir defaults to
    db/seed.

    SQLite migrations run with foreign keys off: a batch migration rebuilds a table (create
    the new one, copy, drop the old one), and with foreign keys on, dropping the old foods
    table would cascade-delete every serving and label (and fail on meal entries). The
    pragma only works outside a transaction, so it is set on the raw connection around it;
    ``PRAGMA foreign_key_check`` must then come back empty before the commit.
    """
    with _init_lock, get_engine().connect() as conn:
        sqlite = conn.dialect.name == "sqlite"
        if sqlite:
            _sqlite_foreign_keys(conn, on=False)
        try:
            conn = conn.execution_options(**{_IMMEDIATE: True})
            with conn.begin():
                hold_schema_lock(conn)
                migrate.upgrade(conn)
                # Joins the open transaction; it flushes into it and never commits it itself.
                with Session(bind=conn) as session:
                    _load_seed(session, seed.SEED_DIR if seed_dir is None else Path(seed_dir))
                if sqlite:
                    broken = conn.exec_driver_sql("PRAGMA foreign_key_check").first()
                    if broken is not None:
                        raise InvalidValue(f"database upgrade left a broken reference: {broken}")
        finally:
            if sqlite:
                _sqlite_foreign_keys(conn, on=True)


def hold_schema_lock(conn: Connection) -> None:
    """On PostgreSQL, wait for and hold (until the transaction ends) the advisory lock that
    serialises schema changes and seeding across processes. SQLite needs none: a write
    transaction (BEGIN IMMEDIATE) already excludes every other writer."""
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_INIT_LOCK})


def _sqlite_foreign_keys(conn: Connection, *, on: bool) -> None:
    """Switch SQLite foreign keys on this pooled connection, outside any transaction (the
    driver connection runs in autocommit mode, see _sqlite_events)."""
    conn.connection.driver_connection.execute(f"PRAGMA foreign_keys = {'ON' if on else 'OFF'}")


def _load_seed(session: Session, folder: Path) -> None:
    """Load each seed part once. A database first seeded from a folder without the catalog
    (the tests' small seeds) records the catalog as absent (0 foods) and stays small; one
    seeded before the catalog existed gets it on its next start."""
    loaded = set(session.scalars(select(SeedVersion.part)))
    changed = False
    if "curated" not in loaded and session.scalar(select(Food.id).limit(1)) is None:
        session.add(SeedVersion(part="curated", foods=seed.load(session, folder)))
        if not sr28.has_compact(folder):
            session.add(SeedVersion(part="sr28", foods=0))
            session.add(SeedVersion(part="composites", foods=0))
            session.add(SeedVersion(part=composites.UPGRADE_PART, foods=0))
        session.flush()
        changed = True
        loaded = set(session.scalars(select(SeedVersion.part)))
    if seed.ALIASES_PART not in loaded and "curated" in loaded:
        retired = seed.retire_aliases(session, folder)
        session.add(SeedVersion(part=seed.ALIASES_PART, foods=retired))
        session.flush()
        changed = changed or bool(retired)
    if seed.ENTRIES_PART not in loaded and "curated" in loaded:
        filled = seed.fill_entries(session, folder)
        session.add(SeedVersion(part=seed.ENTRIES_PART, foods=filled))
        session.flush()
        changed = changed or bool(filled)
    catalog_loaded_now = "sr28" not in loaded and sr28.has_compact(folder)
    if catalog_loaded_now:
        session.add(SeedVersion(part="sr28", foods=catalog.load(session, folder)))
        session.flush()
        changed = True
        loaded.add("sr28")
    # A catalog seeded under an older portion rule gets today's servings once; one loaded
    # just now already has them.
    if catalog.SERVINGS_PART not in loaded and "sr28" in loaded and sr28.has_compact(folder):
        refreshed = 0 if catalog_loaded_now else catalog.refresh_servings(session, folder, {
            food.source_code for food in seed.read_seed(folder).foods
            if food.fdc_dataset == sr28.DATASET_NAME and food.source_code})
        session.add(SeedVersion(part=catalog.SERVINGS_PART, foods=refreshed))
        session.flush()
    # Likewise its everyday names ("snickers"), which the search index holds.
    if catalog.ALIASES_PART not in loaded and "sr28" in loaded and sr28.has_compact(folder):
        renamed = 0 if catalog_loaded_now else catalog.refresh_aliases(session, folder)
        session.add(SeedVersion(part=catalog.ALIASES_PART, foods=renamed))
        session.flush()
        changed = changed or bool(renamed)
    # The GI belongs to curated and catalog foods alike, so it comes after both; a database
    # seeded from an older GI table gets this one once.
    if glycemic.PART not in loaded and "curated" in loaded:
        session.add(SeedVersion(part=glycemic.PART, foods=glycemic.load(session, folder)))
        session.flush()
    # The other food tables complete the catalog: a small seed without it stays without them.
    catalog_foods = session.scalar(select(SeedVersion.foods).where(SeedVersion.part == "sr28"))
    for table in TABLES:
        if table.part not in loaded and catalog_foods and composition.has_compact(table, folder):
            # A database seeded with CoFID 2015's rows keeps them (and the meals logged with
            # them) as the 2021 rows of the same foods.
            present = cofid.supersede_2015(session, folder) if table is cofid.TABLE else {}
            added = composition.load(session, table, folder, present=present)
            session.add(SeedVersion(part=table.part, foods=added + len(present)))
            session.flush()
            changed = True
    # A table loaded from older files gets today's values, notes, search weights and own
    # portions once; one loaded just now already has them.
    if composition.ROWS_PART not in loaded and catalog_foods:
        refreshed = sum(composition.refresh(session, table, folder) for table in TABLES
                        if table.part in loaded and composition.has_compact(table, folder))
        session.add(SeedVersion(part=composition.ROWS_PART, foods=refreshed))
        session.flush()
        changed = changed or bool(refreshed)  # new aliases and weights: the index is rebuilt
    # A table loaded before today's cited portions (table_portions.csv) gets the new ones once;
    # one loaded just now already has them.
    if composition.CITED_PORTIONS_PART not in loaded and catalog_foods:
        added = sum(composition.add_cited_portions(session, table, folder) for table in TABLES
                    if table.part in loaded and composition.has_compact(table, folder))
        session.add(SeedVersion(part=composition.CITED_PORTIONS_PART, foods=added))
        session.flush()
    # Composites are made of rows of every table (fish and chips of CoFID's), so they come last;
    # a database whose composites came before the other tables gets the new ones once.
    if "sr28" in loaded and composites.present(folder):
        if "composites" not in loaded:
            session.add(SeedVersion(part="composites", foods=composites.load(session, folder)))
            session.add(SeedVersion(part=composites.UPGRADE_PART, foods=0))
            changed = True
        elif composites.UPGRADE_PART not in loaded:
            added = composites.load(session, folder, take_over=True)
            session.add(SeedVersion(part=composites.UPGRADE_PART, foods=added))
            changed = changed or bool(added)
        session.flush()
    if changed:
        fts.reindex(session)
        session.flush()
        _analyze_catalog(session)


def _analyze_catalog(session: Session) -> None:
    """PostgreSQL: refresh the planner's statistics of the tables search reads, just written.
    Until autovacuum gets to them the planner takes the new catalog for an empty table and
    reads every food rather than use the trigram indexes (migration 0011). SQLite's FTS5
    query does not depend on its statistics."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(text("ANALYZE foods, food_aliases, food_labels, servings"))


def make_engine(url_text: str) -> Engine:
    """An engine for ``url_text`` with this module's settings (SQLite: WAL, busy timeout,
    foreign keys, BEGIN IMMEDIATE for writes; a new file is created owner-only)."""
    try:
        url = make_url(url_text)
    except ArgumentError as exc:
        raise InvalidValue(f"not a database URL: {url_text!r} ({exc})") from None
    kwargs: dict[str, Any] = {}
    in_memory = False
    if url.get_backend_name() == "sqlite":
        in_memory = url.database in (None, "", ":memory:")
        if in_memory:
            # One shared connection, else every checkout would see a new empty database.
            kwargs.update(poolclass=StaticPool, connect_args={"check_same_thread": False})
        else:
            _private_sqlite_file(Path(url.database))
            kwargs["connect_args"] = {"timeout": BUSY_TIMEOUT_S}
    elif url.get_backend_name() == "postgresql" and url.get_driver_name() in ("psycopg", "psycopg2"):
        kwargs["connect_args"] = {"options": _session_options(url.query.get("options"))}
    try:
        engine = create_engine(url, **kwargs)
    except (ArgumentError, NoSuchModuleError, ImportError) as exc:
        raise InvalidValue(f"cannot use database URL {url.render_as_string()!r}: {exc}") from None
    if engine.dialect.name == "sqlite":
        _sqlite_events(engine, wal=not in_memory)
    return engine


def _session_options(options: object) -> str:
    """libpq ``options`` for this app's PostgreSQL sessions: its planner settings, then the
    URL's own (which win). JIT off: the app runs only short queries (a search reads at most a
    few hundred rows), and compiling one took about 97 ms of a 245 ms search once its
    estimated cost crossed jit_above_cost. random_page_cost 1.1, as for data in memory or on
    SSD: the food catalog is a few megabytes, always cached, and at the default 4 (a spinning
    disk's) the planner read every food to join a few hundred search hits (search SQL median
    7 ms, 3 ms at 1.1: docs/database.md)."""
    given = " ".join(options) if isinstance(options, tuple) else str(options or "")
    return f"-c jit=off -c random_page_cost=1.1 {given}".strip()


def _private_sqlite_file(path: Path) -> None:
    """Create the database file owner-only (0600) before SQLite opens it: it holds password
    hashes and meal logs, and SQLite gives its -wal and -shm files the same mode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch(mode=0o600, exist_ok=True)
    for existing in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        if existing.exists() and existing.stat().st_mode & 0o077:
            existing.chmod(0o600)  # tighten a database made by an earlier version


def _sqlite_events(engine: Engine, *, wal: bool) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # we emit BEGIN ourselves (see _on_begin)
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            cursor.execute("PRAGMA foreign_keys = ON")
            if wal:
                cursor.execute("PRAGMA journal_mode = WAL")
                # With WAL: an app crash loses nothing; a power cut can lose the last
                # commits but never corrupts the file. Saves an fsync per meal logged.
                cursor.execute("PRAGMA synchronous = NORMAL")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        immediate = conn.get_execution_options().get(_IMMEDIATE, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")
