"""``python -m db migrate-sqlite-to``: copy a SQLite database into a new PostgreSQL database.

Everything in the schema travels (the food catalog with servings, aliases, labels and GI
values, own foods and recipes, users with their password hashes and settings, favourites,
meal logs, model changes, which seed parts are loaded), row by row with the same ids, in one
transaction on the target. Before that transaction commits, every table is read back from
the target and compared with the source: the same row count and the same SHA-256 over its
rows in id order (``digests``). Any difference, or a row PostgreSQL refuses, rolls the whole
copy back.

The target must be empty: a new database, at most migrated (``python -m db init`` on it would
seed it; don't). The source must be at the newest schema revision, so both sides have the
same tables and columns: start the app (or ``python -m db init``) on it once after upgrading.
SQLite's search index (FTS5) is not copied: PostgreSQL searches without it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from sqlalchemy import Float, Table, func, insert, select
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import ArgumentError, SQLAlchemyError

from db import migrate, sequences
from db.errors import InvalidValue
from db.tables import Base
from db.session import display_url, hold_schema_lock, make_engine

# Rows read and written per round trip.
CHUNK = 2000


@dataclass(frozen=True)
class TableCopy:
    table: str
    rows: int
    sha256: str


def sqlite_url(source: str) -> str:
    """A SQLite URL for ``source`` (a sqlite:/// URL or a file path) naming an existing file."""
    if "://" in source:
        try:
            url = make_url(source)
        except ArgumentError:
            raise InvalidValue(f"not a database URL: {display_url(source)}") from None
        if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
            raise InvalidValue(f"--from must be a SQLite database file, got {display_url(source)}")
        path = Path(url.database)
    else:
        path = Path(source)
    if not path.is_file():
        raise InvalidValue(f"no SQLite database file at {path}")
    return f"sqlite:///{path.resolve()}"


def postgres_url(target: str) -> str:
    try:
        url = make_url(target)
    except ArgumentError:
        raise InvalidValue(f"not a database URL: {display_url(target)}") from None
    if url.get_backend_name() != "postgresql":
        raise InvalidValue("--url must be a PostgreSQL URL (postgresql+psycopg://USER:PASSWORD@"
                           f"HOST:PORT/DATABASE), got {display_url(target)}")
    return target


def copy_sqlite_to(target: str, source: str) -> list[TableCopy]:
    """Copy the SQLite database ``source`` (URL or path) into the empty PostgreSQL database
    ``target`` (URL), verified; returns each table's row count and checksum."""
    source_engine = make_engine(sqlite_url(source))
    target_engine = make_engine(postgres_url(target))
    try:
        # One read transaction on the source: a consistent snapshot even while an app writes.
        with source_engine.connect() as src, src.begin(), \
                target_engine.connect() as dst, dst.begin():
            _check_source(src, source)
            hold_schema_lock(dst)  # an app starting on the target now waits for the copy
            migrate.upgrade(dst)
            _check_empty(dst, target)
            for table in Base.metadata.sorted_tables:  # parents before children
                _copy_table(src, dst, table)
            sequences.sync(dst)
            copied = digests(src)
            written = digests(dst)
            differ = [c.table for c, w in zip(copied, written) if c != w]
            if differ:
                raise InvalidValue(f"the copy differs from the source in {differ}; nothing "
                                   "was written")
            return copied
    finally:
        source_engine.dispose()
        target_engine.dispose()


def digests(conn: Connection) -> list[TableCopy]:
    """Each schema table's row count and SHA-256 over its rows in primary-key order, each
    value in one canonical text form, so SQLite and PostgreSQL give the same digest for the
    same data."""
    out = []
    for table in Base.metadata.sorted_tables:
        digest, count = hashlib.sha256(), 0
        for row in _rows(conn, table):
            digest.update(json.dumps([_canonical(table, name, value) for name, value
                                      in row.items()], ensure_ascii=False).encode())
            digest.update(b"\n")
            count += 1
        out.append(TableCopy(table.name, count, digest.hexdigest()))
    return out


def _check_source(src: Connection, source: str) -> None:
    revision, head = migrate.current_revision(src), migrate.head_revision()
    if revision is None:
        raise InvalidValue(f"{source} is not a foodtag database (it has no schema revision)")
    if revision != head:
        raise InvalidValue(
            f"{source} is at schema revision {revision}, this version writes {head}: bring it "
            f"up to date first (FOODTAG_DB_URL={sqlite_url(source)} python -m db init)")


def _check_empty(dst: Connection, target: str) -> None:
    filled = {}
    for table in Base.metadata.sorted_tables:
        count = dst.scalar(select(func.count()).select_from(table))
        if count:
            filled[table.name] = count
    if filled:
        held = ", ".join(f"{name}: {count} rows" for name, count in filled.items())
        raise InvalidValue(
            f"{display_url(target)} is not empty ({held}); migrate-sqlite-to only copies into a new "
            "database (e.g. createdb foodtag_new) and never merges or overwrites")


def _copy_table(src: Connection, dst: Connection, table: Table) -> None:
    batch: list[dict] = []
    for row in _rows(src, table):
        batch.append(dict(row))
        if len(batch) == CHUNK:
            _insert(dst, table, batch)
            batch = []
    if batch:
        _insert(dst, table, batch)


def _insert(dst: Connection, table: Table, rows: list[dict]) -> None:
    try:
        with dst.begin_nested():  # a savepoint, so the error below is PostgreSQL's first
            dst.execute(insert(table), rows)
    except SQLAlchemyError as exc:
        first = str(getattr(exc, "orig", exc)).splitlines()[0]
        raise InvalidValue(f"table {table.name}: PostgreSQL refused a row of the source "
                           f"({first}); nothing was written") from None


def _rows(conn: Connection, table: Table) -> Iterator:
    statement = select(table).order_by(*table.primary_key.columns)
    result = conn.execute(statement, execution_options={"yield_per": CHUNK})
    for partition in result.mappings().partitions():
        yield from partition


def _canonical(table: Table, column: str, value: object) -> object:
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(table.c[column].type, Float):
        return repr(float(value))  # every double exactly; 5 and 5.0 alike
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, int):
        return value
    return repr(value)
